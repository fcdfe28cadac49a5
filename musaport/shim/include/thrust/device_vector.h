// musaport shim: <thrust/device_vector.h> (see musaport_shim/thrust_core.h).
#pragma once
#include <musaport_shim/thrust_core.h>
