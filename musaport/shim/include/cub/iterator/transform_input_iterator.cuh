// musaport shim: <cub/iterator/transform_input_iterator.cuh> (see cub/cub.cuh).
#pragma once

#include <cstddef>
#include <iterator>

#include <cub/config.cuh>

CUB_NS_PREFIX
namespace cub {

template <typename ValueType, typename ConversionOp, typename InputIteratorT, typename OffsetT = std::ptrdiff_t>
class TransformInputIterator {
 public:
  using self_type = TransformInputIterator;
  using difference_type = OffsetT;
  using value_type = ValueType;
  using pointer = ValueType*;
  using reference = ValueType;
  using iterator_category = std::random_access_iterator_tag;

  MUSAPORT_HD TransformInputIterator(InputIteratorT input_itr, ConversionOp conversion_op)
      : conversion_op_(conversion_op), input_itr_(input_itr) {}
  MUSAPORT_HD reference operator*() const { return conversion_op_(*input_itr_); }
  template <typename D>
  MUSAPORT_HD reference operator[](D n) const { return conversion_op_(input_itr_[n]); }
  MUSAPORT_HD self_type operator++(int) { self_type r = *this; ++input_itr_; return r; }
  MUSAPORT_HD self_type& operator++() { ++input_itr_; return *this; }
  template <typename D>
  MUSAPORT_HD self_type operator+(D n) const { return self_type(input_itr_ + n, conversion_op_); }
  template <typename D>
  MUSAPORT_HD self_type& operator+=(D n) { input_itr_ += n; return *this; }
  template <typename D>
  MUSAPORT_HD self_type operator-(D n) const { return self_type(input_itr_ - n, conversion_op_); }
  MUSAPORT_HD difference_type operator-(self_type other) const { return input_itr_ - other.input_itr_; }
  MUSAPORT_HD bool operator==(const self_type& o) const { return input_itr_ == o.input_itr_; }
  MUSAPORT_HD bool operator!=(const self_type& o) const { return input_itr_ != o.input_itr_; }

 private:
  ConversionOp conversion_op_;
  InputIteratorT input_itr_;
};

}  // namespace cub
CUB_NS_POSTFIX
