// musaport shim: <murand_philox4x32_10.h>, the Philox4x32-10 state and its
// functions, which the shim keeps in murand_kernel.h.
#ifndef MUSAPORT_MURAND_PHILOX4X32_10_H
#define MUSAPORT_MURAND_PHILOX4X32_10_H

#include "murand_kernel.h"

#endif  // MUSAPORT_MURAND_PHILOX4X32_10_H
