// musaport shim: <cub/util_macro.cuh>: CUB_MAX, CUB_MIN.
#pragma once

#define CUB_MAX(a, b) (((b) > (a)) ? (b) : (a))
#define CUB_MIN(a, b) (((b) < (a)) ? (b) : (a))
