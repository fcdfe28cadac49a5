// musaport shim: muSPARSE's SDDMM on the CPU (included by musparse.h).
//
// C = alpha * (op(A) * op(B)) o spy(C) + beta * C: the dense product is
// computed only where C (COO or CSR) stores an entry, each entry's dot
// product in the values' own type (float, double or their complex types); a
// zero beta clears C's values first (NaNs included).  A strided batch (CSR C,
// dense A and B) computes every batch of C, A or B read once for all when it
// is one matrix.  Mixed precision is MUSPARSE_STATUS_NOT_SUPPORTED.
#pragma once

typedef enum { MUSPARSE_SDDMM_ALG_DEFAULT = 0 } musparseSDDMMAlg_t;

namespace musaport_sparse {

template <typename T>
inline musparseStatus_t sddmm(musparseOperation_t op_a, musparseOperation_t op_b, const void* alpha,
                              const musparseDnMatDescr& a, const musparseDnMatDescr& b, const void* beta,
                              const musparseSpMatDescr& c) {
  int64_t ar, ac, br, bc;
  op_shape(op_a, a.rows, a.cols, &ar, &ac);
  op_shape(op_b, b.rows, b.cols, &br, &bc);
  if (ar != c.rows || ac != br || bc != c.cols) return MUSPARSE_STATUS_INVALID_VALUE;
  const T al = *static_cast<const T*>(alpha), be = *static_cast<const T*>(beta);
  T* values = static_cast<T*>(c.values);
  for_each_nonzero(c, [&](int64_t i, int64_t j, int64_t e) {
    T dot = T(0);
    for (int64_t p = 0; p < ac; ++p) dot += dense_op_at<T>(a, op_a, i, p) * dense_op_at<T>(b, op_b, p, j);
    values[e] = al * dot + (be == T(0) ? T(0) : be * values[e]);
  });
  return MUSPARSE_STATUS_SUCCESS;
}

inline musparseStatus_t check_sddmm(musparseHandle_t handle, musparseConstDnMatDescr_t a, musparseConstDnMatDescr_t b,
                                    musparseConstSpMatDescr_t c) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (a == nullptr || b == nullptr || c == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  if (c->format != MUSPARSE_FORMAT_CSR && c->format != MUSPARSE_FORMAT_COO) return MUSPARSE_STATUS_NOT_SUPPORTED;
  return MUSPARSE_STATUS_SUCCESS;
}

}  // namespace musaport_sparse

// No workspace and no preprocessing: the products are formed when SDDMM runs.
inline musparseStatus_t musparseSDDMM_bufferSize(musparseHandle_t handle, musparseOperation_t, musparseOperation_t,
                                                 const void*, musparseConstDnMatDescr_t matA,
                                                 musparseConstDnMatDescr_t matB, const void*, musparseSpMatDescr_t matC,
                                                 musaDataType, musparseSDDMMAlg_t, size_t* bufferSize) {
  const musparseStatus_t status = musaport_sparse::check_sddmm(handle, matA, matB, matC);
  if (status != MUSPARSE_STATUS_SUCCESS) return status;
  if (bufferSize == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *bufferSize = 0;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseSDDMM_preprocess(musparseHandle_t handle, musparseOperation_t, musparseOperation_t,
                                                 const void*, musparseConstDnMatDescr_t matA,
                                                 musparseConstDnMatDescr_t matB, const void*, musparseSpMatDescr_t matC,
                                                 musaDataType, musparseSDDMMAlg_t, void*) {
  return musaport_sparse::check_sddmm(handle, matA, matB, matC);
}
inline musparseStatus_t musparseSDDMM(musparseHandle_t handle, musparseOperation_t opA, musparseOperation_t opB,
                                      const void* alpha, musparseConstDnMatDescr_t matA, musparseConstDnMatDescr_t matB,
                                      const void* beta, musparseSpMatDescr_t matC, musaDataType computeType,
                                      musparseSDDMMAlg_t, void*) {
  const musparseStatus_t status = musaport_sparse::check_sddmm(handle, matA, matB, matC);
  if (status != MUSPARSE_STATUS_SUCCESS) return status;
  if (alpha == nullptr || beta == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  if (matA->value_type != computeType || matB->value_type != computeType || matC->value_type != computeType)
    return MUSPARSE_STATUS_NOT_SUPPORTED;
  const int64_t batches = musaport_sparse::batch_of(matC->batch_count, matA->batch_count, matB->batch_count);
  if (batches < 0) return MUSPARSE_STATUS_INVALID_VALUE;
  return musaport_sparse::by_value_type(computeType, [&](auto zero) {
    using T = decltype(zero);
    for (int64_t i = 0; i < batches; ++i) {
      const musparseStatus_t s = musaport_sparse::sddmm<T>(
          opA, opB, alpha, musaport_sparse::dense_batch(*matA, matA->batch_count == 1 ? 0 : i),
          musaport_sparse::dense_batch(*matB, matB->batch_count == 1 ? 0 : i), beta,
          musaport_sparse::sparse_batch(*matC, i));
      if (s != MUSPARSE_STATUS_SUCCESS) return s;
    }
    return MUSPARSE_STATUS_SUCCESS;
  });
}
