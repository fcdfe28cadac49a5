// musaport shim: <cub/util_ptx.cuh>: cub's thread and warp utilities (see cub/cub.cuh).
//
//   LaneId, WarpId, LaneMask{Lt,Le,Gt,Ge}     the calling thread's place in its warp
//   RowMajorTid                                its linear rank in the block
//   WarpMask<W>                                the lanes of logical warp `warp_id` of W threads
//   CTA_SYNC[_AND,_OR], WARP_SYNC, WARP_ANY,   cub's names of the barriers and votes
//   WARP_ALL, WARP_BALLOT, ThreadTrap
//   ShuffleUp<W>, ShuffleDown<W>, ShuffleIndex<W>  shuffles of a value of any trivially copyable type
//                                              within logical warps of W threads (W a power of two <= 32)
//
// The shuffles move the value in 32-bit words through __shfl_up_sync/__shfl_down_sync/__shfl_sync
// with width W, so on the CPU runtime they are the runtime's warp operations (a rendezvous of the
// lanes named by member_mask; a misuse is reported at the caller's line).  A lane whose source is
// outside its logical warp, or past `first_thread`/`last_thread` of it, receives its own value, as
// the hardware's clamped shuffle gives it.  ShuffleIndex takes `src_lane` modulo W, as the hardware
// does.
#pragma once

#include <cub/config.cuh>
#include <cub/util_type.cuh>

// In CPU mode the runtime's warp operations take the caller's file and line as two hidden trailing
// arguments (musaport_shim/device_functions.h); the shuffles below pass theirs on.
#if MUSAPORT_CPU
#define MUSAPORT_CUB_AT , musaport_file, musaport_line
#else
#define MUSAPORT_CUB_AT
#endif

CUB_NS_PREFIX
namespace cub {

// ------------------------------------------------------------ the thread's place
// The row-major rank of the calling thread in a block of block_dim_x * block_dim_y * block_dim_z
// threads (x fastest).
__device__ __forceinline__ int RowMajorTid(int block_dim_x, int block_dim_y, int block_dim_z) {
  return (block_dim_z == 1 ? 0 : int(threadIdx.z) * block_dim_x * block_dim_y) +
         (block_dim_y == 1 ? 0 : int(threadIdx.y) * block_dim_x) + int(threadIdx.x);
}

namespace musaport_detail {
__device__ __forceinline__ unsigned int linear_tid() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
}  // namespace musaport_detail

// The lane of the calling thread in its hardware warp, and the warp's index in the block: warps are
// consecutive runs of 32 threads in row-major order.
__device__ __forceinline__ unsigned int LaneId() { return musaport_detail::linear_tid() % 32u; }
__device__ __forceinline__ unsigned int WarpId() { return musaport_detail::linear_tid() / 32u; }

// The lanes below, up to, above and from the calling lane.
__device__ __forceinline__ unsigned int LaneMaskLt() { return (1u << LaneId()) - 1u; }
__device__ __forceinline__ unsigned int LaneMaskLe() { return LaneMaskLt() | (1u << LaneId()); }
__device__ __forceinline__ unsigned int LaneMaskGt() { return ~LaneMaskLe(); }
__device__ __forceinline__ unsigned int LaneMaskGe() { return ~LaneMaskLt(); }

// The member mask of logical warp `warp_id` of LOGICAL_WARP_THREADS threads in a hardware warp:
// W consecutive lanes from lane warp_id * W.  A logical warp whose size is not a power of two is
// taken to be the only one in its hardware warp (lanes 0 .. W-1), as in cub.
template <int LOGICAL_WARP_THREADS, int LEGACY_PTX_ARCH = 0>
MUSAPORT_HD __forceinline__ unsigned int WarpMask(unsigned int warp_id) {
  static_assert(LOGICAL_WARP_THREADS >= 1 && LOGICAL_WARP_THREADS <= 32, "a logical warp has 1 to 32 threads");
  unsigned int mask = 0xffffffffu >> (32 - LOGICAL_WARP_THREADS);
  if (PowerOfTwo<LOGICAL_WARP_THREADS>::VALUE && LOGICAL_WARP_THREADS != 32) mask <<= warp_id * LOGICAL_WARP_THREADS;
  return mask;
}

// ------------------------------------------------------------ barriers and votes by cub's names
__device__ __forceinline__ void CTA_SYNC() { __syncthreads(); }
__device__ __forceinline__ int CTA_SYNC_AND(int p) { return __syncthreads_and(p); }
__device__ __forceinline__ int CTA_SYNC_OR(int p) { return __syncthreads_or(p); }
__device__ __forceinline__ void WARP_SYNC(unsigned int member_mask) { __syncwarp(member_mask); }
__device__ __forceinline__ int WARP_ANY(int predicate, unsigned int member_mask) {
  return __any_sync(member_mask, predicate);
}
__device__ __forceinline__ int WARP_ALL(int predicate, unsigned int member_mask) {
  return __all_sync(member_mask, predicate);
}
__device__ __forceinline__ int WARP_BALLOT(int predicate, unsigned int member_mask) {
  return int(__ballot_sync(member_mask, predicate));
}
__device__ __forceinline__ void ThreadTrap() { __trap(); }

// ------------------------------------------------------------ shuffles of any type
namespace musaport_detail {
// A value of T as the 32-bit words a shuffle moves (the last one zero-padded).
template <typename T>
struct ShuffleWords {
  static_assert(std::is_trivially_copyable<T>::value, "cub's shuffles move trivially copyable values");
  static constexpr int kWords = int((sizeof(T) + sizeof(unsigned int) - 1) / sizeof(unsigned int));
  unsigned int word[kWords];
  __device__ __forceinline__ explicit ShuffleWords(const T& value) : word() { __builtin_memcpy(word, &value, sizeof(T)); }
  __device__ __forceinline__ T value(T like) const {
    __builtin_memcpy(&like, word, sizeof(T));  // `like`: T need not be default-constructible
    return like;
  }
};

template <int LOGICAL_WARP_THREADS>
__device__ __forceinline__ int lane_in_logical_warp() {
  static_assert(PowerOfTwo<LOGICAL_WARP_THREADS>::VALUE && LOGICAL_WARP_THREADS <= 32,
                "cub's shuffles need a logical warp of a power of two <= 32 threads");
  return int(LaneId() % unsigned(LOGICAL_WARP_THREADS));
}
}  // namespace musaport_detail

// Lane i of each logical warp receives the input of lane i - src_offset when that lane is at least
// first_thread (an index in the logical warp, typically 0), else its own input.
template <int LOGICAL_WARP_THREADS, typename T>
__device__ __forceinline__ T ShuffleUp(T input, int src_offset, int first_thread,
                                       unsigned int member_mask MUSAPORT_SITE) {
  const musaport_detail::ShuffleWords<T> in(input);
  musaport_detail::ShuffleWords<T> out(input);
  for (int w = 0; w < musaport_detail::ShuffleWords<T>::kWords; ++w)
    out.word[w] = __shfl_up_sync(member_mask, in.word[w], unsigned(src_offset), LOGICAL_WARP_THREADS MUSAPORT_CUB_AT);
  const int lane = musaport_detail::lane_in_logical_warp<LOGICAL_WARP_THREADS>();
  return lane - src_offset >= first_thread ? out.value(input) : input;
}

// Lane i of each logical warp receives the input of lane i + src_offset when that lane is at most
// last_thread (an index in the logical warp, typically LOGICAL_WARP_THREADS - 1), else its own input.
template <int LOGICAL_WARP_THREADS, typename T>
__device__ __forceinline__ T ShuffleDown(T input, int src_offset, int last_thread,
                                         unsigned int member_mask MUSAPORT_SITE) {
  const musaport_detail::ShuffleWords<T> in(input);
  musaport_detail::ShuffleWords<T> out(input);
  for (int w = 0; w < musaport_detail::ShuffleWords<T>::kWords; ++w)
    out.word[w] = __shfl_down_sync(member_mask, in.word[w], unsigned(src_offset), LOGICAL_WARP_THREADS MUSAPORT_CUB_AT);
  const int lane = musaport_detail::lane_in_logical_warp<LOGICAL_WARP_THREADS>();
  return lane + src_offset <= last_thread ? out.value(input) : input;
}

// Every lane of each logical warp receives the input of its lane src_lane (modulo the warp's size).
template <int LOGICAL_WARP_THREADS, typename T>
__device__ __forceinline__ T ShuffleIndex(T input, int src_lane, unsigned int member_mask MUSAPORT_SITE) {
  const musaport_detail::ShuffleWords<T> in(input);
  musaport_detail::ShuffleWords<T> out(input);
  (void)musaport_detail::lane_in_logical_warp<LOGICAL_WARP_THREADS>();  // checks the warp's size
  for (int w = 0; w < musaport_detail::ShuffleWords<T>::kWords; ++w)
    out.word[w] = __shfl_sync(member_mask, in.word[w], src_lane, LOGICAL_WARP_THREADS MUSAPORT_CUB_AT);
  return out.value(input);
}

}  // namespace cub
CUB_NS_POSTFIX

#undef MUSAPORT_CUB_AT
