// musaport shim: <mublasLt.h>, muBLASLt's handle, descriptors and matmul on
// the CPU runtime: D = epilogue(alpha op(A) op(B) + beta C) per batch, run by
// the same loop nest as muBLAS's gemm (mublas.h).  The opaque descriptor
// types are complete here, as in muBLASLt's header, so that C++ owners can
// hold them by value or by unique_ptr.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "library_types.h"
#include "mublas.h"

typedef struct mublasLtContext {
  int unused;
}* mublasLtHandle_t;

typedef struct mublasLtMatmulDescOpaque_st {
  mublasComputeType_t compute;
  musaDataType scale;
  int64_t transa, transb;
  int64_t epilogue;
  const void* bias;
  int64_t bias_type;  // -1: the type of D
  const void* scales[3];  // A, B, D scale pointers: fp8 scaling, which the loops do not do
} mublasLtMatmulDescOpaque_t;
typedef mublasLtMatmulDescOpaque_t* mublasLtMatmulDesc_t;

typedef struct mublasLtMatrixLayoutOpaque_st {
  musaDataType type;
  uint64_t rows, cols;
  int64_t ld;
  int64_t order;  // 0: column-major, the only order the loops read
  int64_t batch_count;
  int64_t batch_stride;
} mublasLtMatrixLayoutOpaque_t;
typedef mublasLtMatrixLayoutOpaque_t* mublasLtMatrixLayout_t;

typedef struct mublasLtMatmulPreferenceOpaque_st {
  uint64_t max_workspace_bytes;
} mublasLtMatmulPreferenceOpaque_t;
typedef mublasLtMatmulPreferenceOpaque_t* mublasLtMatmulPreference_t;

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

inline mublasStatus_t mublasLtCreate(mublasLtHandle_t* handle) {
  if (handle == nullptr) return MUBLAS_STATUS_INVALID_VALUE;
  *handle = new mublasLtContext{0};
  return MUBLAS_STATUS_SUCCESS;
}
inline mublasStatus_t mublasLtDestroy(mublasLtHandle_t handle) {
  delete handle;
  return MUBLAS_STATUS_SUCCESS;
}
inline size_t mublasLtGetVersion(void) { return MUSART_VERSION; }

inline mublasStatus_t mublasLtMatmulDescCreate(mublasLtMatmulDesc_t* desc, mublasComputeType_t compute_type,
                                               musaDataType scale_type) {
  if (desc == nullptr) return MUBLAS_STATUS_INVALID_VALUE;
  *desc = new mublasLtMatmulDescOpaque_t{compute_type, scale_type, MUBLAS_OP_N, MUBLAS_OP_N,
                                         MUBLASLT_EPILOGUE_DEFAULT, nullptr, -1, {nullptr, nullptr, nullptr}};
  return MUBLAS_STATUS_SUCCESS;
}
inline mublasStatus_t mublasLtMatmulDescDestroy(mublasLtMatmulDesc_t desc) {
  delete desc;
  return MUBLAS_STATUS_SUCCESS;
}

namespace musaport {
namespace blaslt {

// An attribute value of 1, 2, 4 or 8 bytes as a signed integer (enums are 4 bytes, counts 4 or 8).
inline bool read_int(const void* buf, size_t size, int64_t* out) {
  if (buf == nullptr) return false;
  switch (size) {
    case 1: { int8_t v; memcpy(&v, buf, 1); *out = v; return true; }
    case 2: { int16_t v; memcpy(&v, buf, 2); *out = v; return true; }
    case 4: { int32_t v; memcpy(&v, buf, 4); *out = v; return true; }
    case 8: { memcpy(out, buf, 8); return true; }
    default: return false;
  }
}

inline bool read_pointer(const void* buf, size_t size, const void** out) {
  if (buf == nullptr || size != sizeof(void*)) return false;
  memcpy(out, buf, sizeof(void*));
  return true;
}

}  // namespace blaslt
}  // namespace musaport

inline mublasStatus_t mublasLtMatmulDescSetAttribute(mublasLtMatmulDesc_t desc, mublasLtMatmulDescAttributes_t attr,
                                                     const void* buf, size_t size) {
  using namespace musaport::blaslt;
  if (desc == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  int64_t v = 0;
  bool ok = true;
  switch (attr) {
    case MUBLASLT_MATMUL_DESC_TRANSA: ok = read_int(buf, size, &desc->transa); break;
    case MUBLASLT_MATMUL_DESC_TRANSB: ok = read_int(buf, size, &desc->transb); break;
    case MUBLASLT_MATMUL_DESC_EPILOGUE: ok = read_int(buf, size, &desc->epilogue); break;
    case MUBLASLT_MATMUL_DESC_BIAS_POINTER: ok = read_pointer(buf, size, &desc->bias); break;
    case MUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE: ok = read_int(buf, size, &desc->bias_type); break;
    case MUBLASLT_MATMUL_DESC_A_SCALE_POINTER: ok = read_pointer(buf, size, &desc->scales[0]); break;
    case MUBLASLT_MATMUL_DESC_B_SCALE_POINTER: ok = read_pointer(buf, size, &desc->scales[1]); break;
    case MUBLASLT_MATMUL_DESC_D_SCALE_POINTER: ok = read_pointer(buf, size, &desc->scales[2]); break;
    case MUBLASLT_MATMUL_DESC_COMPUTE_TYPE:
      ok = read_int(buf, size, &v);
      desc->compute = static_cast<mublasComputeType_t>(v);
      break;
    case MUBLASLT_MATMUL_DESC_SCALE_TYPE:
      ok = read_int(buf, size, &v);
      desc->scale = static_cast<musaDataType>(v);
      break;
    default:  // pointer mode, fill mode, fast accumulation, SM count...: no effect on the loops
      ok = buf != nullptr;
      break;
  }
  return ok ? MUBLAS_STATUS_SUCCESS : MUBLAS_STATUS_INVALID_VALUE;
}

inline mublasStatus_t mublasLtMatrixLayoutCreate(mublasLtMatrixLayout_t* layout, musaDataType type, uint64_t rows,
                                                 uint64_t cols, int64_t ld) {
  if (layout == nullptr) return MUBLAS_STATUS_INVALID_VALUE;
  *layout = new mublasLtMatrixLayoutOpaque_t{type, rows, cols, ld, 0, 1, 0};
  return MUBLAS_STATUS_SUCCESS;
}
inline mublasStatus_t mublasLtMatrixLayoutDestroy(mublasLtMatrixLayout_t layout) {
  delete layout;
  return MUBLAS_STATUS_SUCCESS;
}
inline mublasStatus_t mublasLtMatrixLayoutSetAttribute(mublasLtMatrixLayout_t layout,
                                                       mublasLtMatrixLayoutAttribute_t attr, const void* buf,
                                                       size_t size) {
  using musaport::blaslt::read_int;
  if (layout == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  int64_t v = 0;
  if (!read_int(buf, size, &v)) return MUBLAS_STATUS_INVALID_VALUE;
  switch (attr) {
    case MUBLASLT_MATRIX_LAYOUT_TYPE: layout->type = static_cast<musaDataType>(v); break;
    case MUBLASLT_MATRIX_LAYOUT_ORDER: layout->order = v; break;
    case MUBLASLT_MATRIX_LAYOUT_ROWS: layout->rows = static_cast<uint64_t>(v); break;
    case MUBLASLT_MATRIX_LAYOUT_COLS: layout->cols = static_cast<uint64_t>(v); break;
    case MUBLASLT_MATRIX_LAYOUT_LD: layout->ld = v; break;
    case MUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: layout->batch_count = v; break;
    case MUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: layout->batch_stride = v; break;
    default: return MUBLAS_STATUS_INVALID_VALUE;
  }
  return MUBLAS_STATUS_SUCCESS;
}

inline mublasStatus_t mublasLtMatmulPreferenceCreate(mublasLtMatmulPreference_t* pref) {
  if (pref == nullptr) return MUBLAS_STATUS_INVALID_VALUE;
  *pref = new mublasLtMatmulPreferenceOpaque_t{0};
  return MUBLAS_STATUS_SUCCESS;
}
inline mublasStatus_t mublasLtMatmulPreferenceDestroy(mublasLtMatmulPreference_t pref) {
  delete pref;
  return MUBLAS_STATUS_SUCCESS;
}
inline mublasStatus_t mublasLtMatmulPreferenceSetAttribute(mublasLtMatmulPreference_t pref,
                                                           mublasLtMatmulPreferenceAttributes_t attr, const void* buf,
                                                           size_t size) {
  if (pref == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  int64_t v = 0;
  if (!musaport::blaslt::read_int(buf, size, &v)) return MUBLAS_STATUS_INVALID_VALUE;
  if (attr == MUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES) pref->max_workspace_bytes = static_cast<uint64_t>(v);
  return MUBLAS_STATUS_SUCCESS;
}

// One algorithm, which needs no workspace: the loop nest.
inline mublasStatus_t mublasLtMatmulAlgoGetHeuristic(mublasLtHandle_t handle, mublasLtMatmulDesc_t desc,
                                                     mublasLtMatrixLayout_t, mublasLtMatrixLayout_t,
                                                     mublasLtMatrixLayout_t, mublasLtMatrixLayout_t,
                                                     mublasLtMatmulPreference_t, int requested,
                                                     mublasLtMatmulHeuristicResult_t results[], int* returned) {
  if (handle == nullptr || desc == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  if (results == nullptr || returned == nullptr || requested < 1) return MUBLAS_STATUS_INVALID_VALUE;
  memset(&results[0], 0, sizeof(results[0]));
  results[0].state = MUBLAS_STATUS_SUCCESS;
  results[0].wavesCount = 1.0f;
  *returned = 1;
  return MUBLAS_STATUS_SUCCESS;
}

inline mublasStatus_t mublasLtMatmul(mublasLtHandle_t handle, mublasLtMatmulDesc_t desc, const void* alpha,
                                     const void* A, mublasLtMatrixLayout_t Adesc, const void* B,
                                     mublasLtMatrixLayout_t Bdesc, const void* beta, const void* C,
                                     mublasLtMatrixLayout_t Cdesc, void* D, mublasLtMatrixLayout_t Ddesc,
                                     const mublasLtMatmulAlgo_t*, void*, size_t, musaStream_t) {
  using namespace musaport::blas;
  if (handle == nullptr || desc == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  if (Adesc == nullptr || Bdesc == nullptr || Cdesc == nullptr || Ddesc == nullptr || alpha == nullptr ||
      beta == nullptr)
    return MUBLAS_STATUS_INVALID_VALUE;
  if (desc->scales[0] || desc->scales[1] || desc->scales[2]) return MUBLAS_STATUS_NOT_SUPPORTED;  // fp8 scaling
  if (Adesc->order || Bdesc->order || Cdesc->order || Ddesc->order) return MUBLAS_STATUS_NOT_SUPPORTED;
  const mublasOperation_t ta = static_cast<mublasOperation_t>(desc->transa);
  const mublasOperation_t tb = static_cast<mublasOperation_t>(desc->transb);
  const long long m = static_cast<long long>(Ddesc->rows), n = static_cast<long long>(Ddesc->cols);
  const long long k = static_cast<long long>(ta == MUBLAS_OP_N ? Adesc->cols : Adesc->rows);
  Epilogue epilogue;
  switch (desc->epilogue) {
    case MUBLASLT_EPILOGUE_DEFAULT: break;
    case MUBLASLT_EPILOGUE_RELU: epilogue.relu = true; break;
    case MUBLASLT_EPILOGUE_GELU: epilogue.gelu = true; break;
    case MUBLASLT_EPILOGUE_BIAS: epilogue.bias = desc->bias; break;
    case MUBLASLT_EPILOGUE_RELU_BIAS: epilogue.bias = desc->bias; epilogue.relu = true; break;
    case MUBLASLT_EPILOGUE_GELU_BIAS: epilogue.bias = desc->bias; epilogue.gelu = true; break;
    default: return MUBLAS_STATUS_NOT_SUPPORTED;
  }
  if ((desc->epilogue & MUBLASLT_EPILOGUE_BIAS) && desc->bias == nullptr) return MUBLAS_STATUS_INVALID_VALUE;
  epilogue.bias_type = desc->bias_type < 0 ? Ddesc->type : static_cast<musaDataType>(desc->bias_type);
  const scalar al = load(alpha, desc->scale, 0), be = load(beta, desc->scale, 0);
  const long long batches = Ddesc->batch_count > 0 ? Ddesc->batch_count : 1;
  for (long long i = 0; i < batches; ++i) {
    const Operand a{offset(A, Adesc->type, i * Adesc->batch_stride), Adesc->type, Adesc->ld, ta};
    const Operand b{offset(B, Bdesc->type, i * Bdesc->batch_stride), Bdesc->type, Bdesc->ld, tb};
    const mublasStatus_t s = gemm(m, n, k, al, a, b, be, offset(C, Cdesc->type, i * Cdesc->batch_stride), Cdesc->type,
                                  Cdesc->ld, offset_mut(D, Ddesc->type, i * Ddesc->batch_stride), Ddesc->type,
                                  Ddesc->ld, &epilogue);
    if (s != MUBLAS_STATUS_SUCCESS) return s;
  }
  return MUBLAS_STATUS_SUCCESS;
}
