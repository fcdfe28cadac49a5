// musaport shim: <murand_philox4x32_10.h>, the Philox4x32-10 state and its
// functions, which the shim keeps in murand_kernel.h.
#pragma once

#include "murand_kernel.h"
