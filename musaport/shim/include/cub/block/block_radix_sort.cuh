// musaport shim: <cub/block/block_radix_sort.cuh>: cub::BlockRadixSort (see cub/cub.cuh).
#pragma once

#include <cub/block/block_scan.cuh>
#include <cub/config.cuh>
#include <cub/detail/musaport_collective.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

template <typename KeyT, int BLOCK_DIM_X, int ITEMS_PER_THREAD, typename ValueT = NullType, int RADIX_BITS = 4,
          bool MEMOIZE_OUTER_SCAN = true, BlockScanAlgorithm INNER_SCAN_ALGORITHM = BLOCK_SCAN_WARP_SCANS,
          int SMEM_CONFIG = 0, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockRadixSort {
 public:
  struct TempStorage : TempStorageBytes<(sizeof(KeyT) + sizeof(ValueT)) * BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z *
                                        ITEMS_PER_THREAD> {};
  __device__ BlockRadixSort() {}
  __device__ BlockRadixSort(TempStorage& temp_storage) : storage_(temp_storage.storage) {}
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) {
#if MUSAPORT_CPU
    run(keys, static_cast<NullType*>(nullptr), musaport_detail::RadixLess<KeyT>{begin_bit, end_bit, false});
#else
    musaport_detail::collective_unsupported();
#endif
  }
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD], int begin_bit = 0,
                       int end_bit = sizeof(KeyT) * 8) {
#if MUSAPORT_CPU
    run(keys, values, musaport_detail::RadixLess<KeyT>{begin_bit, end_bit, false});
#else
    musaport_detail::collective_unsupported();
#endif
  }
  __device__ void SortDescending(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) {
#if MUSAPORT_CPU
    run(keys, static_cast<NullType*>(nullptr), musaport_detail::RadixLess<KeyT>{begin_bit, end_bit, true});
#else
    musaport_detail::collective_unsupported();
#endif
  }
  __device__ void SortDescending(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD],
                                 int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) {
#if MUSAPORT_CPU
    run(keys, values, musaport_detail::RadixLess<KeyT>{begin_bit, end_bit, true});
#else
    musaport_detail::collective_unsupported();
#endif
  }
  __device__ void SortBlockedToStriped(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0,
                                       int end_bit = sizeof(KeyT) * 8) { musaport_detail::collective_unsupported(); }
  __device__ void SortBlockedToStriped(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD],
                                       int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) { musaport_detail::collective_unsupported(); }

 private:
#if MUSAPORT_CPU
  template <typename V, typename Less>
  __device__ void run(KeyT (&keys)[ITEMS_PER_THREAD], V* values, Less less) {
    if (storage_ == nullptr) musaport_detail::collective_unsupported();  // cub's private storage: not emulated
    musaport_detail::sort_blocked(storage_, musaport_detail::block_rank(), BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z, keys, values, less,
                                  [] { __syncthreads(); });
  }
#endif
  unsigned char* storage_ = nullptr;
};

}  // namespace cub
CUB_NS_POSTFIX
