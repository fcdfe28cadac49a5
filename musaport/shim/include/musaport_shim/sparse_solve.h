// musaport shim: muSPARSE's triangular solves SpSV and SpSM on the CPU
// (included by musparse.h), and the substitution the BSR solves share.
//
// op(A) * Y = alpha * X for a square COO or CSR matrix A whose fill mode and
// diagonal type are its descriptor's attributes (musparseSpMatSetAttribute):
// only the stored entries inside the fill mode's triangle are read (the
// diagonal included), a unit diagonal is taken as ones whatever is stored,
// and op may transpose or conjugate-transpose A (the triangle flips with it).
// A missing or zero diagonal entry of a non-unit matrix divides by zero, as
// the toolkit's solve does (these routines report no pivot; bsrsv2/bsrsm2
// do).  Values are float, double or their complex types in their own type.
#pragma once

#include <utility>
#include <vector>

typedef enum { MUSPARSE_SPSV_ALG_DEFAULT = 0 } musparseSpSVAlg_t;
typedef enum { MUSPARSE_SPSM_ALG_DEFAULT = 0 } musparseSpSMAlg_t;

struct musparseSpSVDescr {
  bool analysed;
};
struct musparseSpSMDescr {
  bool analysed;
};
typedef struct musparseSpSVDescr* musparseSpSVDescr_t;
typedef struct musparseSpSMDescr* musparseSpSMDescr_t;

namespace musaport_sparse {

// The triangle of op(A) a solve reads, gathered row by row: each row's entries off the diagonal, and its
// diagonal (the sum of the stored ones; has_diag says whether there is one).
template <typename T> struct Triangle {
  int64_t n;
  bool lower;  // of op(A)
  bool unit;
  std::vector<std::vector<std::pair<int64_t, T>>> rows;
  std::vector<T> diag;
  std::vector<char> has_diag;

  Triangle(int64_t size, musparseOperation_t op, musparseFillMode_t fill, musparseDiagType_t diag_type)
      : n(size),
        lower((fill == MUSPARSE_FILL_MODE_LOWER) == (op == MUSPARSE_OPERATION_NON_TRANSPOSE)),
        unit(diag_type == MUSPARSE_DIAG_TYPE_UNIT),
        rows(static_cast<size_t>(size)),
        diag(static_cast<size_t>(size), T(0)),
        has_diag(static_cast<size_t>(size), 0),
        op_(op),
        fill_lower_(fill == MUSPARSE_FILL_MODE_LOWER) {}

  // Element (r, c) of A, zero-based: kept when it lies in A's triangle, then placed as op(A)'s.
  void add(int64_t r, int64_t c, T v) {
    if (r < 0 || c < 0 || r >= n || c >= n || (fill_lower_ ? c > r : c < r)) return;
    if (op_ != MUSPARSE_OPERATION_NON_TRANSPOSE) std::swap(r, c);
    if (op_ == MUSPARSE_OPERATION_CONJUGATE_TRANSPOSE) v = conj_of(v);
    if (r == c) {
      diag[r] += v, has_diag[r] = 1;
    } else {
      rows[r].emplace_back(c, v);
    }
  }

  // The first row whose diagonal is missing or zero (a unit diagonal has none), or -1.
  int64_t zero_pivot() const {
    if (unit) return -1;
    for (int64_t i = 0; i < n; ++i)
      if (!has_diag[i] || diag[i] == T(0)) return i;
    return -1;
  }

  // Solves op(A) * x = b in place (x holds b on entry): forward for a lower op(A), backward for an upper one.
  void solve(std::vector<T>& x) const {
    for (int64_t k = 0; k < n; ++k) {
      const int64_t i = lower ? k : n - 1 - k;
      T s = x[i];
      for (const auto& entry : rows[i]) s -= entry.second * x[entry.first];
      x[i] = unit ? s : s / diag[i];
    }
  }

 private:
  musparseOperation_t op_;
  bool fill_lower_;
};

template <typename T>
inline Triangle<T> triangle_of(const musparseSpMatDescr& a, musparseOperation_t op) {
  Triangle<T> t(a.rows, op, a.fill_mode, a.diag_type);
  const T* values = static_cast<const T*>(a.values);
  for_each_nonzero(a, [&](int64_t r, int64_t c, int64_t e) { t.add(r, c, values[e]); });
  return t;
}

// op(A) * C = alpha * op(B), column by column; SpSV is the one-column case.
template <typename T>
inline musparseStatus_t spsm(musparseOperation_t op_a, musparseOperation_t op_b, const void* alpha,
                             const musparseSpMatDescr& a, const musparseDnMatDescr& b, const musparseDnMatDescr& c) {
  int64_t br, bc;
  op_shape(op_b, b.rows, b.cols, &br, &bc);
  if (a.rows != a.cols || br != a.rows || c.rows != a.rows || bc != c.cols) return MUSPARSE_STATUS_INVALID_VALUE;
  const Triangle<T> t = triangle_of<T>(a, op_a);
  const T al = *static_cast<const T*>(alpha);
  std::vector<T> x(static_cast<size_t>(a.rows));
  for (int64_t j = 0; j < c.cols; ++j) {
    for (int64_t i = 0; i < a.rows; ++i) x[i] = al * dense_op_at<T>(b, op_b, i, j);
    t.solve(x);
    for (int64_t i = 0; i < a.rows; ++i) dense_at<T>(c, i, j) = x[i];
  }
  return MUSPARSE_STATUS_SUCCESS;
}

inline musparseStatus_t check_solve(musparseHandle_t handle, const void* descr, musparseConstSpMatDescr_t a,
                                    const void* x, const void* y) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (descr == nullptr || a == nullptr || x == nullptr || y == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  if (a->format != MUSPARSE_FORMAT_CSR && a->format != MUSPARSE_FORMAT_COO) return MUSPARSE_STATUS_NOT_SUPPORTED;
  return MUSPARSE_STATUS_SUCCESS;
}

}  // namespace musaport_sparse

inline musparseStatus_t musparseSpSV_createDescr(musparseSpSVDescr_t* descr) {
  if (descr == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *descr = new musparseSpSVDescr{false};
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseSpSV_destroyDescr(musparseSpSVDescr_t descr) {
  delete descr;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseSpSM_createDescr(musparseSpSMDescr_t* descr) {
  if (descr == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *descr = new musparseSpSMDescr{false};
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseSpSM_destroyDescr(musparseSpSMDescr_t descr) {
  delete descr;
  return MUSPARSE_STATUS_SUCCESS;
}

// No workspace: the solve gathers the triangle itself.  The analysis only marks the descriptor, which the
// solve requires, as the toolkit's does; the solve reads A's values when it runs.
inline musparseStatus_t musparseSpSV_bufferSize(musparseHandle_t handle, musparseOperation_t, const void*,
                                                musparseConstSpMatDescr_t matA, musparseConstDnVecDescr_t vecX,
                                                musparseDnVecDescr_t vecY, musaDataType, musparseSpSVAlg_t,
                                                musparseSpSVDescr_t spsvDescr, size_t* bufferSize) {
  const musparseStatus_t status = musaport_sparse::check_solve(handle, spsvDescr, matA, vecX, vecY);
  if (status != MUSPARSE_STATUS_SUCCESS) return status;
  if (bufferSize == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *bufferSize = 0;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseSpSV_analysis(musparseHandle_t handle, musparseOperation_t, const void*,
                                              musparseConstSpMatDescr_t matA, musparseConstDnVecDescr_t vecX,
                                              musparseDnVecDescr_t vecY, musaDataType, musparseSpSVAlg_t,
                                              musparseSpSVDescr_t spsvDescr, void*) {
  const musparseStatus_t status = musaport_sparse::check_solve(handle, spsvDescr, matA, vecX, vecY);
  if (status != MUSPARSE_STATUS_SUCCESS) return status;
  spsvDescr->analysed = true;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseSpSV_solve(musparseHandle_t handle, musparseOperation_t opA, const void* alpha,
                                           musparseConstSpMatDescr_t matA, musparseConstDnVecDescr_t vecX,
                                           musparseDnVecDescr_t vecY, musaDataType computeType, musparseSpSVAlg_t,
                                           musparseSpSVDescr_t spsvDescr) {
  const musparseStatus_t status = musaport_sparse::check_solve(handle, spsvDescr, matA, vecX, vecY);
  if (status != MUSPARSE_STATUS_SUCCESS) return status;
  if (!spsvDescr->analysed || alpha == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  if (matA->value_type != computeType || vecX->value_type != computeType || vecY->value_type != computeType)
    return MUSPARSE_STATUS_NOT_SUPPORTED;
  const musparseDnMatDescr x = musaport_sparse::vector_as_matrix(*vecX), y = musaport_sparse::vector_as_matrix(*vecY);
  return musaport_sparse::by_value_type(computeType, [&](auto zero) {
    using T = decltype(zero);
    return musaport_sparse::spsm<T>(opA, MUSPARSE_OPERATION_NON_TRANSPOSE, alpha, *matA, x, y);
  });
}

inline musparseStatus_t musparseSpSM_bufferSize(musparseHandle_t handle, musparseOperation_t, musparseOperation_t,
                                                const void*, musparseConstSpMatDescr_t matA,
                                                musparseConstDnMatDescr_t matB, musparseDnMatDescr_t matC,
                                                musaDataType, musparseSpSMAlg_t, musparseSpSMDescr_t spsmDescr,
                                                size_t* bufferSize) {
  const musparseStatus_t status = musaport_sparse::check_solve(handle, spsmDescr, matA, matB, matC);
  if (status != MUSPARSE_STATUS_SUCCESS) return status;
  if (bufferSize == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *bufferSize = 0;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseSpSM_analysis(musparseHandle_t handle, musparseOperation_t, musparseOperation_t,
                                              const void*, musparseConstSpMatDescr_t matA,
                                              musparseConstDnMatDescr_t matB, musparseDnMatDescr_t matC,
                                              musaDataType, musparseSpSMAlg_t, musparseSpSMDescr_t spsmDescr, void*) {
  const musparseStatus_t status = musaport_sparse::check_solve(handle, spsmDescr, matA, matB, matC);
  if (status != MUSPARSE_STATUS_SUCCESS) return status;
  spsmDescr->analysed = true;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseSpSM_solve(musparseHandle_t handle, musparseOperation_t opA, musparseOperation_t opB,
                                           const void* alpha, musparseConstSpMatDescr_t matA,
                                           musparseConstDnMatDescr_t matB, musparseDnMatDescr_t matC,
                                           musaDataType computeType, musparseSpSMAlg_t, musparseSpSMDescr_t spsmDescr) {
  const musparseStatus_t status = musaport_sparse::check_solve(handle, spsmDescr, matA, matB, matC);
  if (status != MUSPARSE_STATUS_SUCCESS) return status;
  if (!spsmDescr->analysed || alpha == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  if (matA->value_type != computeType || matB->value_type != computeType || matC->value_type != computeType)
    return MUSPARSE_STATUS_NOT_SUPPORTED;
  return musaport_sparse::by_value_type(computeType, [&](auto zero) {
    using T = decltype(zero);
    return musaport_sparse::spsm<T>(opA, opB, alpha, *matA, *matB, *matC);
  });
}
