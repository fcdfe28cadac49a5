"""Hostile trees, hostile configs, killed runs (the hostile-input probe's findings).

Every test here builds its own hostile tree in ``tmp_path`` (a copy of the
bundled fixture tree plus the hostile parts) and asks the harness's
questions: one clear line and the documented exit code, no traceback,
nothing written outside ``--out``, the previous output kept where promised.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from conftest import FIXTURE_TREE, stand_in_clang, tree_digest
from harness import assert_one_clear_line, fingerprint, musaport, new_files
from musaport.errors import LoadError
from musaport.ops.emit_cmake import sources_cmake
from musaport.ops.generate import OperatorFiles
from musaport.outdir import COMMIT_MARKER, OutDir
from musaport.port import stage as stage_module
from musaport.port.file import provenance
from musaport.port.layout import MAX_SOURCE_BYTES
from musaport.port.config import Options, load_config
from musaport.port.run import run
from musaport.resources import default_layout, default_packs

TREE = "generated_cuda_compatible"
CUDA = "aten/src/ATen/native/cuda"
MUSA = "aten/src/ATen/native/musa"
# File names that must not reach generated files: a live directive in the
# .mu's provenance line, CMake code at include(), a broken list, bytes that
# are not UTF-8.
HOSTILE_NAMES = [
    b"Inj\n#error injected.cu",
    b'x")\nmessage(STATUS pwned)\n#.cu',
    b'Q"uote.cu',
    b"D${CMAKE_COMMAND}.cu",
    b"S;emi.cu",
    b"Back\\slash.cu",
    b"Esc\x1b[31m.cu",
    b"Bad\xff.cu",
]
# Legal for every format once escaped: ported, and escaped in the Markdown tables.
ODD_BUT_FINE = b"Pi|pe`.cu"


@pytest.fixture()
def src(tmp_path: Path) -> Path:
    """A private copy of the fixture tree, below ``tmp_path/trees`` so that ``../../`` leaves it."""
    copy = tmp_path / "trees" / "pytorch"
    shutil.copytree(FIXTURE_TREE, copy)
    return copy


@pytest.fixture()
def hostile(src: Path) -> Path:
    """The fixture tree plus source files whose names are hostile (each a small CUDA kernel)."""
    folder = os.fsencode(src / CUDA)
    body = b"#include <cuda_runtime.h>\n__global__ void k() {}\nvoid f() { cudnnCreate(nullptr); }\n"
    for name in HOSTILE_NAMES + [ODD_BUT_FINE]:
        with open(os.path.join(folder, name), "wb") as f:
            f.write(body)
    return src


def port(src: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return musaport("run", "--pytorch-src", str(src), "--out", str(out), "-q", *extra)


def options(src: Path, out: Path) -> Options:
    return Options(src, out, default_layout(), tuple(default_packs()), jobs=1, generation=OperatorFiles())


def files_below(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def write_layout(path: Path, folders: str, extra: str = "") -> Path:
    path.write_text("layout: mine\nmarkers: [aten/src/ATen, c10]\nsuffixes: [.cu, .cuh, .h, .cpp]\n"
                    f"folders:\n{folders}{extra}")
    return path


# 1. Path traversal through --layout

@pytest.mark.parametrize("folder", ["../../elsewhere", "aten/../../../elsewhere", "/etc", "aten/src/.."])
def test_layout_folder_leaving_the_tree_is_refused(src: Path, tmp_path: Path, folder: str) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "Secret.cu").write_text("cudaMalloc(&p, 1);\n")
    layout = write_layout(tmp_path / "layout.yaml", f"  - {{path: {CUDA}}}\n  - {{path: '{folder}', recursive: true}}\n")
    before = fingerprint(tmp_path)
    result = port(src, tmp_path / "out", "--layout", str(layout))
    assert_one_clear_line(result, 2, "layout.yaml:6", repr(folder))
    assert new_files(before, fingerprint(tmp_path)) == []


def test_operator_folder_leaving_the_tree_is_refused(src: Path, tmp_path: Path) -> None:
    layout = write_layout(tmp_path / "layout.yaml", f"  - {{path: {CUDA}}}\n",
                          "operators:\n  generic: [../outside]\n")
    assert_one_clear_line(port(src, tmp_path / "out", "--layout", str(layout)), 2, "layout.yaml:7", "'../outside'")


def test_symlink_in_the_output_tree_cannot_carry_writes_outside(src: Path, tmp_path: Path) -> None:
    """A folder of the ported tree replaced by a symlink: the run refuses before any rename."""
    out = tmp_path / "out"
    assert port(src, out).returncode == 0
    outside = tmp_path / "outside"
    shutil.move(out / TREE / "c10/musa", outside)
    (out / TREE / "c10/musa").symlink_to(outside)
    guard = src / "c10/cuda/CUDAGuard.h"
    guard.write_text(guard.read_text() + "// changed\n")
    before = fingerprint(outside)
    result = port(src, out)
    assert_one_clear_line(result, 2, "c10/musa", "outside")
    assert fingerprint(outside) == before


# 2. File names injected into generated files

def test_hostile_file_names_are_skipped_and_every_format_stays_intact(hostile: Path, tmp_path: Path, cmake: str) -> None:
    """Hostile names are refused as skipped files with a warning (exit 0: the run goes on)."""
    out = tmp_path / "out"
    result = port(hostile, out)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    report = json.loads((out / "porting_report.json").read_text())
    skipped = {s["path"] for s in report["skipped"]}
    for name in HOSTILE_NAMES:
        try:
            shown = repr(f"{CUDA}/{name.decode()}")
        except UnicodeDecodeError:
            shown = repr(os.fsencode(f"{CUDA}/") + name)
        assert shown in skipped, (shown, skipped)
        assert any(w.startswith(shown + ": file name has") for w in report["warnings"])
    tree = out / TREE
    for path in tree.rglob("*"):
        if path.is_file():
            lines = path.read_bytes().splitlines()
            assert not any(ln.lstrip().startswith((b"#error", b"message(")) for ln in lines), path
    assert (tree / MUSA / "Pi|pe`.mu").is_file()
    md = (out / "porting_report.md").read_text()
    assert "Pi\\|pe\\`.cu:3" in md
    assert "\n#error" not in md and "\nmessage(" not in md
    yaml.safe_load((tree / "musa_functions.yaml").read_text())
    listed = cmake_lists(tree / "musaport_sources.cmake", tmp_path, cmake)
    mu = sorted(str(p) for p in tree.rglob("*.mu"))
    assert listed["MUSAPORT_MU_SOURCES"] == mu


def cmake_lists(cmake_file: Path, tmp_path: Path, cmake: str) -> dict[str, list[str]]:
    """The source lists as CMake sees them after include() (a newline in an element shown as \\n);
    anything else printed fails the test."""
    script = tmp_path / "print.cmake"
    script.write_text(
        f'include("{cmake_file}")\n'
        "foreach(var MUSAPORT_MU_SOURCES MUSAPORT_CPP_SOURCES)\n"
        '  foreach(f IN LISTS ${var})\n    string(REPLACE "\\n" "\\\\n" f "${f}")\n'
        '    message("${var}=${f}")\n  endforeach()\nendforeach()\n'
    )
    result = subprocess.run([cmake, "-P", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    lists: dict[str, list[str]] = {"MUSAPORT_MU_SOURCES": [], "MUSAPORT_CPP_SOURCES": []}
    for line in result.stderr.split("\n")[:-1]:  # message() writes to stderr, one line per element
        var, _, value = line.partition("=")
        assert var in lists, f"unexpected CMake output: {line!r}"
        lists[var].append(value)
    return {k: sorted(v) for k, v in lists.items()}


def test_cmake_list_escapes_every_name_it_is_given(tmp_path: Path, cmake: str) -> None:
    """Defence in depth: even names discovery would refuse stay one list element each."""
    names = ['a/musa/x")\nmessage(STATUS pwned)\n#.mu', "a/musa/D${CMAKE_COMMAND}.mu", "a/musa/S;emi.mu",
             "a/musa/B\\ack.mu", "a/musa/ok.mu", "a/\n/musa/y.mu"]
    path = tmp_path / "musaport_sources.cmake"
    path.write_text(sources_cmake(names, [], "// generated from the port of x\nmessage(STATUS header)"))
    listed = cmake_lists(path, tmp_path, cmake)
    assert listed["MUSAPORT_MU_SOURCES"] == sorted(f"{tmp_path}/{n}".replace("\n", "\\n") for n in names)


def test_provenance_stays_one_line() -> None:
    line = provenance("aten/src/ATen/native/cuda/Inj\n#error injected.cu", "0" * 64, "int x;\n")
    assert line.count("\n") == 1 and line.endswith(")\n")
    assert "\\n#error injected" in line


# 5. An unreadable folder

def test_unreadable_folder_fails_the_run_and_keeps_the_output(src: Path, tmp_path: Path, monkeypatch) -> None:
    """Tests run as root, where chmod 000 does not stop a read: os.scandir is patched in-process to
    raise PermissionError for the folder, as the kernel would for another user."""
    (src / CUDA / "sub").mkdir()
    (src / CUDA / "sub/Extra.cu").write_text("__global__ void extra() { cudaDeviceSynchronize(); }\n")
    out = tmp_path / "out"
    opts = options(src, out)
    assert run(opts, load_config(opts)).return_code == 0
    assert (out / TREE / MUSA / "sub/Extra.mu").is_file()
    before = tree_digest(out / TREE)
    real = os.scandir

    def unreadable(path=".", *a, **k):
        if str(path).endswith(f"{CUDA}/sub"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *a, **k)

    monkeypatch.setattr(os, "scandir", unreadable)
    report = run(opts, load_config(opts))
    assert report.return_code == 1
    assert [(r.src, r.warnings) for r in report.failed] == [(f"{CUDA}/sub", ("cannot read folder: Permission denied",))]
    assert tree_digest(out / TREE) == before, "a failed run must not update the tree"


# 6. Files in the output tree that the tool did not write

def test_user_files_are_kept_and_removed_outputs_are_listed(src: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert port(src, out).returncode == 0
    mine = [out / TREE / "NOTES.txt", out / TREE / MUSA / "Mine.mu", out / TREE / "c10/musa/local.h"]
    for path in mine:
        path.write_text("// written by hand\n")
    (src / CUDA / "Blas.cpp").unlink()
    assert port(src, out).returncode == 0
    assert all(p.read_text() == "// written by hand\n" for p in mine)
    assert not (out / TREE / MUSA / "Blas.cpp").exists()
    report = json.loads((out / "porting_report.json").read_text())
    assert report["removed"] == [f"{MUSA}/Blas.cpp"]
    kept = [w for w in report["warnings"] if "not written by musaport" in w]
    assert [w.split(":")[0] for w in kept] == ["NOTES.txt", f"{MUSA}/Mine.mu", "c10/musa/local.h"]
    assert f"- `{MUSA}/Blas.cpp`" in (out / "porting_report.md").read_text()
    # A new layout changes the cache key; what the tool wrote is still known, so its
    # outputs of the dropped folder go and the user's file there stays.
    layout = write_layout(tmp_path / "layout.yaml", f"  - {{path: {CUDA}}}\n")
    opts = Options(src, out, layout, tuple(default_packs()), jobs=1, generation=OperatorFiles())
    report = run(opts, load_config(opts))
    assert report.return_code == 0
    assert report.removed == len(report.removed_files) > 0
    assert "c10/musa/MUSAGuard.h" in report.removed_files and "NOTES.txt" not in report.removed_files
    assert sorted(p.relative_to(out / TREE).as_posix() for p in (out / TREE / "c10").rglob("*")) == \
        ["c10/musa", "c10/musa/local.h"]


# 7. Config checks

def pack_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "my.yaml"
    path.write_text("pack: mine\nwhy: test\nrules:\n" + body)
    return path


@pytest.mark.parametrize(
    ("body", "needles"),
    [
        ("  - id: empty\n    why: w\n    pattern: 'x*'\n    replace: 'y'\n",
         ("my.yaml:4", "rule 'empty'", "can match empty text")),
        ("  - id: ahead\n    why: w\n    pattern: '(?=cudaFree)'\n    replace: 'musaFoo'\n",
         ("my.yaml:4", "rule 'ahead'", "can match empty text")),
        ("  - id: both\n    why: w\n    pattern: 'cudaFree'\n    flag: careful\n    replace: 'musaFree'\n",
         ("my.yaml:4", "rule 'both'", "'replace' cannot go with 'flag'")),
        ("  - id: both\n    why: w\n    names: {cudaFree: musaFree}\n    replace: 'x'\n",
         ("my.yaml:4", "rule 'both'", "'replace' cannot go with 'names'")),
        ("  - id: wrong\n    why: w\n    pattern: '\\bcudaFoo\\b'\n    replace: 'musaFoo'\n    examples:\n"
         "      - {before: 'int a;', after: 'int a;'}\n      - {before: 'cudaFoo(1);', after: 'musaBar(1);'}\n",
         ("my.yaml:10", "rule 'wrong'", "expected 'musaBar(1);', got 'musaFoo(1);'")),
        ("  - id: quiet\n    why: w\n    pattern: 'cudaFoo'\n    flag: careful\n    examples:\n"
         "      - {before: 'int a;', after: 'int a;'}\n",
         ("my.yaml:9", "rule 'quiet'", "expected flagged=True")),
    ],
    ids=["star", "lookahead", "flag-and-replace", "names-and-replace", "wrong-example", "flag-example"],
)
def test_bad_user_pack_is_one_line(src: Path, tmp_path: Path, body: str, needles: tuple[str, ...]) -> None:
    result = port(src, tmp_path / "out", "--rules", str(pack_file(tmp_path, body)))
    assert_one_clear_line(result, 2, *needles)
    assert not (tmp_path / "out" / TREE).exists()


def test_user_pack_with_right_examples_loads(src: Path, tmp_path: Path) -> None:
    body = ("  - id: fine\n    why: w\n    pattern: '\\bcudaFoo\\b'\n    replace: 'musaFoo'\n    examples:\n"
            "      - {before: 'cudaFoo(1); // cudaFoo', after: 'musaFoo(1); // cudaFoo'}\n")
    result = port(src, tmp_path / "out", "--rules", str(pack_file(tmp_path, body)))
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("folders", ["  - {path: does/not/exist, optional: true}\n", "  - {path: aten/src/empty}\n"])
def test_layout_selecting_nothing_is_refused(src: Path, tmp_path: Path, folders: str) -> None:
    (src / "aten/src/empty").mkdir()
    layout = write_layout(tmp_path / "layout.yaml", folders)
    result = port(src, tmp_path / "out", "--layout", str(layout))
    assert_one_clear_line(result, 2, str(layout), "selects no file")
    assert not (tmp_path / "out" / TREE).exists()


# 9. Edges: size, racy edits, a killed commit

def test_oversized_source_is_skipped_with_a_warning(src: Path, tmp_path: Path) -> None:
    big = src / CUDA / "Huge.cu"
    line = b"__global__ void k() { cudaDeviceSynchronize(); }\n"
    big.write_bytes(line * (MAX_SOURCE_BYTES // len(line) + 1))
    out = tmp_path / "out"
    result = port(src, out)
    assert result.returncode == 0, result.stderr
    assert not (out / TREE / MUSA / "Huge.mu").exists()
    report = json.loads((out / "porting_report.json").read_text())
    assert any(w.startswith(f"{CUDA}/Huge.cu: ") and "8 MiB" in w for w in report["warnings"])


def test_edit_keeping_size_and_mtime_is_seen(src: Path, tmp_path: Path) -> None:
    """A source written just before the run is "racy": the next run compares its hash.

    Its mtime is set a minute ahead, so it is still within the racy window when the run writes its
    cache however long a loaded machine makes that run (a write in the same clock tick as the cache's)."""
    target = src / CUDA / "ReduceSum.cu"
    text = target.read_text()
    target.write_text(text + "// version A\n")
    ahead = time.time_ns() + 60_000_000_000
    os.utime(target, ns=(ahead, ahead))
    out = tmp_path / "out"
    assert port(src, out).returncode == 0
    st = target.stat()
    target.write_text(text + "// version B\n")
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert target.stat().st_size == st.st_size
    assert port(src, out).returncode == 0
    assert (out / TREE / MUSA / "ReduceSum.mu").read_text().endswith("// version B\n")


@pytest.mark.slow
def test_killed_commit_is_seen_and_redone(src: Path, tmp_path: Path, monkeypatch) -> None:
    """A kill between the renames: validate refuses the mixed tree; the next run makes it whole."""
    out = tmp_path / "out"
    opts = options(src, out)
    assert run(opts, load_config(opts)).return_code == 0
    for f in sorted((src / CUDA).iterdir()):
        if f.suffix == ".cu":
            f.write_bytes(f.read_bytes() + b"\n// edited\n")
    real, renames = os.replace, []

    def killed(a, b, *rest, **kw):
        if str(b).startswith(str(out / TREE)):
            renames.append(b)
            if len(renames) == 3:
                raise KeyboardInterrupt
        return real(a, b, *rest, **kw)

    monkeypatch.setattr(stage_module.os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        run(opts, load_config(opts))
    monkeypatch.undo()
    assert (out / ".musaport" / COMMIT_MARKER).exists()
    with pytest.raises(LoadError, match="stopped while moving its outputs into place"):
        OutDir(out).require_port()
    assert_one_clear_line(musaport("validate", "--compile", "--out", str(out), env=stand_in_clang(tmp_path)), 2,
                          "stopped while moving")
    result = port(src, out)
    assert result.returncode == 0, result.stderr
    assert not (out / ".musaport" / COMMIT_MARKER).exists()
    clean = tmp_path / "clean"
    assert port(src, clean).returncode == 0
    assert files_below(out / TREE) == files_below(clean / TREE)
