// musaport shim: <cub/device/device_radix_sort.cuh>: cub::DeviceRadixSort, run sequentially (see cub/cub.cuh).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cub/config.cuh>
#include <cub/detail/musaport_serial.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

struct DeviceRadixSort {
  template <typename KeyT, typename ValueT, typename NumItemsT>
  static musaError_t SortPairs(void* d_temp_storage, std::size_t& temp_storage_bytes, const KeyT* d_keys_in,
                               KeyT* d_keys_out, const ValueT* d_values_in, ValueT* d_values_out,
                               NumItemsT num_items, int begin_bit = 0, int end_bit = sizeof(KeyT) * 8,
                               musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      musaport_detail::sort_pairs(d_keys_in, d_keys_out, d_values_in, d_values_out, num_items,
                                  musaport_detail::RadixLess<KeyT>{begin_bit, end_bit, false});
    });
  }
  template <typename KeyT, typename ValueT, typename NumItemsT>
  static musaError_t SortPairsDescending(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                         const KeyT* d_keys_in, KeyT* d_keys_out, const ValueT* d_values_in,
                                         ValueT* d_values_out, NumItemsT num_items, int begin_bit = 0,
                                         int end_bit = sizeof(KeyT) * 8, musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      musaport_detail::sort_pairs(d_keys_in, d_keys_out, d_values_in, d_values_out, num_items,
                                  musaport_detail::RadixLess<KeyT>{begin_bit, end_bit, true});
    });
  }
  template <typename KeyT, typename NumItemsT>
  static musaError_t SortKeys(void* d_temp_storage, std::size_t& temp_storage_bytes, const KeyT* d_keys_in,
                              KeyT* d_keys_out, NumItemsT num_items, int begin_bit = 0,
                              int end_bit = sizeof(KeyT) * 8, musaStream_t stream = 0) {
    return SortPairs(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, (const NullType*)nullptr,
                     (NullType*)nullptr, num_items, begin_bit, end_bit, stream);
  }
  template <typename KeyT, typename NumItemsT>
  static musaError_t SortKeysDescending(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                        const KeyT* d_keys_in, KeyT* d_keys_out, NumItemsT num_items,
                                        int begin_bit = 0, int end_bit = sizeof(KeyT) * 8,
                                        musaStream_t stream = 0) {
    return SortPairsDescending(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, (const NullType*)nullptr,
                               (NullType*)nullptr, num_items, begin_bit, end_bit, stream);
  }
};

}  // namespace cub
CUB_NS_POSTFIX
