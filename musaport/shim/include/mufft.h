// musaport shim: muFFT plans with a naive O(n^2) complex-to-complex DFT
// (1-D, batched); the other transform types report MUFFT_NOT_IMPLEMENTED.
#pragma once

#include <math.h>

#include <vector>

#include "musa_runtime_api.h"

typedef enum {
  MUFFT_SUCCESS = 0,
  MUFFT_INVALID_PLAN = 1,
  MUFFT_ALLOC_FAILED = 2,
  MUFFT_INVALID_TYPE = 3,
  MUFFT_INVALID_VALUE = 4,
  MUFFT_INTERNAL_ERROR = 5,
  MUFFT_EXEC_FAILED = 6,
  MUFFT_SETUP_FAILED = 7,
  MUFFT_INVALID_SIZE = 8,
  MUFFT_NOT_IMPLEMENTED = 14,
  MUFFT_NOT_SUPPORTED = 16
} mufftResult;

typedef enum {
  MUFFT_R2C = 0x2a,
  MUFFT_C2R = 0x2c,
  MUFFT_C2C = 0x29,
  MUFFT_D2Z = 0x6a,
  MUFFT_Z2D = 0x6c,
  MUFFT_Z2Z = 0x69
} mufftType;

#define MUFFT_FORWARD -1
#define MUFFT_INVERSE 1

typedef float mufftReal;
typedef double mufftDoubleReal;
typedef float2 mufftComplex;
typedef double2 mufftDoubleComplex;
typedef int mufftHandle;

namespace musaport {
namespace fft {

struct Plan {
  int n = 0;
  int batch = 0;
  mufftType type = MUFFT_C2C;
  musaStream_t stream = nullptr;
  bool live = false;
};

inline std::mutex& plans_mutex() {
  static std::mutex m;
  return m;
}
inline std::map<int, Plan>& plans() {
  static std::map<int, Plan> all;
  return all;
}
inline Plan* find(mufftHandle h) {
  auto it = plans().find(h);
  return it == plans().end() ? nullptr : &it->second;
}

// out[k] = sum_j in[j] exp(sign 2 pi i jk/n), unnormalised like the library.
template <class C, class R>
inline void dft(const C* in, C* out, int n, int sign) {
  std::vector<C> tmp(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) {
    double re = 0.0, im = 0.0;
    for (int j = 0; j < n; ++j) {
      const double angle = sign * 6.283185307179586 * static_cast<double>(static_cast<long long>(j) * k % n) / n;
      re += in[j].x * cos(angle) - in[j].y * sin(angle);
      im += in[j].x * sin(angle) + in[j].y * cos(angle);
    }
    tmp[k].x = static_cast<R>(re);
    tmp[k].y = static_cast<R>(im);
  }
  for (int k = 0; k < n; ++k) out[k] = tmp[k];
}

template <class C, class R>
inline mufftResult exec(mufftHandle h, const C* in, C* out, int direction, mufftType expected) {
  Plan plan;
  {
    std::lock_guard<std::mutex> lock(plans_mutex());
    Plan* p = find(h);
    if (p == nullptr) return MUFFT_INVALID_PLAN;
    plan = *p;
  }
  if (plan.type != expected) return MUFFT_INVALID_TYPE;
  if (direction != MUFFT_FORWARD && direction != MUFFT_INVERSE) return MUFFT_INVALID_VALUE;
  for (int b = 0; b < plan.batch; ++b) dft<C, R>(in + b * plan.n, out + b * plan.n, plan.n, direction);
  return MUFFT_SUCCESS;
}

}  // namespace fft
}  // namespace musaport

inline mufftResult mufftPlan1d(mufftHandle* plan, int nx, mufftType type, int batch) {
  if (plan == nullptr) return MUFFT_INVALID_VALUE;
  if (nx <= 0 || batch <= 0) return MUFFT_INVALID_SIZE;
  std::lock_guard<std::mutex> lock(musaport::fft::plans_mutex());
  static int next = 1;
  *plan = next++;
  musaport::fft::plans()[*plan] = musaport::fft::Plan{nx, batch, type, nullptr, true};
  return MUFFT_SUCCESS;
}
inline mufftResult mufftDestroy(mufftHandle plan) {
  std::lock_guard<std::mutex> lock(musaport::fft::plans_mutex());
  return musaport::fft::plans().erase(plan) ? MUFFT_SUCCESS : MUFFT_INVALID_PLAN;
}
inline mufftResult mufftSetStream(mufftHandle plan, musaStream_t stream) {
  std::lock_guard<std::mutex> lock(musaport::fft::plans_mutex());
  musaport::fft::Plan* p = musaport::fft::find(plan);
  if (p == nullptr) return MUFFT_INVALID_PLAN;
  p->stream = stream;
  return MUFFT_SUCCESS;
}
inline mufftResult mufftExecC2C(mufftHandle plan, mufftComplex* in, mufftComplex* out, int direction) {
  return musaport::fft::exec<mufftComplex, float>(plan, in, out, direction, MUFFT_C2C);
}
inline mufftResult mufftExecZ2Z(mufftHandle plan, mufftDoubleComplex* in, mufftDoubleComplex* out, int direction) {
  return musaport::fft::exec<mufftDoubleComplex, double>(plan, in, out, direction, MUFFT_Z2Z);
}
inline mufftResult mufftExecR2C(mufftHandle, mufftReal*, mufftComplex*) { return MUFFT_NOT_IMPLEMENTED; }
inline mufftResult mufftExecC2R(mufftHandle, mufftComplex*, mufftReal*) { return MUFFT_NOT_IMPLEMENTED; }
inline mufftResult mufftExecD2Z(mufftHandle, mufftDoubleReal*, mufftDoubleComplex*) { return MUFFT_NOT_IMPLEMENTED; }
inline mufftResult mufftExecZ2D(mufftHandle, mufftDoubleComplex*, mufftDoubleReal*) { return MUFFT_NOT_IMPLEMENTED; }
