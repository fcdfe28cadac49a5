// musaport shim: the core of the shim's thrust: execution policies,
// function objects, device_ptr and the fancy iterators.  The public
// <thrust/...> headers include this file; algorithms are in
// thrust_algorithms.h.
//
// Memory is one address space in both modes the shim serves (clang only
// checks syntax; the CPU runtime allocates device memory on the host), so
// device_ptr is a thin pointer wrapper, device_vector a std::vector, and every
// algorithm runs sequentially (where, see thrust_algorithms.h).
#pragma once

#include <cstddef>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

#include <musaport_shim/config.h>
#include <musa_runtime_api.h>
#include <thrust/pair.h>
#include <thrust/tuple.h>

namespace thrust {

// ------------------------------------------------------------ execution policies
namespace musaport_detail {
struct policy_base {};
}  // namespace musaport_detail

template <typename Derived>
struct execution_policy : musaport_detail::policy_base {};

template <typename T>
struct is_execution_policy : std::is_base_of<musaport_detail::policy_base, std::decay_t<T>> {};

namespace detail {
struct host_t : execution_policy<host_t> {};
struct device_t : execution_policy<device_t> {};
struct seq_t : execution_policy<seq_t> {};
}  // namespace detail

static constexpr detail::host_t host{};
static constexpr detail::device_t device{};
static constexpr detail::seq_t seq{};

// thrust::musa::par, par_nosync: the MUSA backend's policies, optionally with
// a temporary-storage allocator (`par(alloc)`) and a stream (`.on(s)`).
namespace musa {
template <typename Allocator>
struct par_with_allocator_t : execution_policy<par_with_allocator_t<Allocator>> {
  Allocator* allocator = nullptr;
  musaStream_t stream = nullptr;
  MUSAPORT_HD par_with_allocator_t on(musaStream_t s) const {
    par_with_allocator_t p = *this;
    p.stream = s;
    return p;
  }
};

struct par_t : execution_policy<par_t> {
  musaStream_t stream = nullptr;
  MUSAPORT_HD par_t on(musaStream_t s) const {
    par_t p = *this;
    p.stream = s;
    return p;
  }
  template <typename Allocator>
  MUSAPORT_HD par_with_allocator_t<Allocator> operator()(Allocator& a) const {
    par_with_allocator_t<Allocator> p;
    p.allocator = &a;
    return p;
  }
};

static constexpr par_t par{};
static constexpr par_t par_nosync{};
}  // namespace musa

// ------------------------------------------------------------ function objects
#define MUSAPORT_THRUST_BINARY(name, expr)                                       \
  template <typename T = void>                                                   \
  struct name {                                                                  \
    using first_argument_type = T;                                               \
    using second_argument_type = T;                                              \
    MUSAPORT_HD constexpr auto operator()(const T& a, const T& b) const { return expr; } \
  };                                                                             \
  template <>                                                                    \
  struct name<void> {                                                            \
    template <typename A, typename B>                                            \
    MUSAPORT_HD constexpr auto operator()(const A& a, const B& b) const { return expr; } \
  };

MUSAPORT_THRUST_BINARY(plus, a + b)
MUSAPORT_THRUST_BINARY(minus, a - b)
MUSAPORT_THRUST_BINARY(multiplies, a * b)
MUSAPORT_THRUST_BINARY(divides, a / b)
MUSAPORT_THRUST_BINARY(modulus, a % b)
MUSAPORT_THRUST_BINARY(equal_to, a == b)
MUSAPORT_THRUST_BINARY(not_equal_to, a != b)
MUSAPORT_THRUST_BINARY(less, a < b)
MUSAPORT_THRUST_BINARY(greater, a > b)
MUSAPORT_THRUST_BINARY(less_equal, a <= b)
MUSAPORT_THRUST_BINARY(greater_equal, a >= b)
MUSAPORT_THRUST_BINARY(logical_and, a && b)
MUSAPORT_THRUST_BINARY(logical_or, a || b)
MUSAPORT_THRUST_BINARY(bit_and, a & b)
MUSAPORT_THRUST_BINARY(bit_or, a | b)
MUSAPORT_THRUST_BINARY(bit_xor, a ^ b)
MUSAPORT_THRUST_BINARY(maximum, a < b ? b : a)
MUSAPORT_THRUST_BINARY(minimum, b < a ? b : a)
#undef MUSAPORT_THRUST_BINARY

template <typename T = void>
struct negate {
  MUSAPORT_HD constexpr T operator()(const T& a) const { return -a; }
};
template <typename T = void>
struct logical_not {
  MUSAPORT_HD constexpr bool operator()(const T& a) const { return !a; }
};
template <typename T = void>
struct identity {
  MUSAPORT_HD constexpr const T& operator()(const T& a) const { return a; }
};
template <>
struct identity<void> {
  template <typename A>
  MUSAPORT_HD constexpr A&& operator()(A&& a) const { return static_cast<A&&>(a); }
};

// ------------------------------------------------------------ distance (swap: <thrust/pair.h>)

template <typename It>
MUSAPORT_HD typename std::iterator_traits<It>::difference_type distance(It first, It last) {
  return last - first;
}

// ------------------------------------------------------------ device_ptr
template <typename T>
class device_ptr {
 public:
  using value_type = std::remove_cv_t<T>;
  using difference_type = std::ptrdiff_t;
  using pointer = T*;
  using reference = T&;
  using iterator_category = std::random_access_iterator_tag;

  MUSAPORT_HD constexpr device_ptr() : p_(nullptr) {}
  MUSAPORT_HD constexpr device_ptr(std::nullptr_t) : p_(nullptr) {}
  template <typename U>
  MUSAPORT_HD explicit constexpr device_ptr(U* p) : p_(p) {}
  template <typename U>
  MUSAPORT_HD constexpr device_ptr(const device_ptr<U>& other) : p_(other.get()) {}

  MUSAPORT_HD constexpr T* get() const { return p_; }
  MUSAPORT_HD T& operator*() const { return *p_; }
  MUSAPORT_HD T* operator->() const { return p_; }
  MUSAPORT_HD T& operator[](difference_type n) const { return p_[n]; }
  MUSAPORT_HD device_ptr& operator++() { ++p_; return *this; }
  MUSAPORT_HD device_ptr& operator--() { --p_; return *this; }
  MUSAPORT_HD device_ptr operator++(int) { device_ptr r = *this; ++p_; return r; }
  MUSAPORT_HD device_ptr operator--(int) { device_ptr r = *this; --p_; return r; }
  MUSAPORT_HD device_ptr& operator+=(difference_type n) { p_ += n; return *this; }
  MUSAPORT_HD device_ptr& operator-=(difference_type n) { p_ -= n; return *this; }
  MUSAPORT_HD device_ptr operator+(difference_type n) const { return device_ptr(p_ + n); }
  MUSAPORT_HD device_ptr operator-(difference_type n) const { return device_ptr(p_ - n); }
  MUSAPORT_HD difference_type operator-(const device_ptr& o) const { return p_ - o.p_; }
  MUSAPORT_HD explicit operator bool() const { return p_ != nullptr; }
  MUSAPORT_HD bool operator==(const device_ptr& o) const { return p_ == o.p_; }
  MUSAPORT_HD bool operator!=(const device_ptr& o) const { return p_ != o.p_; }
  MUSAPORT_HD bool operator<(const device_ptr& o) const { return p_ < o.p_; }
  MUSAPORT_HD bool operator>(const device_ptr& o) const { return p_ > o.p_; }
  MUSAPORT_HD bool operator<=(const device_ptr& o) const { return p_ <= o.p_; }
  MUSAPORT_HD bool operator>=(const device_ptr& o) const { return p_ >= o.p_; }

 private:
  T* p_;
};

template <typename T>
MUSAPORT_HD device_ptr<T> operator+(std::ptrdiff_t n, const device_ptr<T>& p) { return p + n; }

template <typename T>
MUSAPORT_HD device_ptr<T> device_pointer_cast(T* p) { return device_ptr<T>(p); }
template <typename T>
MUSAPORT_HD device_ptr<T> device_pointer_cast(const device_ptr<T>& p) { return p; }
template <typename T>
MUSAPORT_HD T* raw_pointer_cast(T* p) { return p; }
template <typename T>
MUSAPORT_HD T* raw_pointer_cast(const device_ptr<T>& p) { return p.get(); }

template <typename T>
device_ptr<T> device_malloc(std::size_t n) {
  void* p = nullptr;
  musaMalloc(&p, n * sizeof(T));
  return device_ptr<T>(static_cast<T*>(p));
}
template <typename T>
void device_free(device_ptr<T> p) { musaFree(p.get()); }

// ------------------------------------------------------------ fancy iterators
namespace musaport_detail {
// A random-access iterator over positions; Derived::at(n) gives the element.
template <typename Derived, typename Value, typename Reference>
class position_iterator {
 public:
  using value_type = Value;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = Reference;
  using iterator_category = std::random_access_iterator_tag;

  MUSAPORT_HD Reference operator*() const { return self().at(0); }
  MUSAPORT_HD Reference operator[](difference_type n) const { return self().at(n); }
  MUSAPORT_HD Derived& operator++() { ++pos_; return self(); }
  MUSAPORT_HD Derived& operator--() { --pos_; return self(); }
  MUSAPORT_HD Derived operator++(int) { Derived r = self(); ++pos_; return r; }
  MUSAPORT_HD Derived operator--(int) { Derived r = self(); --pos_; return r; }
  MUSAPORT_HD Derived& operator+=(difference_type n) { pos_ += n; return self(); }
  MUSAPORT_HD Derived& operator-=(difference_type n) { pos_ -= n; return self(); }
  MUSAPORT_HD Derived operator+(difference_type n) const { Derived r = self(); r.pos_ += n; return r; }
  MUSAPORT_HD Derived operator-(difference_type n) const { Derived r = self(); r.pos_ -= n; return r; }
  MUSAPORT_HD difference_type operator-(const Derived& o) const { return pos_ - o.pos_; }
  MUSAPORT_HD bool operator==(const Derived& o) const { return pos_ == o.pos_; }
  MUSAPORT_HD bool operator!=(const Derived& o) const { return pos_ != o.pos_; }
  MUSAPORT_HD bool operator<(const Derived& o) const { return pos_ < o.pos_; }
  MUSAPORT_HD bool operator>(const Derived& o) const { return pos_ > o.pos_; }
  MUSAPORT_HD bool operator<=(const Derived& o) const { return pos_ <= o.pos_; }
  MUSAPORT_HD bool operator>=(const Derived& o) const { return pos_ >= o.pos_; }

 protected:
  difference_type pos_ = 0;

 private:
  MUSAPORT_HD Derived& self() { return static_cast<Derived&>(*this); }
  MUSAPORT_HD const Derived& self() const { return static_cast<const Derived&>(*this); }
};
}  // namespace musaport_detail

template <typename Incrementable>
class counting_iterator
    : public musaport_detail::position_iterator<counting_iterator<Incrementable>, Incrementable, Incrementable> {
 public:
  MUSAPORT_HD constexpr counting_iterator() : base_() {}
  MUSAPORT_HD constexpr explicit counting_iterator(Incrementable x) : base_(x) {}
  MUSAPORT_HD Incrementable at(std::ptrdiff_t n) const {
    return static_cast<Incrementable>(base_ + static_cast<Incrementable>(this->pos_ + n));
  }
  MUSAPORT_HD Incrementable base() const { return at(0); }

  // Two counting iterators compare by the values they count, not by how far
  // each was advanced: counting_iterator(0) and counting_iterator(n) are n apart.
  using base_type =
      musaport_detail::position_iterator<counting_iterator<Incrementable>, Incrementable, Incrementable>;
  using base_type::operator-;
  MUSAPORT_HD std::ptrdiff_t operator-(const counting_iterator& o) const {
    return static_cast<std::ptrdiff_t>(at(0) - o.at(0));
  }
  MUSAPORT_HD bool operator==(const counting_iterator& o) const { return at(0) == o.at(0); }
  MUSAPORT_HD bool operator!=(const counting_iterator& o) const { return !(at(0) == o.at(0)); }
  MUSAPORT_HD bool operator<(const counting_iterator& o) const { return at(0) < o.at(0); }
  MUSAPORT_HD bool operator>(const counting_iterator& o) const { return o.at(0) < at(0); }
  MUSAPORT_HD bool operator<=(const counting_iterator& o) const { return !(o.at(0) < at(0)); }
  MUSAPORT_HD bool operator>=(const counting_iterator& o) const { return !(at(0) < o.at(0)); }

 private:
  Incrementable base_;
};

template <typename Incrementable>
MUSAPORT_HD counting_iterator<Incrementable> make_counting_iterator(Incrementable x) {
  return counting_iterator<Incrementable>(x);
}

template <typename Value>
class constant_iterator : public musaport_detail::position_iterator<constant_iterator<Value>, Value, Value> {
 public:
  MUSAPORT_HD constexpr constant_iterator() : value_() {}
  MUSAPORT_HD constexpr explicit constant_iterator(const Value& v, std::ptrdiff_t pos = 0) : value_(v) {
    this->pos_ = pos;
  }
  MUSAPORT_HD Value at(std::ptrdiff_t) const { return value_; }

 private:
  Value value_;
};

template <typename Value>
MUSAPORT_HD constant_iterator<Value> make_constant_iterator(Value v, std::ptrdiff_t pos = 0) {
  return constant_iterator<Value>(v, pos);
}

namespace musaport_detail {
struct discard_reference {
  template <typename T>
  MUSAPORT_HD const discard_reference& operator=(const T&) const { return *this; }
};
}  // namespace musaport_detail

template <typename System = void>
class discard_iterator
    : public musaport_detail::position_iterator<discard_iterator<System>, musaport_detail::discard_reference,
                                                musaport_detail::discard_reference> {
 public:
  MUSAPORT_HD constexpr discard_iterator() = default;
  MUSAPORT_HD constexpr explicit discard_iterator(std::ptrdiff_t pos) { this->pos_ = pos; }
  MUSAPORT_HD musaport_detail::discard_reference at(std::ptrdiff_t) const { return {}; }
};

MUSAPORT_HD inline discard_iterator<> make_discard_iterator(std::ptrdiff_t pos = 0) { return discard_iterator<>(pos); }

// std::reverse_iterator's members are constexpr, so clang's CUDA mode lets
// device code use them.
template <typename It>
using reverse_iterator = std::reverse_iterator<It>;
template <typename It>
MUSAPORT_HD constexpr reverse_iterator<It> make_reverse_iterator(It it) { return reverse_iterator<It>(it); }

template <typename It, typename F>
class transform_iterator
    : public musaport_detail::position_iterator<
          transform_iterator<It, F>, std::decay_t<decltype(std::declval<F>()(*std::declval<It>()))>,
          decltype(std::declval<F>()(*std::declval<It>()))> {
 public:
  MUSAPORT_HD transform_iterator(It it, F f) : it_(it), f_(f) {}
  MUSAPORT_HD decltype(std::declval<F>()(*std::declval<It>())) at(std::ptrdiff_t n) const {
    return f_(it_[this->pos_ + n]);
  }

 private:
  It it_;
  F f_;
};

template <typename It, typename F>
MUSAPORT_HD transform_iterator<It, F> make_transform_iterator(It it, F f) { return transform_iterator<It, F>(it, f); }

template <typename T>
struct iterator_traits : std::iterator_traits<T> {};

// ------------------------------------------------------------ vectors
template <typename T, typename Alloc = std::allocator<T>>
class host_vector : public std::vector<T, Alloc> {
  using std::vector<T, Alloc>::vector;
};
template <typename T, typename Alloc = std::allocator<T>>
class device_vector : public std::vector<T, Alloc> {
  using std::vector<T, Alloc>::vector;
};

}  // namespace thrust
