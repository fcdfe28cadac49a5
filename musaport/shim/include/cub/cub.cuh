// musaport shim: <cub/cub.cuh>, the part of cub's interface that ported
// PyTorch code uses, for syntax checks and CPU runs.  The umbrella includes
// every header, laid out as in cub itself, so ported code may include either:
//
//   config.cuh, util_*.cuh, version.cuh  version, namespace and warp-size macros,
//                                        NullType, KeyValuePair, Uninitialized,
//                                        Log2/PowerOfTwo, Traits/NumericTraits,
//                                        DoubleBuffer, FutureValue; util_ptx.cuh:
//                                        LaneId, RowMajorTid, WarpMask and the
//                                        shuffles of any type (ShuffleUp/Down/Index)
//   thread/thread_operators.cuh          function objects (Sum, Max, ArgMax, ...)
//   iterator/                            input iterators
//   device/                              device-wide algorithms (DeviceScan,
//                                        DeviceRadixSort, ...), run sequentially
//                                        in a one-thread kernel (a plain call on
//                                        the CPU runtime)
//   block/, warp/                        block- and warp-wide collectives
//                                        (BlockLoad, BlockScan, WarpMergeSort,
//                                        ...): cub's signatures; on the CPU
//                                        runtime the loads, stores and sorts
//                                        run, the rest (and every body in the
//                                        syntax check) stop with __trap();
//                                        BlockRakingLayout, a raking grid in
//                                        shared memory, works in both
//   detail/uninitialized_copy.cuh        cub::detail::uninitialized_copy
//   detail/musaport_*.cuh                the shim's own helpers of device/ and of
//                                        block/ and warp/ (not cub headers)
//
// Like cub, the namespace honours CUB_NS_PREFIX/CUB_NS_POSTFIX, which
// PyTorch's ATen/musa/cub.muh sets to wrap cub in `at_cuda_detail`.
#pragma once

// CUB's umbrella brings <cfloat> (through libcu++'s cuda/std/cfloat), so kernels that include it use FLT_MAX
// without including <cfloat> themselves (torch-harmonics' attention kernels do); so does this one.
#include <cfloat>

#include <cub/config.cuh>
#include <cub/util_arch.cuh>
#include <cub/util_macro.cuh>
#include <cub/util_namespace.cuh>
#include <cub/util_ptx.cuh>
#include <cub/util_type.cuh>
#include <cub/version.cuh>

#include <cub/thread/thread_operators.cuh>

#include <cub/iterator/arg_index_input_iterator.cuh>
#include <cub/iterator/constant_input_iterator.cuh>
#include <cub/iterator/counting_input_iterator.cuh>
#include <cub/iterator/transform_input_iterator.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_select.cuh>

#include <cub/detail/uninitialized_copy.cuh>

#include <cub/block/block_exchange.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_raking_layout.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_merge_sort.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cub/warp/warp_store.cuh>
