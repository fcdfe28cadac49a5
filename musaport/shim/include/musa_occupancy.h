// musaport shim: the occupancy-calculator types and entry points (compile
// support; the answers describe the emulator, not real hardware).
#pragma once

#include "musa_runtime_api.h"

typedef enum musaOccError_enum {
  MUSA_OCC_SUCCESS = 0,
  MUSA_OCC_ERROR_INVALID_INPUT = 1,
  MUSA_OCC_ERROR_UNKNOWN_DEVICE = 2
} musaOccError;

struct musaOccDeviceProp {
  int computeMajor = 7;
  int computeMinor = 0;
  int maxThreadsPerBlock = 1024;
  int maxThreadsPerMultiprocessor = 2048;
  int regsPerBlock = 65536;
  int regsPerMultiprocessor = 65536;
  int warpSize = 32;
  size_t sharedMemPerBlock = 48 * 1024;
  size_t sharedMemPerMultiprocessor = musaport::rt::kDynamicSharedCapacity;
  int numSms = musaport::rt::multiprocessors();
  size_t sharedMemPerBlockOptin = musaport::rt::kDynamicSharedCapacity;

  musaOccDeviceProp() = default;
  musaOccDeviceProp(const musaDeviceProp& p)
      : computeMajor(p.major), computeMinor(p.minor), maxThreadsPerBlock(p.maxThreadsPerBlock),
        maxThreadsPerMultiprocessor(p.maxThreadsPerMultiProcessor), regsPerBlock(p.regsPerBlock),
        regsPerMultiprocessor(p.regsPerMultiprocessor), warpSize(p.warpSize), sharedMemPerBlock(p.sharedMemPerBlock),
        sharedMemPerMultiprocessor(p.sharedMemPerMultiprocessor), numSms(p.multiProcessorCount),
        sharedMemPerBlockOptin(p.sharedMemPerBlockOptin) {}
};

struct musaOccFuncAttributes {
  int maxThreadsPerBlock = 1024;
  int numRegs = 32;
  size_t sharedSizeBytes = 0;
};

struct musaOccDeviceState {
  int cacheConfig = 0;
};

struct musaOccResult {
  int activeBlocksPerMultiprocessor = 0;
  unsigned int limitingFactors = 0;
  int blockLimitRegs = 0;
  int blockLimitSharedMem = 0;
  int blockLimitWarps = 0;
  int blockLimitBlocks = 0;
  int allocatedRegistersPerBlock = 0;
  size_t allocatedSharedMemPerBlock = 0;
};

// Blocks per multiprocessor, limited by threads only.
inline musaOccError musaOccMaxActiveBlocksPerMultiprocessor(musaOccResult* result, const musaOccDeviceProp* prop,
                                                           const musaOccFuncAttributes*, const musaOccDeviceState*,
                                                           int block_size, size_t) {
  if (result == nullptr || prop == nullptr || block_size <= 0 || block_size > prop->maxThreadsPerBlock)
    return MUSA_OCC_ERROR_INVALID_INPUT;
  *result = musaOccResult{};
  result->activeBlocksPerMultiprocessor = prop->maxThreadsPerMultiprocessor / block_size;
  result->blockLimitWarps = result->activeBlocksPerMultiprocessor;
  return MUSA_OCC_SUCCESS;
}
