// musaport shim: <cub/block/block_scan.cuh>: cub::BlockScan (see cub/cub.cuh).
#pragma once

#include <cub/config.cuh>
#include <cub/detail/musaport_collective.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };

template <typename T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockScan {
 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * (BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z + 32)> {};
  __device__ BlockScan() {}
  __device__ BlockScan(TempStorage& temp_storage) {}

  __device__ void InclusiveSum(T input, T& output) { musaport_detail::collective_unsupported(); }
  __device__ void InclusiveSum(T input, T& output, T& block_aggregate) { musaport_detail::collective_unsupported(); }
  template <typename BlockPrefixCallbackOp>
  __device__ void InclusiveSum(T input, T& output, BlockPrefixCallbackOp& block_prefix_callback_op) { musaport_detail::collective_unsupported(); }
  template <int ITEMS_PER_THREAD>
  __device__ void InclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
  template <int ITEMS_PER_THREAD>
  __device__ void InclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD], T& block_aggregate) { musaport_detail::collective_unsupported(); }
  template <int ITEMS_PER_THREAD, typename BlockPrefixCallbackOp>
  __device__ void InclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                               BlockPrefixCallbackOp& block_prefix_callback_op) { musaport_detail::collective_unsupported(); }

  __device__ void ExclusiveSum(T input, T& output) { musaport_detail::collective_unsupported(); }
  __device__ void ExclusiveSum(T input, T& output, T& block_aggregate) { musaport_detail::collective_unsupported(); }
  template <typename BlockPrefixCallbackOp>
  __device__ void ExclusiveSum(T input, T& output, BlockPrefixCallbackOp& block_prefix_callback_op) { musaport_detail::collective_unsupported(); }
  template <int ITEMS_PER_THREAD>
  __device__ void ExclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
  template <int ITEMS_PER_THREAD>
  __device__ void ExclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD], T& block_aggregate) { musaport_detail::collective_unsupported(); }

  template <typename ScanOp>
  __device__ void InclusiveScan(T input, T& output, ScanOp scan_op) { musaport_detail::collective_unsupported(); }
  template <typename ScanOp>
  __device__ void InclusiveScan(T input, T& output, ScanOp scan_op, T& block_aggregate) { musaport_detail::collective_unsupported(); }
  template <typename ScanOp, typename BlockPrefixCallbackOp>
  __device__ void InclusiveScan(T input, T& output, ScanOp scan_op, BlockPrefixCallbackOp& block_prefix_callback_op) { musaport_detail::collective_unsupported(); }
  template <int ITEMS_PER_THREAD, typename ScanOp>
  __device__ void InclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD], ScanOp scan_op) { musaport_detail::collective_unsupported(); }

  template <typename ScanOp>
  __device__ void ExclusiveScan(T input, T& output, T initial_value, ScanOp scan_op) { musaport_detail::collective_unsupported(); }
  template <typename ScanOp>
  __device__ void ExclusiveScan(T input, T& output, T initial_value, ScanOp scan_op, T& block_aggregate) { musaport_detail::collective_unsupported(); }
  template <typename ScanOp, typename BlockPrefixCallbackOp>
  __device__ void ExclusiveScan(T input, T& output, ScanOp scan_op, BlockPrefixCallbackOp& block_prefix_callback_op) { musaport_detail::collective_unsupported(); }
  template <int ITEMS_PER_THREAD, typename ScanOp>
  __device__ void ExclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD], T initial_value,
                                ScanOp scan_op) { musaport_detail::collective_unsupported(); }
};

}  // namespace cub
CUB_NS_POSTFIX
