// musaport shim, not a cub header: what the shim's device-wide algorithms
// (cub/device/*.cuh) share to run sequentially (see cub/cub.cuh).
#pragma once

#include <cstddef>
#include <iterator>
#include <type_traits>

#include <cub/config.cuh>
#include <cub/util_type.cuh>
#include <musaport_shim/serial_sort.h>

CUB_NS_PREFIX
namespace cub {

// ------------------------------------------------------------ device-wide algorithms
// Sequential versions: a first call with d_temp_storage == nullptr asks for
// one byte; the second runs the algorithm once on the device (a one-thread
// kernel; a plain call on the CPU runtime).  Radix sorts compare the keys'
// bits from begin_bit to end_bit in radix order (RadixLess), stably.
namespace musaport_detail {
#if MUSAPORT_CLANG_CUDA
template <typename F>
__global__ void serial_kernel(F f) { f(); }
#endif

template <typename F>
inline musaError_t run_serial(void* d_temp_storage, std::size_t& temp_storage_bytes, musaStream_t stream, F f) {
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = 1;
    return musaSuccess;
  }
#if MUSAPORT_CLANG_CUDA
  serial_kernel<<<1, 1, 0, stream>>>(f);
#else
  (void)stream;
  f();
#endif
  return musaSuccess;
}

template <typename T>
MUSAPORT_HD T unwrap(const T& v) { return v; }
template <typename T, typename I>
MUSAPORT_HD T unwrap(FutureValue<T, I> v) { return static_cast<T>(v); }

template <typename It>
using value_t = typename std::iterator_traits<It>::value_type;
// cub's accumulator for Sum/Min/Max: the output's value type, or the input's
// when the output is an iterator without one (discard-like).
template <typename In, typename Out>
using acc_t = std::conditional_t<std::is_void<value_t<Out>>::value, value_t<In>, value_t<Out>>;

struct Greater {
  template <typename T>
  MUSAPORT_HD bool operator()(const T& a, const T& b) const { return b < a; }
};

template <typename In, typename Out, typename Op, typename Init>
MUSAPORT_HD void exclusive_scan(In in, Out out, Op op, Init init, long long n) {
  auto acc = init;
  for (long long i = 0; i < n; ++i) {
    auto next = op(acc, in[i]);
    out[i] = acc;
    acc = next;
  }
}

template <typename K, typename V, typename Comp>
MUSAPORT_HD void sort_pairs(const K* kin, K* kout, const V* vin, V* vout, long long n, Comp comp) {
  for (long long i = 0; i < n; ++i) {
    kout[i] = kin[i];
    if (vout) vout[i] = vin[i];
  }
  ::musaport::serial::stable_sort(
      n, [&](std::ptrdiff_t i, std::ptrdiff_t j) { return comp(kout[i], kout[j]); },
      [&](std::ptrdiff_t i, std::ptrdiff_t j) {
        K k = kout[i];
        kout[i] = kout[j];
        kout[j] = k;
        if (vout) {
          V v = vout[i];
          vout[i] = vout[j];
          vout[j] = v;
        }
      });
}

template <typename Reduce, typename In, typename Out, typename Begin, typename End, typename Op, typename T>
MUSAPORT_HD void segmented_reduce(In in, Out out, int segments, Begin begin, End end, Op op, T init) {
  for (int s = 0; s < segments; ++s) {
    T acc = init;
    for (auto i = begin[s]; i < end[s]; ++i) acc = op(acc, in[i]);
    out[s] = acc;
  }
}
}  // namespace musaport_detail

}  // namespace cub
CUB_NS_POSTFIX
