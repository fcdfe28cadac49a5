// musaport shim: muSOLVER's dense API (musolverDn*), computed on the host by
// the LAPACK routines of musaport_shim/lapack.h.
//
// Matrices are column-major, as in the toolkit.  Device memory is host memory,
// so devInfo, ipiv and the arrays are read and written in place; streams are
// synchronous, so every routine has finished when it returns.  The workspaces
// the caller allocates (from the *_bufferSize answers) are not used: each
// routine sizes and allocates LAPACK's own workspace.  The Jacobi ("j") and
// approximate ("a") SVD and eigen solvers run LAPACK's divide-and-conquer
// routines (gesdd, syevd/heevd): singular values descending and eigenvalues
// ascending, as the toolkit documents them, and the same numbers as PyTorch's
// CPU backend.  A form this shim cannot compute returns
// MUSOLVER_STATUS_NOT_SUPPORTED.
#pragma once

#include <cstdint>
#include <complex>
#include <vector>

#include "musa_runtime_api.h"
#include "musolver_common.h"
#include "muComplex.h"
#include "mublas.h"
#include "musaport_shim/lapack.h"

struct musolverDnContext {
  musaStream_t stream;
};
typedef struct musolverDnContext* musolverDnHandle_t;

// The 64-bit API's options (only the default algorithm exists here).
struct musolverDnParams {
  int algorithm;
};
typedef struct musolverDnParams* musolverDnParams_t;

// Options of the Jacobi solvers: kept, since the answers do not depend on them.
struct syevjInfo {
  double tolerance;
  int max_sweeps;
  int sort_eig;
};
typedef struct syevjInfo* syevjInfo_t;
struct gesvdjInfo {
  double tolerance;
  int max_sweeps;
  int sort_eig;
};
typedef struct gesvdjInfo* gesvdjInfo_t;

inline musolverStatus_t musolverDnCreate(musolverDnHandle_t* handle) {
  if (handle == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  *handle = new musolverDnContext{nullptr};
  return MUSOLVER_STATUS_SUCCESS;
}
inline musolverStatus_t musolverDnDestroy(musolverDnHandle_t handle) {
  delete handle;
  return MUSOLVER_STATUS_SUCCESS;
}
inline musolverStatus_t musolverDnSetStream(musolverDnHandle_t handle, musaStream_t stream) {
  if (handle == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return MUSOLVER_STATUS_SUCCESS;
}
inline musolverStatus_t musolverDnGetStream(musolverDnHandle_t handle, musaStream_t* stream) {
  if (handle == nullptr || stream == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  *stream = handle->stream;
  return MUSOLVER_STATUS_SUCCESS;
}

inline musolverStatus_t musolverDnCreateParams(musolverDnParams_t* params) {
  if (params == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  *params = new musolverDnParams{0};
  return MUSOLVER_STATUS_SUCCESS;
}
inline musolverStatus_t musolverDnDestroyParams(musolverDnParams_t params) {
  delete params;
  return MUSOLVER_STATUS_SUCCESS;
}

inline musolverStatus_t musolverDnCreateSyevjInfo(syevjInfo_t* info) {
  if (info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  *info = new syevjInfo{1e-8, 100, 1};
  return MUSOLVER_STATUS_SUCCESS;
}
inline musolverStatus_t musolverDnDestroySyevjInfo(syevjInfo_t info) {
  delete info;
  return MUSOLVER_STATUS_SUCCESS;
}
inline musolverStatus_t musolverDnXsyevjSetTolerance(syevjInfo_t info, double tolerance) {
  if (info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  info->tolerance = tolerance;
  return MUSOLVER_STATUS_SUCCESS;
}
inline musolverStatus_t musolverDnXsyevjSetMaxSweeps(syevjInfo_t info, int max_sweeps) {
  if (info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  info->max_sweeps = max_sweeps;
  return MUSOLVER_STATUS_SUCCESS;
}
// The eigenvalues come out ascending whatever sort_eig says (LAPACK sorts them).
inline musolverStatus_t musolverDnXsyevjSetSortEig(syevjInfo_t info, int sort_eig) {
  if (info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  info->sort_eig = sort_eig;
  return MUSOLVER_STATUS_SUCCESS;
}

inline musolverStatus_t musolverDnCreateGesvdjInfo(gesvdjInfo_t* info) {
  if (info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  *info = new gesvdjInfo{1e-8, 100, 1};
  return MUSOLVER_STATUS_SUCCESS;
}
inline musolverStatus_t musolverDnDestroyGesvdjInfo(gesvdjInfo_t info) {
  delete info;
  return MUSOLVER_STATUS_SUCCESS;
}
inline musolverStatus_t musolverDnXgesvdjSetTolerance(gesvdjInfo_t info, double tolerance) {
  if (info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  info->tolerance = tolerance;
  return MUSOLVER_STATUS_SUCCESS;
}
inline musolverStatus_t musolverDnXgesvdjSetMaxSweeps(gesvdjInfo_t info, int max_sweeps) {
  if (info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  info->max_sweeps = max_sweeps;
  return MUSOLVER_STATUS_SUCCESS;
}
// Singular values come out descending whatever sort_eig says (LAPACK sorts them).
inline musolverStatus_t musolverDnXgesvdjSetSortEig(gesvdjInfo_t info, int sort_eig) {
  if (info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  info->sort_eig = sort_eig;
  return MUSOLVER_STATUS_SUCCESS;
}

// The Jacobi solvers' convergence report (sweeps, residual) has no meaning
// for the LAPACK routines that answer here.
inline musolverStatus_t musolverDnXsyevjGetSweeps(musolverDnHandle_t, syevjInfo_t, int*) {
  return MUSOLVER_STATUS_NOT_SUPPORTED;
}
inline musolverStatus_t musolverDnXsyevjGetResidual(musolverDnHandle_t, syevjInfo_t, double*) {
  return MUSOLVER_STATUS_NOT_SUPPORTED;
}
inline musolverStatus_t musolverDnXgesvdjGetSweeps(musolverDnHandle_t, gesvdjInfo_t, int*) {
  return MUSOLVER_STATUS_NOT_SUPPORTED;
}
inline musolverStatus_t musolverDnXgesvdjGetResidual(musolverDnHandle_t, gesvdjInfo_t, double*) {
  return MUSOLVER_STATUS_NOT_SUPPORTED;
}

namespace musaport {
namespace solver {

// The C++ element type LAPACK takes for a muSOLVER element type.
template <class M> struct Elem { using type = M; };
template <> struct Elem<muComplex> { using type = std::complex<float>; };
template <> struct Elem<muDoubleComplex> { using type = std::complex<double>; };
template <class M> using E = typename Elem<M>::type;

template <class M>
inline E<M>* cpp(M* p) { return reinterpret_cast<E<M>*>(p); }
template <class M>
inline E<M>* cpp(const M* p) { return reinterpret_cast<E<M>*>(const_cast<M*>(p)); }

inline char uplo_char(mublasFillMode_t uplo) { return uplo == MUBLAS_FILL_MODE_LOWER ? 'L' : 'U'; }
inline bool fill_ok(mublasFillMode_t uplo) { return uplo == MUBLAS_FILL_MODE_LOWER || uplo == MUBLAS_FILL_MODE_UPPER; }
inline char op_char(mublasOperation_t op) { return op == MUBLAS_OP_N ? 'N' : op == MUBLAS_OP_T ? 'T' : 'C'; }

// Every *_bufferSize answer: the routines allocate their own workspace.
inline musolverStatus_t buffer_size(musolverDnHandle_t h, int* lwork) {
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (lwork == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  *lwork = 1;
  return MUSOLVER_STATUS_SUCCESS;
}
inline musolverStatus_t buffer_bytes(musolverDnHandle_t h, size_t* device, size_t* host) {
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (device == nullptr || host == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  *device = 0;
  *host = 0;
  return MUSOLVER_STATUS_SUCCESS;
}

// LU without row exchanges (getrf with ipiv == NULL), the order of LAPACK's
// getf2: a zero pivot is reported in info and its column is left unscaled.
template <class T>
inline void lu_no_pivot(int m, int n, T* a, int lda, int* info) {
  *info = 0;
  const int k = m < n ? m : n;
  auto at = [&](int r, int c) -> T& { return a[r + static_cast<long long>(c) * lda]; };
  for (int j = 0; j < k; ++j) {
    const T pivot = at(j, j);
    if (pivot != T(0)) {
      for (int i = j + 1; i < m; ++i) at(i, j) /= pivot;
    } else if (*info == 0) {
      *info = j + 1;
    }
    for (int c = j + 1; c < n; ++c)
      for (int i = j + 1; i < m; ++i) at(i, c) -= at(i, j) * at(j, c);
  }
}

template <class T>
inline musolverStatus_t getrf(musolverDnHandle_t h, int m, int n, T* a, int lda, int* ipiv, int* info) {
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || lda < (m > 1 ? m : 1) || info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  if (ipiv == nullptr)
    lu_no_pivot(m, n, a, lda, info);
  else
    lapack::Lapack<T>::getrf(m, n, a, lda, ipiv, info);
  return MUSOLVER_STATUS_SUCCESS;
}

template <class T>
inline musolverStatus_t getrs(musolverDnHandle_t h, mublasOperation_t trans, int n, int nrhs, T* a, int lda,
                              const int* ipiv, T* b, int ldb, int* info) {
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (n < 0 || nrhs < 0 || ipiv == nullptr || info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  lapack::Lapack<T>::getrs(op_char(trans), n, nrhs, a, lda, const_cast<int*>(ipiv), b, ldb, info);
  return MUSOLVER_STATUS_SUCCESS;
}

template <class T>
inline musolverStatus_t potrf(musolverDnHandle_t h, mublasFillMode_t uplo, int n, T* a, int lda, int* info) {
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (!fill_ok(uplo) || n < 0 || info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  lapack::Lapack<T>::potrf(uplo_char(uplo), n, a, lda, info);
  return MUSOLVER_STATUS_SUCCESS;
}

template <class T>
inline musolverStatus_t potrf_batched(musolverDnHandle_t h, mublasFillMode_t uplo, int n, T* const* a, int lda,
                                      int* info, int batch) {
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (!fill_ok(uplo) || n < 0 || batch < 0 || info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  for (int i = 0; i < batch; ++i) lapack::Lapack<T>::potrf(uplo_char(uplo), n, a[i], lda, &info[i]);
  return MUSOLVER_STATUS_SUCCESS;
}

template <class T>
inline musolverStatus_t potrs(musolverDnHandle_t h, mublasFillMode_t uplo, int n, int nrhs, T* a, int lda, T* b,
                              int ldb, int* info) {
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (!fill_ok(uplo) || n < 0 || nrhs < 0 || info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  lapack::Lapack<T>::potrs(uplo_char(uplo), n, nrhs, a, lda, b, ldb, info);
  return MUSOLVER_STATUS_SUCCESS;
}

// potrsBatched: one info for the whole batch (it reports a wrong argument only).
template <class T>
inline musolverStatus_t potrs_batched(musolverDnHandle_t h, mublasFillMode_t uplo, int n, int nrhs, T* const* a,
                                      int lda, T* const* b, int ldb, int* info, int batch) {
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (!fill_ok(uplo) || n < 0 || nrhs < 0 || batch < 0 || info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  *info = 0;
  for (int i = 0; i < batch; ++i) {
    int one = 0;
    lapack::Lapack<T>::potrs(uplo_char(uplo), n, nrhs, a[i], lda, b[i], ldb, &one);
    if (one != 0 && *info == 0) *info = one;
  }
  return MUSOLVER_STATUS_SUCCESS;
}

template <class T>
inline musolverStatus_t geqrf(musolverDnHandle_t h, int m, int n, T* a, int lda, T* tau, int* info) {
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  lapack::geqrf(m, n, a, lda, tau, info);
  return MUSOLVER_STATUS_SUCCESS;
}

template <class T>
inline musolverStatus_t orgqr(musolverDnHandle_t h, int m, int n, int k, T* a, int lda, const T* tau, int* info) {
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || n > m || k < 0 || k > n || info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  lapack::orgqr(m, n, k, a, lda, const_cast<T*>(tau), info);
  return MUSOLVER_STATUS_SUCCESS;
}

template <class T>
inline musolverStatus_t ormqr(musolverDnHandle_t h, mublasSideMode_t side, mublasOperation_t trans, int m, int n,
                              int k, const T* a, int lda, const T* tau, T* c, int ldc, int* info) {
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || k < 0 || info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  char t = op_char(trans);
  // The real routines take T for the adjoint; the complex ones take only N and C.
  if (!lapack::is_complex<T>() && t == 'C') t = 'T';
  if (lapack::is_complex<T>() && t == 'T') return MUSOLVER_STATUS_NOT_SUPPORTED;
  lapack::ormqr(side == MUBLAS_SIDE_LEFT ? 'L' : 'R', t, m, n, k, const_cast<T*>(a), lda, const_cast<T*>(tau), c, ldc,
                info);
  return MUSOLVER_STATUS_SUCCESS;
}

template <class T>
inline musolverStatus_t sytrf(musolverDnHandle_t h, mublasFillMode_t uplo, int n, T* a, int lda, int* ipiv, int* info) {
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (!fill_ok(uplo) || n < 0 || ipiv == nullptr || info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  lapack::sytrf(uplo_char(uplo), n, a, lda, ipiv, info);
  return MUSOLVER_STATUS_SUCCESS;
}

template <class T>
inline musolverStatus_t syevd(musolverDnHandle_t h, musolverEigMode_t jobz, mublasFillMode_t uplo, int n, T* a,
                              int lda, typename lapack::Real<T>::type* w, int* info) {
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (!fill_ok(uplo) || n < 0 || info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  lapack::syevd(jobz == MUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N', uplo_char(uplo), n, a, lda, w, info);
  return MUSOLVER_STATUS_SUCCESS;
}

template <class T>
inline musolverStatus_t syevd_batched(musolverDnHandle_t h, musolverEigMode_t jobz, mublasFillMode_t uplo, int n,
                                      T* a, int lda, typename lapack::Real<T>::type* w, int* info, int batch) {
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (!fill_ok(uplo) || n < 0 || batch < 0 || info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  for (int i = 0; i < batch; ++i)
    lapack::syevd(jobz == MUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N', uplo_char(uplo), n,
                  a + static_cast<long long>(i) * lda * n, lda, w + static_cast<long long>(i) * n, &info[i]);
  return MUSOLVER_STATUS_SUCCESS;
}

// gesvd: A = U S VT with jobu == jobvt in {A, S, N} (what PyTorch asks); A is destroyed.
template <class T>
inline musolverStatus_t gesvd(musolverDnHandle_t h, signed char jobu, signed char jobvt, int m, int n, T* a, int lda,
                              typename lapack::Real<T>::type* s, T* u, int ldu, T* vt, int ldvt, int* info) {
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  if (jobu != jobvt || (jobu != 'A' && jobu != 'S' && jobu != 'N')) return MUSOLVER_STATUS_NOT_SUPPORTED;
  T dummy[1];
  if (jobu == 'N')
    lapack::gesdd('N', m, n, a, lda, s, dummy, 1, dummy, 1, info);
  else
    lapack::gesdd(static_cast<char>(jobu), m, n, a, lda, s, u, ldu, vt, ldvt, info);
  return MUSOLVER_STATUS_SUCCESS;
}

// The leading dimensions cuSOLVER's gesvdj and gesvdjBatched require (lda, ldu >= max(1, m); ldv >= max(1, n)),
// refused as it refuses them: a caller passing the stride of a row-major V (1) gets an error, not a scrambled V.
inline bool svd_leading_dims_ok(musolverEigMode_t jobz, int m, int n, int lda, int ldu, int ldv) {
  const int rows = m > 1 ? m : 1, cols = n > 1 ? n : 1;
  return lda >= rows && (jobz != MUSOLVER_EIG_MODE_VECTOR || (ldu >= rows && ldv >= cols));
}

// gesvdj: A = U S V^H; V (not V^H) is returned, economic (min(m, n) columns)
// when econ != 0.  A is destroyed.
template <class T>
inline musolverStatus_t gesvdj(musolverDnHandle_t h, musolverEigMode_t jobz, int econ, int m, int n, T* a, int lda,
                               typename lapack::Real<T>::type* s, T* u, int ldu, T* v, int ldv, int* info) {
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || info == nullptr || !svd_leading_dims_ok(jobz, m, n, lda, ldu, ldv))
    return MUSOLVER_STATUS_INVALID_VALUE;
  T dummy[1];
  if (jobz != MUSOLVER_EIG_MODE_VECTOR) {
    lapack::gesdd('N', m, n, a, lda, s, dummy, 1, dummy, 1, info);
    return MUSOLVER_STATUS_SUCCESS;
  }
  const int k = m < n ? m : n;
  const int vrows = econ ? k : n;  // rows of VT
  const int ldvt = vrows > 1 ? vrows : 1;
  std::vector<T> vt(static_cast<size_t>(ldvt) * (n > 0 ? n : 1));
  lapack::gesdd(econ ? 'S' : 'A', m, n, a, lda, s, u, ldu, vt.data(), ldvt, info);
  for (int j = 0; j < vrows; ++j)
    for (int i = 0; i < n; ++i)
      v[i + static_cast<long long>(j) * ldv] = lapack::conj(vt[j + static_cast<size_t>(i) * ldvt]);
  return MUSOLVER_STATUS_SUCCESS;
}

// gesvdjBatched: full U (m x m) and V (n x n) of every matrix, stored one after another.
template <class T>
inline musolverStatus_t gesvdj_batched(musolverDnHandle_t h, musolverEigMode_t jobz, int m, int n, T* a, int lda,
                                       typename lapack::Real<T>::type* s, T* u, int ldu, T* v, int ldv, int* info,
                                       int batch) {
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (batch < 0 || info == nullptr || !svd_leading_dims_ok(jobz, m, n, lda, ldu, ldv))
    return MUSOLVER_STATUS_INVALID_VALUE;
  const int k = m < n ? m : n;
  for (int i = 0; i < batch; ++i) {
    const musolverStatus_t st =
        gesvdj(h, jobz, 0, m, n, a + static_cast<long long>(i) * lda * n, lda, s + static_cast<long long>(i) * k,
               u + static_cast<long long>(i) * ldu * m, ldu, v + static_cast<long long>(i) * ldv * n, ldv, &info[i]);
    if (st != MUSOLVER_STATUS_SUCCESS) return st;
  }
  return MUSOLVER_STATUS_SUCCESS;
}

// gesvdaStridedBatched: the leading `rank` singular triplets of each (m >= n)
// matrix; A is read only.  The residual norms (h_R_nrmF) are not computed:
// a caller that asks for them gets MUSOLVER_STATUS_NOT_SUPPORTED.
template <class T>
inline musolverStatus_t gesvda_strided_batched(musolverDnHandle_t h, musolverEigMode_t jobz, int rank, int m, int n,
                                               const T* a, int lda, long long stride_a,
                                               typename lapack::Real<T>::type* s, long long stride_s, T* u, int ldu,
                                               long long stride_u, T* v, int ldv, long long stride_v, int* info,
                                               double* h_r_nrmf, int batch) {
  using R = typename lapack::Real<T>::type;
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (m < n || n < 0 || rank < 1 || rank > n || lda < (m > 1 ? m : 1) || batch < 0 || info == nullptr)
    return MUSOLVER_STATUS_INVALID_VALUE;
  if (h_r_nrmf != nullptr) return MUSOLVER_STATUS_NOT_SUPPORTED;
  const bool vectors = jobz == MUSOLVER_EIG_MODE_VECTOR;
  std::vector<T> work_a(static_cast<size_t>(m) * n), work_u(static_cast<size_t>(m) * n), work_vt(static_cast<size_t>(n) * n);
  std::vector<R> work_s(n);
  for (int b = 0; b < batch; ++b) {
    const T* ab = a + b * stride_a;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) work_a[i + static_cast<size_t>(j) * m] = ab[i + static_cast<long long>(j) * lda];
    lapack::gesdd(vectors ? 'S' : 'N', m, n, work_a.data(), m, work_s.data(), work_u.data(), m, work_vt.data(), n,
                  &info[b]);
    for (int j = 0; j < rank; ++j) s[b * stride_s + j] = work_s[j];
    if (!vectors) continue;
    for (int j = 0; j < rank; ++j) {
      for (int i = 0; i < m; ++i) u[b * stride_u + i + static_cast<long long>(j) * ldu] = work_u[i + static_cast<size_t>(j) * m];
      for (int i = 0; i < n; ++i)
        v[b * stride_v + i + static_cast<long long>(j) * ldv] = lapack::conj(work_vt[j + static_cast<size_t>(i) * n]);
    }
  }
  return MUSOLVER_STATUS_SUCCESS;
}

// The 64-bit API names its element type at run time: call f with a value of the C++ type.
template <class F>
inline musolverStatus_t with_type(musaDataType type, F&& f) {
  switch (type) {
    case MUSA_R_32F: return f(float{});
    case MUSA_R_64F: return f(double{});
    case MUSA_C_32F: return f(std::complex<float>{});
    case MUSA_C_64F: return f(std::complex<double>{});
    default: return MUSOLVER_STATUS_NOT_SUPPORTED;
  }
}
inline musaDataType real_type_of(musaDataType type) {
  return type == MUSA_C_32F ? MUSA_R_32F : type == MUSA_C_64F ? MUSA_R_64F : type;
}
inline bool fits_int(int64_t x) { return x >= 0 && x <= 0x7fffffff; }

}  // namespace solver
}  // namespace musaport

// ---- the typed routines (S, D, C, Z) ----
// P: type letter; M: element type; R: its real type; ORG/ORM: the letter + name
// of the Q routines (Sorgqr, Mungqr...); EV: the letter + name of the
// symmetric/Hermitian eigen solvers (Ssyev, Cheev).
#define MUSAPORT_SOLVER_TYPED(P, M, R, ORG, ORM, EV)                                                                  \
  inline musolverStatus_t musolverDn##P##getrf_bufferSize(musolverDnHandle_t h, int, int, const M*, int, int* lwork) { \
    return musaport::solver::buffer_size(h, lwork);                                                                  \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##getrf(musolverDnHandle_t h, int m, int n, M* a, int lda, M*, int* ipiv,     \
                                               int* info) {                                                          \
    return musaport::solver::getrf(h, m, n, musaport::solver::cpp(a), lda, ipiv, info);                              \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##getrs(musolverDnHandle_t h, mublasOperation_t trans, int n, int nrhs,       \
                                               const M* a, int lda, const int* ipiv, M* b, int ldb, int* info) {     \
    return musaport::solver::getrs(h, trans, n, nrhs, musaport::solver::cpp(a), lda, ipiv, musaport::solver::cpp(b),  \
                                   ldb, info);                                                                       \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##potrf_bufferSize(musolverDnHandle_t h, mublasFillMode_t, int, const M*, int, \
                                                          int* lwork) {                                              \
    return musaport::solver::buffer_size(h, lwork);                                                                  \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##potrf(musolverDnHandle_t h, mublasFillMode_t uplo, int n, M* a, int lda, M*, \
                                               int, int* info) {                                                     \
    return musaport::solver::potrf(h, uplo, n, musaport::solver::cpp(a), lda, info);                                 \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##potrfBatched(musolverDnHandle_t h, mublasFillMode_t uplo, int n,            \
                                                      M* a[], int lda, int* info, int batch) {                       \
    return musaport::solver::potrf_batched(h, uplo, n, reinterpret_cast<musaport::solver::E<M>* const*>(a), lda,     \
                                           info, batch);                                                             \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##potrs(musolverDnHandle_t h, mublasFillMode_t uplo, int n, int nrhs,         \
                                               const M* a, int lda, M* b, int ldb, int* info) {                      \
    return musaport::solver::potrs(h, uplo, n, nrhs, musaport::solver::cpp(a), lda, musaport::solver::cpp(b), ldb,    \
                                   info);                                                                            \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##potrsBatched(musolverDnHandle_t h, mublasFillMode_t uplo, int n, int nrhs,  \
                                                      M* a[], int lda, M* b[], int ldb, int* info, int batch) {      \
    return musaport::solver::potrs_batched(h, uplo, n, nrhs, reinterpret_cast<musaport::solver::E<M>* const*>(a),    \
                                           lda, reinterpret_cast<musaport::solver::E<M>* const*>(b), ldb, info,       \
                                           batch);                                                                   \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##geqrf_bufferSize(musolverDnHandle_t h, int, int, const M*, int, int* lwork) { \
    return musaport::solver::buffer_size(h, lwork);                                                                  \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##geqrf(musolverDnHandle_t h, int m, int n, M* a, int lda, M* tau, M*, int,   \
                                               int* info) {                                                          \
    return musaport::solver::geqrf(h, m, n, musaport::solver::cpp(a), lda, musaport::solver::cpp(tau), info);         \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##ORG##_bufferSize(musolverDnHandle_t h, int, int, int, const M*, int, const M*,  \
                                                       int* lwork) {                                                 \
    return musaport::solver::buffer_size(h, lwork);                                                                  \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##ORG(musolverDnHandle_t h, int m, int n, int k, M* a, int lda, const M* tau, M*, \
                                          int, int* info) {                                                          \
    return musaport::solver::orgqr(h, m, n, k, musaport::solver::cpp(a), lda, musaport::solver::cpp(tau), info);      \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##ORM##_bufferSize(musolverDnHandle_t h, mublasSideMode_t, mublasOperation_t,    \
                                                       int, int, int, const M*, int, const M*, const M*, int,        \
                                                       int* lwork) {                                                 \
    return musaport::solver::buffer_size(h, lwork);                                                                  \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##ORM(musolverDnHandle_t h, mublasSideMode_t side, mublasOperation_t trans,      \
                                          int m, int n, int k, const M* a, int lda, const M* tau, M* c, int ldc, M*,  \
                                          int, int* info) {                                                          \
    return musaport::solver::ormqr(h, side, trans, m, n, k, musaport::solver::cpp(a), lda,                           \
                                   musaport::solver::cpp(tau), musaport::solver::cpp(c), ldc, info);                  \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##sytrf_bufferSize(musolverDnHandle_t h, int, const M*, int, int* lwork) {    \
    return musaport::solver::buffer_size(h, lwork);                                                                  \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##sytrf(musolverDnHandle_t h, mublasFillMode_t uplo, int n, M* a, int lda,    \
                                               int* ipiv, M*, int, int* info) {                                      \
    return musaport::solver::sytrf(h, uplo, n, musaport::solver::cpp(a), lda, ipiv, info);                           \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##EV##d_bufferSize(musolverDnHandle_t h, musolverEigMode_t, mublasFillMode_t,   \
                                                       int, const M*, int, const R*, int* lwork) {                   \
    return musaport::solver::buffer_size(h, lwork);                                                                  \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##EV##d(musolverDnHandle_t h, musolverEigMode_t jobz, mublasFillMode_t uplo,     \
                                            int n, M* a, int lda, R* w, M*, int, int* info) {                        \
    return musaport::solver::syevd(h, jobz, uplo, n, musaport::solver::cpp(a), lda, w, info);                        \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##EV##j_bufferSize(musolverDnHandle_t h, musolverEigMode_t, mublasFillMode_t,   \
                                                       int, const M*, int, const R*, int* lwork, syevjInfo_t) {      \
    return musaport::solver::buffer_size(h, lwork);                                                                  \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##EV##j(musolverDnHandle_t h, musolverEigMode_t jobz, mublasFillMode_t uplo,     \
                                            int n, M* a, int lda, R* w, M*, int, int* info, syevjInfo_t) {           \
    return musaport::solver::syevd(h, jobz, uplo, n, musaport::solver::cpp(a), lda, w, info);                        \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##EV##jBatched_bufferSize(musolverDnHandle_t h, musolverEigMode_t,              \
                                                              mublasFillMode_t, int, const M*, int, const R*,        \
                                                              int* lwork, syevjInfo_t, int) {                        \
    return musaport::solver::buffer_size(h, lwork);                                                                  \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##EV##jBatched(musolverDnHandle_t h, musolverEigMode_t jobz,                     \
                                                   mublasFillMode_t uplo, int n, M* a, int lda, R* w, M*, int,       \
                                                   int* info, syevjInfo_t, int batch) {                              \
    return musaport::solver::syevd_batched(h, jobz, uplo, n, musaport::solver::cpp(a), lda, w, info, batch);         \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##gesvd_bufferSize(musolverDnHandle_t h, int, int, int* lwork) {              \
    return musaport::solver::buffer_size(h, lwork);                                                                  \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##gesvd(musolverDnHandle_t h, signed char jobu, signed char jobvt, int m,      \
                                               int n, M* a, int lda, R* s, M* u, int ldu, M* vt, int ldvt, M*, int,  \
                                               R*, int* info) {                                                      \
    return musaport::solver::gesvd(h, jobu, jobvt, m, n, musaport::solver::cpp(a), lda, s, musaport::solver::cpp(u),  \
                                   ldu, musaport::solver::cpp(vt), ldvt, info);                                      \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##gesvdj_bufferSize(musolverDnHandle_t h, musolverEigMode_t, int, int, int,   \
                                                           const M*, int, const R*, const M*, int, const M*, int,     \
                                                           int* lwork, gesvdjInfo_t) {                               \
    return musaport::solver::buffer_size(h, lwork);                                                                  \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##gesvdj(musolverDnHandle_t h, musolverEigMode_t jobz, int econ, int m, int n, \
                                                M* a, int lda, R* s, M* u, int ldu, M* v, int ldv, M*, int,          \
                                                int* info, gesvdjInfo_t) {                                           \
    return musaport::solver::gesvdj(h, jobz, econ, m, n, musaport::solver::cpp(a), lda, s, musaport::solver::cpp(u),  \
                                    ldu, musaport::solver::cpp(v), ldv, info);                                       \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##gesvdjBatched_bufferSize(musolverDnHandle_t h, musolverEigMode_t, int, int, \
                                                                  const M*, int, const R*, const M*, int, const M*,  \
                                                                  int, int* lwork, gesvdjInfo_t, int) {              \
    return musaport::solver::buffer_size(h, lwork);                                                                  \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##gesvdjBatched(musolverDnHandle_t h, musolverEigMode_t jobz, int m, int n,   \
                                                       M* a, int lda, R* s, M* u, int ldu, M* v, int ldv, M*, int,   \
                                                       int* info, gesvdjInfo_t, int batch) {                         \
    return musaport::solver::gesvdj_batched(h, jobz, m, n, musaport::solver::cpp(a), lda, s,                         \
                                            musaport::solver::cpp(u), ldu, musaport::solver::cpp(v), ldv, info,       \
                                            batch);                                                                  \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##gesvdaStridedBatched_bufferSize(                                            \
      musolverDnHandle_t h, musolverEigMode_t, int, int, int, const M*, int, long long, const R*, long long,          \
      const M*, int, long long, const M*, int, long long, int* lwork, int) {                                         \
    return musaport::solver::buffer_size(h, lwork);                                                                  \
  }                                                                                                                  \
  inline musolverStatus_t musolverDn##P##gesvdaStridedBatched(                                                       \
      musolverDnHandle_t h, musolverEigMode_t jobz, int rank, int m, int n, const M* a, int lda, long long sa, R* s,  \
      long long ss, M* u, int ldu, long long su, M* v, int ldv, long long sv, M*, int, int* info, double* h_r_nrmf,   \
      int batch) {                                                                                                   \
    return musaport::solver::gesvda_strided_batched(h, jobz, rank, m, n, musaport::solver::cpp(a), lda, sa, s, ss,   \
                                                    musaport::solver::cpp(u), ldu, su, musaport::solver::cpp(v), ldv, \
                                                    sv, info, h_r_nrmf, batch);                                      \
  }

MUSAPORT_SOLVER_TYPED(S, float, float, Sorgqr, Sormqr, Ssyev)
MUSAPORT_SOLVER_TYPED(D, double, double, Dorgqr, Dormqr, Dsyev)
MUSAPORT_SOLVER_TYPED(C, muComplex, float, Mungqr, Munmqr, Cheev)
MUSAPORT_SOLVER_TYPED(Z, muDoubleComplex, double, Zungqr, Zunmqr, Zheev)

#undef MUSAPORT_SOLVER_TYPED

// ---- the 64-bit API (element types named by musaDataType) ----

inline musolverStatus_t musolverDnXpotrf_bufferSize(musolverDnHandle_t h, musolverDnParams_t, mublasFillMode_t,
                                                    int64_t, musaDataType, const void*, int64_t, musaDataType,
                                                    size_t* device_bytes, size_t* host_bytes) {
  return musaport::solver::buffer_bytes(h, device_bytes, host_bytes);
}
inline musolverStatus_t musolverDnXpotrf(musolverDnHandle_t h, musolverDnParams_t, mublasFillMode_t uplo, int64_t n,
                                         musaDataType type_a, void* a, int64_t lda, musaDataType compute, void*,
                                         size_t, void*, size_t, int* info) {
  if (type_a != compute) return MUSOLVER_STATUS_NOT_SUPPORTED;
  if (!musaport::solver::fits_int(n) || !musaport::solver::fits_int(lda)) return MUSOLVER_STATUS_NOT_SUPPORTED;
  return musaport::solver::with_type(type_a, [&](auto t) {
    using T = decltype(t);
    return musaport::solver::potrf(h, uplo, static_cast<int>(n), static_cast<T*>(a), static_cast<int>(lda), info);
  });
}
inline musolverStatus_t musolverDnXpotrs(musolverDnHandle_t h, musolverDnParams_t, mublasFillMode_t uplo, int64_t n,
                                         int64_t nrhs, musaDataType type_a, const void* a, int64_t lda,
                                         musaDataType type_b, void* b, int64_t ldb, int* info) {
  if (type_a != type_b) return MUSOLVER_STATUS_NOT_SUPPORTED;
  for (int64_t x : {n, nrhs, lda, ldb})
    if (!musaport::solver::fits_int(x)) return MUSOLVER_STATUS_NOT_SUPPORTED;
  return musaport::solver::with_type(type_a, [&](auto t) {
    using T = decltype(t);
    return musaport::solver::potrs(h, uplo, static_cast<int>(n), static_cast<int>(nrhs),
                                   static_cast<T*>(const_cast<void*>(a)), static_cast<int>(lda), static_cast<T*>(b),
                                   static_cast<int>(ldb), info);
  });
}
inline musolverStatus_t musolverDnXgeqrf_bufferSize(musolverDnHandle_t h, musolverDnParams_t, int64_t, int64_t,
                                                    musaDataType, const void*, int64_t, musaDataType, const void*,
                                                    musaDataType, size_t* device_bytes, size_t* host_bytes) {
  return musaport::solver::buffer_bytes(h, device_bytes, host_bytes);
}
inline musolverStatus_t musolverDnXgeqrf(musolverDnHandle_t h, musolverDnParams_t, int64_t m, int64_t n,
                                         musaDataType type_a, void* a, int64_t lda, musaDataType type_tau, void* tau,
                                         musaDataType compute, void*, size_t, void*, size_t, int* info) {
  if (type_a != type_tau || type_a != compute) return MUSOLVER_STATUS_NOT_SUPPORTED;
  for (int64_t x : {m, n, lda})
    if (!musaport::solver::fits_int(x)) return MUSOLVER_STATUS_NOT_SUPPORTED;
  return musaport::solver::with_type(type_a, [&](auto t) {
    using T = decltype(t);
    return musaport::solver::geqrf(h, static_cast<int>(m), static_cast<int>(n), static_cast<T*>(a),
                                   static_cast<int>(lda), static_cast<T*>(tau), info);
  });
}
inline musolverStatus_t musolverDnXsyevd_bufferSize(musolverDnHandle_t h, musolverDnParams_t, musolverEigMode_t,
                                                    mublasFillMode_t, int64_t, musaDataType, const void*, int64_t,
                                                    musaDataType, const void*, musaDataType, size_t* device_bytes,
                                                    size_t* host_bytes) {
  return musaport::solver::buffer_bytes(h, device_bytes, host_bytes);
}
inline musolverStatus_t musolverDnXsyevd(musolverDnHandle_t h, musolverDnParams_t, musolverEigMode_t jobz,
                                         mublasFillMode_t uplo, int64_t n, musaDataType type_a, void* a, int64_t lda,
                                         musaDataType type_w, void* w, musaDataType compute, void*, size_t, void*,
                                         size_t, int* info) {
  if (type_a != compute || type_w != musaport::solver::real_type_of(type_a)) return MUSOLVER_STATUS_NOT_SUPPORTED;
  if (!musaport::solver::fits_int(n) || !musaport::solver::fits_int(lda)) return MUSOLVER_STATUS_NOT_SUPPORTED;
  return musaport::solver::with_type(type_a, [&](auto t) {
    using T = decltype(t);
    using R = typename musaport::lapack::Real<T>::type;
    return musaport::solver::syevd(h, jobz, uplo, static_cast<int>(n), static_cast<T*>(a), static_cast<int>(lda),
                                   static_cast<R*>(w), info);
  });
}
inline musolverStatus_t musolverDnXsytrs_bufferSize(musolverDnHandle_t h, mublasFillMode_t, int64_t, int64_t,
                                                    musaDataType, const void*, int64_t, const int64_t*, musaDataType,
                                                    void*, int64_t, size_t* device_bytes, size_t* host_bytes) {
  return musaport::solver::buffer_bytes(h, device_bytes, host_bytes);
}
// sytrs: solves with the Bunch-Kaufman factors of sytrf (LAPACK's pivot format, here 64-bit).
inline musolverStatus_t musolverDnXsytrs(musolverDnHandle_t h, mublasFillMode_t uplo, int64_t n, int64_t nrhs,
                                         musaDataType type_a, const void* a, int64_t lda, const int64_t* ipiv,
                                         musaDataType type_b, void* b, int64_t ldb, void*, size_t, void*, size_t,
                                         int* info) {
  if (h == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  if (type_a != type_b) return MUSOLVER_STATUS_NOT_SUPPORTED;
  if (!musaport::solver::fill_ok(uplo) || ipiv == nullptr || info == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  for (int64_t x : {n, nrhs, lda, ldb})
    if (!musaport::solver::fits_int(x)) return MUSOLVER_STATUS_NOT_SUPPORTED;
  std::vector<int> pivots(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) pivots[i] = static_cast<int>(ipiv[i]);
  return musaport::solver::with_type(type_a, [&](auto t) {
    using T = decltype(t);
    musaport::lapack::Lapack<T>::sytrs(musaport::solver::uplo_char(uplo), static_cast<int>(n), static_cast<int>(nrhs),
                                       static_cast<T*>(const_cast<void*>(a)), static_cast<int>(lda), pivots.data(),
                                       static_cast<T*>(b), static_cast<int>(ldb), info);
    return MUSOLVER_STATUS_SUCCESS;
  });
}
