// musaport shim: <cub/block/block_raking_layout.cuh>: cub::BlockRakingLayout (see cub/cub.cuh).
//
// The shared-memory grid of a raking collective: each of the block's BLOCK_THREADS threads places
// one T (PlacementPtr), then RAKING_THREADS threads (at most a warp) each read a segment of
// SEGMENT_LENGTH consecutive slots from RakingPtr.  When SEGMENT_LENGTH is even and above 2 a slot of
// padding follows each segment (cub's guard against bank conflicts), and PlacementPtr skips it, so
// thread t's slot is always item t % SEGMENT_LENGTH of segment t / SEGMENT_LENGTH.  The constants are
// cub's, so code that checks them (static_assert(UNGUARDED)) sees the same values.  Plain shared
// memory and pointer arithmetic: it works alike in the syntax check and on the CPU runtime.
#pragma once

#include <cub/config.cuh>
#include <cub/util_arch.cuh>
#include <cub/util_type.cuh>

CUB_NS_PREFIX
namespace cub {

template <typename T, int BLOCK_THREADS, int LEGACY_PTX_ARCH = 0>
struct BlockRakingLayout {
  enum {
    // One slot per thread.
    SHARED_ELEMENTS = BLOCK_THREADS,
    // Raking is done by at most one warp.
    MAX_RAKING_THREADS = BLOCK_THREADS < CUB_WARP_THREADS(0) ? BLOCK_THREADS : CUB_WARP_THREADS(0),
    // Slots each raking thread reads, and the raking threads needed to cover them all.
    SEGMENT_LENGTH = (SHARED_ELEMENTS + MAX_RAKING_THREADS - 1) / MAX_RAKING_THREADS,
    RAKING_THREADS = (SHARED_ELEMENTS + SEGMENT_LENGTH - 1) / SEGMENT_LENGTH,
    // Whether segments of this length would map onto the same banks, and how many ways.
    HAS_CONFLICTS = (CUB_SMEM_BANKS(0) % SEGMENT_LENGTH == 0),
    CONFLICT_DEGREE = HAS_CONFLICTS ? (MAX_RAKING_THREADS * SEGMENT_LENGTH) / CUB_SMEM_BANKS(0) : 1,
    // A padding slot after each segment.
    USE_SEGMENT_PADDING = ((SEGMENT_LENGTH & 1) == 0) && (SEGMENT_LENGTH > 2),
    GRID_ELEMENTS = RAKING_THREADS * (SEGMENT_LENGTH + USE_SEGMENT_PADDING),
    // Every segment is full: raking needs no bounds check.
    UNGUARDED = (SHARED_ELEMENTS % RAKING_THREADS == 0),
  };

  struct alignas(16) _TempStorage {
    T buff[GRID_ELEMENTS];
  };
  // Unioned or placed in shared memory by the caller, never constructed.
  struct TempStorage : Uninitialized<_TempStorage> {};

  // Where thread linear_tid places its item.
  static __device__ __forceinline__ T* PlacementPtr(TempStorage& temp_storage, unsigned int linear_tid) {
    unsigned int offset = linear_tid;
    if (USE_SEGMENT_PADDING) offset += offset / SEGMENT_LENGTH;
    return temp_storage.Alias().buff + offset;
  }

  // Where raking thread linear_tid's segment begins.
  static __device__ __forceinline__ T* RakingPtr(TempStorage& temp_storage, unsigned int linear_tid) {
    return temp_storage.Alias().buff + linear_tid * (SEGMENT_LENGTH + USE_SEGMENT_PADDING);
  }
};

}  // namespace cub
CUB_NS_POSTFIX
