// musaport shim: profiler control (no profiler behind it: both calls succeed).
#ifndef MUSAPORT_MUSA_PROFILER_API_H
#define MUSAPORT_MUSA_PROFILER_API_H

#include "musa_runtime_api.h"

inline musaError_t musaProfilerStart() { return musaSuccess; }
inline musaError_t musaProfilerStop() { return musaSuccess; }

#endif  // MUSAPORT_MUSA_PROFILER_API_H
