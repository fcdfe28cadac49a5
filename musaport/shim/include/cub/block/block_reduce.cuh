// musaport shim: <cub/block/block_reduce.cuh>: cub::BlockReduce (see cub/cub.cuh).
#pragma once

#include <cub/config.cuh>
#include <cub/block/block_raking_layout.cuh>  // as in cub, through its raking reductions
#include <cub/detail/musaport_collective.cuh>
#include <cub/util_ptx.cuh>
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
  static constexpr int kThreads = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  struct TempStorage : TempStorageBytes<sizeof(T) * (kThreads + 1)> {};
  __device__ BlockReduce() : storage_(private_storage()) {}
  __device__ BlockReduce(TempStorage& temp_storage) : storage_(temp_storage.storage) {}
  // cub defines the result in thread 0 only; here every thread receives it.
  __device__ T Sum(T input) { return Reduce(input, musaport_detail::ScanSum()); }
  __device__ T Sum(T input, int num_valid) { return Reduce(input, musaport_detail::ScanSum(), num_valid); }
  template <int ITEMS_PER_THREAD>
  __device__ T Sum(T (&inputs)[ITEMS_PER_THREAD]) {
    return Reduce(inputs, musaport_detail::ScanSum());
  }
  template <typename ReductionOp>
  __device__ T Reduce(T input, ReductionOp reduction_op) {
    return run(input, reduction_op, kThreads);
  }
  template <typename ReductionOp>
  __device__ T Reduce(T input, ReductionOp reduction_op, int num_valid) {
    return run(input, reduction_op, num_valid);
  }
  template <int ITEMS_PER_THREAD, typename ReductionOp>
  __device__ T Reduce(T (&inputs)[ITEMS_PER_THREAD], ReductionOp reduction_op) {
    T partial = inputs[0];
    for (int i = 1; i < ITEMS_PER_THREAD; ++i) partial = reduction_op(partial, inputs[i]);
    return run(partial, reduction_op, kThreads);
  }

 private:
  __device__ static unsigned char* private_storage() {  // cub's default constructor: private shared memory
    __shared__ TempStorage storage;
    return storage.storage;
  }
  // On the CPU runtime thread 0 reduces the first `valid` threads' values in order, between barriers.
  template <typename ReductionOp>
  __device__ T run(T input, ReductionOp op, int valid) {
#if MUSAPORT_CPU
    return musaport_detail::reduce_block(storage_, musaport_detail::block_rank(), kThreads, input, op, valid,
                                         [] { __syncthreads(); });
#else
    musaport_detail::collective_unsupported();
    return input;
#endif
  }
  unsigned char* storage_;
};

}  // namespace cub
CUB_NS_POSTFIX
