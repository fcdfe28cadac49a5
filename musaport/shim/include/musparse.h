// musaport shim: muSPARSE on the CPU, what PyTorch's sparse wrappers and the
// sparse kernels a device builds call: the handle, stream, pointer mode and
// matrix descriptors (with fill mode and diagonal type); the generic API's
// COO and CSR descriptors, dense matrices and vectors (strided batches too),
// SpMM, SpMV, SpSV, SpSM, SDDMM and SpGEMM; the legacy csrgemm2, csrgeam2,
// csrmm2, conversions and sorts, and the BSR routines (bsrmm, bsrmv, bsrsv2,
// bsrsm2).  Values are float, double and their complex types, computed in
// their own type; mixed precision (half or bfloat16 values with a float
// compute type), other value types and the operations the toolkit does not
// offer (a transposed A in SpGEMM, bsrmm and bsrmv, say) answer
// MUSPARSE_STATUS_NOT_SUPPORTED.  Memory is the host's, so every routine runs
// where it is called, in order with the stream's kernels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "library_types.h"
#include "muComplex.h"
#include "musa_runtime_api.h"

// The cuSPARSE of the toolkit the shim stands for (MUSART_VERSION 12000), as
// major * 1000 + minor * 100: PyTorch takes its generic-API paths (SpMV,
// SpSV, SpSM, SDDMM, SpGEMM) and const descriptors from 11400, 11600 and
// 12000 on, and leaves out its own musparseGetErrorString from 10100 on.
#define MUSPARSE_VERSION 12000

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
typedef enum { MUSPARSE_FILL_MODE_LOWER = 0, MUSPARSE_FILL_MODE_UPPER = 1 } musparseFillMode_t;
typedef enum { MUSPARSE_DIAG_TYPE_NON_UNIT = 0, MUSPARSE_DIAG_TYPE_UNIT = 1 } musparseDiagType_t;
typedef enum { MUSPARSE_DIRECTION_ROW = 0, MUSPARSE_DIRECTION_COLUMN = 1 } musparseDirection_t;
typedef enum { MUSPARSE_SOLVE_POLICY_NO_LEVEL = 0, MUSPARSE_SOLVE_POLICY_USE_LEVEL = 1 } musparseSolvePolicy_t;

inline const char* musparseGetErrorString(musparseStatus_t status) {
  switch (status) {
    case MUSPARSE_STATUS_SUCCESS: return "success";
    case MUSPARSE_STATUS_NOT_INITIALIZED: return "initialization error";
    case MUSPARSE_STATUS_ALLOC_FAILED: return "out of memory";
    case MUSPARSE_STATUS_INVALID_VALUE: return "invalid value";
    case MUSPARSE_STATUS_ARCH_MISMATCH: return "architecture mismatch";
    case MUSPARSE_STATUS_MAPPING_ERROR: return "mapping error";
    case MUSPARSE_STATUS_EXECUTION_FAILED: return "execution failed";
    case MUSPARSE_STATUS_INTERNAL_ERROR: return "internal operation failed";
    case MUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "matrix type not supported";
    case MUSPARSE_STATUS_ZERO_PIVOT: return "zero pivot";
    case MUSPARSE_STATUS_NOT_SUPPORTED: return "operation not supported";
    case MUSPARSE_STATUS_INSUFFICIENT_RESOURCES: return "insufficient resources";
    default: return "unknown error";
  }
}

struct musparseContext {
  musaStream_t stream;
  musparsePointerMode_t pointer_mode;
};
struct musparseMatDescr {
  musparseMatrixType_t type;
  musparseIndexBase_t base;
  musparseFillMode_t fill_mode;
  musparseDiagType_t diag_type;
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
  *descr = new musparseMatDescr{MUSPARSE_MATRIX_TYPE_GENERAL, MUSPARSE_INDEX_BASE_ZERO, MUSPARSE_FILL_MODE_LOWER,
                                MUSPARSE_DIAG_TYPE_NON_UNIT};
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
inline musparseStatus_t musparseSetMatFillMode(musparseMatDescr_t descr, musparseFillMode_t fillMode) {
  if (descr == nullptr || (fillMode != MUSPARSE_FILL_MODE_LOWER && fillMode != MUSPARSE_FILL_MODE_UPPER))
    return MUSPARSE_STATUS_INVALID_VALUE;
  descr->fill_mode = fillMode;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseSetMatDiagType(musparseMatDescr_t descr, musparseDiagType_t diagType) {
  if (descr == nullptr || (diagType != MUSPARSE_DIAG_TYPE_NON_UNIT && diagType != MUSPARSE_DIAG_TYPE_UNIT))
    return MUSPARSE_STATUS_INVALID_VALUE;
  descr->diag_type = diagType;
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
// Sparse (COO, CSR) and dense matrix descriptors and SpMM: C = alpha * op(A) * op(B) + beta * C; dense
// vectors and SpMV; the triangular solves SpSV and SpSM; SDDMM; SpGEMM.
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
#include "musaport_shim/sparse_vector.h"
#include "musaport_shim/sparse_solve.h"
#include "musaport_shim/sparse_sddmm.h"
#include "musaport_shim/sparse_spgemm.h"

// ---------------------------------------------------------------- legacy API
// Index conversions and sorts; csrgeam2 (C = alpha * A + beta * B); csrmm2 (the dense product the generic
// SpMM replaced); the BSR routines: bsrmm, bsrmv and the triangular solves bsrsv2 and bsrsm2.
#include "musaport_shim/sparse_convert.h"
#include "musaport_shim/sparse_csrgeam2.h"
#include "musaport_shim/sparse_csrmm2.h"
#include "musaport_shim/sparse_bsr.h"
