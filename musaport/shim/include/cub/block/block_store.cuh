// musaport shim: <cub/block/block_store.cuh>: cub::BlockStore (see cub/cub.cuh).
#pragma once

#include <cub/config.cuh>
#include <cub/block/block_exchange.cuh>  // as in cub: its transposing stores name BlockExchange
#include <cub/detail/musaport_collective.cuh>
#include <cub/util_ptx.cuh>
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
  __device__ void Store(OutputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD]) {
#if MUSAPORT_CPU
    Store(block_itr, items, BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z * ITEMS_PER_THREAD);
#else
    musaport_detail::collective_unsupported();
#endif
  }
  template <typename OutputIteratorT>
  __device__ void Store(OutputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items) {
#if MUSAPORT_CPU
    musaport_detail::store_items(musaport_detail::block_rank(), &BlockStore::index, block_itr, items, valid_items);
#else
    musaport_detail::collective_unsupported();
#endif
  }

 private:
  // Where item i of the thread of rank r lives: blocked (r*N + i), or striped (r + i*threads).
  __device__ static int index(int rank, int i) {
    return ALGORITHM == BLOCK_STORE_STRIPED ? rank + i * (BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z) : rank * ITEMS_PER_THREAD + i;
  }
};

}  // namespace cub
CUB_NS_POSTFIX
