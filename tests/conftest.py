"""Shared test fixtures: the repository's paths and the real PyTorch trees.

Tests that need ../shared (the PyTorch source tarballs) run in CI, where a
missing ../shared is a failure; elsewhere they skip and say why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("MUSAPORT_SHARED", ROOT.parent / "shared"))
CACHE = Path(os.environ.get("MUSAPORT_PYTORCH_CACHE", Path.home() / ".cache" / "musaport" / "pytorch"))
TARBALLS = {
    "2.6.0": ("pytorch_2.6.0+dfsg.orig.tar.xz", "pytorch-v2.6.0"),
    "1.13.1": ("pytorch_1.13.1+dfsg.orig.tar.xz", "pytorch-1.13.1"),
}
FIXTURE_TREE = ROOT / "fixtures" / "pytorch"


def pytorch_tree(version: str) -> Path:
    """The unpacked PyTorch tree of ``version``, unpacked once into CACHE."""
    tarball, top = TARBALLS[version]
    source = SHARED / "pytorch" / tarball
    if not source.is_file():
        message = f"needs {source} (the PyTorch source tarballs in ../shared)"
        if os.environ.get("CI"):
            pytest.fail(message + "; CI must have ../shared beside the checkout")
        pytest.skip(message)
    tree = CACHE / top
    marker = CACHE / f".{top}.unpacked"
    if not marker.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        with tarfile.open(source) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(CACHE, filter="data")
            else:  # Python without extraction filters
                tar.extractall(CACHE)
        marker.write_text("ok")
    return tree


@pytest.fixture(scope="session")
def pytorch_260() -> Path:
    return pytorch_tree("2.6.0")


@pytest.fixture(scope="session")
def pytorch_1131() -> Path:
    return pytorch_tree("1.13.1")


@pytest.fixture(scope="session")
def ported_260(pytorch_260: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """PyTorch 2.6.0 ported once for every test that reads the result."""
    return _ported(pytorch_260, tmp_path_factory.mktemp("port260"))


@pytest.fixture(scope="session")
def ported_1131(pytorch_1131: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """PyTorch 1.13.1 ported once for every test that reads the result."""
    return _ported(pytorch_1131, tmp_path_factory.mktemp("port1131"))


# The summary each session port printed (by --out): the README's figures are checked against it.
PORT_OUTPUT: dict[Path, str] = {}


def tool(name: str) -> str | None:
    """An executable on PATH, else beside this Python (the dev extra's cmake in a venv not activated)."""
    return shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))


@pytest.fixture(scope="session")
def clang():
    """validate --compile's clang: the ziglang wheel's, which the README's first command installs (the dev
    extra), or the one MUSAPORT_CLANG names. Missing, it fails in CI and skips elsewhere, saying why."""
    from musaport.errors import LoadError
    from musaport.validate.clang import toolchain

    try:
        return toolchain.find()
    except LoadError as err:
        if os.environ.get("CI"):
            pytest.fail(f"{err}; CI installs the dev extra, which brings it")
        pytest.skip(str(err))


def _ported(tree: Path, out: Path) -> Path:
    result = subprocess.run(["musaport", "run", "--pytorch-src", str(tree), "--out", str(out)], capture_output=True,
                            text=True, env=dict(os.environ, COLUMNS="200"))  # wide: long paths stay on one line
    assert result.returncode == 0, result.stderr
    PORT_OUTPUT[out] = result.stdout
    return out


@pytest.fixture(scope="session")
def bump_check(pytorch_1131: Path, pytorch_260: Path, tmp_path_factory: pytest.TempPathFactory
               ) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """``musaport check`` of the real bump 1.13.1 -> 2.6.0, once per session: its --out and its result."""
    out = tmp_path_factory.mktemp("bump")
    result = musaport("check", "--pytorch-src", str(pytorch_260), "--baseline", str(pytorch_1131), "--out", str(out),
                      "--format", "json", "--format", "sarif", "--format", "md")
    return out, result


def musaport(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed command line as a user would."""
    return subprocess.run(["musaport", *args], capture_output=True, text=True, cwd=cwd)


def tree_digest(root: Path) -> dict[str, tuple[int, bytes]]:
    """mtime and bytes of every file below ``root`` (to prove nothing changed)."""
    return {
        p.relative_to(root).as_posix(): (p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }
