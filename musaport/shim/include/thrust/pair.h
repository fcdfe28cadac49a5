// musaport shim: thrust::pair, a std::pair look-alike whose members are
// __host__ __device__ (std::pair's assignment is a host function, which
// clang rejects in kernels).  get<N>, make_pair, comparisons, swap, and the
// std::tuple_size/tuple_element specialisations for structured bindings.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <musaport_shim/config.h>

namespace thrust {

template <typename T1, typename T2>
struct pair {
  using first_type = T1;
  using second_type = T2;

  T1 first;
  T2 second;

  MUSAPORT_HD constexpr pair() : first(), second() {}
  MUSAPORT_HD constexpr pair(const T1& a, const T2& b) : first(a), second(b) {}
  template <typename U1, typename U2,
            typename = std::enable_if_t<std::is_constructible<T1, U1&&>::value && std::is_constructible<T2, U2&&>::value>>
  MUSAPORT_HD constexpr pair(U1&& a, U2&& b) : first(std::forward<U1>(a)), second(std::forward<U2>(b)) {}
  template <typename U1, typename U2>
  MUSAPORT_HD constexpr pair(const pair<U1, U2>& p) : first(p.first), second(p.second) {}
  template <typename U1, typename U2>
  MUSAPORT_HD pair(const std::pair<U1, U2>& p) : first(p.first), second(p.second) {}
  pair(const pair&) = default;
  pair(pair&&) = default;

  MUSAPORT_HD pair& operator=(const pair& p) {
    first = p.first;
    second = p.second;
    return *this;
  }
  template <typename U1, typename U2>
  MUSAPORT_HD pair& operator=(const pair<U1, U2>& p) {
    first = p.first;
    second = p.second;
    return *this;
  }
  template <typename U1, typename U2>
  MUSAPORT_HD pair& operator=(const std::pair<U1, U2>& p) {
    first = p.first;
    second = p.second;
    return *this;
  }

  MUSAPORT_HD void swap(pair& p) {
    T1 a = first;
    first = p.first;
    p.first = a;
    T2 b = second;
    second = p.second;
    p.second = b;
  }
};

template <typename T1, typename T2>
MUSAPORT_HD constexpr pair<std::decay_t<T1>, std::decay_t<T2>> make_pair(T1&& a, T2&& b) {
  return pair<std::decay_t<T1>, std::decay_t<T2>>(std::forward<T1>(a), std::forward<T2>(b));
}

template <typename T1, typename T2>
MUSAPORT_HD constexpr bool operator==(const pair<T1, T2>& a, const pair<T1, T2>& b) {
  return a.first == b.first && a.second == b.second;
}
template <typename T1, typename T2>
MUSAPORT_HD constexpr bool operator!=(const pair<T1, T2>& a, const pair<T1, T2>& b) { return !(a == b); }
template <typename T1, typename T2>
MUSAPORT_HD constexpr bool operator<(const pair<T1, T2>& a, const pair<T1, T2>& b) {
  return a.first < b.first || (!(b.first < a.first) && a.second < b.second);
}
template <typename T1, typename T2>
MUSAPORT_HD constexpr bool operator>(const pair<T1, T2>& a, const pair<T1, T2>& b) { return b < a; }
template <typename T1, typename T2>
MUSAPORT_HD constexpr bool operator<=(const pair<T1, T2>& a, const pair<T1, T2>& b) { return !(b < a); }
template <typename T1, typename T2>
MUSAPORT_HD constexpr bool operator>=(const pair<T1, T2>& a, const pair<T1, T2>& b) { return !(a < b); }

// As in thrust, <thrust/pair.h> brings thrust::swap: PyTorch 1.13's LinearAlgebra.cu calls it with
// no <thrust/swap.h> of its own.
template <typename T>
MUSAPORT_HD void swap(T& a, T& b) {
  T tmp = static_cast<T&&>(a);
  a = static_cast<T&&>(b);
  b = static_cast<T&&>(tmp);
}

template <typename T1, typename T2>
MUSAPORT_HD void swap(pair<T1, T2>& a, pair<T1, T2>& b) { a.swap(b); }

namespace musaport_detail {
template <std::size_t N>
struct pair_get;
template <>
struct pair_get<0> {
  template <typename P>
  MUSAPORT_HD static constexpr auto& get(P& p) { return p.first; }
};
template <>
struct pair_get<1> {
  template <typename P>
  MUSAPORT_HD static constexpr auto& get(P& p) { return p.second; }
};
}  // namespace musaport_detail

template <std::size_t N, typename T1, typename T2>
MUSAPORT_HD constexpr auto& get(pair<T1, T2>& p) { return musaport_detail::pair_get<N>::get(p); }
template <std::size_t N, typename T1, typename T2>
MUSAPORT_HD constexpr const auto& get(const pair<T1, T2>& p) { return musaport_detail::pair_get<N>::get(p); }
template <std::size_t N, typename T1, typename T2>
MUSAPORT_HD constexpr auto&& get(pair<T1, T2>&& p) {
  return static_cast<std::conditional_t<N == 0, T1, T2>&&>(musaport_detail::pair_get<N>::get(p));
}

}  // namespace thrust

namespace std {
template <typename T1, typename T2>
struct tuple_size<thrust::pair<T1, T2>> : std::integral_constant<std::size_t, 2> {};
template <typename T1, typename T2>
struct tuple_element<0, thrust::pair<T1, T2>> { using type = T1; };
template <typename T1, typename T2>
struct tuple_element<1, thrust::pair<T1, T2>> { using type = T2; };
}  // namespace std
