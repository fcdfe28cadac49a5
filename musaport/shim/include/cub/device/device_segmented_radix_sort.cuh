// musaport shim: <cub/device/device_segmented_radix_sort.cuh>: cub::DeviceSegmentedRadixSort, run sequentially (see cub/cub.cuh).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cub/config.cuh>
#include <cub/detail/musaport_serial.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

struct DeviceSegmentedRadixSort {
  template <typename KeyT, typename ValueT, typename BeginOffsetIteratorT, typename EndOffsetIteratorT>
  static musaError_t SortPairs(void* d_temp_storage, std::size_t& temp_storage_bytes, const KeyT* d_keys_in,
                               KeyT* d_keys_out, const ValueT* d_values_in, ValueT* d_values_out, int num_items,
                               int num_segments, BeginOffsetIteratorT d_begin_offsets,
                               EndOffsetIteratorT d_end_offsets, int begin_bit = 0, int end_bit = sizeof(KeyT) * 8,
                               musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      for (int s = 0; s < num_segments; ++s) {
        const long long b = d_begin_offsets[s], e = d_end_offsets[s];
        musaport_detail::sort_pairs(d_keys_in + b, d_keys_out + b, d_values_in + b, d_values_out + b, e - b,
                                    musaport_detail::RadixLess<KeyT>{begin_bit, end_bit, false});
      }
    });
  }
  template <typename KeyT, typename ValueT, typename BeginOffsetIteratorT, typename EndOffsetIteratorT>
  static musaError_t SortPairsDescending(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                         const KeyT* d_keys_in, KeyT* d_keys_out, const ValueT* d_values_in,
                                         ValueT* d_values_out, int num_items, int num_segments,
                                         BeginOffsetIteratorT d_begin_offsets, EndOffsetIteratorT d_end_offsets,
                                         int begin_bit = 0, int end_bit = sizeof(KeyT) * 8,
                                         musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      for (int s = 0; s < num_segments; ++s) {
        const long long b = d_begin_offsets[s], e = d_end_offsets[s];
        musaport_detail::sort_pairs(d_keys_in + b, d_keys_out + b, d_values_in + b, d_values_out + b, e - b,
                                    musaport_detail::RadixLess<KeyT>{begin_bit, end_bit, true});
      }
    });
  }
};

}  // namespace cub
CUB_NS_POSTFIX
