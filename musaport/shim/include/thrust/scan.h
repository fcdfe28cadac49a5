// musaport shim: <thrust/scan.h> (see musaport_shim/thrust_algorithms.h).
#pragma once
#include <musaport_shim/thrust_algorithms.h>
