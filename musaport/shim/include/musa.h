// musaport shim: a minimal MUSA driver API (enough for code that queries the
// device and the current context).  One device, one implicit context.
#pragma once

#include "musa_runtime_api.h"

#ifndef MUSA_COMP_VERSION
#define MUSA_COMP_VERSION 12000
#endif

typedef enum MUresult_enum {
  MUSA_SUCCESS = 0,
  MUSA_ERROR_INVALID_VALUE = 1,
  MUSA_ERROR_OUT_OF_MEMORY = 2,
  MUSA_ERROR_NOT_INITIALIZED = 3,
  MUSA_ERROR_DEINITIALIZED = 4,
  MUSA_ERROR_NO_DEVICE = 100,
  MUSA_ERROR_INVALID_DEVICE = 101,
  MUSA_ERROR_INVALID_CONTEXT = 201,
  MUSA_ERROR_INVALID_HANDLE = 400,
  MUSA_ERROR_NOT_FOUND = 500,
  MUSA_ERROR_NOT_READY = 600,
  MUSA_ERROR_NOT_SUPPORTED = 801,
  MUSA_ERROR_UNKNOWN = 999
} MUresult;

typedef int MUdevice;
typedef unsigned long long MUdeviceptr;
typedef struct MUctx_st* MUcontext;
typedef struct MUmod_st* MUmodule;
typedef struct MUfunc_st* MUfunction;
typedef struct MUstream_st* MUstream;
typedef struct MUevent_st* MUevent;

typedef enum MUdevice_attribute_enum {
  MU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  MU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  MU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  MU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  MU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  MU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
} MUdevice_attribute;

struct MUctx_st {
  int device;
};

namespace musaport {
namespace drv {
inline MUcontext& current_context() {
  static thread_local MUcontext ctx = nullptr;
  return ctx;
}
inline MUcontext primary_context() {
  static MUctx_st primary{0};
  return &primary;
}
}  // namespace drv
}  // namespace musaport

inline MUresult muInit(unsigned int) { return MUSA_SUCCESS; }
inline MUresult muDriverGetVersion(int* version) {
  if (version == nullptr) return MUSA_ERROR_INVALID_VALUE;
  *version = MUSA_COMP_VERSION;
  return MUSA_SUCCESS;
}
inline MUresult muDeviceGetCount(int* count) {
  if (count == nullptr) return MUSA_ERROR_INVALID_VALUE;
  *count = 1;
  return MUSA_SUCCESS;
}
inline MUresult muDeviceGet(MUdevice* device, int ordinal) {
  if (device == nullptr) return MUSA_ERROR_INVALID_VALUE;
  if (ordinal != 0) return MUSA_ERROR_INVALID_DEVICE;
  *device = 0;
  return MUSA_SUCCESS;
}
inline MUresult muDeviceGetName(char* name, int length, MUdevice device) {
  if (name == nullptr || length <= 0) return MUSA_ERROR_INVALID_VALUE;
  if (device != 0) return MUSA_ERROR_INVALID_DEVICE;
  std::strncpy(name, "musaport CPU emulator", static_cast<size_t>(length) - 1);
  name[length - 1] = '\0';
  return MUSA_SUCCESS;
}
inline MUresult muDeviceGetAttribute(int* value, MUdevice_attribute attr, MUdevice device) {
  // The driver attribute numbers equal the runtime ones.
  return musaDeviceGetAttribute(value, static_cast<musaDeviceAttr>(attr), device) == musaSuccess
             ? MUSA_SUCCESS
             : MUSA_ERROR_INVALID_VALUE;
}
inline MUresult muDevicePrimaryCtxRetain(MUcontext* ctx, MUdevice device) {
  if (ctx == nullptr) return MUSA_ERROR_INVALID_VALUE;
  if (device != 0) return MUSA_ERROR_INVALID_DEVICE;
  *ctx = musaport::drv::primary_context();
  return MUSA_SUCCESS;
}
inline MUresult muDevicePrimaryCtxRelease(MUdevice) { return MUSA_SUCCESS; }
// The host device's primary context exists from the start: always active, default flags.
inline MUresult muDevicePrimaryCtxGetState(MUdevice device, unsigned int* flags, int* active) {
  if (flags == nullptr || active == nullptr) return MUSA_ERROR_INVALID_VALUE;
  if (device != 0) return MUSA_ERROR_INVALID_DEVICE;
  *flags = 0;
  *active = 1;
  return MUSA_SUCCESS;
}
inline MUresult muCtxGetCurrent(MUcontext* ctx) {
  if (ctx == nullptr) return MUSA_ERROR_INVALID_VALUE;
  *ctx = musaport::drv::current_context();
  return MUSA_SUCCESS;
}
inline MUresult muCtxSetCurrent(MUcontext ctx) {
  musaport::drv::current_context() = ctx;
  return MUSA_SUCCESS;
}
inline MUresult muCtxGetDevice(MUdevice* device) {
  if (device == nullptr) return MUSA_ERROR_INVALID_VALUE;
  *device = 0;
  return MUSA_SUCCESS;
}
inline MUresult muCtxSynchronize() { return MUSA_SUCCESS; }
inline MUresult muGetErrorName(MUresult error, const char** name) {
  if (name == nullptr) return MUSA_ERROR_INVALID_VALUE;
  switch (error) {
    case MUSA_SUCCESS: *name = "MUSA_SUCCESS"; break;
    case MUSA_ERROR_INVALID_VALUE: *name = "MUSA_ERROR_INVALID_VALUE"; break;
    case MUSA_ERROR_OUT_OF_MEMORY: *name = "MUSA_ERROR_OUT_OF_MEMORY"; break;
    case MUSA_ERROR_NOT_INITIALIZED: *name = "MUSA_ERROR_NOT_INITIALIZED"; break;
    case MUSA_ERROR_INVALID_DEVICE: *name = "MUSA_ERROR_INVALID_DEVICE"; break;
    case MUSA_ERROR_INVALID_HANDLE: *name = "MUSA_ERROR_INVALID_HANDLE"; break;
    case MUSA_ERROR_NOT_SUPPORTED: *name = "MUSA_ERROR_NOT_SUPPORTED"; break;
    default: *name = "MUSA_ERROR_UNKNOWN"; break;
  }
  return MUSA_SUCCESS;
}
inline MUresult muGetErrorString(MUresult error, const char** text) {
  if (text == nullptr) return MUSA_ERROR_INVALID_VALUE;
  *text = error == MUSA_SUCCESS ? "no error" : "error reported by the musaport driver shim";
  return MUSA_SUCCESS;
}

// The toolkit's version as musa.h gives it to every program: an extension built with torch_musa's
// MUSAExtension tests it where its CUDA code tested CUDA_VERSION (MUSA_COMP_VERSION is defined only by
// torch_musa's own CMake build).
#ifndef MUSA_VERSION
#define MUSA_VERSION MUSA_COMP_VERSION
#endif
