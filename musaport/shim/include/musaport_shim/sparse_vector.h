// musaport shim: muSPARSE's dense vectors and SpMV on the CPU (included by musparse.h).
//
// y = alpha * op(A) * x + beta * y for a COO or CSR matrix A: the vectors are
// read as one-column dense matrices and the product is SpMM's, so it walks
// the nonzeros in storage order (deterministic) in the values' own type.
// Mixed precision (half or bfloat16 values with a float compute type) is
// MUSPARSE_STATUS_NOT_SUPPORTED.
#pragma once

typedef enum {
  MUSPARSE_SPMV_ALG_DEFAULT = 0,
  MUSPARSE_SPMV_COO_ALG1 = 1,
  MUSPARSE_SPMV_CSR_ALG1 = 2,
  MUSPARSE_SPMV_CSR_ALG2 = 3,
  MUSPARSE_SPMV_COO_ALG2 = 4
} musparseSpMVAlg_t;

struct musparseDnVecDescr {
  int64_t size;
  void* values;
  musaDataType value_type;
};
typedef struct musparseDnVecDescr* musparseDnVecDescr_t;
typedef const struct musparseDnVecDescr* musparseConstDnVecDescr_t;

namespace musaport_sparse {

// A vector as the n x 1 column-major matrix SpMM and the solves read.
inline musparseDnMatDescr vector_as_matrix(const musparseDnVecDescr& v) {
  return musparseDnMatDescr{v.size, 1, v.size > 0 ? v.size : 1, v.values, v.value_type, MUSPARSE_ORDER_COL};
}

}  // namespace musaport_sparse

inline musparseStatus_t musparseCreateDnVec(musparseDnVecDescr_t* dnVecDescr, int64_t size, void* values,
                                            musaDataType valueType) {
  if (dnVecDescr == nullptr || size < 0) return MUSPARSE_STATUS_INVALID_VALUE;
  *dnVecDescr = new musparseDnVecDescr{size, values, valueType};
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseDestroyDnVec(musparseConstDnVecDescr_t dnVecDescr) {
  delete dnVecDescr;
  return MUSPARSE_STATUS_SUCCESS;
}

// SpMV needs no workspace: y is scaled and accumulated in place.
inline musparseStatus_t musparseSpMV_bufferSize(musparseHandle_t handle, musparseOperation_t, const void*,
                                                musparseConstSpMatDescr_t matA, musparseConstDnVecDescr_t vecX,
                                                const void*, musparseDnVecDescr_t vecY, musaDataType,
                                                musparseSpMVAlg_t, size_t* bufferSize) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (matA == nullptr || vecX == nullptr || vecY == nullptr || bufferSize == nullptr)
    return MUSPARSE_STATUS_INVALID_VALUE;
  *bufferSize = 0;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseSpMV(musparseHandle_t handle, musparseOperation_t opA, const void* alpha,
                                     musparseConstSpMatDescr_t matA, musparseConstDnVecDescr_t vecX,
                                     const void* beta, musparseDnVecDescr_t vecY, musaDataType computeType,
                                     musparseSpMVAlg_t, void*) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (matA == nullptr || vecX == nullptr || vecY == nullptr || alpha == nullptr || beta == nullptr)
    return MUSPARSE_STATUS_INVALID_VALUE;
  if (matA->value_type != computeType || vecX->value_type != computeType || vecY->value_type != computeType)
    return MUSPARSE_STATUS_NOT_SUPPORTED;
  const musparseDnMatDescr x = musaport_sparse::vector_as_matrix(*vecX), y = musaport_sparse::vector_as_matrix(*vecY);
  return musaport_sparse::by_value_type(computeType, [&](auto zero) {
    using T = decltype(zero);
    return musaport_sparse::spmm<T>(opA, MUSPARSE_OPERATION_NON_TRANSPOSE, alpha, *matA, x, beta, y);
  });
}
