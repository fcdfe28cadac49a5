// musaport CPU runtime: definitions of the device API declared in
// musaport_shim/device_functions.h (default arguments live there only).
#pragma once

#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "../device_functions.h"
#include "launch.h"

namespace musaport::cpu {

// ---- warp operations: the value goes into the lane's slot, the result comes out of it
template <class T>
inline const WarpCall& warp_rendezvous(WarpOp op, const T& value, int arg, int width, unsigned mask, const char* file,
                                       int line) {
  static_assert(std::is_trivially_copyable<T>::value, "warp operations exchange trivially copyable values");
  static_assert(sizeof(T) <= 16, "warp operations exchange at most 16 bytes");
  return device_runner(warp_op_name(op), file, line).warp(op, &value, sizeof(T), arg, width, mask, file, line);
}

template <class R>
inline R warp_result(const WarpCall& call) {
  R result;
  std::memcpy(&result, call.out, sizeof(R));
  return result;
}

// Operations whose result has the type of the input (shuffles, reductions).
template <class T>
inline T warp_value_op(WarpOp op, unsigned mask, T value, int arg, int width, const char* file, int line) {
  const WarpCall& call = warp_rendezvous(op, value, arg, width, mask, file, line);
  T result = value;  // T need not be default-constructible
  std::memcpy(&result, call.out, sizeof(T));
  return result;
}

// Votes and matches: any input, an integer result.
template <class R, class T>
inline R warp_query_op(WarpOp op, unsigned mask, const T& value, const char* file, int line) {
  return warp_result<R>(warp_rendezvous(op, value, 0, 32, mask, file, line));
}

// ---- atomics: relaxed read-modify-write, as GPU atomics are
template <class T, class F>
inline T atomic_update(T* address, F op) {
  using Bits = std::conditional_t<sizeof(T) == 2, unsigned short,
                                  std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>>;
  static_assert(sizeof(T) == sizeof(Bits), "unsupported atomic width");
  Bits* bits = reinterpret_cast<Bits*>(address);
  Bits old = __atomic_load_n(bits, __ATOMIC_RELAXED);
  for (;;) {
    const T old_value = __builtin_bit_cast(T, old);
    const Bits desired = __builtin_bit_cast(Bits, static_cast<T>(op(old_value)));
    if (__atomic_compare_exchange_n(bits, &old, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return old_value;
  }
}

template <class T>
inline T atomic_cas(T* address, T compare, T value) {
  __atomic_compare_exchange_n(address, &compare, value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return compare;  // the old value in both outcomes
}

// Float -> integer conversions saturate and map NaN to 0, like the GPU.
template <class I>
inline I saturate_to(double v) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (v >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(v);
}

}  // namespace musaport::cpu

// ---------------------------------------------------------------- barriers and fences
inline void __syncthreads(const char* file, int line) {
  musaport::cpu::device_runner("__syncthreads()", file, line).barrier(musaport::cpu::BarrierKind::Sync, 0, file, line);
}
inline int __syncthreads_count(int predicate, const char* file, int line) {
  return musaport::cpu::device_runner("__syncthreads_count()", file, line)
      .barrier(musaport::cpu::BarrierKind::Count, predicate, file, line);
}
inline int __syncthreads_and(int predicate, const char* file, int line) {
  return musaport::cpu::device_runner("__syncthreads_and()", file, line)
      .barrier(musaport::cpu::BarrierKind::And, predicate, file, line);
}
inline int __syncthreads_or(int predicate, const char* file, int line) {
  return musaport::cpu::device_runner("__syncthreads_or()", file, line)
      .barrier(musaport::cpu::BarrierKind::Or, predicate, file, line);
}
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// ---------------------------------------------------------------- warp operations
inline void __syncwarp(unsigned int mask, const char* file, int line) {
  musaport::cpu::warp_query_op<int>(musaport::cpu::WarpOp::Sync, mask, 0, file, line);
}
inline unsigned int __activemask() {
  return musaport::cpu::device_runner("__activemask()", "?", 0).active_mask();
}
template <class T>
inline T __shfl_sync(unsigned int mask, T var, int srcLane, int width, const char* file, int line) {
  return musaport::cpu::warp_value_op(musaport::cpu::WarpOp::ShflIdx, mask, var, srcLane, width, file, line);
}
template <class T>
inline T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width, const char* file, int line) {
  return musaport::cpu::warp_value_op(musaport::cpu::WarpOp::ShflUp, mask, var, static_cast<int>(delta), width, file,
                                      line);
}
template <class T>
inline T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width, const char* file, int line) {
  return musaport::cpu::warp_value_op(musaport::cpu::WarpOp::ShflDown, mask, var, static_cast<int>(delta), width,
                                      file, line);
}
template <class T>
inline T __shfl_xor_sync(unsigned int mask, T var, int laneMask, int width, const char* file, int line) {
  return musaport::cpu::warp_value_op(musaport::cpu::WarpOp::ShflXor, mask, var, laneMask, width, file, line);
}
inline unsigned int __ballot_sync(unsigned int mask, int predicate, const char* file, int line) {
  return musaport::cpu::warp_query_op<unsigned>(musaport::cpu::WarpOp::Ballot, mask, int(predicate != 0), file, line);
}
inline int __all_sync(unsigned int mask, int predicate, const char* file, int line) {
  return musaport::cpu::warp_query_op<int>(musaport::cpu::WarpOp::All, mask, int(predicate != 0), file, line);
}
inline int __any_sync(unsigned int mask, int predicate, const char* file, int line) {
  return musaport::cpu::warp_query_op<int>(musaport::cpu::WarpOp::Any, mask, int(predicate != 0), file, line);
}
template <class T>
inline unsigned int __match_any_sync(unsigned int mask, T value, const char* file, int line) {
  return musaport::cpu::warp_query_op<unsigned>(musaport::cpu::WarpOp::MatchAny, mask, value, file, line);
}
inline unsigned int __reduce_add_sync(unsigned int mask, unsigned int value, const char* file, int line) {
  return musaport::cpu::warp_value_op(musaport::cpu::WarpOp::ReduceAddU, mask, value, 0, 32, file, line);
}
inline int __reduce_add_sync(unsigned int mask, int value, const char* file, int line) {
  return musaport::cpu::warp_value_op(musaport::cpu::WarpOp::ReduceAddI, mask, value, 0, 32, file, line);
}
inline unsigned int __reduce_min_sync(unsigned int mask, unsigned int value, const char* file, int line) {
  return musaport::cpu::warp_value_op(musaport::cpu::WarpOp::ReduceMinU, mask, value, 0, 32, file, line);
}
inline int __reduce_min_sync(unsigned int mask, int value, const char* file, int line) {
  return musaport::cpu::warp_value_op(musaport::cpu::WarpOp::ReduceMinI, mask, value, 0, 32, file, line);
}
inline unsigned int __reduce_max_sync(unsigned int mask, unsigned int value, const char* file, int line) {
  return musaport::cpu::warp_value_op(musaport::cpu::WarpOp::ReduceMaxU, mask, value, 0, 32, file, line);
}
inline int __reduce_max_sync(unsigned int mask, int value, const char* file, int line) {
  return musaport::cpu::warp_value_op(musaport::cpu::WarpOp::ReduceMaxI, mask, value, 0, 32, file, line);
}

// ---------------------------------------------------------------- atomics
inline int atomicAdd(int* a, int v) { return __atomic_fetch_add(a, v, __ATOMIC_RELAXED); }
inline unsigned int atomicAdd(unsigned int* a, unsigned int v) { return __atomic_fetch_add(a, v, __ATOMIC_RELAXED); }
inline unsigned long long atomicAdd(unsigned long long* a, unsigned long long v) {
  return __atomic_fetch_add(a, v, __ATOMIC_RELAXED);
}
inline float atomicAdd(float* a, float v) {
  return musaport::cpu::atomic_update(a, [v](float old) { return old + v; });
}
inline double atomicAdd(double* a, double v) {
  return musaport::cpu::atomic_update(a, [v](double old) { return old + v; });
}
inline int atomicSub(int* a, int v) { return __atomic_fetch_sub(a, v, __ATOMIC_RELAXED); }
inline unsigned int atomicSub(unsigned int* a, unsigned int v) { return __atomic_fetch_sub(a, v, __ATOMIC_RELAXED); }
inline int atomicExch(int* a, int v) { return __atomic_exchange_n(a, v, __ATOMIC_RELAXED); }
inline unsigned int atomicExch(unsigned int* a, unsigned int v) { return __atomic_exchange_n(a, v, __ATOMIC_RELAXED); }
inline unsigned long long atomicExch(unsigned long long* a, unsigned long long v) {
  return __atomic_exchange_n(a, v, __ATOMIC_RELAXED);
}
inline float atomicExch(float* a, float v) {
  return musaport::cpu::atomic_update(a, [v](float) { return v; });
}
#define MUSAPORT_ATOMIC_MINMAX(T)                                                                  \
  inline T atomicMin(T* a, T v) {                                                                  \
    return musaport::cpu::atomic_update(a, [v](T old) { return v < old ? v : old; });              \
  }                                                                                                \
  inline T atomicMax(T* a, T v) {                                                                  \
    return musaport::cpu::atomic_update(a, [v](T old) { return v > old ? v : old; });              \
  }
MUSAPORT_ATOMIC_MINMAX(int)
MUSAPORT_ATOMIC_MINMAX(unsigned int)
MUSAPORT_ATOMIC_MINMAX(long long)
MUSAPORT_ATOMIC_MINMAX(unsigned long long)
#undef MUSAPORT_ATOMIC_MINMAX
inline unsigned int atomicInc(unsigned int* a, unsigned int limit) {
  return musaport::cpu::atomic_update(a, [limit](unsigned old) { return old >= limit ? 0u : old + 1u; });
}
inline unsigned int atomicDec(unsigned int* a, unsigned int limit) {
  return musaport::cpu::atomic_update(a, [limit](unsigned old) { return old == 0 || old > limit ? limit : old - 1u; });
}
inline int atomicCAS(int* a, int compare, int v) { return musaport::cpu::atomic_cas(a, compare, v); }
inline unsigned int atomicCAS(unsigned int* a, unsigned int compare, unsigned int v) {
  return musaport::cpu::atomic_cas(a, compare, v);
}
inline unsigned long long atomicCAS(unsigned long long* a, unsigned long long compare, unsigned long long v) {
  return musaport::cpu::atomic_cas(a, compare, v);
}
inline unsigned short atomicCAS(unsigned short* a, unsigned short compare, unsigned short v) {
  return musaport::cpu::atomic_cas(a, compare, v);
}
#define MUSAPORT_ATOMIC_BITWISE(T)                                                              \
  inline T atomicAnd(T* a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_RELAXED); }          \
  inline T atomicOr(T* a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_RELAXED); }            \
  inline T atomicXor(T* a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_RELAXED); }
MUSAPORT_ATOMIC_BITWISE(int)
MUSAPORT_ATOMIC_BITWISE(unsigned int)
MUSAPORT_ATOMIC_BITWISE(unsigned long long)
#undef MUSAPORT_ATOMIC_BITWISE

// ---------------------------------------------------------------- cache-hinted loads/stores: plain accesses
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline T __ldca(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline T __ldlu(const T* p) { return *p; }
template <class T> inline T __ldcv(const T* p) { return *p; }
template <class T> inline void __stwb(T* p, T v) { *p = v; }
template <class T> inline void __stcg(T* p, T v) { *p = v; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }
template <class T> inline void __stwt(T* p, T v) { *p = v; }

// ---------------------------------------------------------------- integer intrinsics
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {
  unsigned int r = 0;
  for (int i = 0; i < 32; ++i, x >>= 1) r = (r << 1) | (x & 1u);
  return r;
}
inline unsigned long long __brevll(unsigned long long x) {
  return (static_cast<unsigned long long>(__brev(static_cast<unsigned>(x))) << 32) | __brev(static_cast<unsigned>(x >> 32));
}
inline int __mul24(int x, int y) {
  const long long a = (static_cast<int>(static_cast<unsigned>(x) << 8)) >> 8;  // sign-extend the low 24 bits
  const long long b = (static_cast<int>(static_cast<unsigned>(y) << 8)) >> 8;
  return static_cast<int>(static_cast<unsigned>(a * b));
}
inline unsigned int __umul24(unsigned int x, unsigned int y) { return (x & 0xffffffu) * (y & 0xffffffu); }
inline int __mulhi(int x, int y) { return static_cast<int>((static_cast<long long>(x) * y) >> 32); }
inline unsigned int __umulhi(unsigned int x, unsigned int y) {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) * y) >> 32);
}
inline long long __mul64hi(long long x, long long y) { return static_cast<long long>((static_cast<__int128>(x) * y) >> 64); }
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(x) * y) >> 64);
}
// Result byte i is byte (selector nibble i & 7) of the 8-byte value y:x.
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int selector) {
  const unsigned long long bytes = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned int r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<unsigned>((bytes >> (8 * ((selector >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
  return r;
}
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((v << (shift & 31u)) >> 32);
}
inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((v << (shift > 32u ? 32u : shift)) >> 32);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(v >> (shift & 31u));
}
inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(v >> (shift > 32u ? 32u : shift));
}
inline unsigned int __sad(int x, int y, unsigned int z) {
  return z + static_cast<unsigned>(x > y ? static_cast<long long>(x) - y : static_cast<long long>(y) - x);
}
inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) { return z + (x > y ? x - y : y - x); }

// ---------------------------------------------------------------- bit casts and conversions
inline float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
inline int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
inline float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
inline unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned int, x); }
inline double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
inline long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
inline int __double2hiint(double x) { return static_cast<int>(__builtin_bit_cast(unsigned long long, x) >> 32); }
inline int __double2loint(double x) { return static_cast<int>(__builtin_bit_cast(unsigned long long, x)); }
inline double __hiloint2double(int hi, int lo) {
  return __builtin_bit_cast(double, (static_cast<unsigned long long>(static_cast<unsigned>(hi)) << 32) | static_cast<unsigned>(lo));
}
inline int __float2int_rn(float x) { return musaport::cpu::saturate_to<int>(std::nearbyint(x)); }
inline int __float2int_rz(float x) { return musaport::cpu::saturate_to<int>(std::trunc(x)); }
inline int __float2int_rd(float x) { return musaport::cpu::saturate_to<int>(std::floor(x)); }
inline int __float2int_ru(float x) { return musaport::cpu::saturate_to<int>(std::ceil(x)); }
inline unsigned int __float2uint_rn(float x) { return musaport::cpu::saturate_to<unsigned>(std::nearbyint(x)); }
inline unsigned int __float2uint_rz(float x) { return musaport::cpu::saturate_to<unsigned>(std::trunc(x)); }
inline unsigned int __float2uint_rd(float x) { return musaport::cpu::saturate_to<unsigned>(std::floor(x)); }
inline unsigned int __float2uint_ru(float x) { return musaport::cpu::saturate_to<unsigned>(std::ceil(x)); }
inline long long __float2ll_rn(float x) { return musaport::cpu::saturate_to<long long>(std::nearbyint(x)); }
inline long long __float2ll_rz(float x) { return musaport::cpu::saturate_to<long long>(std::trunc(x)); }
inline unsigned long long __float2ull_rn(float x) { return musaport::cpu::saturate_to<unsigned long long>(std::nearbyint(x)); }
inline unsigned long long __float2ull_rz(float x) { return musaport::cpu::saturate_to<unsigned long long>(std::trunc(x)); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }
inline float __uint2float_rn(unsigned int x) { return static_cast<float>(x); }
inline float __ll2float_rn(long long x) { return static_cast<float>(x); }
inline float __ull2float_rn(unsigned long long x) { return static_cast<float>(x); }
inline int __double2int_rn(double x) { return musaport::cpu::saturate_to<int>(std::nearbyint(x)); }
inline int __double2int_rz(double x) { return musaport::cpu::saturate_to<int>(std::trunc(x)); }
inline long long __double2ll_rn(double x) { return musaport::cpu::saturate_to<long long>(std::nearbyint(x)); }
inline long long __double2ll_rz(double x) { return musaport::cpu::saturate_to<long long>(std::trunc(x)); }
inline long long __double2ll_rd(double x) { return musaport::cpu::saturate_to<long long>(std::floor(x)); }
inline long long __double2ll_ru(double x) { return musaport::cpu::saturate_to<long long>(std::ceil(x)); }
inline int __double2int_rd(double x) { return musaport::cpu::saturate_to<int>(std::floor(x)); }
inline int __double2int_ru(double x) { return musaport::cpu::saturate_to<int>(std::ceil(x)); }
inline long long __float2ll_rd(float x) { return musaport::cpu::saturate_to<long long>(std::floor(x)); }
inline long long __float2ll_ru(float x) { return musaport::cpu::saturate_to<long long>(std::ceil(x)); }
inline float __double2float_rn(double x) { return static_cast<float>(x); }
inline double __int2double_rn(int x) { return x; }
inline double __ll2double_rn(long long x) { return static_cast<double>(x); }

// ---------------------------------------------------------------- float intrinsics (accurate versions on the CPU)
inline float __expf(float x) { return std::exp(x); }
inline float __exp10f(float x) { return std::pow(10.0f, x); }
inline float __logf(float x) { return std::log(x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __log10f(float x) { return std::log10(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __tanf(float x) { return std::tan(x); }
inline void __sincosf(float x, float* s, float* c) {
  *s = std::sin(x);
  *c = std::cos(x);
}
inline float __powf(float x, float y) { return std::pow(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __saturatef(float x) { return std::isnan(x) ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
inline float __frsqrt_rn(float x) { return 1.0f / std::sqrt(x); }
inline float __fadd_rn(float x, float y) { return x + y; }
inline float __fadd_rz(float x, float y) { return x + y; }
inline float __fsub_rn(float x, float y) { return x - y; }
inline float __fsub_rz(float x, float y) { return x - y; }
inline float __fmul_rn(float x, float y) { return x * y; }
inline float __fmul_rz(float x, float y) { return x * y; }
inline float __fdiv_rn(float x, float y) { return x / y; }
inline float __fdiv_rz(float x, float y) { return x / y; }
inline float __fmaf_rn(float x, float y, float z) { return std::fma(x, y, z); }
inline float __fmaf_rz(float x, float y, float z) { return std::fma(x, y, z); }
inline double __dadd_rn(double x, double y) { return x + y; }
inline double __dsub_rn(double x, double y) { return x - y; }
inline double __dmul_rn(double x, double y) { return x * y; }
inline double __ddiv_rn(double x, double y) { return x / y; }
inline double __drcp_rn(double x) { return 1.0 / x; }
inline double __dsqrt_rn(double x) { return std::sqrt(x); }
inline double __fma_rn(double x, double y, double z) { return std::fma(x, y, z); }

// ---------------------------------------------------------------- misc
// A trap stops the grid; the launch reports musaErrorAssert (as the GPU does).
inline void __trap() {
  musaport::cpu::BlockRunner& r = musaport::cpu::device_runner("__trap()", "?", 0);
  const uint3 b = r.block_index(), t = r.current().index;
  r.fault(musaport::cpu::Fault::Assert, "__trap() in block (%u,%u,%u) thread (%u,%u,%u)", b.x, b.y, b.z, t.x, t.y,
          t.z);
}

// Device-side assert: glibc's assert() and PyTorch's MUSA_KERNEL_ASSERT call
// __assert_fail, which would abort the process.  This header renames the
// calls (the macro below, so every use compiled after it, whatever was
// included first) to a function that, inside a kernel, stops the grid with
// musaErrorAssert, and outside one fails like glibc's.
extern "C" [[noreturn]] inline void musaport_assert_fail(const char* expr, const char* file, unsigned int line,
                                                         const char* function) noexcept {
  musaport::cpu::Worker* w = musaport::cpu::tls_worker;
  if (w == nullptr || !w->runner.active()) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s:%u: %s: Assertion `%s' failed.\n", file, line, function, expr);
    std::abort();
  }
  const uint3 b = w->runner.block_index(), t = w->runner.current().index;
  w->runner.fault(musaport::cpu::Fault::Assert,
                  "device-side assert in block (%u,%u,%u) thread (%u,%u,%u): %s:%u: %s: Assertion `%s' failed", b.x,
                  b.y, b.z, t.x, t.y, t.z, file, line, function, expr);
}
#define __assert_fail musaport_assert_fail
inline void __brkpt() {}
inline long long clock64() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
// A scheduling point: spin-waits that sleep between polls let the other
// threads of the block run.
inline void __nanosleep(unsigned int) { musaport::cpu::device_runner("__nanosleep()", "?", 0).yield(); }
