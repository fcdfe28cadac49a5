// musaport shim: the Fortran LAPACK/BLAS routines that muSOLVER and muBLAS's
// solver routines run on, and typed wrappers over them.
//
// The symbols (sgetrf_, zheevd_, ...) are not defined here: the program that
// uses the shim links a LAPACK.  The PyTorch wheel's libtorch_cpu.so exports
// them, and the device build links libtorch_cpu already.  Arguments follow the
// reference LAPACK (LP64: 32-bit integers, every argument by pointer, column-
// major matrices); character arguments are passed without the hidden length
// arguments, as PyTorch's own declarations do.
//
// `Lapack<T>` (T = float, double, std::complex<float>, std::complex<double>)
// names each routine once, so the solver code is written once for the four
// element types.  Workspace sizes are queried (lwork = -1) and allocated here:
// the muSOLVER buffers the caller passes are not needed by these routines.
#pragma once

#include <complex>
#include <vector>

#define MUSAPORT_LAPACK_DECLARE(p, T, R)                                                                            \
  void p##getrf_(int* m, int* n, T* a, int* lda, int* ipiv, int* info);                                           \
  void p##getrs_(char* trans, int* n, int* nrhs, T* a, int* lda, int* ipiv, T* b, int* ldb, int* info);           \
  void p##potrf_(char* uplo, int* n, T* a, int* lda, int* info);                                                  \
  void p##potrs_(char* uplo, int* n, int* nrhs, T* a, int* lda, T* b, int* ldb, int* info);                       \
  void p##geqrf_(int* m, int* n, T* a, int* lda, T* tau, T* work, int* lwork, int* info);                          \
  void p##sytrf_(char* uplo, int* n, T* a, int* lda, int* ipiv, T* work, int* lwork, int* info);                   \
  void p##sytrs_(char* uplo, int* n, int* nrhs, T* a, int* lda, int* ipiv, T* b, int* ldb, int* info);             \
  void p##gels_(char* trans, int* m, int* n, int* nrhs, T* a, int* lda, T* b, int* ldb, T* work, int* lwork,       \
                int* info);                                                                                       \
  void p##trsm_(char* side, char* uplo, char* transa, char* diag, int* m, int* n, T* alpha, T* a, int* lda, T* b,  \
                int* ldb);

extern "C" {
MUSAPORT_LAPACK_DECLARE(s, float, float)
MUSAPORT_LAPACK_DECLARE(d, double, double)
MUSAPORT_LAPACK_DECLARE(c, std::complex<float>, float)
MUSAPORT_LAPACK_DECLARE(z, std::complex<double>, double)

void sorgqr_(int* m, int* n, int* k, float* a, int* lda, float* tau, float* work, int* lwork, int* info);
void dorgqr_(int* m, int* n, int* k, double* a, int* lda, double* tau, double* work, int* lwork, int* info);
void cungqr_(int* m, int* n, int* k, std::complex<float>* a, int* lda, std::complex<float>* tau,
             std::complex<float>* work, int* lwork, int* info);
void zungqr_(int* m, int* n, int* k, std::complex<double>* a, int* lda, std::complex<double>* tau,
             std::complex<double>* work, int* lwork, int* info);

void sormqr_(char* side, char* trans, int* m, int* n, int* k, float* a, int* lda, float* tau, float* c, int* ldc,
             float* work, int* lwork, int* info);
void dormqr_(char* side, char* trans, int* m, int* n, int* k, double* a, int* lda, double* tau, double* c, int* ldc,
             double* work, int* lwork, int* info);
void cunmqr_(char* side, char* trans, int* m, int* n, int* k, std::complex<float>* a, int* lda,
             std::complex<float>* tau, std::complex<float>* c, int* ldc, std::complex<float>* work, int* lwork,
             int* info);
void zunmqr_(char* side, char* trans, int* m, int* n, int* k, std::complex<double>* a, int* lda,
             std::complex<double>* tau, std::complex<double>* c, int* ldc, std::complex<double>* work, int* lwork,
             int* info);

void ssyevd_(char* jobz, char* uplo, int* n, float* a, int* lda, float* w, float* work, int* lwork, int* iwork,
             int* liwork, int* info);
void dsyevd_(char* jobz, char* uplo, int* n, double* a, int* lda, double* w, double* work, int* lwork, int* iwork,
             int* liwork, int* info);
void cheevd_(char* jobz, char* uplo, int* n, std::complex<float>* a, int* lda, float* w, std::complex<float>* work,
             int* lwork, float* rwork, int* lrwork, int* iwork, int* liwork, int* info);
void zheevd_(char* jobz, char* uplo, int* n, std::complex<double>* a, int* lda, double* w,
             std::complex<double>* work, int* lwork, double* rwork, int* lrwork, int* iwork, int* liwork, int* info);

void sgesdd_(char* jobz, int* m, int* n, float* a, int* lda, float* s, float* u, int* ldu, float* vt, int* ldvt,
             float* work, int* lwork, int* iwork, int* info);
void dgesdd_(char* jobz, int* m, int* n, double* a, int* lda, double* s, double* u, int* ldu, double* vt, int* ldvt,
             double* work, int* lwork, int* iwork, int* info);
void cgesdd_(char* jobz, int* m, int* n, std::complex<float>* a, int* lda, float* s, std::complex<float>* u, int* ldu,
             std::complex<float>* vt, int* ldvt, std::complex<float>* work, int* lwork, float* rwork, int* iwork,
             int* info);
void zgesdd_(char* jobz, int* m, int* n, std::complex<double>* a, int* lda, double* s, std::complex<double>* u,
             int* ldu, std::complex<double>* vt, int* ldvt, std::complex<double>* work, int* lwork, double* rwork,
             int* iwork, int* info);
}

#undef MUSAPORT_LAPACK_DECLARE

namespace musaport {
namespace lapack {

template <class T>
struct Real { using type = T; };
template <class R>
struct Real<std::complex<R>> { using type = R; };

template <class T>
inline T conj(T x) { return x; }
template <class R>
inline std::complex<R> conj(std::complex<R> x) { return std::conj(x); }

template <class T>
inline bool is_complex() { return false; }
template <>
inline bool is_complex<std::complex<float>>() { return true; }
template <>
inline bool is_complex<std::complex<double>>() { return true; }

// A workspace length that LAPACK reported in work[0].
template <class T>
inline int lwork_of(T w) { return static_cast<int>(std::real(w)) + 1; }

// The routines whose argument lists are the same for the four types.
template <class T>
struct Lapack;

#define MUSAPORT_LAPACK_TRAITS(p, T)                                                                                \
  template <>                                                                                                      \
  struct Lapack<T> {                                                                                               \
    static void getrf(int m, int n, T* a, int lda, int* ipiv, int* info) { p##getrf_(&m, &n, a, &lda, ipiv, info); } \
    static void getrs(char trans, int n, int nrhs, T* a, int lda, int* ipiv, T* b, int ldb, int* info) {            \
      p##getrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info);                                                  \
    }                                                                                                              \
    static void potrf(char uplo, int n, T* a, int lda, int* info) { p##potrf_(&uplo, &n, a, &lda, info); }         \
    static void potrs(char uplo, int n, int nrhs, T* a, int lda, T* b, int ldb, int* info) {                       \
      p##potrs_(&uplo, &n, &nrhs, a, &lda, b, &ldb, info);                                                          \
    }                                                                                                              \
    static void geqrf(int m, int n, T* a, int lda, T* tau, T* work, int lwork, int* info) {                        \
      p##geqrf_(&m, &n, a, &lda, tau, work, &lwork, info);                                                          \
    }                                                                                                              \
    static void sytrf(char uplo, int n, T* a, int lda, int* ipiv, T* work, int lwork, int* info) {                 \
      p##sytrf_(&uplo, &n, a, &lda, ipiv, work, &lwork, info);                                                      \
    }                                                                                                              \
    static void sytrs(char uplo, int n, int nrhs, T* a, int lda, int* ipiv, T* b, int ldb, int* info) {            \
      p##sytrs_(&uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, info);                                                    \
    }                                                                                                              \
    static void gels(char trans, int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* work, int lwork,          \
                     int* info) {                                                                                  \
      p##gels_(&trans, &m, &n, &nrhs, a, &lda, b, &ldb, work, &lwork, info);                                        \
    }                                                                                                              \
    static void trsm(char side, char uplo, char transa, char diag, int m, int n, T alpha, T* a, int lda, T* b,      \
                     int ldb) {                                                                                    \
      p##trsm_(&side, &uplo, &transa, &diag, &m, &n, &alpha, a, &lda, b, &ldb);                                     \
    }

MUSAPORT_LAPACK_TRAITS(s, float)
  static void orgqr(int m, int n, int k, float* a, int lda, float* tau, float* work, int lwork, int* info) {
    sorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
  }
  static void ormqr(char side, char trans, int m, int n, int k, float* a, int lda, float* tau, float* c, int ldc,
                    float* work, int lwork, int* info) {
    sormqr_(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work, &lwork, info);
  }
  static void syevd(char jobz, char uplo, int n, float* a, int lda, float* w, float* work, int lwork, float*, int,
                    int* iwork, int liwork, int* info) {
    ssyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info);
  }
  static void gesdd(char jobz, int m, int n, float* a, int lda, float* s, float* u, int ldu, float* vt, int ldvt,
                    float* work, int lwork, float*, int* iwork, int* info) {
    sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info);
  }
};

MUSAPORT_LAPACK_TRAITS(d, double)
  static void orgqr(int m, int n, int k, double* a, int lda, double* tau, double* work, int lwork, int* info) {
    dorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
  }
  static void ormqr(char side, char trans, int m, int n, int k, double* a, int lda, double* tau, double* c, int ldc,
                    double* work, int lwork, int* info) {
    dormqr_(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work, &lwork, info);
  }
  static void syevd(char jobz, char uplo, int n, double* a, int lda, double* w, double* work, int lwork, double*, int,
                    int* iwork, int liwork, int* info) {
    dsyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info);
  }
  static void gesdd(char jobz, int m, int n, double* a, int lda, double* s, double* u, int ldu, double* vt, int ldvt,
                    double* work, int lwork, double*, int* iwork, int* info) {
    dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info);
  }
};

MUSAPORT_LAPACK_TRAITS(c, std::complex<float>)
  using C = std::complex<float>;
  static void orgqr(int m, int n, int k, C* a, int lda, C* tau, C* work, int lwork, int* info) {
    cungqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
  }
  static void ormqr(char side, char trans, int m, int n, int k, C* a, int lda, C* tau, C* c, int ldc, C* work,
                    int lwork, int* info) {
    cunmqr_(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work, &lwork, info);
  }
  static void syevd(char jobz, char uplo, int n, C* a, int lda, float* w, C* work, int lwork, float* rwork,
                    int lrwork, int* iwork, int liwork, int* info) {
    cheevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, info);
  }
  static void gesdd(char jobz, int m, int n, C* a, int lda, float* s, C* u, int ldu, C* vt, int ldvt, C* work,
                    int lwork, float* rwork, int* iwork, int* info) {
    cgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, info);
  }
};

MUSAPORT_LAPACK_TRAITS(z, std::complex<double>)
  using C = std::complex<double>;
  static void orgqr(int m, int n, int k, C* a, int lda, C* tau, C* work, int lwork, int* info) {
    zungqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
  }
  static void ormqr(char side, char trans, int m, int n, int k, C* a, int lda, C* tau, C* c, int ldc, C* work,
                    int lwork, int* info) {
    zunmqr_(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work, &lwork, info);
  }
  static void syevd(char jobz, char uplo, int n, C* a, int lda, double* w, C* work, int lwork, double* rwork,
                    int lrwork, int* iwork, int liwork, int* info) {
    zheevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, info);
  }
  static void gesdd(char jobz, int m, int n, C* a, int lda, double* s, C* u, int ldu, C* vt, int ldvt, C* work,
                    int lwork, double* rwork, int* iwork, int* info) {
    zgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, info);
  }
};

#undef MUSAPORT_LAPACK_TRAITS

// The calls below query their workspace first and allocate it.

template <class T>
inline void geqrf(int m, int n, T* a, int lda, T* tau, int* info) {
  T q{};
  Lapack<T>::geqrf(m, n, a, lda, tau, &q, -1, info);
  std::vector<T> work(lwork_of(q));
  Lapack<T>::geqrf(m, n, a, lda, tau, work.data(), static_cast<int>(work.size()), info);
}

template <class T>
inline void orgqr(int m, int n, int k, T* a, int lda, T* tau, int* info) {
  T q{};
  Lapack<T>::orgqr(m, n, k, a, lda, tau, &q, -1, info);
  std::vector<T> work(lwork_of(q));
  Lapack<T>::orgqr(m, n, k, a, lda, tau, work.data(), static_cast<int>(work.size()), info);
}

template <class T>
inline void ormqr(char side, char trans, int m, int n, int k, T* a, int lda, T* tau, T* c, int ldc, int* info) {
  T q{};
  Lapack<T>::ormqr(side, trans, m, n, k, a, lda, tau, c, ldc, &q, -1, info);
  std::vector<T> work(lwork_of(q));
  Lapack<T>::ormqr(side, trans, m, n, k, a, lda, tau, c, ldc, work.data(), static_cast<int>(work.size()), info);
}

template <class T>
inline void sytrf(char uplo, int n, T* a, int lda, int* ipiv, int* info) {
  T q{};
  Lapack<T>::sytrf(uplo, n, a, lda, ipiv, &q, -1, info);
  std::vector<T> work(lwork_of(q));
  Lapack<T>::sytrf(uplo, n, a, lda, ipiv, work.data(), static_cast<int>(work.size()), info);
}

template <class T>
inline void gels(char trans, int m, int n, int nrhs, T* a, int lda, T* b, int ldb, int* info) {
  T q{};
  Lapack<T>::gels(trans, m, n, nrhs, a, lda, b, ldb, &q, -1, info);
  std::vector<T> work(lwork_of(q));
  Lapack<T>::gels(trans, m, n, nrhs, a, lda, b, ldb, work.data(), static_cast<int>(work.size()), info);
}

// syevd/heevd: eigenvalues in ascending order, eigenvectors in a's columns when jobz == 'V'.
template <class T>
inline void syevd(char jobz, char uplo, int n, T* a, int lda, typename Real<T>::type* w, int* info) {
  using R = typename Real<T>::type;
  T q{};
  R rq{};
  int iq = 0;
  Lapack<T>::syevd(jobz, uplo, n, a, lda, w, &q, -1, &rq, -1, &iq, -1, info);
  std::vector<T> work(lwork_of(q));
  std::vector<R> rwork(lwork_of(rq));
  std::vector<int> iwork(iq > 1 ? iq : 1);
  Lapack<T>::syevd(jobz, uplo, n, a, lda, w, work.data(), static_cast<int>(work.size()), rwork.data(),
                   static_cast<int>(rwork.size()), iwork.data(), static_cast<int>(iwork.size()), info);
}

// gesdd: A = U diag(S) VT, singular values in descending order; a is destroyed.
template <class T>
inline void gesdd(char jobz, int m, int n, T* a, int lda, typename Real<T>::type* s, T* u, int ldu, T* vt, int ldvt,
                  int* info) {
  using R = typename Real<T>::type;
  const long long mn = m < n ? m : n, mx = m < n ? n : m;
  // LAPACK 3.x's bound for rwork (complex only): 5 mn^2 + 7 mn covers every jobz.
  std::vector<R> rwork(is_complex<T>() ? static_cast<size_t>(5 * mn * mn + 7 * mn + 1 + (jobz == 'N' ? 0 : mn * mx))
                                       : 1);
  std::vector<int> iwork(static_cast<size_t>(8 * mn + 1));
  T q{};
  Lapack<T>::gesdd(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, &q, -1, rwork.data(), iwork.data(), info);
  std::vector<T> work(lwork_of(q));
  Lapack<T>::gesdd(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work.data(), static_cast<int>(work.size()), rwork.data(),
                   iwork.data(), info);
}

}  // namespace lapack
}  // namespace musaport
