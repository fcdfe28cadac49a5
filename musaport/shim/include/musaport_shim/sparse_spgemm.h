// musaport shim: muSPARSE's SpGEMM on the CPU (included by musparse.h).
//
// C = alpha * A * B + beta * C for CSR matrices A, B and C, in the toolkit's
// three steps: workEstimation and compute (each may be called twice, first
// for a buffer size; neither needs a workspace here) form the product into
// the SpGEMM descriptor and set C's nnz, which musparseSpMatGetSize reads;
// after the caller has given C arrays of that size (musparseCsrSetPointers),
// copy writes C's row offsets, columns and values.  C's entries as compute
// finds them (when beta is not zero and C has any) are scaled by beta and
// added, so C keeps its pattern and gains A * B's; with a zero beta C is
// A * B's pattern alone.  Each row's columns come out ascending, each once.
// Values are float, double or their complex types in their own type; any
// index type.  Transposed operands, formats other than CSR, batches and mixed
// precision are MUSPARSE_STATUS_NOT_SUPPORTED.
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

typedef enum {
  MUSPARSE_SPGEMM_DEFAULT = 0,
  MUSPARSE_SPGEMM_CSR_ALG_DETERMINITIC = 1,
  MUSPARSE_SPGEMM_CSR_ALG_NONDETERMINITIC = 2,
  MUSPARSE_SPGEMM_ALG1 = 3,
  MUSPARSE_SPGEMM_ALG2 = 4,
  MUSPARSE_SPGEMM_ALG3 = 5
} musparseSpGEMMAlg_t;

struct musparseSpGEMMDescr {
  int stage;                              // 0: created, 1: work estimated, 2: product computed
  std::vector<int64_t> offsets, columns;  // the product, zero-based
  std::vector<unsigned char> values;      // nnz values of the compute type
};
typedef struct musparseSpGEMMDescr* musparseSpGEMMDescr_t;

namespace musaport_sparse {

inline musparseStatus_t check_spgemm(musparseHandle_t handle, musparseOperation_t op_a, musparseOperation_t op_b,
                                     const void* alpha, musparseConstSpMatDescr_t a, musparseConstSpMatDescr_t b,
                                     const void* beta, musparseConstSpMatDescr_t c, musaDataType compute_type,
                                     musparseSpGEMMDescr_t descr) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (a == nullptr || b == nullptr || c == nullptr || alpha == nullptr || beta == nullptr || descr == nullptr)
    return MUSPARSE_STATUS_INVALID_VALUE;
  if (op_a != MUSPARSE_OPERATION_NON_TRANSPOSE || op_b != MUSPARSE_OPERATION_NON_TRANSPOSE)
    return MUSPARSE_STATUS_NOT_SUPPORTED;
  if (a->format != MUSPARSE_FORMAT_CSR || b->format != MUSPARSE_FORMAT_CSR || c->format != MUSPARSE_FORMAT_CSR)
    return MUSPARSE_STATUS_NOT_SUPPORTED;
  if (a->batch_count != 1 || b->batch_count != 1 || c->batch_count != 1) return MUSPARSE_STATUS_NOT_SUPPORTED;
  if (a->value_type != compute_type || b->value_type != compute_type || c->value_type != compute_type ||
      value_size(compute_type) == 0 || compute_type == MUSA_R_16F || compute_type == MUSA_R_16BF)
    return MUSPARSE_STATUS_NOT_SUPPORTED;
  if (a->rows != c->rows || a->cols != b->rows || b->cols != c->cols) return MUSPARSE_STATUS_INVALID_VALUE;
  return MUSPARSE_STATUS_SUCCESS;
}

// Row r of a CSR matrix: calls f(column, position of the value), zero-based.
template <typename F> inline void for_each_in_row(const musparseSpMatDescr& m, int64_t r, F f) {
  const int64_t base = m.base == MUSPARSE_INDEX_BASE_ONE ? 1 : 0;
  const int64_t end = index_at(m.rows_or_offsets, m.row_type, r + 1) - base;
  for (int64_t e = index_at(m.rows_or_offsets, m.row_type, r) - base; e < end; ++e)
    f(index_at(m.columns, m.column_type, e) - base, e);
}

template <typename T>
inline void spgemm_compute(const T& alpha, const musparseSpMatDescr& a, const musparseSpMatDescr& b, const T& beta,
                           musparseSpMatDescr& c, musparseSpGEMMDescr& out) {
  const bool with_c = beta != T(0) && c.nnz > 0;
  const T* av = static_cast<const T*>(a.values);
  const T* bv = static_cast<const T*>(b.values);
  const T* cv = static_cast<const T*>(c.values);
  std::vector<T> row(static_cast<size_t>(c.cols), T(0));
  std::vector<char> seen(static_cast<size_t>(c.cols), 0);
  std::vector<int64_t> columns;
  std::vector<T> values;
  out.offsets.assign(1, 0);
  out.columns.clear();
  auto add = [&](int64_t col, T v) {
    if (!seen[col]) seen[col] = 1, row[col] = T(0), columns.push_back(col);
    row[col] += v;
  };
  for (int64_t i = 0; i < c.rows; ++i) {
    columns.clear();
    for_each_in_row(a, i, [&](int64_t p, int64_t e) {
      const T x = alpha * av[e];
      for_each_in_row(b, p, [&](int64_t j, int64_t f) { add(j, x * bv[f]); });
    });
    if (with_c) for_each_in_row(c, i, [&](int64_t j, int64_t e) { add(j, beta * cv[e]); });
    std::sort(columns.begin(), columns.end());
    for (int64_t j : columns) out.columns.push_back(j), values.push_back(row[j]), seen[j] = 0;
    out.offsets.push_back(static_cast<int64_t>(out.columns.size()));
  }
  out.values.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.values.data(), values.data(), out.values.size());
  c.nnz = static_cast<int64_t>(out.columns.size());
}

}  // namespace musaport_sparse

inline musparseStatus_t musparseSpGEMM_createDescr(musparseSpGEMMDescr_t* descr) {
  if (descr == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *descr = new musparseSpGEMMDescr{0, {}, {}, {}};
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseSpGEMM_destroyDescr(musparseSpGEMMDescr_t descr) {
  delete descr;
  return MUSPARSE_STATUS_SUCCESS;
}

inline musparseStatus_t musparseSpGEMM_workEstimation(musparseHandle_t handle, musparseOperation_t opA,
                                                      musparseOperation_t opB, const void* alpha,
                                                      musparseConstSpMatDescr_t matA, musparseConstSpMatDescr_t matB,
                                                      const void* beta, musparseSpMatDescr_t matC,
                                                      musaDataType computeType, musparseSpGEMMAlg_t,
                                                      musparseSpGEMMDescr_t spgemmDescr, size_t* bufferSize1, void*) {
  const musparseStatus_t status =
      musaport_sparse::check_spgemm(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, spgemmDescr);
  if (status != MUSPARSE_STATUS_SUCCESS) return status;
  if (bufferSize1 == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *bufferSize1 = 0;
  spgemmDescr->stage = 1;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseSpGEMM_compute(musparseHandle_t handle, musparseOperation_t opA,
                                               musparseOperation_t opB, const void* alpha,
                                               musparseConstSpMatDescr_t matA, musparseConstSpMatDescr_t matB,
                                               const void* beta, musparseSpMatDescr_t matC, musaDataType computeType,
                                               musparseSpGEMMAlg_t, musparseSpGEMMDescr_t spgemmDescr,
                                               size_t* bufferSize2, void*) {
  const musparseStatus_t status =
      musaport_sparse::check_spgemm(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, spgemmDescr);
  if (status != MUSPARSE_STATUS_SUCCESS) return status;
  if (bufferSize2 == nullptr || spgemmDescr->stage < 1) return MUSPARSE_STATUS_INVALID_VALUE;
  *bufferSize2 = 0;
  if (spgemmDescr->stage == 2) return MUSPARSE_STATUS_SUCCESS;  // the second call: C's nnz already is the product's
  return musaport_sparse::by_value_type(computeType, [&](auto zero) {
    using T = decltype(zero);
    musaport_sparse::spgemm_compute<T>(*static_cast<const T*>(alpha), *matA, *matB, *static_cast<const T*>(beta),
                                       *matC, *spgemmDescr);
    spgemmDescr->stage = 2;
    return MUSPARSE_STATUS_SUCCESS;
  });
}
inline musparseStatus_t musparseSpGEMM_copy(musparseHandle_t handle, musparseOperation_t opA, musparseOperation_t opB,
                                            const void* alpha, musparseConstSpMatDescr_t matA,
                                            musparseConstSpMatDescr_t matB, const void* beta,
                                            musparseSpMatDescr_t matC, musaDataType computeType, musparseSpGEMMAlg_t,
                                            musparseSpGEMMDescr_t spgemmDescr) {
  const musparseStatus_t status =
      musaport_sparse::check_spgemm(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, spgemmDescr);
  if (status != MUSPARSE_STATUS_SUCCESS) return status;
  const int64_t nnz = static_cast<int64_t>(spgemmDescr->columns.size());
  if (spgemmDescr->stage != 2 || matC->rows_or_offsets == nullptr ||
      (nnz > 0 && (matC->columns == nullptr || matC->values == nullptr)))
    return MUSPARSE_STATUS_INVALID_VALUE;
  const int64_t base = matC->base == MUSPARSE_INDEX_BASE_ONE ? 1 : 0;
  for (int64_t i = 0; i <= matC->rows; ++i)
    musaport_sparse::index_set(matC->rows_or_offsets, matC->row_type, i, spgemmDescr->offsets[i] + base);
  for (int64_t e = 0; e < nnz; ++e)
    musaport_sparse::index_set(matC->columns, matC->column_type, e, spgemmDescr->columns[e] + base);
  if (nnz > 0) std::memcpy(matC->values, spgemmDescr->values.data(), spgemmDescr->values.size());
  matC->nnz = nnz;
  return MUSPARSE_STATUS_SUCCESS;
}
