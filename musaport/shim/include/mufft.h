// musaport shim: <mufft.h>, muFFT's plan API computed on the CPU.
//
// A plan is a handle into a table; executing it runs a direct DFT per
// dimension (separable, every sum accumulated in double), so results are
// exact to double rounding and then rounded once to the output type.  Plans
// cover what the toolkit's do for ranks 1..3: complex-to-complex,
// real-to-complex and complex-to-real, in half, float and double, batched,
// with the advanced data layout (inembed/istride/idist, onembed/...).
// Transforms are unnormalized, as the library's are.  Complex-to-real reads
// its input as the half spectrum of a Hermitian signal: the imaginary parts
// of the DC and (even lengths) Nyquist bins are ignored.  Streams are
// synchronous in the shim, so a transform is done when its call returns.
// Anything outside that (rank 0 or > 3, mixed precisions, ...) returns an
// error status; nothing is computed then.
#pragma once

#include <math.h>
#include <stddef.h>

#include <map>
#include <mutex>
#include <vector>

#include "library_types.h"
#include "musa_fp16.h"
#include "musa_runtime_api.h"

typedef enum mufftResult_t {
  MUFFT_SUCCESS = 0,
  MUFFT_INVALID_PLAN = 1,
  MUFFT_ALLOC_FAILED = 2,
  MUFFT_INVALID_TYPE = 3,
  MUFFT_INVALID_VALUE = 4,
  MUFFT_INTERNAL_ERROR = 5,
  MUFFT_EXEC_FAILED = 6,
  MUFFT_SETUP_FAILED = 7,
  MUFFT_INVALID_SIZE = 8,
  MUFFT_UNALIGNED_DATA = 9,
  MUFFT_INCOMPLETE_PARAMETER_LIST = 10,
  MUFFT_INVALID_DEVICE = 11,
  MUFFT_PARSE_ERROR = 12,
  MUFFT_NO_WORKSPACE = 13,
  MUFFT_NOT_IMPLEMENTED = 14,
  MUFFT_LICENSE_ERROR = 15,
  MUFFT_NOT_SUPPORTED = 16
} mufftResult;

typedef enum mufftType_t {
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

enum class Kind { C2C, R2C, C2R };

struct Plan {
  bool made = false;
  int rank = 0;
  long long n[3] = {1, 1, 1};
  long long inembed[3] = {1, 1, 1};  // storage sizes; [0] is not used for addressing
  long long onembed[3] = {1, 1, 1};
  long long istride = 1, idist = 1, ostride = 1, odist = 1;
  long long batch = 1;
  Kind kind = Kind::C2C;
  musaDataType itype = MUSA_C_32F, otype = MUSA_C_32F, etype = MUSA_C_32F;
  musaStream_t stream = nullptr;
  int auto_allocate = 1;
  void* work_area = nullptr;
};

// Never destroyed: a plan cache that is itself a static object (PyTorch's) may
// destroy its plans after this table would have been, at exit.
inline std::mutex& plans_mutex() {
  static std::mutex* m = new std::mutex;
  return *m;
}
inline std::map<int, Plan>& plans() {
  static std::map<int, Plan>* all = new std::map<int, Plan>;
  return *all;
}
inline Plan* find(mufftHandle h) {
  auto it = plans().find(h);
  return it == plans().end() ? nullptr : &it->second;
}
inline int new_handle() {  // call with plans_mutex() held
  static int next = 1;
  const int h = next++;
  plans()[h] = Plan{};
  return h;
}

struct cd {  // complex double; std::complex is avoided for clang's CUDA mode
  double re, im;
};

// The precision a musaDataType computes in, and whether it is complex.
inline bool type_info(musaDataType t, int* bits, bool* is_complex) {
  switch (t) {
    case MUSA_R_16F: *bits = 16; *is_complex = false; return true;
    case MUSA_R_32F: *bits = 32; *is_complex = false; return true;
    case MUSA_R_64F: *bits = 64; *is_complex = false; return true;
    case MUSA_C_16F: *bits = 16; *is_complex = true; return true;
    case MUSA_C_32F: *bits = 32; *is_complex = true; return true;
    case MUSA_C_64F: *bits = 64; *is_complex = true; return true;
    default: return false;
  }
}

// Element i (in elements of type t, complex counted as one) of base.
inline cd load(const void* base, long long i, musaDataType t) {
  switch (t) {
    case MUSA_R_16F: return {__half2float(static_cast<const __half*>(base)[i]), 0.0};
    case MUSA_R_32F: return {static_cast<const float*>(base)[i], 0.0};
    case MUSA_R_64F: return {static_cast<const double*>(base)[i], 0.0};
    case MUSA_C_16F: {
      const __half* p = static_cast<const __half*>(base) + 2 * i;
      return {__half2float(p[0]), __half2float(p[1])};
    }
    case MUSA_C_32F: {
      const float* p = static_cast<const float*>(base) + 2 * i;
      return {p[0], p[1]};
    }
    default: {
      const double* p = static_cast<const double*>(base) + 2 * i;
      return {p[0], p[1]};
    }
  }
}
inline void store(void* base, long long i, musaDataType t, cd v) {
  switch (t) {
    case MUSA_R_16F: static_cast<__half*>(base)[i] = __float2half(static_cast<float>(v.re)); break;
    case MUSA_R_32F: static_cast<float*>(base)[i] = static_cast<float>(v.re); break;
    case MUSA_R_64F: static_cast<double*>(base)[i] = v.re; break;
    case MUSA_C_16F: {
      __half* p = static_cast<__half*>(base) + 2 * i;
      p[0] = __float2half(static_cast<float>(v.re));
      p[1] = __float2half(static_cast<float>(v.im));
      break;
    }
    case MUSA_C_32F: {
      float* p = static_cast<float*>(base) + 2 * i;
      p[0] = static_cast<float>(v.re);
      p[1] = static_cast<float>(v.im);
      break;
    }
    default: {
      double* p = static_cast<double*>(base) + 2 * i;
      p[0] = v.re;
      p[1] = v.im;
      break;
    }
  }
}

// exp(sign * 2 pi i t / n) for t in [0, n).
inline std::vector<cd> twiddles(long long n, int sign) {
  std::vector<cd> w(static_cast<size_t>(n));
  for (long long t = 0; t < n; ++t) {
    const double a = 6.283185307179586476925 * static_cast<double>(t) / static_cast<double>(n);
    w[static_cast<size_t>(t)] = {cos(a), sign * sin(a)};
  }
  return w;
}

// Along axis `axis` of a row-major buffer of shape `shape` (rank r), replace
// each line of length n = shape[axis] by its first `out_len` DFT outputs
// out[k] = sum_j in[j] exp(sign 2 pi i jk / n).  Returns the new buffer;
// shape[axis] becomes out_len.
inline std::vector<cd> dft_axis(const std::vector<cd>& in, long long* shape, int r, int axis, long long out_len,
                                int sign) {
  long long outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= shape[d];
  for (int d = axis + 1; d < r; ++d) inner *= shape[d];
  const long long n = shape[axis];
  const std::vector<cd> w = twiddles(n, sign);
  std::vector<cd> out(static_cast<size_t>(outer * out_len * inner));
  for (long long o = 0; o < outer; ++o) {
    for (long long q = 0; q < inner; ++q) {
      const cd* src = in.data() + o * n * inner + q;
      cd* dst = out.data() + o * out_len * inner + q;
      for (long long k = 0; k < out_len; ++k) {
        double re = 0.0, im = 0.0;
        long long t = 0;  // j * k mod n, kept by adding k each step
        for (long long j = 0; j < n; ++j) {
          const cd x = src[j * inner];
          const cd c = w[static_cast<size_t>(t)];
          re += x.re * c.re - x.im * c.im;
          im += x.re * c.im + x.im * c.re;
          t += k;
          if (t >= n) t %= n;
        }
        dst[k * inner] = {re, im};
      }
    }
  }
  shape[axis] = out_len;
  return out;
}

// The complex-to-real inverse along the last axis: each line holds bins
// 0..m-1 (m = n/2 + 1) of a Hermitian spectrum of length n; the result is
// x[j] = sum over all n bins of X[k] exp(+2 pi i jk / n), bins above n/2
// being the conjugates of those below.  The imaginary parts of bin 0 and,
// for even n, bin n/2 do not enter (they would be zero in a Hermitian
// spectrum); the output's imaginary parts are zero.
inline std::vector<cd> c2r_last_axis(const std::vector<cd>& in, long long* shape, int r, long long n) {
  long long outer = 1;
  for (int d = 0; d < r - 1; ++d) outer *= shape[d];
  const long long m = shape[r - 1];
  const std::vector<cd> w = twiddles(n, +1);
  const long long last_pair = (n % 2 == 0) ? n / 2 - 1 : n / 2;  // bins with a distinct conjugate partner
  std::vector<cd> out(static_cast<size_t>(outer * n));
  for (long long o = 0; o < outer; ++o) {
    const cd* src = in.data() + o * m;
    cd* dst = out.data() + o * n;
    for (long long j = 0; j < n; ++j) {
      double acc = src[0].re;
      long long t = 0;
      for (long long k = 1; k <= last_pair; ++k) {
        t += j;
        if (t >= n) t %= n;
        const cd c = w[static_cast<size_t>(t)];
        acc += 2.0 * (src[k].re * c.re - src[k].im * c.im);
      }
      if (n % 2 == 0) acc += (j % 2 == 0 ? 1.0 : -1.0) * src[n / 2].re;
      dst[j] = {acc, 0.0};
    }
  }
  shape[r - 1] = n;
  return out;
}

// Offset, in elements, of logical index idx[0..r-1] in a layout with storage
// sizes embed (embed[0] unused) and element stride `stride`.
inline long long offset(const long long* idx, const long long* embed, int r, long long stride) {
  long long off = 0;
  for (int d = 0; d < r; ++d) off = off * (d == 0 ? 1 : embed[d]) + idx[d];
  return off * stride;
}

// Whether a layout's embeds make two elements of one signal share storage. cuFFT's address of an element
// is ((x0 * embed[1] + x1) * embed[2] + x2) * stride, so the pitch of dimension k is the product of the
// embeds after it, and an embed may be smaller than its dimension where the dimensions before it have
// size 1: PyTorch's plans (CuFFTPlanCache.h) give the pitch of a size-1 dimension an embed of 1 whatever
// the next dimension's size, and cuFFT takes them. Dimensions of size 1 never vary, so they do not count.
inline bool overlapping(const long long* shape, const long long* embed, int rank) {
  long long pitch = 1, extent = 1;  // extent: the elements spanned by the varying dimensions after k
  for (int k = rank - 1; k >= 0; --k) {
    if (shape[k] > 1) {
      if (pitch < extent) return true;
      extent += pitch * (shape[k] - 1);
    }
    if (k > 0) pitch *= embed[k];
  }
  return false;
}

inline mufftResult execute(const Plan& p, const void* input, void* output, int direction) {
  if (!p.made) return MUFFT_INVALID_PLAN;
  if (input == nullptr || output == nullptr) return MUFFT_INVALID_VALUE;
  int sign;
  if (p.kind == Kind::R2C) {
    sign = MUFFT_FORWARD;
  } else if (p.kind == Kind::C2R) {
    sign = MUFFT_INVERSE;
  } else if (direction == MUFFT_FORWARD || direction == MUFFT_INVERSE) {
    sign = direction;
  } else {
    return MUFFT_INVALID_VALUE;
  }
  const int r = p.rank;
  const long long half = p.n[r - 1] / 2 + 1;
  long long ishape[3], oshape[3];
  long long isize = 1, osize = 1;
  for (int d = 0; d < r; ++d) {
    ishape[d] = (p.kind == Kind::C2R && d == r - 1) ? half : p.n[d];
    oshape[d] = (p.kind == Kind::R2C && d == r - 1) ? half : p.n[d];
    isize *= ishape[d];
    osize *= oshape[d];
  }
  // Read every batch before writing any output: in-place plans are allowed.
  std::vector<std::vector<cd>> data(static_cast<size_t>(p.batch));
  long long idx[3];
  for (long long b = 0; b < p.batch; ++b) {
    std::vector<cd>& buf = data[static_cast<size_t>(b)];
    buf.resize(static_cast<size_t>(isize));
    for (long long e = 0; e < isize; ++e) {
      long long rest = e;
      for (int d = r - 1; d >= 0; --d) {
        idx[d] = rest % ishape[d];
        rest /= ishape[d];
      }
      buf[static_cast<size_t>(e)] = load(input, b * p.idist + offset(idx, p.inembed, r, p.istride), p.itype);
    }
  }
  for (long long b = 0; b < p.batch; ++b) {
    std::vector<cd>& buf = data[static_cast<size_t>(b)];
    long long shape[3] = {ishape[0], r > 1 ? ishape[1] : 1, r > 2 ? ishape[2] : 1};
    if (p.kind == Kind::R2C) {
      buf = dft_axis(buf, shape, r, r - 1, half, sign);
      for (int d = 0; d < r - 1; ++d) buf = dft_axis(buf, shape, r, d, shape[d], sign);
    } else if (p.kind == Kind::C2R) {
      for (int d = 0; d < r - 1; ++d) buf = dft_axis(buf, shape, r, d, shape[d], sign);
      buf = c2r_last_axis(buf, shape, r, p.n[r - 1]);
    } else {
      for (int d = 0; d < r; ++d) buf = dft_axis(buf, shape, r, d, shape[d], sign);
    }
    for (long long e = 0; e < osize; ++e) {
      long long rest = e;
      for (int d = r - 1; d >= 0; --d) {
        idx[d] = rest % oshape[d];
        rest /= oshape[d];
      }
      store(output, b * p.odist + offset(idx, p.onembed, r, p.ostride), p.otype, buf[static_cast<size_t>(e)]);
    }
  }
  return MUFFT_SUCCESS;
}

// Fills plan h; the checks mirror the library's statuses.  A null inembed or
// onembed selects the basic layout (unit stride, tightly packed batches) and
// the other layout arguments of that side are ignored.
inline mufftResult make_plan(mufftHandle h, int rank, const long long* n, const long long* inembed,
                             long long istride, long long idist, musaDataType itype, const long long* onembed,
                             long long ostride, long long odist, musaDataType otype, long long batch,
                             size_t* work_size, musaDataType etype) {
  if (rank < 1 || rank > 3 || n == nullptr || batch < 1) return MUFFT_INVALID_SIZE;
  for (int d = 0; d < rank; ++d)
    if (n[d] < 1) return MUFFT_INVALID_SIZE;
  int ibits, obits, ebits;
  bool icx, ocx, ecx;
  if (!type_info(itype, &ibits, &icx) || !type_info(otype, &obits, &ocx) || !type_info(etype, &ebits, &ecx))
    return MUFFT_INVALID_TYPE;
  if (!ecx || ibits != ebits || obits != ebits || (!icx && !ocx)) return MUFFT_INVALID_TYPE;
  Plan p;
  p.kind = icx && ocx ? Kind::C2C : (icx ? Kind::C2R : Kind::R2C);
  p.rank = rank;
  p.batch = batch;
  p.itype = itype;
  p.otype = otype;
  p.etype = etype;
  long long ilen = 1, olen = 1;
  for (int d = 0; d < rank; ++d) {
    p.n[d] = n[d];
    const long long last = n[d] / 2 + 1;
    p.inembed[d] = (p.kind == Kind::C2R && d == rank - 1) ? last : n[d];
    p.onembed[d] = (p.kind == Kind::R2C && d == rank - 1) ? last : n[d];
    ilen *= p.inembed[d];
    olen *= p.onembed[d];
  }
  if (inembed != nullptr) {
    if (istride < 1 || idist < 0) return MUFFT_INVALID_VALUE;
    long long shape[3];
    for (int d = 0; d < rank; ++d) shape[d] = p.inembed[d];
    for (int d = 1; d < rank; ++d) {
      if (inembed[d] < 1) return MUFFT_INVALID_VALUE;
      p.inembed[d] = inembed[d];
    }
    if (overlapping(shape, p.inembed, rank)) return MUFFT_INVALID_VALUE;
    p.istride = istride;
    p.idist = idist;
  } else {
    p.idist = ilen;
  }
  if (onembed != nullptr) {
    if (ostride < 1 || odist < 0) return MUFFT_INVALID_VALUE;
    long long shape[3];
    for (int d = 0; d < rank; ++d) shape[d] = p.onembed[d];
    for (int d = 1; d < rank; ++d) {
      if (onembed[d] < 1) return MUFFT_INVALID_VALUE;
      p.onembed[d] = onembed[d];
    }
    if (overlapping(shape, p.onembed, rank)) return MUFFT_INVALID_VALUE;
    p.ostride = ostride;
    p.odist = odist;
  } else {
    p.odist = olen;
  }
  std::lock_guard<std::mutex> lock(plans_mutex());
  Plan* slot = find(h);
  if (slot == nullptr || slot->made) return MUFFT_INVALID_PLAN;
  p.stream = slot->stream;
  p.auto_allocate = slot->auto_allocate;
  p.work_area = slot->work_area;
  p.made = true;
  *slot = p;
  if (work_size != nullptr) *work_size = 0;  // the CPU transform needs no work area
  return MUFFT_SUCCESS;
}

inline mufftResult exec(mufftHandle h, const void* in, void* out, int direction, musaDataType itype,
                        musaDataType otype) {
  Plan plan;
  {
    std::lock_guard<std::mutex> lock(plans_mutex());
    Plan* p = find(h);
    if (p == nullptr) return MUFFT_INVALID_PLAN;
    plan = *p;
  }
  if (!plan.made) return MUFFT_INVALID_PLAN;
  if (plan.itype != itype || plan.otype != otype) return MUFFT_INVALID_TYPE;
  return execute(plan, in, out, direction);
}

inline bool legacy_types(mufftType type, musaDataType* itype, musaDataType* otype) {
  switch (type) {
    case MUFFT_C2C: *itype = MUSA_C_32F; *otype = MUSA_C_32F; return true;
    case MUFFT_R2C: *itype = MUSA_R_32F; *otype = MUSA_C_32F; return true;
    case MUFFT_C2R: *itype = MUSA_C_32F; *otype = MUSA_R_32F; return true;
    case MUFFT_Z2Z: *itype = MUSA_C_64F; *otype = MUSA_C_64F; return true;
    case MUFFT_D2Z: *itype = MUSA_R_64F; *otype = MUSA_C_64F; return true;
    case MUFFT_Z2D: *itype = MUSA_C_64F; *otype = MUSA_R_64F; return true;
    default: return false;
  }
}

}  // namespace fft
}  // namespace musaport

inline mufftResult mufftCreate(mufftHandle* plan) {
  if (plan == nullptr) return MUFFT_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(musaport::fft::plans_mutex());
  *plan = musaport::fft::new_handle();
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
inline mufftResult mufftSetAutoAllocation(mufftHandle plan, int autoAllocate) {
  std::lock_guard<std::mutex> lock(musaport::fft::plans_mutex());
  musaport::fft::Plan* p = musaport::fft::find(plan);
  if (p == nullptr) return MUFFT_INVALID_PLAN;
  p->auto_allocate = autoAllocate;
  return MUFFT_SUCCESS;
}
inline mufftResult mufftSetWorkArea(mufftHandle plan, void* workArea) {
  std::lock_guard<std::mutex> lock(musaport::fft::plans_mutex());
  musaport::fft::Plan* p = musaport::fft::find(plan);
  if (p == nullptr) return MUFFT_INVALID_PLAN;
  p->work_area = workArea;  // never read: the CPU transform needs none
  return MUFFT_SUCCESS;
}
inline mufftResult mufftGetSize(mufftHandle plan, size_t* workSize) {
  if (workSize == nullptr) return MUFFT_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(musaport::fft::plans_mutex());
  if (musaport::fft::find(plan) == nullptr) return MUFFT_INVALID_PLAN;
  *workSize = 0;
  return MUFFT_SUCCESS;
}

inline mufftResult mufftMakePlanMany64(mufftHandle plan, int rank, long long int* n, long long int* inembed,
                                       long long int istride, long long int idist, long long int* onembed,
                                       long long int ostride, long long int odist, mufftType type,
                                       long long int batch, size_t* workSize) {
  musaDataType itype, otype;
  if (!musaport::fft::legacy_types(type, &itype, &otype)) return MUFFT_INVALID_TYPE;
  return musaport::fft::make_plan(plan, rank, n, inembed, istride, idist, itype, onembed, ostride, odist, otype,
                                  batch, workSize, itype == MUSA_C_64F || otype == MUSA_C_64F ? MUSA_C_64F
                                                                                                : MUSA_C_32F);
}
inline mufftResult mufftPlanMany(mufftHandle* plan, int rank, int* n, int* inembed, int istride, int idist,
                                 int* onembed, int ostride, int odist, mufftType type, int batch) {
  if (plan == nullptr || n == nullptr || rank < 1 || rank > 3) return MUFFT_INVALID_SIZE;
  long long n64[3], in64[3], on64[3];
  for (int d = 0; d < rank; ++d) {
    n64[d] = n[d];
    in64[d] = inembed != nullptr ? inembed[d] : 0;
    on64[d] = onembed != nullptr ? onembed[d] : 0;
  }
  mufftResult status = mufftCreate(plan);
  if (status != MUFFT_SUCCESS) return status;
  status = mufftMakePlanMany64(*plan, rank, n64, inembed != nullptr ? in64 : nullptr, istride, idist,
                               onembed != nullptr ? on64 : nullptr, ostride, odist, type, batch, nullptr);
  if (status != MUFFT_SUCCESS) mufftDestroy(*plan);
  return status;
}
inline mufftResult mufftPlan1d(mufftHandle* plan, int nx, mufftType type, int batch) {
  int n[1] = {nx};
  return mufftPlanMany(plan, 1, n, nullptr, 1, 0, nullptr, 1, 0, type, batch);
}
inline mufftResult mufftPlan2d(mufftHandle* plan, int nx, int ny, mufftType type) {
  int n[2] = {nx, ny};
  return mufftPlanMany(plan, 2, n, nullptr, 1, 0, nullptr, 1, 0, type, 1);
}
inline mufftResult mufftPlan3d(mufftHandle* plan, int nx, int ny, int nz, mufftType type) {
  int n[3] = {nx, ny, nz};
  return mufftPlanMany(plan, 3, n, nullptr, 1, 0, nullptr, 1, 0, type, 1);
}

inline mufftResult mufftExecC2C(mufftHandle plan, mufftComplex* in, mufftComplex* out, int direction) {
  return musaport::fft::exec(plan, in, out, direction, MUSA_C_32F, MUSA_C_32F);
}
inline mufftResult mufftExecZ2Z(mufftHandle plan, mufftDoubleComplex* in, mufftDoubleComplex* out, int direction) {
  return musaport::fft::exec(plan, in, out, direction, MUSA_C_64F, MUSA_C_64F);
}
inline mufftResult mufftExecR2C(mufftHandle plan, mufftReal* in, mufftComplex* out) {
  return musaport::fft::exec(plan, in, out, MUFFT_FORWARD, MUSA_R_32F, MUSA_C_32F);
}
inline mufftResult mufftExecC2R(mufftHandle plan, mufftComplex* in, mufftReal* out) {
  return musaport::fft::exec(plan, in, out, MUFFT_INVERSE, MUSA_C_32F, MUSA_R_32F);
}
inline mufftResult mufftExecD2Z(mufftHandle plan, mufftDoubleReal* in, mufftDoubleComplex* out) {
  return musaport::fft::exec(plan, in, out, MUFFT_FORWARD, MUSA_R_64F, MUSA_C_64F);
}
inline mufftResult mufftExecZ2D(mufftHandle plan, mufftDoubleComplex* in, mufftDoubleReal* out) {
  return musaport::fft::exec(plan, in, out, MUFFT_INVERSE, MUSA_C_64F, MUSA_R_64F);
}
