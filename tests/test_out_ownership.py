"""What an --out holds belongs to musaport only where musaport wrote it (issue 24, defects 1, 13, 17, 18).

- ``run`` without ``--pytorch-src`` on an --out holding a port of another tree refuses in one line
  naming ``--pytorch-src`` (it used to replace the port with the bundled tree: "removed 967");
- ``whereis`` refuses a tree a killed run left half moved into place, as ``validate`` and ``diff`` do;
- a ``porting_report.md`` musaport did not write is refused, not overwritten;
- a symbolically linked ``OUT/.musaport`` is refused, not followed out of --out;
- every name of a report or record under an output folder is declared in ``musaport/outdir.py`` (issue 36).
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURE_TREE, ROOT
from harness import assert_one_clear_line, fingerprint, musaport


def _tree(tmp_path: Path, name: str = "pytorch") -> Path:
    src = tmp_path / name
    shutil.copytree(FIXTURE_TREE, src)
    return src


def test_run_without_pytorch_src_refuses_a_port_of_another_tree(tmp_path: Path) -> None:
    src, out = _tree(tmp_path), tmp_path / "build"
    assert musaport("run", "--pytorch-src", str(src), "--out", str(out), "-q").returncode == 0
    before = fingerprint(out)
    done = musaport("run", "--out", str(out), "-q")
    assert_one_clear_line(done, 2, f"holds a port of {src}", f"--pytorch-src {src}")
    assert fingerprint(out) == before
    assert musaport("run", "--pytorch-src", str(src), "--out", str(out), "-q").returncode == 0


def test_run_without_pytorch_src_updates_a_port_of_the_bundled_tree(tmp_path: Path) -> None:
    out = tmp_path / "build"
    assert musaport("run", "--out", str(out), "-q").returncode == 0
    assert musaport("run", "--out", str(out), "-q").returncode == 0


def test_whereis_refuses_a_half_committed_tree(tmp_path: Path) -> None:
    src, out = _tree(tmp_path), tmp_path / "out"
    assert musaport("run", "--pytorch-src", str(src), "--out", str(out), "-q").returncode == 0
    assert musaport("whereis", "at::native::abs_kernel_musa", "--out", str(out)).returncode == 0
    (out / ".musaport/commit-in-progress").write_bytes(b"")
    done = musaport("whereis", "at::native::abs_kernel_musa", "--out", str(out))
    assert_one_clear_line(done, 2, "stopped while moving its outputs into place", f"--pytorch-src {src}")


@pytest.mark.parametrize("name", ["porting_report.md", "porting_report.json"])
def test_a_foreign_report_at_the_top_of_out_is_refused(tmp_path: Path, name: str) -> None:
    src, out = _tree(tmp_path), tmp_path / "out"
    out.mkdir()
    (out / name).write_text("my own notes\n")
    done = musaport("run", "--pytorch-src", str(src), "--out", str(out), "-q")
    assert_one_clear_line(done, 2, f"{out / name}: not written by musaport")
    assert (out / name).read_text() == "my own notes\n"
    assert not (out / "generated_cuda_compatible").exists()


def test_musaports_own_reports_are_rewritten(tmp_path: Path) -> None:
    """The record knows the reports musaport wrote: a run with work replaces them; an edited one is refused."""
    src, out = _tree(tmp_path), tmp_path / "out"
    assert musaport("run", "--pytorch-src", str(src), "--out", str(out), "-q").returncode == 0
    kernel = src / "aten/src/ATen/native/cuda/AbsKernel.cu"
    kernel.write_text(kernel.read_text() + "\n// changed\n")
    assert musaport("run", "--pytorch-src", str(src), "--out", str(out), "-q").returncode == 0
    (out / "porting_report.md").write_text("edited by hand\n")
    kernel.write_text(kernel.read_text() + "\n// changed again\n")
    done = musaport("run", "--pytorch-src", str(src), "--out", str(out), "-q")
    assert_one_clear_line(done, 2, "porting_report.md: not written by musaport")


def test_a_symlinked_state_folder_is_refused(tmp_path: Path) -> None:
    src, out, elsewhere = _tree(tmp_path), tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / ".musaport").symlink_to(elsewhere, target_is_directory=True)
    done = musaport("run", "--pytorch-src", str(src), "--out", str(out), "-q")
    assert_one_clear_line(done, 2, f"{out / '.musaport'}: is a symbolic link")
    assert list(elsewhere.iterdir()) == []
    assert not (out / "generated_cuda_compatible").exists()


# What musaport writes as a report or a record: JSON, JSON lines, Markdown, text, SARIF, XML, logs.
RECORD_NAME = re.compile(r"^[\w.+-]*\.(json|jsonl|md|txt|sarif|xml|log)$")
# Names of that kind that are not ours to choose: what a user's project or a tool reads, not a name under OUT.
NOT_OURS = {
    "CMakeLists.txt": "the name CMake requires, of a project's build file and of the device's build",
    "keep_cuda_names.txt": "a file of the ported project, which it keeps beside its sources",
    "cuda_toolkit_names.txt": "bundled data under rules/data",
    "version.txt": "a file of the torch wheel",
}


def _record_names(path: Path) -> list[tuple[int, str]]:
    """The string constants (f-strings' literal parts too) of ``path`` that are a report's or record's name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and RECORD_NAME.match(n.value)
            and n.value not in NOT_OURS]


def test_the_names_of_reports_and_records_are_declared_in_outdir() -> None:
    """``outdir.py`` owns every name under an output folder; a module spelling one itself (as
    ``opinfo_report.py``'s ``validate_opinfo_report.json`` did) takes the name from its owner."""
    package = ROOT / "musaport"
    strays = [f"{path.relative_to(ROOT)}:{line}: {name!r}" for path in sorted(package.rglob("*.py"))
              if path.name != "outdir.py" for line, name in _record_names(path)]
    assert strays == [], "declare these in musaport/outdir.py and use the constant:\n" + "\n".join(strays)
    declared = {name for _, name in _record_names(package / "outdir.py")}
    assert {"validate_opinfo_report.json", "overlay.json", "musaport-check.md"} <= declared
