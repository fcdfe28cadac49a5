// musaport shim: muBLAS (column-major, like the reference BLAS) for the CPU
// runtime.  Handles carry a stream and modes.  A product whose operands, C and
// D all have one type of float, double or their complex types runs on the
// BLAS the program links (sgemm_ ... zgemm_: the torch wheel's libtorch_cpu.so
// in the device build, the BLAS torch's CPU backend itself calls); every other
// routine, and every product when no BLAS is linked, runs one loop nest on the
// host, products accumulated in double (std::complex<double> for complex
// types) and rounded once to the output type.
#pragma once

#include <climits>
#include <complex>
#include <cstring>
#include <stddef.h>
#include <type_traits>

#include "library_types.h"
#include "muComplex.h"
#include "musa_bf16.h"
#include "musa_fp16.h"
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
  MUBLAS_STATUS_NOT_SUPPORTED = 15,
  MUBLAS_STATUS_LICENSE_ERROR = 16
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
  MUBLAS_TF32_TENSOR_OP_MATH = 3,
  MUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16
} mublasMath_t;

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

typedef enum { MUBLAS_GEMM_DEFAULT = -1, MUBLAS_GEMM_DEFAULT_TENSOR_OP = 99 } mublasGemmAlgo_t;

struct mublasContext {
  musaStream_t stream;
  mublasPointerMode_t pointer_mode;
  mublasMath_t math_mode;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
};
typedef struct mublasContext* mublasHandle_t;

inline mublasStatus_t mublasCreate(mublasHandle_t* handle) {
  if (handle == nullptr) return MUBLAS_STATUS_INVALID_VALUE;
  *handle = new mublasContext{nullptr, MUBLAS_POINTER_MODE_HOST, MUBLAS_DEFAULT_MATH, nullptr, 0};
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
inline mublasStatus_t mublasSetWorkspace(mublasHandle_t handle, void* workspace, size_t bytes) {
  if (handle == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  handle->workspace = workspace;  // the loops need none; kept for mublasGet* symmetry
  handle->workspace_bytes = bytes;
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

using scalar = std::complex<double>;

// The element types the loops read and write; anything else is MUBLAS_STATUS_NOT_SUPPORTED.
inline bool supported(musaDataType t) {
  switch (t) {
    case MUSA_R_16F: case MUSA_R_16BF: case MUSA_R_32F: case MUSA_R_64F: case MUSA_C_32F: case MUSA_C_64F:
      return true;
    default:
      return false;
  }
}

inline scalar load(const void* p, musaDataType t, long long i) {
  switch (t) {
    case MUSA_R_16F: return fp16::to_float(static_cast<const unsigned short*>(p)[i]);
    case MUSA_R_16BF: return bf16::to_float(static_cast<const unsigned short*>(p)[i]);
    case MUSA_R_32F: return static_cast<const float*>(p)[i];
    case MUSA_R_64F: return static_cast<const double*>(p)[i];
    case MUSA_C_32F: return scalar(static_cast<const float*>(p)[2 * i], static_cast<const float*>(p)[2 * i + 1]);
    case MUSA_C_64F: return scalar(static_cast<const double*>(p)[2 * i], static_cast<const double*>(p)[2 * i + 1]);
    default: return 0.0;
  }
}

inline void store(void* p, musaDataType t, long long i, scalar v) {
  switch (t) {
    case MUSA_R_16F: static_cast<unsigned short*>(p)[i] = fp16::from_float(static_cast<float>(v.real())); break;
    case MUSA_R_16BF: static_cast<unsigned short*>(p)[i] = bf16::from_float(static_cast<float>(v.real())); break;
    case MUSA_R_32F: static_cast<float*>(p)[i] = static_cast<float>(v.real()); break;
    case MUSA_R_64F: static_cast<double*>(p)[i] = v.real(); break;
    case MUSA_C_32F:
      static_cast<float*>(p)[2 * i] = static_cast<float>(v.real());
      static_cast<float*>(p)[2 * i + 1] = static_cast<float>(v.imag());
      break;
    case MUSA_C_64F:
      static_cast<double*>(p)[2 * i] = v.real();
      static_cast<double*>(p)[2 * i + 1] = v.imag();
      break;
    default: break;
  }
}

// op(M) of a column-major matrix (or, with inc, a strided vector as one column): element (r, c).
struct Operand {
  const void* p;
  musaDataType type;
  long long ld;
  mublasOperation_t op = MUBLAS_OP_N;
  long long inc = 1;

  scalar at(long long r, long long c) const {
    const scalar v = op == MUBLAS_OP_N ? load(p, type, r * inc + c * ld) : load(p, type, c * inc + r * ld);
    return op == MUBLAS_OP_C ? std::conj(v) : v;
  }
};

// What muBLASLt applies after the product: a bias per row, then ReLU or GELU (tanh form).
struct Epilogue {
  const void* bias = nullptr;
  musaDataType bias_type = MUSA_R_32F;
  bool relu = false;
  bool gelu = false;

  scalar apply(scalar x, long long row) const {
    if (bias != nullptr) x += load(bias, bias_type, row);
    double v = x.real();
    if (relu) v = v > 0.0 ? v : 0.0;
    if (gelu) v = 0.5 * v * (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
    return (relu || gelu) ? scalar(v) : x;
  }
};

// The Fortran ?gemm_ of the BLAS the program links, under names of the shim's own (asm labels), so a
// translation unit that declares sgemm_ its own way still compiles.  Weak: a program that links no BLAS
// (run mode's fixture kernels) gets null pointers and keeps the loop nest.
extern "C" {
void musaport_blas_sgemm(const char*, const char*, const int*, const int*, const int*, const float*, const float*,
                         const int*, const float*, const int*, const float*, float*, const int*)
    __asm__("sgemm_") __attribute__((weak));
void musaport_blas_dgemm(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
                         const int*, const double*, const int*, const double*, double*, const int*)
    __asm__("dgemm_") __attribute__((weak));
void musaport_blas_cgemm(const char*, const char*, const int*, const int*, const int*, const std::complex<float>*,
                         const std::complex<float>*, const int*, const std::complex<float>*, const int*,
                         const std::complex<float>*, std::complex<float>*, const int*)
    __asm__("cgemm_") __attribute__((weak));
void musaport_blas_zgemm(const char*, const char*, const int*, const int*, const int*, const std::complex<double>*,
                         const std::complex<double>*, const int*, const std::complex<double>*, const int*,
                         const std::complex<double>*, std::complex<double>*, const int*)
    __asm__("zgemm_") __attribute__((weak));
}

// The BLAS routine for one element type (null: none linked, or a type BLAS has no routine for).
template <class T>
using GemmFn = void (*)(const char*, const char*, const int*, const int*, const int*, const T*, const T*, const int*,
                        const T*, const int*, const T*, T*, const int*);
template <class T>
inline GemmFn<T> linked_gemm();
template <>
inline GemmFn<float> linked_gemm<float>() { return &musaport_blas_sgemm; }
template <>
inline GemmFn<double> linked_gemm<double>() { return &musaport_blas_dgemm; }
template <>
inline GemmFn<std::complex<float>> linked_gemm<std::complex<float>>() { return &musaport_blas_cgemm; }
template <>
inline GemmFn<std::complex<double>> linked_gemm<std::complex<double>>() { return &musaport_blas_zgemm; }

inline bool fits_int(long long v) { return v >= 0 && v <= INT_MAX; }

// D = alpha op(A) op(B) + beta C by the linked BLAS, when there is one and the arguments are what it
// accepts (leading dimensions BLAS would reject go to the loop nest, which reads them as given).  C is
// copied to D first when they differ.  Returns false when it did nothing.
template <class T>
inline bool blas_gemm(long long m, long long n, long long k, scalar alpha, const Operand& a, const Operand& b,
                      scalar beta, const void* c, long long ldc, void* d, long long ldd) {
  const GemmFn<T> fn = linked_gemm<T>();
  if (fn == nullptr || a.inc != 1 || b.inc != 1) return false;
  const long long a_rows = a.op == MUBLAS_OP_N ? m : k, b_rows = b.op == MUBLAS_OP_N ? k : n;
  if (!fits_int(m) || !fits_int(n) || !fits_int(k) || !fits_int(a.ld) || !fits_int(b.ld) || !fits_int(ldd) ||
      a.ld < (a_rows > 1 ? a_rows : 1) || b.ld < (b_rows > 1 ? b_rows : 1) || ldd < (m > 1 ? m : 1))
    return false;
  const bool accumulate = beta != 0.0;
  if (accumulate && c != d) {
    if (ldc < m) return false;
    for (long long j = 0; j < n; ++j)
      std::memmove(static_cast<T*>(d) + j * ldd, static_cast<const T*>(c) + j * ldc, sizeof(T) * m);
  }
  const char op_char[] = {'N', 'T', 'C'};
  const char ta = op_char[a.op], tb = op_char[b.op];
  const int im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(k);
  const int lda = static_cast<int>(a.ld), ldb = static_cast<int>(b.ld), ld = static_cast<int>(ldd);
  T al, be;
  if constexpr (std::is_floating_point_v<T>) {
    al = static_cast<T>(alpha.real());
    be = static_cast<T>(beta.real());
  } else {
    al = T(alpha);
    be = T(beta);
  }
  fn(&ta, &tb, &im, &in, &ik, &al, static_cast<const T*>(a.p), &lda, static_cast<const T*>(b.p), &ldb, &be,
     static_cast<T*>(d), &ld);
  return true;
}

// The linked BLAS for a product whose operands, C and D share one type it has a routine for.
inline bool gemm_by_blas(long long m, long long n, long long k, scalar alpha, const Operand& a, const Operand& b,
                         scalar beta, const void* c, musaDataType c_type, long long ldc, void* d,
                         musaDataType d_type, long long ldd) {
  if (a.type != b.type || a.type != c_type || a.type != d_type) return false;
  switch (a.type) {
    case MUSA_R_32F: return blas_gemm<float>(m, n, k, alpha, a, b, beta, c, ldc, d, ldd);
    case MUSA_R_64F: return blas_gemm<double>(m, n, k, alpha, a, b, beta, c, ldc, d, ldd);
    case MUSA_C_32F: return blas_gemm<std::complex<float>>(m, n, k, alpha, a, b, beta, c, ldc, d, ldd);
    case MUSA_C_64F: return blas_gemm<std::complex<double>>(m, n, k, alpha, a, b, beta, c, ldc, d, ldd);
    default: return false;
  }
}

// D = epilogue(alpha op(A) op(B) + beta C); op(A) is m x k, op(B) is k x n, C and D are m x n.
// beta == 0 ignores C, which may hold garbage (NaN included), as BLAS specifies.
inline mublasStatus_t gemm(long long m, long long n, long long k, scalar alpha, const Operand& a, const Operand& b,
                           scalar beta, const void* c, musaDataType c_type, long long ldc, void* d,
                           musaDataType d_type, long long ldd, const Epilogue* epilogue = nullptr) {
  if (m < 0 || n < 0 || k < 0) return MUBLAS_STATUS_INVALID_VALUE;
  if (!supported(a.type) || !supported(b.type) || !supported(c_type) || !supported(d_type))
    return MUBLAS_STATUS_NOT_SUPPORTED;
  if (m == 0 || n == 0) return MUBLAS_STATUS_SUCCESS;
  if (gemm_by_blas(m, n, k, alpha, a, b, beta, c, c_type, ldc, d, d_type, ldd)) {
    if (epilogue != nullptr && (epilogue->bias != nullptr || epilogue->relu || epilogue->gelu))
      for (long long j = 0; j < n; ++j)
        for (long long i = 0; i < m; ++i) store(d, d_type, i + j * ldd, epilogue->apply(load(d, d_type, i + j * ldd), i));
    return MUBLAS_STATUS_SUCCESS;
  }
  for (long long j = 0; j < n; ++j) {
    for (long long i = 0; i < m; ++i) {
      scalar sum = 0.0;
      for (long long p = 0; p < k; ++p) sum += a.at(i, p) * b.at(p, j);
      scalar out = alpha * sum;
      if (beta != 0.0) out += beta * load(c, c_type, i + j * ldc);
      if (epilogue != nullptr) out = epilogue->apply(out, i);
      store(d, d_type, i + j * ldd, out);
    }
  }
  return MUBLAS_STATUS_SUCCESS;
}

inline long long element_bytes(musaDataType t) {
  switch (t) {
    case MUSA_R_16F: case MUSA_R_16BF: return 2;
    case MUSA_R_32F: return 4;
    case MUSA_R_64F: case MUSA_C_32F: return 8;
    case MUSA_C_64F: return 16;
    default: return 1;
  }
}

// Batch strides count elements, as muBLAS's do.
inline const void* offset(const void* p, musaDataType t, long long elements) {
  return static_cast<const char*>(p) + elements * element_bytes(t);
}
inline void* offset_mut(void* p, musaDataType t, long long elements) {
  return static_cast<char*>(p) + elements * element_bytes(t);
}

// The scalar type alpha and beta point to: float for half, bfloat16 and float products, as muBLAS takes them.
inline musaDataType scale_type_of(musaDataType t) {
  return t == MUSA_R_16F || t == MUSA_R_16BF ? MUSA_R_32F : t;
}

inline mublasStatus_t gemm_ex(mublasHandle_t h, mublasOperation_t ta, mublasOperation_t tb, long long m, long long n,
                              long long k, const void* alpha, const void* a, musaDataType at, long long lda,
                              long long stride_a, const void* b, musaDataType bt, long long ldb, long long stride_b,
                              const void* beta, void* c, musaDataType ct, long long ldc, long long stride_c,
                              long long batches, musaDataType scale) {
  if (h == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  if (alpha == nullptr || beta == nullptr || batches < 0 || ldc < (m > 1 ? m : 1)) return MUBLAS_STATUS_INVALID_VALUE;
  const scalar al = load(alpha, scale, 0), be = load(beta, scale, 0);
  for (long long i = 0; i < batches; ++i) {
    const Operand A{offset(a, at, i * stride_a), at, lda, ta}, B{offset(b, bt, i * stride_b), bt, ldb, tb};
    void* C = offset_mut(c, ct, i * stride_c);
    const mublasStatus_t s = gemm(m, n, k, al, A, B, be, C, ct, ldc, C, ct, ldc);
    if (s != MUBLAS_STATUS_SUCCESS) return s;
  }
  return MUBLAS_STATUS_SUCCESS;
}

}  // namespace blas
}  // namespace musaport

// The typed entry points.  Scalars are read through their pointers in either pointer mode: device
// memory is host memory here.
#define MUSAPORT_BLAS_GEMM(fn, T, type)                                                                           \
  inline mublasStatus_t fn(mublasHandle_t h, mublasOperation_t ta, mublasOperation_t tb, int m, int n, int k,       \
                           const T* alpha, const T* a, int lda, const T* b, int ldb, const T* beta, T* c, int ldc) { \
    return musaport::blas::gemm_ex(h, ta, tb, m, n, k, alpha, a, type, lda, 0, b, type, ldb, 0, beta, c, type, ldc, \
                                   0, 1, type);                                                                   \
  }                                                                                                               \
  inline mublasStatus_t fn##StridedBatched(mublasHandle_t h, mublasOperation_t ta, mublasOperation_t tb, int m,     \
                                           int n, int k, const T* alpha, const T* a, int lda, long long sa,        \
                                           const T* b, int ldb, long long sb, const T* beta, T* c, int ldc,        \
                                           long long sc, int batches) {                                            \
    return musaport::blas::gemm_ex(h, ta, tb, m, n, k, alpha, a, type, lda, sa, b, type, ldb, sb, beta, c, type,    \
                                   ldc, sc, batches, type);                                                       \
  }
MUSAPORT_BLAS_GEMM(mublasSgemm, float, MUSA_R_32F)
MUSAPORT_BLAS_GEMM(mublasDgemm, double, MUSA_R_64F)
MUSAPORT_BLAS_GEMM(mublasCgemm, muComplex, MUSA_C_32F)
MUSAPORT_BLAS_GEMM(mublasZgemm, muDoubleComplex, MUSA_C_64F)
#undef MUSAPORT_BLAS_GEMM

// GemmEx and its batched form take the compute type as mublasComputeType_t or, as in older
// releases, as the data type of the scalars; both overloads exist, as in muBLAS's C++ header.
inline musaDataType musaport_blas_scale(mublasComputeType_t compute, musaDataType c_type) {
  switch (compute) {
    case MUBLAS_COMPUTE_64F: case MUBLAS_COMPUTE_64F_PEDANTIC:
      return c_type == MUSA_C_64F ? MUSA_C_64F : MUSA_R_64F;
    default:
      return c_type == MUSA_C_32F ? MUSA_C_32F : musaport::blas::scale_type_of(c_type);
  }
}
inline mublasStatus_t mublasGemmEx(mublasHandle_t h, mublasOperation_t ta, mublasOperation_t tb, int m, int n, int k,
                                   const void* alpha, const void* a, musaDataType at, int lda, const void* b,
                                   musaDataType bt, int ldb, const void* beta, void* c, musaDataType ct, int ldc,
                                   mublasComputeType_t compute, mublasGemmAlgo_t) {
  return musaport::blas::gemm_ex(h, ta, tb, m, n, k, alpha, a, at, lda, 0, b, bt, ldb, 0, beta, c, ct, ldc, 0, 1,
                                 musaport_blas_scale(compute, ct));
}
inline mublasStatus_t mublasGemmEx(mublasHandle_t h, mublasOperation_t ta, mublasOperation_t tb, int m, int n, int k,
                                   const void* alpha, const void* a, musaDataType at, int lda, const void* b,
                                   musaDataType bt, int ldb, const void* beta, void* c, musaDataType ct, int ldc,
                                   musaDataType scale, mublasGemmAlgo_t) {
  return musaport::blas::gemm_ex(h, ta, tb, m, n, k, alpha, a, at, lda, 0, b, bt, ldb, 0, beta, c, ct, ldc, 0, 1,
                                 scale);
}
inline mublasStatus_t mublasGemmStridedBatchedEx(mublasHandle_t h, mublasOperation_t ta, mublasOperation_t tb, int m,
                                                 int n, int k, const void* alpha, const void* a, musaDataType at,
                                                 int lda, long long sa, const void* b, musaDataType bt, int ldb,
                                                 long long sb, const void* beta, void* c, musaDataType ct, int ldc,
                                                 long long sc, int batches, mublasComputeType_t compute,
                                                 mublasGemmAlgo_t) {
  return musaport::blas::gemm_ex(h, ta, tb, m, n, k, alpha, a, at, lda, sa, b, bt, ldb, sb, beta, c, ct, ldc, sc,
                                 batches, musaport_blas_scale(compute, ct));
}
inline mublasStatus_t mublasGemmStridedBatchedEx(mublasHandle_t h, mublasOperation_t ta, mublasOperation_t tb, int m,
                                                 int n, int k, const void* alpha, const void* a, musaDataType at,
                                                 int lda, long long sa, const void* b, musaDataType bt, int ldb,
                                                 long long sb, const void* beta, void* c, musaDataType ct, int ldc,
                                                 long long sc, int batches, musaDataType scale, mublasGemmAlgo_t) {
  return musaport::blas::gemm_ex(h, ta, tb, m, n, k, alpha, a, at, lda, sa, b, bt, ldb, sb, beta, c, ct, ldc, sc,
                                 batches, scale);
}
// SgemmEx: float scalars and compute, any supported storage type.
inline mublasStatus_t mublasSgemmEx(mublasHandle_t h, mublasOperation_t ta, mublasOperation_t tb, int m, int n, int k,
                                    const float* alpha, const void* a, musaDataType at, int lda, const void* b,
                                    musaDataType bt, int ldb, const float* beta, void* c, musaDataType ct, int ldc) {
  return musaport::blas::gemm_ex(h, ta, tb, m, n, k, alpha, a, at, lda, 0, b, bt, ldb, 0, beta, c, ct, ldc, 0, 1,
                                 MUSA_R_32F);
}

// y = alpha op(A) x + beta y: a gemm whose B is x as one column and whose C is y.
inline mublasStatus_t musaport_blas_gemv(mublasHandle_t h, mublasOperation_t trans, int m, int n, const void* alpha,
                                         const void* a, int lda, const void* x, int incx, const void* beta, void* y,
                                         int incy, musaDataType type) {
  using namespace musaport::blas;
  if (h == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || incx == 0 || incy == 0 || alpha == nullptr || beta == nullptr)
    return MUBLAS_STATUS_INVALID_VALUE;
  const long long rows = trans == MUBLAS_OP_N ? m : n, cols = trans == MUBLAS_OP_N ? n : m;
  // Negative increments walk the vector from its end, as BLAS does.
  const void* x0 = incx > 0 ? x : offset(x, type, -(cols - 1) * incx);
  void* y0 = incy > 0 ? y : offset_mut(y, type, -(rows - 1) * incy);
  const Operand A{a, type, lda, trans}, X{x0, type, 0, MUBLAS_OP_N, incx};
  const scalar al = load(alpha, type, 0), be = load(beta, type, 0);
  for (long long i = 0; i < rows; ++i) {  // y as a column with stride incy: one element per row
    scalar sum = 0.0;
    for (long long j = 0; j < cols; ++j) sum += A.at(i, j) * X.at(j, 0);
    scalar out = al * sum;
    if (be != 0.0) out += be * load(y0, type, i * incy);
    store(y0, type, i * incy, out);
  }
  return MUBLAS_STATUS_SUCCESS;
}
#define MUSAPORT_BLAS_GEMV(fn, T, type)                                                                         \
  inline mublasStatus_t fn(mublasHandle_t h, mublasOperation_t trans, int m, int n, const T* alpha, const T* a, \
                           int lda, const T* x, int incx, const T* beta, T* y, int incy) {                    \
    return musaport_blas_gemv(h, trans, m, n, alpha, a, lda, x, incx, beta, y, incy, type);                    \
  }
MUSAPORT_BLAS_GEMV(mublasSgemv, float, MUSA_R_32F)
MUSAPORT_BLAS_GEMV(mublasDgemv, double, MUSA_R_64F)
MUSAPORT_BLAS_GEMV(mublasCgemv, muComplex, MUSA_C_32F)
MUSAPORT_BLAS_GEMV(mublasZgemv, muDoubleComplex, MUSA_C_64F)
#undef MUSAPORT_BLAS_GEMV

// result = sum x_i y_i (conj(x_i) y_i for the c forms), accumulated in double, rounded once.
inline mublasStatus_t musaport_blas_dot(mublasHandle_t h, int n, const void* x, musaDataType xt, int incx,
                                        const void* y, musaDataType yt, int incy, void* result, musaDataType rt,
                                        bool conjugate) {
  using namespace musaport::blas;
  if (h == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  if (result == nullptr) return MUBLAS_STATUS_INVALID_VALUE;
  if (!supported(xt) || !supported(yt) || !supported(rt)) return MUBLAS_STATUS_NOT_SUPPORTED;
  const long long ix = incx < 0 ? -(n - 1LL) * incx : 0, iy = incy < 0 ? -(n - 1LL) * incy : 0;
  scalar sum = 0.0;
  for (long long i = 0; i < n; ++i) {
    const scalar a = load(x, xt, ix + i * incx);
    sum += (conjugate ? std::conj(a) : a) * load(y, yt, iy + i * incy);
  }
  store(result, rt, 0, sum);
  return MUBLAS_STATUS_SUCCESS;
}
inline mublasStatus_t mublasDotEx(mublasHandle_t h, int n, const void* x, musaDataType xt, int incx, const void* y,
                                  musaDataType yt, int incy, void* result, musaDataType rt, musaDataType) {
  return musaport_blas_dot(h, n, x, xt, incx, y, yt, incy, result, rt, false);
}
inline mublasStatus_t mublasDotcEx(mublasHandle_t h, int n, const void* x, musaDataType xt, int incx, const void* y,
                                   musaDataType yt, int incy, void* result, musaDataType rt, musaDataType) {
  return musaport_blas_dot(h, n, x, xt, incx, y, yt, incy, result, rt, true);
}
#define MUSAPORT_BLAS_DOT(fn, T, type, conjugate)                                                             \
  inline mublasStatus_t fn(mublasHandle_t h, int n, const T* x, int incx, const T* y, int incy, T* result) { \
    return musaport_blas_dot(h, n, x, type, incx, y, type, incy, result, type, conjugate);                  \
  }
MUSAPORT_BLAS_DOT(mublasSdot, float, MUSA_R_32F, false)
MUSAPORT_BLAS_DOT(mublasDdot, double, MUSA_R_64F, false)
MUSAPORT_BLAS_DOT(mublasCdotu, muComplex, MUSA_C_32F, false)
MUSAPORT_BLAS_DOT(mublasCdotc, muComplex, MUSA_C_32F, true)
MUSAPORT_BLAS_DOT(mublasZdotu, muDoubleComplex, MUSA_C_64F, false)
MUSAPORT_BLAS_DOT(mublasZdotc, muDoubleComplex, MUSA_C_64F, true)
#undef MUSAPORT_BLAS_DOT

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

#include "musaport_shim/mublas_solve.h"  // muBLAS LAPACK-like routines (batched LU/QR/gels, trsm)
