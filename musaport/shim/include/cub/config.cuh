// musaport shim: <cub/config.cuh>, included first by every cub header of the
// shim: cub's version and macros, and the MUSA runtime the device-wide
// algorithms and the collectives are written against.
#pragma once

#include <cub/util_arch.cuh>
#include <cub/util_macro.cuh>
#include <cub/util_namespace.cuh>
#include <cub/version.cuh>
#include <musa_runtime.h>
#include <musaport_shim/config.h>
