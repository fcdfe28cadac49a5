#!/usr/bin/env python3
"""PyTorch's sparse products on the ``musa`` device against torch's CPU, one line per case.

Why: the sparse BLAS of PyTorch's CUDA backend (``SparseBlas.cpp``,
``SparseBlasImpl.cpp``, ``SparseCUDABlas.cpp``, ``SparseMatMul.cu``) calls
muSPARSE once ported, and the shim computes muSPARSE on the CPU. The shim's
fixture kernels (``validate --run``) check each routine through the CUDA API;
this checks what PyTorch makes of them: each case runs on ``cpu`` and on
``musa`` and compares the dense results. It needs the whole device (only the
whole device compiles the ported sparse files and registers their kernels for
the device's sparse keys):

    python3 scripts/device_sparse_check.py PT_OUT

PT_OUT is the ``--out`` of ``musaport run --pytorch-src`` whose
``.musaport/device`` holds the whole device. Exit 0 when every case passes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CASES = r'''
import sys, torch
sys.path.insert(0, sys.argv[2])
import musaport_loader
musaport_loader.load(sys.argv[1])
torch.manual_seed(0)
failed = ran = 0

def sparse_pattern(m, n, p=0.4, dtype=torch.float64):
    a = torch.randn(m, n, dtype=dtype)
    return a * (torch.rand(m, n) < p)

def dense_of(t):
    return t.to_dense() if t.layout != torch.strided else t

def case(name, fn):
    global failed, ran
    ran += 1
    try:
        want, got = fn("cpu"), fn("musa")
        assert got.device.type == "musa", f"the result is on {got.device}"
        torch.testing.assert_close(dense_of(got).cpu(), dense_of(want))
        print("PASS", name)
    except Exception as exc:  # one case fails alone
        failed += 1
        print("FAIL", name, type(exc).__name__, (str(exc).splitlines() or [""])[0][:300])

def randn(*shape, seed, dtype=torch.float64):
    return torch.randn(*shape, dtype=dtype, generator=torch.Generator().manual_seed(seed))

A, B, v = sparse_pattern(5, 4), randn(4, 3, seed=1), randn(4, seed=2)
A2 = sparse_pattern(4, 6)
case("COO @ dense (torch.sparse.mm: addmm, SpMM)", lambda d: torch.sparse.mm(A.to_sparse().to(d), B.to(d)))
case("COO @ COO (torch.sparse.mm: SpGEMM)", lambda d: torch.sparse.mm(A.to_sparse().to(d), A2.to_sparse().to(d)))
case("CSR @ dense (SpMM)", lambda d: A.to(d).to_sparse_csr() @ B.to(d))
case("CSR @ vector (SpMV)", lambda d: A.to(d).to_sparse_csr() @ v.to(d))
case("CSR @ CSR (SpGEMM)", lambda d: A.to(d).to_sparse_csr() @ A2.to(d).to_sparse_csr())
Z = sparse_pattern(5, 4, dtype=torch.complex128)  # each input is made once: both devices take the same
case("complex128 CSR @ dense (SpMM)", lambda d: Z.to(d).to_sparse_csr() @ randn(4, 3, seed=3, dtype=torch.complex128).to(d))
case("float32 CSR @ dense (SpMM)", lambda d: A.float().to(d).to_sparse_csr() @ B.float().to(d))
M = sparse_pattern(5, 6)
case("torch.sparse.sampled_addmm (SDDMM)", lambda d: torch.sparse.sampled_addmm(
    M.to(d).to_sparse_csr(), randn(5, 3, seed=4).to(d), randn(3, 6, seed=5).to(d), beta=0.5, alpha=2.0))
L = torch.tril(sparse_pattern(5, 5, 0.6)) + 3 * torch.eye(5, dtype=torch.float64)
case("torch.triangular_solve with a CSR matrix (SpSM)", lambda d: torch.triangular_solve(
    randn(5, 2, seed=6).to(d), L.to(d).to_sparse_csr(), upper=False).solution)
S = sparse_pattern(4, 4)
case("BSR @ dense (bsrmm)", lambda d: S.to(d).to_sparse_bsr((2, 2)) @ B.to(d))
print(f"{ran - failed} of {ran} cases passed")
sys.exit(1 if failed else 0)
'''


def main() -> int:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from musaport.validate.torchwheel import torchenv

    device = Path(sys.argv[1]) / ".musaport" / "device"
    library = device / "libmusaport_backend.so"
    if not library.is_file():
        sys.exit(f"musaport: error: {library}: no musa device; build the whole device first "
                 "(musaport validate --opinfo --pytorch-tests --out PT_OUT)")
    env = torchenv.cached("2.6.0")
    if env is None:
        sys.exit("musaport: error: no torch 2.6.0 environment in the user cache")
    return subprocess.run([str(env.python), "-c", CASES, str(library), str(device)], cwd=device).returncode


if __name__ == "__main__":
    sys.exit(main())
