// musaport shim: <musolver_common.h>, what the muSOLVER APIs share: the
// version, the status codes (and the eigen-solver modes).
#pragma once

#include "library_types.h"

// The muSOLVER of the toolkit the shim stands for (MUSART_VERSION 12000): the
// solver library of that release is 11.4.2, spelled major * 1000 + minor * 100
// + patch.  PyTorch's linear algebra picks its code paths by this number
// (>= 11000: the 64-bit X API; >= 11101 / 11102: batched potrf / syevj).
#define MUSOLVER_VER_MAJOR 11
#define MUSOLVER_VER_MINOR 4
#define MUSOLVER_VER_PATCH 2
#define MUSOLVER_VERSION (MUSOLVER_VER_MAJOR * 1000 + MUSOLVER_VER_MINOR * 100 + MUSOLVER_VER_PATCH)

typedef enum {
  MUSOLVER_STATUS_SUCCESS = 0,
  MUSOLVER_STATUS_NOT_INITIALIZED = 1,
  MUSOLVER_STATUS_ALLOC_FAILED = 2,
  MUSOLVER_STATUS_INVALID_VALUE = 3,
  MUSOLVER_STATUS_ARCH_MISMATCH = 4,
  MUSOLVER_STATUS_MAPPING_ERROR = 5,
  MUSOLVER_STATUS_EXECUTION_FAILED = 6,
  MUSOLVER_STATUS_INTERNAL_ERROR = 7,
  MUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED = 8,
  MUSOLVER_STATUS_NOT_SUPPORTED = 15
} musolverStatus_t;

typedef enum { MUSOLVER_EIG_TYPE_1 = 1, MUSOLVER_EIG_TYPE_2 = 2, MUSOLVER_EIG_TYPE_3 = 3 } musolverEigType_t;
typedef enum { MUSOLVER_EIG_MODE_NOVECTOR = 0, MUSOLVER_EIG_MODE_VECTOR = 1 } musolverEigMode_t;
