// musaport shim: <cub/util_arch.cuh>: CUB_RUNTIME_FUNCTION, CUB_PTX_ARCH and the
// warp and shared-memory-bank widths cub names by macro (CUB_WARP_THREADS(0)...).
#pragma once

#include <musaport_shim/config.h>

#define CUB_RUNTIME_FUNCTION MUSAPORT_HD
#define CUB_PTX_ARCH 700

// A warp is 32 threads (warpSize, and the CPU runtime's warps); shared memory has 32 banks.  The
// argument is cub's unused architecture.
#ifndef CUB_LOG_WARP_THREADS
#define CUB_LOG_WARP_THREADS(unused) (5)
#define CUB_WARP_THREADS(unused) (1 << CUB_LOG_WARP_THREADS(0))
#define CUB_PTX_WARP_THREADS CUB_WARP_THREADS(0)
#define CUB_PTX_LOG_WARP_THREADS CUB_LOG_WARP_THREADS(0)
#endif
#ifndef CUB_LOG_SMEM_BANKS
#define CUB_LOG_SMEM_BANKS(unused) (5)
#define CUB_SMEM_BANKS(unused) (1 << CUB_LOG_SMEM_BANKS(0))
#define CUB_PTX_LOG_SMEM_BANKS CUB_LOG_SMEM_BANKS(0)
#define CUB_PTX_SMEM_BANKS CUB_SMEM_BANKS(0)
#endif
