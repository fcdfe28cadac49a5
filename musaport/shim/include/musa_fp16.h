// musaport shim: IEEE binary16 (`__half`, `__half2`) and its intrinsics.
//
// Values are stored as bits and converted in software, so the same code runs
// on the CPU and parses in clang's device pass.  Arithmetic is done in float
// and rounded once to half (round to nearest even); for add, sub and mul that
// is bit-exact because the float result is exact.
#pragma once

#include "musaport_shim/config.h"
#include "musaport_shim/vector_types.h"

#include <math.h>

namespace musaport {
namespace fp16 {

MUSAPORT_HD_INLINE unsigned int float_bits(float f) { return __builtin_bit_cast(unsigned int, f); }
MUSAPORT_HD_INLINE float bits_float(unsigned int u) { return __builtin_bit_cast(float, u); }

// Round-to-nearest-even float -> binary16 bits.
MUSAPORT_HD_INLINE unsigned short from_float(float value) {
  const unsigned int f = float_bits(value);
  const unsigned short sign = (unsigned short)((f >> 16) & 0x8000u);
  const unsigned int mag = f & 0x7fffffffu;
  if (mag >= 0x7f800000u)  // inf or NaN (NaNs stay quiet NaNs)
    return (unsigned short)(sign | 0x7c00u | (mag > 0x7f800000u ? 0x200u | ((mag >> 13) & 0x3ffu) : 0u));
  if (mag >= 0x477ff000u)  // >= 65520: rounds past the largest half (65504)
    return (unsigned short)(sign | 0x7c00u);
  if (mag < 0x38800000u) {  // below 2^-14: half subnormal or zero
    const unsigned int exp = mag >> 23;
    if (exp < 102) return sign;  // below 2^-25: rounds to zero
    const unsigned int mant = (mag & 0x7fffffu) | 0x800000u;
    const unsigned int shift = 126 - exp;  // count of 2^-24 units = mant >> shift
    unsigned int units = mant >> shift;
    const unsigned int rest = mant & ((1u << shift) - 1u), half_way = 1u << (shift - 1);
    if (rest > half_way || (rest == half_way && (units & 1u))) ++units;
    return (unsigned short)(sign | units);
  }
  unsigned int h = (mag - 0x38000000u) >> 13;  // rebias exponent 127 -> 15
  const unsigned int rest = mag & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // a carry may reach the exponent: fine
  return (unsigned short)(sign | h);
}

MUSAPORT_HD_INLINE float to_float(unsigned short h) {
  const unsigned int sign = (unsigned int)(h & 0x8000u) << 16;
  const unsigned int exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0) {  // zero or subnormal: mant * 2^-24 is exact in float
    const float magnitude = (float)mant * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  if (exp == 31) return bits_float(sign | 0x7f800000u | (mant << 13));
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

}  // namespace fp16
}  // namespace musaport

struct __half_raw {
  unsigned short x;
};

struct __half2_raw {
  unsigned short x, y;
};

struct __align__(2) __half {
  unsigned short __x;

  __half() = default;  // trivial, so __shared__ __half arrays are allowed
  MUSAPORT_HD constexpr __half(const __half_raw& raw) : __x(raw.x) {}
  MUSAPORT_HD __half(float f) : __x(musaport::fp16::from_float(f)) {}
  MUSAPORT_HD __half(double f) : __x(musaport::fp16::from_float((float)f)) {}
  MUSAPORT_HD __half(int v) : __x(musaport::fp16::from_float((float)v)) {}
  MUSAPORT_HD __half(unsigned int v) : __x(musaport::fp16::from_float((float)v)) {}
  MUSAPORT_HD __half(long long v) : __x(musaport::fp16::from_float((float)v)) {}
  MUSAPORT_HD __half(unsigned long long v) : __x(musaport::fp16::from_float((float)v)) {}
  MUSAPORT_HD __half(short v) : __x(musaport::fp16::from_float((float)v)) {}
  MUSAPORT_HD __half(unsigned short v) : __x(musaport::fp16::from_float((float)v)) {}

  MUSAPORT_HD operator float() const { return musaport::fp16::to_float(__x); }
  MUSAPORT_HD constexpr operator __half_raw() const { return __half_raw{__x}; }
  MUSAPORT_HD __half& operator=(const __half_raw& raw) { __x = raw.x; return *this; }

  // Operators are hidden friends: found for __half operands only, so a type
  // that converts to both __half and float (c10::Half) keeps using float's
  // built-in operators instead of an ambiguous choice.  Left out under
  // __MUSA_NO_HALF_OPERATORS__, as in the real header.
#ifndef __MUSA_NO_HALF_OPERATORS__
  friend MUSAPORT_HD __half operator+(const __half& a, const __half& b) { return __half(float(a) + float(b)); }
  friend MUSAPORT_HD __half operator-(const __half& a, const __half& b) { return __half(float(a) - float(b)); }
  friend MUSAPORT_HD __half operator*(const __half& a, const __half& b) { return __half(float(a) * float(b)); }
  friend MUSAPORT_HD __half operator/(const __half& a, const __half& b) { return __half(float(a) / float(b)); }
  friend MUSAPORT_HD __half& operator+=(__half& a, const __half& b) { return a = a + b; }
  friend MUSAPORT_HD __half& operator-=(__half& a, const __half& b) { return a = a - b; }
  friend MUSAPORT_HD __half& operator*=(__half& a, const __half& b) { return a = a * b; }
  friend MUSAPORT_HD __half& operator/=(__half& a, const __half& b) { return a = a / b; }
  friend MUSAPORT_HD __half operator+(const __half& a) { return a; }
  friend MUSAPORT_HD __half operator-(const __half& a) { return __half(__half_raw{(unsigned short)(a.__x ^ 0x8000u)}); }
  friend MUSAPORT_HD bool operator==(const __half& a, const __half& b) { return float(a) == float(b); }
  friend MUSAPORT_HD bool operator!=(const __half& a, const __half& b) { return float(a) != float(b); }
  friend MUSAPORT_HD bool operator<(const __half& a, const __half& b) { return float(a) < float(b); }
  friend MUSAPORT_HD bool operator<=(const __half& a, const __half& b) { return float(a) <= float(b); }
  friend MUSAPORT_HD bool operator>(const __half& a, const __half& b) { return float(a) > float(b); }
  friend MUSAPORT_HD bool operator>=(const __half& a, const __half& b) { return float(a) >= float(b); }
#endif
};

struct __align__(4) __half2 {
  __half x, y;

  __half2() = default;
  MUSAPORT_HD constexpr __half2(const __half& a, const __half& b) : x(a), y(b) {}
  MUSAPORT_HD __half2(const __half2_raw& raw) : x(__half_raw{raw.x}), y(__half_raw{raw.y}) {}
  MUSAPORT_HD operator __half2_raw() const { return __half2_raw{x.__x, y.__x}; }

#ifndef __MUSA_NO_HALF2_OPERATORS__
  friend MUSAPORT_HD __half2 operator+(const __half2& a, const __half2& b) {
    return __half2(__half(float(a.x) + float(b.x)), __half(float(a.y) + float(b.y)));
  }
  friend MUSAPORT_HD __half2 operator-(const __half2& a, const __half2& b) {
    return __half2(__half(float(a.x) - float(b.x)), __half(float(a.y) - float(b.y)));
  }
  friend MUSAPORT_HD __half2 operator*(const __half2& a, const __half2& b) {
    return __half2(__half(float(a.x) * float(b.x)), __half(float(a.y) * float(b.y)));
  }
  friend MUSAPORT_HD __half2 operator/(const __half2& a, const __half2& b) {
    return __half2(__half(float(a.x) / float(b.x)), __half(float(a.y) / float(b.y)));
  }
  friend MUSAPORT_HD __half2& operator+=(__half2& a, const __half2& b) { return a = a + b; }
  friend MUSAPORT_HD __half2& operator*=(__half2& a, const __half2& b) { return a = a * b; }
  friend MUSAPORT_HD __half2 operator-(const __half2& a) { return __half2(__half(-float(a.x)), __half(-float(a.y))); }
#endif
};

typedef __half half;
typedef __half2 half2;

// ---------------------------------------------------------------- conversions
MUSAPORT_HD_INLINE __half __float2half(float f) { return __half(f); }
MUSAPORT_HD_INLINE __half __float2half_rn(float f) { return __half(f); }
MUSAPORT_HD_INLINE __half __double2half(double f) { return __half(f); }
MUSAPORT_HD_INLINE float __half2float(__half h) { return musaport::fp16::to_float(h.__x); }
MUSAPORT_HD_INLINE __half __int2half_rn(int v) { return __half((float)v); }
MUSAPORT_HD_INLINE __half __uint2half_rn(unsigned int v) { return __half((float)v); }
// The _rz/_rd/_ru forms round to nearest, like the shim's other rounding-mode intrinsics.
MUSAPORT_HD_INLINE __half __float2half_rz(float f) { return __half(f); }
MUSAPORT_HD_INLINE __half __float2half_rd(float f) { return __half(f); }
MUSAPORT_HD_INLINE __half __float2half_ru(float f) { return __half(f); }
MUSAPORT_HD_INLINE __half __int2half_rz(int v) { return __half((float)v); }
MUSAPORT_HD_INLINE __half __int2half_rd(int v) { return __half((float)v); }
MUSAPORT_HD_INLINE __half __int2half_ru(int v) { return __half((float)v); }
MUSAPORT_HD_INLINE __half __uint2half_rz(unsigned int v) { return __half((float)v); }
MUSAPORT_HD_INLINE __half __short2half_rn(short v) { return __half((float)v); }
MUSAPORT_HD_INLINE __half __ushort2half_rn(unsigned short v) { return __half((float)v); }
MUSAPORT_HD_INLINE __half __ll2half_rn(long long v) { return __half((float)v); }
MUSAPORT_HD_INLINE __half __ull2half_rn(unsigned long long v) { return __half((float)v); }
MUSAPORT_HD_INLINE int __half2int_rz(__half h) { return (int)__half2float(h); }
MUSAPORT_HD_INLINE int __half2int_rn(__half h) { return (int)rintf(__half2float(h)); }
MUSAPORT_HD_INLINE unsigned short __half_as_ushort(__half h) { return h.__x; }
MUSAPORT_HD_INLINE short __half_as_short(__half h) { return (short)h.__x; }
MUSAPORT_HD_INLINE __half __ushort_as_half(unsigned short v) { return __half(__half_raw{v}); }
MUSAPORT_HD_INLINE __half __short_as_half(short v) { return __half(__half_raw{(unsigned short)v}); }
MUSAPORT_HD_INLINE __half2 __half2half2(__half h) { return __half2(h, h); }
MUSAPORT_HD_INLINE __half2 __halves2half2(__half lo, __half hi) { return __half2(lo, hi); }
MUSAPORT_HD_INLINE __half2 make_half2(__half x, __half y) { return __half2(x, y); }
MUSAPORT_HD_INLINE __half2 __float2half2_rn(float f) { return __half2(__half(f), __half(f)); }
MUSAPORT_HD_INLINE __half2 __floats2half2_rn(float lo, float hi) { return __half2(__half(lo), __half(hi)); }
MUSAPORT_HD_INLINE __half2 __float22half2_rn(float2 v) { return __half2(__half(v.x), __half(v.y)); }
MUSAPORT_HD_INLINE float2 __half22float2(__half2 h) { return make_float2(__half2float(h.x), __half2float(h.y)); }
MUSAPORT_HD_INLINE float __low2float(__half2 h) { return __half2float(h.x); }
MUSAPORT_HD_INLINE float __high2float(__half2 h) { return __half2float(h.y); }
MUSAPORT_HD_INLINE __half __low2half(__half2 h) { return h.x; }
MUSAPORT_HD_INLINE __half __high2half(__half2 h) { return h.y; }
MUSAPORT_HD_INLINE __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
MUSAPORT_HD_INLINE __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
MUSAPORT_HD_INLINE __half2 __low2half2(__half2 h) { return __half2(h.x, h.x); }
MUSAPORT_HD_INLINE __half2 __high2half2(__half2 h) { return __half2(h.y, h.y); }

// ---------------------------------------------------------------- scalar arithmetic
MUSAPORT_HD_INLINE __half __hadd(__half a, __half b) { return __half(__half2float(a) + __half2float(b)); }
MUSAPORT_HD_INLINE __half __hsub(__half a, __half b) { return __half(__half2float(a) - __half2float(b)); }
MUSAPORT_HD_INLINE __half __hmul(__half a, __half b) { return __half(__half2float(a) * __half2float(b)); }
MUSAPORT_HD_INLINE __half __hdiv(__half a, __half b) { return __half(__half2float(a) / __half2float(b)); }
MUSAPORT_HD_INLINE __half __hfma(__half a, __half b, __half c) {
  return __half((float)((double)__half2float(a) * __half2float(b) + __half2float(c)));
}
MUSAPORT_HD_INLINE __half __hneg(__half a) { return __ushort_as_half((unsigned short)(a.__x ^ 0x8000u)); }
MUSAPORT_HD_INLINE __half __habs(__half a) { return __ushort_as_half((unsigned short)(a.__x & 0x7fffu)); }
MUSAPORT_HD_INLINE bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
MUSAPORT_HD_INLINE int __hisinf(__half a) { return (a.__x & 0x7fffu) == 0x7c00u ? ((a.__x & 0x8000u) ? -1 : 1) : 0; }
MUSAPORT_HD_INLINE __half __hmax(__half a, __half b) { return __hisnan(a) ? b : __hisnan(b) ? a : (__half2float(a) > __half2float(b) ? a : b); }
MUSAPORT_HD_INLINE __half __hmin(__half a, __half b) { return __hisnan(a) ? b : __hisnan(b) ? a : (__half2float(a) < __half2float(b) ? a : b); }
MUSAPORT_HD_INLINE __half __hadd_sat(__half a, __half b) {
  return __half(fminf(fmaxf(__half2float(a) + __half2float(b), 0.0f), 1.0f));
}
MUSAPORT_HD_INLINE bool __heq(__half a, __half b) { return __half2float(a) == __half2float(b); }
MUSAPORT_HD_INLINE bool __hne(__half a, __half b) { return __half2float(a) != __half2float(b); }
MUSAPORT_HD_INLINE bool __hlt(__half a, __half b) { return __half2float(a) < __half2float(b); }
MUSAPORT_HD_INLINE bool __hle(__half a, __half b) { return __half2float(a) <= __half2float(b); }
MUSAPORT_HD_INLINE bool __hgt(__half a, __half b) { return __half2float(a) > __half2float(b); }
MUSAPORT_HD_INLINE bool __hge(__half a, __half b) { return __half2float(a) >= __half2float(b); }

// ---------------------------------------------------------------- scalar math
MUSAPORT_HD_INLINE __half hexp(__half a) { return __half(expf(__half2float(a))); }
MUSAPORT_HD_INLINE __half hexp2(__half a) { return __half(exp2f(__half2float(a))); }
MUSAPORT_HD_INLINE __half hlog(__half a) { return __half(logf(__half2float(a))); }
MUSAPORT_HD_INLINE __half hlog2(__half a) { return __half(log2f(__half2float(a))); }
MUSAPORT_HD_INLINE __half hsqrt(__half a) { return __half(sqrtf(__half2float(a))); }
MUSAPORT_HD_INLINE __half hrsqrt(__half a) { return __half(1.0f / sqrtf(__half2float(a))); }
MUSAPORT_HD_INLINE __half hrcp(__half a) { return __half(1.0f / __half2float(a)); }
MUSAPORT_HD_INLINE __half hsin(__half a) { return __half(sinf(__half2float(a))); }
MUSAPORT_HD_INLINE __half hcos(__half a) { return __half(cosf(__half2float(a))); }
MUSAPORT_HD_INLINE __half hfloor(__half a) { return __half(floorf(__half2float(a))); }
MUSAPORT_HD_INLINE __half hceil(__half a) { return __half(ceilf(__half2float(a))); }
MUSAPORT_HD_INLINE __half htrunc(__half a) { return __half(truncf(__half2float(a))); }
MUSAPORT_HD_INLINE __half hrint(__half a) { return __half(rintf(__half2float(a))); }

// ---------------------------------------------------------------- paired arithmetic
MUSAPORT_HD_INLINE __half2 __hadd2(__half2 a, __half2 b) { return __half2(__hadd(a.x, b.x), __hadd(a.y, b.y)); }
MUSAPORT_HD_INLINE __half2 __hsub2(__half2 a, __half2 b) { return __half2(__hsub(a.x, b.x), __hsub(a.y, b.y)); }
MUSAPORT_HD_INLINE __half2 __hmul2(__half2 a, __half2 b) { return __half2(__hmul(a.x, b.x), __hmul(a.y, b.y)); }
MUSAPORT_HD_INLINE __half2 __h2div(__half2 a, __half2 b) { return __half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }
MUSAPORT_HD_INLINE __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
MUSAPORT_HD_INLINE __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
MUSAPORT_HD_INLINE __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }
MUSAPORT_HD_INLINE __half2 __hmax2(__half2 a, __half2 b) { return __half2(__hmax(a.x, b.x), __hmax(a.y, b.y)); }
MUSAPORT_HD_INLINE __half2 __hmin2(__half2 a, __half2 b) { return __half2(__hmin(a.x, b.x), __hmin(a.y, b.y)); }
MUSAPORT_HD_INLINE bool __hbeq2(__half2 a, __half2 b) { return __heq(a.x, b.x) && __heq(a.y, b.y); }
MUSAPORT_HD_INLINE bool __hblt2(__half2 a, __half2 b) { return __hlt(a.x, b.x) && __hlt(a.y, b.y); }
MUSAPORT_HD_INLINE __half2 h2exp(__half2 a) { return __half2(hexp(a.x), hexp(a.y)); }
MUSAPORT_HD_INLINE __half2 h2log(__half2 a) { return __half2(hlog(a.x), hlog(a.y)); }
MUSAPORT_HD_INLINE __half2 h2sqrt(__half2 a) { return __half2(hsqrt(a.x), hsqrt(a.y)); }

// ---------------------------------------------------------------- atomics
#if MUSAPORT_CLANG_CUDA
__device__ __half atomicAdd(__half* address, __half val);
__device__ __half2 atomicAdd(__half2* address, __half2 val);
#else
// Compare-and-swap on the raw bits; works across emulator worker threads.
inline __half atomicAdd(__half* address, __half val) {
  unsigned short* bits = &address->__x;
  unsigned short old = __atomic_load_n(bits, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(bits, &old, __hadd(__ushort_as_half(old), val).__x, false, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
  }
  return __ushort_as_half(old);
}
inline __half2 atomicAdd(__half2* address, __half2 val) {
  static_assert(sizeof(__half2) == sizeof(unsigned int), "__half2 must be 32 bits");
  unsigned int* bits = reinterpret_cast<unsigned int*>(address);
  unsigned int old = __atomic_load_n(bits, __ATOMIC_RELAXED);
  for (;;) {
    const __half2 sum = __hadd2(__builtin_bit_cast(__half2, old), val);
    if (__atomic_compare_exchange_n(bits, &old, __builtin_bit_cast(unsigned int, sum), false, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED))
      return __builtin_bit_cast(__half2, old);
  }
}
#endif
