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
  __device__ WarpMergeSort(TempStorage& temp_storage) : storage_(temp_storage.storage) {}
  template <typename CompareOp>
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op) {
#if MUSAPORT_CPU
    run(keys, static_cast<NullType*>(nullptr), compare_op);
#else
    musaport_detail::collective_unsupported();
#endif
  }
  template <typename CompareOp>
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op, int valid_items, KeyT oob_default) {
#if MUSAPORT_CPU
    pad(keys, valid_items, oob_default); run(keys, static_cast<NullType*>(nullptr), compare_op);
#else
    musaport_detail::collective_unsupported();
#endif
  }
  template <typename CompareOp>
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD], CompareOp compare_op) {
#if MUSAPORT_CPU
    run(keys, items, compare_op);
#else
    musaport_detail::collective_unsupported();
#endif
  }
  template <typename CompareOp>
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD], CompareOp compare_op,
                       int valid_items, KeyT oob_default) {
#if MUSAPORT_CPU
    pad(keys, valid_items, oob_default); run(keys, items, compare_op);
#else
    musaport_detail::collective_unsupported();
#endif
  }
  template <typename CompareOp>
  __device__ void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op) {
#if MUSAPORT_CPU
    run(keys, static_cast<NullType*>(nullptr), compare_op);
#else
    musaport_detail::collective_unsupported();
#endif
  }
  template <typename CompareOp>
  __device__ void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op, int valid_items,
                             KeyT oob_default) {
#if MUSAPORT_CPU
    pad(keys, valid_items, oob_default); run(keys, static_cast<NullType*>(nullptr), compare_op);
#else
    musaport_detail::collective_unsupported();
#endif
  }
  template <typename CompareOp>
  __device__ void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD],
                             CompareOp compare_op) {
#if MUSAPORT_CPU
    run(keys, items, compare_op);
#else
    musaport_detail::collective_unsupported();
#endif
  }
  template <typename CompareOp>
  __device__ void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD],
                             CompareOp compare_op, int valid_items, KeyT oob_default) {
#if MUSAPORT_CPU
    pad(keys, valid_items, oob_default); run(keys, items, compare_op);
#else
    musaport_detail::collective_unsupported();
#endif
  }

 private:
#if MUSAPORT_CPU
  // Keys past valid_items take the default, as cub's sort with a valid count does.
  __device__ static void pad(KeyT (&keys)[ITEMS_PER_THREAD], int valid_items, KeyT oob_default) {
    const int rank = musaport_detail::warp_rank<LOGICAL_WARP_THREADS>();
    for (int i = 0; i < ITEMS_PER_THREAD; ++i)
      if (rank * ITEMS_PER_THREAD + i >= valid_items) keys[i] = oob_default;
  }
  template <typename V, typename CompareOp>
  __device__ void run(KeyT (&keys)[ITEMS_PER_THREAD], V* values, CompareOp compare_op) {
    musaport_detail::sort_blocked(storage_, musaport_detail::warp_rank<LOGICAL_WARP_THREADS>(), LOGICAL_WARP_THREADS,
                                  keys, values, compare_op, [] { __syncwarp(); });
  }
#endif
  unsigned char* storage_ = nullptr;
};

}  // namespace cub
CUB_NS_POSTFIX
