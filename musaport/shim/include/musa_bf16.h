// musaport shim: bfloat16 (`__mt_bfloat16`, `__mt_bfloat162`) and its intrinsics.
//
// bfloat16 is the upper half of a binary32; conversion from float rounds to
// nearest even and keeps NaNs quiet.  Arithmetic runs in float and rounds once.
#pragma once

#include "musaport_shim/config.h"
#include "musaport_shim/vector_types.h"
#include "musa_fp16.h"  // the shared __h* intrinsic names are overloaded here

#include <math.h>

namespace musaport {
namespace bf16 {

MUSAPORT_HD_INLINE unsigned short from_float(float value) {
  const unsigned int f = __builtin_bit_cast(unsigned int, value);
  if ((f & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((f >> 16) | 0x40u);  // quiet NaN
  const unsigned int round_bias = 0x7fffu + ((f >> 16) & 1u);
  return (unsigned short)((f + round_bias) >> 16);
}

MUSAPORT_HD_INLINE float to_float(unsigned short b) { return __builtin_bit_cast(float, (unsigned int)b << 16); }

}  // namespace bf16
}  // namespace musaport

struct __mt_bfloat16_raw {
  unsigned short x;
};

struct __mt_bfloat162_raw {
  unsigned short x, y;
};

struct __align__(2) __mt_bfloat16 {
  unsigned short __x;

  __mt_bfloat16() = default;  // trivial, so __shared__ arrays are allowed
  MUSAPORT_HD constexpr __mt_bfloat16(const __mt_bfloat16_raw& raw) : __x(raw.x) {}
  MUSAPORT_HD __mt_bfloat16(float f) : __x(musaport::bf16::from_float(f)) {}
  MUSAPORT_HD __mt_bfloat16(double f) : __x(musaport::bf16::from_float((float)f)) {}
  MUSAPORT_HD __mt_bfloat16(int v) : __x(musaport::bf16::from_float((float)v)) {}
  MUSAPORT_HD __mt_bfloat16(unsigned int v) : __x(musaport::bf16::from_float((float)v)) {}
  MUSAPORT_HD __mt_bfloat16(long long v) : __x(musaport::bf16::from_float((float)v)) {}
  MUSAPORT_HD __mt_bfloat16(short v) : __x(musaport::bf16::from_float((float)v)) {}

  MUSAPORT_HD operator float() const { return musaport::bf16::to_float(__x); }
  MUSAPORT_HD constexpr operator __mt_bfloat16_raw() const { return __mt_bfloat16_raw{__x}; }
  MUSAPORT_HD __mt_bfloat16& operator=(const __mt_bfloat16_raw& raw) { __x = raw.x; return *this; }

  // Hidden friends, as for __half (see musa_fp16.h); left out under
  // __MUSA_NO_BFLOAT16_OPERATORS__.
#ifndef __MUSA_NO_BFLOAT16_OPERATORS__
#define MUSAPORT_BF16_BINARY(op)                                                                   \
  friend MUSAPORT_HD __mt_bfloat16 operator op(const __mt_bfloat16& a, const __mt_bfloat16& b) { \
    return __mt_bfloat16(float(a) op float(b));                                                    \
  }                                                                                                \
  friend MUSAPORT_HD __mt_bfloat16& operator op##=(__mt_bfloat16& a, const __mt_bfloat16& b) {    \
    return a = __mt_bfloat16(float(a) op float(b));                                                \
  }
  MUSAPORT_BF16_BINARY(+)
  MUSAPORT_BF16_BINARY(-)
  MUSAPORT_BF16_BINARY(*)
  MUSAPORT_BF16_BINARY(/)
#undef MUSAPORT_BF16_BINARY
  friend MUSAPORT_HD __mt_bfloat16 operator-(const __mt_bfloat16& a) {
    return __mt_bfloat16(__mt_bfloat16_raw{(unsigned short)(a.__x ^ 0x8000u)});
  }
  friend MUSAPORT_HD bool operator==(const __mt_bfloat16& a, const __mt_bfloat16& b) { return float(a) == float(b); }
  friend MUSAPORT_HD bool operator!=(const __mt_bfloat16& a, const __mt_bfloat16& b) { return float(a) != float(b); }
  friend MUSAPORT_HD bool operator<(const __mt_bfloat16& a, const __mt_bfloat16& b) { return float(a) < float(b); }
  friend MUSAPORT_HD bool operator<=(const __mt_bfloat16& a, const __mt_bfloat16& b) { return float(a) <= float(b); }
  friend MUSAPORT_HD bool operator>(const __mt_bfloat16& a, const __mt_bfloat16& b) { return float(a) > float(b); }
  friend MUSAPORT_HD bool operator>=(const __mt_bfloat16& a, const __mt_bfloat16& b) { return float(a) >= float(b); }
#endif
};

struct __align__(4) __mt_bfloat162 {
  __mt_bfloat16 x, y;

  __mt_bfloat162() = default;
  MUSAPORT_HD constexpr __mt_bfloat162(const __mt_bfloat16& a, const __mt_bfloat16& b) : x(a), y(b) {}
};

// ---------------------------------------------------------------- conversions
MUSAPORT_HD_INLINE __mt_bfloat16 __float2bfloat16(float f) { return __mt_bfloat16(f); }
MUSAPORT_HD_INLINE __mt_bfloat16 __float2bfloat16_rn(float f) { return __mt_bfloat16(f); }
MUSAPORT_HD_INLINE __mt_bfloat16 __double2bfloat16(double f) { return __mt_bfloat16(f); }
MUSAPORT_HD_INLINE float __bfloat162float(__mt_bfloat16 b) { return musaport::bf16::to_float(b.__x); }
MUSAPORT_HD_INLINE __mt_bfloat16 __int2bfloat16_rn(int v) { return __mt_bfloat16((float)v); }
// The _rz/_rd/_ru forms round to nearest, like the shim's other rounding-mode intrinsics.
MUSAPORT_HD_INLINE __mt_bfloat16 __int2bfloat16_rz(int v) { return __mt_bfloat16((float)v); }
MUSAPORT_HD_INLINE __mt_bfloat16 __int2bfloat16_rd(int v) { return __mt_bfloat16((float)v); }
MUSAPORT_HD_INLINE __mt_bfloat16 __int2bfloat16_ru(int v) { return __mt_bfloat16((float)v); }
MUSAPORT_HD_INLINE __mt_bfloat16 __float2bfloat16_rz(float f) { return __mt_bfloat16(f); }
MUSAPORT_HD_INLINE __mt_bfloat16 __float2bfloat16_rd(float f) { return __mt_bfloat16(f); }
MUSAPORT_HD_INLINE __mt_bfloat16 __float2bfloat16_ru(float f) { return __mt_bfloat16(f); }
MUSAPORT_HD_INLINE __mt_bfloat16 __uint2bfloat16_rn(unsigned int v) { return __mt_bfloat16((float)v); }
MUSAPORT_HD_INLINE __mt_bfloat16 __short2bfloat16_rn(short v) { return __mt_bfloat16((float)v); }
MUSAPORT_HD_INLINE __mt_bfloat16 __ll2bfloat16_rn(long long v) { return __mt_bfloat16((float)v); }
MUSAPORT_HD_INLINE int __bfloat162int_rz(__mt_bfloat16 b) { return (int)__bfloat162float(b); }
MUSAPORT_HD_INLINE unsigned short __bfloat16_as_ushort(__mt_bfloat16 b) { return b.__x; }
MUSAPORT_HD_INLINE __mt_bfloat16 __ushort_as_bfloat16(unsigned short v) { return __mt_bfloat16(__mt_bfloat16_raw{v}); }
MUSAPORT_HD_INLINE __mt_bfloat162 make_bfloat162(__mt_bfloat16 x, __mt_bfloat16 y) { return __mt_bfloat162(x, y); }
MUSAPORT_HD_INLINE __mt_bfloat162 __float22bfloat162_rn(float2 v) { return __mt_bfloat162(__mt_bfloat16(v.x), __mt_bfloat16(v.y)); }
MUSAPORT_HD_INLINE __mt_bfloat162 __bfloat162bfloat162(__mt_bfloat16 b) { return __mt_bfloat162(b, b); }
MUSAPORT_HD_INLINE __mt_bfloat162 __halves2bfloat162(__mt_bfloat16 lo, __mt_bfloat16 hi) { return __mt_bfloat162(lo, hi); }
MUSAPORT_HD_INLINE __mt_bfloat162 __float2bfloat162_rn(float f) { return __mt_bfloat162(f, f); }
MUSAPORT_HD_INLINE __mt_bfloat162 __floats2bfloat162_rn(float lo, float hi) {
  return __mt_bfloat162(__mt_bfloat16(lo), __mt_bfloat16(hi));
}
MUSAPORT_HD_INLINE float2 __bfloat1622float2(__mt_bfloat162 b) {
  return make_float2(__bfloat162float(b.x), __bfloat162float(b.y));
}
MUSAPORT_HD_INLINE float __low2float(__mt_bfloat162 b) { return __bfloat162float(b.x); }
MUSAPORT_HD_INLINE float __high2float(__mt_bfloat162 b) { return __bfloat162float(b.y); }
MUSAPORT_HD_INLINE __mt_bfloat16 __low2bfloat16(__mt_bfloat162 b) { return b.x; }
MUSAPORT_HD_INLINE __mt_bfloat16 __high2bfloat16(__mt_bfloat162 b) { return b.y; }

// ---------------------------------------------------------------- scalar arithmetic (overloads of the __h* names)
#define MUSAPORT_BF16_BINARY(name, op)                                          \
  MUSAPORT_HD_INLINE __mt_bfloat16 name(__mt_bfloat16 a, __mt_bfloat16 b) {     \
    return __mt_bfloat16(__bfloat162float(a) op __bfloat162float(b));           \
  }
MUSAPORT_BF16_BINARY(__hadd, +)
MUSAPORT_BF16_BINARY(__hsub, -)
MUSAPORT_BF16_BINARY(__hmul, *)
MUSAPORT_BF16_BINARY(__hdiv, /)
#undef MUSAPORT_BF16_BINARY
MUSAPORT_HD_INLINE __mt_bfloat16 __hfma(__mt_bfloat16 a, __mt_bfloat16 b, __mt_bfloat16 c) {
  return __mt_bfloat16((float)((double)__bfloat162float(a) * __bfloat162float(b) + __bfloat162float(c)));
}
MUSAPORT_HD_INLINE __mt_bfloat16 __hneg(__mt_bfloat16 a) { return __ushort_as_bfloat16((unsigned short)(a.__x ^ 0x8000u)); }
MUSAPORT_HD_INLINE __mt_bfloat16 __habs(__mt_bfloat16 a) { return __ushort_as_bfloat16((unsigned short)(a.__x & 0x7fffu)); }
MUSAPORT_HD_INLINE bool __hisnan(__mt_bfloat16 a) { return (a.__x & 0x7fffu) > 0x7f80u; }
MUSAPORT_HD_INLINE __mt_bfloat16 __hmax(__mt_bfloat16 a, __mt_bfloat16 b) {
  return __hisnan(a) ? b : __hisnan(b) ? a : (__bfloat162float(a) > __bfloat162float(b) ? a : b);
}
MUSAPORT_HD_INLINE __mt_bfloat16 __hmin(__mt_bfloat16 a, __mt_bfloat16 b) {
  return __hisnan(a) ? b : __hisnan(b) ? a : (__bfloat162float(a) < __bfloat162float(b) ? a : b);
}
MUSAPORT_HD_INLINE bool __heq(__mt_bfloat16 a, __mt_bfloat16 b) { return __bfloat162float(a) == __bfloat162float(b); }
MUSAPORT_HD_INLINE bool __hne(__mt_bfloat16 a, __mt_bfloat16 b) { return __bfloat162float(a) != __bfloat162float(b); }
MUSAPORT_HD_INLINE bool __hlt(__mt_bfloat16 a, __mt_bfloat16 b) { return __bfloat162float(a) < __bfloat162float(b); }
MUSAPORT_HD_INLINE bool __hle(__mt_bfloat16 a, __mt_bfloat16 b) { return __bfloat162float(a) <= __bfloat162float(b); }
MUSAPORT_HD_INLINE bool __hgt(__mt_bfloat16 a, __mt_bfloat16 b) { return __bfloat162float(a) > __bfloat162float(b); }
MUSAPORT_HD_INLINE bool __hge(__mt_bfloat16 a, __mt_bfloat16 b) { return __bfloat162float(a) >= __bfloat162float(b); }
MUSAPORT_HD_INLINE __mt_bfloat16 hexp(__mt_bfloat16 a) { return __mt_bfloat16(expf(__bfloat162float(a))); }
MUSAPORT_HD_INLINE __mt_bfloat16 hlog(__mt_bfloat16 a) { return __mt_bfloat16(logf(__bfloat162float(a))); }
MUSAPORT_HD_INLINE __mt_bfloat16 hsqrt(__mt_bfloat16 a) { return __mt_bfloat16(sqrtf(__bfloat162float(a))); }
MUSAPORT_HD_INLINE __mt_bfloat16 hrsqrt(__mt_bfloat16 a) { return __mt_bfloat16(1.0f / sqrtf(__bfloat162float(a))); }

// ---------------------------------------------------------------- paired arithmetic
MUSAPORT_HD_INLINE __mt_bfloat162 __hadd2(__mt_bfloat162 a, __mt_bfloat162 b) { return __mt_bfloat162(__hadd(a.x, b.x), __hadd(a.y, b.y)); }
MUSAPORT_HD_INLINE __mt_bfloat162 __hsub2(__mt_bfloat162 a, __mt_bfloat162 b) { return __mt_bfloat162(__hsub(a.x, b.x), __hsub(a.y, b.y)); }
MUSAPORT_HD_INLINE __mt_bfloat162 __hmul2(__mt_bfloat162 a, __mt_bfloat162 b) { return __mt_bfloat162(__hmul(a.x, b.x), __hmul(a.y, b.y)); }
MUSAPORT_HD_INLINE __mt_bfloat162 __hfma2(__mt_bfloat162 a, __mt_bfloat162 b, __mt_bfloat162 c) {
  return __mt_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}

// ---------------------------------------------------------------- atomics
#if MUSAPORT_CLANG_CUDA
__device__ __mt_bfloat16 atomicAdd(__mt_bfloat16* address, __mt_bfloat16 val);
__device__ __mt_bfloat162 atomicAdd(__mt_bfloat162* address, __mt_bfloat162 val);
#else
inline __mt_bfloat16 atomicAdd(__mt_bfloat16* address, __mt_bfloat16 val) {
  unsigned short* bits = &address->__x;
  unsigned short old = __atomic_load_n(bits, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(bits, &old, __hadd(__ushort_as_bfloat16(old), val).__x, false,
                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return __ushort_as_bfloat16(old);
}
inline __mt_bfloat162 atomicAdd(__mt_bfloat162* address, __mt_bfloat162 val) {
  static_assert(sizeof(__mt_bfloat162) == sizeof(unsigned int), "__mt_bfloat162 must be 32 bits");
  unsigned int* bits = reinterpret_cast<unsigned int*>(address);
  unsigned int old = __atomic_load_n(bits, __ATOMIC_RELAXED);
  for (;;) {
    const __mt_bfloat162 sum = __mt_bfloat162(__hadd(__builtin_bit_cast(__mt_bfloat162, old).x, val.x),
                                              __hadd(__builtin_bit_cast(__mt_bfloat162, old).y, val.y));
    if (__atomic_compare_exchange_n(bits, &old, __builtin_bit_cast(unsigned int, sum), false, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED))
      return __builtin_bit_cast(__mt_bfloat162, old);
  }
}
#endif
