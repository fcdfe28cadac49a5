// musaport shim: muSOLVER dense handle management (compile support only).
#ifndef MUSAPORT_MUSOLVERDN_H
#define MUSAPORT_MUSOLVERDN_H

#include "musa_runtime_api.h"

typedef enum {
  MUSOLVER_STATUS_SUCCESS = 0,
  MUSOLVER_STATUS_NOT_INITIALIZED = 1,
  MUSOLVER_STATUS_ALLOC_FAILED = 2,
  MUSOLVER_STATUS_INVALID_VALUE = 3,
  MUSOLVER_STATUS_ARCH_MISMATCH = 4,
  MUSOLVER_STATUS_EXECUTION_FAILED = 6,
  MUSOLVER_STATUS_INTERNAL_ERROR = 7,
  MUSOLVER_STATUS_NOT_SUPPORTED = 15
} musolverStatus_t;

struct musolverDnContext {
  musaStream_t stream;
};
typedef struct musolverDnContext* musolverDnHandle_t;

inline musolverStatus_t musolverDnCreate(musolverDnHandle_t* handle) {
  if (handle == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  *handle = new musolverDnContext{nullptr};
  return MUSOLVER_STATUS_SUCCESS;
}
inline musolverStatus_t musolverDnDestroy(musolverDnHandle_t handle) {
  delete handle;
  return MUSOLVER_STATUS_SUCCESS;
}
inline musolverStatus_t musolverDnSetStream(musolverDnHandle_t handle, musaStream_t stream) {
  if (handle == nullptr) return MUSOLVER_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return MUSOLVER_STATUS_SUCCESS;
}
inline musolverStatus_t musolverDnGetStream(musolverDnHandle_t handle, musaStream_t* stream) {
  if (handle == nullptr || stream == nullptr) return MUSOLVER_STATUS_INVALID_VALUE;
  *stream = handle->stream;
  return MUSOLVER_STATUS_SUCCESS;
}

#endif  // MUSAPORT_MUSOLVERDN_H
