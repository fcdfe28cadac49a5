// musaport shim: <cub/block/block_scan.cuh>: cub::BlockScan (see cub/cub.cuh).
#pragma once

#include <cub/config.cuh>
#include <cub/block/block_raking_layout.cuh>  // as in cub, through its raking scan
#include <cub/detail/musaport_collective.cuh>
#include <cub/util_ptx.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };

template <typename T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockScan {
  static constexpr int kThreads = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * (kThreads + 32)> {};
  __device__ BlockScan() : storage_(private_storage()) {}
  __device__ BlockScan(TempStorage& temp_storage) : storage_(temp_storage.storage) {}

  __device__ void InclusiveSum(T input, T& output) { one(input, output, Sum(), true, nullptr, none(), nullptr); }
  __device__ void InclusiveSum(T input, T& output, T& block_aggregate) {
    one(input, output, Sum(), true, nullptr, none(), &block_aggregate);
  }
  template <typename BlockPrefixCallbackOp>
  __device__ void InclusiveSum(T input, T& output, BlockPrefixCallbackOp& block_prefix_callback_op) {
    one(input, output, Sum(), true, nullptr, &block_prefix_callback_op, nullptr);
  }
  template <int ITEMS_PER_THREAD>
  __device__ void InclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD]) {
    run(input, output, Sum(), true, nullptr, none(), nullptr);
  }
  template <int ITEMS_PER_THREAD>
  __device__ void InclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD], T& block_aggregate) {
    run(input, output, Sum(), true, nullptr, none(), &block_aggregate);
  }
  template <int ITEMS_PER_THREAD, typename BlockPrefixCallbackOp>
  __device__ void InclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                               BlockPrefixCallbackOp& block_prefix_callback_op) {
    run(input, output, Sum(), true, nullptr, &block_prefix_callback_op, nullptr);
  }

  // The exclusive sums start from zero (cub's initial value for them).
  __device__ void ExclusiveSum(T input, T& output) {
    const T zero(0);
    one(input, output, Sum(), false, &zero, none(), nullptr);
  }
  __device__ void ExclusiveSum(T input, T& output, T& block_aggregate) {
    const T zero(0);
    one(input, output, Sum(), false, &zero, none(), &block_aggregate);
  }
  template <typename BlockPrefixCallbackOp>
  __device__ void ExclusiveSum(T input, T& output, BlockPrefixCallbackOp& block_prefix_callback_op) {
    one(input, output, Sum(), false, nullptr, &block_prefix_callback_op, nullptr);
  }
  template <int ITEMS_PER_THREAD>
  __device__ void ExclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD]) {
    const T zero(0);
    run(input, output, Sum(), false, &zero, none(), nullptr);
  }
  template <int ITEMS_PER_THREAD>
  __device__ void ExclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD], T& block_aggregate) {
    const T zero(0);
    run(input, output, Sum(), false, &zero, none(), &block_aggregate);
  }
  template <int ITEMS_PER_THREAD, typename BlockPrefixCallbackOp>
  __device__ void ExclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                               BlockPrefixCallbackOp& block_prefix_callback_op) {
    run(input, output, Sum(), false, nullptr, &block_prefix_callback_op, nullptr);
  }

  template <typename ScanOp>
  __device__ void InclusiveScan(T input, T& output, ScanOp scan_op) {
    one(input, output, scan_op, true, nullptr, none(), nullptr);
  }
  template <typename ScanOp>
  __device__ void InclusiveScan(T input, T& output, ScanOp scan_op, T& block_aggregate) {
    one(input, output, scan_op, true, nullptr, none(), &block_aggregate);
  }
  template <typename ScanOp, typename BlockPrefixCallbackOp>
  __device__ void InclusiveScan(T input, T& output, ScanOp scan_op, BlockPrefixCallbackOp& block_prefix_callback_op) {
    one(input, output, scan_op, true, nullptr, &block_prefix_callback_op, nullptr);
  }
  template <int ITEMS_PER_THREAD, typename ScanOp>
  __device__ void InclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD], ScanOp scan_op) {
    run(input, output, scan_op, true, nullptr, none(), nullptr);
  }
  template <int ITEMS_PER_THREAD, typename ScanOp>
  __device__ void InclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD], ScanOp scan_op,
                                T& block_aggregate) {
    run(input, output, scan_op, true, nullptr, none(), &block_aggregate);
  }
  template <int ITEMS_PER_THREAD, typename ScanOp, typename BlockPrefixCallbackOp>
  __device__ void InclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD], ScanOp scan_op,
                                BlockPrefixCallbackOp& block_prefix_callback_op) {
    run(input, output, scan_op, true, nullptr, &block_prefix_callback_op, nullptr);
  }

  template <typename ScanOp>
  __device__ void ExclusiveScan(T input, T& output, T initial_value, ScanOp scan_op) {
    one(input, output, scan_op, false, &initial_value, none(), nullptr);
  }
  template <typename ScanOp>
  __device__ void ExclusiveScan(T input, T& output, T initial_value, ScanOp scan_op, T& block_aggregate) {
    one(input, output, scan_op, false, &initial_value, none(), &block_aggregate);
  }
  template <typename ScanOp, typename BlockPrefixCallbackOp>
  __device__ void ExclusiveScan(T input, T& output, ScanOp scan_op, BlockPrefixCallbackOp& block_prefix_callback_op) {
    one(input, output, scan_op, false, nullptr, &block_prefix_callback_op, nullptr);
  }
  template <int ITEMS_PER_THREAD, typename ScanOp>
  __device__ void ExclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD], T initial_value,
                                ScanOp scan_op) {
    run(input, output, scan_op, false, &initial_value, none(), nullptr);
  }
  template <int ITEMS_PER_THREAD, typename ScanOp>
  __device__ void ExclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD], T initial_value,
                                ScanOp scan_op, T& block_aggregate) {
    run(input, output, scan_op, false, &initial_value, none(), &block_aggregate);
  }
  template <int ITEMS_PER_THREAD, typename ScanOp, typename BlockPrefixCallbackOp>
  __device__ void ExclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD], ScanOp scan_op,
                                BlockPrefixCallbackOp& block_prefix_callback_op) {
    run(input, output, scan_op, false, nullptr, &block_prefix_callback_op, nullptr);
  }

 private:
  using Sum = musaport_detail::ScanSum;
  __device__ static NullType* none() { return nullptr; }
  // cub's default constructor scans in private shared memory.
  __device__ static unsigned char* private_storage() {
    __shared__ TempStorage storage;
    return storage.storage;
  }
  template <typename Op, typename Callback>
  __device__ void one(T input, T& output, Op op, bool inclusive, const T* seed, Callback* callback, T* aggregate) {
    T in[1] = {input};
    T out[1] = {input};
    run(in, out, op, inclusive, seed, callback, aggregate);
    output = out[0];
  }
  // On the CPU runtime a serial scan between barriers (musaport_detail::scan_blocked); the syntax
  // check's device pass only needs the call to compile.
  template <int N, typename Op, typename Callback>
  __device__ void run(const T (&input)[N], T (&output)[N], Op op, bool inclusive, const T* seed, Callback* callback,
                      T* aggregate) {
#if MUSAPORT_CPU
    musaport_detail::scan_blocked(storage_, musaport_detail::block_rank(), kThreads, input, output, op, inclusive,
                                  seed, callback, aggregate, [] { __syncthreads(); });
#else
    musaport_detail::collective_unsupported();
#endif
  }

  unsigned char* storage_;
};

}  // namespace cub
CUB_NS_POSTFIX
