// musaport shim: <muComplex.h>, the single and double precision complex types
// the MUSA math libraries take (two floats or two doubles, real part first,
// layout-compatible with std::complex and c10::complex).
#pragma once

#include "musaport_shim/config.h"
#include "musaport_shim/vector_types.h"

typedef float2 muFloatComplex;
typedef double2 muDoubleComplex;
typedef muFloatComplex muComplex;

MUSAPORT_HD_INLINE float muCrealf(muFloatComplex z) { return z.x; }
MUSAPORT_HD_INLINE float muCimagf(muFloatComplex z) { return z.y; }
MUSAPORT_HD_INLINE muFloatComplex make_muFloatComplex(float re, float im) { return make_float2(re, im); }
MUSAPORT_HD_INLINE muComplex make_muComplex(float re, float im) { return make_float2(re, im); }
MUSAPORT_HD_INLINE double muCreal(muDoubleComplex z) { return z.x; }
MUSAPORT_HD_INLINE double muCimag(muDoubleComplex z) { return z.y; }
MUSAPORT_HD_INLINE muDoubleComplex make_muDoubleComplex(double re, double im) { return make_double2(re, im); }
