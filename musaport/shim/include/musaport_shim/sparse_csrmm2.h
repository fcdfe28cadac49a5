// musaport shim: muSPARSE's legacy csrmm2 on the CPU (included by musparse.h).
//
// C = alpha * op(A) * op(B) + beta * C for an m x k CSR matrix A (32-bit
// indices, its descriptor's index base) and column-major B and C: op(A) is
// m x k (C m x n) or, transposed, k x m (C k x n).  The product is the
// generic SpMM's.  transB may not conjugate (MUSPARSE_STATUS_NOT_SUPPORTED,
// as in the toolkit).  S, D, C and Z forms.
#pragma once

#include <complex>

namespace musaport_sparse {

template <typename T>
inline musparseStatus_t csrmm2(musparseHandle_t handle, musparseOperation_t trans_a, musparseOperation_t trans_b,
                               int m, int n, int k, int nnz, const T* alpha, const musparseMatDescr_t descr_a,
                               const T* val_a, const int* row_a, const int* col_a, const T* b, int ldb, const T* beta,
                               T* c, int ldc, musaDataType type) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (trans_b == MUSPARSE_OPERATION_CONJUGATE_TRANSPOSE) return MUSPARSE_STATUS_NOT_SUPPORTED;
  if (m < 0 || n < 0 || k < 0 || nnz < 0 || alpha == nullptr || beta == nullptr || row_a == nullptr)
    return MUSPARSE_STATUS_INVALID_VALUE;
  const bool plain_a = trans_a == MUSPARSE_OPERATION_NON_TRANSPOSE;
  const int64_t c_rows = plain_a ? m : k, inner = plain_a ? k : m;
  const bool plain_b = trans_b == MUSPARSE_OPERATION_NON_TRANSPOSE;
  const int64_t b_rows = plain_b ? inner : n, b_cols = plain_b ? n : inner;
  if (ldb < (b_rows > 1 ? b_rows : 1) || ldc < (c_rows > 1 ? c_rows : 1)) return MUSPARSE_STATUS_INVALID_VALUE;
  musparseSpMatDescr a{MUSPARSE_FORMAT_CSR, m, k, nnz, const_cast<int*>(row_a), const_cast<int*>(col_a),
                       const_cast<T*>(val_a), MUSPARSE_INDEX_32I, MUSPARSE_INDEX_32I,
                       descr_a != nullptr ? descr_a->base : MUSPARSE_INDEX_BASE_ZERO, type};
  const musparseDnMatDescr bd{b_rows, b_cols, ldb, const_cast<T*>(b), type, MUSPARSE_ORDER_COL};
  const musparseDnMatDescr cd{c_rows, n, ldc, c, type, MUSPARSE_ORDER_COL};
  return spmm<T>(trans_a, trans_b, alpha, a, bd, beta, cd);
}

}  // namespace musaport_sparse

#define MUSAPORT_SPARSE_CSRMM2(fn, T, C, type)                                                                    \
  inline musparseStatus_t fn(musparseHandle_t handle, musparseOperation_t transA, musparseOperation_t transB, int m, \
                             int n, int k, int nnz, const T* alpha, const musparseMatDescr_t descrA,               \
                             const T* csrValA, const int* csrRowPtrA, const int* csrColIndA, const T* B, int ldb,  \
                             const T* beta, T* C_, int ldc) {                                                      \
    return musaport_sparse::csrmm2<C>(handle, transA, transB, m, n, k, nnz, reinterpret_cast<const C*>(alpha),     \
                                      descrA, reinterpret_cast<const C*>(csrValA), csrRowPtrA, csrColIndA,          \
                                      reinterpret_cast<const C*>(B), ldb, reinterpret_cast<const C*>(beta),         \
                                      reinterpret_cast<C*>(C_), ldc, type);                                        \
  }
MUSAPORT_SPARSE_CSRMM2(musparseScsrmm2, float, float, MUSA_R_32F)
MUSAPORT_SPARSE_CSRMM2(musparseDcsrmm2, double, double, MUSA_R_64F)
MUSAPORT_SPARSE_CSRMM2(musparseCcsrmm2, muComplex, std::complex<float>, MUSA_C_32F)
MUSAPORT_SPARSE_CSRMM2(musparseZcsrmm2, muDoubleComplex, std::complex<double>, MUSA_C_64F)
#undef MUSAPORT_SPARSE_CSRMM2
