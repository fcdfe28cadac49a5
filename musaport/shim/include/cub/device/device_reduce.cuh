// musaport shim: <cub/device/device_reduce.cuh>: cub::DeviceReduce, run sequentially (see cub/cub.cuh).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cub/config.cuh>
#include <cub/detail/musaport_serial.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

struct DeviceReduce {
  template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT, typename ReductionOpT, typename T>
  static musaError_t Reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                            OutputIteratorT d_out, NumItemsT num_items, ReductionOpT reduction_op, T init,
                            musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      T acc = init;
      for (NumItemsT i = 0; i < num_items; ++i) acc = reduction_op(acc, d_in[i]);
      *d_out = acc;
    });
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT>
  static musaError_t Sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                         OutputIteratorT d_out, NumItemsT num_items, musaStream_t stream = 0) {
    using T = musaport_detail::acc_t<InputIteratorT, OutputIteratorT>;
    return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, cub::Sum(), T(0), stream);
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT>
  static musaError_t Min(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                         OutputIteratorT d_out, NumItemsT num_items, musaStream_t stream = 0) {
    using T = musaport_detail::value_t<InputIteratorT>;
    return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, cub::Min(), Traits<T>::Max(), stream);
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT>
  static musaError_t Max(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                         OutputIteratorT d_out, NumItemsT num_items, musaStream_t stream = 0) {
    using T = musaport_detail::value_t<InputIteratorT>;
    return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, cub::Max(), Traits<T>::Lowest(),
                  stream);
  }
};

}  // namespace cub
CUB_NS_POSTFIX
