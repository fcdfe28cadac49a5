// musaport shim: the MUSA runtime umbrella header (what `#include
// <musa_runtime.h>` gives ported code): the runtime API, its C++ template
// overloads, vector types, the kernel built-ins and device functions, and -
// in CPU mode - the execution runtime that runs kernels on the host.
//
// Use it first (or force it with `-include musa_runtime.h`): in clang CUDA
// mode the __host__/__device__ macros must exist before standard headers are
// read, because clang's CUDA wrappers of <algorithm> and <new> use them.
#pragma once

#include "musaport_shim/config.h"

// What the real runtime header makes available to kernels and host code.
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <new>

#include "musaport_shim/vector_types.h"
#include "musa_runtime_api.h"
#include "musaport_shim/builtin_vars.h"
#include "musaport_shim/device_functions.h"
#include "musaport_shim/device_math.h"

// ---------------------------------------------------------------- C++ API overloads
template <class T>
inline musaError_t musaMalloc(T** ptr, size_t bytes) {
  return musaMalloc(reinterpret_cast<void**>(ptr), bytes);
}
template <class T>
inline musaError_t musaMallocHost(T** ptr, size_t bytes) {
  return musaMallocHost(reinterpret_cast<void**>(ptr), bytes);
}
template <class T>
inline musaError_t musaHostAlloc(T** ptr, size_t bytes, unsigned int flags) {
  return musaHostAlloc(reinterpret_cast<void**>(ptr), bytes, flags);
}
template <class T>
inline musaError_t musaMallocManaged(T** ptr, size_t bytes, unsigned int flags = musaMemAttachGlobal) {
  return musaMallocManaged(reinterpret_cast<void**>(ptr), bytes, flags);
}
template <class T>
inline musaError_t musaMallocPitch(T** ptr, size_t* pitch, size_t width, size_t height) {
  return musaMallocPitch(reinterpret_cast<void**>(ptr), pitch, width, height);
}
template <class T>
inline musaError_t musaMemcpyToSymbol(const T& symbol, const void* src, size_t bytes, size_t offset = 0,
                                      musaMemcpyKind kind = musaMemcpyHostToDevice) {
  return musaMemcpyToSymbol(static_cast<const void*>(&symbol), src, bytes, offset, kind);
}
template <class T>
inline musaError_t musaMemcpyFromSymbol(void* dst, const T& symbol, size_t bytes, size_t offset = 0,
                                        musaMemcpyKind kind = musaMemcpyDeviceToHost) {
  return musaMemcpyFromSymbol(dst, static_cast<const void*>(&symbol), bytes, offset, kind);
}
template <class T>
inline musaError_t musaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t bytes, size_t offset = 0,
                                           musaMemcpyKind kind = musaMemcpyHostToDevice, musaStream_t stream = nullptr) {
  return musaMemcpyToSymbolAsync(static_cast<const void*>(&symbol), src, bytes, offset, kind, stream);
}
template <class T>
inline musaError_t musaGetSymbolAddress(void** ptr, const T& symbol) {
  return musaGetSymbolAddress(ptr, static_cast<const void*>(&symbol));
}
template <class T>
inline musaError_t musaFuncSetAttribute(T* entry, musaFuncAttribute attr, int value) {
  return musaFuncSetAttribute(reinterpret_cast<const void*>(entry), attr, value);
}
template <class T>
inline musaError_t musaFuncGetAttributes(musaFuncAttributes* attr, T* entry) {
  return musaFuncGetAttributes(attr, reinterpret_cast<const void*>(entry));
}
template <class T>
inline musaError_t musaFuncSetCacheConfig(T* entry, musaFuncCache config) {
  return musaFuncSetCacheConfig(reinterpret_cast<const void*>(entry), config);
}
template <class T>
inline musaError_t musaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, T entry, int block_size,
                                                                 size_t dynamic_shared) {
  return musaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, reinterpret_cast<const void*>(entry), block_size,
                                                       dynamic_shared);
}
template <class T>
inline musaError_t musaOccupancyMaxPotentialBlockSize(int* min_grid, int* block_size, T, size_t = 0,
                                                      int block_size_limit = 0) {
  if (min_grid == nullptr || block_size == nullptr) return musaport::rt::record(musaErrorInvalidValue);
  *block_size = block_size_limit > 0 && block_size_limit < 1024 ? block_size_limit : 1024;
  *min_grid = musaport::rt::multiprocessors() * (2048 / *block_size);
  return musaSuccess;
}

#if MUSAPORT_CLANG_CUDA
// clang lowers `k<<<g, b, s, st>>>(...)` to a call of a launch-configuration
// function named by the CUDA ABI it targets: __cudaPushCallConfiguration
// when it finds a CUDA SDK >= 9.2, cudaConfigureCall otherwise.  These two
// declarations exist only so that the syntax check accepts launches; they are
// the only CUDA-spelled names in the shim and exist only in clang CUDA mode.
extern "C" int __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem = 0, musaStream_t stream = nullptr);
extern "C" int cudaConfigureCall(dim3 grid, dim3 block, size_t shmem = 0, musaStream_t stream = nullptr);

// clang's host pass also parses kernels, with __MUSA_ARCH__ undefined, so
// code that picks std::apply/std::invoke "on the host side" (c10::guts::apply
// tests __cpp_lib_apply && !__MUSA_ARCH__) would apply them to __device__
// functors, which libstdc++'s invoke_result cannot see from host context.
// The MUSA compiler, like nvcc, reads device code with __MUSA_ARCH__ set and
// takes PyTorch's own constexpr apply; hiding the feature-test macro gives the
// syntax check that same branch on both passes.
#include <tuple>
#include <version>
#undef __cpp_lib_apply
#else
#include "musa_cpu_runtime.h"
#endif
