// musaport shim: muSPARSE handle and matrix-descriptor management (enough to
// compile code that sets up sparse calls; no sparse kernels), the pointer
// mode, the generic API's descriptors and SpMM (declared), and the legacy
// csrgemm2 API (declared; its info object managed).
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
// rename).  Real and double precision; the routines are declared only.
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

musparseStatus_t musparseScsrgemm2_bufferSizeExt(
    musparseHandle_t handle, int m, int n, int k, const float* alpha,
    const musparseMatDescr_t descrA, int nnzA, const int* csrRowPtrA, const int* csrColIndA,
    const musparseMatDescr_t descrB, int nnzB, const int* csrRowPtrB, const int* csrColIndB, const float* beta,
    const musparseMatDescr_t descrD, int nnzD, const int* csrRowPtrD, const int* csrColIndD,
    csrgemm2Info_t info, size_t* pBufferSizeInBytes);
musparseStatus_t musparseDcsrgemm2_bufferSizeExt(
    musparseHandle_t handle, int m, int n, int k, const double* alpha,
    const musparseMatDescr_t descrA, int nnzA, const int* csrRowPtrA, const int* csrColIndA,
    const musparseMatDescr_t descrB, int nnzB, const int* csrRowPtrB, const int* csrColIndB, const double* beta,
    const musparseMatDescr_t descrD, int nnzD, const int* csrRowPtrD, const int* csrColIndD,
    csrgemm2Info_t info, size_t* pBufferSizeInBytes);
musparseStatus_t musparseXcsrgemm2Nnz(
    musparseHandle_t handle, int m, int n, int k,
    const musparseMatDescr_t descrA, int nnzA, const int* csrRowPtrA, const int* csrColIndA,
    const musparseMatDescr_t descrB, int nnzB, const int* csrRowPtrB, const int* csrColIndB,
    const musparseMatDescr_t descrD, int nnzD, const int* csrRowPtrD, const int* csrColIndD,
    const musparseMatDescr_t descrC, int* csrRowPtrC, int* nnzTotalDevHostPtr,
    const csrgemm2Info_t info, void* pBuffer);
musparseStatus_t musparseScsrgemm2(
    musparseHandle_t handle, int m, int n, int k, const float* alpha,
    const musparseMatDescr_t descrA, int nnzA, const float* csrValA, const int* csrRowPtrA, const int* csrColIndA,
    const musparseMatDescr_t descrB, int nnzB, const float* csrValB, const int* csrRowPtrB, const int* csrColIndB,
    const float* beta,
    const musparseMatDescr_t descrD, int nnzD, const float* csrValD, const int* csrRowPtrD, const int* csrColIndD,
    const musparseMatDescr_t descrC, float* csrValC, const int* csrRowPtrC, int* csrColIndC,
    const csrgemm2Info_t info, void* pBuffer);
musparseStatus_t musparseDcsrgemm2(
    musparseHandle_t handle, int m, int n, int k, const double* alpha,
    const musparseMatDescr_t descrA, int nnzA, const double* csrValA, const int* csrRowPtrA, const int* csrColIndA,
    const musparseMatDescr_t descrB, int nnzB, const double* csrValB, const int* csrRowPtrB, const int* csrColIndB,
    const double* beta,
    const musparseMatDescr_t descrD, int nnzD, const double* csrValD, const int* csrRowPtrD, const int* csrColIndD,
    const musparseMatDescr_t descrC, double* csrValC, const int* csrRowPtrC, int* csrColIndC,
    const csrgemm2Info_t info, void* pBuffer);

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

struct musparseSpMatDescr;
struct musparseDnMatDescr;
typedef struct musparseSpMatDescr* musparseSpMatDescr_t;
typedef struct musparseDnMatDescr* musparseDnMatDescr_t;

musparseStatus_t musparseCreateCoo(musparseSpMatDescr_t* spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
                                   void* cooRowInd, void* cooColInd, void* cooValues, musparseIndexType_t cooIdxType,
                                   musparseIndexBase_t idxBase, musaDataType valueType);
musparseStatus_t musparseCreateCsr(musparseSpMatDescr_t* spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
                                   void* csrRowOffsets, void* csrColInd, void* csrValues,
                                   musparseIndexType_t csrRowOffsetsType, musparseIndexType_t csrColIndType,
                                   musparseIndexBase_t idxBase, musaDataType valueType);
musparseStatus_t musparseDestroySpMat(musparseSpMatDescr_t spMatDescr);
musparseStatus_t musparseCreateDnMat(musparseDnMatDescr_t* dnMatDescr, int64_t rows, int64_t cols, int64_t ld,
                                     void* values, musaDataType valueType, musparseOrder_t order);
musparseStatus_t musparseDestroyDnMat(musparseDnMatDescr_t dnMatDescr);
musparseStatus_t musparseSpMM_bufferSize(musparseHandle_t handle, musparseOperation_t opA, musparseOperation_t opB,
                                         const void* alpha, musparseSpMatDescr_t matA, musparseDnMatDescr_t matB,
                                         const void* beta, musparseDnMatDescr_t matC, musaDataType computeType,
                                         musparseSpMMAlg_t alg, size_t* bufferSize);
musparseStatus_t musparseSpMM(musparseHandle_t handle, musparseOperation_t opA, musparseOperation_t opB,
                              const void* alpha, musparseSpMatDescr_t matA, musparseDnMatDescr_t matB, const void* beta,
                              musparseDnMatDescr_t matC, musaDataType computeType, musparseSpMMAlg_t alg,
                              void* externalBuffer);
