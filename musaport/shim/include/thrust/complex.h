// musaport shim: thrust::complex, the part of MUSA's thrust that PyTorch's
// c10/util/complex.h and complex_math.h use: the value type, conversions and
// the elementary functions.  The functions go through std::complex, which
// clang's CUDA mode makes callable from device code and which is exact
// enough for CPU runs.
#pragma once

#include <complex>

#include <musaport_shim/config.h>

namespace thrust {

template <typename T>
struct complex {
  using value_type = T;

  MUSAPORT_HD constexpr complex(const T& re = T(), const T& im = T()) : re_(re), im_(im) {}
  template <typename U>
  MUSAPORT_HD constexpr complex(const complex<U>& other) : re_(T(other.real())), im_(T(other.imag())) {}
  template <typename U>
  MUSAPORT_HD complex(const std::complex<U>& other) : re_(T(other.real())), im_(T(other.imag())) {}

  MUSAPORT_HD constexpr T real() const { return re_; }
  MUSAPORT_HD constexpr T imag() const { return im_; }
  MUSAPORT_HD void real(T re) { re_ = re; }
  MUSAPORT_HD void imag(T im) { im_ = im; }
  MUSAPORT_HD operator std::complex<T>() const { return std::complex<T>(re_, im_); }

 private:
  T re_;
  T im_;
};

namespace musaport_detail {
template <typename T>
MUSAPORT_HD std::complex<T> to_std(const complex<T>& z) { return std::complex<T>(z.real(), z.imag()); }
}  // namespace musaport_detail

template <typename T>
MUSAPORT_HD T abs(const complex<T>& z) { return std::abs(musaport_detail::to_std(z)); }
template <typename T>
MUSAPORT_HD T arg(const complex<T>& z) { return std::arg(musaport_detail::to_std(z)); }
template <typename T>
MUSAPORT_HD T norm(const complex<T>& z) { return std::norm(musaport_detail::to_std(z)); }
template <typename T>
MUSAPORT_HD complex<T> conj(const complex<T>& z) { return complex<T>(z.real(), -z.imag()); }
template <typename T>
MUSAPORT_HD complex<T> polar(const T& r, const T& theta = T()) { return std::polar(r, theta); }

#define MUSAPORT_THRUST_UNARY(name) \
  template <typename T>             \
  MUSAPORT_HD complex<T> name(const complex<T>& z) { return std::name(musaport_detail::to_std(z)); }
MUSAPORT_THRUST_UNARY(proj)
MUSAPORT_THRUST_UNARY(exp)
MUSAPORT_THRUST_UNARY(log)
MUSAPORT_THRUST_UNARY(log10)
MUSAPORT_THRUST_UNARY(sqrt)
MUSAPORT_THRUST_UNARY(sin)
MUSAPORT_THRUST_UNARY(cos)
MUSAPORT_THRUST_UNARY(tan)
MUSAPORT_THRUST_UNARY(asin)
MUSAPORT_THRUST_UNARY(acos)
MUSAPORT_THRUST_UNARY(atan)
MUSAPORT_THRUST_UNARY(sinh)
MUSAPORT_THRUST_UNARY(cosh)
MUSAPORT_THRUST_UNARY(tanh)
MUSAPORT_THRUST_UNARY(asinh)
MUSAPORT_THRUST_UNARY(acosh)
MUSAPORT_THRUST_UNARY(atanh)
#undef MUSAPORT_THRUST_UNARY

template <typename T, typename U>
MUSAPORT_HD complex<T> pow(const complex<T>& x, const complex<U>& y) {
  return std::pow(musaport_detail::to_std(x), std::complex<T>(T(y.real()), T(y.imag())));
}
template <typename T, typename U>
MUSAPORT_HD complex<T> pow(const complex<T>& x, const U& y) { return std::pow(musaport_detail::to_std(x), T(y)); }
template <typename T, typename U>
MUSAPORT_HD complex<U> pow(const T& x, const complex<U>& y) { return std::pow(U(x), musaport_detail::to_std(y)); }

}  // namespace thrust
