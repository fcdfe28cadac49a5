// musaport shim: muSPARSE on the CPU, the part that the sparse kernels a
// device builds call: the handle, stream, pointer mode and matrix descriptors; the
// generic API's COO and CSR descriptors, dense descriptors and SpMM (computed
// here, for float, double and their complex types); and the legacy csrgemm2
// API (computed here, float and double).  Memory is the host's, so every
// routine runs where it is called, in order with the stream's kernels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "library_types.h"
#include "musa_runtime_api.h"

typedef enum {
  MUSPARSE_STATUS_SUCCESS = 0,
  MUSPARSE_STATUS_NOT_INITIALIZED = 1,
  MUSPARSE_STATUS_ALLOC_FAILED = 2,
  MUSPARSE_STATUS_INVALID_VALUE = 3,
  MUSPARSE_STATUS_ARCH_MISMATCH = 4,
  MUSPARSE_STATUS_MAPPING_ERROR = 5,
  MUSPARSE_STATUS_EXECUTION_FAILED = 6,
  MUSPARSE_STATUS_INTERNAL_ERROR = 7,
  MUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED = 8,
  MUSPARSE_STATUS_ZERO_PIVOT = 9,
  MUSPARSE_STATUS_NOT_SUPPORTED = 10,
  MUSPARSE_STATUS_INSUFFICIENT_RESOURCES = 11
} musparseStatus_t;

typedef enum { MUSPARSE_INDEX_BASE_ZERO = 0, MUSPARSE_INDEX_BASE_ONE = 1 } musparseIndexBase_t;
typedef enum {
  MUSPARSE_MATRIX_TYPE_GENERAL = 0,
  MUSPARSE_MATRIX_TYPE_SYMMETRIC = 1,
  MUSPARSE_MATRIX_TYPE_HERMITIAN = 2,
  MUSPARSE_MATRIX_TYPE_TRIANGULAR = 3
} musparseMatrixType_t;
typedef enum {
  MUSPARSE_OPERATION_NON_TRANSPOSE = 0,
  MUSPARSE_OPERATION_TRANSPOSE = 1,
  MUSPARSE_OPERATION_CONJUGATE_TRANSPOSE = 2
} musparseOperation_t;

typedef enum { MUSPARSE_POINTER_MODE_HOST = 0, MUSPARSE_POINTER_MODE_DEVICE = 1 } musparsePointerMode_t;

struct musparseContext {
  musaStream_t stream;
  musparsePointerMode_t pointer_mode;
};
struct musparseMatDescr {
  musparseMatrixType_t type;
  musparseIndexBase_t base;
};
typedef struct musparseContext* musparseHandle_t;
typedef struct musparseMatDescr* musparseMatDescr_t;

inline musparseStatus_t musparseCreate(musparseHandle_t* handle) {
  if (handle == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *handle = new musparseContext{nullptr, MUSPARSE_POINTER_MODE_HOST};
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseDestroy(musparseHandle_t handle) {
  delete handle;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseSetStream(musparseHandle_t handle, musaStream_t stream) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseGetStream(musparseHandle_t handle, musaStream_t* stream) {
  if (handle == nullptr || stream == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *stream = handle->stream;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseCreateMatDescr(musparseMatDescr_t* descr) {
  if (descr == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *descr = new musparseMatDescr{MUSPARSE_MATRIX_TYPE_GENERAL, MUSPARSE_INDEX_BASE_ZERO};
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseDestroyMatDescr(musparseMatDescr_t descr) {
  delete descr;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseSetMatType(musparseMatDescr_t descr, musparseMatrixType_t type) {
  if (descr == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  descr->type = type;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseSetMatIndexBase(musparseMatDescr_t descr, musparseIndexBase_t base) {
  if (descr == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  descr->base = base;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseIndexBase_t musparseGetMatIndexBase(const musparseMatDescr_t descr) { return descr->base; }
inline musparseMatrixType_t musparseGetMatType(const musparseMatDescr_t descr) { return descr->type; }
inline musparseStatus_t musparseSetPointerMode(musparseHandle_t handle, musparsePointerMode_t mode) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  handle->pointer_mode = mode;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseGetPointerMode(musparseHandle_t handle, musparsePointerMode_t* mode) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (mode == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *mode = handle->pointer_mode;
  return MUSPARSE_STATUS_SUCCESS;
}

// ---------------------------------------------------------------- csrgemm2
// C = alpha * A * B + beta * D on CSR matrices, in three steps: the buffer
// size, the row pointers and nnz of C, then C's values and column indices.
// The info type keeps its toolkit name (`csrgemm2Info_t` has no CUDA part to
// rename).  Real and double precision.
struct csrgemm2Info {
  int state;
};
typedef struct csrgemm2Info* csrgemm2Info_t;

inline musparseStatus_t musparseCreateCsrgemm2Info(csrgemm2Info_t* info) {
  if (info == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *info = new csrgemm2Info{0};
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseDestroyCsrgemm2Info(csrgemm2Info_t info) {
  delete info;
  return MUSPARSE_STATUS_SUCCESS;
}

#include "musaport_shim/sparse_csrgemm2.h"

// ---------------------------------------------------------------- generic API
// Sparse (COO, CSR) and dense matrix descriptors and SpMM: C = alpha * op(A) * op(B) + beta * C.
typedef enum { MUSPARSE_INDEX_16U = 1, MUSPARSE_INDEX_32I = 2, MUSPARSE_INDEX_64I = 3 } musparseIndexType_t;
typedef enum { MUSPARSE_ORDER_COL = 1, MUSPARSE_ORDER_ROW = 2 } musparseOrder_t;
typedef enum {
  MUSPARSE_SPMM_ALG_DEFAULT = 0,
  MUSPARSE_SPMM_COO_ALG1 = 1,
  MUSPARSE_SPMM_COO_ALG2 = 2,
  MUSPARSE_SPMM_COO_ALG3 = 3,
  MUSPARSE_SPMM_CSR_ALG1 = 4,
  MUSPARSE_SPMM_COO_ALG4 = 5,
  MUSPARSE_SPMM_CSR_ALG2 = 6
} musparseSpMMAlg_t;

#include "musaport_shim/sparse_generic.h"
