// musaport shim: <cub/block/block_reduce.cuh>: cub::BlockReduce (see cub/cub.cuh).
#pragma once

#include <cub/config.cuh>
#include <cub/detail/musaport_collective.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

enum BlockReduceAlgorithm {
  BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY,
  BLOCK_REDUCE_RAKING,
  BLOCK_REDUCE_WARP_REDUCTIONS
};

template <typename T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockReduce {
 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * 33> {};
  __device__ BlockReduce() {}
  __device__ BlockReduce(TempStorage& temp_storage) {}
  __device__ T Sum(T input) {
    musaport_detail::collective_unsupported();
    return T();
  }
  __device__ T Sum(T input, int num_valid) {
    musaport_detail::collective_unsupported();
    return T();
  }
  template <int ITEMS_PER_THREAD>
  __device__ T Sum(T (&inputs)[ITEMS_PER_THREAD]) {
    musaport_detail::collective_unsupported();
    return T();
  }
  template <typename ReductionOp>
  __device__ T Reduce(T input, ReductionOp reduction_op) {
    musaport_detail::collective_unsupported();
    return T();
  }
  template <typename ReductionOp>
  __device__ T Reduce(T input, ReductionOp reduction_op, int num_valid) {
    musaport_detail::collective_unsupported();
    return T();
  }
  template <int ITEMS_PER_THREAD, typename ReductionOp>
  __device__ T Reduce(T (&inputs)[ITEMS_PER_THREAD], ReductionOp reduction_op) {
    musaport_detail::collective_unsupported();
    return T();
  }
};

}  // namespace cub
CUB_NS_POSTFIX
