"""Shared test fixtures: the repository's paths, the real PyTorch trees, the torch environment, the tools.

What a test needs beyond the package and pytest is said by a marker (see
``NEEDS`` and pyproject.toml): ``shared`` (the PyTorch tarballs in ../shared),
``torch`` (the 5 GB torch environment in the user cache), ``compiles`` (it
runs a compiler or a build) and ``slow``.  Every input is reached through a
fixture here that, where the input is missing, skips and says why, and in CI
(``CI`` set), where everything must run, fails instead (:func:`need`).  A test
that uses one of those fixtures without its marker fails at setup, so the
markers, and the fast selection that leaves them out, cannot drift.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import NoReturn

import pytest

from musaport.resources import user_cache

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("MUSAPORT_SHARED", ROOT.parent / "shared"))
CACHE = Path(os.environ.get("MUSAPORT_PYTORCH_CACHE") or user_cache() / "pytorch")  # the tool's own cache rule
TARBALLS = {
    "2.6.0": ("pytorch_2.6.0+dfsg.orig.tar.xz", "pytorch-v2.6.0"),
    "1.13.1": ("pytorch_1.13.1+dfsg.orig.tar.xz", "pytorch-1.13.1"),
}
FIXTURE_TREE = ROOT / "fixtures" / "pytorch"
TORCH_RELEASE = "2.6.0"

# marker -> the fixtures whose use requires it (fixtures that use these inherit the need).
NEEDS: dict[str, frozenset[str]] = {
    "shared": frozenset({"pytorch_260", "pytorch_1131", "ported_260", "ported_1131", "bump_check",
                         "shared_extensions"}),
    "torch": frozenset({"torch_env"}),
    "compiles": frozenset({"clang", "gxx"}),
}
# What --fast leaves out: every need above, and the tests marked slow.
FAST_LEAVES_OUT = (*NEEDS, "slow")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fast", action="store_true",
                     help="the fast selection: leave out the tests marked " + ", ".join(NEEDS) + " or slow "
                          "(the same as -m \"" + " and ".join(f"not {m}" for m in FAST_LEAVES_OUT) + "\")")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """--fast: deselect every test that carries one of FAST_LEAVES_OUT."""
    if not config.getoption("--fast"):
        return
    kept = [i for i in items if not any(i.get_closest_marker(m) for m in FAST_LEAVES_OUT)]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in set(kept)])
        items[:] = kept


def need(message: str) -> NoReturn:
    """Skip, saying what is missing; in CI, where every test must run, fail instead."""
    if os.environ.get("CI"):
        pytest.fail(f"{message}; CI must provide it (CI is set)")
    pytest.skip(message)


def missing_markers(item: pytest.Item, fixtures: list[str]) -> list[str]:
    """The markers ``item`` lacks for the fixtures it uses, each with the fixture that needs it."""
    return [f"@pytest.mark.{marker} (it uses {', '.join(sorted(used & set(fixtures)))})"
            for marker, used in NEEDS.items()
            if used & set(fixtures) and item.get_closest_marker(marker) is None]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before any fixture runs: a test using a fixture of ``NEEDS`` carries its marker."""
    lacking = missing_markers(item, list(getattr(item, "fixturenames", ())))
    if lacking:
        pytest.fail(f"{item.nodeid} needs " + " and ".join(lacking) + " (see NEEDS in tests/conftest.py)",
                    pytrace=False)


@pytest.fixture(autouse=True)
def _needs_marked_after_the_test(request: pytest.FixtureRequest):
    """After the test: the same check for fixtures it requested at run time (``request.getfixturevalue``)."""
    yield
    lacking = missing_markers(request.node, request.fixturenames)
    if lacking:
        pytest.fail(f"{request.node.nodeid} needs " + " and ".join(lacking) + " (see NEEDS in tests/conftest.py)",
                    pytrace=False)


def pytorch_tree(version: str) -> Path:
    """The unpacked PyTorch tree of ``version``, unpacked once into CACHE."""
    tarball, top = TARBALLS[version]
    source = SHARED / "pytorch" / tarball
    if not source.is_file():
        need(f"needs {source} (the PyTorch source tarballs in ../shared beside the checkout)")
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
def shared_extensions() -> Path:
    """The real extension projects' tarballs, ../shared/extensions."""
    folder = SHARED / "extensions"
    if not any(folder.glob("*.tar.xz")):
        need(f"needs {folder}/*.tar.xz (the extension projects in ../shared beside the checkout)")
    return folder


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


def required_tool(name: str, why: str) -> str:
    """The executable ``name``, or a skip (a failure in CI) that says ``why`` it is needed."""
    found = tool(name)
    if found is None:
        need(f"needs {name} ({why})")
    return found


@pytest.fixture(scope="session")
def clang():
    """validate --compile's clang: the ziglang wheel's, which the README's first command installs (the dev
    extra), or the one MUSAPORT_CLANG names. Missing, it fails in CI and skips elsewhere, saying why."""
    from musaport.errors import LoadError
    from musaport.validate.clang import toolchain

    try:
        return toolchain.find()
    except LoadError as err:
        need(f"{err} (the dev extra installs it)")


@pytest.fixture(scope="session")
def gxx() -> str:
    """g++: it compiles the shim's CPU programs and the CPU kernels (the README's one system requirement)."""
    return required_tool("g++", "apt-get install -y g++")


@pytest.fixture(scope="session")
def cmake() -> str:
    """cmake: the dev extra installs it from PyPI."""
    return required_tool("cmake", "the dev extra installs it from PyPI")


@pytest.fixture(scope="session")
def torch_env():
    """The torch 2.6.0 environment in the user cache (about 5 GB on disk). Where it was never fetched this
    skips (a test run never downloads 3 GB unasked), except in CI, which fetches it once (or
    MUSAPORT_FETCH_TORCH=1 asks for that)."""
    from musaport.validate.torchwheel import torchenv

    env = torchenv.cached(TORCH_RELEASE)
    if env is not None:
        return env
    if os.environ.get("CI") or os.environ.get("MUSAPORT_FETCH_TORCH") == "1":
        return torchenv.fetch(TORCH_RELEASE)
    pytest.skip(f"needs the torch {TORCH_RELEASE} environment in the user cache ({torchenv.base()}/{TORCH_RELEASE}, "
                "about 3 GB downloaded once): MUSAPORT_FETCH_TORCH=1 lets the tests fetch it")


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


def musaport(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None
             ) -> subprocess.CompletedProcess[str]:
    """Run the installed command line as a user would (``env``: variables set on top of this process's)."""
    return subprocess.run(["musaport", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **env} if env else None)


def stand_in_clang(folder: Path) -> dict[str, str]:
    """The environment of a clang that answers ``--version`` and nothing else, named by MUSAPORT_CLANG: for the
    tests of validate --compile's usage errors, which come after its check for a clang, so that they hold on a
    machine without the ziglang wheel (tests/test_toolchain.py runs the real one)."""
    clang = folder / "stand-in-clang++"
    clang.write_text("#!/bin/sh\necho 'clang version 22.1.0 (a stand-in: it compiles nothing)'\n")
    clang.chmod(0o755)
    return {"MUSAPORT_CLANG": str(clang)}


def tree_digest(root: Path) -> dict[str, tuple[int, bytes]]:
    """mtime and bytes of every file below ``root`` (to prove nothing changed)."""
    return {
        p.relative_to(root).as_posix(): (p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }
