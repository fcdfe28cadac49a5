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
inline thread_local uint3 threadIdx{0, 0, 0};
inline thread_local uint3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};
#endif
