// musaport shim: <cub/block/block_exchange.cuh>: cub::BlockExchange (see cub/cub.cuh).
#pragma once

#include <cub/config.cuh>
#include <cub/detail/musaport_collective.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, bool WARP_TIME_SLICING = false, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockExchange {
 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z * ITEMS_PER_THREAD> {};
  __device__ BlockExchange() {}
  __device__ BlockExchange(TempStorage& temp_storage) {}
  template <typename OutputT>
  __device__ void BlockedToStriped(const T (&input)[ITEMS_PER_THREAD], OutputT (&output)[ITEMS_PER_THREAD]) {
    musaport_detail::collective_unsupported();
  }
  template <typename OutputT>
  __device__ void StripedToBlocked(const T (&input)[ITEMS_PER_THREAD], OutputT (&output)[ITEMS_PER_THREAD]) {
    musaport_detail::collective_unsupported();
  }
  template <typename OutputT>
  __device__ void BlockedToWarpStriped(const T (&input)[ITEMS_PER_THREAD], OutputT (&output)[ITEMS_PER_THREAD]) {
    musaport_detail::collective_unsupported();
  }
  template <typename OutputT>
  __device__ void WarpStripedToBlocked(const T (&input)[ITEMS_PER_THREAD], OutputT (&output)[ITEMS_PER_THREAD]) {
    musaport_detail::collective_unsupported();
  }
  __device__ void BlockedToStriped(T (&items)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
  __device__ void StripedToBlocked(T (&items)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
  __device__ void BlockedToWarpStriped(T (&items)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
  __device__ void WarpStripedToBlocked(T (&items)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
};

}  // namespace cub
CUB_NS_POSTFIX
