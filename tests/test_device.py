"""The port of 2.6.0 as torch's ``musa`` device, in the release's own torch wheel.

The library is built with CMake and Ninja (M1 operators only, to keep CI
short; ccache in the user cache makes a second CI run cheap), loaded into the
wheel's torch by the standalone loader, and PyTorch's own operators run on
``musa`` tensors and on CPU tensors and are compared.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from musaport.outdir import OutDir
from musaport.validate.backend.backend import BASE_FLAGS, FMA_FLAGS, host_has_fma, mu_flags
from musaport.validate.device.build import build_device
from musaport.validate.device.cmake_build import ninja_failures

M1 = ("empty", "copy_", "fill_", "abs", "neg", "add", "mul", "tril", "triu", "sum", "mean")

# Each M1 operator on musa against the CPU, in the dtypes PyTorch's CUDA backend has for it; a non-contiguous
# (transposed) and an empty input besides a plain one. One JSON line per operator.
M1_SCRIPT = r"""
import json, sys, torch
sys.path.insert(0, sys.argv[2])
import musaport_loader
musaport_loader.load(sys.argv[1])
torch.manual_seed(0)
assert torch.musa.is_available() and torch.musa.device_count() >= 1
assert torch.musa.get_device_capability() == torch.musa.get_device_capability(0) == (7, 0)  # the shim's
empty = torch.empty(3, device="musa")
assert empty.device.type == "musa" and empty.is_musa, empty.device
assert torch.full((4,), 2.0).to("musa").sum().item() == 8.0  # a scalar read back through pinned memory

def inputs(dtype):
    base = torch.randn(5, 7) * 10 if dtype.is_floating_point else torch.randint(-50, 50, (5, 7))
    return [base.to(dtype), base.to(dtype).t(), torch.zeros(0, 4, dtype=dtype)]

CASES = {
    "empty": lambda a: torch.empty(a.shape, dtype=a.dtype, device=a.device).zero_(),
    "copy_": lambda a: torch.empty(a.shape, dtype=torch.float64, device=a.device).copy_(a),
    "fill_": lambda a: a.clone().fill_(3),
    "abs": torch.abs,
    "neg": torch.neg,
    "add": lambda a, b: torch.add(a, b, alpha=2),
    "mul": lambda a, b: a * b,
    "tril": lambda a: torch.tril(a, 1),
    "triu": lambda a: torch.triu(a, -1),
    "sum": lambda a: a.sum(0),
    "mean": lambda a: a.mean(0) if a.dtype.is_floating_point else a.double().mean(0),
}
for name, fn in CASES.items():
    status, detail, cases = "pass", "", 0
    for dtype in (torch.float32, torch.float64, torch.int32, torch.int64):
        for a in inputs(dtype):
            try:
                b = (a * 3 - 2).to(a.dtype)  # a second operand, made on the CPU
                args = (a, b) if name in ("add", "mul") else (a,)
                want = fn(*args)
                got = fn(*(x.to("musa") for x in args))
                assert got.device.type == "musa", got.device
                torch.testing.assert_close(got.cpu(), want, rtol=1e-5, atol=1e-5, equal_nan=True)
                cases += 1
            except Exception as exc:
                status, detail = "fail", f"{dtype} {tuple(a.shape)}: {str(exc).splitlines()[0][:300]}"
                break
        if status != "pass":
            break
    print(json.dumps({"op": name, "status": status, "detail": detail, "cases": cases}), flush=True)
"""


@pytest.fixture(scope="module")
def device_m1(torch_env, ported_260: Path, cmake: str, gxx: str, tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("device") / "out"
    shutil.copytree(ported_260, out, symlinks=True)  # the shared port stays as run made it
    return build_device(OutDir(out), M1, os.cpu_count() or 2, progress=lambda m: None)


def _python(build, code: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(build.python), "-c", code, str(build.library), str(build.loader.parent), *args],
                          capture_output=True, text=True, cwd=build.loader.parent, timeout=900,
                          env={**os.environ, **(env or {})})


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
def test_m1_operators_run_on_musa_in_the_real_torch(device_m1) -> None:
    build = device_m1
    assert build.library is not None, build.figures
    assert build.release == "2.6.0" and build.figures["whole_lists"] is False
    statuses = {n: o.status for n, o in build.operators.items()}
    assert statuses["copy_"] == "not-registered"  # composite: it runs through _copy_from and the copy kernel
    assert {n: s for n, s in statuses.items() if n != "copy_" and s != "built"} == {}
    assert build.operators["tril"].files == ("aten/src/ATen/native/musa/TriangularOps.mu",)
    done = _python(build, M1_SCRIPT)
    rows = {r["op"]: r for r in map(json.loads, [ln for ln in done.stdout.splitlines() if ln.startswith("{")])}
    failing = {op: r["detail"] for op, r in rows.items() if r["status"] != "pass"}
    assert done.returncode == 0 and set(rows) == set(M1), done.stderr[-3000:]
    assert failing == {}
    assert all(r["cases"] == 12 for r in rows.values()), rows


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
def test_a_conjugate_or_negative_view_copies_through_the_copy_kernel(device_m1) -> None:
    """at::native::copy_ sends a musa copy to _copy_from; a source with the conjugate (or negative) bit
    must reach the ported copy kernel, which resolves it, instead of the bit's fallback, whose clone()
    copies through _copy_from again with the bit still set (a stack overflow: SIGSEGV)."""
    _passes_on_musa(device_m1, "x = torch.tensor([1+2j, -3+0.5j, 4-1j]); d = x.to('musa'); "
                    "torch.testing.assert_close(d.conj().cpu(), x.conj()); "
                    "torch.testing.assert_close(d.conj().resolve_conj().cpu(), x.conj()); "
                    "torch.testing.assert_close(torch._neg_view(d).cpu(), -x); "
                    "torch.testing.assert_close(torch._neg_view(d).resolve_neg().cpu(), -x)")


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
def test_a_new_generator_of_the_device_is_the_ported_one(device_m1) -> None:
    """torch.Generator("musa") asks for the generator a PrivateUse1 backend registers; it seeds, and its
    state (the ported Philox generator's seed and offset) goes back and forth."""
    _passes_on_musa(device_m1, "g = torch.Generator('musa'); g.manual_seed(7); "
                    "assert g.device.type == 'musa' and g.initial_seed() == 7, (g.device, g.initial_seed()); "
                    "state = g.get_state(); h = torch.Generator(device='musa'); h.set_state(state); "
                    "assert h.initial_seed() == 7 and torch.equal(h.get_state(), state)")


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
def test_libtorch_asking_for_the_device_allocator_gets_the_ported_one(device_m1) -> None:
    """torch.UntypedStorage and quantized tensors (new_qtensor) take c10::GetAllocator(PrivateUse1); unset,
    a release libtorch returns null and crashes on it (test_flip's quantized tensors)."""
    _passes_on_musa(device_m1, "s = torch.UntypedStorage(64, device='musa'); "
                    "assert s.device.type == 'musa' and s.nbytes() == 64 and s.data_ptr() != 0, s")


def _passes_on_musa(build, statements: str) -> None:
    """Python statements, run in the torch environment once the device is loaded, finish without error."""
    code = ("import sys, torch; sys.path.insert(0, sys.argv[2]); import musaport_loader; "
            f"musaport_loader.load(sys.argv[1]); {statements}; print('ok')")
    done = _python(build, code)
    assert done.returncode == 0 and done.stdout.split() == ["ok"], done.stderr[-2000:]


REFS_MODE_RNG = """
class NoDataPtr(torch.overrides.TorchFunctionMode):
    # as PyTorch's TorchRefsMode in strict mode: a Python call of Tensor.data_ptr is refused
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.Tensor.data_ptr:
            raise RuntimeError("no _refs support for torch.Tensor.data_ptr")
        return func(*args, **(kwargs or {}))

with NoDataPtr():
    state = torch.musa.get_rng_state()
    torch.musa.set_rng_state(state)
assert torch.equal(torch.musa.get_rng_state(), state)
"""


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
def test_the_device_rng_state_goes_through_a_torch_function_mode(device_m1) -> None:
    """test_ops.py's reference tests freeze the device's generator inside TorchRefsMode, which refuses a
    Python call of Tensor.data_ptr; the loader's get/set_rng_state hand the library a pointer taken in
    Python, so they do it with torch functions disabled, as CUDA's (in C++) is never seen by a mode
    (7 `_refs.randn` failures of test_ops.py on the whole device)."""
    _passes_on_musa(device_m1, f"exec({REFS_MODE_RNG!r})")


def _dynamic_symbols(library: Path) -> set[str]:
    done = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True, check=True)
    return {cols[2] for cols in (ln.split() for ln in done.stdout.splitlines()) if len(cols) == 3 and cols[1] in "TW"}


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
def test_calls_inside_the_backend_bind_to_the_ported_definitions(device_m1) -> None:
    """libtorch_cuda.so, loaded in the same process, defines some of the backend's functions too.
    The backend's own calls to them must not go through the PLT (where the dynamic linker would pick
    CUDA's, loaded first), and at run time no such call binds to libtorch_cuda.so."""
    build = device_m1
    ours = _dynamic_symbols(build.library)
    torch_lib = next(build.python.parent.parent.glob("lib/python*/site-packages/torch/lib"))
    shared = ours & _dynamic_symbols(torch_lib / "libtorch_cuda.so")
    native = {s for s in shared if s.startswith("_ZN2at6native")}
    assert native, "the M1 backend defines no at::native function libtorch_cuda.so defines too: nothing to check"
    relocs = subprocess.run(["readelf", "-W", "--relocs", str(build.library)], capture_output=True, text=True,
                            check=True).stdout
    through_plt = {m.group(1) for m in re.finditer(r"R_X86_64_JUMP_SLOT\s+\S+\s+(\S+?)(?:@\S*)?\s", relocs)}
    assert through_plt & ours == set(), sorted(through_plt & ours)[:10]
    # At run time: every binding the dynamic linker makes for the backend, while tril runs on musa.
    code = ("import sys, torch; sys.path.insert(0, sys.argv[2]); import musaport_loader; "
            "musaport_loader.load(sys.argv[1]); x = torch.arange(12.).reshape(3, 4).to('musa'); "
            "print(torch.tril(x).cpu().sum().item(), torch.triu(x, 1).sum().item())")
    done = _python(build, code, env={"LD_DEBUG": "bindings", "LD_DEBUG_OUTPUT": str(build.loader.parent / "ld")})
    assert done.returncode == 0 and done.stdout.split() == ["36.0", "30.0"], done.stderr[-2000:]
    log = "".join(p.read_text(errors="replace") for p in build.loader.parent.glob("ld.*"))
    for p in build.loader.parent.glob("ld.*"):
        p.unlink()
    name = re.escape(build.library.name)
    to_cuda = set(re.findall(rf"binding file \S*{name} \[\d+\] to \S*libtorch_cuda\.so \[\d+\]: \w+ symbol `([^']+)'", log))
    assert "libmusaport_backend" in log  # the log did record the backend's bindings
    assert to_cuda & ours == set(), sorted(to_cuda & ours)[:10]


# c10::complex<float>'s product, as its operator*= writes it.
COMPLEX_MUL = r"""
#include <cstdio>
struct C { float r, i; };
__attribute__((noinline)) C mul(C x, C y) { float a = x.r, b = x.i, c = y.r, d = y.i; return {a * c - b * d, a * d + b * c}; }
int main() { C p = mul({-501.f, -1e20f}, {-501.f, 1e20f}); std::printf("%g %g\n", p.r, p.i); }
"""


@pytest.mark.compiles
def test_device_code_fuses_multiply_add_as_gpu_compilers_do(tmp_path: Path, gxx: str) -> None:
    """(-501-1e20j)(-501+1e20j): a GPU compiler fuses a*d + b*c, so the imaginary part keeps the rounding
    error of b*c (3.2e14, CUDA's and the CPU's element loop's answer); unfused, it cancels to 0."""
    if not host_has_fma():
        assert not set(FMA_FLAGS) & set(mu_flags())  # a host without FMA compiles as before
        return
    source = tmp_path / "mul.cpp"
    source.write_text(COMPLEX_MUL)
    answers = []
    for extra in ([], [f for f in mu_flags() if f in FMA_FLAGS]):
        binary = tmp_path / f"mul{len(answers)}"
        subprocess.run([gxx, *BASE_FLAGS, *extra, str(source), "-o", str(binary)], check=True)
        answers.append(subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout.split())
    assert answers == [["inf", "0"], ["inf", "3.16659e+14"]]


def test_fma_is_read_from_the_cpu_flags(tmp_path: Path) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 fma bmi2\n")
    assert host_has_fma(info)
    info.write_text("processor\t: 0\nflags\t\t: fpu sse2 fmaX\n")
    assert not host_has_fma(info) and not host_has_fma(tmp_path / "missing")


def test_ninja_failures_give_each_object_its_first_error() -> None:
    stdout = "\n".join([
        "[1/3] Building CXX object CMakeFiles/musaport_objects.dir/cpu/a.mu.o",
        "FAILED: [code=1] CMakeFiles/musaport_objects.dir/cpu/b.mu.o ",
        "/usr/bin/g++ -c b.mu -o CMakeFiles/musaport_objects.dir/cpu/b.mu.o",
        "In file included from b.mu:1:",
        "b.mu:3:1: error: 'x' was not declared in this scope",
        "b.mu:4:1: error: second",
        "[2/3] Building CXX object CMakeFiles/musaport_objects.dir/cpu/c.cpp.o",
        "FAILED: CMakeFiles/musaport_objects.dir/cpu/c.cpp.o",
        "g++ -c c.cpp",
        "c.cpp:1:1: error: expected ';'",
        "ninja: build stopped: cannot make progress due to previous errors.",
    ])
    assert ninja_failures(stdout) == {
        "CMakeFiles/musaport_objects.dir/cpu/b.mu.o": "b.mu:3:1: error: 'x' was not declared in this scope",
        "CMakeFiles/musaport_objects.dir/cpu/c.cpp.o": "c.cpp:1:1: error: expected ';'",
    }


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
def test_a_file_that_does_not_compile_takes_out_only_its_operators(torch_env, ported_260: Path, cmake: str, gxx: str,
                                                                   tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(ported_260, out, symlinks=True)
    broken = OutDir(out).tree / "aten/src/ATen/native/musa/TriangularOps.mu"
    broken.write_text(broken.read_text(encoding="utf-8") + "\nthis is not C++;\n", encoding="utf-8")
    # The M1 selection: every object but the broken one and the smaller registration is in ccache already.
    build = build_device(OutDir(out), M1, os.cpu_count() or 2, progress=lambda m: None)
    tril = build.operators["tril"]
    assert tril.status == "build-error" and tril.file == "aten/src/ATen/native/musa/TriangularOps.mu", tril
    assert "TriangularOps.mu" in tril.error and "error" in tril.error
    assert build.operators["triu_"].status == "build-error"  # the same file
    assert {n for n, o in build.operators.items() if o.status == "built"} >= {"abs.out", "sum.dim_IntList", "add.Tensor"}
    assert build.library is not None, build.figures
    done = _python(build, "import sys, torch; sys.path.insert(0, sys.argv[2]); import musaport_loader; "
                          "musaport_loader.load(sys.argv[1]); print(torch.abs(torch.tensor([-2.0]).to('musa')).item())")
    assert done.returncode == 0 and done.stdout.strip() == "2.0", done.stderr[-2000:]


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
def test_a_function_whose_file_does_not_compile_is_a_stub_not_an_outage(torch_env, ported_260: Path, cmake: str, gxx: str,
                                                                        tmp_path: Path) -> None:
    """Blas.cpp calls f8f8bf16_rowwise, defined in RowwiseScaledMM.mu, which cannot compile on MUSA: the
    callers' other operators must still build. Here TriangularOps.mu (tril, triu) gains a call into
    tunable/StreamTimer.cpp, which is then broken: the call becomes a stub that raises, tril still runs."""
    out = tmp_path / "out"
    shutil.copytree(ported_260, out, symlinks=True)
    tree = OutDir(out).tree
    caller = tree / "aten/src/ATen/native/musa/TriangularOps.mu"
    caller.write_text(caller.read_text(encoding="utf-8") + "\n#include <ATen/musa/tunable/StreamTimer.h>\n"
                      "namespace musaport_test { void time_it() { at::musa::tunable::StreamTimer t; t.Start(); } }\n",
                      encoding="utf-8")
    broken = tree / "aten/src/ATen/musa/tunable/StreamTimer.cpp"
    broken.write_text(broken.read_text(encoding="utf-8") + "\nthis is not C++;\n", encoding="utf-8")
    build = build_device(OutDir(out), M1, os.cpu_count() or 2, progress=lambda m: None)
    assert build.library is not None, build.figures
    assert "aten/src/ATen/musa/tunable/StreamTimer.cpp" in build.figures["failed_sources"]
    assert build.operators["tril"].status == "built", build.operators["tril"]
    stubs = (build.library.parent / "gen" / "unbuilt.cpp").read_text(encoding="utf-8")
    assert "at::musa::tunable::StreamTimer::Start()" in stubs and "StreamTimer.cpp did not compile: " in stubs
    assert "_ZN2at4musa7tunable11StreamTimer5StartEv" in _dynamic_symbols(build.library)
    done = _python(build, "import sys, torch; sys.path.insert(0, sys.argv[2]); import musaport_loader; "
                          "musaport_loader.load(sys.argv[1]); print(torch.tril(torch.ones(2, 2).to('musa')).sum().item())")
    assert done.returncode == 0 and done.stdout.strip() == "3.0", done.stderr[-2000:]


# A call added to TriangularOps.mu (tril) of a function no ported file defines, the stub it links to, and its reason.
NO_DEFINITION = {
    # attention.mu calls run_cudnn_SDP_fprop, which only native/cudnn (not ported) defines: the transformer
    # kernels' file left the device, taking _native_multi_head_attention with it.
    "cuDNN, which the port leaves out": (
        "namespace at::native { void run_cudnn_probe(int); }\n"
        "namespace musaport_test { void probe() { at::native::run_cudnn_probe(1); } }\n",
        "at::native::run_cudnn_probe(int)", "cuDNN is not part of a MUSA build"),
}


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
@pytest.mark.parametrize("library", list(NO_DEFINITION))
def test_a_library_function_nothing_defines_is_a_stub_that_names_the_library(
        library: str, torch_env, ported_260: Path, cmake: str, gxx: str, tmp_path: Path) -> None:
    """The file that calls it stays in the device, the call links to a stub that says why, and tril still runs."""
    call, stub, reason = NO_DEFINITION[library]
    out = tmp_path / "out"
    shutil.copytree(ported_260, out, symlinks=True)
    caller = OutDir(out).tree / "aten/src/ATen/native/musa/TriangularOps.mu"
    caller.write_text(caller.read_text(encoding="utf-8") + "\n" + call, encoding="utf-8")
    build = build_device(OutDir(out), M1, os.cpu_count() or 2, progress=lambda m: None)
    assert build.library is not None, build.figures
    assert build.operators["tril"].status == "built", build.operators["tril"]
    stubs = (build.library.parent / "gen" / "unbuilt.cpp").read_text(encoding="utf-8")
    assert stub in stubs and reason in stubs
    done = _python(build, "import sys, torch; sys.path.insert(0, sys.argv[2]); import musaport_loader; "
                          "musaport_loader.load(sys.argv[1]); print(torch.tril(torch.ones(2, 2).to('musa')).sum().item())")
    assert done.returncode == 0 and done.stdout.strip() == "3.0", done.stderr[-2000:]


def test_only_cudnn_functions_become_library_stubs() -> None:
    from musaport.validate.backend.backend import without_vendor

    assert "cuDNN" in without_vendor("_ZN2at6native19cudnn_is_acceptableERKNS_6TensorE")
    # muSPARSE is the shim's own now (musparse.h computes what it declares): an undefined call is a porting error
    assert without_vendor("_Z20musparseDestroyDnMatP18musparseDnMatDescr") == ""
    assert without_vendor("_ZN2at6native7add_outERKNS_6TensorE") == ""  # at::native::add_out(at::Tensor const&)
    assert without_vendor("_ZN2at4musa5cudnnEv") == ""  # at::musa::cudnn(): not at::native


def test_stub_messages_are_c_string_literals() -> None:
    from musaport.validate.backend.backend import c_string

    assert c_string('a "b" \\ c?') == 'a \\"b\\" \\\\ c\\?'
    assert c_string("\u2018x\u2019\n") == "\\342\\200\\230x\\342\\200\\231\\012"


def test_a_large_registration_is_split_into_stable_shards() -> None:
    from musaport.validate.backend.backend import SHARD_AT, registration_shards

    few = [f"op{i}" for i in range(SHARD_AT)]
    assert registration_shards(few) == {0: few}
    many = [f"op{i}" for i in range(1200)]
    shards = registration_shards(many)
    assert len(shards) > 8 and sorted(n for chunk in shards.values() for n in chunk) == sorted(many)
    fewer = registration_shards([n for n in many if n != "op7"])  # an operator leaves the build
    changed = [i for i in shards if shards[i] != fewer.get(i)]
    assert len(changed) == 1 and "op7" in shards[changed[0]]


def test_a_build_folder_copied_with_its_out_folder_is_known_as_configured_elsewhere(cmake: str, tmp_path: Path) -> None:
    """cp -r out out2 copies musaport's CMake build folder too, which CMake refuses to reuse at the new place;
    the builder tells such a folder by CMake's own cache and configures it afresh."""
    from musaport.validate.device.cmake_build import moved_from

    first = tmp_path / "out" / "state"
    first.mkdir(parents=True)
    (first / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.18)\nproject(p NONE)\n", encoding="utf-8")
    done = subprocess.run([cmake, "-S", str(first), "-B", str(first / "build")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert moved_from(first / "build") is None
    copy = tmp_path / "out2" / "state"
    shutil.copytree(first, copy)
    assert moved_from(copy / "build") == str(first / "build")
    assert moved_from(tmp_path / "never-configured") is None
