// musaport shim: <cub/warp/warp_store.cuh>: cub::WarpStore (see cub/cub.cuh).
#pragma once

#include <cub/config.cuh>
#include <cub/detail/musaport_collective.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

enum WarpStoreAlgorithm { WARP_STORE_DIRECT, WARP_STORE_STRIPED, WARP_STORE_VECTORIZE, WARP_STORE_TRANSPOSE };

template <typename T, int ITEMS_PER_THREAD, WarpStoreAlgorithm ALGORITHM = WARP_STORE_DIRECT,
          int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpStore {
 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * LOGICAL_WARP_THREADS * ITEMS_PER_THREAD> {};
  __device__ WarpStore() {}
  __device__ WarpStore(TempStorage& temp_storage) {}
  template <typename OutputIteratorT>
  __device__ void Store(OutputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD]) {
#if MUSAPORT_CPU
    Store(block_itr, items, LOGICAL_WARP_THREADS * ITEMS_PER_THREAD);
#else
    musaport_detail::collective_unsupported();
#endif
  }
  template <typename OutputIteratorT>
  __device__ void Store(OutputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items) {
#if MUSAPORT_CPU
    musaport_detail::store_items(musaport_detail::warp_rank<LOGICAL_WARP_THREADS>(), &WarpStore::index, block_itr, items, valid_items);
#else
    musaport_detail::collective_unsupported();
#endif
  }

 private:
  // Where item i of the thread of rank r lives: blocked (r*N + i), or striped (r + i*threads).
  __device__ static int index(int rank, int i) {
    return ALGORITHM == WARP_STORE_STRIPED ? rank + i * (LOGICAL_WARP_THREADS) : rank * ITEMS_PER_THREAD + i;
  }
};

}  // namespace cub
CUB_NS_POSTFIX
