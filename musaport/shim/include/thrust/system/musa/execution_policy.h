// musaport shim: <thrust/system/musa/execution_policy.h>: thrust::musa::par
// and par_nosync (see musaport_shim/thrust_core.h).
#pragma once
#include <musaport_shim/thrust_core.h>
