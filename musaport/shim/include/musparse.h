// musaport shim: muSPARSE handle and matrix-descriptor management (enough to
// compile code that sets up sparse calls; no sparse kernels).
#pragma once

#include "musa_runtime_api.h"

typedef enum {
  MUSPARSE_STATUS_SUCCESS = 0,
  MUSPARSE_STATUS_NOT_INITIALIZED = 1,
  MUSPARSE_STATUS_ALLOC_FAILED = 2,
  MUSPARSE_STATUS_INVALID_VALUE = 3,
  MUSPARSE_STATUS_ARCH_MISMATCH = 4,
  MUSPARSE_STATUS_EXECUTION_FAILED = 6,
  MUSPARSE_STATUS_INTERNAL_ERROR = 7,
  MUSPARSE_STATUS_NOT_SUPPORTED = 10
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

struct musparseContext {
  musaStream_t stream;
};
struct musparseMatDescr {
  musparseMatrixType_t type;
  musparseIndexBase_t base;
};
typedef struct musparseContext* musparseHandle_t;
typedef struct musparseMatDescr* musparseMatDescr_t;

inline musparseStatus_t musparseCreate(musparseHandle_t* handle) {
  if (handle == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *handle = new musparseContext{nullptr};
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
