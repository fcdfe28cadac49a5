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


@pytest.mark.compiles
def test_gemm_dot_gemv_and_lt_matmul_on_the_cpu(tmp_path: Path, gxx: str) -> None:
    source = tmp_path / "blas.cpp"
    source.write_text(PROGRAM)
    binary = tmp_path / "blas"
    subprocess.run([gxx, "-std=c++17", "-O1", f"-I{shim_include()}", str(source), "-o", str(binary)], check=True)
    rows = {ln.split()[0]: ln.split()[1:] for ln in subprocess.run([str(binary)], capture_output=True, text=True,
                                                                     check=True).stdout.splitlines()}
    a, b = [[1, 2, 3], [4, 5, 6]], [[7, 8], [9, 10], [11, 12]]
    ab = _column_major(_product(a, b))
    assert rows["sgemm"] == [str(v) for v in ab]
    assert rows["hgemm_t"] == [str(v) for v in ab]
    assert rows["batched"] == ["11", "22"]
    assert rows["cdotc"] == ["15", "0"] and rows["cdotu"] == ["5", "-2"]
    assert rows["sgemv"] == [str(2 * (1 * 3 + 2 * 2 + 3 * 1) + 1), str(2 * (4 * 3 + 5 * 2 + 6 * 1) + 1)]
    assert rows["lt_status"] == ["0", "1"]
    biased = [v + (-100, 1)[i % 2] for i, v in enumerate(ab)]
    assert rows["lt_relu_bias"] == [str(max(v, 0)) for v in biased]
    assert rows["fp8"] == ["15"]  # MUBLAS_STATUS_NOT_SUPPORTED
