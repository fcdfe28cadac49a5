// musaport shim: <thrust/find.h> (see musaport_shim/thrust_algorithms.h).
#pragma once
#include <musaport_shim/thrust_algorithms.h>
