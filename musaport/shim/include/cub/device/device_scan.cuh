// musaport shim: <cub/device/device_scan.cuh>: cub::DeviceScan, run sequentially (see cub/cub.cuh).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cub/config.cuh>
#include <cub/detail/musaport_serial.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

struct DeviceScan {
  template <typename InputIteratorT, typename OutputIteratorT, typename ScanOpT, typename NumItemsT>
  static musaError_t InclusiveScan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                                   OutputIteratorT d_out, ScanOpT scan_op, NumItemsT num_items,
                                   musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      if (num_items <= 0) return;
      musaport_detail::acc_t<InputIteratorT, OutputIteratorT> acc = d_in[0];
      d_out[0] = acc;
      for (NumItemsT i = 1; i < num_items; ++i) d_out[i] = acc = scan_op(acc, d_in[i]);
    });
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT>
  static musaError_t InclusiveSum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                                  OutputIteratorT d_out, NumItemsT num_items, musaStream_t stream = 0) {
    return InclusiveScan(d_temp_storage, temp_storage_bytes, d_in, d_out, Sum(), num_items, stream);
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename ScanOpT, typename InitValueT,
            typename NumItemsT>
  static musaError_t ExclusiveScan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                                   OutputIteratorT d_out, ScanOpT scan_op, InitValueT init_value,
                                   NumItemsT num_items, musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      musaport_detail::exclusive_scan(d_in, d_out, scan_op, musaport_detail::unwrap(init_value), num_items);
    });
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT>
  static musaError_t ExclusiveSum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                                  OutputIteratorT d_out, NumItemsT num_items, musaStream_t stream = 0) {
    using T = musaport_detail::acc_t<InputIteratorT, OutputIteratorT>;
    return ExclusiveScan(d_temp_storage, temp_storage_bytes, d_in, d_out, Sum(), T(0), num_items, stream);
  }
  template <typename KeysInputIteratorT, typename ValuesInputIteratorT, typename ValuesOutputIteratorT,
            typename ScanOpT, typename EqualityOpT = Equality, typename NumItemsT = std::uint32_t>
  static musaError_t InclusiveScanByKey(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                        KeysInputIteratorT d_keys_in, ValuesInputIteratorT d_values_in,
                                        ValuesOutputIteratorT d_values_out, ScanOpT scan_op, NumItemsT num_items,
                                        EqualityOpT equality_op = EqualityOpT(), musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      musaport_detail::acc_t<ValuesInputIteratorT, ValuesOutputIteratorT> acc{};
      for (NumItemsT i = 0; i < num_items; ++i) {
        acc = (i > 0 && equality_op(d_keys_in[i - 1], d_keys_in[i])) ? scan_op(acc, d_values_in[i])
                                                                       : decltype(acc)(d_values_in[i]);
        d_values_out[i] = acc;
      }
    });
  }
  template <typename KeysInputIteratorT, typename ValuesInputIteratorT, typename ValuesOutputIteratorT,
            typename EqualityOpT = Equality, typename NumItemsT = std::uint32_t>
  static musaError_t InclusiveSumByKey(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                       KeysInputIteratorT d_keys_in, ValuesInputIteratorT d_values_in,
                                       ValuesOutputIteratorT d_values_out, NumItemsT num_items,
                                       EqualityOpT equality_op = EqualityOpT(), musaStream_t stream = 0) {
    return InclusiveScanByKey(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_values_out, Sum(),
                              num_items, equality_op, stream);
  }
  template <typename KeysInputIteratorT, typename ValuesInputIteratorT, typename ValuesOutputIteratorT,
            typename ScanOpT, typename InitValueT, typename EqualityOpT = Equality,
            typename NumItemsT = std::uint32_t>
  static musaError_t ExclusiveScanByKey(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                        KeysInputIteratorT d_keys_in, ValuesInputIteratorT d_values_in,
                                        ValuesOutputIteratorT d_values_out, ScanOpT scan_op, InitValueT init_value,
                                        NumItemsT num_items, EqualityOpT equality_op = EqualityOpT(),
                                        musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      auto init = musaport_detail::unwrap(init_value);
      auto acc = init;
      for (NumItemsT i = 0; i < num_items; ++i) {
        if (i == 0 || !equality_op(d_keys_in[i - 1], d_keys_in[i])) acc = init;
        auto next = scan_op(acc, d_values_in[i]);
        d_values_out[i] = acc;
        acc = next;
      }
    });
  }
  template <typename KeysInputIteratorT, typename ValuesInputIteratorT, typename ValuesOutputIteratorT,
            typename EqualityOpT = Equality, typename NumItemsT = std::uint32_t>
  static musaError_t ExclusiveSumByKey(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                       KeysInputIteratorT d_keys_in, ValuesInputIteratorT d_values_in,
                                       ValuesOutputIteratorT d_values_out, NumItemsT num_items,
                                       EqualityOpT equality_op = EqualityOpT(), musaStream_t stream = 0) {
    using T = musaport_detail::acc_t<ValuesInputIteratorT, ValuesOutputIteratorT>;
    return ExclusiveScanByKey(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_values_out, Sum(),
                              T(0), num_items, equality_op, stream);
  }
};

}  // namespace cub
CUB_NS_POSTFIX
