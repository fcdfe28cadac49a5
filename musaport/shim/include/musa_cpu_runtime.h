// musaport shim: the CPU execution runtime (CPU mode only).
//
// Runs ported kernels on the host: grids block by block, each block's threads
// as cooperative fibers, with per-block shared memory, warp operations and
// atomics.  Included by musa_runtime.h when the compiler is not clang in CUDA
// mode; see musaport/shim/README.md for the design.
#pragma once

#include "musaport_shim/config.h"

#if MUSAPORT_CPU
#include "musaport_shim/cpu/fiber.h"
#include "musaport_shim/cpu/block.h"
#include "musaport_shim/cpu/launch.h"
#include "musaport_shim/cpu/device_functions.h"
#endif
