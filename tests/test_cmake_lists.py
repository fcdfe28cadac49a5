"""musaport_sources.cmake, read by real CMake."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import musaport
from musaport.ops.emit_cmake import group_variable, source_group

TREE = "generated_cuda_compatible"
VARIABLES = ("MUSAPORT_MU_SOURCES", "MUSAPORT_CPP_SOURCES", "MUSAPORT_REGISTRATION_SOURCES", "MUSAPORT_INCLUDE_DIRS")
# Includes the list file, fails on any listed path that does not exist, prints each list.
SCRIPT = """\
include("${LISTS}")
foreach(var IN ITEMS MUSAPORT_MU_SOURCES MUSAPORT_CPP_SOURCES MUSAPORT_REGISTRATION_SOURCES MUSAPORT_INCLUDE_DIRS
        MUSAPORT_LEFT_OUT_SOURCES
        ${MUSAPORT_SOURCE_GROUPS})
  foreach(path IN LISTS ${var})
    if(NOT EXISTS "${path}")
      message(FATAL_ERROR "${var}: ${path} does not exist")
    endif()
    message(STATUS "${var}=${path}")
  endforeach()
endforeach()
"""


@pytest.mark.parametrize(("out", "group"), [
    ("aten/src/ATen/native/musa/AbsKernel.mu", "aten/src/ATen/native/musa"),
    ("aten/src/ATen/native/musa/linalg/BatchLinearAlgebra.cpp", "aten/src/ATen/native/musa"),
    ("aten/src/ATen/native/sparse/musa/SparseMUSATensor.mu", "aten/src/ATen/native/sparse/musa"),
    ("c10/musa/MUSAStream.cpp", "c10/musa"),
    ("aten/src/ATen/RegisterMUSA.cpp", "aten/src/ATen"),
])
def test_source_groups(out: str, group: str) -> None:
    assert source_group(out) == group


def test_group_variable() -> None:
    assert group_variable("aten/src/ATen/native/musa") == "MUSAPORT_SOURCES_ATEN_SRC_ATEN_NATIVE_MUSA"


def cmake_lists(lists: Path, tmp_path: Path, cmake: str) -> dict[str, list[str]]:
    """Run ``cmake -P`` on a script that includes ``lists``; the lists it printed, by variable."""
    script = tmp_path / "check.cmake"
    script.write_text(SCRIPT)
    done = subprocess.run([cmake, f"-DLISTS={lists}", "-P", str(script)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr + done.stdout
    found: dict[str, list[str]] = {}
    for line in done.stdout.splitlines():
        var, _, path = line.removeprefix("-- ").partition("=")
        found.setdefault(var, []).append(path)
    return found


def test_fixture_lists(tmp_path: Path, cmake: str) -> None:
    assert musaport("run", "--out", str(tmp_path / "out"), "-q").returncode == 0
    tree = tmp_path / "out" / TREE
    found = cmake_lists(tree / "musaport_sources.cmake", tmp_path, cmake)
    mu = sorted(Path(p).relative_to(tree).as_posix() for p in found["MUSAPORT_MU_SOURCES"])
    assert mu == sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*.mu"))
    assert [Path(p).name for p in found["MUSAPORT_CPP_SOURCES"]] == ["Blas.cpp", "CudnnStub.cpp"]
    assert found["MUSAPORT_INCLUDE_DIRS"] == [str(tree), str(tree / "aten/src")]
    assert "MUSAPORT_REGISTRATION_SOURCES" not in found  # the fixture tree has no torchgen


@pytest.mark.shared
def test_pytorch_260_lists(ported_260: Path, tmp_path: Path, cmake: str) -> None:
    tree = ported_260 / TREE
    found = cmake_lists(tree / "musaport_sources.cmake", tmp_path, cmake)
    built, apart = found["MUSAPORT_MU_SOURCES"], found["MUSAPORT_LEFT_OUT_SOURCES"]
    assert sorted(built + [p for p in apart if p.endswith(".mu")]) == sorted(map(str, tree.rglob("*.mu")))
    assert not set(built) & set(apart)
    assert str(tree / "aten/src/ATen/native/musa/MixedDtypesLinear.mu") in apart  # includes cutlass/ itself
    assert str(tree / "aten/src/ATen/native/transformers/musa/mem_eff_attention/kernels/cutlassF_f32_aligned.mu") \
        in apart  # through the ported headers it includes
    assert "need CUTLASS" in (tree / "musaport_sources.cmake").read_text()
    assert found["MUSAPORT_REGISTRATION_SOURCES"] == [str(tree / "aten/src/ATen/RegisterMUSA.cpp")]
    assert str(tree / "aten/src/ATen/native/musa/AbsKernel.mu") in found["MUSAPORT_SOURCES_ATEN_SRC_ATEN_NATIVE_MUSA"]
    grouped = [p for var, paths in found.items() if var.startswith("MUSAPORT_SOURCES_") for p in paths]
    assert sorted(grouped) == sorted(found["MUSAPORT_MU_SOURCES"] + found["MUSAPORT_CPP_SOURCES"])
