// musaport shim: <cub/device/device_segmented_reduce.cuh>: cub::DeviceSegmentedReduce, run sequentially (see cub/cub.cuh).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cub/config.cuh>
#include <cub/detail/musaport_serial.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

struct DeviceSegmentedReduce {
  template <typename InputIteratorT, typename OutputIteratorT, typename BeginOffsetIteratorT,
            typename EndOffsetIteratorT, typename ReductionOpT, typename T>
  static musaError_t Reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                            OutputIteratorT d_out, int num_segments, BeginOffsetIteratorT d_begin_offsets,
                            EndOffsetIteratorT d_end_offsets, ReductionOpT reduction_op, T initial_value,
                            musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      musaport_detail::segmented_reduce<void>(d_in, d_out, num_segments, d_begin_offsets, d_end_offsets,
                                              reduction_op, initial_value);
    });
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename BeginOffsetIteratorT,
            typename EndOffsetIteratorT>
  static musaError_t Sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                         OutputIteratorT d_out, int num_segments, BeginOffsetIteratorT d_begin_offsets,
                         EndOffsetIteratorT d_end_offsets, musaStream_t stream = 0) {
    using T = musaport_detail::acc_t<InputIteratorT, OutputIteratorT>;
    return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, d_begin_offsets, d_end_offsets,
                  cub::Sum(), T(0), stream);
  }
};

}  // namespace cub
CUB_NS_POSTFIX
