// musaport shim: <cub/iterator/arg_index_input_iterator.cuh> (see cub/cub.cuh).
#pragma once

#include <cstddef>
#include <iterator>

#include <cub/config.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

template <typename InputIteratorT, typename OffsetT = std::ptrdiff_t,
          typename OutputValueT = typename std::iterator_traits<InputIteratorT>::value_type>
class ArgIndexInputIterator {
 public:
  using self_type = ArgIndexInputIterator;
  using difference_type = OffsetT;
  using value_type = KeyValuePair<difference_type, OutputValueT>;
  using pointer = value_type*;
  using reference = value_type;
  using iterator_category = std::random_access_iterator_tag;

  MUSAPORT_HD ArgIndexInputIterator(InputIteratorT itr, difference_type offset = 0) : itr_(itr), offset_(offset) {}
  MUSAPORT_HD reference operator*() const { return value_type(offset_, itr_[offset_]); }
  template <typename D>
  MUSAPORT_HD reference operator[](D n) const { return *(*this + n); }
  MUSAPORT_HD self_type& operator++() { ++offset_; return *this; }
  MUSAPORT_HD self_type operator++(int) { self_type r = *this; ++offset_; return r; }
  template <typename D>
  MUSAPORT_HD self_type operator+(D n) const { return self_type(itr_, offset_ + n); }
  template <typename D>
  MUSAPORT_HD self_type& operator+=(D n) { offset_ += n; return *this; }
  MUSAPORT_HD difference_type operator-(self_type other) const { return offset_ - other.offset_; }
  MUSAPORT_HD bool operator==(const self_type& o) const { return offset_ == o.offset_ && itr_ == o.itr_; }
  MUSAPORT_HD bool operator!=(const self_type& o) const { return !(*this == o); }
  MUSAPORT_HD void normalize() { itr_ += offset_; offset_ = 0; }

 private:
  InputIteratorT itr_;
  difference_type offset_;
};

}  // namespace cub
CUB_NS_POSTFIX
