// musaport shim: <cub/thread/thread_operators.cuh>: cub's function objects
// (Equality, Sum, Max, ArgMax, CastOp, ...) (see cub/cub.cuh).
#pragma once

#include <cub/config.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

// ------------------------------------------------------------ function objects
struct Equality {
  template <typename T, typename U>
  MUSAPORT_HD bool operator()(const T& a, const U& b) const { return a == b; }
};
struct Inequality {
  template <typename T, typename U>
  MUSAPORT_HD bool operator()(const T& a, const U& b) const { return a != b; }
};
struct Less {
  template <typename T>
  MUSAPORT_HD bool operator()(const T& a, const T& b) const { return a < b; }
};
struct Sum {
  template <typename T, typename U>
  MUSAPORT_HD auto operator()(const T& a, const U& b) const { return a + b; }
};
struct Difference {
  template <typename T, typename U>
  MUSAPORT_HD auto operator()(const T& a, const U& b) const { return a - b; }
};
struct Max {
  template <typename T>
  MUSAPORT_HD T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
struct Min {
  template <typename T>
  MUSAPORT_HD T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
struct ArgMax {
  template <typename T, typename O>
  MUSAPORT_HD KeyValuePair<O, T> operator()(const KeyValuePair<O, T>& a, const KeyValuePair<O, T>& b) const {
    return (b.value > a.value || (b.value == a.value && b.key < a.key)) ? b : a;
  }
};
struct ArgMin {
  template <typename T, typename O>
  MUSAPORT_HD KeyValuePair<O, T> operator()(const KeyValuePair<O, T>& a, const KeyValuePair<O, T>& b) const {
    return (b.value < a.value || (b.value == a.value && b.key < a.key)) ? b : a;
  }
};
template <typename B>
struct CastOp {
  template <typename A>
  MUSAPORT_HD B operator()(const A& a) const { return static_cast<B>(a); }
};

}  // namespace cub
CUB_NS_POSTFIX
