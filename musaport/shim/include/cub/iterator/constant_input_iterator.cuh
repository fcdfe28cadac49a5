// musaport shim: <cub/iterator/constant_input_iterator.cuh> (see cub/cub.cuh).
#pragma once

#include <cstddef>
#include <iterator>

#include <cub/config.cuh>

CUB_NS_PREFIX
namespace cub {

template <typename ValueType, typename OffsetT = std::ptrdiff_t>
class ConstantInputIterator {
 public:
  using self_type = ConstantInputIterator;
  using difference_type = OffsetT;
  using value_type = ValueType;
  using pointer = ValueType*;
  using reference = ValueType;
  using iterator_category = std::random_access_iterator_tag;

  MUSAPORT_HD ConstantInputIterator(ValueType val, OffsetT offset = 0) : val_(val), offset_(offset) {}
  MUSAPORT_HD reference operator*() const { return val_; }
  template <typename D>
  MUSAPORT_HD reference operator[](D) const { return val_; }
  MUSAPORT_HD self_type& operator++() { ++offset_; return *this; }
  MUSAPORT_HD self_type operator++(int) { self_type r = *this; ++offset_; return r; }
  template <typename D>
  MUSAPORT_HD self_type operator+(D n) const { return self_type(val_, offset_ + n); }
  template <typename D>
  MUSAPORT_HD self_type& operator+=(D n) { offset_ += n; return *this; }
  MUSAPORT_HD difference_type operator-(self_type other) const { return offset_ - other.offset_; }
  MUSAPORT_HD bool operator==(const self_type& o) const { return offset_ == o.offset_; }
  MUSAPORT_HD bool operator!=(const self_type& o) const { return offset_ != o.offset_; }

 private:
  ValueType val_;
  OffsetT offset_;
};

}  // namespace cub
CUB_NS_POSTFIX
