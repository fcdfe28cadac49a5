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
  __device__ BlockExchange() : storage_(private_storage()) {}
  __device__ BlockExchange(TempStorage& temp_storage) : storage_(temp_storage.storage) {}
  template <typename OutputT>
  __device__ void BlockedToStriped(const T (&input)[ITEMS_PER_THREAD], OutputT (&output)[ITEMS_PER_THREAD]) {
    run(input, output, true);
  }
  template <typename OutputT>
  __device__ void StripedToBlocked(const T (&input)[ITEMS_PER_THREAD], OutputT (&output)[ITEMS_PER_THREAD]) {
    run(input, output, false);
  }
  template <typename OutputT>
  __device__ void BlockedToWarpStriped(const T (&input)[ITEMS_PER_THREAD], OutputT (&output)[ITEMS_PER_THREAD]) {
    musaport_detail::collective_unsupported();
  }
  template <typename OutputT>
  __device__ void WarpStripedToBlocked(const T (&input)[ITEMS_PER_THREAD], OutputT (&output)[ITEMS_PER_THREAD]) {
    musaport_detail::collective_unsupported();
  }
  __device__ void BlockedToStriped(T (&items)[ITEMS_PER_THREAD]) { run(items, items, true); }
  __device__ void StripedToBlocked(T (&items)[ITEMS_PER_THREAD]) { run(items, items, false); }
  __device__ void BlockedToWarpStriped(T (&items)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
  __device__ void WarpStripedToBlocked(T (&items)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }

 private:
  static constexpr int kThreads = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  __device__ static unsigned char* private_storage() {  // cub's default constructor: private shared memory
    __shared__ TempStorage storage;
    return storage.storage;
  }
  // On the CPU runtime each thread writes its items where they go and reads its new ones back, between
  // barriers (musaport_detail::exchange; in place works: the items are read only after the barrier).
  template <typename OutputT>
  __device__ void run(const T (&input)[ITEMS_PER_THREAD], OutputT (&output)[ITEMS_PER_THREAD], bool to_striped) {
#if MUSAPORT_CPU
    musaport_detail::exchange(storage_, musaport_detail::block_rank(), kThreads, input, output, to_striped,
                              [] { __syncthreads(); });
#else
    musaport_detail::collective_unsupported();
#endif
  }
  unsigned char* storage_;
};

}  // namespace cub
CUB_NS_POSTFIX
