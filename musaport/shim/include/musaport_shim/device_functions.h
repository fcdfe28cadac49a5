// musaport shim: the device-side API that keeps its CUDA spelling on MUSA
// (barriers, warp operations, atomics, cache loads, integer and float
// intrinsics).  Declared once here for both modes:
//   * clang CUDA mode: plain __device__ declarations (syntax check only);
//   * CPU mode: inline declarations whose definitions live in
//     musaport_shim/cpu/device_functions.h.  A definition that drifts from
//     its declaration leaves the declared function undefined, which fails the
//     build instead of silently adding an overload.
// In CPU mode the synchronising calls take two hidden trailing parameters that
// default to the caller's file and line, so a broken barrier can be reported
// where it is written.
#pragma once

#include "config.h"
#include "builtin_vars.h"

#if MUSAPORT_CPU
// The C library declares __expf, __logf, ... as aliases of its own functions.
// In CPU mode the GPU intrinsics of those names must not redeclare them, so
// they are spelled differently once <math.h> has been read.
#include <math.h>
#define __expf musaport_intrinsic_expf
#define __exp10f musaport_intrinsic_exp10f
#define __logf musaport_intrinsic_logf
#define __log2f musaport_intrinsic_log2f
#define __log10f musaport_intrinsic_log10f
#define __sinf musaport_intrinsic_sinf
#define __cosf musaport_intrinsic_cosf
#define __tanf musaport_intrinsic_tanf
#define __sincosf musaport_intrinsic_sincosf
#define __powf musaport_intrinsic_powf
#endif

#if MUSAPORT_CLANG_CUDA
#define MUSAPORT_DEVFN __device__
#define MUSAPORT_SITE
#define MUSAPORT_SITE_ONLY
#else
#define MUSAPORT_DEVFN inline
#define MUSAPORT_SITE , const char* musaport_file = __builtin_FILE(), int musaport_line = __builtin_LINE()
#define MUSAPORT_SITE_ONLY const char* musaport_file = __builtin_FILE(), int musaport_line = __builtin_LINE()
#endif

// ------------------------------------------------------------ block barriers
MUSAPORT_DEVFN void __syncthreads(MUSAPORT_SITE_ONLY);
MUSAPORT_DEVFN int __syncthreads_count(int predicate MUSAPORT_SITE);
MUSAPORT_DEVFN int __syncthreads_and(int predicate MUSAPORT_SITE);
MUSAPORT_DEVFN int __syncthreads_or(int predicate MUSAPORT_SITE);

// ------------------------------------------------------------ memory fences
MUSAPORT_DEVFN void __threadfence();
MUSAPORT_DEVFN void __threadfence_block();
MUSAPORT_DEVFN void __threadfence_system();

// ------------------------------------------------------------ warp operations
MUSAPORT_DEVFN void __syncwarp(unsigned int mask = 0xffffffffu MUSAPORT_SITE);
MUSAPORT_DEVFN unsigned int __activemask();
template <class T>
MUSAPORT_DEVFN T __shfl_sync(unsigned int mask, T var, int srcLane, int width = warpSize MUSAPORT_SITE);
template <class T>
MUSAPORT_DEVFN T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize MUSAPORT_SITE);
template <class T>
MUSAPORT_DEVFN T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize MUSAPORT_SITE);
template <class T>
MUSAPORT_DEVFN T __shfl_xor_sync(unsigned int mask, T var, int laneMask, int width = warpSize MUSAPORT_SITE);
MUSAPORT_DEVFN unsigned int __ballot_sync(unsigned int mask, int predicate MUSAPORT_SITE);
MUSAPORT_DEVFN int __all_sync(unsigned int mask, int predicate MUSAPORT_SITE);
MUSAPORT_DEVFN int __any_sync(unsigned int mask, int predicate MUSAPORT_SITE);
template <class T>
MUSAPORT_DEVFN unsigned int __match_any_sync(unsigned int mask, T value MUSAPORT_SITE);
MUSAPORT_DEVFN unsigned int __reduce_add_sync(unsigned int mask, unsigned int value MUSAPORT_SITE);
MUSAPORT_DEVFN int __reduce_add_sync(unsigned int mask, int value MUSAPORT_SITE);
MUSAPORT_DEVFN unsigned int __reduce_min_sync(unsigned int mask, unsigned int value MUSAPORT_SITE);
MUSAPORT_DEVFN int __reduce_min_sync(unsigned int mask, int value MUSAPORT_SITE);
MUSAPORT_DEVFN unsigned int __reduce_max_sync(unsigned int mask, unsigned int value MUSAPORT_SITE);
MUSAPORT_DEVFN int __reduce_max_sync(unsigned int mask, int value MUSAPORT_SITE);

// ------------------------------------------------------------ atomics
MUSAPORT_DEVFN int atomicAdd(int* address, int val);
MUSAPORT_DEVFN unsigned int atomicAdd(unsigned int* address, unsigned int val);
MUSAPORT_DEVFN unsigned long long atomicAdd(unsigned long long* address, unsigned long long val);
MUSAPORT_DEVFN float atomicAdd(float* address, float val);
MUSAPORT_DEVFN double atomicAdd(double* address, double val);
#if MUSAPORT_CLANG_CUDA && (!defined(__MUSA_ARCH__) || __MUSA_ARCH__ >= 900)
// The vector adds of compute capability 9.0, declared where a CUDA toolkit declares them: in the host pass
// (no architecture) and for 9.0 on.  Code picks them with `__MUSA_ARCH__ >= 900` or by an `#else` of
// `__MUSA_ARCH__ < 900`, a branch the host pass reads and instantiates; the device pass (sm_70) and the
// CPU build (EMULATED_ARCH 7.0, see cpu/view.py) take the split branch, so nothing defines them.
MUSAPORT_DEVFN float2 atomicAdd(float2* address, float2 val);
MUSAPORT_DEVFN float4 atomicAdd(float4* address, float4 val);
#endif
MUSAPORT_DEVFN int atomicSub(int* address, int val);
MUSAPORT_DEVFN unsigned int atomicSub(unsigned int* address, unsigned int val);
MUSAPORT_DEVFN int atomicExch(int* address, int val);
MUSAPORT_DEVFN unsigned int atomicExch(unsigned int* address, unsigned int val);
MUSAPORT_DEVFN unsigned long long atomicExch(unsigned long long* address, unsigned long long val);
MUSAPORT_DEVFN float atomicExch(float* address, float val);
MUSAPORT_DEVFN int atomicMin(int* address, int val);
MUSAPORT_DEVFN unsigned int atomicMin(unsigned int* address, unsigned int val);
MUSAPORT_DEVFN long long atomicMin(long long* address, long long val);
MUSAPORT_DEVFN unsigned long long atomicMin(unsigned long long* address, unsigned long long val);
MUSAPORT_DEVFN int atomicMax(int* address, int val);
MUSAPORT_DEVFN unsigned int atomicMax(unsigned int* address, unsigned int val);
MUSAPORT_DEVFN long long atomicMax(long long* address, long long val);
MUSAPORT_DEVFN unsigned long long atomicMax(unsigned long long* address, unsigned long long val);
MUSAPORT_DEVFN unsigned int atomicInc(unsigned int* address, unsigned int val);
MUSAPORT_DEVFN unsigned int atomicDec(unsigned int* address, unsigned int val);
MUSAPORT_DEVFN int atomicCAS(int* address, int compare, int val);
MUSAPORT_DEVFN unsigned int atomicCAS(unsigned int* address, unsigned int compare, unsigned int val);
MUSAPORT_DEVFN unsigned long long atomicCAS(unsigned long long* address, unsigned long long compare,
                                            unsigned long long val);
MUSAPORT_DEVFN unsigned short atomicCAS(unsigned short* address, unsigned short compare, unsigned short val);
MUSAPORT_DEVFN int atomicAnd(int* address, int val);
MUSAPORT_DEVFN unsigned int atomicAnd(unsigned int* address, unsigned int val);
MUSAPORT_DEVFN unsigned long long atomicAnd(unsigned long long* address, unsigned long long val);
MUSAPORT_DEVFN int atomicOr(int* address, int val);
MUSAPORT_DEVFN unsigned int atomicOr(unsigned int* address, unsigned int val);
MUSAPORT_DEVFN unsigned long long atomicOr(unsigned long long* address, unsigned long long val);
MUSAPORT_DEVFN int atomicXor(int* address, int val);
MUSAPORT_DEVFN unsigned int atomicXor(unsigned int* address, unsigned int val);
MUSAPORT_DEVFN unsigned long long atomicXor(unsigned long long* address, unsigned long long val);

// ------------------------------------------------------------ cache-hinted loads/stores
template <class T> MUSAPORT_DEVFN T __ldg(const T* ptr);
template <class T> MUSAPORT_DEVFN T __ldcg(const T* ptr);
template <class T> MUSAPORT_DEVFN T __ldca(const T* ptr);
template <class T> MUSAPORT_DEVFN T __ldcs(const T* ptr);
template <class T> MUSAPORT_DEVFN T __ldlu(const T* ptr);
template <class T> MUSAPORT_DEVFN T __ldcv(const T* ptr);
template <class T> MUSAPORT_DEVFN void __stwb(T* ptr, T value);
template <class T> MUSAPORT_DEVFN void __stcg(T* ptr, T value);
template <class T> MUSAPORT_DEVFN void __stcs(T* ptr, T value);
template <class T> MUSAPORT_DEVFN void __stwt(T* ptr, T value);

// ------------------------------------------------------------ integer intrinsics
MUSAPORT_DEVFN int __popc(unsigned int x);
MUSAPORT_DEVFN int __popcll(unsigned long long x);
MUSAPORT_DEVFN int __clz(int x);
MUSAPORT_DEVFN int __clzll(long long x);
MUSAPORT_DEVFN int __ffs(int x);
MUSAPORT_DEVFN int __ffsll(long long x);
MUSAPORT_DEVFN unsigned int __brev(unsigned int x);
MUSAPORT_DEVFN unsigned long long __brevll(unsigned long long x);
MUSAPORT_DEVFN int __mul24(int x, int y);
MUSAPORT_DEVFN unsigned int __umul24(unsigned int x, unsigned int y);
MUSAPORT_DEVFN int __mulhi(int x, int y);
MUSAPORT_DEVFN unsigned int __umulhi(unsigned int x, unsigned int y);
MUSAPORT_DEVFN long long __mul64hi(long long x, long long y);
MUSAPORT_DEVFN unsigned long long __umul64hi(unsigned long long x, unsigned long long y);
MUSAPORT_DEVFN unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int selector);
MUSAPORT_DEVFN unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift);
MUSAPORT_DEVFN unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift);
MUSAPORT_DEVFN unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift);
MUSAPORT_DEVFN unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift);
MUSAPORT_DEVFN unsigned int __sad(int x, int y, unsigned int z);
MUSAPORT_DEVFN unsigned int __usad(unsigned int x, unsigned int y, unsigned int z);

// ------------------------------------------------------------ bit casts and conversions
MUSAPORT_DEVFN float __int_as_float(int x);
MUSAPORT_DEVFN int __float_as_int(float x);
MUSAPORT_DEVFN float __uint_as_float(unsigned int x);
MUSAPORT_DEVFN unsigned int __float_as_uint(float x);
MUSAPORT_DEVFN double __longlong_as_double(long long x);
MUSAPORT_DEVFN long long __double_as_longlong(double x);
MUSAPORT_DEVFN int __double2hiint(double x);
MUSAPORT_DEVFN int __double2loint(double x);
MUSAPORT_DEVFN double __hiloint2double(int hi, int lo);
MUSAPORT_DEVFN int __float2int_rn(float x);
MUSAPORT_DEVFN int __float2int_rz(float x);
MUSAPORT_DEVFN int __float2int_rd(float x);
MUSAPORT_DEVFN int __float2int_ru(float x);
MUSAPORT_DEVFN unsigned int __float2uint_rn(float x);
MUSAPORT_DEVFN unsigned int __float2uint_rz(float x);
MUSAPORT_DEVFN unsigned int __float2uint_rd(float x);
MUSAPORT_DEVFN unsigned int __float2uint_ru(float x);
MUSAPORT_DEVFN long long __float2ll_rn(float x);
MUSAPORT_DEVFN long long __float2ll_rz(float x);
MUSAPORT_DEVFN unsigned long long __float2ull_rn(float x);
MUSAPORT_DEVFN unsigned long long __float2ull_rz(float x);
MUSAPORT_DEVFN float __int2float_rn(int x);
MUSAPORT_DEVFN float __uint2float_rn(unsigned int x);
MUSAPORT_DEVFN float __ll2float_rn(long long x);
MUSAPORT_DEVFN float __ull2float_rn(unsigned long long x);
MUSAPORT_DEVFN int __double2int_rn(double x);
MUSAPORT_DEVFN int __double2int_rz(double x);
MUSAPORT_DEVFN long long __double2ll_rn(double x);
MUSAPORT_DEVFN long long __double2ll_rz(double x);
MUSAPORT_DEVFN long long __double2ll_rd(double x);
MUSAPORT_DEVFN long long __double2ll_ru(double x);
MUSAPORT_DEVFN int __double2int_rd(double x);
MUSAPORT_DEVFN int __double2int_ru(double x);
MUSAPORT_DEVFN long long __float2ll_rd(float x);
MUSAPORT_DEVFN long long __float2ll_ru(float x);
MUSAPORT_DEVFN float __double2float_rn(double x);
MUSAPORT_DEVFN double __int2double_rn(int x);
MUSAPORT_DEVFN double __ll2double_rn(long long x);

// ------------------------------------------------------------ fast / explicitly rounded float math
// The _rz/_ru/_rd variants compute round-to-nearest in CPU mode.
MUSAPORT_DEVFN float __expf(float x);
MUSAPORT_DEVFN float __exp10f(float x);
MUSAPORT_DEVFN float __logf(float x);
MUSAPORT_DEVFN float __log2f(float x);
MUSAPORT_DEVFN float __log10f(float x);
MUSAPORT_DEVFN float __sinf(float x);
MUSAPORT_DEVFN float __cosf(float x);
MUSAPORT_DEVFN float __tanf(float x);
MUSAPORT_DEVFN void __sincosf(float x, float* s, float* c);
MUSAPORT_DEVFN float __powf(float x, float y);
MUSAPORT_DEVFN float __fdividef(float x, float y);
MUSAPORT_DEVFN float __saturatef(float x);
MUSAPORT_DEVFN float __frcp_rn(float x);
MUSAPORT_DEVFN float __fsqrt_rn(float x);
MUSAPORT_DEVFN float __frsqrt_rn(float x);
MUSAPORT_DEVFN float __fadd_rn(float x, float y);
MUSAPORT_DEVFN float __fadd_rz(float x, float y);
MUSAPORT_DEVFN float __fsub_rn(float x, float y);
MUSAPORT_DEVFN float __fsub_rz(float x, float y);
MUSAPORT_DEVFN float __fmul_rn(float x, float y);
MUSAPORT_DEVFN float __fmul_rz(float x, float y);
MUSAPORT_DEVFN float __fdiv_rn(float x, float y);
MUSAPORT_DEVFN float __fdiv_rz(float x, float y);
MUSAPORT_DEVFN float __fmaf_rn(float x, float y, float z);
MUSAPORT_DEVFN float __fmaf_rz(float x, float y, float z);
MUSAPORT_DEVFN double __dadd_rn(double x, double y);
MUSAPORT_DEVFN double __dsub_rn(double x, double y);
MUSAPORT_DEVFN double __dmul_rn(double x, double y);
MUSAPORT_DEVFN double __ddiv_rn(double x, double y);
MUSAPORT_DEVFN double __drcp_rn(double x);
MUSAPORT_DEVFN double __dsqrt_rn(double x);
MUSAPORT_DEVFN double __fma_rn(double x, double y, double z);

// ------------------------------------------------------------ misc
MUSAPORT_DEVFN void __trap();
MUSAPORT_DEVFN void __brkpt();
MUSAPORT_DEVFN long long clock64();
MUSAPORT_DEVFN void __nanosleep(unsigned int ns);
