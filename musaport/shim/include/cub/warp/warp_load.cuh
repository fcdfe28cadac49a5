// musaport shim: <cub/warp/warp_load.cuh>: cub::WarpLoad (see cub/cub.cuh).
#pragma once

#include <cub/config.cuh>
#include <cub/detail/musaport_collective.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

enum WarpLoadAlgorithm { WARP_LOAD_DIRECT, WARP_LOAD_STRIPED, WARP_LOAD_VECTORIZE, WARP_LOAD_TRANSPOSE };

template <typename T, int ITEMS_PER_THREAD, WarpLoadAlgorithm ALGORITHM = WARP_LOAD_DIRECT,
          int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpLoad {
 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * LOGICAL_WARP_THREADS * ITEMS_PER_THREAD> {};
  __device__ WarpLoad() {}
  __device__ WarpLoad(TempStorage& temp_storage) {}
  template <typename InputIteratorT>
  __device__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD]) {
#if MUSAPORT_CPU
    Load(block_itr, items, LOGICAL_WARP_THREADS * ITEMS_PER_THREAD);
#else
    musaport_detail::collective_unsupported();
#endif
  }
  template <typename InputIteratorT>
  __device__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items) {
#if MUSAPORT_CPU
    musaport_detail::load_items(musaport_detail::warp_rank<LOGICAL_WARP_THREADS>(), &WarpLoad::index, block_itr, items, valid_items);
#else
    musaport_detail::collective_unsupported();
#endif
  }
  template <typename InputIteratorT, typename DefaultT>
  __device__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items, DefaultT oob_default) {
#if MUSAPORT_CPU
    musaport_detail::load_items(musaport_detail::warp_rank<LOGICAL_WARP_THREADS>(), &WarpLoad::index, block_itr, items, valid_items, oob_default);
#else
    musaport_detail::collective_unsupported();
#endif
  }

 private:
  // Where item i of the thread of rank r lives: blocked (r*N + i), or striped (r + i*threads).
  __device__ static int index(int rank, int i) {
    return ALGORITHM == WARP_LOAD_STRIPED ? rank + i * (LOGICAL_WARP_THREADS) : rank * ITEMS_PER_THREAD + i;
  }
};

}  // namespace cub
CUB_NS_POSTFIX
