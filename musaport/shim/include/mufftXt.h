// musaport shim: <mufftXt.h>, muFFT's extended API: plans whose input,
// output and execution types are musaDataType values (64-bit sizes), and
// their type-agnostic execution.  Computed on the CPU by mufft.h's plans.
#pragma once

#include "library_types.h"
#include "mufft.h"

// rank 1..3; n, inembed, onembed hold `rank` sizes (embed[0] is not used for
// addressing); a null inembed/onembed selects the basic layout for that side.
// itype/otype/executiontype: MUSA_{C,R}_{16F,32F,64F} of one precision, with
// executiontype complex: C->C, R->C (forward) or C->R (inverse).
inline mufftResult mufftXtMakePlanMany(mufftHandle plan, int rank, long long int* n, long long int* inembed,
                                       long long int istride, long long int idist, musaDataType inputtype,
                                       long long int* onembed, long long int ostride, long long int odist,
                                       musaDataType outputtype, long long int batch, size_t* workSize,
                                       musaDataType executiontype) {
  return musaport::fft::make_plan(plan, rank, n, inembed, istride, idist, inputtype, onembed, ostride, odist,
                                  outputtype, batch, workSize, executiontype);
}

// direction (MUFFT_FORWARD or MUFFT_INVERSE) is read for complex-to-complex
// plans only; real-to-complex is forward and complex-to-real inverse.
inline mufftResult mufftXtExec(mufftHandle plan, void* input, void* output, int direction) {
  musaport::fft::Plan p;
  {
    std::lock_guard<std::mutex> lock(musaport::fft::plans_mutex());
    musaport::fft::Plan* found = musaport::fft::find(plan);
    if (found == nullptr) return MUFFT_INVALID_PLAN;
    p = *found;
  }
  return musaport::fft::execute(p, input, output, direction);
}
