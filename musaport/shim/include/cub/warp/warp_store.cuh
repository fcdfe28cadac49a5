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
  __device__ void Store(OutputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
  template <typename OutputIteratorT>
  __device__ void Store(OutputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items) { musaport_detail::collective_unsupported(); }
};

}  // namespace cub
CUB_NS_POSTFIX
