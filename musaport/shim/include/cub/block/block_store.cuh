// musaport shim: <cub/block/block_store.cuh>: cub::BlockStore (see cub/cub.cuh).
#pragma once

#include <cub/config.cuh>
#include <cub/detail/musaport_collective.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

enum BlockStoreAlgorithm {
  BLOCK_STORE_DIRECT,
  BLOCK_STORE_STRIPED,
  BLOCK_STORE_VECTORIZE,
  BLOCK_STORE_TRANSPOSE,
  BLOCK_STORE_WARP_TRANSPOSE,
  BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED
};

template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockStoreAlgorithm ALGORITHM = BLOCK_STORE_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockStore {
 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z * ITEMS_PER_THREAD> {};
  __device__ BlockStore() {}
  __device__ BlockStore(TempStorage& temp_storage) {}
  template <typename OutputIteratorT>
  __device__ void Store(OutputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
  template <typename OutputIteratorT>
  __device__ void Store(OutputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items) { musaport_detail::collective_unsupported(); }
};

}  // namespace cub
CUB_NS_POSTFIX
