// musaport shim: <cub/iterator/counting_input_iterator.cuh> (see cub/cub.cuh).
#pragma once

#include <cstddef>
#include <iterator>

#include <cub/config.cuh>

CUB_NS_PREFIX
namespace cub {

template <typename ValueType, typename OffsetT = std::ptrdiff_t>
class CountingInputIterator {
 public:
  using self_type = CountingInputIterator;
  using difference_type = OffsetT;
  using value_type = ValueType;
  using pointer = ValueType*;
  using reference = ValueType;
  using iterator_category = std::random_access_iterator_tag;

  MUSAPORT_HD CountingInputIterator(const ValueType& val) : val_(val) {}
  MUSAPORT_HD reference operator*() const { return val_; }
  template <typename D>
  MUSAPORT_HD reference operator[](D n) const { return static_cast<ValueType>(val_ + static_cast<ValueType>(n)); }
  MUSAPORT_HD self_type operator++(int) { self_type r = *this; ++val_; return r; }
  MUSAPORT_HD self_type& operator++() { ++val_; return *this; }
  template <typename D>
  MUSAPORT_HD self_type operator+(D n) const { return self_type(static_cast<ValueType>(val_ + static_cast<ValueType>(n))); }
  template <typename D>
  MUSAPORT_HD self_type& operator+=(D n) { val_ = static_cast<ValueType>(val_ + static_cast<ValueType>(n)); return *this; }
  template <typename D>
  MUSAPORT_HD self_type operator-(D n) const { return self_type(static_cast<ValueType>(val_ - static_cast<ValueType>(n))); }
  MUSAPORT_HD difference_type operator-(self_type other) const { return difference_type(val_ - other.val_); }
  MUSAPORT_HD bool operator==(const self_type& o) const { return val_ == o.val_; }
  MUSAPORT_HD bool operator!=(const self_type& o) const { return val_ != o.val_; }

 private:
  ValueType val_;
};

}  // namespace cub
CUB_NS_POSTFIX
