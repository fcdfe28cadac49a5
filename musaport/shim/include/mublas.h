// musaport shim: a small muBLAS (column-major, like the reference BLAS).
// Handles carry a stream and modes; the routines run naive loops on the host,
// which is exactly what a correctness check needs.
#pragma once

#include "musa_runtime_api.h"

typedef enum {
  MUBLAS_STATUS_SUCCESS = 0,
  MUBLAS_STATUS_NOT_INITIALIZED = 1,
  MUBLAS_STATUS_ALLOC_FAILED = 3,
  MUBLAS_STATUS_INVALID_VALUE = 7,
  MUBLAS_STATUS_ARCH_MISMATCH = 8,
  MUBLAS_STATUS_MAPPING_ERROR = 11,
  MUBLAS_STATUS_EXECUTION_FAILED = 13,
  MUBLAS_STATUS_INTERNAL_ERROR = 14,
  MUBLAS_STATUS_NOT_SUPPORTED = 15
} mublasStatus_t;

typedef enum { MUBLAS_OP_N = 0, MUBLAS_OP_T = 1, MUBLAS_OP_C = 2 } mublasOperation_t;
typedef enum { MUBLAS_FILL_MODE_LOWER = 0, MUBLAS_FILL_MODE_UPPER = 1 } mublasFillMode_t;
typedef enum { MUBLAS_DIAG_NON_UNIT = 0, MUBLAS_DIAG_UNIT = 1 } mublasDiagType_t;
typedef enum { MUBLAS_SIDE_LEFT = 0, MUBLAS_SIDE_RIGHT = 1 } mublasSideMode_t;
typedef enum { MUBLAS_POINTER_MODE_HOST = 0, MUBLAS_POINTER_MODE_DEVICE = 1 } mublasPointerMode_t;
typedef enum {
  MUBLAS_DEFAULT_MATH = 0,
  MUBLAS_TENSOR_OP_MATH = 1,
  MUBLAS_PEDANTIC_MATH = 2,
  MUBLAS_TF32_TENSOR_OP_MATH = 3
} mublasMath_t;

struct mublasContext {
  musaStream_t stream;
  mublasPointerMode_t pointer_mode;
  mublasMath_t math_mode;
};
typedef struct mublasContext* mublasHandle_t;

inline mublasStatus_t mublasCreate(mublasHandle_t* handle) {
  if (handle == nullptr) return MUBLAS_STATUS_INVALID_VALUE;
  *handle = new mublasContext{nullptr, MUBLAS_POINTER_MODE_HOST, MUBLAS_DEFAULT_MATH};
  return MUBLAS_STATUS_SUCCESS;
}
inline mublasStatus_t mublasDestroy(mublasHandle_t handle) {
  if (handle == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  delete handle;
  return MUBLAS_STATUS_SUCCESS;
}
inline mublasStatus_t mublasGetVersion(mublasHandle_t, int* version) {
  if (version == nullptr) return MUBLAS_STATUS_INVALID_VALUE;
  *version = MUSART_VERSION;
  return MUBLAS_STATUS_SUCCESS;
}
inline mublasStatus_t mublasSetStream(mublasHandle_t handle, musaStream_t stream) {
  if (handle == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return MUBLAS_STATUS_SUCCESS;
}
inline mublasStatus_t mublasGetStream(mublasHandle_t handle, musaStream_t* stream) {
  if (handle == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  if (stream == nullptr) return MUBLAS_STATUS_INVALID_VALUE;
  *stream = handle->stream;
  return MUBLAS_STATUS_SUCCESS;
}
inline mublasStatus_t mublasSetPointerMode(mublasHandle_t handle, mublasPointerMode_t mode) {
  if (handle == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  handle->pointer_mode = mode;  // host and device pointers are both readable here
  return MUBLAS_STATUS_SUCCESS;
}
inline mublasStatus_t mublasGetPointerMode(mublasHandle_t handle, mublasPointerMode_t* mode) {
  if (handle == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  *mode = handle->pointer_mode;
  return MUBLAS_STATUS_SUCCESS;
}
inline mublasStatus_t mublasSetMathMode(mublasHandle_t handle, mublasMath_t mode) {
  if (handle == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  handle->math_mode = mode;
  return MUBLAS_STATUS_SUCCESS;
}
inline mublasStatus_t mublasGetMathMode(mublasHandle_t handle, mublasMath_t* mode) {
  if (handle == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  *mode = handle->math_mode;
  return MUBLAS_STATUS_SUCCESS;
}
inline const char* mublasGetStatusString(mublasStatus_t status) {
  switch (status) {
    case MUBLAS_STATUS_SUCCESS: return "MUBLAS_STATUS_SUCCESS";
    case MUBLAS_STATUS_NOT_INITIALIZED: return "MUBLAS_STATUS_NOT_INITIALIZED";
    case MUBLAS_STATUS_ALLOC_FAILED: return "MUBLAS_STATUS_ALLOC_FAILED";
    case MUBLAS_STATUS_INVALID_VALUE: return "MUBLAS_STATUS_INVALID_VALUE";
    case MUBLAS_STATUS_NOT_SUPPORTED: return "MUBLAS_STATUS_NOT_SUPPORTED";
    default: return "MUBLAS_STATUS_INTERNAL_ERROR";
  }
}

namespace musaport {
namespace blas {

// op(M)[r][c] for a column-major matrix with leading dimension ld.
template <class T>
inline T element(const T* m, int ld, mublasOperation_t op, int r, int c) {
  return op == MUBLAS_OP_N ? m[r + static_cast<long long>(c) * ld] : m[c + static_cast<long long>(r) * ld];
}

// C = alpha op(A) op(B) + beta C; op(A) is m x k, op(B) is k x n.
template <class T>
inline mublasStatus_t gemm(mublasHandle_t handle, mublasOperation_t ta, mublasOperation_t tb, int m, int n, int k,
                           const T* alpha, const T* a, int lda, const T* b, int ldb, const T* beta, T* c, int ldc) {
  if (handle == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || k < 0 || alpha == nullptr || beta == nullptr || ldc < (m > 1 ? m : 1))
    return MUBLAS_STATUS_INVALID_VALUE;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      T sum = T(0);
      for (int p = 0; p < k; ++p) sum += element(a, lda, ta, i, p) * element(b, ldb, tb, p, j);
      T& out = c[i + static_cast<long long>(j) * ldc];
      out = *alpha * sum + (*beta == T(0) ? T(0) : *beta * out);  // beta == 0: C may be garbage
    }
  }
  return MUBLAS_STATUS_SUCCESS;
}

template <class T>
inline mublasStatus_t gemm_strided_batched(mublasHandle_t handle, mublasOperation_t ta, mublasOperation_t tb, int m,
                                           int n, int k, const T* alpha, const T* a, int lda, long long stride_a,
                                           const T* b, int ldb, long long stride_b, const T* beta, T* c, int ldc,
                                           long long stride_c, int batches) {
  for (int i = 0; i < batches; ++i) {
    const mublasStatus_t s = gemm(handle, ta, tb, m, n, k, alpha, a + i * stride_a, lda, b + i * stride_b, ldb, beta,
                                  c + i * stride_c, ldc);
    if (s != MUBLAS_STATUS_SUCCESS) return s;
  }
  return MUBLAS_STATUS_SUCCESS;
}

}  // namespace blas
}  // namespace musaport

inline mublasStatus_t mublasSgemm(mublasHandle_t h, mublasOperation_t ta, mublasOperation_t tb, int m, int n, int k,
                                  const float* alpha, const float* a, int lda, const float* b, int ldb,
                                  const float* beta, float* c, int ldc) {
  return musaport::blas::gemm(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline mublasStatus_t mublasDgemm(mublasHandle_t h, mublasOperation_t ta, mublasOperation_t tb, int m, int n, int k,
                                  const double* alpha, const double* a, int lda, const double* b, int ldb,
                                  const double* beta, double* c, int ldc) {
  return musaport::blas::gemm(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline mublasStatus_t mublasSgemmStridedBatched(mublasHandle_t h, mublasOperation_t ta, mublasOperation_t tb, int m,
                                                int n, int k, const float* alpha, const float* a, int lda,
                                                long long sa, const float* b, int ldb, long long sb,
                                                const float* beta, float* c, int ldc, long long sc, int batches) {
  return musaport::blas::gemm_strided_batched(h, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc,
                                              batches);
}
inline mublasStatus_t mublasDgemmStridedBatched(mublasHandle_t h, mublasOperation_t ta, mublasOperation_t tb, int m,
                                                int n, int k, const double* alpha, const double* a, int lda,
                                                long long sa, const double* b, int ldb, long long sb,
                                                const double* beta, double* c, int ldc, long long sc, int batches) {
  return musaport::blas::gemm_strided_batched(h, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc,
                                              batches);
}
inline mublasStatus_t mublasSgemv(mublasHandle_t h, mublasOperation_t trans, int m, int n, const float* alpha,
                                  const float* a, int lda, const float* x, int incx, const float* beta, float* y,
                                  int incy) {
  if (h == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  const int rows = trans == MUBLAS_OP_N ? m : n, cols = trans == MUBLAS_OP_N ? n : m;
  for (int i = 0; i < rows; ++i) {
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j) sum += musaport::blas::element(a, lda, trans, i, j) * x[j * incx];
    y[i * incy] = *alpha * sum + (*beta == 0.0f ? 0.0f : *beta * y[i * incy]);
  }
  return MUBLAS_STATUS_SUCCESS;
}
inline mublasStatus_t mublasSaxpy(mublasHandle_t h, int n, const float* alpha, const float* x, int incx, float* y,
                                  int incy) {
  if (h == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  for (int i = 0; i < n; ++i) y[i * incy] += *alpha * x[i * incx];
  return MUBLAS_STATUS_SUCCESS;
}
inline mublasStatus_t mublasSscal(mublasHandle_t h, int n, const float* alpha, float* x, int incx) {
  if (h == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  for (int i = 0; i < n; ++i) x[i * incx] *= *alpha;
  return MUBLAS_STATUS_SUCCESS;
}
inline mublasStatus_t mublasSdot(mublasHandle_t h, int n, const float* x, int incx, const float* y, int incy,
                                 float* result) {
  if (h == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += static_cast<double>(x[i * incx]) * y[i * incy];
  *result = static_cast<float>(sum);
  return MUBLAS_STATUS_SUCCESS;
}

#include "musaport_shim/mublas_solve.h"  // muBLAS LAPACK-like routines (batched LU/QR/gels, trsm)
