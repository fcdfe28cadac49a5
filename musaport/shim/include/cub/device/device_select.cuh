// musaport shim: <cub/device/device_select.cuh>: cub::DeviceSelect, run sequentially (see cub/cub.cuh).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cub/config.cuh>
#include <cub/detail/musaport_serial.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

struct DeviceSelect {
  template <typename InputIteratorT, typename FlagIterator, typename OutputIteratorT,
            typename NumSelectedIteratorT, typename NumItemsT>
  static musaError_t Flagged(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                             FlagIterator d_flags, OutputIteratorT d_out, NumSelectedIteratorT d_num_selected_out,
                             NumItemsT num_items, musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      NumItemsT n = 0;
      for (NumItemsT i = 0; i < num_items; ++i)
        if (d_flags[i]) d_out[n++] = d_in[i];
      *d_num_selected_out = n;
    });
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename NumSelectedIteratorT, typename NumItemsT,
            typename SelectOp>
  static musaError_t If(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                        OutputIteratorT d_out, NumSelectedIteratorT d_num_selected_out, NumItemsT num_items,
                        SelectOp select_op, musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      NumItemsT n = 0;
      for (NumItemsT i = 0; i < num_items; ++i)
        if (select_op(d_in[i])) d_out[n++] = d_in[i];
      *d_num_selected_out = n;
    });
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename NumSelectedIteratorT, typename NumItemsT>
  static musaError_t Unique(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                            OutputIteratorT d_out, NumSelectedIteratorT d_num_selected_out, NumItemsT num_items,
                            musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      NumItemsT n = 0;
      for (NumItemsT i = 0; i < num_items; ++i)
        if (i == 0 || !(d_in[i] == d_in[i - 1])) d_out[n++] = d_in[i];
      *d_num_selected_out = n;
    });
  }
  template <typename KeyInputIteratorT, typename ValueInputIteratorT, typename KeyOutputIteratorT,
            typename ValueOutputIteratorT, typename NumSelectedIteratorT, typename NumItemsT,
            typename EqualityOpT>
  static musaError_t musaport_unique_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                 KeyInputIteratorT d_keys_in, ValueInputIteratorT d_values_in,
                                 KeyOutputIteratorT d_keys_out, ValueOutputIteratorT d_values_out,
                                 NumSelectedIteratorT d_num_selected_out, NumItemsT num_items,
                                 EqualityOpT equality_op, musaStream_t stream) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      NumItemsT n = 0;
      for (NumItemsT i = 0; i < num_items; ++i)
        if (i == 0 || !equality_op(d_keys_in[i], d_keys_in[i - 1])) {
          d_keys_out[n] = d_keys_in[i];
          d_values_out[n] = d_values_in[i];
          ++n;
        }
      *d_num_selected_out = n;
    });
  }
  template <typename KeyInputIteratorT, typename ValueInputIteratorT, typename KeyOutputIteratorT,
            typename ValueOutputIteratorT, typename NumSelectedIteratorT, typename NumItemsT>
  static musaError_t UniqueByKey(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                 KeyInputIteratorT d_keys_in, ValueInputIteratorT d_values_in,
                                 KeyOutputIteratorT d_keys_out, ValueOutputIteratorT d_values_out,
                                 NumSelectedIteratorT d_num_selected_out, NumItemsT num_items,
                                 musaStream_t stream = 0) {
    return musaport_unique_by_key(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_keys_out,
                                  d_values_out, d_num_selected_out, num_items, Equality(), stream);
  }
};

}  // namespace cub
CUB_NS_POSTFIX
