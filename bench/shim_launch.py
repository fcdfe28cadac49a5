#!/usr/bin/env python3
"""Benchmark: the CPU runtime's cost per GPU thread, on two kernels shaped as PyTorch's, without a device build.

Builds a shared library (loaded with dlopen, as the musa device is, so its
thread-locals take the dynamic TLS model) holding
  - ``add``: a 1M-element elementwise kernel as PyTorch's ``elementwise_kernel``
    launches it (128 threads a block, 4 elements a thread): barrier-free, so the
    runtime runs its threads as plain calls;
  - ``reduce``: a block reduction through shared memory with ``__syncthreads``
    (256 threads, 64 blocks): the block is promoted to fibers;
  - ``warp_reduce``: ReduceOp's block shape (512 threads, 64 blocks): ``__shfl_down_sync``
    within each warp, one value per warp through shared memory, the last warp's shuffles;
  - ``add_small``: the same add of 16 elements, one block of 128 threads shaped as
    the tail of PyTorch's ``vectorized_elementwise_kernel``: the cost of a launch
    itself, what a small operator's latency on the device is made of;
  - ``sgemm``: muBLAS's 256×256 single-precision product, with the torch wheel's
    BLAS linked when ``--blas`` (as the device build links it);
with the shim at ``--shim`` (default: this checkout's) and the given compiler
flags, and prints the CPU time per call, best of ``--rounds`` rounds of 10.

    python3 bench/shim_launch.py                                   # this shim, the device's .mu flags
    python3 bench/shim_launch.py --shim ../main/musaport/shim/include --flags=-O1 --no-blas

Compare runs of one invocation each; CPU time, not wall, on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

KERNELS = r"""
#include <mublas.h>
template <typename func_t>
__global__ void elementwise_kernel(int N, func_t f) {
  int idx = 128 * 4 * blockIdx.x + threadIdx.x;
#pragma unroll
  for (int i = 0; i < 4; i++) {
    if (idx < N) { f(idx); idx += 128; }
  }
}
__global__ void reduce_kernel(const float* in, float* out, int n) {
  __shared__ float s[256];
  float v = 0;
  for (int i = blockIdx.x * 256 + threadIdx.x; i < n; i += gridDim.x * 256) v += in[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int w = 128; w > 0; w >>= 1) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
// ReduceOp's block_x_reduce shape: 512 threads, a warp's shuffles, one value per warp through shared memory.
__global__ void warp_reduce_kernel(const float* in, float* out, int n) {
  __shared__ float s[16];
  float v = 0;
  for (int i = blockIdx.x * 512 + threadIdx.x; i < n; i += gridDim.x * 512) v += in[i];
  for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x % 32 == 0) s[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < 16 ? s[threadIdx.x] : 0.0f;
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
}
// The tail of PyTorch's vectorized_elementwise_kernel (its unroll policy): a block of 128 threads, 8 elements
// a thread, each thread stopping at the first element past the end.
template <typename func_t>
__global__ void unrolled_tail_kernel(int N, func_t f) {
  const int remaining = N - 128 * 8 * blockIdx.x;
  int idx = threadIdx.x;
#pragma unroll
  for (int i = 0; i < 8; i++) {
    if (idx >= remaining) return;
    f(128 * 8 * blockIdx.x + idx);
    idx += 128;
  }
}
extern "C" void add_small(const float* a, const float* b, float* c, int n) {
  auto f = [=] __device__ (int i) { c[i] = a[i] + b[i]; };
  musaport_launch(dim3((n + 1023) / 1024), dim3(128), 0, 0, [&]() { unrolled_tail_kernel(n, f); });
}
extern "C" void add(const float* a, const float* b, float* c, int n) {
  auto f = [=] __device__ (int i) { c[i] = a[i] + b[i]; };
  musaport_launch(dim3((n + 511) / 512), dim3(128), 0, 0, [&]() { elementwise_kernel(n, f); });
}
extern "C" void reduce(const float* a, float* out, int n) {
  musaport_launch(dim3(64), dim3(256), 0, 0, [&]() { reduce_kernel(a, out, n); });
}
extern "C" void warp_reduce(const float* a, float* out, int n) {
  musaport_launch(dim3(64), dim3(512), 0, 0, [&]() { warp_reduce_kernel(a, out, n); });
}
extern "C" void sgemm(const float* a, const float* b, float* c, int n) {
  static mublasHandle_t h = [] { mublasHandle_t x; mublasCreate(&x); return x; }();
  float one = 1, zero = 0;
  mublasSgemm(h, MUBLAS_OP_N, MUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
}
"""

DRIVER = r"""
#include <dlfcn.h>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>
static double cpu() { timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char** argv) {
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) { std::printf("%s\n", dlerror()); return 2; }
  int rounds = std::atoi(argv[2]);
  auto add = (void (*)(const float*, const float*, float*, int))dlsym(lib, "add");
  auto red = (void (*)(const float*, float*, int))dlsym(lib, "reduce");
  auto wred = (void (*)(const float*, float*, int))dlsym(lib, "warp_reduce");
  auto gemm = (void (*)(const float*, const float*, float*, int))dlsym(lib, "sgemm");
  auto small = (void (*)(const float*, const float*, float*, int))dlsym(lib, "add_small");
  const int n = 1 << 20, m = 256;
  std::vector<float> a(n, 1), b(n, 2), c(n), o(64), w(64);
  std::vector<float> s(16);
  const char* names[] = {"add 1M (elementwise)", "block reduce 1M (barriers)", "warp reduce 1M (shuffles)",
                         "sgemm 256x256", "add 16 (one block: latency)"};
  for (int which = 0; which < 5; ++which) {
    const int calls = which == 4 ? 100000 : 10;  // a launch of 16 elements takes about a microsecond
    double best = 1e9;
    for (int r = 0; r < rounds; ++r) {
      double t = cpu();
      for (int i = 0; i < calls; ++i) {
        if (which == 0) add(a.data(), b.data(), c.data(), n);
        else if (which == 1) red(a.data(), o.data(), n);
        else if (which == 2) wred(a.data(), w.data(), n);
        else if (which == 3) gemm(a.data(), b.data(), c.data(), m);
        else small(a.data(), b.data(), s.data(), 16);
      }
      t = (cpu() - t) / calls;
      if (t < best) best = t;
    }
    if (which == 4) std::printf("%-28s %9.3f us\n", names[which], best * 1e6);
    else std::printf("%-28s %9.3f ms\n", names[which], best * 1e3);
  }
  bool ok = c[5] == 2.0f * m && o[0] == 16384.0f && w[0] == 16384.0f && w[63] == 16384.0f && s[15] == 3.0f;
  std::printf("%s\n", ok ? "results checked" : "WRONG RESULTS");
  return ok ? 0 : 1;
}
"""


def main() -> int:
    from musaport.resources import shim_include
    from musaport.validate.backend.backend import FMA_FLAGS, KERNEL_OPT_FLAGS, host_has_fma

    device_flags = [*(FMA_FLAGS if host_has_fma() else []), *KERNEL_OPT_FLAGS]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shim", type=Path, default=shim_include(), help="the shim's include folder")
    ap.add_argument("--flags", default=" ".join(device_flags),
                    help=f"compiler flags of the kernels (default: the device's .mu flags, {' '.join(device_flags)})")
    ap.add_argument("--no-blas", action="store_true", help="do not link the torch wheel's BLAS")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    link: list[str] = []
    if not args.no_blas:
        from musaport.validate.torchwheel import torchenv

        env = torchenv.cached("2.6.0")
        if env is None:
            sys.exit("musaport: error: no torch 2.6.0 environment in the user cache for its BLAS; "
                     "give --no-blas or run 'musaport validate --opinfo' once")
        lib = env.site_packages / "torch" / "lib"
        link = [f"-L{lib}", f"-Wl,-rpath,{lib}", "-Wl,--no-as-needed", "-ltorch_cpu", "-lc10"]
    with tempfile.TemporaryDirectory(prefix="musaport-shim-bench-") as tmp:
        work = Path(tmp)
        (work / "k.cpp").write_text(KERNELS)
        (work / "main.cpp").write_text(DRIVER)
        subprocess.run(["g++", "-std=c++17", "-fPIC", "-shared", "-pthread", "-w", f"-I{args.shim}", "-include",
                        "musa_runtime.h", "-x", "c++", str(work / "k.cpp"), "-o", str(work / "libk.so"),
                        *shlex.split(args.flags), *link], check=True)
        subprocess.run(["g++", "-O2", str(work / "main.cpp"), "-o", str(work / "main"), "-ldl"], check=True)
        print(f"shim {args.shim}, flags {args.flags or '(none)'}, BLAS {'no' if args.no_blas else 'the torch wheel'}; "
              f"load average {os.getloadavg()[0]:.2f}", flush=True)
        env = dict(os.environ, OMP_NUM_THREADS="1")
        return subprocess.run([str(work / "main"), str(work / "libk.so"), str(args.rounds)], env=env).returncode


if __name__ == "__main__":
    raise SystemExit(main())
