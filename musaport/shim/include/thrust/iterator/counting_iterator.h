// musaport shim: <thrust/iterator/counting_iterator.h> (see musaport_shim/thrust_core.h).
#pragma once
#include <musaport_shim/thrust_core.h>
