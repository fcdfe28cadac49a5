// musaport shim: <cub/util_arch.cuh>: CUB_RUNTIME_FUNCTION and CUB_PTX_ARCH.
#pragma once

#include <musaport_shim/config.h>

#define CUB_RUNTIME_FUNCTION MUSAPORT_HD
#define CUB_PTX_ARCH 700
