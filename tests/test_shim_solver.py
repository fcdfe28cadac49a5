"""The shim's muSOLVER and muBLAS solver routines compute real answers.

tests/data/shim/solver_check.cpp is written against the shim alone: it
factors and solves small systems in float, double, complex64 and complex128
(getrf/getrs, potrf/potrs and their batched and 64-bit forms, geqrf with
orgqr/ungqr, syevd/syevj/heevj, gesvd/gesvdj/gesvda, muBLAS getrfBatched,
getrsBatched, geqrfBatched, trsm) and checks each by multiplying back.  The
LAPACK the shim calls is the one the device build links: the torch wheel's
libtorch_cpu.so, from the release's torch environment in the user cache.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from musaport.validate.run.kernels import shim_include

SOURCE = Path(__file__).parent / "data" / "shim" / "solver_check.cpp"


@pytest.fixture(scope="module")
def torch_lib(torch_env) -> Path:
    """The LAPACK the shim's solver routines call: the torch environment's libtorch_cpu.so."""
    lib = torch_env.site_packages / "torch" / "lib"
    assert (lib / "libtorch_cpu.so").is_file(), f"a torch environment without {lib / 'libtorch_cpu.so'}"
    return lib


@pytest.mark.torch
@pytest.mark.compiles
def test_solver_routines_factor_and_solve_real_matrices_in_four_types(torch_lib: Path, gxx: str,
                                                                      tmp_path: Path) -> None:
    exe = tmp_path / "solver_check"
    built = subprocess.run([gxx, "-std=c++17", "-O1", "-pthread", f"-I{shim_include()}", str(SOURCE), "-o", str(exe),
                            f"-L{torch_lib}", f"-Wl,-rpath,{torch_lib}", "-ltorch_cpu", "-lc10"],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0 and ran.stdout.strip() == "PASS solver", ran.stdout + ran.stderr


@pytest.mark.compiles
@pytest.mark.shared
def test_the_shim_defines_every_solver_routine_pytorch_260_calls(pytorch_260: Path, gxx: str, tmp_path: Path) -> None:
    """Every cusolverDn* routine and cuBLAS LAPACK-like routine (getrf/getrs/geqrf/gels batched, trsm) that
    2.6.0's CUDA sources call has its MUSA-named definition in the shim, so the linalg chain compiles."""
    import re

    from musaport.rewrite.transforms import systematic

    pattern = re.compile(r"\b(cusolverDn[A-Za-z0-9_]+|cublas[SDCZ](?:getrfBatched|getrsBatched|geqrfBatched|"
                         r"gelsBatched|trsmBatched|trsm))\s*\(")
    used: set[str] = set()
    aten = pytorch_260 / "aten" / "src" / "ATen"
    for path in [*(aten / "native" / "cuda" / "linalg").iterdir(), aten / "cuda" / "CUDABlas.cpp"]:
        if path.suffix in {".cpp", ".h", ".cu"}:
            used.update(systematic(n) for n in pattern.findall(path.read_text(encoding="utf-8", errors="replace")))
    assert "musolverDnXpotrf" in used and "mublasZgetrfBatched" in used, "the scan found too little"
    probe = tmp_path / "names.cpp"
    probe.write_text("#include <musolverDn.h>\n#include <mublas.h>\n", encoding="utf-8")
    expanded = subprocess.run([gxx, "-std=c++17", "-E", "-P", f"-I{shim_include()}", str(probe)],
                              capture_output=True, text=True)
    assert expanded.returncode == 0, expanded.stderr[-3000:]
    defined = set(re.findall(r"\b(?:musolverStatus_t|mublasStatus_t)\s+(\w+)\s*\(", expanded.stdout))
    assert sorted(used - defined) == []
