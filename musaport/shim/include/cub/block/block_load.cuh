// musaport shim: <cub/block/block_load.cuh>: cub::BlockLoad (see cub/cub.cuh).
#pragma once

#include <cub/config.cuh>
#include <cub/block/block_exchange.cuh>  // as in cub: its transposing loads name BlockExchange
#include <cub/detail/musaport_collective.cuh>
#include <cub/util_ptx.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

enum BlockLoadAlgorithm {
  BLOCK_LOAD_DIRECT,
  BLOCK_LOAD_STRIPED,
  BLOCK_LOAD_VECTORIZE,
  BLOCK_LOAD_TRANSPOSE,
  BLOCK_LOAD_WARP_TRANSPOSE,
  BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED
};

template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockLoadAlgorithm ALGORITHM = BLOCK_LOAD_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockLoad {
 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z * ITEMS_PER_THREAD> {};
  __device__ BlockLoad() {}
  __device__ BlockLoad(TempStorage& temp_storage) {}
  template <typename InputIteratorT>
  __device__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD]) {
#if MUSAPORT_CPU
    Load(block_itr, items, BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z * ITEMS_PER_THREAD);
#else
    musaport_detail::collective_unsupported();
#endif
  }
  template <typename InputIteratorT>
  __device__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items) {
#if MUSAPORT_CPU
    musaport_detail::load_items(musaport_detail::block_rank(), &BlockLoad::index, block_itr, items, valid_items);
#else
    musaport_detail::collective_unsupported();
#endif
  }
  template <typename InputIteratorT, typename DefaultT>
  __device__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items, DefaultT oob_default) {
#if MUSAPORT_CPU
    musaport_detail::load_items(musaport_detail::block_rank(), &BlockLoad::index, block_itr, items, valid_items, oob_default);
#else
    musaport_detail::collective_unsupported();
#endif
  }

 private:
  // Where item i of the thread of rank r lives: blocked (r*N + i), or striped (r + i*threads).
  __device__ static int index(int rank, int i) {
    return ALGORITHM == BLOCK_LOAD_STRIPED ? rank + i * (BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z) : rank * ITEMS_PER_THREAD + i;
  }
};

}  // namespace cub
CUB_NS_POSTFIX
