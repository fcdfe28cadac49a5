// musaport shim: muBLAS's LAPACK-like routines (batched LU, QR and least
// squares, triangular solves), computed on the host by LAPACK/BLAS
// (musaport_shim/lapack.h).  mublas.h includes this file at its end.
//
// Device memory is host memory: the pointer arrays, pivots and the per-matrix
// info arrays are read and written in place.  Scalars (alpha) are read
// through their pointer, whatever the handle's pointer mode says, since both
// kinds of pointer are readable here.
#pragma once

#include <complex>
#include <vector>

#include "muComplex.h"
#include "musaport_shim/lapack.h"

namespace musaport {
namespace blas_solve {

template <class M> struct Elem { using type = M; };
template <> struct Elem<muComplex> { using type = std::complex<float>; };
template <> struct Elem<muDoubleComplex> { using type = std::complex<double>; };
template <class M> using E = typename Elem<M>::type;

inline char op_char(mublasOperation_t op) { return op == MUBLAS_OP_N ? 'N' : op == MUBLAS_OP_T ? 'T' : 'C'; }

// getrfBatched: LU of n x n matrices; pivots (n per matrix) may be NULL: no row exchanges.
template <class T>
inline mublasStatus_t getrf_batched(mublasHandle_t h, int n, T* const a[], int lda, int* pivots, int* info,
                                    int batch) {
  if (h == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  if (n < 0 || lda < (n > 1 ? n : 1) || batch < 0 || info == nullptr) return MUBLAS_STATUS_INVALID_VALUE;
  for (int i = 0; i < batch; ++i) {
    if (pivots != nullptr) {
      lapack::Lapack<T>::getrf(n, n, a[i], lda, pivots + static_cast<long long>(i) * n, &info[i]);
      continue;
    }
    // Doolittle without exchanges, LAPACK getf2's order (a zero pivot leaves its column unscaled).
    T* m = a[i];
    info[i] = 0;
    for (int j = 0; j < n; ++j) {
      const T pivot = m[j + static_cast<long long>(j) * lda];
      if (pivot != T(0)) {
        for (int r = j + 1; r < n; ++r) m[r + static_cast<long long>(j) * lda] /= pivot;
      } else if (info[i] == 0) {
        info[i] = j + 1;
      }
      for (int c = j + 1; c < n; ++c)
        for (int r = j + 1; r < n; ++r)
          m[r + static_cast<long long>(c) * lda] -= m[r + static_cast<long long>(j) * lda] * m[j + static_cast<long long>(c) * lda];
    }
  }
  return MUBLAS_STATUS_SUCCESS;
}

// getrsBatched: solves op(A_i) X = B_i with getrfBatched's factors; info (one, host) reports a wrong argument.
template <class T>
inline mublasStatus_t getrs_batched(mublasHandle_t h, mublasOperation_t trans, int n, int nrhs, const T* const a[],
                                    int lda, const int* pivots, T* const b[], int ldb, int* info, int batch) {
  if (h == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  if (info == nullptr) return MUBLAS_STATUS_INVALID_VALUE;
  *info = 0;
  if (n < 0) *info = -1;
  else if (nrhs < 0) *info = -2;
  else if (lda < (n > 1 ? n : 1)) *info = -4;
  else if (ldb < (n > 1 ? n : 1)) *info = -7;
  else if (batch < 0) *info = -9;
  if (*info != 0) return MUBLAS_STATUS_INVALID_VALUE;
  // Without pivots (a NULL array), the factors hold no exchanges: pass the identity.
  std::vector<int> identity;
  if (pivots == nullptr) {
    identity.resize(n > 0 ? n : 1);
    for (int i = 0; i < n; ++i) identity[i] = i + 1;
  }
  for (int i = 0; i < batch; ++i) {
    int one = 0;
    int* p = pivots != nullptr ? const_cast<int*>(pivots) + static_cast<long long>(i) * n : identity.data();
    lapack::Lapack<T>::getrs(op_char(trans), n, nrhs, const_cast<T*>(a[i]), lda, p, b[i], ldb, &one);
  }
  return MUBLAS_STATUS_SUCCESS;
}

// geqrfBatched: Householder QR of each m x n matrix; info (one, host) reports a wrong argument.
template <class T>
inline mublasStatus_t geqrf_batched(mublasHandle_t h, int m, int n, T* const a[], int lda, T* const tau[], int* info,
                                    int batch) {
  if (h == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  if (info == nullptr) return MUBLAS_STATUS_INVALID_VALUE;
  *info = 0;
  if (m < 0) *info = -1;
  else if (n < 0) *info = -2;
  else if (lda < (m > 1 ? m : 1)) *info = -4;
  else if (batch < 0) *info = -7;
  if (*info != 0) return MUBLAS_STATUS_INVALID_VALUE;
  // No reflectors to make: nothing is read, not even the pointer arrays (PyTorch's are empty for n == 0:
  // geqrf of a (2, 5, 0) batch crashed reading them).
  if (m == 0 || n == 0) return MUBLAS_STATUS_SUCCESS;
  for (int i = 0; i < batch; ++i) {
    int one = 0;
    lapack::geqrf(m, n, a[i], lda, tau[i], &one);
  }
  return MUBLAS_STATUS_SUCCESS;
}

// gelsBatched: least squares min ||A_i X - C_i|| for m >= n (the toolkit's only case), trans N only.
template <class T>
inline mublasStatus_t gels_batched(mublasHandle_t h, mublasOperation_t trans, int m, int n, int nrhs, T* const a[],
                                   int lda, T* const c[], int ldc, int* info, int* dev_info, int batch) {
  if (h == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  if (info == nullptr) return MUBLAS_STATUS_INVALID_VALUE;
  *info = 0;
  if (trans != MUBLAS_OP_N) *info = -1;
  else if (m < 0) *info = -2;
  else if (n < 0 || n > m) *info = -3;
  else if (nrhs < 0) *info = -4;
  else if (lda < (m > 1 ? m : 1)) *info = -6;
  else if (ldc < (m > 1 ? m : 1)) *info = -8;
  else if (batch < 0) *info = -11;
  if (*info != 0) return trans != MUBLAS_OP_N ? MUBLAS_STATUS_NOT_SUPPORTED : MUBLAS_STATUS_INVALID_VALUE;
  for (int i = 0; i < batch; ++i) {
    int one = 0;
    lapack::gels('N', m, n, nrhs, a[i], lda, c[i], ldc, &one);
    if (dev_info != nullptr) dev_info[i] = one;
  }
  return MUBLAS_STATUS_SUCCESS;
}

template <class T>
inline mublasStatus_t trsm(mublasHandle_t h, mublasSideMode_t side, mublasFillMode_t uplo, mublasOperation_t trans,
                           mublasDiagType_t diag, int m, int n, const T* alpha, const T* a, int lda, T* b, int ldb) {
  if (h == nullptr) return MUBLAS_STATUS_NOT_INITIALIZED;
  const int k = side == MUBLAS_SIDE_LEFT ? m : n;
  if (m < 0 || n < 0 || alpha == nullptr || lda < (k > 1 ? k : 1) || ldb < (m > 1 ? m : 1))
    return MUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return MUBLAS_STATUS_SUCCESS;
  lapack::Lapack<T>::trsm(side == MUBLAS_SIDE_LEFT ? 'L' : 'R', uplo == MUBLAS_FILL_MODE_LOWER ? 'L' : 'U',
                          op_char(trans), diag == MUBLAS_DIAG_UNIT ? 'U' : 'N', m, n, *alpha, const_cast<T*>(a), lda,
                          b, ldb);
  return MUBLAS_STATUS_SUCCESS;
}

template <class T>
inline mublasStatus_t trsm_batched(mublasHandle_t h, mublasSideMode_t side, mublasFillMode_t uplo,
                                   mublasOperation_t trans, mublasDiagType_t diag, int m, int n, const T* alpha,
                                   const T* const a[], int lda, T* const b[], int ldb, int batch) {
  if (batch < 0) return MUBLAS_STATUS_INVALID_VALUE;
  for (int i = 0; i < batch; ++i) {
    const mublasStatus_t s = trsm(h, side, uplo, trans, diag, m, n, alpha, a[i], lda, b[i], ldb);
    if (s != MUBLAS_STATUS_SUCCESS) return s;
  }
  return MUBLAS_STATUS_SUCCESS;
}

template <class M>
inline E<M>* cpp(M* p) { return reinterpret_cast<E<M>*>(p); }
template <class M>
inline const E<M>* cppc(const M* p) { return reinterpret_cast<const E<M>*>(p); }
template <class M>
inline E<M>* const* cpp_array(M* const* p) { return reinterpret_cast<E<M>* const*>(p); }
template <class M>
inline const E<M>* const* cppc_array(const M* const* p) { return reinterpret_cast<const E<M>* const*>(p); }

}  // namespace blas_solve
}  // namespace musaport

#define MUSAPORT_BLAS_SOLVE_TYPED(P, M)                                                                             \
  inline mublasStatus_t mublas##P##getrfBatched(mublasHandle_t h, int n, M* const a[], int lda, int* pivots,       \
                                                int* info, int batch) {                                             \
    return musaport::blas_solve::getrf_batched(h, n, musaport::blas_solve::cpp_array(a), lda, pivots, info, batch);  \
  }                                                                                                                 \
  inline mublasStatus_t mublas##P##getrsBatched(mublasHandle_t h, mublasOperation_t trans, int n, int nrhs,        \
                                                const M* const a[], int lda, const int* pivots, M* const b[],       \
                                                int ldb, int* info, int batch) {                                    \
    return musaport::blas_solve::getrs_batched(h, trans, n, nrhs, musaport::blas_solve::cppc_array(a), lda, pivots,   \
                                               musaport::blas_solve::cpp_array(b), ldb, info, batch);                \
  }                                                                                                                 \
  inline mublasStatus_t mublas##P##geqrfBatched(mublasHandle_t h, int m, int n, M* const a[], int lda,             \
                                                M* const tau[], int* info, int batch) {                             \
    return musaport::blas_solve::geqrf_batched(h, m, n, musaport::blas_solve::cpp_array(a), lda,                     \
                                               musaport::blas_solve::cpp_array(tau), info, batch);                  \
  }                                                                                                                 \
  inline mublasStatus_t mublas##P##gelsBatched(mublasHandle_t h, mublasOperation_t trans, int m, int n, int nrhs,  \
                                               M* const a[], int lda, M* const c[], int ldc, int* info,             \
                                               int* dev_info, int batch) {                                          \
    return musaport::blas_solve::gels_batched(h, trans, m, n, nrhs, musaport::blas_solve::cpp_array(a), lda,         \
                                              musaport::blas_solve::cpp_array(c), ldc, info, dev_info, batch);       \
  }                                                                                                                 \
  inline mublasStatus_t mublas##P##trsm(mublasHandle_t h, mublasSideMode_t side, mublasFillMode_t uplo,            \
                                        mublasOperation_t trans, mublasDiagType_t diag, int m, int n,               \
                                        const M* alpha, const M* a, int lda, M* b, int ldb) {                       \
    return musaport::blas_solve::trsm(h, side, uplo, trans, diag, m, n, musaport::blas_solve::cppc(alpha),           \
                                      musaport::blas_solve::cppc(a), lda, musaport::blas_solve::cpp(b), ldb);         \
  }                                                                                                                 \
  inline mublasStatus_t mublas##P##trsmBatched(mublasHandle_t h, mublasSideMode_t side, mublasFillMode_t uplo,     \
                                               mublasOperation_t trans, mublasDiagType_t diag, int m, int n,        \
                                               const M* alpha, const M* const a[], int lda, M* const b[], int ldb,  \
                                               int batch) {                                                         \
    return musaport::blas_solve::trsm_batched(h, side, uplo, trans, diag, m, n, musaport::blas_solve::cppc(alpha),   \
                                              musaport::blas_solve::cppc_array(a), lda,                              \
                                              musaport::blas_solve::cpp_array(b), ldb, batch);                      \
  }

MUSAPORT_BLAS_SOLVE_TYPED(S, float)
MUSAPORT_BLAS_SOLVE_TYPED(D, double)
MUSAPORT_BLAS_SOLVE_TYPED(C, muComplex)
MUSAPORT_BLAS_SOLVE_TYPED(Z, muDoubleComplex)

#undef MUSAPORT_BLAS_SOLVE_TYPED
