// musaport shim: <cub/version.cuh>.  The shim's cub declares the interface
// of cub 2.2 that ported code uses (see cub/cub.cuh).
#pragma once

#define CUB_VERSION 200200
#define CUB_MAJOR_VERSION (CUB_VERSION / 100000)
#define CUB_MINOR_VERSION (CUB_VERSION / 100 % 1000)
#define CUB_SUBMINOR_VERSION (CUB_VERSION % 100)
#define CUB_PATCH_NUMBER 0
