"""validate --backend: the port linked against the real libtorch runs PyTorch operators on PrivateUse1."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from conftest import musaport
from musaport.errors import LoadError
from musaport.validate.backend.backend import DtypeResult, OpResult, parse_rows
from musaport.validate.backend.render import rows
from musaport.validate.backend.samples import load_catalog
from musaport.validate.cpu.view import EMULATED_ARCH, arch_branches, cpu_bytes, refresh
from musaport.validate.device.cmake_build import CMakeBuilder, undefined_references
from musaport.validate.torchwheel import libtorch as lt

M1 = ("empty", "copy_", "fill_", "abs", "neg", "add", "mul", "tril", "triu", "sum", "mean")

# --- the catalog ---------------------------------------------------------------------------------


def test_bundled_catalog_holds_the_m1_operators() -> None:
    catalog = load_catalog()
    assert set(M1) <= set(catalog.samples)
    assert "c10/musa/impl/MUSAGuardImpl.cpp" in catalog.runtime
    assert [s.name for s in catalog.select(("tril", "abs"))] == ["abs", "tril"]  # catalog order


@pytest.mark.parametrize(("entry", "message"), [
    ("  - {name: x, call: 'a', inputs: 3}", ":3: 'inputs' must be 1 or 2"),
    ("  - {name: x, call: 'a', dtypes: [quad]}", ":3: unknown dtype(s) quad"),
    ("  - {name: 'x y', call: 'a'}", ":3: sample name 'x y' is not an identifier"),
    ("  - {name: x, call: 'a', colour: red}", ":3: unknown key(s) in sample: colour"),
    ("  - {name: x, call: 'a'}\n  - {name: x, call: 'b'}", ":4: sample 'x' is already declared at"),
])
def test_a_bad_catalog_entry_names_its_file_and_line(tmp_path: Path, entry: str, message: str) -> None:
    path = tmp_path / "ops.yaml"
    path.write_text(f"base: []\nops:\n{entry}\n")
    with pytest.raises(LoadError, match=str(path).replace(".", r"\.") + message.replace("(", r"\(").replace(")", r"\)")):
        load_catalog(path)


def test_an_unknown_operator_is_named_with_the_known_ones() -> None:
    with pytest.raises(LoadError, match="no sample for frobnicate; known: empty, copy_"):
        load_catalog().select(("frobnicate",))


# --- libtorch ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "version"), [("2.6.0a0\n", "2.6.0"), ("1.13.1", "1.13.1"), ("2.6.0+git1", "2.6.0")])
def test_release_of_a_tree(tmp_path: Path, text: str, version: str) -> None:
    (tmp_path / "version.txt").write_text(text)
    assert lt.release(tmp_path) == version


def test_a_tree_without_a_version_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "version.txt").write_text("main\n")
    with pytest.raises(LoadError, match=r"version.txt:1: not a PyTorch version: 'main'"):
        lt.release(tmp_path)


@pytest.mark.parametrize(("suffix", "flags"), [
    ("Pv", []),
    ("PvS4_S4_", ["-DHAVE_AVX512_CPU_DEFINITION", "-DHAVE_AVX2_CPU_DEFINITION"]),
])
def test_cpu_capabilities_are_read_from_the_exported_dispatch_stub(suffix: str, flags: list[str]) -> None:
    line = f"  7: 0 FUNC GLOBAL DEFAULT 12 _ZN2at6native16DispatchStubImpl12get_call_ptrEN3c1010DeviceTypeE{suffix}"
    assert lt.capability_flags(line) == flags


def test_a_library_without_dispatch_stubs_is_not_libtorch() -> None:
    with pytest.raises(LoadError, match="not a libtorch"):
        lt.capability_flags("  1: 0 FUNC GLOBAL DEFAULT 12 main")


def test_a_given_torch_of_another_release_is_refused(tmp_path: Path) -> None:
    torch = tmp_path / "torch"
    (torch / "lib").mkdir(parents=True)
    (torch / "include").mkdir()
    (torch / "lib/libtorch_cpu.so").write_bytes(b"")
    (torch / "version.py").write_text("__version__ = '2.5.1+cpu'\n")
    with pytest.raises(LoadError, match=r"libtorch 2\.5\.1 does not match the ported tree's release 2\.6\.0"):
        lt.given(torch, "2.6.0")
    assert lt.given(torch, "2.5.1").root == tmp_path


# --- the CPU view and the object cache -----------------------------------------------------------

def test_cpu_view_converts_launches_and_copies_the_rest(tmp_path: Path) -> None:
    tree, view = tmp_path / "tree", tmp_path / "view"
    (tree / "a").mkdir(parents=True)
    (tree / "a/k.mu").write_bytes(b"void f() { k<<<1, 2>>>(x); }\n")
    (tree / "a/h.h").write_bytes(b"int x; // k<<<1, 2>>>(x)\n")
    (view / "gone.h").parent.mkdir(parents=True)
    (view / "gone.h").write_bytes(b"")
    assert refresh(tree, view) == []
    assert (view / "a/k.mu").read_bytes() == b"void f() { musaport_launch(1, 2, 0, 0, [&]() { k(x); }); }\n"
    assert (view / "a/h.h").read_bytes() == (tree / "a/h.h").read_bytes()
    assert not (view / "gone.h").exists()
    assert (tree / "a/k.mu").read_bytes() == b"void f() { k<<<1, 2>>>(x); }\n"  # the port is never edited


def test_a_launch_that_cannot_be_converted_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "bad.muh").write_bytes(b"int y;\nk<<<1>>>;\n")
    problems = refresh(tree, tmp_path / "view")
    assert [p.file for p in problems] == ["bad.muh"] and "line 2" in problems[0].error
    assert cpu_bytes(b"int x;\n") == b"int x;\n"


HOST_ASSERTS = b"""inline float sign_of(float x, float y) {
#if defined(__MUSA_ARCH__) || defined(__HIPCC__)
  return ::copysignf(x, y);
#else
  // the real host never calls this
  TORCH_INTERNAL_ASSERT(
      false, "should not run on the CPU");
#endif
}
"""


def test_cpu_view_takes_the_device_branch_where_the_host_branch_only_asserts() -> None:
    """On the CPU runtime the device is the host: a kernel calling this must get copysignf, not the assert."""
    seen = cpu_bytes(HOST_ASSERTS)
    assert seen.splitlines()[1] == (b"#if 1 // musaport cpu view, device branch: "
                                    b"#if defined(__MUSA_ARCH__) || defined(__HIPCC__)")
    assert seen.count(b"\n") == HOST_ASSERTS.count(b"\n")  # compiler lines stay where the port has them
    both = HOST_ASSERTS.replace(b"  // the real host never calls this\n", b"  float z = x;\n")
    assert cpu_bytes(both) == both  # a host branch that computes stays the host's
    nested = HOST_ASSERTS.replace(b"#else\n", b"#elif defined(FOO)\n  return 0;\n#else\n")
    assert cpu_bytes(nested) == nested
    kernel_assert = HOST_ASSERTS.replace(b"TORCH_INTERNAL_ASSERT(\n      false, \"should not run on the CPU\");",
                                         b"CUDA_KERNEL_ASSERT(false);\n  return 0.f;")
    assert cpu_bytes(kernel_assert).splitlines()[1].startswith(b"#if 1 // musaport cpu view")  # assert, then return
    computes = kernel_assert.replace(b"return 0.f;", b"return x;")
    assert cpu_bytes(computes).splitlines()[1].startswith(b"#if 1")  # a placeholder return of any value
    after = kernel_assert.replace(b"return 0.f;", b"return 0.f;\n  x = 1;")
    assert cpu_bytes(after) == after  # code after the return: not a placeholder


GRID_STRIDE = b"""// blockDim.x in a comment stays
__global__ void fill(float* a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim . x * gridDim.x) a[i] = 1;
  printf("blockDim.x %d", gridDim.y);
}
"""


def test_cpu_view_reads_block_and_grid_dims_through_the_accessor() -> None:
    """A grid-stride loop reads blockDim and gridDim at every step; as thread-locals of the dlopen'd device
    each read was a TLS lookup, through the runtime's const accessor they are looked up once."""
    seen = cpu_bytes(GRID_STRIDE).decode()
    assert seen.count("musaport_indices_here()->block_dim") == 2 and seen.count("musaport_indices_here()->grid_dim") == 2
    assert "// blockDim.x in a comment stays" in seen and '"blockDim.x %d"' in seen  # comments and strings as written
    assert "blockIdx.x" in seen and "threadIdx.x" in seen  # those two are the runtime's own macros


@pytest.mark.parametrize("other_use", [
    "void host(int n) { dim3 gridDim((n + 255) / 256); fill<<<gridDim, 256>>>(nullptr, n); }\n",  # a local
    "void bsr(int blockDim);\n",  # a parameter (cuSPARSE's BSR API)
    "struct Config { dim3 gridDim; };\n",  # a member
])
def test_cpu_view_leaves_a_dim_name_that_the_file_uses_otherwise(other_use: str) -> None:
    """Where the file gives the name to something else, a read of it may be that thing's: kept as written."""
    name = "blockDim" if "blockDim" in other_use else "gridDim"
    seen = cpu_bytes(GRID_STRIDE + other_use.encode()).decode()
    assert f"musaport_indices_here()->{'block_dim' if name == 'blockDim' else 'grid_dim'}" not in seen
    assert "musaport_indices_here()->" in seen  # the other name is still read through the accessor


@pytest.mark.shared
def test_cpu_view_of_the_real_kernel_loop_macro(ported_260: Path) -> None:
    """PyTorch 2.6.0's CUDA_KERNEL_LOOP, the grid-stride loop of its pooling, upsampling and index kernels."""
    data = (ported_260 / "generated_cuda_compatible/aten/src/ATen/musa/detail/KernelUtils.h").read_bytes()
    seen = cpu_bytes(data).decode()
    loop = seen[seen.index("#define MUSA_KERNEL_LOOP_TYPE"):]
    loop = loop[:loop.index("\n\n")]
    assert "_i_n_d_e_x+=musaport_indices_here()->block_dim.x * musaport_indices_here()->grid_dim.x" in loop
    assert data.decode().count("blockDim.x * gridDim.x") >= 1


@pytest.mark.shared
def test_cpu_view_of_the_real_math_compat_header(ported_260: Path) -> None:
    """PyTorch 2.6.0's CUDAMathCompat.h: copysign (floor_divide, div with rounding_mode='floor', geqrf)."""
    data = (ported_260 / "generated_cuda_compatible/c10/musa/MUSAMathCompat.h").read_bytes()
    seen = cpu_bytes(data).decode()
    assert seen.count("#if 1 // musaport cpu view, device branch:") == 2  # float and double copysign
    assert data.decode().count("#if defined(__MUSA_ARCH__) || defined(__HIPCC__)") == 2


@pytest.mark.shared
def test_cpu_view_of_the_real_radix_select_header(ported_260: Path) -> None:
    """PyTorch 2.6.0's SortingRadixSelect.cuh: float16's radix conversion has a host branch that asserts and
    returns 0, so on the CPU kthvalue, median and topk of float16 hit a device assert without the view."""
    data = (ported_260 / "generated_cuda_compatible/aten/src/ATen/native/musa/SortingRadixSelect.muh").read_bytes()
    seen = cpu_bytes(data).decode()
    half = seen[seen.index("struct TopKTypeConfig<at::Half>"):seen.index("struct TopKTypeConfig<at::BFloat16>")]
    assert half.count("#if 1 // musaport cpu view, device branch: #if defined(__MUSA_ARCH__) || defined(USE_ROCM)") == 2
    assert seen.count("#if 1 // musaport cpu view") == 2  # no other branch of the file


@pytest.mark.compiles
def test_objects_are_rebuilt_only_when_a_header_they_read_changes(tmp_path: Path, monkeypatch, gxx: str,
                                                                   cmake: str) -> None:
    """Backend mode builds through the device's CMake project: Ninja's depfiles decide what is rebuilt."""
    view = tmp_path / "cpu"
    view.mkdir()
    (view / "h.h").write_text("#define V 1\n")
    a, b = view / "a.cpp", view / "b.cpp"
    a.write_text('#include "h.h"\nint fa() { return V; }\n')
    b.write_text("int fb() { return 2; }\n")
    monkeypatch.setenv("MUSAPORT_COMPILER_LAUNCHER", "none")  # the user's compiler cache stays out of it
    builder = CMakeBuilder(tmp_path, tmp_path, view, ["-std=c++17", "-fPIC"], [], [], [], False, 2, log=lambda _: None)
    first = builder.compile([a, b], [])
    assert [x.reused for x in first] == [False, False] and all(x.obj for x in first)
    time.sleep(0.01)  # a new mtime for the header, whatever the file system's granularity
    (view / "h.h").write_text("#define V 2\n")
    second = builder.compile([a, b], [])
    assert [x.reused for x in second] == [False, True]
    b.write_text("int fb() { return }\n")
    third = builder.compile([a, b], [])
    assert third[0].reused and third[1].obj is None and "error" in third[1].error


# --- the driver's output and the table -----------------------------------------------------------

def test_driver_rows_and_table() -> None:
    out = ('noise\n{"op": "abs", "dtype": "float", "status": "pass", "max_error": 0, "cases": 3, "detail": ""}\n'
           '{"op": "abs", "dtype": "int", "status": "fail", "max_error": 2, "cases": 1, "detail": "5x7: first mismatch"}\n')
    parsed = parse_rows(out)
    assert parsed == [DtypeResult("float", "pass", 0.0, 3, ""), DtypeResult("int", "fail", 2.0, 1, "5x7: first mismatch")]
    table = rows([OpResult("abs", "fail", "int: 5x7: first mismatch", tuple(parsed)),
                  OpResult("add", "build-error", "UfuncMUSA_add.mu: error")])
    assert table == [("abs", "float", "0", "pass", ""), ("abs", "int", "2", "fail", "5x7: first mismatch"),
                     ("add", "", "", "build-error", "UfuncMUSA_add.mu: error")]


def test_undefined_references_are_traced_to_the_objects_that_call_them() -> None:
    stderr = "\n".join([
        "/usr/bin/ld: /b/obj/Sort-3.o: in function `_ZN3c1015maybe_wrapIlEET_S1_':",
        "Sort.mu:(.text+0x26): undefined reference to `_ZN2at6native21disable_sort_for_topkEv'",
        "/usr/bin/ld: Sort.mu:(.text+0x12b): undefined reference to `_ZN2at4musa4sortERKNS_6TensorE'",
        "/usr/bin/ld: /b/obj/TensorTopK-1.o: in function `f':",
        "TensorTopK.mu:(.text+0x1): undefined reference to `_ZN2at4musa4sortERKNS_6TensorE'",
        "collect2: error: ld returned 1 exit status",
    ])
    assert undefined_references(stderr) == {
        "_ZN2at6native21disable_sort_for_topkEv": {Path("/b/obj/Sort-3.o")},
        "_ZN2at4musa4sortERKNS_6TensorE": {Path("/b/obj/Sort-3.o"), Path("/b/obj/TensorTopK-1.o")},
    }


# --- the command ---------------------------------------------------------------------------------

def test_backend_mode_rejects_file_patterns_and_stray_options(tmp_path: Path) -> None:
    done = musaport("validate", "--backend", "--out", str(tmp_path), "*.mu")
    assert done.returncode == 2 and "--backend takes no file patterns" in done.stderr
    done = musaport("validate", "--compile", "--samples", "abs", "--out", str(tmp_path))
    assert done.returncode == 2 and "--samples and --libtorch go with --backend" in done.stderr


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
def test_m1_operators_run_on_privateuse1_through_the_real_libtorch(ported_260: Path, torch_env, gxx: str,
                                                                  tmp_path: Path) -> None:
    """The port of 2.6.0, linked against libtorch 2.6.0 (fetched into the user cache once), runs
    every M1 operator on PrivateUse1 tensors and matches PyTorch's own CPU results."""
    out = tmp_path / "out"
    shutil.copytree(ported_260, out, symlinks=True)  # the shared port stays as run made it
    done = musaport("validate", "--backend", "--out", str(out), "--samples", ",".join(M1))
    report = json.loads((out / "validate_backend_report.json").read_text())
    assert report["torch_version"] == "2.6.0"
    failing = {op: r["reason"] for op, r in report["ops"].items() if r["status"] != "pass"}
    assert failing == {}, done.stdout[-3000:] + done.stderr[-3000:]
    assert set(report["ops"]) == set(M1) and done.returncode == 0
    assert set(report["ops"]["tril"]["dtypes"]) == {"float", "double", "int", "long"}
    assert "11 of 11 operators pass on PrivateUse1 with libtorch 2.6.0" in done.stdout
    again = musaport("validate", "--backend", "--out", str(out), "--samples", "tril")
    build = json.loads((out / "validate_backend_report.json").read_text())["build"]
    assert again.returncode == 0 and build["compiled"] == 1 and build["reused"] == build["objects"] - 1, build
    # the one compiled object is the registration: --samples tril registers fewer operators


# torch-harmonics' ring attention: four scalar atomic adds below sm_90, the float4 atomicAdd that only sm_90 has above.
ARCH_SPLIT = b"""\
#if defined(__MUSA_ARCH__) && __MUSA_ARCH__ < 900
  constexpr bool DO_SPLIT_VEC = true;
#else
  constexpr bool DO_SPLIT_VEC = false;
#endif
#ifdef __MUSA_ARCH__
#endif
"""


def test_an_extensions_architecture_branch_is_the_emulated_devices_own() -> None:
    """The host pass leaves __MUSA_ARCH__ undefined, which picks the newest architecture's branch; the emulated
    device reports compute capability 7.0, so an extension's device source takes what 700 selects."""
    seen = arch_branches(ARCH_SPLIT)
    assert seen.splitlines()[0] == (b"#if 1 && 700 < 900 // musaport cpu view, device arch 700: "
                                    b"defined(__MUSA_ARCH__) && __MUSA_ARCH__ < 900")
    assert seen.splitlines()[1:] == ARCH_SPLIT.splitlines()[1:]  # a host/device test without a number stays
    assert cpu_bytes(ARCH_SPLIT, EMULATED_ARCH) == seen and cpu_bytes(ARCH_SPLIT) == ARCH_SPLIT
    assert arch_branches(b"#if __MUSA_ARCH__ >= 800 \\\n  && X\n") == b"#if __MUSA_ARCH__ >= 800 \\\n  && X\n"


def test_the_emulated_architecture_is_what_the_shim_reports() -> None:
    header = (Path(__file__).parents[1] / "musaport/shim/include/musa_runtime_api.h").read_text()
    assert f"prop->major = {EMULATED_ARCH // 100};" in header and f"prop->minor = {EMULATED_ARCH % 100 // 10};" in header
