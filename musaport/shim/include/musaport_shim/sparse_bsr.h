// musaport shim: muSPARSE's legacy BSR routines on the CPU (included by musparse.h).
//
// A BSR matrix is mb block rows of blockDim x blockDim blocks: row offsets
// and block columns (32-bit, the descriptor's index base) and each block's
// values row-major (MUSPARSE_DIRECTION_ROW) or column-major (COLUMN).
//   bsrmv   y = alpha * A * x + beta * y
//   bsrmm   C = alpha * A * op(B) + beta * C, B and C column-major
//   bsrsv2  op(A) * y = alpha * x
//   bsrsm2  op(A) * op(X) = alpha * op(B), op(X) m x n, B and X column-major
// with a zero beta clearing y or C first (NaNs included).  bsrmv and bsrmm
// take A as it is: a transposed A, a conjugated B and a matrix type other
// than general are MUSPARSE_STATUS_NOT_SUPPORTED (MATRIX_TYPE_NOT_SUPPORTED),
// as in the toolkit.  The solves read the triangle of A the descriptor's fill
// mode names (elements of the diagonal blocks too), take a unit diagonal as
// ones, and transpose or conjugate-transpose A as asked (op(X) and op(B) may
// transpose, not conjugate); their analysis (and solve) records the first
// block row whose diagonal block is missing or has a zero on its diagonal
// (a singular triangular block), which musparseXbsrsv2_zeroPivot and
// musparseXbsrsm2_zeroPivot report in the matrix's index base (-1: none, or
// a unit diagonal).  S, D, C and Z forms; workspaces are 0 bytes.
#pragma once

#include <algorithm>
#include <complex>
#include <vector>

struct bsrsv2Info {
  bool analysed;
  int pivot;
};
struct bsrsm2Info {
  bool analysed;
  int pivot;
};
typedef struct bsrsv2Info* bsrsv2Info_t;
typedef struct bsrsm2Info* bsrsm2Info_t;

inline musparseStatus_t musparseCreateBsrsv2Info(bsrsv2Info_t* info) {
  if (info == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *info = new bsrsv2Info{false, -1};
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseDestroyBsrsv2Info(bsrsv2Info_t info) {
  delete info;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseCreateBsrsm2Info(bsrsm2Info_t* info) {
  if (info == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *info = new bsrsm2Info{false, -1};
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseDestroyBsrsm2Info(bsrsm2Info_t info) {
  delete info;
  return MUSPARSE_STATUS_SUCCESS;
}

namespace musaport_sparse {

// One BSR operand.
template <typename T> struct Bsr {
  musparseDirection_t dir;
  int mb, nnzb, dim;
  const T* values;
  const int* offsets;
  const int* columns;
  int base;

  bool valid() const {
    return mb >= 0 && nnzb >= 0 && dim >= 1 && offsets != nullptr &&
           (nnzb == 0 || (values != nullptr && columns != nullptr)) &&
           (dir == MUSPARSE_DIRECTION_ROW || dir == MUSPARSE_DIRECTION_COLUMN);
  }
  // Calls f(row, column, value) for every element of every stored block, zero-based.
  template <typename F> void for_each(F f) const {
    for (int br = 0; br < mb; ++br)
      for (int e = offsets[br] - base; e < offsets[br + 1] - base; ++e) {
        const int64_t bc = columns[e] - base;
        const T* block = values + static_cast<int64_t>(e) * dim * dim;
        for (int r = 0; r < dim; ++r)
          for (int c = 0; c < dim; ++c)
            f(static_cast<int64_t>(br) * dim + r, bc * dim + c, block[dir == MUSPARSE_DIRECTION_ROW ? r * dim + c : c * dim + r]);
      }
  }
};

template <typename T>
inline Bsr<T> bsr_of(musparseDirection_t dir, int mb, int nnzb, const musparseMatDescr_t descr, const T* values,
                     const int* offsets, const int* columns, int dim) {
  return Bsr<T>{dir, mb, nnzb, dim, values, offsets, columns, csr_base(descr)};
}

inline musparseStatus_t check_bsr_product(musparseHandle_t handle, musparseOperation_t trans_a,
                                          const musparseMatDescr_t descr) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (trans_a != MUSPARSE_OPERATION_NON_TRANSPOSE) return MUSPARSE_STATUS_NOT_SUPPORTED;
  if (descr != nullptr && descr->type != MUSPARSE_MATRIX_TYPE_GENERAL) return MUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  return MUSPARSE_STATUS_SUCCESS;
}

template <typename T>
inline musparseStatus_t bsrmv(musparseHandle_t handle, musparseDirection_t dir, musparseOperation_t trans, int mb,
                              int nb, int nnzb, const T* alpha, const musparseMatDescr_t descr, const T* values,
                              const int* offsets, const int* columns, int dim, const T* x, const T* beta, T* y) {
  const musparseStatus_t status = check_bsr_product(handle, trans, descr);
  if (status != MUSPARSE_STATUS_SUCCESS) return status;
  const Bsr<T> a = bsr_of(dir, mb, nnzb, descr, values, offsets, columns, dim);
  if (!a.valid() || nb < 0 || alpha == nullptr || beta == nullptr || x == nullptr || y == nullptr)
    return MUSPARSE_STATUS_INVALID_VALUE;
  for (int64_t i = 0; i < static_cast<int64_t>(mb) * dim; ++i) y[i] = *beta == T(0) ? T(0) : *beta * y[i];
  a.for_each([&](int64_t r, int64_t c, T v) { y[r] += *alpha * v * x[c]; });
  return MUSPARSE_STATUS_SUCCESS;
}

template <typename T>
inline musparseStatus_t bsrmm(musparseHandle_t handle, musparseDirection_t dir, musparseOperation_t trans_a,
                              musparseOperation_t trans_b, int mb, int n, int kb, int nnzb, const T* alpha,
                              const musparseMatDescr_t descr, const T* values, const int* offsets, const int* columns,
                              int dim, const T* b, int ldb, const T* beta, T* c, int ldc) {
  const musparseStatus_t status = check_bsr_product(handle, trans_a, descr);
  if (status != MUSPARSE_STATUS_SUCCESS) return status;
  if (trans_b == MUSPARSE_OPERATION_CONJUGATE_TRANSPOSE) return MUSPARSE_STATUS_NOT_SUPPORTED;
  const Bsr<T> a = bsr_of(dir, mb, nnzb, descr, values, offsets, columns, dim);
  const bool plain_b = trans_b == MUSPARSE_OPERATION_NON_TRANSPOSE;
  const int64_t m = static_cast<int64_t>(mb) * dim, k = static_cast<int64_t>(kb) * dim;
  if (!a.valid() || n < 0 || kb < 0 || alpha == nullptr || beta == nullptr || b == nullptr || c == nullptr ||
      ldb < std::max<int64_t>(1, plain_b ? k : n) || ldc < std::max<int64_t>(1, m))
    return MUSPARSE_STATUS_INVALID_VALUE;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) c[i + j * ldc] = *beta == T(0) ? T(0) : *beta * c[i + j * ldc];
  a.for_each([&](int64_t r, int64_t p, T v) {
    const T av = *alpha * v;
    for (int64_t j = 0; j < n; ++j) c[r + j * ldc] += av * (plain_b ? b[p + j * ldb] : b[j + p * ldb]);
  });
  return MUSPARSE_STATUS_SUCCESS;
}

// The triangle a BSR solve reads, and the zero pivot it records (a block index in the matrix's base, or -1).
template <typename T>
inline Triangle<T> bsr_triangle(const Bsr<T>& a, musparseOperation_t op, const musparseMatDescr_t descr, int* pivot) {
  Triangle<T> t(static_cast<int64_t>(a.mb) * a.dim, op, descr->fill_mode, descr->diag_type);
  a.for_each([&](int64_t r, int64_t c, T v) { t.add(r, c, v); });
  const int64_t row = t.zero_pivot();
  *pivot = row < 0 ? -1 : static_cast<int>(row / a.dim) + a.base;
  return t;
}

template <typename T>
inline musparseStatus_t bsr_analysis(musparseHandle_t handle, musparseDirection_t dir, musparseOperation_t trans,
                                     int mb, int nnzb, const musparseMatDescr_t descr, const T* values,
                                     const int* offsets, const int* columns, int dim, bool* analysed, int* pivot) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  const Bsr<T> a = bsr_of(dir, mb, nnzb, descr, values, offsets, columns, dim);
  if (descr == nullptr || !a.valid()) return MUSPARSE_STATUS_INVALID_VALUE;
  bsr_triangle(a, trans, descr, pivot);
  *analysed = true;
  return MUSPARSE_STATUS_SUCCESS;
}

// op(A) * op(X) = alpha * op(B) with op(X), op(B) m x n; bsrsv2 is n = 1 with unit strides.
template <typename T>
inline musparseStatus_t bsr_solve(musparseHandle_t handle, musparseDirection_t dir, musparseOperation_t trans_a,
                                  musparseOperation_t trans_x, int mb, int n, int nnzb, const T* alpha,
                                  const musparseMatDescr_t descr, const T* values, const int* offsets,
                                  const int* columns, int dim, bool analysed, int* pivot, const T* b, int ldb, T* x,
                                  int ldx) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (trans_x == MUSPARSE_OPERATION_CONJUGATE_TRANSPOSE) return MUSPARSE_STATUS_NOT_SUPPORTED;
  const Bsr<T> a = bsr_of(dir, mb, nnzb, descr, values, offsets, columns, dim);
  const bool plain_x = trans_x == MUSPARSE_OPERATION_NON_TRANSPOSE;
  const int64_t m = static_cast<int64_t>(mb) * dim;
  if (!analysed || descr == nullptr || !a.valid() || n < 0 || alpha == nullptr || b == nullptr || x == nullptr ||
      std::min(ldb, ldx) < std::max<int64_t>(1, plain_x ? m : n))
    return MUSPARSE_STATUS_INVALID_VALUE;
  const Triangle<T> t = bsr_triangle(a, trans_a, descr, pivot);
  std::vector<T> column(static_cast<size_t>(m));
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) column[i] = *alpha * (plain_x ? b[i + j * ldb] : b[j + i * ldb]);
    t.solve(column);
    for (int64_t i = 0; i < m; ++i) (plain_x ? x[i + j * ldx] : x[j + i * ldx]) = column[i];
  }
  return MUSPARSE_STATUS_SUCCESS;
}

}  // namespace musaport_sparse

inline musparseStatus_t musparseXbsrsv2_zeroPivot(musparseHandle_t handle, bsrsv2Info_t info, int* position) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (info == nullptr || position == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *position = info->pivot;
  return info->pivot < 0 ? MUSPARSE_STATUS_SUCCESS : MUSPARSE_STATUS_ZERO_PIVOT;
}
inline musparseStatus_t musparseXbsrsm2_zeroPivot(musparseHandle_t handle, bsrsm2Info_t info, int* position) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (info == nullptr || position == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *position = info->pivot;
  return info->pivot < 0 ? MUSPARSE_STATUS_SUCCESS : MUSPARSE_STATUS_ZERO_PIVOT;
}

// The typed entry points, L = S, D, C, Z: T is the API's value type, C the one it is computed in.
#define MUSAPORT_SPARSE_BSR(L, T, C)                                                                               \
  inline musparseStatus_t musparse##L##bsrmv(                                                                      \
      musparseHandle_t handle, musparseDirection_t dirA, musparseOperation_t transA, int mb, int nb, int nnzb,    \
      const T* alpha, const musparseMatDescr_t descrA, const T* bsrValA, const int* bsrRowPtrA,                    \
      const int* bsrColIndA, int blockDim, const T* x, const T* beta, T* y) {                                     \
    return musaport_sparse::bsrmv<C>(handle, dirA, transA, mb, nb, nnzb, reinterpret_cast<const C*>(alpha), descrA, \
                                     reinterpret_cast<const C*>(bsrValA), bsrRowPtrA, bsrColIndA, blockDim,        \
                                     reinterpret_cast<const C*>(x), reinterpret_cast<const C*>(beta),              \
                                     reinterpret_cast<C*>(y));                                                     \
  }                                                                                                                \
  inline musparseStatus_t musparse##L##bsrmm(                                                                      \
      musparseHandle_t handle, musparseDirection_t dirA, musparseOperation_t transA, musparseOperation_t transB,  \
      int mb, int n, int kb, int nnzb, const T* alpha, const musparseMatDescr_t descrA, const T* bsrValA,          \
      const int* bsrRowPtrA, const int* bsrColIndA, int blockDim, const T* B, int ldb, const T* beta, T* C_,       \
      int ldc) {                                                                                                   \
    return musaport_sparse::bsrmm<C>(handle, dirA, transA, transB, mb, n, kb, nnzb,                                \
                                     reinterpret_cast<const C*>(alpha), descrA, reinterpret_cast<const C*>(bsrValA), \
                                     bsrRowPtrA, bsrColIndA, blockDim, reinterpret_cast<const C*>(B), ldb,         \
                                     reinterpret_cast<const C*>(beta), reinterpret_cast<C*>(C_), ldc);             \
  }                                                                                                                \
  inline musparseStatus_t musparse##L##bsrsv2_bufferSize(                                                          \
      musparseHandle_t handle, musparseDirection_t, musparseOperation_t, int mb, int nnzb,                         \
      const musparseMatDescr_t, const T*, const int*, const int*, int blockDim, bsrsv2Info_t info,                 \
      int* pBufferSizeInBytes) {                                                                                   \
    if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;                                                 \
    if (mb < 0 || nnzb < 0 || blockDim < 1 || info == nullptr || pBufferSizeInBytes == nullptr)                    \
      return MUSPARSE_STATUS_INVALID_VALUE;                                                                        \
    *pBufferSizeInBytes = 0;                                                                                       \
    return MUSPARSE_STATUS_SUCCESS;                                                                                \
  }                                                                                                                \
  inline musparseStatus_t musparse##L##bsrsv2_analysis(                                                            \
      musparseHandle_t handle, musparseDirection_t dirA, musparseOperation_t transA, int mb, int nnzb,             \
      const musparseMatDescr_t descrA, const T* bsrValA, const int* bsrRowPtrA, const int* bsrColIndA,             \
      int blockDim, bsrsv2Info_t info, musparseSolvePolicy_t, void*) {                                             \
    if (info == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;                                                     \
    return musaport_sparse::bsr_analysis<C>(handle, dirA, transA, mb, nnzb, descrA,                                \
                                            reinterpret_cast<const C*>(bsrValA), bsrRowPtrA, bsrColIndA, blockDim, \
                                            &info->analysed, &info->pivot);                                        \
  }                                                                                                                \
  inline musparseStatus_t musparse##L##bsrsv2_solve(                                                               \
      musparseHandle_t handle, musparseDirection_t dirA, musparseOperation_t transA, int mb, int nnzb,             \
      const T* alpha, const musparseMatDescr_t descrA, const T* bsrValA, const int* bsrRowPtrA,                    \
      const int* bsrColIndA, int blockDim, bsrsv2Info_t info, const T* x, T* y, musparseSolvePolicy_t, void*) {    \
    if (info == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;                                                     \
    const int m = mb * blockDim;                                                                                   \
    return musaport_sparse::bsr_solve<C>(handle, dirA, transA, MUSPARSE_OPERATION_NON_TRANSPOSE, mb, 1, nnzb,      \
                                         reinterpret_cast<const C*>(alpha), descrA,                                \
                                         reinterpret_cast<const C*>(bsrValA), bsrRowPtrA, bsrColIndA, blockDim,    \
                                         info->analysed, &info->pivot, reinterpret_cast<const C*>(x),              \
                                         m > 0 ? m : 1, reinterpret_cast<C*>(y), m > 0 ? m : 1);                   \
  }                                                                                                                \
  inline musparseStatus_t musparse##L##bsrsm2_bufferSize(                                                          \
      musparseHandle_t handle, musparseDirection_t, musparseOperation_t, musparseOperation_t, int mb, int n,       \
      int nnzb, const musparseMatDescr_t, const T*, const int*, const int*, int blockDim, bsrsm2Info_t info,       \
      int* pBufferSizeInBytes) {                                                                                   \
    if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;                                                 \
    if (mb < 0 || n < 0 || nnzb < 0 || blockDim < 1 || info == nullptr || pBufferSizeInBytes == nullptr)           \
      return MUSPARSE_STATUS_INVALID_VALUE;                                                                        \
    *pBufferSizeInBytes = 0;                                                                                       \
    return MUSPARSE_STATUS_SUCCESS;                                                                                \
  }                                                                                                                \
  inline musparseStatus_t musparse##L##bsrsm2_analysis(                                                            \
      musparseHandle_t handle, musparseDirection_t dirA, musparseOperation_t transA, musparseOperation_t, int mb,  \
      int, int nnzb, const musparseMatDescr_t descrA, const T* bsrValA, const int* bsrRowPtrA,                     \
      const int* bsrColIndA, int blockDim, bsrsm2Info_t info, musparseSolvePolicy_t, void*) {                      \
    if (info == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;                                                     \
    return musaport_sparse::bsr_analysis<C>(handle, dirA, transA, mb, nnzb, descrA,                                \
                                            reinterpret_cast<const C*>(bsrValA), bsrRowPtrA, bsrColIndA, blockDim, \
                                            &info->analysed, &info->pivot);                                        \
  }                                                                                                                \
  inline musparseStatus_t musparse##L##bsrsm2_solve(                                                               \
      musparseHandle_t handle, musparseDirection_t dirA, musparseOperation_t transA, musparseOperation_t transXY,  \
      int mb, int n, int nnzb, const T* alpha, const musparseMatDescr_t descrA, const T* bsrValA,                  \
      const int* bsrRowPtrA, const int* bsrColIndA, int blockDim, bsrsm2Info_t info, const T* B, int ldb, T* X,    \
      int ldx, musparseSolvePolicy_t, void*) {                                                                     \
    if (info == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;                                                     \
    return musaport_sparse::bsr_solve<C>(handle, dirA, transA, transXY, mb, n, nnzb,                               \
                                         reinterpret_cast<const C*>(alpha), descrA,                                \
                                         reinterpret_cast<const C*>(bsrValA), bsrRowPtrA, bsrColIndA, blockDim,    \
                                         info->analysed, &info->pivot, reinterpret_cast<const C*>(B), ldb,         \
                                         reinterpret_cast<C*>(X), ldx);                                            \
  }
MUSAPORT_SPARSE_BSR(S, float, float)
MUSAPORT_SPARSE_BSR(D, double, double)
MUSAPORT_SPARSE_BSR(C, muComplex, std::complex<float>)
MUSAPORT_SPARSE_BSR(Z, muDoubleComplex, std::complex<double>)
#undef MUSAPORT_SPARSE_BSR
