// musaport shim: thrust's algorithms, sequential and __host__ __device__.
//
// Each algorithm has the policy-less form, which runs where it is called, and
// the form with an execution policy first.  As in thrust, a device policy
// (thrust::device, thrust::musa::par(alloc).on(stream), par_nosync) called
// from host code runs the algorithm on the device: here, sequentially in a
// one-thread kernel on the policy's stream (the way cub/device/ runs), so
// functors and lambdas that are only __device__ are accepted; called from
// device code it runs in the calling thread.  thrust::host and thrust::seq
// run in the calling thread.  On the CPU runtime a kernel is a plain call, so
// every form runs in the calling thread.  Sorting is a heap sort (unstable) or
// the in-place merge sort of serial_sort.h (the stable_ variants and the
// *_by_key sorts, which thrust documents as stable for radix-sortable keys).
#pragma once

#include <cstddef>
#include <cstring>
#include <iterator>
#include <type_traits>
#include <utility>

#include <musaport_shim/serial_sort.h>
#include <musaport_shim/thrust_core.h>

namespace thrust {
namespace musaport_detail {

template <typename It>
using value_of = typename std::iterator_traits<It>::value_type;
template <typename It>
using diff_of = typename std::iterator_traits<It>::difference_type;

template <typename P>
using if_policy = std::enable_if_t<is_execution_policy<P>::value, int>;
template <typename P>
using if_not_policy = std::enable_if_t<!is_execution_policy<P>::value, int>;

// Heap sort of positions [0, n): less(i, j) compares, swap(i, j) exchanges.
template <typename Less, typename Swap>
MUSAPORT_HD void heap_sort(std::ptrdiff_t n, Less less, Swap swap_at) {
  auto sift = [&](std::ptrdiff_t root, std::ptrdiff_t end) {
    while (2 * root + 1 < end) {
      std::ptrdiff_t child = 2 * root + 1;
      if (child + 1 < end && less(child, child + 1)) ++child;
      if (!less(root, child)) return;
      swap_at(root, child);
      root = child;
    }
  };
  for (std::ptrdiff_t i = n / 2 - 1; i >= 0; --i) sift(i, n);
  for (std::ptrdiff_t end = n - 1; end > 0; --end) {
    swap_at(0, end);
    sift(0, end);
  }
}


// ------------------------------------------------------------ where a policy runs
// The policies of thrust's device system (the MUSA backend).
template <typename P>
struct is_device_policy : std::false_type {};
template <>
struct is_device_policy<thrust::detail::device_t> : std::true_type {};
template <>
struct is_device_policy<musa::par_t> : std::true_type {};
template <typename A>
struct is_device_policy<musa::par_with_allocator_t<A>> : std::true_type {};

template <typename P>
using if_device_policy = std::enable_if_t<is_device_policy<std::decay_t<P>>::value, int>;
template <typename P>
using if_other_policy =
    std::enable_if_t<is_execution_policy<P>::value && !is_device_policy<std::decay_t<P>>::value, int>;

template <typename P>
MUSAPORT_HD musaStream_t stream_of(const P&) { return nullptr; }
MUSAPORT_HD inline musaStream_t stream_of(const musa::par_t& p) { return p.stream; }
template <typename A>
MUSAPORT_HD musaStream_t stream_of(const musa::par_with_allocator_t<A>& p) { return p.stream; }

#if MUSAPORT_CLANG_CUDA
template <typename F>
__global__ void serial_kernel(F f) { f(); }
template <typename R, typename F>
__global__ void serial_kernel_result(R* result, F f) {
  R r = f();
  memcpy(static_cast<void*>(result), static_cast<const void*>(&r), sizeof(R));
}

// Run f (an algorithm with its arguments) in a one-thread kernel on the
// stream and wait for it, copying a result back (algorithms return
// iterators, values and pairs of them).
template <typename F>
void launch_serial(musaStream_t stream, F f, std::true_type /*void*/) {
  serial_kernel<<<1, 1, 0, stream>>>(f);
  musaStreamSynchronize(stream);
}
template <typename F>
auto launch_serial(musaStream_t stream, F f, std::false_type /*void*/) {
  using R = decltype(f());
  R* d_result = nullptr;
  musaMalloc(reinterpret_cast<void**>(&d_result), sizeof(R));
  serial_kernel_result<<<1, 1, 0, stream>>>(d_result, f);
  alignas(R) unsigned char h_result[sizeof(R)];
  musaMemcpyAsync(h_result, d_result, sizeof(R), musaMemcpyDeviceToHost, stream);
  musaStreamSynchronize(stream);
  musaFree(d_result);
  return *reinterpret_cast<R*>(h_result);
}
template <typename F>
auto launch_serial(musaStream_t stream, F f) {
  return launch_serial(stream, f, std::is_void<decltype(f())>());
}
#endif

}  // namespace musaport_detail

// Declares `name(policy, args...)`: `name(args...)` run where the policy runs.
// In clang mode a device policy has a __host__ form, which launches the
// one-thread kernel (so the device pass, reading the host caller, emits the
// kernel and checks that every functor is callable on the device), and a
// __device__ form for calls from device code, which runs in the caller.
#if MUSAPORT_CLANG_CUDA
#define MUSAPORT_THRUST_POLICY_FORM(name)                                                          \
  template <typename Policy, typename... Args, musaport_detail::if_other_policy<Policy> = 0>        \
  MUSAPORT_HD auto name(const Policy&, Args&&... args)->decltype(name(static_cast<Args&&>(args)...)) { \
    return name(static_cast<Args&&>(args)...);                                                     \
  }                                                                                                \
  template <typename Policy, typename... Args, musaport_detail::if_device_policy<Policy> = 0>       \
  __host__ auto name(const Policy& policy, Args&&... args)->decltype(name(static_cast<Args&&>(args)...)) { \
    return musaport_detail::launch_serial(musaport_detail::stream_of(policy),                      \
                                          [=] MUSAPORT_HD() mutable { return name(args...); });    \
  }                                                                                                \
  template <typename Policy, typename... Args, musaport_detail::if_device_policy<Policy> = 0>       \
  __device__ auto name(const Policy&, Args&&... args)->decltype(name(static_cast<Args&&>(args)...)) { \
    return name(static_cast<Args&&>(args)...);                                                     \
  }
#else
#define MUSAPORT_THRUST_POLICY_FORM(name)                                                          \
  template <typename Policy, typename... Args, musaport_detail::if_policy<Policy> = 0>             \
  auto name(const Policy&, Args&&... args)->decltype(name(static_cast<Args&&>(args)...)) {         \
    return name(static_cast<Args&&>(args)...);                                                     \
  }
#endif

// ------------------------------------------------------------ for_each, transform, fill...
template <typename It, typename F, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD It for_each(It first, It last, F f) {
  for (; first != last; ++first) f(*first);
  return first;
}
MUSAPORT_THRUST_POLICY_FORM(for_each)

template <typename It, typename Size, typename F, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD It for_each_n(It first, Size n, F f) {
  for (Size i = 0; i < n; ++i, ++first) f(*first);
  return first;
}
MUSAPORT_THRUST_POLICY_FORM(for_each_n)

template <typename In, typename Out, typename F, musaport_detail::if_not_policy<In> = 0>
MUSAPORT_HD Out transform(In first, In last, Out out, F f) {
  for (; first != last; ++first, ++out) *out = f(*first);
  return out;
}
template <typename In1, typename In2, typename Out, typename F, musaport_detail::if_not_policy<In1> = 0>
MUSAPORT_HD Out transform(In1 first1, In1 last1, In2 first2, Out out, F f) {
  for (; first1 != last1; ++first1, ++first2, ++out) *out = f(*first1, *first2);
  return out;
}
MUSAPORT_THRUST_POLICY_FORM(transform)

template <typename It, typename T, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD void fill(It first, It last, const T& value) {
  for (; first != last; ++first) *first = value;
}
MUSAPORT_THRUST_POLICY_FORM(fill)

template <typename It, typename Size, typename T, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD It fill_n(It first, Size n, const T& value) {
  for (Size i = 0; i < n; ++i, ++first) *first = value;
  return first;
}
MUSAPORT_THRUST_POLICY_FORM(fill_n)

template <typename It, typename G, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD void generate(It first, It last, G gen) {
  for (; first != last; ++first) *first = gen();
}
MUSAPORT_THRUST_POLICY_FORM(generate)

template <typename It, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD void sequence(It first, It last) {
  musaport_detail::value_of<It> v = 0;
  for (; first != last; ++first, ++v) *first = v;
}
template <typename It, typename T, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD void sequence(It first, It last, T init) {
  for (; first != last; ++first, ++init) *first = init;
}
template <typename It, typename T, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD void sequence(It first, It last, T init, T step) {
  for (; first != last; ++first, init += step) *first = init;
}
MUSAPORT_THRUST_POLICY_FORM(sequence)

// ------------------------------------------------------------ copy, gather, scatter
template <typename In, typename Out, musaport_detail::if_not_policy<In> = 0>
MUSAPORT_HD Out copy(In first, In last, Out out) {
  for (; first != last; ++first, ++out) *out = *first;
  return out;
}
MUSAPORT_THRUST_POLICY_FORM(copy)

template <typename In, typename Size, typename Out, musaport_detail::if_not_policy<In> = 0>
MUSAPORT_HD Out copy_n(In first, Size n, Out out) {
  for (Size i = 0; i < n; ++i, ++first, ++out) *out = *first;
  return out;
}
MUSAPORT_THRUST_POLICY_FORM(copy_n)

template <typename In, typename Out, typename Pred, musaport_detail::if_not_policy<In> = 0>
MUSAPORT_HD Out copy_if(In first, In last, Out out, Pred pred) {
  for (; first != last; ++first)
    if (pred(*first)) *out++ = *first;
  return out;
}
MUSAPORT_THRUST_POLICY_FORM(copy_if)

template <typename Map, typename In, typename Out, musaport_detail::if_not_policy<Map> = 0>
MUSAPORT_HD Out gather(Map map_first, Map map_last, In input, Out out) {
  for (; map_first != map_last; ++map_first, ++out) *out = input[*map_first];
  return out;
}
MUSAPORT_THRUST_POLICY_FORM(gather)

template <typename In, typename Map, typename Out, musaport_detail::if_not_policy<In> = 0>
MUSAPORT_HD void scatter(In first, In last, Map map, Out out) {
  for (; first != last; ++first, ++map) out[*map] = *first;
}
MUSAPORT_THRUST_POLICY_FORM(scatter)

// ------------------------------------------------------------ reductions and searches
template <typename It, typename T, typename Op, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD T reduce(It first, It last, T init, Op op) {
  for (; first != last; ++first) init = op(init, *first);
  return init;
}
template <typename It, typename T, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD T reduce(It first, It last, T init) {
  return reduce(first, last, init, plus<T>());
}
template <typename It, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD musaport_detail::value_of<It> reduce(It first, It last) {
  return reduce(first, last, musaport_detail::value_of<It>(), plus<musaport_detail::value_of<It>>());
}
MUSAPORT_THRUST_POLICY_FORM(reduce)

template <typename In1, typename In2, typename T, typename Op1, typename Op2, musaport_detail::if_not_policy<In1> = 0>
MUSAPORT_HD T inner_product(In1 first1, In1 last1, In2 first2, T init, Op1 reduce_op, Op2 pair_op) {
  for (; first1 != last1; ++first1, ++first2) init = reduce_op(init, pair_op(*first1, *first2));
  return init;
}
template <typename In1, typename In2, typename T, musaport_detail::if_not_policy<In1> = 0>
MUSAPORT_HD T inner_product(In1 first1, In1 last1, In2 first2, T init) {
  return inner_product(first1, last1, first2, init, plus<>(), multiplies<>());
}
MUSAPORT_THRUST_POLICY_FORM(inner_product)

template <typename It, typename Pred, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD musaport_detail::diff_of<It> count_if(It first, It last, Pred pred) {
  musaport_detail::diff_of<It> n = 0;
  for (; first != last; ++first)
    if (pred(*first)) ++n;
  return n;
}
MUSAPORT_THRUST_POLICY_FORM(count_if)

template <typename It, typename T, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD musaport_detail::diff_of<It> count(It first, It last, const T& value) {
  musaport_detail::diff_of<It> n = 0;
  for (; first != last; ++first)
    if (*first == value) ++n;
  return n;
}
MUSAPORT_THRUST_POLICY_FORM(count)

template <typename It, typename Pred, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD It find_if(It first, It last, Pred pred) {
  for (; first != last; ++first)
    if (pred(*first)) return first;
  return last;
}
MUSAPORT_THRUST_POLICY_FORM(find_if)

template <typename It, typename T, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD It find(It first, It last, const T& value) {
  for (; first != last; ++first)
    if (*first == value) return first;
  return last;
}
MUSAPORT_THRUST_POLICY_FORM(find)

template <typename It, typename Comp, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD It max_element(It first, It last, Comp comp) {
  It best = first;
  for (; first != last; ++first)
    if (comp(*best, *first)) best = first;
  return best;
}
template <typename It, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD It max_element(It first, It last) { return max_element(first, last, less<>()); }
MUSAPORT_THRUST_POLICY_FORM(max_element)

template <typename It, typename Comp, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD It min_element(It first, It last, Comp comp) {
  It best = first;
  for (; first != last; ++first)
    if (comp(*first, *best)) best = first;
  return best;
}
template <typename It, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD It min_element(It first, It last) { return min_element(first, last, less<>()); }
MUSAPORT_THRUST_POLICY_FORM(min_element)

template <typename It, typename T, typename Comp, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD It lower_bound(It first, It last, const T& value, Comp comp) {
  auto n = last - first;
  while (n > 0) {
    auto half = n / 2;
    It mid = first + half;
    if (comp(*mid, value)) {
      first = mid + 1;
      n -= half + 1;
    } else {
      n = half;
    }
  }
  return first;
}
template <typename It, typename T, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD It lower_bound(It first, It last, const T& value) { return lower_bound(first, last, value, less<>()); }

template <typename It, typename T, typename Comp, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD It upper_bound(It first, It last, const T& value, Comp comp) {
  auto n = last - first;
  while (n > 0) {
    auto half = n / 2;
    It mid = first + half;
    if (!comp(value, *mid)) {
      first = mid + 1;
      n -= half + 1;
    } else {
      n = half;
    }
  }
  return first;
}
template <typename It, typename T, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD It upper_bound(It first, It last, const T& value) { return upper_bound(first, last, value, less<>()); }

template <typename It, typename T, typename Comp, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD bool binary_search(It first, It last, const T& value, Comp comp) {
  It it = lower_bound(first, last, value, comp);
  return it != last && !comp(value, *it);
}
template <typename It, typename T, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD bool binary_search(It first, It last, const T& value) { return binary_search(first, last, value, less<>()); }
// The vectorized searches: one search of [first, last) per value, the
// position (or, for binary_search, whether it was found) written to result.
template <typename It, typename Values, typename Out, typename Comp, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD Out lower_bound(It first, It last, Values values_first, Values values_last, Out result, Comp comp) {
  for (; values_first != values_last; ++values_first, ++result) *result = lower_bound(first, last, *values_first, comp) - first;
  return result;
}
template <typename It, typename Values, typename Out, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD Out lower_bound(It first, It last, Values values_first, Values values_last, Out result) {
  return lower_bound(first, last, values_first, values_last, result, less<>());
}
template <typename It, typename Values, typename Out, typename Comp, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD Out upper_bound(It first, It last, Values values_first, Values values_last, Out result, Comp comp) {
  for (; values_first != values_last; ++values_first, ++result) *result = upper_bound(first, last, *values_first, comp) - first;
  return result;
}
template <typename It, typename Values, typename Out, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD Out upper_bound(It first, It last, Values values_first, Values values_last, Out result) {
  return upper_bound(first, last, values_first, values_last, result, less<>());
}
template <typename It, typename Values, typename Out, typename Comp, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD Out binary_search(It first, It last, Values values_first, Values values_last, Out result, Comp comp) {
  for (; values_first != values_last; ++values_first, ++result) *result = binary_search(first, last, *values_first, comp);
  return result;
}
template <typename It, typename Values, typename Out, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD Out binary_search(It first, It last, Values values_first, Values values_last, Out result) {
  return binary_search(first, last, values_first, values_last, result, less<>());
}
MUSAPORT_THRUST_POLICY_FORM(lower_bound)
MUSAPORT_THRUST_POLICY_FORM(upper_bound)
MUSAPORT_THRUST_POLICY_FORM(binary_search)

// ------------------------------------------------------------ scans
template <typename In, typename Out, typename Op, musaport_detail::if_not_policy<In> = 0>
MUSAPORT_HD Out inclusive_scan(In first, In last, Out out, Op op) {
  if (first == last) return out;
  musaport_detail::value_of<In> acc = *first;
  *out = acc;
  for (++first, ++out; first != last; ++first, ++out) *out = acc = op(acc, *first);
  return out;
}
template <typename In, typename Out, musaport_detail::if_not_policy<In> = 0>
MUSAPORT_HD Out inclusive_scan(In first, In last, Out out) { return inclusive_scan(first, last, out, plus<>()); }
MUSAPORT_THRUST_POLICY_FORM(inclusive_scan)

template <typename In, typename Out, typename T, typename Op, musaport_detail::if_not_policy<In> = 0>
MUSAPORT_HD Out exclusive_scan(In first, In last, Out out, T init, Op op) {
  T acc = init;
  for (; first != last; ++first, ++out) {
    T next = op(acc, *first);
    *out = acc;
    acc = next;
  }
  return out;
}
template <typename In, typename Out, typename T, musaport_detail::if_not_policy<In> = 0>
MUSAPORT_HD Out exclusive_scan(In first, In last, Out out, T init) { return exclusive_scan(first, last, out, init, plus<>()); }
template <typename In, typename Out, musaport_detail::if_not_policy<In> = 0>
MUSAPORT_HD Out exclusive_scan(In first, In last, Out out) {
  return exclusive_scan(first, last, out, musaport_detail::value_of<In>(), plus<>());
}
MUSAPORT_THRUST_POLICY_FORM(exclusive_scan)

template <typename K, typename V, typename Out, typename Pred, typename Op, musaport_detail::if_not_policy<K> = 0>
MUSAPORT_HD Out inclusive_scan_by_key(K kfirst, K klast, V vfirst, Out out, Pred pred, Op op) {
  if (kfirst == klast) return out;
  musaport_detail::value_of<V> acc = *vfirst;
  *out = acc;
  K prev = kfirst;
  for (++kfirst, ++vfirst, ++out; kfirst != klast; prev = kfirst, ++kfirst, ++vfirst, ++out)
    *out = acc = pred(*prev, *kfirst) ? op(acc, *vfirst) : musaport_detail::value_of<V>(*vfirst);
  return out;
}
template <typename K, typename V, typename Out, typename Pred, musaport_detail::if_not_policy<K> = 0>
MUSAPORT_HD Out inclusive_scan_by_key(K kfirst, K klast, V vfirst, Out out, Pred pred) {
  return inclusive_scan_by_key(kfirst, klast, vfirst, out, pred, plus<>());
}
template <typename K, typename V, typename Out, musaport_detail::if_not_policy<K> = 0>
MUSAPORT_HD Out inclusive_scan_by_key(K kfirst, K klast, V vfirst, Out out) {
  return inclusive_scan_by_key(kfirst, klast, vfirst, out, equal_to<>(), plus<>());
}
MUSAPORT_THRUST_POLICY_FORM(inclusive_scan_by_key)

template <typename In, typename Out, typename Op, musaport_detail::if_not_policy<In> = 0>
MUSAPORT_HD Out adjacent_difference(In first, In last, Out out, Op op) {
  if (first == last) return out;
  musaport_detail::value_of<In> prev = *first;
  *out = prev;
  for (++first, ++out; first != last; ++first, ++out) {
    musaport_detail::value_of<In> cur = *first;
    *out = op(cur, prev);
    prev = cur;
  }
  return out;
}
template <typename In, typename Out, musaport_detail::if_not_policy<In> = 0>
MUSAPORT_HD Out adjacent_difference(In first, In last, Out out) { return adjacent_difference(first, last, out, minus<>()); }
MUSAPORT_THRUST_POLICY_FORM(adjacent_difference)

// ------------------------------------------------------------ unique, reduce_by_key
template <typename It, typename Pred, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD It unique(It first, It last, Pred pred) {
  if (first == last) return last;
  It out = first;
  for (++first; first != last; ++first)
    if (!pred(*out, *first)) *++out = *first;
  return ++out;
}
template <typename It, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD It unique(It first, It last) { return unique(first, last, equal_to<>()); }
MUSAPORT_THRUST_POLICY_FORM(unique)

template <typename K, typename V, typename KO, typename VO, typename Pred, musaport_detail::if_not_policy<K> = 0>
MUSAPORT_HD pair<KO, VO> unique_by_key_copy(K kfirst, K klast, V vfirst, KO kout, VO vout, Pred pred) {
  if (kfirst == klast) return pair<KO, VO>(kout, vout);
  K prev = kfirst;
  *kout = *kfirst;
  *vout = *vfirst;
  for (++kfirst, ++vfirst; kfirst != klast; ++kfirst, ++vfirst) {
    if (!pred(*prev, *kfirst)) {
      *++kout = *kfirst;
      *++vout = *vfirst;
      prev = kfirst;
    }
  }
  return pair<KO, VO>(++kout, ++vout);
}
template <typename K, typename V, typename KO, typename VO, musaport_detail::if_not_policy<K> = 0>
MUSAPORT_HD pair<KO, VO> unique_by_key_copy(K kfirst, K klast, V vfirst, KO kout, VO vout) {
  return unique_by_key_copy(kfirst, klast, vfirst, kout, vout, equal_to<>());
}
MUSAPORT_THRUST_POLICY_FORM(unique_by_key_copy)

template <typename K, typename V, typename Pred, musaport_detail::if_not_policy<K> = 0>
MUSAPORT_HD pair<K, V> unique_by_key(K kfirst, K klast, V vfirst, Pred pred) {
  if (kfirst == klast) return pair<K, V>(kfirst, vfirst);
  K kout = kfirst;
  V vout = vfirst;
  for (++kfirst, ++vfirst; kfirst != klast; ++kfirst, ++vfirst) {
    if (!pred(*kout, *kfirst)) {
      *++kout = *kfirst;
      *++vout = *vfirst;
    }
  }
  return pair<K, V>(++kout, ++vout);
}
template <typename K, typename V, musaport_detail::if_not_policy<K> = 0>
MUSAPORT_HD pair<K, V> unique_by_key(K kfirst, K klast, V vfirst) { return unique_by_key(kfirst, klast, vfirst, equal_to<>()); }
MUSAPORT_THRUST_POLICY_FORM(unique_by_key)

template <typename K, typename V, typename KO, typename VO, typename Pred, typename Op, musaport_detail::if_not_policy<K> = 0>
MUSAPORT_HD pair<KO, VO> reduce_by_key(K kfirst, K klast, V vfirst, KO kout, VO vout, Pred pred, Op op) {
  if (kfirst == klast) return pair<KO, VO>(kout, vout);
  auto key = *kfirst;
  musaport_detail::value_of<V> acc = *vfirst;
  for (++kfirst, ++vfirst; kfirst != klast; ++kfirst, ++vfirst) {
    if (pred(key, *kfirst)) {
      acc = op(acc, *vfirst);
    } else {
      *kout = key;
      *vout = acc;
      ++kout;
      ++vout;
      key = *kfirst;
      acc = *vfirst;
    }
  }
  *kout = key;
  *vout = acc;
  return pair<KO, VO>(++kout, ++vout);
}
template <typename K, typename V, typename KO, typename VO, typename Pred, musaport_detail::if_not_policy<K> = 0>
MUSAPORT_HD pair<KO, VO> reduce_by_key(K kfirst, K klast, V vfirst, KO kout, VO vout, Pred pred) {
  return reduce_by_key(kfirst, klast, vfirst, kout, vout, pred, plus<>());
}
template <typename K, typename V, typename KO, typename VO, musaport_detail::if_not_policy<K> = 0>
MUSAPORT_HD pair<KO, VO> reduce_by_key(K kfirst, K klast, V vfirst, KO kout, VO vout) {
  return reduce_by_key(kfirst, klast, vfirst, kout, vout, equal_to<>(), plus<>());
}
MUSAPORT_THRUST_POLICY_FORM(reduce_by_key)

// ------------------------------------------------------------ sorting
template <typename It, typename Comp, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD void sort(It first, It last, Comp comp) {
  musaport_detail::heap_sort(
      last - first, [&](std::ptrdiff_t i, std::ptrdiff_t j) { return comp(first[i], first[j]); },
      [&](std::ptrdiff_t i, std::ptrdiff_t j) { thrust::swap(first[i], first[j]); });
}
template <typename It, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD void sort(It first, It last) { sort(first, last, less<>()); }
MUSAPORT_THRUST_POLICY_FORM(sort)

template <typename It, typename Comp, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD void stable_sort(It first, It last, Comp comp) {
  ::musaport::serial::stable_sort(
      last - first, [&](std::ptrdiff_t i, std::ptrdiff_t j) { return comp(first[i], first[j]); },
      [&](std::ptrdiff_t i, std::ptrdiff_t j) { thrust::swap(first[i], first[j]); });
}
template <typename It, musaport_detail::if_not_policy<It> = 0>
MUSAPORT_HD void stable_sort(It first, It last) { stable_sort(first, last, less<>()); }
MUSAPORT_THRUST_POLICY_FORM(stable_sort)

template <typename K, typename V, typename Comp, musaport_detail::if_not_policy<K> = 0>
MUSAPORT_HD void stable_sort_by_key(K kfirst, K klast, V vfirst, Comp comp) {
  ::musaport::serial::stable_sort(
      klast - kfirst, [&](std::ptrdiff_t i, std::ptrdiff_t j) { return comp(kfirst[i], kfirst[j]); },
      [&](std::ptrdiff_t i, std::ptrdiff_t j) {
        thrust::swap(kfirst[i], kfirst[j]);
        thrust::swap(vfirst[i], vfirst[j]);
      });
}
template <typename K, typename V, musaport_detail::if_not_policy<K> = 0>
MUSAPORT_HD void stable_sort_by_key(K kfirst, K klast, V vfirst) { stable_sort_by_key(kfirst, klast, vfirst, less<>()); }
MUSAPORT_THRUST_POLICY_FORM(stable_sort_by_key)

template <typename K, typename V, typename Comp, musaport_detail::if_not_policy<K> = 0>
MUSAPORT_HD void sort_by_key(K kfirst, K klast, V vfirst, Comp comp) { stable_sort_by_key(kfirst, klast, vfirst, comp); }
template <typename K, typename V, musaport_detail::if_not_policy<K> = 0>
MUSAPORT_HD void sort_by_key(K kfirst, K klast, V vfirst) { stable_sort_by_key(kfirst, klast, vfirst, less<>()); }
MUSAPORT_THRUST_POLICY_FORM(sort_by_key)

#undef MUSAPORT_THRUST_POLICY_FORM

}  // namespace thrust
