// musaport shim: muSOLVER dense handle management (compile support only).
#pragma once

#include "musa_runtime_api.h"
#include "musolver_common.h"


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
