// musaport shim: compile-mode detection and the MUSA function/variable qualifiers.
//
// The same headers serve two compilers:
//   * clang in CUDA mode (-x cuda -nocudainc): syntax check of ported code.
//     Qualifiers become clang's CUDA attributes; device functions are only
//     declared.                                   -> MUSAPORT_CLANG_CUDA == 1
//   * any plain C++17 compiler (g++): ported kernels are compiled as ordinary
//     functions and run on the CPU by the emulator in musa_cpu_runtime.h.
//                                                 -> MUSAPORT_CPU == 1
#pragma once

#if defined(__clang__) && defined(__CUDA__)
#define MUSAPORT_CLANG_CUDA 1
#define MUSAPORT_CPU 0
#else
#define MUSAPORT_CLANG_CUDA 0
#define MUSAPORT_CPU 1
#endif

// The CPU runtime needs C++17; the syntax check also works in clang's CUDA
// default of C++14.
#if MUSAPORT_CPU && __cplusplus < 201703L
#error "the musaport CPU runtime needs C++17 (-std=c++17)"
#endif
#if MUSAPORT_CLANG_CUDA && __cplusplus < 201402L
#error "the musaport shim needs C++14 or later"
#endif

// Ported code tests __MUSACC__ to see that the MUSA compiler is building it;
// both modes provide the kernel language, so both define it.
#ifndef __MUSACC__
#define __MUSACC__ 1
#endif

#if MUSAPORT_CPU
// Code under __MUSACC__ calls the C math functions at global scope (::isnan in ATen/NumericUtils.h),
// which the toolkit's device math headers declare wherever __MUSACC__ is set; in C++, <math.h>
// declares them there.
#include <math.h>
#endif

#if MUSAPORT_CLANG_CUDA
// ---------------------------------------------------------------- clang mode
// Guarded: clang's own <new> wrapper may already have defined some of them.
#ifndef __host__
#define __host__ __attribute__((host))
#endif
#ifndef __device__
#define __device__ __attribute__((device))
#endif
#ifndef __global__
#define __global__ __attribute__((global))
#endif
#ifndef __shared__
#define __shared__ __attribute__((shared))
#endif
#ifndef __constant__
#define __constant__ __attribute__((constant))
#endif
#ifndef __managed__
#define __managed__ __attribute__((managed))
#endif
#ifndef __launch_bounds__
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#endif
#ifndef __forceinline__
#define __forceinline__ __inline__ __attribute__((always_inline))
#endif
#ifndef __align__
#define __align__(n) __attribute__((aligned(n)))
#endif
#ifndef __grid_constant__
#define __grid_constant__
#endif
// clang >= 15 understands __noinline__ natively in CUDA mode; defining it as a
// macro would break libstdc++'s own __attribute__((__noinline__)).

// The device pass of clang defines __CUDA_ARCH__ (e.g. 700 for sm_70); the
// ported code asks for __MUSA_ARCH__, so mirror it.  Host pass: undefined.
#if defined(__CUDA_ARCH__) && !defined(__MUSA_ARCH__)
#define __MUSA_ARCH__ __CUDA_ARCH__
#endif

#define MUSAPORT_HD __host__ __device__
#define MUSAPORT_DEVICE __device__

#else
// ------------------------------------------------------------------ CPU mode
// <memory> uses __attribute__((__noinline__)); include it before the
// __noinline__ macro exists so its include guard protects it later.
#include <memory>

#define __host__
#define __device__
#define __global__
#define __constant__
#define __managed__
#define __grid_constant__
#define __launch_bounds__(...)
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))

// __shared__ storage must be private to a thread block.  The emulator runs
// exactly one block at a time on each OS thread and never moves a block's
// fibers to another OS thread, so "one copy per OS thread" is "one copy per
// block in flight".  thread_local at block scope also implies static storage,
// so every GPU thread (fiber) of the block sees the same object.
//
//   __shared__ float tile[32][33];   -> thread_local float tile[32][33];
//   extern __shared__ float smem[];  -> extern thread_local float smem[];
//
// The second form stays a declaration of a namespace-scope TLS symbol; the
// link step points it at the per-thread dynamic shared buffer
// (see musaport/shim/README.md, "dynamic shared memory").
#define __shared__ thread_local

// __MUSA_ARCH__ stays undefined: one compiler pass sees host and device code
// together, so code must take its host-compatible branches.
#define MUSAPORT_HD
#define MUSAPORT_DEVICE
#endif

// Functions the shim defines for both sides (conversions, vector helpers).
#define MUSAPORT_HD_INLINE MUSAPORT_HD inline
