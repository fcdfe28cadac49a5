// musaport shim: <muComplex.h>, the complex types of the MUSA math libraries.
// muFloatComplex is float2 and muDoubleComplex is double2 (the GPU ABI's
// layout: real part first, then imaginary), so a std::complex or
// c10::complex array may be passed by reinterpret_cast, as PyTorch does.
#pragma once

#include "musaport_shim/config.h"
#include "musaport_shim/vector_types.h"

#ifndef MUSAPORT_SHIM_MUCOMPLEX_TYPES
#define MUSAPORT_SHIM_MUCOMPLEX_TYPES
typedef float2 muFloatComplex;
typedef double2 muDoubleComplex;
typedef muFloatComplex muComplex;
#endif

MUSAPORT_HD_INLINE float muCrealf(muFloatComplex x) { return x.x; }
MUSAPORT_HD_INLINE float muCimagf(muFloatComplex x) { return x.y; }
MUSAPORT_HD_INLINE muFloatComplex make_muFloatComplex(float r, float i) { return muFloatComplex{r, i}; }
MUSAPORT_HD_INLINE muComplex make_muComplex(float r, float i) { return muComplex{r, i}; }
MUSAPORT_HD_INLINE muFloatComplex muConjf(muFloatComplex x) { return muFloatComplex{x.x, -x.y}; }
MUSAPORT_HD_INLINE double muCreal(muDoubleComplex x) { return x.x; }
MUSAPORT_HD_INLINE double muCimag(muDoubleComplex x) { return x.y; }
MUSAPORT_HD_INLINE muDoubleComplex make_muDoubleComplex(double r, double i) { return muDoubleComplex{r, i}; }
MUSAPORT_HD_INLINE muDoubleComplex muConj(muDoubleComplex x) { return muDoubleComplex{x.x, -x.y}; }
