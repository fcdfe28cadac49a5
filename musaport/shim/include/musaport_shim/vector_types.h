// musaport shim: the built-in vector types (float4, int2, uint3, ...), dim3
// and their make_* constructors.  The names are shared by CUDA and MUSA.
#pragma once

#include "config.h"

// Alignment follows the GPU ABI: a 1-, 2- or 4-component vector is aligned to
// its size (capped at 16 bytes); 3-component vectors only to their element.
#define MUSAPORT_VEC_ALIGN(T, n) ((n) == 3 ? sizeof(T) : (sizeof(T) * (n) > 16 ? 16 : sizeof(T) * (n)))

#define MUSAPORT_VECTOR_TYPE(T, name)                                                      \
  struct __attribute__((aligned(MUSAPORT_VEC_ALIGN(T, 1)))) name##1 { T x; };           \
  struct __attribute__((aligned(MUSAPORT_VEC_ALIGN(T, 2)))) name##2 { T x, y; };        \
  struct name##3 { T x, y, z; };                                                        \
  struct __attribute__((aligned(MUSAPORT_VEC_ALIGN(T, 4)))) name##4 { T x, y, z, w; };  \
  MUSAPORT_HD_INLINE constexpr name##1 make_##name##1(T x) { return name##1{x}; }       \
  MUSAPORT_HD_INLINE constexpr name##2 make_##name##2(T x, T y) { return name##2{x, y}; } \
  MUSAPORT_HD_INLINE constexpr name##3 make_##name##3(T x, T y, T z) { return name##3{x, y, z}; } \
  MUSAPORT_HD_INLINE constexpr name##4 make_##name##4(T x, T y, T z, T w) { return name##4{x, y, z, w}; }

MUSAPORT_VECTOR_TYPE(signed char, char)
MUSAPORT_VECTOR_TYPE(unsigned char, uchar)
MUSAPORT_VECTOR_TYPE(short, short)
MUSAPORT_VECTOR_TYPE(unsigned short, ushort)
MUSAPORT_VECTOR_TYPE(int, int)
MUSAPORT_VECTOR_TYPE(unsigned int, uint)
MUSAPORT_VECTOR_TYPE(long, long)
MUSAPORT_VECTOR_TYPE(unsigned long, ulong)
MUSAPORT_VECTOR_TYPE(long long, longlong)
MUSAPORT_VECTOR_TYPE(unsigned long long, ulonglong)
MUSAPORT_VECTOR_TYPE(float, float)
MUSAPORT_VECTOR_TYPE(double, double)

#undef MUSAPORT_VECTOR_TYPE
#undef MUSAPORT_VEC_ALIGN

// Launch geometry.  Missing components default to 1, and an integer converts
// implicitly, so `k<<<n, 256>>>` works.  constexpr so that CPU-mode
// thread_local copies need no dynamic initialisation.
struct dim3 {
  unsigned int x, y, z;
  MUSAPORT_HD constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  MUSAPORT_HD constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  MUSAPORT_HD constexpr operator uint3() const { return uint3{x, y, z}; }
};
