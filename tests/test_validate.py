"""`musaport validate`: ported code compiles against the MUSA shim, and kernels run on the CPU."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT, musaport, stand_in_clang
from musaport.validate.cpu.shared_alias import alias_flags, library_files
from musaport.validate.run.kernels import fixture_kernels

KERNELS = sorted(p.stem for p in (ROOT / "fixtures" / "kernels").glob("*.cu"))
needs_clang = pytest.mark.usefixtures("clang")  # the ziglang wheel's clang (see conftest.clang)


@pytest.fixture(scope="module")
def run_mode(gxx: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, dict], str, Path]:
    """Every fixture kernel ported, built with g++ on the CPU runtime and run, once."""
    out = tmp_path_factory.mktemp("validate-run")
    result = musaport("validate", "--run", "--out", str(out), "-j", "2")
    outcomes = {o["name"]: o for o in json.loads((out / "validate_run.json").read_text())}
    return outcomes, result.stdout + result.stderr, out


@pytest.mark.compiles
def test_run_mode_covers_every_fixture_kernel(run_mode) -> None:
    outcomes, output, _ = run_mode
    assert sorted(outcomes) == KERNELS
    assert len(KERNELS) >= 12
    assert f"{len(KERNELS)} of {len(KERNELS)} kernels passed" in output


@pytest.mark.compiles
def test_run_mode_says_what_it_does_off_a_terminal(run_mode) -> None:
    assert f"musaport: building and running {len(KERNELS)} fixture kernels with g++ ..." in run_mode[1]


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.compiles
def test_fixture_kernel_passes_on_the_cpu(run_mode, name: str) -> None:
    outcome = run_mode[0][name]
    assert outcome["ok"], f"{name} failed at {outcome['stage']}: {outcome['detail']}"


@pytest.mark.compiles
def test_early_exit_does_not_rerun_the_kernel(run_mode) -> None:
    assert run_mode[0]["trap_early_exit"]["detail"] == "PASS trap_early_exit (64 entries)"


@pytest.mark.compiles
def test_partial_barrier_is_reported_at_its_ported_line(run_mode) -> None:
    detail = run_mode[0]["trap_partial_barrier"]["detail"]
    assert "partial barrier: __syncthreads() at " in detail
    # Line 13 of the .cu is line 14 of the .mu (the provenance line comes first).
    assert "trap_partial_barrier.mu:14 in block (0,0,0) is reached by 32 of 64 threads" in detail


@pytest.mark.compiles
def test_warp_operation_naming_exited_lanes_is_reported(run_mode) -> None:
    """The scheduler checks a warp operation's lanes only once a thread has exited (a scan per lane and
    operation was a third of a warp reduction's time); that check must still catch the lanes that left."""
    detail = run_mode[0]["trap_warp_exited_lanes"]["detail"]
    assert "__shfl_sync() at " in detail
    assert "trap_warp_exited_lanes.mu:13 in block (0,0,0), warp 0: mask 0xffffffff names lanes 0x0000ffff " \
           "that already exited" in detail


@pytest.mark.compiles
def test_the_device_build_lets_exited_threads_arrive_at_a_barrier(run_mode) -> None:
    """The same fixture built as the musa device builds PyTorch's kernels: the hardware's behaviour, the
    barrier released by the threads that returned (UpSampleBilinear2d's anti-aliased kernel relies on it)."""
    import subprocess

    from musaport.validate.device.build import DEVICE_FLAGS
    from musaport.validate.run.kernels import CXX, _compile_command, link_flags

    cpp = run_mode[2] / ".musaport" / "validate-run" / "trap_partial_barrier.cpp"
    obj, exe = cpp.with_name("arrive.o"), cpp.with_name("arrive")
    subprocess.run([*_compile_command(cpp, obj), *DEVICE_FLAGS], check=True)
    subprocess.run([CXX, "-pthread", str(obj), "-o", str(exe), *link_flags([obj])], check=True)
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert "partial barrier: __syncthreads()" not in ran.stdout + ran.stderr
    assert ran.stdout == "FAIL trap_partial_barrier: the partial barrier was not reported (status: no error)\n"


def _build_fixture(run_mode, name: str, exe_name: str, *flags: str) -> Path:
    """A fixture's CPU copy (from the run mode's work folder) compiled again with extra flags."""
    import subprocess

    from musaport.validate.run.kernels import CXX, _compile_command, link_flags

    cpp = run_mode[2] / ".musaport" / "validate-run" / f"{name}.cpp"
    obj, exe = cpp.with_name(f"{exe_name}.o"), cpp.with_name(exe_name)
    subprocess.run([*_compile_command(cpp, obj), *flags], check=True)
    subprocess.run([CXX, "-pthread", str(obj), "-o", str(exe), *link_flags([obj])], check=True)
    return exe


@pytest.mark.compiles
def test_kernel_faults_become_runtime_errors_with_their_diagnostic(run_mode) -> None:
    """A trap, a device assert and an exception stop their grid and come back as musaErrorAssert /
    musaErrorLaunchFailure (the fixture checks the codes and that the next kernel runs); each still says
    where it happened on stderr, and the process lives on (the old runtime aborted at the trap)."""
    import subprocess

    exe = run_mode[2] / ".musaport" / "validate-run" / "kernel_faults"
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.startswith("PASS kernel_faults")
    lines = ran.stderr.splitlines()
    assert lines[0] == "musaport: error: __trap() in block (1,0,0) thread (37,0,0); the grid stops (musaErrorAssert)"
    assert lines[1].startswith("musaport: error: device-side assert in block (1,0,0) thread (0,0,0): ")
    assert "kernel_faults.mu:" in lines[1] and "Assertion `entered[blockIdx.x] == 1000' failed" in lines[1]
    assert lines[2] == ("musaport: error: kernel threw an exception in block (1,0,0) thread (3,0,0): "
                        "host branch reached in a kernel; the grid stops (musaErrorLaunchFailure)")
    assert len(lines) == 3


@pytest.mark.parametrize("workers", ["1", "3"])
@pytest.mark.compiles
def test_kernel_faults_in_the_device_build(run_mode, workers: str) -> None:
    """As the musa device builds kernels (exited threads arrive at barriers), with one worker thread or
    several: a fault is still an error code, never a barrier released by the faulting thread."""
    import os
    import subprocess

    from musaport.validate.device.build import DEVICE_FLAGS

    exe = _build_fixture(run_mode, "kernel_faults", "faults_device", *DEVICE_FLAGS)
    env = {**os.environ, "MUSAPORT_CPU_WORKERS": workers}
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, env=env)
    assert ran.returncode == 0 and ran.stdout.startswith("PASS kernel_faults"), ran.stdout + ran.stderr


# The fixtures that exercise plain mode, its promotion to fibers at a barrier or warp operation,
# shared memory and faults.
AS_DEVICE = ["elementwise", "grid_stride", "block_reduce", "warp_reduce", "softmax", "dynamic_shared",
             "cub_block_scan", "cub_warp_shuffle", "libcuxx_std", "trap_early_exit", "kernel_faults"]
LOADER = r"""
#include <dlfcn.h>
#include <cstdio>
int main(int, char** argv) {
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) { std::printf("dlopen: %s\n", dlerror()); return 2; }
  auto fixture_main = reinterpret_cast<int (*)()>(dlsym(lib, "_Z21musaport_fixture_mainv"));  // int main()
  if (fixture_main == nullptr) { std::printf("dlsym: %s\n", dlerror()); return 2; }
  return fixture_main();
}
"""


@pytest.mark.compiles
@pytest.mark.parametrize("name", AS_DEVICE)
@pytest.mark.compiles
def test_fixture_kernel_passes_built_as_the_device_builds_kernels(run_mode, name: str, tmp_path: Path) -> None:
    """The device's code model, not run mode's: the kernel in a shared library loaded with dlopen (its
    thread-locals reached through the dynamic TLS model, not relaxed to the executable's own), compiled
    with the device's .mu flags (-O3) and DEVICE_FLAGS."""
    import subprocess

    from musaport.validate.backend.backend import KERNEL_OPT_FLAGS
    from musaport.validate.device.build import DEVICE_FLAGS
    from musaport.validate.run.kernels import CXX, _compile_command, link_flags

    cpp = run_mode[2] / ".musaport" / "validate-run" / f"{name}.cpp"
    obj, lib, loader = tmp_path / f"{name}.o", tmp_path / f"lib{name}.so", tmp_path / "loader"
    subprocess.run([*_compile_command(cpp, obj), "-fPIC", *KERNEL_OPT_FLAGS, *DEVICE_FLAGS,
                    "-Dmain=musaport_fixture_main"], check=True, cwd=cpp.parent)
    subprocess.run([CXX, "-shared", "-pthread", str(obj), "-o", str(lib), *link_flags([obj])], check=True)
    (tmp_path / "loader.cpp").write_text(LOADER)
    subprocess.run([CXX, str(tmp_path / "loader.cpp"), "-o", str(loader), "-ldl"], check=True)
    ran = subprocess.run([str(loader), str(lib)], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0 and ran.stdout.strip().splitlines()[-1].startswith(f"PASS {name}"), \
        ran.stdout + ran.stderr
    if name == "trap_early_exit":  # each thread entered the kernel once
        assert ran.stdout.strip() == run_mode[0][name]["detail"]


OVERFLOW = """\
#include <musa_runtime.h>
#include <cstdio>
__device__ int deep(volatile char* p, int n) {
  volatile char frame[4096];
  frame[0] = p[0];
  return n == 0 ? frame[0] : deep(frame, n - 1) + 1;
}
__global__ void recurse(int* out) {
  __syncthreads();  // the block runs on fibers from here
  char seed = 1;
  out[threadIdx.x] = deep(&seed, 100000);
}
int main() {
  int* out;
  musaMalloc(&out, 64 * sizeof(int));
  musaport_launch(dim3(1), dim3(64), 0, 0, recurse, out);
  std::printf("survived: %s\\n", musaGetErrorName(musaGetLastError()));
  return 0;
}
"""


@pytest.mark.compiles
def test_fiber_stack_overflow_stays_a_hard_abort(tmp_path: Path, gxx: str) -> None:
    """Unlike a trap, an overflowing fiber stack cannot be recovered from: the guard page's SIGSEGV still
    aborts the process with its message."""
    import subprocess

    from musaport.validate.run.kernels import CXX, link_flags
    from musaport.resources import shim_include

    cpp, obj, exe = tmp_path / "overflow.cpp", tmp_path / "overflow.o", tmp_path / "overflow"
    cpp.write_text(OVERFLOW)
    subprocess.run([CXX, "-std=c++17", "-O0", "-pthread", f"-I{shim_include()}", "-c", str(cpp), "-o", str(obj)],
                   check=True)
    subprocess.run([CXX, "-pthread", str(obj), "-o", str(exe), *link_flags([obj])], check=True)
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert ran.returncode != 0
    assert "survived" not in ran.stdout
    assert "musaport: error: fiber stack overflow in block (0,0,0) thread (" in ran.stderr


@pytest.mark.compiles
def test_run_mode_builds_from_the_ported_source(run_mode) -> None:
    mu = (run_mode[2] / ".musaport" / "validate-run" / "dynamic_shared.mu").read_text()
    assert mu.startswith("// musaport")
    assert "musaMalloc" in mu and "cudaMalloc" not in mu
    assert "<<<" in mu  # launches stay in the .mu; only the CPU copy turns them into calls
    cpu = (run_mode[2] / ".musaport" / "validate-run" / "dynamic_shared.cpp").read_text()
    assert "<<<" not in cpu and "musaport_launch(" in cpu


def test_pattern_selects_kernels() -> None:
    assert [k.stem for k in fixture_kernels(("tril*", "warp_*"))] == ["tril_triu", "warp_reduce"]


READELF = """
Symbol table '.symtab' contains 6 entries:
   Num:    Value          Size Type    Bind   Vis      Ndx Name
     0: 0000000000000000     0 NOTYPE  LOCAL  DEFAULT  UND
   197: 0000000000000000     0 NOTYPE  WEAK   DEFAULT  UND _ZTH4smem
   198: 0000000000000000     0 TLS     GLOBAL DEFAULT  UND smem
   199: 0000000000000000     0 TLS     GLOBAL DEFAULT  UND _ZNSt3__110__cxa_tls
   200: 0000000000000000     0 TLS     GLOBAL DEFAULT  UND tile
   201: 0000000000000000     8 TLS     GLOBAL DEFAULT   12 tile
   202: 0000000000000000     0 NOTYPE  GLOBAL DEFAULT  UND __tls_init
   203: 0000000000000040    21 FUNC    LOCAL  DEFAULT    9 __tls_init
"""


def test_extern_shared_symbols_alias_the_runtime_buffer() -> None:
    assert alias_flags(READELF) == [
        "-Wl,--defsym=_ZTH4smem=musaport_tls_init_noop",
        "-Wl,--defsym=__tls_init=musaport_tls_init_noop",
        "-Wl,--defsym=smem=musaport_dynamic_shared_tls",
    ]


# An extension's object that calls a dispatcher handle (``op.call``) reads libc10's dispatch-key state inline.
EXTENSION_OBJECT = """
   198: 0000000000000000     0 TLS     GLOBAL DEFAULT  UND smem
   199: 0000000000000000     0 TLS     GLOBAL DEFAULT  UND _ZN3c104impl26raw_local_dispatch_key_setE
   200: 0000000000000000     0 NOTYPE  WEAK   DEFAULT  UND _ZTHN3c104impl26raw_local_dispatch_key_setE
"""
LIBC10_DYNAMIC = """
Symbol table '.dynsym' contains 2 entries:
   Num:    Value          Size Type    Bind   Vis      Ndx Name
  1544: 0000000000000008    16 TLS     GLOBAL DEFAULT   14 _ZN3c104impl26raw_local_dispatch_key_setE
  1545: 0000000000000000     0 FUNC    GLOBAL DEFAULT  UND memcpy@GLIBC_2.14 (3)
"""


def test_a_thread_local_a_linked_library_defines_stays_the_librarys() -> None:
    """Aliased, the module had a zeroed copy of libc10's state: guards below autograd went unseen and
    torchvision's autograd kernels called themselves until the stack overflowed."""
    assert alias_flags(EXTENSION_OBJECT, LIBC10_DYNAMIC) == ["-Wl,--defsym=smem=musaport_dynamic_shared_tls"]
    assert "-Wl,--defsym=_ZN3c104impl26raw_local_dispatch_key_setE=musaport_dynamic_shared_tls" in \
        alias_flags(EXTENSION_OBJECT)  # what the link did when it did not look at the libraries


def test_the_libraries_a_link_names_are_found_in_its_folders(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for lib in ("a/libc10.so", "b/libc10.so", "b/libtorch_cpu.so", "b/libmine.so.1"):
        (tmp_path / lib).write_bytes(b"")
    args = [f"-L{tmp_path / 'a'}", f"-L{tmp_path / 'b'}", "-lc10", "-ltorch_cpu", "-lnowhere", "-l:libmine.so.1",
            f"-Wl,-rpath,{tmp_path}", str(tmp_path / "b/libc10.so"), "-lc10"]
    assert library_files(args) == [str(tmp_path / p) for p in ("a/libc10.so", "b/libtorch_cpu.so",
                                                                "b/libmine.so.1", "b/libc10.so")]


def _ported_tree(tmp_path: Path, name: str, text: str) -> Path:
    """An --out folder holding one ported file, as `musaport run` leaves it."""
    out = tmp_path / "out"
    (out / "generated_cuda_compatible").mkdir(parents=True)
    (out / "generated_cuda_compatible" / name).write_text(text)
    (tmp_path / "src").mkdir()
    (out / "porting_report.json").write_text(json.dumps({"source": str(tmp_path / "src"), "files": {}}))
    return out


KERNEL = """\
#include <musa_runtime.h>
__global__ void scale(float* x, float a, int n) {
  __shared__ float tile[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { tile[threadIdx.x] = x[i] * a; }
  __syncthreads();
  if (i < n) { x[i] = __shfl_down_sync(0xffffffff, tile[threadIdx.x], 1); }
}
void run(float* host, int n) {
  float* dev = nullptr;
  musaMalloc(&dev, n * sizeof(float));
  musaMemcpy(dev, host, n * sizeof(float), musaMemcpyHostToDevice);
  scale<<<(n + 127) / 128, 128>>>(dev, 2.0f, n);
#if defined(__MUSA_ARCH__) && __MUSA_ARCH__ >= 700
#endif
  musaFree(dev);
}
"""


@needs_clang
@pytest.mark.compiles
def test_compile_mode_passes_a_ported_kernel(tmp_path: Path) -> None:
    out = _ported_tree(tmp_path, "scale.mu", KERNEL)
    result = musaport("validate", "--compile", "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS scale.mu" in result.stdout
    report = json.loads((out / "validate_report.json").read_text())
    assert (report["passed"], report["total"]) == (1, 1)


@needs_clang
@pytest.mark.parametrize("leftover, hint", [
    ("cudaMalloc(&dev, n * sizeof(float));", "did you mean 'musaMalloc'"),
    ("cudaStream_t s;", "cudaStream_t"),
    ("__nv_bfloat16 b;", "__nv_bfloat16"),
])
@pytest.mark.compiles
def test_compile_mode_rejects_a_cuda_name_left_in(tmp_path: Path, leftover: str, hint: str) -> None:
    broken = KERNEL.replace("musaFree(dev);", leftover + "\n  musaFree(dev);")
    out = _ported_tree(tmp_path, "scale.mu", broken)
    result = musaport("validate", "--compile", "--out", str(out))
    assert result.returncode == 1
    line = next(ln for ln in result.stdout.splitlines() if ln.startswith("FAIL scale.mu"))
    assert "[host] scale.mu:16:" in line and hint in line
    assert "0 of 1 passed" in result.stdout


@needs_clang
@pytest.mark.compiles
def test_device_pass_reads_musa_arch_branches(tmp_path: Path) -> None:
    broken = KERNEL.replace("#endif", "  this_does_not_compile;\n#endif")
    out = _ported_tree(tmp_path, "scale.mu", broken)
    assert musaport("validate", "--compile", "--host-only", "--out", str(out)).returncode == 0
    result = musaport("validate", "--compile", "--out", str(out))
    assert result.returncode == 1 and "[device]" in result.stdout


VECTOR_ADD = """\
#include <musa_runtime.h>
template <class T>
__global__ void accumulate(T* sum, T v) {
#if defined(__MUSA_ARCH__) && __MUSA_ARCH__ < 900
  constexpr bool split = sizeof(T) / sizeof(float) == 4;
#else
  constexpr bool split = false;
#endif
  if constexpr (split) {
    atomicAdd(&sum->x, v.x); atomicAdd(&sum->y, v.y); atomicAdd(&sum->z, v.z); atomicAdd(&sum->w, v.w);
  } else {
    atomicAdd(sum, v);
  }
}
template __global__ void accumulate<float4>(float4*, float4);
"""


@needs_clang
@pytest.mark.compiles
def test_vector_atomics_exist_where_the_toolkit_declares_them(tmp_path: Path) -> None:
    """The host pass instantiates the `#else` of `__MUSA_ARCH__ < 900`, whose float4 atomicAdd a toolkit
    declares for the host pass and 9.0 only (torch-harmonics' ring attention kernels are written so)."""
    out = _ported_tree(tmp_path, "vec.mu", VECTOR_ADD)
    result = musaport("validate", "--compile", "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    unconditional = VECTOR_ADD.replace("if constexpr (split)", "if constexpr (false)")
    out = _ported_tree(tmp_path / "sm70", "vec.mu", unconditional)
    result = musaport("validate", "--compile", "--out", str(out))
    assert result.returncode == 1 and "[device]" in result.stdout and "atomicAdd" in result.stdout


@needs_clang
@pytest.mark.parametrize("header, precompiled", [("ATen/native/musa/Loops.muh", False),  # in the core list
                                                 ("ATen/musa/Atomic.muh", True)])  # in the full list only
@pytest.mark.compiles
def test_a_broken_prelude_header_fails_only_the_files_that_include_it(tmp_path: Path, header: str,
                                                                     precompiled: bool) -> None:
    """The precompiled prelude falls back (to its core list, then to none) rather than fail every TU."""
    out = _ported_tree(tmp_path, "scale.mu", KERNEL)
    broken = out / "generated_cuda_compatible/aten/src" / header
    broken.parent.mkdir(parents=True)
    broken.write_text("#pragma once\n#error this ported header is broken\n")
    (out / "generated_cuda_compatible/uses_it.mu").write_text(f"#include <{header}>\n" + KERNEL)
    result = musaport("validate", "--compile", "--out", str(out))
    assert result.returncode == 1
    assert "PASS scale.mu" in result.stdout
    assert f"FAIL uses_it.mu [host] aten/src/{header}:2:2: error: this ported header is broken" in result.stdout
    assert bool(list((out / ".musaport/validate").glob("prelude-host-*.pch"))) == precompiled


OWN_ATOMICS = """\
#include <musa_runtime.h>
template <typename T, unsigned long n> struct AtomicAddIntegerImpl;
template <typename T> struct AtomicAddIntegerImpl<T, 4> { __device__ void operator()(T* p, T v) { atomicAdd(p, v); } };
__global__ void add(int* p) { AtomicAddIntegerImpl<int, 4>()(p, 1); }
"""


@needs_clang
@pytest.mark.compiles
def test_an_extension_file_is_judged_without_the_prelude_it_never_reads(tmp_path: Path) -> None:
    """An extension may define at global scope what a prelude header defines (PyG's atomics.cuh and PyTorch's
    Atomic.cuh both define AtomicAddIntegerImpl); its real build never reads the prelude, so a pass that fails
    with it is compiled again without it, and only the TU's own errors fail it."""
    from musaport.validate.compile.compile import PASSES, _build_pch, _check
    from musaport.resources import shim_include
    from musaport.validate.clang import toolchain

    clang, includes = toolchain.find(), [f"-I{shim_include()}"]
    prelude = tmp_path / "prelude.h"
    prelude.write_text(OWN_ATOMICS.split("__global__")[0])  # the same global template, as Atomic.muh has it
    pch = tmp_path / "prelude-host.pch"
    assert _build_pch(clang, [prelude], pch, includes, PASSES["host"])
    (tmp_path / "add.mu").write_text(OWN_ATOMICS)
    (tmp_path / "bad.mu").write_text(OWN_ATOMICS + "int broken = undeclared_name;\n")
    pchs = {"host": pch}
    as_pytorch = _check(clang, tmp_path / "add.mu", tmp_path, includes, ("host",), pchs)
    assert not as_pytorch.ok and "redefinition of 'AtomicAddIntegerImpl" in as_pytorch.error
    assert _check(clang, tmp_path / "add.mu", tmp_path, includes, ("host",), pchs, own_code=True).ok
    bad = _check(clang, tmp_path / "bad.mu", tmp_path, includes, ("host",), pchs, own_code=True)
    assert not bad.ok and "undeclared_name" in bad.error and "redefinition" not in bad.error


THRUST = """\
#include <thrust/binary_search.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/system/musa/execution_policy.h>
#include <thrust/unique.h>
template <typename T>
struct DeviceLess { __device__ bool operator()(const T& a, const T& b) const { return a < b; } };
struct HostLess { bool operator()(long a, long b) const { return a < b; } };
struct Allocator { char* allocate(long n); void deallocate(char* p, long n); };
long run(long* data, long* values, long n, musaStream_t stream) {
  Allocator allocator;
  auto policy = thrust::musa::par(allocator).on(stream);
  thrust::device_ptr<long> keys(data), vals(values);
  thrust::sort_by_key(policy, keys, keys + n, vals, DeviceLess<long>());
  long m = thrust::unique(policy, keys, keys + n, [] __device__(long a, long b) { return a == b; }) - keys;
  thrust::for_each(thrust::device, thrust::make_counting_iterator(0L), thrust::make_counting_iterator(n),
                   [=] __device__(long i) { values[i] = i; });
  thrust::lower_bound(policy, keys, keys + m, vals, vals + n, vals);
  thrust::sort(thrust::host, data, data + n, HostLess());
  return thrust::reduce(policy, keys, keys + m, 0L, [] __device__(long a, long b) { return a + b; });
}
__global__ void sort_rows(long* data, long n) { thrust::sort(thrust::seq, data, data + n, DeviceLess<long>()); }
"""


@needs_clang
@pytest.mark.compiles
def test_compile_mode_accepts_device_functors_with_a_device_policy(tmp_path: Path) -> None:
    """As with thrust, a device policy called from host code takes functors that exist only on the device."""
    out = _ported_tree(tmp_path, "uses_thrust.mu", THRUST)
    result = musaport("validate", "--compile", "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS uses_thrust.mu" in result.stdout


@needs_clang
@pytest.mark.compiles
def test_compile_mode_rejects_a_host_functor_with_a_device_policy(tmp_path: Path) -> None:
    """The device pass sees the algorithm's one-thread kernel, so a host-only functor there is an error."""
    broken = THRUST.replace("thrust::sort(thrust::host,", "thrust::sort(policy,")
    out = _ported_tree(tmp_path, "uses_thrust.mu", broken)
    result = musaport("validate", "--compile", "--out", str(out))
    assert result.returncode == 1
    line = next(ln for ln in result.stdout.splitlines() if ln.startswith("FAIL uses_thrust.mu"))
    assert "[device]" in line and "reference to __host__ function 'operator()'" in line


# mamba's selective-scan backward kernels (csrc/selective_scan/reverse_scan.cuh and the kernel that includes
# it), as the port leaves them: cub's warp utilities and raking grid from their own headers, cub::BlockExchange
# named after including only block_load/store/scan/reduce (cub's block_load brings it), a TempStorage aliased
# through cub::Uninitialized, shuffles of a 16-byte type.
CUB_RAKING = """\
#include <musa_runtime.h>
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/config.cuh>
#include <cub/util_ptx.cuh>
#include <cub/util_type.cuh>
#include <cub/block/block_raking_layout.cuh>
#include <cub/detail/uninitialized_copy.cuh>

template <typename T, int THREADS>
struct ReverseScan {
  static constexpr int STEPS = cub::Log2<THREADS>::VALUE;
  static constexpr bool IS_ARCH_WARP = THREADS == CUB_WARP_THREADS(0);
  using Layout = cub::BlockRakingLayout<T, THREADS>;
  static_assert(Layout::UNGUARDED, "full segments");
  struct _TempStorage { typename Layout::TempStorage raking_grid; };
  struct TempStorage : cub::Uninitialized<_TempStorage> {};
  _TempStorage& temp_storage;
  unsigned lane, member_mask;
  __device__ explicit ReverseScan(TempStorage& s)
      : temp_storage(s.Alias()), lane(cub::RowMajorTid(THREADS, 1, 1) & 0x1f),
        member_mask(cub::WarpMask<32>(0)) {}
  __device__ T Run(T input) {
    T* placement = Layout::PlacementPtr(temp_storage.raking_grid, lane);
    cub::detail::uninitialized_copy(placement, input);
    __syncthreads();
    T* raking = Layout::RakingPtr(temp_storage.raking_grid, lane);
    T inclusive = raking[0];
    for (int step = 0; step < STEPS; ++step) {
      T after = cub::ShuffleDown<32>(inclusive, 1 << step, 31, member_mask);
      if (int(lane) < 32 - (1 << step)) inclusive = inclusive + after;
    }
    return cub::ShuffleIndex<32>(inclusive, 0, member_mask);
  }
};

struct float4_like { float x, y, z, w; };
__device__ float4_like operator+(float4_like a, float4_like b) { return {a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w}; }

__global__ void bwd(const float* in, float* out) {
  using Scan = ReverseScan<float4_like, 128>;
  using Exchange = cub::BlockExchange<float, 128, 4>;
  __shared__ typename Scan::TempStorage scan_storage;
  __shared__ typename Exchange::TempStorage exchange_storage;
  float items[4];
  for (int i = 0; i < 4; ++i) items[i] = in[threadIdx.x * 4 + i];
  Exchange(exchange_storage).BlockedToStriped(items);
  float4_like v{items[0], items[1], items[2], items[3]};
  float4_like r = Scan(scan_storage).Run(v);
  out[threadIdx.x] = r.x + r.y + r.z + r.w + float(cub::LaneId());
}
void launch(const float* in, float* out) { bwd<<<1, 128>>>(in, out); }
"""


@needs_clang
@pytest.mark.compiles
def test_compile_mode_passes_cubs_warp_utilities_and_raking_layout(tmp_path: Path) -> None:
    """What mamba's backward kernels take from cub beyond the collectives compiles in both passes."""
    out = _ported_tree(tmp_path, "reverse_scan.mu", CUB_RAKING)
    result = musaport("validate", "--compile", "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS reverse_scan.mu" in result.stdout


MUSPARSE = """\
#include <musparse.h>
void spgemm(musparseHandle_t h, musparseMatDescr_t a, const int* rows, const int* cols, const double* vals, int n) {
  csrgemm2Info_t info;
  musparseCreateCsrgemm2Info(&info);
  musparseSetPointerMode(h, MUSPARSE_POINTER_MODE_HOST);
  double alpha = 1, beta = 0;
  size_t bytes = 0;
  musparseDcsrgemm2_bufferSizeExt(h, n, n, n, &alpha, a, n, rows, cols, a, n, rows, cols, &beta, a, 0, rows, cols,
                                  info, &bytes);
  int nnz = 0;
  int* out_rows = nullptr;
  musparseXcsrgemm2Nnz(h, n, n, n, a, n, rows, cols, a, n, rows, cols, a, 0, rows, cols, a, out_rows, &nnz, info,
                       nullptr);
  musparseDcsrgemm2(h, n, n, n, &alpha, a, n, vals, rows, cols, a, n, vals, rows, cols, &beta, a, 0, vals, rows,
                    cols, a, nullptr, out_rows, nullptr, info, nullptr);
  musparseDestroyCsrgemm2Info(info);
}
void spmm(musparseHandle_t h, int* rows, int* cols, float* vals, float* dense, float* out, int n) {
  musparseSpMatDescr_t a;
  musparseDnMatDescr_t b, c;
  musparseCreateCoo(&a, n, n, n, rows, cols, vals, MUSPARSE_INDEX_32I, MUSPARSE_INDEX_BASE_ZERO, MUSA_R_32F);
  musparseCreateDnMat(&b, n, n, n, dense, MUSA_R_32F, MUSPARSE_ORDER_COL);
  musparseCreateDnMat(&c, n, n, n, out, MUSA_R_32F, MUSPARSE_ORDER_COL);
  float alpha = 1, beta = 0;
  size_t bytes = 0;
  musparseSpMMAlg_t alg = MUSPARSE_SPMM_COO_ALG2;
  musparseSpMM_bufferSize(h, MUSPARSE_OPERATION_NON_TRANSPOSE, MUSPARSE_OPERATION_TRANSPOSE, &alpha, a, b, &beta, c,
                          MUSA_R_32F, alg, &bytes);
  musparseSpMM(h, MUSPARSE_OPERATION_NON_TRANSPOSE, MUSPARSE_OPERATION_TRANSPOSE, &alpha, a, b, &beta, c, MUSA_R_32F,
               alg, nullptr);
  musparseDestroySpMat(a);
  musparseDestroyDnMat(b);
  musparseDestroyDnMat(c);
}
"""


@needs_clang
@pytest.mark.compiles
def test_compile_mode_knows_musparse_csrgemm2_and_spmm(tmp_path: Path) -> None:
    """PyTorch's sparse matmul uses the legacy csrgemm2 API (its info type keeps the toolkit name) and SpMM."""
    out = _ported_tree(tmp_path, "sparse.mu", MUSPARSE)
    result = musaport("validate", "--compile", "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr


def test_validate_usage_errors(tmp_path: Path) -> None:
    both = musaport("validate", "--compile", "--run")
    assert both.returncode == 2 and "exactly one of --compile, --run, --backend, --opinfo, --merge-reports or --extension" in both.stderr
    missing = musaport("validate", "--compile", "--out", str(tmp_path), env=stand_in_clang(tmp_path))
    assert missing.returncode == 2
    assert missing.stderr.count("\n") == 1 and "no ported tree here" in missing.stderr


@needs_clang
@pytest.mark.shared
@pytest.mark.parametrize("name", ["AbsKernel.mu", "TriangularOps.mu"])
@pytest.mark.compiles
def test_compile_mode_passes_on_real_pytorch(ported_260: Path, name: str) -> None:
    result = musaport("validate", "--compile", "--out", str(ported_260), name)
    assert result.returncode == 0, result.stdout
    assert f"PASS aten/src/ATen/native/musa/{name}" in result.stdout


@needs_clang
@pytest.mark.shared
@pytest.mark.compiles
def test_compile_mode_passes_on_real_pytorch_1131(ported_1131: Path) -> None:
    """1.13 predates Device::is_privateuseone and DispatchStub's PrivateUse1 slot: the rules that need them
    (tree_has) leave its port alone, so its kernels compile against its own headers."""
    result = musaport("validate", "--compile", "--out", str(ported_1131), "-j", "2", "AbsKernel.mu", "Sort.mu")
    assert result.returncode == 0, result.stdout
    assert "2 of 2 passed" in result.stdout


@needs_clang
@pytest.mark.shared
@pytest.mark.compiles
def test_compile_mode_reports_the_build_list_apart(ported_260: Path) -> None:
    """A source left out of the build list (it needs CUTLASS) fails, and the build-list rate says so."""
    result = musaport("validate", "--compile", "--out", str(ported_260), "AbsKernel.mu", "MixedDtypesLinear.mu")
    assert result.returncode == 1
    assert "1 of 2 passed; in the default build list 1 of 1" in result.stdout
    doc = json.loads((ported_260 / "validate_report.json").read_text())
    assert doc["build_list"] == {"passed": 1, "total": 1}
    assert {f["file"].rsplit("/", 1)[1]: f["in_build_list"] for f in doc["files"]} == {
        "AbsKernel.mu": True, "MixedDtypesLinear.mu": False}


# Build-list files that failed before the shim's device-policy thrust, its vectorized searches, musparse's
# csrgemm2 and SpMM declarations, and the ported ATen/core headers (RestrictPtrTraits) (issue 11, item 9).
FIXED_260 = ["aten/src/ATen/native/musa/Unique.mu", "aten/src/ATen/native/musa/LegacyThrustHelpers.mu",
             "aten/src/ATen/native/musa/TensorModeKernel.mu", "aten/src/ATen/native/sparse/musa/SoftMax.mu",
             "aten/src/ATen/native/sparse/musa/SparseMUSATensor.mu",
             "aten/src/ATen/native/sparse/musa/SparseCsrTensorMath.mu",
             "aten/src/ATen/native/sparse/musa/SparseMUSATensorMath.mu",
             "aten/src/ATen/native/sparse/musa/SparseMatMul.mu", "aten/src/ATen/native/musa/Normalization.mu",
             "aten/src/ATen/native/musa/int4mm.mu", "aten/src/ATen/native/quantized/musa/EmbeddingBag.mu",
             # With the jiterator off, i1 and i1e take the precompiled path (rule jiterator-off-i1-opmath).
             "aten/src/ATen/native/musa/UnarySpecialOpsKernel.mu"]


@needs_clang
@pytest.mark.shared
@pytest.mark.compiles
def test_compile_mode_passes_the_fixed_build_list_files_on_real_pytorch(ported_260: Path) -> None:
    result = musaport("validate", "--compile", "--out", str(ported_260), "-j", "2", *FIXED_260)
    assert result.returncode == 0, result.stdout
    assert f"{len(FIXED_260)} of {len(FIXED_260)} passed; in the default build list {len(FIXED_260)} of" in result.stdout


@pytest.mark.shared
def test_cuda_gated_aten_core_headers_are_ported(ported_260: Path) -> None:
    """RestrictPtrTraits and the other device-only parts of ATen/core exist under __MUSACC__ in the port."""
    core = ported_260 / "generated_cuda_compatible" / "aten/src/ATen/core"
    accessor = (core / "TensorAccessor.h").read_text()
    assert "#if defined(__MUSACC__) || defined(__HIPCC__)\ntemplate <typename T>\nstruct RestrictPtrTraits" in accessor
    assert "__CUDACC__" not in (core / "TransformationHelper.h").read_text()
    philox = (core / "PhiloxRNGEngine.h").read_text()
    assert "#include <musa.h>" in philox and "__CUDA_ARCH__" not in philox


HOST_DIVISION = """\
#include <musa_runtime.h>
#include <cstdio>
__global__ void divide(const int* a, const int* b, int* out) { out[threadIdx.x] = a[threadIdx.x] / b[threadIdx.x]; }
int main(int argc, char**) {
  int *a, *b, *out;
  musaMallocManaged(&a, 4 * sizeof(int));
  musaMallocManaged(&b, 4 * sizeof(int));
  musaMallocManaged(&out, 4 * sizeof(int));
  for (int i = 0; i < 4; ++i) a[i] = 9, b[i] = i;
  musaport_launch(dim3(1), dim3(4), 0, 0, divide, a, b, out);  // b[0] == 0: the GPU's value, no trap
  std::printf("kernel: %d %d\\n", out[0], out[3]);
  std::fflush(stdout);
  volatile int zero = argc - 1;
  std::printf("host: %d\\n", 9 / zero);  // the host's own division by zero still traps
  return 0;
}
"""


@pytest.mark.compiles
def test_integer_division_by_zero_traps_only_outside_kernels(tmp_path: Path, gxx: str) -> None:
    """The runtime gives a kernel's division by zero the GPU's value (fixtures/kernels/integer_division.cu
    checks the values); the same division in host code is the program's own bug and still raises SIGFPE."""
    import signal
    import subprocess

    from musaport.resources import shim_include
    from musaport.validate.run.kernels import CXX

    cpp, exe = tmp_path / "divide.cpp", tmp_path / "divide"
    cpp.write_text(HOST_DIVISION)
    subprocess.run([CXX, "-std=c++17", "-O1", "-pthread", f"-I{shim_include()}", str(cpp), "-o", str(exe)],
                   check=True)
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert ran.stdout.startswith("kernel: -1 3\n"), ran.stdout + ran.stderr
    assert "host:" not in ran.stdout
    assert ran.returncode == -signal.SIGFPE


THREAD_INDICES = """\
#include <musa_runtime.h>
#include <cstdio>
// Barrier-free: every thread of a 3-D block runs as a plain call; each writes its indices.
__global__ void indices(unsigned* out) {
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned* o = out + 4 * (blockIdx.x * blockDim.x * blockDim.y * blockDim.z + t);
  o[0] = threadIdx.x; o[1] = threadIdx.y; o[2] = threadIdx.z; o[3] = __activemask();
}
// The first warp exits; thread 32's shuffle turns the block into fibers, so threads 0-32 ran plain and
// 33-127 start as fibers: all must see their own indices.
__global__ void promoted(unsigned* out) {
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned* o = out + 4 * (blockIdx.x * 128 + t);
  o[0] = threadIdx.x; o[1] = threadIdx.y; o[2] = threadIdx.z;
  if (t < 32) return;
  o[3] = __shfl_down_sync(0xffffffffu, t, 1);
  o[0] = threadIdx.x;  // read again after the switches: this fiber's own index, not the last one entered
}
int check(const unsigned* out, dim3 grid, dim3 block, bool shuffled) {
  const unsigned n = block.x * block.y * block.z;
  for (unsigned b = 0; b < grid.x; ++b)
    for (unsigned t = 0; t < n; ++t) {
      const unsigned* o = out + 4 * (b * n + t);
      const unsigned lane = t % 32, lanes = n - (t - lane) < 32 ? n - (t - lane) : 32;
      const unsigned want = shuffled ? (t < 32 ? 0 : lane == 31 ? t : t + 1)
                                     : ((lanes == 32 ? 0xffffffffu : (1u << lanes) - 1) & ~((1u << lane) - 1));
      if (o[0] != t % block.x || o[1] != t / block.x % block.y || o[2] != t / (block.x * block.y) || o[3] != want) {
        std::printf("FAIL block %u thread %u: %u %u %u %08x, want %08x\\n", b, t, o[0], o[1], o[2], o[3], want);
        return 1;
      }
    }
  return 0;
}
int main() {
  unsigned* out;
  musaMallocManaged(&out, 4 * 3 * 128 * sizeof(unsigned));
  for (int round = 0; round < 2; ++round) {  // a plain block after a promoted one, and the reverse
    musaMemset(out, 0, 4 * 3 * 128 * sizeof(unsigned));
    musaport_launch(dim3(3), dim3(5, 3, 4), 0, 0, [=]() { indices(out); });  // as ported launches are
    if (musaDeviceSynchronize() != musaSuccess || check(out, dim3(3), dim3(5, 3, 4), false)) return 1;
    musaMemset(out, 0, 4 * 3 * 128 * sizeof(unsigned));
    musaport_launch(dim3(3), dim3(8, 8, 2), 0, 0, promoted, out);
    if (musaDeviceSynchronize() != musaSuccess || check(out, dim3(3), dim3(8, 8, 2), true)) return 1;
  }
  std::printf("PASS\\n");
  return 0;
}
"""


@pytest.mark.compiles
@pytest.mark.parametrize("opt", ["-O0", "-O3"])
def test_block_threads_see_their_indices_before_and_after_promotion(tmp_path: Path, gxx: str, opt: str) -> None:
    """A block's threads run as plain calls of the kernel inlined into one loop (cpu/launch.h's run_threads)
    until one synchronises; the lanes of those after it are filled in only then. Every thread, plain or
    fiber, 1-D or 3-D, sees its own indices, and a block after a promoted one starts afresh."""
    import subprocess

    from musaport.resources import shim_include
    from musaport.validate.run.kernels import CXX

    cpp, exe = tmp_path / "indices.cpp", tmp_path / "indices"
    cpp.write_text(THREAD_INDICES)
    subprocess.run([CXX, "-std=c++17", opt, "-pthread", f"-I{shim_include()}", str(cpp), "-o", str(exe)],
                   check=True)
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0 and ran.stdout == "PASS\n", ran.stdout + ran.stderr


INDICES_DRIVER = r"""
#include <dlfcn.h>
#include <cstdio>
int main(int, char** argv) {
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) { std::printf("%s\\n", dlerror()); return 2; }
  return reinterpret_cast<int (*)()>(dlsym(lib, "run_checks"))();
}
"""


def _dlopened_checks(tmp_path: Path, name: str, source: bytes) -> dict[str, str]:
    """Compile ``source`` (which defines ``run_checks``) into a library at the device's kernel flags, run its
    checks through dlopen, as the device is loaded, and return its functions' disassembly by name."""
    import subprocess

    from musaport.resources import shim_include
    from musaport.validate.backend.backend import KERNEL_OPT_FLAGS
    from musaport.validate.run.kernels import CXX

    cpp, lib, driver = tmp_path / f"{name}.cpp", tmp_path / f"lib{name}.so", tmp_path / "driver.cpp"
    cpp.write_bytes(source)
    driver.write_text(INDICES_DRIVER)
    subprocess.run([CXX, "-std=c++17", "-fPIC", "-shared", "-pthread", *KERNEL_OPT_FLAGS, f"-I{shim_include()}",
                    str(cpp), "-o", str(lib)], check=True)
    subprocess.run([CXX, str(driver), "-o", str(tmp_path / "driver"), "-ldl"], check=True)
    ran = subprocess.run([str(tmp_path / "driver"), str(lib)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0 and ran.stdout == "PASS\n", ran.stdout + ran.stderr
    disassembly = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", str(lib)], capture_output=True,
                                 text=True, check=True).stdout
    return {body.split(">:", 1)[0]: body for body in disassembly.split("\n\n") if ">:" in body}


@pytest.mark.compiles
def test_a_dlopened_kernel_looks_up_its_indices_once_per_block_not_per_thread(tmp_path: Path, gxx: str) -> None:
    """The device is a dlopen'd library whose thread-locals take the general-dynamic model: each read of a
    thread-local variable is a __tls_get_addr call, which GCC does not hoist from the loop over a block's
    threads. threadIdx and blockIdx go through a const accessor instead, called once per block: the
    compiled loop has no TLS lookup of its own, and every thread, plain or fiber, still sees its indices."""
    source = THREAD_INDICES.replace("int main()", 'extern "C" int run_checks()')
    functions = _dlopened_checks(tmp_path, "indices", source.encode())
    thread_loop = next(body for name, body in functions.items() if "run_threads<run_checks::{lambda()" in name)
    assert "__tls_get_addr" not in thread_loop  # the kernel inlined into the loop over the block's threads
    assert thread_loop.count("musaport_indices_here") == 1


GRID_STRIDE_KERNEL = """\
#include <musa_runtime.h>
#include <cstdio>
__global__ void scale(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = 2 * in[i];
}
extern "C" int run_checks() {
  const int n = 10000;
  float *in, *out;
  musaMallocManaged(&in, n * sizeof(float));
  musaMallocManaged(&out, n * sizeof(float));
  for (int i = 0; i < n; ++i) in[i] = i;
  scale<<<7, 96>>>(in, out, n);
  if (musaDeviceSynchronize() != musaSuccess) return 1;
  for (int i = 0; i < n; ++i)
    if (out[i] != 2.0f * i) { std::printf("FAIL %d: %g\\n", i, out[i]); return 1; }
  std::printf("PASS\\n");
  return 0;
}
"""


@pytest.mark.compiles
def test_a_grid_stride_loop_in_the_cpu_view_looks_up_its_dims_once(tmp_path: Path, gxx: str) -> None:
    """The CPU build's view reads blockDim and gridDim through the runtime's const accessor: a grid-stride
    loop compiled from it at the device's flags, in a dlopen'd library, makes no TLS lookup per step, and
    still covers every element with a grid smaller than the data."""
    from musaport.validate.cpu.view import cpu_bytes

    functions = _dlopened_checks(tmp_path, "scale", cpu_bytes(GRID_STRIDE_KERNEL.encode()))
    kernel = next(body for name, body in functions.items() if name.endswith("<scale(float const*, float*, int)"))
    assert "__tls_get_addr" not in kernel and kernel.count("musaport_indices_here") == 1
