// musaport shim: <cub/warp/warp_scan.cuh>: cub::WarpScan (see cub/cub.cuh).
#pragma once

#include <cub/config.cuh>
#include <cub/detail/musaport_collective.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

template <typename T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpScan {
 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * LOGICAL_WARP_THREADS> {};
  __device__ WarpScan(TempStorage& temp_storage) {}
  __device__ void InclusiveSum(T input, T& inclusive_output) { musaport_detail::collective_unsupported(); }
  __device__ void InclusiveSum(T input, T& inclusive_output, T& warp_aggregate) { musaport_detail::collective_unsupported(); }
  __device__ void ExclusiveSum(T input, T& exclusive_output) { musaport_detail::collective_unsupported(); }
  __device__ void ExclusiveSum(T input, T& exclusive_output, T& warp_aggregate) { musaport_detail::collective_unsupported(); }
  template <typename ScanOp>
  __device__ void InclusiveScan(T input, T& inclusive_output, ScanOp scan_op) { musaport_detail::collective_unsupported(); }
  template <typename ScanOp>
  __device__ void ExclusiveScan(T input, T& exclusive_output, T initial_value, ScanOp scan_op) { musaport_detail::collective_unsupported(); }
};

}  // namespace cub
CUB_NS_POSTFIX
