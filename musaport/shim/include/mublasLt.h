// musaport shim: <mublasLt.h>, muBLASLt's handle, descriptors and the
// matmul entry points (declared: enough to compile setup code, not to run it).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "library_types.h"
#include "mublas.h"

typedef struct mublasLtContext* mublasLtHandle_t;
typedef struct mublasLtMatmulDescOpaque_st* mublasLtMatmulDesc_t;
typedef struct mublasLtMatrixLayoutOpaque_st* mublasLtMatrixLayout_t;
typedef struct mublasLtMatmulPreferenceOpaque_st* mublasLtMatmulPreference_t;

typedef struct {
  uint64_t data[8];
} mublasLtMatmulAlgo_t;

typedef struct {
  mublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  mublasStatus_t state;
  float wavesCount;
  int reserved[4];
} mublasLtMatmulHeuristicResult_t;

typedef enum {
  MUBLAS_COMPUTE_16F = 64,
  MUBLAS_COMPUTE_16F_PEDANTIC = 65,
  MUBLAS_COMPUTE_32F = 68,
  MUBLAS_COMPUTE_32F_PEDANTIC = 69,
  MUBLAS_COMPUTE_32F_FAST_16F = 74,
  MUBLAS_COMPUTE_32F_FAST_16BF = 75,
  MUBLAS_COMPUTE_32F_FAST_TF32 = 77,
  MUBLAS_COMPUTE_64F = 70,
  MUBLAS_COMPUTE_64F_PEDANTIC = 71,
  MUBLAS_COMPUTE_32I = 72,
  MUBLAS_COMPUTE_32I_PEDANTIC = 73
} mublasComputeType_t;

typedef enum {
  MUBLASLT_MATMUL_DESC_COMPUTE_TYPE = 0,
  MUBLASLT_MATMUL_DESC_SCALE_TYPE = 1,
  MUBLASLT_MATMUL_DESC_POINTER_MODE = 2,
  MUBLASLT_MATMUL_DESC_TRANSA = 3,
  MUBLASLT_MATMUL_DESC_TRANSB = 4,
  MUBLASLT_MATMUL_DESC_TRANSC = 5,
  MUBLASLT_MATMUL_DESC_FILL_MODE = 6,
  MUBLASLT_MATMUL_DESC_EPILOGUE = 7,
  MUBLASLT_MATMUL_DESC_BIAS_POINTER = 8,
  MUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE = 10,
  MUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER = 11,
  MUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD = 12,
  MUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE = 13,
  MUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE = 14,
  MUBLASLT_MATMUL_DESC_SM_COUNT_TARGET = 15,
  MUBLASLT_MATMUL_DESC_A_SCALE_POINTER = 17,
  MUBLASLT_MATMUL_DESC_B_SCALE_POINTER = 18,
  MUBLASLT_MATMUL_DESC_C_SCALE_POINTER = 19,
  MUBLASLT_MATMUL_DESC_D_SCALE_POINTER = 20,
  MUBLASLT_MATMUL_DESC_AMAX_D_POINTER = 21,
  MUBLASLT_MATMUL_DESC_FAST_ACCUM = 25,
  MUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 26
} mublasLtMatmulDescAttributes_t;

typedef enum {
  MUBLASLT_EPILOGUE_DEFAULT = 1,
  MUBLASLT_EPILOGUE_RELU = 2,
  MUBLASLT_EPILOGUE_BIAS = 4,
  MUBLASLT_EPILOGUE_RELU_BIAS = 6,
  MUBLASLT_EPILOGUE_GELU = 32,
  MUBLASLT_EPILOGUE_GELU_BIAS = 36
} mublasLtEpilogue_t;

typedef enum {
  MUBLASLT_MATRIX_LAYOUT_TYPE = 0,
  MUBLASLT_MATRIX_LAYOUT_ORDER = 1,
  MUBLASLT_MATRIX_LAYOUT_ROWS = 2,
  MUBLASLT_MATRIX_LAYOUT_COLS = 3,
  MUBLASLT_MATRIX_LAYOUT_LD = 4,
  MUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5,
  MUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6
} mublasLtMatrixLayoutAttribute_t;

typedef enum {
  MUBLASLT_MATMUL_PREF_SEARCH_MODE = 0,
  MUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,
  MUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5,
  MUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES = 6,
  MUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES = 7,
  MUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES = 8
} mublasLtMatmulPreferenceAttributes_t;

mublasStatus_t mublasLtCreate(mublasLtHandle_t* handle);
mublasStatus_t mublasLtDestroy(mublasLtHandle_t handle);
size_t mublasLtGetVersion(void);
mublasStatus_t mublasLtMatmulDescCreate(mublasLtMatmulDesc_t* desc, mublasComputeType_t compute_type,
                                        musaDataType scale_type);
mublasStatus_t mublasLtMatmulDescDestroy(mublasLtMatmulDesc_t desc);
mublasStatus_t mublasLtMatmulDescSetAttribute(mublasLtMatmulDesc_t desc, mublasLtMatmulDescAttributes_t attr,
                                              const void* buf, size_t size);
mublasStatus_t mublasLtMatrixLayoutCreate(mublasLtMatrixLayout_t* layout, musaDataType type, uint64_t rows,
                                          uint64_t cols, int64_t ld);
mublasStatus_t mublasLtMatrixLayoutDestroy(mublasLtMatrixLayout_t layout);
mublasStatus_t mublasLtMatrixLayoutSetAttribute(mublasLtMatrixLayout_t layout, mublasLtMatrixLayoutAttribute_t attr,
                                                const void* buf, size_t size);
mublasStatus_t mublasLtMatmulPreferenceCreate(mublasLtMatmulPreference_t* pref);
mublasStatus_t mublasLtMatmulPreferenceDestroy(mublasLtMatmulPreference_t pref);
mublasStatus_t mublasLtMatmulPreferenceSetAttribute(mublasLtMatmulPreference_t pref,
                                                    mublasLtMatmulPreferenceAttributes_t attr, const void* buf,
                                                    size_t size);
mublasStatus_t mublasLtMatmulAlgoGetHeuristic(mublasLtHandle_t handle, mublasLtMatmulDesc_t desc,
                                              mublasLtMatrixLayout_t a, mublasLtMatrixLayout_t b,
                                              mublasLtMatrixLayout_t c, mublasLtMatrixLayout_t d,
                                              mublasLtMatmulPreference_t pref, int requested,
                                              mublasLtMatmulHeuristicResult_t results[], int* returned);
mublasStatus_t mublasLtMatmul(mublasLtHandle_t handle, mublasLtMatmulDesc_t desc, const void* alpha, const void* A,
                              mublasLtMatrixLayout_t Adesc, const void* B, mublasLtMatrixLayout_t Bdesc,
                              const void* beta, const void* C, mublasLtMatrixLayout_t Cdesc, void* D,
                              mublasLtMatrixLayout_t Ddesc, const mublasLtMatmulAlgo_t* algo, void* workspace,
                              size_t workspace_size, musaStream_t stream);
