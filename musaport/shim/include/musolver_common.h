// musaport shim: <musolver_common.h>, what the muSOLVER APIs share: the
// status codes (and the eigen-solver modes).
#pragma once

#include "library_types.h"

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

typedef enum { MUSOLVER_EIG_TYPE_1 = 1, MUSOLVER_EIG_TYPE_2 = 2, MUSOLVER_EIG_TYPE_3 = 3 } musolverEigType_t;
typedef enum { MUSOLVER_EIG_MODE_NOVECTOR = 0, MUSOLVER_EIG_MODE_VECTOR = 1 } musolverEigMode_t;
