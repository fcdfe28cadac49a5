// musaport shim: thrust::tuple, a small std::tuple look-alike whose members
// are all __host__ __device__ (std::tuple's assignment is a host function,
// so `thrust::tie(a, b) = t;` in a kernel needs its own type).  get<N>,
// make_tuple, tie, ignore, tuple_size/tuple_element (thrust:: and std::, for
// structured bindings), comparisons.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <musaport_shim/config.h>
#include <thrust/pair.h>

namespace thrust {

template <typename... T>
class tuple;

namespace musaport_detail {

template <std::size_t I, typename T>
struct tuple_leaf {
  T value;
  MUSAPORT_HD constexpr tuple_leaf() : value() {}
  template <typename U>
  MUSAPORT_HD constexpr explicit tuple_leaf(U&& u) : value(std::forward<U>(u)) {}
};

template <typename Seq, typename... T>
struct tuple_base;

template <std::size_t... I, typename... T>
struct tuple_base<std::index_sequence<I...>, T...> : tuple_leaf<I, T>... {
  MUSAPORT_HD constexpr tuple_base() : tuple_leaf<I, T>()... {}
  template <typename... U>
  MUSAPORT_HD constexpr explicit tuple_base(int, U&&... u) : tuple_leaf<I, T>(std::forward<U>(u))... {}

  template <typename Other>
  MUSAPORT_HD void assign(Other&& other) {
    int unused[] = {0, ((static_cast<tuple_leaf<I, T>&>(*this).value =
                             static_cast<Other&&>(other).template musaport_get<I>()),
                        0)...};
    (void)unused;
  }
};

template <std::size_t I, typename T>
MUSAPORT_HD constexpr T& leaf_get(tuple_leaf<I, T>& l) { return l.value; }
template <std::size_t I, typename T>
MUSAPORT_HD constexpr const T& leaf_get(const tuple_leaf<I, T>& l) { return l.value; }

template <std::size_t I, typename... T>
struct type_at;
template <typename H, typename... T>
struct type_at<0, H, T...> { using type = H; };
template <std::size_t I, typename H, typename... T>
struct type_at<I, H, T...> : type_at<I - 1, T...> {};

template <bool... B>
struct all_of : std::is_same<all_of<B...>, all_of<(B || true)...>> {};

}  // namespace musaport_detail

template <typename... T>
class tuple : public musaport_detail::tuple_base<std::index_sequence_for<T...>, T...> {
  using base = musaport_detail::tuple_base<std::index_sequence_for<T...>, T...>;

 public:
  MUSAPORT_HD constexpr tuple() : base() {}
  template <typename D = void, typename = std::enable_if_t<(sizeof...(T) > 0), D>>
  MUSAPORT_HD constexpr tuple(const T&... t) : base(0, t...) {}
  template <typename... U,
            typename = std::enable_if_t<sizeof...(U) == sizeof...(T) && (sizeof...(T) > 0) &&
                                        musaport_detail::all_of<std::is_constructible<T, U&&>::value...>::value>>
  MUSAPORT_HD constexpr tuple(U&&... u) : base(0, std::forward<U>(u)...) {}
  template <typename... U, typename = std::enable_if_t<sizeof...(U) == sizeof...(T)>>
  MUSAPORT_HD constexpr tuple(const tuple<U...>& other) : tuple(other, std::index_sequence_for<T...>()) {}
  template <typename U1, typename U2, typename = std::enable_if_t<sizeof...(T) == 2, U1>>
  MUSAPORT_HD constexpr tuple(const pair<U1, U2>& p) : base(0, p.first, p.second) {}
  tuple(const tuple&) = default;
  tuple(tuple&&) = default;

  MUSAPORT_HD tuple& operator=(const tuple& other) {
    this->assign(other);
    return *this;
  }
  template <typename... U, typename = std::enable_if_t<sizeof...(U) == sizeof...(T)>>
  MUSAPORT_HD tuple& operator=(const tuple<U...>& other) {
    this->assign(other);
    return *this;
  }
  template <typename U1, typename U2, typename = std::enable_if_t<sizeof...(T) == 2, U1>>
  MUSAPORT_HD tuple& operator=(const pair<U1, U2>& p) {
    this->assign(tuple<const U1&, const U2&>(p.first, p.second));
    return *this;
  }

  template <std::size_t I>
  MUSAPORT_HD constexpr auto& musaport_get() & {
    return musaport_detail::leaf_get<I>(*this);
  }
  template <std::size_t I>
  MUSAPORT_HD constexpr const auto& musaport_get() const& {
    return musaport_detail::leaf_get<I>(*this);
  }

  MUSAPORT_HD void swap(tuple& other) {
    tuple tmp(*this);
    *this = other;
    other = tmp;
  }

 private:
  template <typename Other, std::size_t... I>
  MUSAPORT_HD constexpr tuple(const Other& other, std::index_sequence<I...>)
      : base(0, other.template musaport_get<I>()...) {}
};

template <typename Tuple>
struct tuple_size;
template <typename... T>
struct tuple_size<tuple<T...>> : std::integral_constant<std::size_t, sizeof...(T)> {};
template <typename T>
struct tuple_size<const T> : tuple_size<T> {};

template <std::size_t I, typename Tuple>
struct tuple_element;
template <std::size_t I, typename... T>
struct tuple_element<I, tuple<T...>> {
  using type = typename musaport_detail::type_at<I, T...>::type;
};
template <std::size_t I, typename T>
struct tuple_element<I, const T> {
  using type = const typename tuple_element<I, T>::type;
};

template <std::size_t I, typename... T>
MUSAPORT_HD constexpr typename tuple_element<I, tuple<T...>>::type& get(tuple<T...>& t) {
  return musaport_detail::leaf_get<I>(t);
}
template <std::size_t I, typename... T>
MUSAPORT_HD constexpr const typename tuple_element<I, tuple<T...>>::type& get(const tuple<T...>& t) {
  return musaport_detail::leaf_get<I>(t);
}
template <std::size_t I, typename... T>
MUSAPORT_HD constexpr typename tuple_element<I, tuple<T...>>::type&& get(tuple<T...>&& t) {
  return static_cast<typename tuple_element<I, tuple<T...>>::type&&>(musaport_detail::leaf_get<I>(t));
}

template <typename... T>
MUSAPORT_HD constexpr tuple<std::decay_t<T>...> make_tuple(T&&... t) {
  return tuple<std::decay_t<T>...>(std::forward<T>(t)...);
}

template <typename... T>
MUSAPORT_HD constexpr tuple<T&...> tie(T&... t) {
  return tuple<T&...>(t...);
}

namespace musaport_detail {
struct swallow_assign {
  template <typename T>
  MUSAPORT_HD constexpr const swallow_assign& operator=(const T&) const { return *this; }
};
}  // namespace musaport_detail
static constexpr musaport_detail::swallow_assign ignore{};

namespace musaport_detail {
template <std::size_t I, std::size_t N>
struct tuple_compare {
  template <typename A, typename B>
  MUSAPORT_HD static constexpr bool eq(const A& a, const B& b) {
    return get<I>(a) == get<I>(b) && tuple_compare<I + 1, N>::eq(a, b);
  }
  template <typename A, typename B>
  MUSAPORT_HD static constexpr bool lt(const A& a, const B& b) {
    return get<I>(a) < get<I>(b) || (!(get<I>(b) < get<I>(a)) && tuple_compare<I + 1, N>::lt(a, b));
  }
};
template <std::size_t N>
struct tuple_compare<N, N> {
  template <typename A, typename B>
  MUSAPORT_HD static constexpr bool eq(const A&, const B&) { return true; }
  template <typename A, typename B>
  MUSAPORT_HD static constexpr bool lt(const A&, const B&) { return false; }
};
}  // namespace musaport_detail

template <typename... T, typename... U>
MUSAPORT_HD constexpr bool operator==(const tuple<T...>& a, const tuple<U...>& b) {
  return musaport_detail::tuple_compare<0, sizeof...(T)>::eq(a, b);
}
template <typename... T, typename... U>
MUSAPORT_HD constexpr bool operator!=(const tuple<T...>& a, const tuple<U...>& b) { return !(a == b); }
template <typename... T, typename... U>
MUSAPORT_HD constexpr bool operator<(const tuple<T...>& a, const tuple<U...>& b) {
  return musaport_detail::tuple_compare<0, sizeof...(T)>::lt(a, b);
}
template <typename... T, typename... U>
MUSAPORT_HD constexpr bool operator>(const tuple<T...>& a, const tuple<U...>& b) { return b < a; }
template <typename... T, typename... U>
MUSAPORT_HD constexpr bool operator<=(const tuple<T...>& a, const tuple<U...>& b) { return !(b < a); }
template <typename... T, typename... U>
MUSAPORT_HD constexpr bool operator>=(const tuple<T...>& a, const tuple<U...>& b) { return !(a < b); }

template <typename... T>
MUSAPORT_HD void swap(tuple<T...>& a, tuple<T...>& b) { a.swap(b); }

}  // namespace thrust

namespace std {
template <typename... T>
struct tuple_size<thrust::tuple<T...>> : std::integral_constant<std::size_t, sizeof...(T)> {};
template <std::size_t I, typename... T>
struct tuple_element<I, thrust::tuple<T...>> : thrust::tuple_element<I, thrust::tuple<T...>> {};
}  // namespace std
