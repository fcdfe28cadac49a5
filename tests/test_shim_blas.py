"""The shim's muBLAS and muBLASLt on the CPU: what PyTorch's ported MUSABlas.cpp calls, checked against
products computed here in Python (exact integers, so any indexing or transposition error shows)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from musaport.resources import shim_include

PROGRAM = r"""
#include <mublasLt.h>
#include <cstdio>

static void show(const char* name, const float* v, int n) {
  std::printf("%s", name);
  for (int i = 0; i < n; ++i) std::printf(" %g", v[i]);
  std::printf("\n");
}

int main() {
  mublasHandle_t h;
  mublasCreate(&h);
  // A is 2x3, B is 3x2, both column-major.
  float A[6] = {1, 4, 2, 5, 3, 6}, At[6] = {1, 2, 3, 4, 5, 6}, B[6] = {7, 9, 11, 8, 10, 12};
  float one = 1, zero = 0, C[4];
  mublasSgemm(h, MUBLAS_OP_N, MUBLAS_OP_N, 2, 2, 3, &one, A, 2, B, 3, &zero, C, 2);
  show("sgemm", C, 4);
  // Half storage, float compute, A given transposed (3x2 stored): the same product.
  __half Ah[6], Bh[6], Ch[4];
  for (int i = 0; i < 6; ++i) { Ah[i] = __float2half(At[i]); Bh[i] = __float2half(B[i]); }
  mublasGemmEx(h, MUBLAS_OP_T, MUBLAS_OP_N, 2, 2, 3, &one, Ah, MUSA_R_16F, 3, Bh, MUSA_R_16F, 3, &zero, Ch,
               MUSA_R_16F, 2, MUBLAS_COMPUTE_32F, MUBLAS_GEMM_DEFAULT_TENSOR_OP);
  for (int i = 0; i < 4; ++i) C[i] = __half2float(Ch[i]);
  show("hgemm_t", C, 4);
  // Two batches of 1x1 products with beta = 1.
  float a2[2] = {2, 3}, b2[2] = {5, 7}, c2[2] = {1, 1};
  mublasSgemmStridedBatched(h, MUBLAS_OP_N, MUBLAS_OP_N, 1, 1, 1, &one, a2, 1, 1, b2, 1, 1, &one, c2, 1, 1, 2);
  show("batched", c2, 2);
  // The same product from transposed storage: A^T stored 3x2 with padded columns (lda 4), B^T stored 2x3
  // (ldb 2), both OP_T, beta 1 on C = ones: A B + 1.
  float Ap[8] = {1, 2, 3, -1, 4, 5, 6, -1}, Bt[6] = {7, 8, 9, 10, 11, 12}, ones[4] = {1, 1, 1, 1};
  mublasSgemm(h, MUBLAS_OP_T, MUBLAS_OP_T, 2, 2, 3, &one, Ap, 4, Bt, 2, &one, ones, 2);
  show("sgemm_tt", ones, 4);
  // Double and complex: (1+i)(2-i) = 3+i, times alpha 2i is -2+6i; beta 0 ignores a NaN in C.
  double da = 3, db = 4, dc = 0.0 / 0.0, dal = 1, dbe = 0;
  mublasDgemm(h, MUBLAS_OP_N, MUBLAS_OP_N, 1, 1, 1, &dal, &da, 1, &db, 1, &dbe, &dc, 1);
  float dv[1] = {(float)dc};
  show("dgemm", dv, 1);
  muComplex ca = make_muComplex(1, 1), cb = make_muComplex(2, -1), cc = make_muComplex(0.0f / 0.0f, 0),
            cal = make_muComplex(0, 2), cbe = make_muComplex(0, 0);
  mublasCgemm(h, MUBLAS_OP_N, MUBLAS_OP_N, 1, 1, 1, &cal, &ca, 1, &cb, 1, &cbe, &cc, 1);
  float cv[2] = {cc.x, cc.y};
  show("cgemm", cv, 2);
  std::printf("blas %d\n", musaport::blas::linked_gemm<float>() != nullptr ? 1 : 0);
  // conj(x) . x of (1+2i, 3-1i) is 15; x . x is (1+2i)^2 + (3-1i)^2 = 5 - 2i.
  muComplex x[2] = {make_muComplex(1, 2), make_muComplex(3, -1)}, r;
  mublasCdotc(h, 2, x, 1, x, 1, &r);
  float rc[2] = {r.x, r.y};
  show("cdotc", rc, 2);
  mublasCdotu(h, 2, x, 1, x, 1, &r);
  float ru[2] = {r.x, r.y};
  show("cdotu", ru, 2);
  // y = 2 A x + y with x walked backwards (incx = -1): x as read is (3, 2, 1).
  float xv[3] = {1, 2, 3}, y[2] = {1, 1}, two = 2;
  mublasSgemv(h, MUBLAS_OP_N, 2, 3, &two, A, 2, xv, -1, &one, y, 1);
  show("sgemv", y, 2);
  // muBLASLt: D = relu(A B + bias), bias per row.
  mublasLtHandle_t lt;
  mublasLtCreate(&lt);
  mublasLtMatmulDesc_t desc;
  mublasLtMatmulDescCreate(&desc, MUBLAS_COMPUTE_32F, MUSA_R_32F);
  float bias[2] = {-100, 1};
  const void* bias_ptr = bias;
  int32_t epilogue = MUBLASLT_EPILOGUE_RELU_BIAS;
  mublasLtMatmulDescSetAttribute(desc, MUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue);
  mublasLtMatmulDescSetAttribute(desc, MUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias_ptr, sizeof bias_ptr);
  mublasLtMatrixLayout_t la, lb, ld;
  mublasLtMatrixLayoutCreate(&la, MUSA_R_32F, 2, 3, 2);
  mublasLtMatrixLayoutCreate(&lb, MUSA_R_32F, 3, 2, 3);
  mublasLtMatrixLayoutCreate(&ld, MUSA_R_32F, 2, 2, 2);
  mublasLtMatmulHeuristicResult_t heuristic;
  int found = 0;
  mublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, ld, ld, nullptr, 1, &heuristic, &found);
  float D[4];
  const mublasStatus_t s = mublasLtMatmul(lt, desc, &one, A, la, B, lb, &zero, D, ld, D, ld, &heuristic.algo,
                                          nullptr, 0, nullptr);
  std::printf("lt_status %d %d\n", (int)s, found);
  show("lt_relu_bias", D, 4);
  // An fp8 scale is not emulated: refused, not ignored.
  mublasLtMatmulDescSetAttribute(desc, MUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &bias_ptr, sizeof bias_ptr);
  std::printf("fp8 %d\n", (int)mublasLtMatmul(lt, desc, &one, A, la, B, lb, &zero, D, ld, D, ld, nullptr, nullptr,
                                              0, nullptr));
  mublasLtMatrixLayoutDestroy(la); mublasLtMatrixLayoutDestroy(lb); mublasLtMatrixLayoutDestroy(ld);
  mublasLtMatmulDescDestroy(desc);
  mublasLtDestroy(lt);
  mublasDestroy(h);
}
"""


def _product(a: list[list[int]], b: list[list[int]]) -> list[list[int]]:
    return [[sum(a[i][p] * b[p][j] for p in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def _column_major(m: list[list[int]]) -> list[int]:
    return [m[i][j] for j in range(len(m[0])) for i in range(len(m))]


def _run(tmp_path: Path, gxx: str, link: list[str]) -> dict[str, list[str]]:
    source = tmp_path / "blas.cpp"
    source.write_text(PROGRAM)
    binary = tmp_path / "blas"
    subprocess.run([gxx, "-std=c++17", "-O1", f"-I{shim_include()}", str(source), "-o", str(binary), *link],
                   check=True)
    return {ln.split()[0]: ln.split()[1:] for ln in subprocess.run([str(binary)], capture_output=True, text=True,
                                                                     check=True).stdout.splitlines()}


def _check(rows: dict[str, list[str]]) -> None:
    a, b = [[1, 2, 3], [4, 5, 6]], [[7, 8], [9, 10], [11, 12]]
    ab = _column_major(_product(a, b))
    assert rows["sgemm"] == [str(v) for v in ab]
    # op(A) op(B) + 1, both operands transposed back from their stored forms: A B + 1.
    at = [[1, 4], [2, 5], [3, 6]]
    bt = [[7, 9, 11], [8, 10, 12]]
    tt = _column_major([[v + 1 for v in row] for row in _product([list(c) for c in zip(*at)], [list(c) for c in
                                                                                                zip(*bt)])])
    assert rows["sgemm_tt"] == [str(v) for v in tt]
    assert rows["dgemm"] == ["12"]
    assert rows["cgemm"] == ["-2", "6"]
    assert rows["hgemm_t"] == [str(v) for v in ab]
    assert rows["batched"] == ["11", "22"]
    assert rows["cdotc"] == ["15", "0"] and rows["cdotu"] == ["5", "-2"]
    assert rows["sgemv"] == [str(2 * (1 * 3 + 2 * 2 + 3 * 1) + 1), str(2 * (4 * 3 + 5 * 2 + 6 * 1) + 1)]
    assert rows["lt_status"] == ["0", "1"]
    biased = [v + (-100, 1)[i % 2] for i, v in enumerate(ab)]
    assert rows["lt_relu_bias"] == [str(max(v, 0)) for v in biased]
    assert rows["fp8"] == ["15"]  # MUBLAS_STATUS_NOT_SUPPORTED


@pytest.mark.compiles
def test_gemm_dot_gemv_and_lt_matmul_on_the_cpu(tmp_path: Path, gxx: str) -> None:
    """No BLAS linked: every product runs the shim's loop nest."""
    rows = _run(tmp_path, gxx, [])
    assert rows["blas"] == ["0"]
    _check(rows)


@pytest.mark.torch
@pytest.mark.compiles
def test_products_run_on_the_linked_blas_with_the_same_results(tmp_path: Path, gxx: str, torch_env) -> None:
    """Linked with the torch wheel's libtorch_cpu.so (as the device build is), the float, double and complex
    products run on its BLAS: the same exact results, transposes, padded leading dimensions, beta and the
    muBLASLt epilogue included."""
    lib = torch_env.site_packages / "torch" / "lib"
    rows = _run(tmp_path, gxx, [f"-L{lib}", f"-Wl,-rpath,{lib}", "-Wl,--no-as-needed", "-ltorch_cpu", "-lc10"])
    assert rows["blas"] == ["1"]
    _check(rows)
