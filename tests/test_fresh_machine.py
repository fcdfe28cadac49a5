"""What a new user's machine needs to be true: paths, loud failures, --jobs, killed runs.

These run on the real PyTorch 2.6.0 tree (they skip without ../shared, and
fail in CI without it): the bugs they guard against only showed there.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from conftest import musaport
from harness import new_files, stat_fingerprint

from musaport.ops import scan as scan_module

TREE = "generated_cuda_compatible"
CHECK_EXIT = 0  # the same tree against its own report: no finding


@pytest.mark.shared
@pytest.mark.compiles
def test_every_command_keeps_to_out_with_relative_paths(pytorch_260: Path, clang, gxx: str, tmp_path: Path) -> None:
    """Each command, given a relative --out, writes only there (and the user cache), never into the tree."""
    work = tmp_path / "cwd"
    work.mkdir()
    tree_before = stat_fingerprint(pytorch_260)
    commands = [  # each with the exit it must give: every one succeeds on the real tree
        (["run", "--pytorch-src", str(pytorch_260), "--out", "rel", "-q"], 0),
        (["diff", "abs", "--out", "rel", "--stat"], 0),
        (["whereis", "abs_kernel_musa", "--out", "rel"], 0),  # the ported name: found
        (["validate", "--compile", "--out", "rel", "AbsKernel.mu"], 0),
        (["validate", "--run", "--out", "rel", "elementwise.cu"], 0),
        (["check", "--pytorch-src", str(pytorch_260), "--baseline-report", "rel/porting_report.json",
          "--out", "rel-check", "--format", "json"], CHECK_EXIT),
    ]
    for argv, code in commands:
        result = musaport(*argv, cwd=work)
        assert result.returncode == code, (argv, result.returncode, result.stderr)
        assert "Traceback" not in result.stderr, result.stderr
        assert sorted(p.name for p in work.iterdir()) <= ["rel", "rel-check"], argv
    assert (work / "rel" / TREE / "aten/src/ATen/RegisterMUSA.cpp").is_file()
    assert (work / "rel" / "validate_report.json").is_file() and (work / "rel" / "validate_run.json").is_file()
    assert stat_fingerprint(pytorch_260) == tree_before, "a command changed the PyTorch tree"


@pytest.fixture()
def broken_torchgen_tree(pytorch_260: Path, tmp_path: Path) -> Path:
    """The 2.6.0 tree seen through symlinks, with a private torchgen that imports a module this Python lacks."""
    tree = tmp_path / "pytorch"
    tree.mkdir()
    for entry in pytorch_260.iterdir():
        if entry.name != "torchgen":
            (tree / entry.name).symlink_to(entry)
    shutil.copytree(pytorch_260 / "torchgen", tree / "torchgen", ignore=shutil.ignore_patterns("__pycache__"))
    init = tree / "torchgen" / "__init__.py"
    init.write_text("import musaport_test_missing_module  # removed by the test to 'fix the environment'\n"
                    + init.read_text())
    return tree


@pytest.mark.shared
def test_a_failing_torchgen_is_loud_never_cached_and_recovers(broken_torchgen_tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = musaport("run", "--pytorch-src", str(broken_torchgen_tree), "--out", str(out), "-q")
    assert first.returncode == 1, first.stderr
    errors = [ln for ln in first.stderr.splitlines() if ln.startswith("musaport: error:")]
    assert len(errors) == 1 and "RegisterMUSA.cpp not generated" in errors[0], first.stderr
    assert "musaport_test_missing_module" in errors[0] and "musaport doctor" in errors[0]
    assert not (out / TREE / "aten/src/ATen/RegisterMUSA.cpp").exists()
    assert "RegisterMUSA.cpp not generated" in (out / "porting_report.md").read_text()
    again = musaport("run", "--pytorch-src", str(broken_torchgen_tree), "--out", str(out), "-q")
    assert again.returncode == 1, "a failed generation must not be reused as a success"
    init = broken_torchgen_tree / "torchgen" / "__init__.py"
    init.write_text(init.read_text().split("\n", 1)[1])
    fixed = musaport("run", "--pytorch-src", str(broken_torchgen_tree), "--out", str(out), "-q")
    assert fixed.returncode == 0, fixed.stderr
    assert "TORCH_LIBRARY_IMPL(aten, PrivateUse1, m)" in (out / TREE / "aten/src/ATen/RegisterMUSA.cpp").read_text()
    assert not list((broken_torchgen_tree / "torchgen").rglob("__pycache__")), "torchgen wrote bytecode into the tree"


@pytest.mark.shared
def test_the_operator_scan_honours_jobs(pytorch_260: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With one job the cold scan opens no process pool; with two it does (a user cache that saw the
    files would spare both the lexing)."""
    pools: list[int] = []
    real = scan_module.ProcessPoolExecutor
    monkeypatch.setattr(scan_module, "ProcessPoolExecutor", lambda n, **kw: pools.append(n) or real(n, **kw))
    rels = sorted(p.relative_to(pytorch_260).as_posix()
                  for p in (pytorch_260 / "aten/src/ATen/native/cuda").glob("*.cu"))[:80]
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache-one"))  # cold: the user cache never saw them
    scan_module.scan(pytorch_260, rels, tmp_path / "one", jobs=1)
    assert pools == []
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache-two"))
    scan_module.scan(pytorch_260, rels, tmp_path / "two", jobs=2)
    assert pools == [2]


def _processes_marked(mark: str) -> list[int]:
    """Live processes whose environment carries ``mark``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if mark.encode() in (proc / "environ").read_bytes() and (proc / "stat").read_text().split()[2] != "Z":
                found.append(int(proc.name))
        except OSError:
            continue
    return found


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["kill -9", "SIGTERM"])
@pytest.mark.shared
def test_no_child_outlives_a_killed_run(pytorch_260: Path, tmp_path: Path, sig: int) -> None:
    """Workers and the torchgen child die with the run, however it dies; the next run recovers."""
    mark = f"MUSAPORT_TEST_MARK={uuid.uuid4().hex}"
    env = dict(os.environ, **dict([mark.split("=")]))
    out = tmp_path / "out"
    run = subprocess.Popen([sys.executable, "-m", "musaport", "run", "--pytorch-src", str(pytorch_260),
                            "--out", str(out), "-q", "-j", "2"], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while len(_processes_marked(mark)) < 3 and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.05)  # wait until workers or the torchgen child exist
    assert run.poll() is None, "the run ended before it could be killed"
    assert len(_processes_marked(mark)) >= 2, "no child process was started"
    run.send_signal(sig)
    run.wait(timeout=30)
    deadline = time.monotonic() + 10
    while _processes_marked(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_marked(mark) == [], "a child outlived the killed run"
    again = musaport("run", "--pytorch-src", str(pytorch_260), "--out", str(out), "-q")
    assert again.returncode == 0, again.stderr
    assert (out / TREE / "aten/src/ATen/RegisterMUSA.cpp").is_file()
    assert not new_files({}, {p.name: 0 for p in (out / ".musaport").glob("staging-*")})
