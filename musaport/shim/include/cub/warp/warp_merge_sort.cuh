// musaport shim: <cub/warp/warp_merge_sort.cuh>: cub::WarpMergeSort (see cub/cub.cuh).
#pragma once

#include <cub/config.cuh>
#include <cub/detail/musaport_collective.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

template <typename KeyT, int ITEMS_PER_THREAD, int LOGICAL_WARP_THREADS = 32, typename ValueT = NullType,
          int LEGACY_PTX_ARCH = 0>
class WarpMergeSort {
 public:
  struct TempStorage : TempStorageBytes<(sizeof(KeyT) + sizeof(ValueT)) * LOGICAL_WARP_THREADS *
                                        (ITEMS_PER_THREAD + 1)> {};
  __device__ WarpMergeSort(TempStorage& temp_storage) {}
  template <typename CompareOp>
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op) { musaport_detail::collective_unsupported(); }
  template <typename CompareOp>
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op, int valid_items, KeyT oob_default) { musaport_detail::collective_unsupported(); }
  template <typename CompareOp>
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD], CompareOp compare_op) { musaport_detail::collective_unsupported(); }
  template <typename CompareOp>
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD], CompareOp compare_op,
                       int valid_items, KeyT oob_default) { musaport_detail::collective_unsupported(); }
  template <typename CompareOp>
  __device__ void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op) { musaport_detail::collective_unsupported(); }
  template <typename CompareOp>
  __device__ void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op, int valid_items,
                             KeyT oob_default) { musaport_detail::collective_unsupported(); }
  template <typename CompareOp>
  __device__ void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD],
                             CompareOp compare_op) { musaport_detail::collective_unsupported(); }
  template <typename CompareOp>
  __device__ void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD],
                             CompareOp compare_op, int valid_items, KeyT oob_default) { musaport_detail::collective_unsupported(); }
};

}  // namespace cub
CUB_NS_POSTFIX
