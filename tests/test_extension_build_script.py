"""What `validate --extension` builds a port with: its ported setup.py, or, for a project whose Python
builds its extensions when imported, nothing before the tests (they run from the project's root)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import musaport
from musaport.errors import LoadError
from musaport.outdir import OutDir
from musaport.validate.extension import build

KERNEL = "__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n"
JIT_MODULE = ("from torch.utils.cpp_extension import load_inline\n"
              '_ext = load_inline("k", cpp_sources="", cuda_sources="__global__ void k() {}")\n')


def _ported(tmp_path: Path, files: dict[str, str]) -> OutDir:
    src = tmp_path / "src"
    for rel, text in files.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    done = musaport("run", "--src", str(src), "--out", str(tmp_path / "out"), "-q")
    assert done.returncode == 0, done.stderr
    return OutDir(tmp_path / "out")


def test_the_setup_py_nearest_the_root_builds_the_port(tmp_path: Path) -> None:
    out = _ported(tmp_path, {"csrc/k.cu": KERNEL, "setup.py": "from setuptools import setup\nsetup()\n",
                             "tools/setup.py": "from setuptools import setup\nsetup()\n"})
    assert build.setup_script(tmp_path / "tree", out) == tmp_path / "tree" / "setup.py"
    assert build.tests_folder(tmp_path / "tree", out) == tmp_path / "tree"


def test_a_project_that_builds_on_import_needs_no_setup_py(tmp_path: Path) -> None:
    out = _ported(tmp_path, {"pkg/__init__.py": JIT_MODULE})
    assert build.setup_script(tmp_path / "tree", out) is None
    assert build.tests_folder(tmp_path / "tree", out) == tmp_path / "tree"


def test_kernels_with_neither_a_setup_py_nor_a_jit_build_cannot_be_built(tmp_path: Path) -> None:
    out = _ported(tmp_path, {"csrc/k.cu": KERNEL})
    with pytest.raises(LoadError, match="no setup.py to build the project with, and none of its Python builds"):
        build.setup_script(tmp_path / "tree", out)


def test_a_cmake_only_project_is_told_that_only_setup_py_builds_are_run(tmp_path: Path) -> None:
    out = _ported(tmp_path, {"csrc/k.cu": KERNEL, "CMakeLists.txt":
                             "cmake_minimum_required(VERSION 3.18)\nproject(k LANGUAGES CXX CUDA)\n"
                             "add_library(k SHARED csrc/k.cu)\n"})
    with pytest.raises(LoadError, match="its CMakeLists.txt is ported, but validate --extension builds with "
                                        "setup.py only"):
        build.setup_script(tmp_path / "tree", out)
