// musaport shim: math in kernels.
//
// CPU mode: the C library already provides expf, sqrt, ... for device code,
// since device code is host code there.
// clang CUDA mode: the C library's functions are host functions, which device
// code may not call, so device overloads are declared here (internal linkage,
// bodies forwarding to compiler builtins; only their signatures matter for the
// syntax check) and re-exported into namespace std.
// Both modes: the GPU-only math functions (rsqrtf, erfinvf, normcdff, sinpif,
// ...) and the integer/float min/max overloads, as host-device functions.
#pragma once

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <cmath>
#include <cstdlib>

#if MUSAPORT_CLANG_CUDA
#include <type_traits>
#define MUSAPORT_DMATH static __device__ inline

#define MUSAPORT_MATH1(name)                                                         \
  MUSAPORT_DMATH double name(double x) { return __builtin_##name(x); }               \
  MUSAPORT_DMATH float name##f(float x) { return __builtin_##name##f(x); }           \
  MUSAPORT_DMATH float name(float x) { return __builtin_##name##f(x); }              \
  namespace std { using ::name; }

// Mixed argument types (std::pow(double, int), std::fmax(float, double)...):
// libstdc++'s generic templates are host functions, so the device side gets
// its own, promoting like them (float only when both are float).
template <typename T, typename U>
using musaport_promote_t = typename std::enable_if<
    std::is_arithmetic<T>::value && std::is_arithmetic<U>::value,
    typename std::conditional<
        std::is_same<T, long double>::value || std::is_same<U, long double>::value, long double,
        typename std::conditional<std::is_same<T, float>::value && std::is_same<U, float>::value, float,
                                  double>::type>::type>::type;

#define MUSAPORT_MATH2(name)                                                         \
  MUSAPORT_DMATH double name(double x, double y) { return __builtin_##name(x, y); }  \
  MUSAPORT_DMATH float name##f(float x, float y) { return __builtin_##name##f(x, y); } \
  MUSAPORT_DMATH float name(float x, float y) { return __builtin_##name##f(x, y); }  \
  template <typename T, typename U, typename P = musaport_promote_t<T, U>>          \
  MUSAPORT_DMATH P name(T x, U y) { return name((P)x, (P)y); }                      \
  namespace std { using ::name; }

MUSAPORT_MATH1(acos) MUSAPORT_MATH1(acosh) MUSAPORT_MATH1(asin) MUSAPORT_MATH1(asinh)
MUSAPORT_MATH1(atan) MUSAPORT_MATH1(atanh) MUSAPORT_MATH1(cbrt) MUSAPORT_MATH1(ceil)
MUSAPORT_MATH1(cos) MUSAPORT_MATH1(cosh) MUSAPORT_MATH1(erf) MUSAPORT_MATH1(erfc)
MUSAPORT_MATH1(exp) MUSAPORT_MATH1(exp2) MUSAPORT_MATH1(expm1) MUSAPORT_MATH1(fabs)
MUSAPORT_MATH1(floor) MUSAPORT_MATH1(lgamma) MUSAPORT_MATH1(log) MUSAPORT_MATH1(log10)
MUSAPORT_MATH1(log1p) MUSAPORT_MATH1(log2) MUSAPORT_MATH1(logb) MUSAPORT_MATH1(nearbyint)
MUSAPORT_MATH1(rint) MUSAPORT_MATH1(round) MUSAPORT_MATH1(sin) MUSAPORT_MATH1(sinh)
MUSAPORT_MATH1(sqrt) MUSAPORT_MATH1(tan) MUSAPORT_MATH1(tanh) MUSAPORT_MATH1(tgamma)
MUSAPORT_MATH1(trunc)
MUSAPORT_MATH2(atan2) MUSAPORT_MATH2(copysign) MUSAPORT_MATH2(fdim) MUSAPORT_MATH2(fmax)
MUSAPORT_MATH2(fmin) MUSAPORT_MATH2(fmod) MUSAPORT_MATH2(hypot) MUSAPORT_MATH2(nextafter)
MUSAPORT_MATH2(pow) MUSAPORT_MATH2(remainder)
#undef MUSAPORT_MATH1
#undef MUSAPORT_MATH2

MUSAPORT_DMATH double fma(double x, double y, double z) { return __builtin_fma(x, y, z); }
MUSAPORT_DMATH float fmaf(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
MUSAPORT_DMATH float fma(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
MUSAPORT_DMATH float pow(float x, int n) { return __builtin_powf(x, (float)n); }
MUSAPORT_DMATH double pow(double x, int n) { return __builtin_pow(x, (double)n); }
MUSAPORT_DMATH double frexp(double x, int* e) { return __builtin_frexp(x, e); }
MUSAPORT_DMATH float frexpf(float x, int* e) { return __builtin_frexpf(x, e); }
MUSAPORT_DMATH double ldexp(double x, int e) { return __builtin_ldexp(x, e); }
MUSAPORT_DMATH float ldexpf(float x, int e) { return __builtin_ldexpf(x, e); }
MUSAPORT_DMATH double scalbn(double x, int e) { return __builtin_scalbn(x, e); }
MUSAPORT_DMATH float scalbnf(float x, int e) { return __builtin_scalbnf(x, e); }
MUSAPORT_DMATH double modf(double x, double* i) { return __builtin_modf(x, i); }
MUSAPORT_DMATH float modff(float x, float* i) { return __builtin_modff(x, i); }
MUSAPORT_DMATH int ilogb(double x) { return __builtin_ilogb(x); }
MUSAPORT_DMATH int ilogbf(float x) { return __builtin_ilogbf(x); }
MUSAPORT_DMATH long lround(double x) { return __builtin_lround(x); }
MUSAPORT_DMATH long lroundf(float x) { return __builtin_lroundf(x); }
MUSAPORT_DMATH long long llround(double x) { return __builtin_llround(x); }
MUSAPORT_DMATH long long llroundf(float x) { return __builtin_llroundf(x); }
MUSAPORT_DMATH long lrint(double x) { return __builtin_lrint(x); }
MUSAPORT_DMATH long lrintf(float x) { return __builtin_lrintf(x); }
MUSAPORT_DMATH long long llrint(double x) { return __builtin_llrint(x); }
MUSAPORT_DMATH long long llrintf(float x) { return __builtin_llrintf(x); }
MUSAPORT_DMATH double exp10(double x) { return __builtin_pow(10.0, x); }
MUSAPORT_DMATH float exp10f(float x) { return __builtin_powf(10.0f, x); }
MUSAPORT_DMATH void sincos(double x, double* s, double* c) { *s = __builtin_sin(x); *c = __builtin_cos(x); }
MUSAPORT_DMATH void sincosf(float x, float* s, float* c) { *s = __builtin_sinf(x); *c = __builtin_cosf(x); }
MUSAPORT_DMATH int abs(int x) { return x < 0 ? -x : x; }
MUSAPORT_DMATH long labs(long x) { return x < 0 ? -x : x; }
MUSAPORT_DMATH long long llabs(long long x) { return x < 0 ? -x : x; }
namespace std {
using ::fma; using ::frexp; using ::ldexp; using ::scalbn; using ::modf; using ::ilogb;
using ::lround; using ::llround; using ::lrint; using ::llrint; using ::abs; using ::labs; using ::llabs;
}  // namespace std

// Device-side C library pieces that kernels use: printf, assert, malloc.
extern "C" __device__ int printf(const char* format, ...);
extern "C" __device__ void __assert_fail(const char* expr, const char* file, unsigned int line,
                                         const char* function) noexcept __attribute__((noreturn));
extern "C" __device__ void* malloc(size_t size) noexcept;
extern "C" __device__ void free(void* ptr) noexcept;
extern "C" __device__ void* memcpy(void* dst, const void* src, size_t n) noexcept;
extern "C" __device__ void* memset(void* dst, int value, size_t n) noexcept;
// <cstring>/<cstdlib> were read before these overloads existed; re-export so
// std::memcpy etc. see the device side too.
namespace std {
using ::free; using ::malloc; using ::memcpy; using ::memset;
}  // namespace std
#undef MUSAPORT_DMATH
#endif  // MUSAPORT_CLANG_CUDA

// ------------------------------------------------------------ GPU-only math (both modes)
namespace musaport {
namespace math {
// erf^-1 by a closed-form first guess (Winitzki's approximation) refined with
// Newton steps on erf, in double precision.
MUSAPORT_HD_INLINE double erfinv(double x) {
  if (x <= -1.0) return x == -1.0 ? -HUGE_VAL : NAN;
  if (x >= 1.0) return x == 1.0 ? HUGE_VAL : NAN;
  const double a = 0.147, pi = 3.14159265358979323846;
  const double ln = ::log((1.0 - x) * (1.0 + x));
  const double t = 2.0 / (pi * a) + ln / 2.0;
  double y = ::sqrt(::sqrt(t * t - ln / a) - t);
  if (x < 0) y = -y;
  for (int i = 0; i < 3; ++i) {
    const double err = ::erf(y) - x;
    y -= err / (2.0 / ::sqrt(pi) * ::exp(-y * y));
  }
  return y;
}
MUSAPORT_HD_INLINE double erfcx(double x) {
  if (x < 25.0) return ::exp(x * x) * ::erfc(x);
  const double inv2 = 1.0 / (2.0 * x * x);  // asymptotic series, 3 terms
  return (1.0 - inv2 + 3.0 * inv2 * inv2) / (x * 1.7724538509055160273);
}
// sin(pi x) / cos(pi x) with the argument reduced first, so integers give
// exact zeros as on the GPU.
MUSAPORT_HD_INLINE double reduce_half_turns(double x) { return x - 2.0 * ::round(x / 2.0); }
}  // namespace math
}  // namespace musaport

// C23 adopted a few GPU names (rsqrt, sinpi, cospi); newer C libraries declare
// them with C linkage, and then theirs are used.
#if defined(__GLIBC__) && defined(__GLIBC_PREREQ)
#if __GLIBC_PREREQ(2, 41)
#define MUSAPORT_LIBC_HAS_C23_MATH 1
#endif
#endif
#ifndef MUSAPORT_LIBC_HAS_C23_MATH
MUSAPORT_HD_INLINE float rsqrtf(float x) { return 1.0f / ::sqrtf(x); }
MUSAPORT_HD_INLINE double rsqrt(double x) { return 1.0 / ::sqrt(x); }
MUSAPORT_HD_INLINE double sinpi(double x) { return ::sin(3.14159265358979323846 * musaport::math::reduce_half_turns(x)); }
MUSAPORT_HD_INLINE double cospi(double x) { return ::cos(3.14159265358979323846 * musaport::math::reduce_half_turns(x)); }
MUSAPORT_HD_INLINE float sinpif(float x) { return (float)sinpi(x); }
MUSAPORT_HD_INLINE float cospif(float x) { return (float)cospi(x); }
#endif
MUSAPORT_HD_INLINE float rcbrtf(float x) { return 1.0f / ::cbrtf(x); }
MUSAPORT_HD_INLINE double rcbrt(double x) { return 1.0 / ::cbrt(x); }
MUSAPORT_HD_INLINE float fdividef(float x, float y) { return x / y; }
MUSAPORT_HD_INLINE void sincospi(double x, double* s, double* c) { *s = sinpi(x); *c = cospi(x); }
MUSAPORT_HD_INLINE void sincospif(float x, float* s, float* c) { *s = sinpif(x); *c = cospif(x); }
MUSAPORT_HD_INLINE double erfinv(double x) { return musaport::math::erfinv(x); }
MUSAPORT_HD_INLINE float erfinvf(float x) { return (float)musaport::math::erfinv(x); }
MUSAPORT_HD_INLINE double erfcinv(double y) { return musaport::math::erfinv(1.0 - y); }
MUSAPORT_HD_INLINE float erfcinvf(float y) { return (float)musaport::math::erfinv(1.0 - (double)y); }
MUSAPORT_HD_INLINE double erfcx(double x) { return musaport::math::erfcx(x); }
MUSAPORT_HD_INLINE float erfcxf(float x) { return (float)musaport::math::erfcx(x); }
MUSAPORT_HD_INLINE double normcdf(double x) { return 0.5 * ::erfc(-x * 0.70710678118654752440); }
MUSAPORT_HD_INLINE float normcdff(float x) { return (float)normcdf(x); }
MUSAPORT_HD_INLINE double normcdfinv(double p) { return 1.41421356237309504880 * musaport::math::erfinv(2.0 * p - 1.0); }
MUSAPORT_HD_INLINE float normcdfinvf(float p) { return (float)normcdfinv(p); }
MUSAPORT_HD_INLINE float norm3df(float a, float b, float c) { return ::sqrtf(a * a + b * b + c * c); }
MUSAPORT_HD_INLINE float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }
MUSAPORT_HD_INLINE float rhypotf(float x, float y) { return 1.0f / ::hypotf(x, y); }
MUSAPORT_HD_INLINE double rhypot(double x, double y) { return 1.0 / ::hypot(x, y); }

// min/max overloads of the GPU math library (global namespace, both sides).
#define MUSAPORT_MINMAX(A, B, R)                                             \
  MUSAPORT_HD_INLINE R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; } \
  MUSAPORT_HD_INLINE R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
MUSAPORT_MINMAX(int, int, int)
MUSAPORT_MINMAX(unsigned int, unsigned int, unsigned int)
MUSAPORT_MINMAX(int, unsigned int, unsigned int)
MUSAPORT_MINMAX(unsigned int, int, unsigned int)
MUSAPORT_MINMAX(long, long, long)
MUSAPORT_MINMAX(unsigned long, unsigned long, unsigned long)
MUSAPORT_MINMAX(long long, long long, long long)
MUSAPORT_MINMAX(unsigned long long, unsigned long long, unsigned long long)
MUSAPORT_MINMAX(long long, unsigned long long, unsigned long long)
MUSAPORT_MINMAX(unsigned long long, long long, unsigned long long)
#undef MUSAPORT_MINMAX
MUSAPORT_HD_INLINE float min(float a, float b) { return ::fminf(a, b); }
MUSAPORT_HD_INLINE float max(float a, float b) { return ::fmaxf(a, b); }
MUSAPORT_HD_INLINE double min(double a, double b) { return ::fmin(a, b); }
MUSAPORT_HD_INLINE double max(double a, double b) { return ::fmax(a, b); }
MUSAPORT_HD_INLINE double min(float a, double b) { return ::fmin(a, b); }
MUSAPORT_HD_INLINE double max(float a, double b) { return ::fmax(a, b); }
MUSAPORT_HD_INLINE double min(double a, float b) { return ::fmin(a, b); }
MUSAPORT_HD_INLINE double max(double a, float b) { return ::fmax(a, b); }
