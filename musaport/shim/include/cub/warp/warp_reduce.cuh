// musaport shim: <cub/warp/warp_reduce.cuh>: cub::WarpReduce (see cub/cub.cuh).
#pragma once

#include <cub/config.cuh>
#include <cub/detail/musaport_collective.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

template <typename T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpReduce {
 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * LOGICAL_WARP_THREADS> {};
  __device__ WarpReduce(TempStorage& temp_storage) {}
  __device__ T Sum(T input) {
    musaport_detail::collective_unsupported();
    return T();
  }
  __device__ T Sum(T input, int valid_items) {
    musaport_detail::collective_unsupported();
    return T();
  }
  template <typename ReductionOp>
  __device__ T Reduce(T input, ReductionOp reduction_op) {
    musaport_detail::collective_unsupported();
    return T();
  }
  template <typename ReductionOp>
  __device__ T Reduce(T input, ReductionOp reduction_op, int valid_items) {
    musaport_detail::collective_unsupported();
    return T();
  }
};

}  // namespace cub
CUB_NS_POSTFIX
