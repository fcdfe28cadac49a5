// musaport shim: <cub/device/device_run_length_encode.cuh>: cub::DeviceRunLengthEncode, run sequentially (see cub/cub.cuh).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cub/config.cuh>
#include <cub/detail/musaport_serial.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

struct DeviceRunLengthEncode {
  template <typename InputIteratorT, typename UniqueOutputIteratorT, typename LengthsOutputIteratorT,
            typename NumRunsOutputIteratorT, typename NumItemsT>
  static musaError_t Encode(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                            UniqueOutputIteratorT d_unique_out, LengthsOutputIteratorT d_counts_out,
                            NumRunsOutputIteratorT d_num_runs_out, NumItemsT num_items, musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      NumItemsT runs = 0;
      for (NumItemsT i = 0; i < num_items; ++runs) {
        NumItemsT j = i + 1;
        while (j < num_items && d_in[j] == d_in[i]) ++j;
        d_unique_out[runs] = d_in[i];
        d_counts_out[runs] = j - i;
        i = j;
      }
      *d_num_runs_out = runs;
    });
  }
};

}  // namespace cub
CUB_NS_POSTFIX
