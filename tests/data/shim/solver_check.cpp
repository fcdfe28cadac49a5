// The shim's muSOLVER and muBLAS solver routines on real numbers: every
// routine factors or solves a small system and the answer is checked by
// multiplying back (A X = B, A = L L^H, A = Q R, A V = V diag(w),
// A = U S V^H), in the four element types.  Prints "PASS solver" or the first
// failure.  Built against the shim and linked with a LAPACK (the torch wheel's
// libtorch_cpu.so).
#include <musa_runtime.h>
#include <musolverDn.h>
#include <mublas.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <type_traits>
#include <vector>

namespace {

int failures = 0;

template <class T> struct Mu { using type = T; };
template <> struct Mu<std::complex<float>> { using type = muComplex; };
template <> struct Mu<std::complex<double>> { using type = muDoubleComplex; };
template <class T> typename Mu<T>::type* mu(T* p) { return reinterpret_cast<typename Mu<T>::type*>(p); }
template <class T> typename Mu<T>::type** mu(T** p) { return reinterpret_cast<typename Mu<T>::type**>(p); }

template <class T> using Real = typename musaport::lapack::Real<T>::type;
template <class T> double tol() { return std::is_same<Real<T>, float>::value ? 1e-3 : 1e-9; }
template <class T> const char* tname() {
  if (std::is_same<T, float>::value) return "float";
  if (std::is_same<T, double>::value) return "double";
  if (std::is_same<T, std::complex<float>>::value) return "complex64";
  return "complex128";
}

void expect(bool ok, const char* what, const char* type, double err = 0.0) {
  if (!ok) {
    std::printf("FAIL %s (%s): error %g\n", what, type, err);
    ++failures;
  }
}

// A well-conditioned n x n matrix with complex parts when T is complex; hpd: Hermitian positive definite.
template <class T> std::vector<T> matrix(int n, int seed, bool hpd) {
  std::vector<T> a(n * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      double re = std::sin(1.0 + seed + 3 * i + 7 * j), im = std::cos(2.0 + seed + 5 * i - j);
      T v;
      if constexpr (std::is_same<T, Real<T>>::value) v = T(re); else v = T(re, im);
      a[i + j * n] = v;
    }
  if (hpd) {
    std::vector<T> h(n * n, T(0));
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        for (int k = 0; k < n; ++k) h[i + j * n] += a[i + k * n] * musaport::lapack::conj(a[j + k * n]);
      }
    for (int i = 0; i < n; ++i) h[i + i * n] += T(n);
    return h;
  }
  for (int i = 0; i < n; ++i) a[i + i * n] += T(n);
  return a;
}

template <class T> std::vector<T> mul(const std::vector<T>& a, const std::vector<T>& b, int m, int k, int n) {
  std::vector<T> c(m * n, T(0));
  for (int j = 0; j < n; ++j)
    for (int p = 0; p < k; ++p)
      for (int i = 0; i < m; ++i) c[i + j * m] += a[i + p * m] * b[p + j * k];
  return c;
}

template <class T> double diff(const std::vector<T>& a, const std::vector<T>& b) {
  double e = 0.0;
  for (size_t i = 0; i < a.size(); ++i) e = std::max(e, static_cast<double>(std::abs(a[i] - b[i])));
  return e;
}

template <class T> void check_type() {
  const char* tn = tname<T>();
  const int n = 5, nrhs = 2;
  musolverDnHandle_t h;
  musolverDnCreate(&h);
  mublasHandle_t bh;
  mublasCreate(&bh);
  musolverStatus_t st;
  int info = -1, lwork = 0;

  // LU + solve: getrf / getrs, then A X == B.
  {
    auto a = matrix<T>(n, 1, false), lu = a;
    auto x = matrix<T>(n, 2, false);
    x.resize(n * nrhs);
    const auto b = x;
    std::vector<int> piv(n);
    if constexpr (std::is_same<T, float>::value) {
      musolverDnSgetrf_bufferSize(h, n, n, lu.data(), n, &lwork);
      st = musolverDnSgetrf(h, n, n, lu.data(), n, nullptr, piv.data(), &info);
      if (st == MUSOLVER_STATUS_SUCCESS) st = musolverDnSgetrs(h, MUBLAS_OP_N, n, nrhs, lu.data(), n, piv.data(), x.data(), n, &info);
    } else if constexpr (std::is_same<T, double>::value) {
      st = musolverDnDgetrf(h, n, n, lu.data(), n, nullptr, piv.data(), &info);
      if (st == MUSOLVER_STATUS_SUCCESS) st = musolverDnDgetrs(h, MUBLAS_OP_N, n, nrhs, lu.data(), n, piv.data(), x.data(), n, &info);
    } else if constexpr (std::is_same<T, std::complex<float>>::value) {
      st = musolverDnCgetrf(h, n, n, mu(lu.data()), n, nullptr, piv.data(), &info);
      if (st == MUSOLVER_STATUS_SUCCESS) st = musolverDnCgetrs(h, MUBLAS_OP_N, n, nrhs, mu(lu.data()), n, piv.data(), mu(x.data()), n, &info);
    } else {
      st = musolverDnZgetrf(h, n, n, mu(lu.data()), n, nullptr, piv.data(), &info);
      if (st == MUSOLVER_STATUS_SUCCESS) st = musolverDnZgetrs(h, MUBLAS_OP_N, n, nrhs, mu(lu.data()), n, piv.data(), mu(x.data()), n, &info);
    }
    const double e = diff(mul(a, x, n, n, nrhs), b);
    expect(st == MUSOLVER_STATUS_SUCCESS && info == 0 && e < tol<T>(), "getrf+getrs", tn, e);
  }

  // Cholesky: potrf (lower) then L L^H == A; potrs solves.
  {
    const auto a = matrix<T>(n, 3, true);
    auto l = a;
    auto x = matrix<T>(n, 4, false);
    x.resize(n * nrhs);
    const auto b = x;
    T* lp = l.data();
    std::vector<int> infos(1, -1);
    if constexpr (std::is_same<T, float>::value) {
      st = musolverDnSpotrfBatched(h, MUBLAS_FILL_MODE_LOWER, n, &lp, n, infos.data(), 1);
      if (st == MUSOLVER_STATUS_SUCCESS) st = musolverDnSpotrs(h, MUBLAS_FILL_MODE_LOWER, n, nrhs, l.data(), n, x.data(), n, &info);
    } else if constexpr (std::is_same<T, double>::value) {
      st = musolverDnDpotrf(h, MUBLAS_FILL_MODE_LOWER, n, l.data(), n, nullptr, 0, infos.data());
      if (st == MUSOLVER_STATUS_SUCCESS)
        st = musolverDnXpotrs(h, nullptr, MUBLAS_FILL_MODE_LOWER, n, nrhs, MUSA_R_64F, l.data(), n, MUSA_R_64F, x.data(), n, &info);
    } else if constexpr (std::is_same<T, std::complex<float>>::value) {
      st = musolverDnXpotrf(h, nullptr, MUBLAS_FILL_MODE_LOWER, n, MUSA_C_32F, l.data(), n, MUSA_C_32F, nullptr, 0, nullptr, 0, infos.data());
      if (st == MUSOLVER_STATUS_SUCCESS) st = musolverDnCpotrs(h, MUBLAS_FILL_MODE_LOWER, n, nrhs, mu(l.data()), n, mu(x.data()), n, &info);
    } else {
      auto mp = mu(&lp);
      st = musolverDnZpotrfBatched(h, MUBLAS_FILL_MODE_LOWER, n, mp, n, infos.data(), 1);
      T* xp = x.data();
      if (st == MUSOLVER_STATUS_SUCCESS) st = musolverDnZpotrsBatched(h, MUBLAS_FILL_MODE_LOWER, n, nrhs, mp, n, mu(&xp), n, &info, 1);
    }
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < j; ++i) l[i + j * n] = T(0);  // the strict upper part is untouched input
    std::vector<T> lh(n * n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) lh[i + j * n] = musaport::lapack::conj(l[j + i * n]);
    const double e = diff(mul(l, lh, n, n, n), a), e2 = diff(mul(a, x, n, n, nrhs), b);
    expect(st == MUSOLVER_STATUS_SUCCESS && infos[0] == 0 && info == 0 && e < tol<T>() * n && e2 < tol<T>() * n,
           "potrf+potrs", tn, e + e2);
  }

  // QR: geqrf then orgqr/ungqr: Q R == A and Q^H Q == I.
  {
    const int m = 6, k = 4;
    auto a = matrix<T>(m, 5, false);
    a.resize(m * k);
    auto q = a;
    std::vector<T> tau(k);
    if constexpr (std::is_same<T, float>::value) {
      st = musolverDnSgeqrf(h, m, k, q.data(), m, tau.data(), nullptr, 0, &info);
      if (st == MUSOLVER_STATUS_SUCCESS) st = musolverDnSorgqr(h, m, k, k, q.data(), m, tau.data(), nullptr, 0, &info);
    } else if constexpr (std::is_same<T, double>::value) {
      st = musolverDnXgeqrf(h, nullptr, m, k, MUSA_R_64F, q.data(), m, MUSA_R_64F, tau.data(), MUSA_R_64F, nullptr, 0, nullptr, 0, &info);
      if (st == MUSOLVER_STATUS_SUCCESS) st = musolverDnDorgqr(h, m, k, k, q.data(), m, tau.data(), nullptr, 0, &info);
    } else if constexpr (std::is_same<T, std::complex<float>>::value) {
      st = musolverDnCgeqrf(h, m, k, mu(q.data()), m, mu(tau.data()), nullptr, 0, &info);
      if (st == MUSOLVER_STATUS_SUCCESS) st = musolverDnMungqr(h, m, k, k, mu(q.data()), m, mu(tau.data()), nullptr, 0, &info);
    } else {
      T* qp = q.data();
      T* tp = tau.data();
      int binfo = -1;
      if (mublasZgeqrfBatched(bh, m, k, mu(&qp), m, mu(&tp), &binfo, 1) != MUBLAS_STATUS_SUCCESS || binfo != 0)
        st = MUSOLVER_STATUS_EXECUTION_FAILED;
      else
        st = musolverDnZungqr(h, m, k, k, mu(q.data()), m, mu(tau.data()), nullptr, 0, &info);
    }
    // R = Q^H A (k x k upper triangular); check Q R == A.
    std::vector<T> qh(k * m);
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < k; ++i) qh[i + j * k] = musaport::lapack::conj(q[j + i * m]);
    const auto r = mul(qh, a, k, m, k);
    double lower = 0.0;
    for (int j = 0; j < k; ++j)
      for (int i = j + 1; i < k; ++i) lower = std::max(lower, static_cast<double>(std::abs(r[i + j * k])));
    const double e = diff(mul(q, r, m, k, k), a) + lower;
    expect(st == MUSOLVER_STATUS_SUCCESS && info == 0 && e < tol<T>() * 10, "geqrf+orgqr", tn, e);
  }

  // Hermitian eigen solver: syevj (batched, two matrices) gives A V == V diag(w), w ascending.
  {
    std::vector<T> a = matrix<T>(n, 6, true), a2 = matrix<T>(n, 7, true);
    std::vector<T> v = a;
    v.insert(v.end(), a2.begin(), a2.end());
    std::vector<Real<T>> w(2 * n);
    std::vector<int> infos(2, -1);
    syevjInfo_t params;
    musolverDnCreateSyevjInfo(&params);
    musolverDnXsyevjSetSortEig(params, 1);
    if constexpr (std::is_same<T, float>::value)
      st = musolverDnSsyevjBatched(h, MUSOLVER_EIG_MODE_VECTOR, MUBLAS_FILL_MODE_UPPER, n, v.data(), n, w.data(), nullptr, 0, infos.data(), params, 2);
    else if constexpr (std::is_same<T, double>::value)
      st = musolverDnDsyevd(h, MUSOLVER_EIG_MODE_VECTOR, MUBLAS_FILL_MODE_UPPER, n, v.data(), n, w.data(), nullptr, 0, infos.data()) ||
           musolverDnDsyevj(h, MUSOLVER_EIG_MODE_VECTOR, MUBLAS_FILL_MODE_LOWER, n, v.data() + n * n, n, w.data() + n, nullptr, 0, infos.data() + 1, params)
               ? MUSOLVER_STATUS_EXECUTION_FAILED : MUSOLVER_STATUS_SUCCESS;
    else if constexpr (std::is_same<T, std::complex<float>>::value)
      st = musolverDnCheevjBatched(h, MUSOLVER_EIG_MODE_VECTOR, MUBLAS_FILL_MODE_LOWER, n, mu(v.data()), n, w.data(), nullptr, 0, infos.data(), params, 2);
    else {
      st = musolverDnXsyevd(h, nullptr, MUSOLVER_EIG_MODE_VECTOR, MUBLAS_FILL_MODE_LOWER, n, MUSA_C_64F, v.data(), n, MUSA_R_64F, w.data(), MUSA_C_64F, nullptr, 0, nullptr, 0, infos.data());
      if (st == MUSOLVER_STATUS_SUCCESS)
        st = musolverDnZheevj(h, MUSOLVER_EIG_MODE_VECTOR, MUBLAS_FILL_MODE_UPPER, n, mu(v.data() + n * n), n, w.data() + n, nullptr, 0, infos.data() + 1, params);
    }
    musolverDnDestroySyevjInfo(params);
    double e = 0.0;
    bool sorted = true;
    for (int b = 0; b < 2; ++b) {
      const auto& ab = b == 0 ? a : a2;
      std::vector<T> vb(v.begin() + b * n * n, v.begin() + (b + 1) * n * n), vw = vb;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) vw[i + j * n] *= w[b * n + j];
      e = std::max(e, diff(mul(ab, vb, n, n, n), vw));
      for (int j = 1; j < n; ++j) sorted = sorted && w[b * n + j - 1] <= w[b * n + j];
    }
    expect(st == MUSOLVER_STATUS_SUCCESS && infos[0] == 0 && infos[1] == 0 && sorted && e < tol<T>() * 100,
           "syevj/heevj", tn, e);
  }

  // SVD: gesvdj (economic, V returned) on a 6 x 4 matrix: U diag(S) V^H == A, S descending.
  {
    const int m = 6, k = 4;
    auto a = matrix<T>(m, 8, false);
    a.resize(m * k);
    auto work = a;
    std::vector<Real<T>> s(k);
    std::vector<T> u(m * k), v(k * k);
    gesvdjInfo_t params;
    musolverDnCreateGesvdjInfo(&params);
    musolverDnXgesvdjSetTolerance(params, 1e-7);
    musolverDnXgesvdjSetMaxSweeps(params, 100);
    if constexpr (std::is_same<T, float>::value)
      st = musolverDnSgesvdj(h, MUSOLVER_EIG_MODE_VECTOR, 1, m, k, work.data(), m, s.data(), u.data(), m, v.data(), k, nullptr, 0, &info, params);
    else if constexpr (std::is_same<T, double>::value)
      st = musolverDnDgesvdaStridedBatched(h, MUSOLVER_EIG_MODE_VECTOR, k, m, k, work.data(), m, m * k, s.data(), k, u.data(), m, m * k, v.data(), k, k * k, nullptr, 0, &info, nullptr, 1);
    else if constexpr (std::is_same<T, std::complex<float>>::value)
      st = musolverDnCgesvdj(h, MUSOLVER_EIG_MODE_VECTOR, 1, m, k, mu(work.data()), m, s.data(), mu(u.data()), m, mu(v.data()), k, nullptr, 0, &info, params);
    else {
      std::vector<T> vt(k * k);
      st = musolverDnZgesvd(h, 'S', 'S', m, k, mu(work.data()), m, s.data(), mu(u.data()), m, mu(vt.data()), k, nullptr, 0, nullptr, &info);
      for (int j = 0; j < k; ++j)
        for (int i = 0; i < k; ++i) v[i + j * k] = std::conj(vt[j + i * k]);
    }
    if constexpr (std::is_same<T, float>::value) {
      // The stride of a row-major V (1) as ldv: refused, as cuSOLVER refuses it, and nothing written.
      std::vector<T> again = a, u2(m * k), v2(k * k, T(7));
      const musolverStatus_t bad = musolverDnSgesvdjBatched(h, MUSOLVER_EIG_MODE_VECTOR, m, k, again.data(), m,
                                                            s.data(), u2.data(), m, v2.data(), 1, nullptr, 0, &info,
                                                            params, 1);
      expect(bad == MUSOLVER_STATUS_INVALID_VALUE && v2[1] == T(7), "gesvdjBatched ldv < n", tn, 0.0);
    }
    musolverDnDestroyGesvdjInfo(params);
    std::vector<T> us = u, vh(k * k);
    for (int j = 0; j < k; ++j)
      for (int i = 0; i < m; ++i) us[i + j * m] *= s[j];
    for (int j = 0; j < k; ++j)
      for (int i = 0; i < k; ++i) vh[i + j * k] = musaport::lapack::conj(v[j + i * k]);
    bool sorted = true;
    for (int j = 1; j < k; ++j) sorted = sorted && s[j - 1] >= s[j];
    const double e = diff(mul(us, vh, m, k, k), a);
    expect(st == MUSOLVER_STATUS_SUCCESS && info == 0 && sorted && e < tol<T>() * 10, "gesvd", tn, e);
  }

  // muBLAS: getrfBatched + getrsBatched, and trsm (L X = B with L from the LU).
  {
    auto a = matrix<T>(n, 9, false), lu = a;
    auto x = matrix<T>(n, 10, false);
    x.resize(n * nrhs);
    const auto b = x;
    std::vector<int> piv(n), infos(1, -1);
    int binfo = -1;
    T* lp = lu.data();
    T* xp = x.data();
    const T* clp = lu.data();
    mublasStatus_t bs;
    if constexpr (std::is_same<T, float>::value) {
      bs = mublasSgetrfBatched(bh, n, &lp, n, piv.data(), infos.data(), 1);
      if (bs == MUBLAS_STATUS_SUCCESS) bs = mublasSgetrsBatched(bh, MUBLAS_OP_N, n, nrhs, &clp, n, piv.data(), &xp, n, &binfo, 1);
    } else if constexpr (std::is_same<T, double>::value) {
      bs = mublasDgetrfBatched(bh, n, &lp, n, piv.data(), infos.data(), 1);
      if (bs == MUBLAS_STATUS_SUCCESS) bs = mublasDgetrsBatched(bh, MUBLAS_OP_N, n, nrhs, &clp, n, piv.data(), &xp, n, &binfo, 1);
    } else if constexpr (std::is_same<T, std::complex<float>>::value) {
      bs = mublasCgetrfBatched(bh, n, mu(&lp), n, piv.data(), infos.data(), 1);
      if (bs == MUBLAS_STATUS_SUCCESS)
        bs = mublasCgetrsBatched(bh, MUBLAS_OP_N, n, nrhs, reinterpret_cast<const muComplex* const*>(&clp), n, piv.data(), mu(&xp), n, &binfo, 1);
    } else {
      bs = mublasZgetrfBatched(bh, n, mu(&lp), n, piv.data(), infos.data(), 1);
      if (bs == MUBLAS_STATUS_SUCCESS)
        bs = mublasZgetrsBatched(bh, MUBLAS_OP_N, n, nrhs, reinterpret_cast<const muDoubleComplex* const*>(&clp), n, piv.data(), mu(&xp), n, &binfo, 1);
    }
    const double e = diff(mul(a, x, n, n, nrhs), b);
    expect(bs == MUBLAS_STATUS_SUCCESS && infos[0] == 0 && binfo == 0 && e < tol<T>(), "getrfBatched+getrsBatched", tn, e);

    // trsm: U X = alpha B with U the upper factor, checked by multiplying back.
    std::vector<T> up(n * n, T(0));
    for (int j = 0; j < n; ++j)
      for (int i = 0; i <= j; ++i) up[i + j * n] = lu[i + j * n];
    auto y = b;
    const T alpha = T(2);
    if constexpr (std::is_same<T, float>::value)
      bs = mublasStrsm(bh, MUBLAS_SIDE_LEFT, MUBLAS_FILL_MODE_UPPER, MUBLAS_OP_N, MUBLAS_DIAG_NON_UNIT, n, nrhs, &alpha, lu.data(), n, y.data(), n);
    else if constexpr (std::is_same<T, double>::value)
      bs = mublasDtrsm(bh, MUBLAS_SIDE_LEFT, MUBLAS_FILL_MODE_UPPER, MUBLAS_OP_N, MUBLAS_DIAG_NON_UNIT, n, nrhs, &alpha, lu.data(), n, y.data(), n);
    else if constexpr (std::is_same<T, std::complex<float>>::value)
      bs = mublasCtrsm(bh, MUBLAS_SIDE_LEFT, MUBLAS_FILL_MODE_UPPER, MUBLAS_OP_N, MUBLAS_DIAG_NON_UNIT, n, nrhs, reinterpret_cast<const muComplex*>(&alpha), mu(lu.data()), n, mu(y.data()), n);
    else {
      T* yp = y.data();
      const T* cup = lu.data();
      bs = mublasZtrsmBatched(bh, MUBLAS_SIDE_LEFT, MUBLAS_FILL_MODE_UPPER, MUBLAS_OP_N, MUBLAS_DIAG_NON_UNIT, n, nrhs, reinterpret_cast<const muDoubleComplex*>(&alpha),
                              reinterpret_cast<const muDoubleComplex* const*>(&cup), n, mu(&yp), n, 1);
    }
    auto b2 = b;
    for (auto& v : b2) v *= alpha;
    const double e2 = diff(mul(up, y, n, n, nrhs), b2);
    expect(bs == MUBLAS_STATUS_SUCCESS && e2 < tol<T>() * 10, "trsm", tn, e2);
  }

  mublasDestroy(bh);
  musolverDnDestroy(h);
}

}  // namespace

int main() {
  check_type<float>();
  check_type<double>();
  check_type<std::complex<float>>();
  check_type<std::complex<double>>();
  // A form the shim does not compute says so rather than answering wrong.
  musolverDnHandle_t h;
  musolverDnCreate(&h);
  float a[4] = {1, 0, 0, 1}, s[2], u[4], vt[4];
  int info = 0;
  expect(musolverDnSgesvd(h, 'O', 'N', 2, 2, a, 2, s, u, 2, vt, 2, nullptr, 0, nullptr, &info) == MUSOLVER_STATUS_NOT_SUPPORTED,
         "gesvd jobu=O is not supported", "float");
  musolverDnDestroy(h);
  // geqrfBatched of matrices with no columns (PyTorch's geqrf of a (2, 5, 0) batch) makes no reflectors
  // and reads nothing: PyTorch's pointer arrays are empty then.
  mublasHandle_t bh;
  mublasCreate(&bh);
  int binfo = -1;
  expect(mublasSgeqrfBatched(bh, 5, 0, nullptr, 5, nullptr, &binfo, 2) == MUBLAS_STATUS_SUCCESS && binfo == 0,
         "geqrfBatched with n == 0", "float");
  mublasDestroy(bh);
  if (failures == 0) std::printf("PASS solver\n");
  return failures == 0 ? 0 : 1;
}
