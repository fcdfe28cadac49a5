// musaport shim: threadIdx, blockIdx, blockDim, gridDim and warpSize.
#pragma once

#include "config.h"
#include "vector_types.h"

// The emulator's warps have 32 lanes.  A constant (not a macro) so that code
// declaring its own local `warpSize` still compiles.
constexpr int warpSize = 32;

#if MUSAPORT_CLANG_CUDA
// Device-only read-only objects: `threadIdx.x` calls a __device__ getter, so
// reading it from host code is diagnosed, as with the real toolchain.
#define MUSAPORT_BUILTIN_INDEX(type_name, as_type)                         \
  struct type_name {                                                       \
    __declspec(property(get = get_x)) unsigned int x;                      \
    __declspec(property(get = get_y)) unsigned int y;                      \
    __declspec(property(get = get_z)) unsigned int z;                      \
    static __device__ unsigned int get_x();                                \
    static __device__ unsigned int get_y();                                \
    static __device__ unsigned int get_z();                                \
    __device__ operator as_type() const;                                   \
    type_name() = delete;                                                  \
    type_name(const type_name&) = delete;                                  \
    void operator=(const type_name&) const = delete;                       \
  };

MUSAPORT_BUILTIN_INDEX(musaport_builtin_thread_idx, uint3)
MUSAPORT_BUILTIN_INDEX(musaport_builtin_block_idx, uint3)
MUSAPORT_BUILTIN_INDEX(musaport_builtin_block_dim, dim3)
MUSAPORT_BUILTIN_INDEX(musaport_builtin_grid_dim, dim3)
#undef MUSAPORT_BUILTIN_INDEX

extern const __device__ musaport_builtin_thread_idx threadIdx;
extern const __device__ musaport_builtin_block_idx blockIdx;
extern const __device__ musaport_builtin_block_dim blockDim;
extern const __device__ musaport_builtin_grid_dim gridDim;

#else
// CPU mode: one copy per OS thread (worker).  The scheduler rewrites them
// whenever it switches to another GPU thread, so a fiber always reads its own
// indices without any per-fiber thread_local state.
//
// threadIdx and blockIdx, read in every GPU thread and often several times,
// are reached through musaport_indices_here(), which GCC may call once per
// function and keep out of loops: it is declared const, as glibc declares
// errno's __errno_location, because a function's activation never changes
// OS thread (a block's fibers stay on the OS thread that runs the block).
// Read as thread_local variables, each use cost a general-dynamic TLS lookup
// (a __tls_get_addr call: the device library's TLS segment, which holds the
// kernels' shared memory, is too large for the initial-exec model), three
// lookups a GPU thread in PyTorch's elementwise kernels, which GCC did not
// hoist from the loop over the block's threads.  Macros, since a member
// access (`threadIdx.x`) cannot go through a function otherwise.  blockDim and
// gridDim stay variables, because code names parameters and locals after
// them (`int blockDim` in cuSPARSE's BSR API, `dim3 blockDim(16, 16)`); the
// CPU build's view of a port (validate.cpu.view) reads them through the
// accessor too (block_dim, grid_dim), in the files where no other entity
// takes their names.  The launch writes both copies.
struct musaport_indices {
  uint3 thread_idx{0, 0, 0};
  uint3 block_idx{0, 0, 0};
  dim3 block_dim{1, 1, 1};
  dim3 grid_dim{1, 1, 1};
};
// Default visibility: one object per OS thread for the whole process, so a kernel of an extension's
// library reads what the launch code of another library (the device's) wrote.
inline thread_local musaport_indices musaport_indices_tls;
[[gnu::const, gnu::noinline, gnu::visibility("hidden")]] inline musaport_indices* musaport_indices_here() noexcept {
  return &musaport_indices_tls;
}
#define threadIdx (musaport_indices_here()->thread_idx)
#define blockIdx (musaport_indices_here()->block_idx)
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};
#endif
