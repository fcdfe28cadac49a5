"""``validate --extension`` on vecops (fixtures/extensions/vecops, written for this): compile, build, tests.

The PyTorch port is 2.6.0's with an M1 device (its build is the one
``tests/test_device.py`` makes; the compiler cache makes the second cheap).
vecops has two kernels; a copy whose ``setup.py`` leaves one out proves that
a dropped kernel is caught as a missing symbol at import, not passed.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, musaport, tree_digest
from musaport.outdir import OutDir
from musaport.validate.device.build import build_device

VECOPS = ROOT / "fixtures" / "extensions" / "vecops"
PYOPS = ROOT / "fixtures" / "extensions" / "pyops"
JITOPS = ROOT / "fixtures" / "extensions" / "jitops"
M1 = ("empty", "copy_", "fill_", "abs", "neg", "add", "mul", "tril", "triu", "sum", "mean")


@pytest.fixture(scope="module")
def pt_out(ported_260: Path, torch_env, cmake: str, gxx: str, clang, tmp_path_factory: pytest.TempPathFactory
           ) -> Path:
    """A copy of the 2.6.0 port with its M1 musa device built."""
    out = tmp_path_factory.mktemp("ext-device") / "pt"
    shutil.copytree(ported_260, out, symlinks=True)
    build = build_device(OutDir(out), M1, os.cpu_count() or 2, progress=lambda m: None)
    assert build.library is not None, build.figures
    return out


def _port(project: Path, out: Path) -> None:
    done = musaport("run", "--src", str(project), "--out", str(out))
    assert done.returncode == 0, done.stderr


def _validate(ext: Path, pt: Path, *options: str):
    done = musaport("validate", "--extension", "--out", str(ext), "--torch", str(pt), "-j", "2", *options)
    report = json.loads((ext / "validate_extension_report.json").read_text())
    return done, report


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
def test_vecops_compiles_builds_loads_and_passes_its_tests_on_musa(pt_out: Path, tmp_path: Path) -> None:
    ext = tmp_path / "ext"
    _port(VECOPS, ext)
    before = tree_digest(pt_out)
    done, report = _validate(ext, pt_out)
    assert done.returncode == 0, done.stdout + done.stderr
    assert report["compile"]["passed"] == report["compile"]["total"] == 3  # vecops.cpp and the two .mu
    assert report["build"]["ok"] and report["build"]["dropped"] == []
    (module,) = report["build"]["modules"]
    assert module["name"] == "vecops._C" and module["loaded"]
    assert sorted(module["sources"]) == ["csrc/musa/scale_musa.mu", "csrc/musa/shift_musa.mu", "csrc/vecops.cpp"]
    tests = report["tests"]
    assert (tests["passed"], tests["failed"], tests["skipped"], tests["errors"]) == (9, 0, 1, 0)
    # test_cpu_path runs on the CPU and test_empty holds no data: neither allocates on musa
    assert (tests["passed_off_device"], tests["failed_off_device"]) == (2, 0)
    assert "(2 passed and 0 failed or errors without allocating on musa)" in done.stdout
    assert "PASS import vecops._C" in done.stdout
    assert (ext / "validate_extension_report.md").read_text().count("vecops._C") >= 1
    assert tree_digest(pt_out) == before  # the PyTorch port is only read
    assert not (VECOPS / "build").exists() and not list(VECOPS.rglob("*.so"))  # nor is the project written


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
def test_a_package_that_builds_its_kernels_when_imported_builds_them_on_musa_as_its_tests_run(
        pt_out: Path, tmp_path: Path) -> None:
    """jitops' setup.py builds nothing: its package calls torch's JIT builder on import. The port calls
    torch_musa's; the stand-in builds the ported sources as setup.py's would be built, inside OUT, and the
    module it made is counted with the build's, its kernel no longer a dropped file."""
    ext = tmp_path / "ext"
    _port(JITOPS, ext)
    done, report = _validate(ext, pt_out)
    assert done.returncode == 0, done.stdout + done.stderr
    (module,) = report["build"]["modules"]
    assert (module["name"], module["jit"], module["loaded"]) == ("jitops_ext", True, True), module
    assert module["sources"] == ["jitops/csrc/jitops.cpp", "jitops/csrc/musa/scale_musa.mu"]
    assert report["build"]["dropped"] == []
    tests = report["tests"]
    assert (tests["passed"], tests["failed"], tests["skipped"], tests["errors"]) == (3, 0, 0, 0)
    assert "PASS JIT build jitops_ext when the tests ran (2 sources)" in done.stdout
    assert Path(module["file"]).is_relative_to(ext / ".musaport")  # torch's JIT folder, inside OUT

    # The same package with its kernel left out of the JIT build: the import fails on the missing symbol.
    project = tmp_path / "jitops"
    shutil.copytree(JITOPS, project)
    init = project / "jitops" / "__init__.py"
    init.write_text(init.read_text().replace(', os.path.join(_here, "csrc", "cuda", "scale_cuda.cu")', ""))
    dropped = tmp_path / "dropped"
    _port(project, dropped)
    done, report = _validate(dropped, pt_out)
    assert done.returncode == 1, done.stdout + done.stderr
    (module,) = report["build"]["modules"]
    assert not module["loaded"] and "scale_musa" in module["error"], module
    assert report["build"]["dropped"] == ["jitops/csrc/musa/scale_musa.mu"]
    assert "NOTE jitops/csrc/musa/scale_musa.mu: ported, but no module of the build compiles it" in done.stdout


INLINE_PACKAGE = {
    "setup.py": 'from setuptools import setup\n\nsetup(name="twice", packages=["twice"])\n',
    "twice/__init__.py": '''"""twice: 2 * x, by a CUDA kernel held in a Python string and built on import."""
from torch.utils.cpp_extension import load_inline

CUDA = """
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
__global__ void twice_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
torch::Tensor twice(torch::Tensor x) {
  auto y = torch::empty_like(x);
  int n = x.numel();
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  twice_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}
"""
_ext = load_inline("twice_ext", cpp_sources="torch::Tensor twice(torch::Tensor x);", cuda_sources=CUDA,
                   functions=["twice"], with_cuda=True)
twice = _ext.twice
''',
    "tests/test_twice.py": '''import torch

import twice


def test_twice_on_the_gpu():
    x = torch.arange(1000, dtype=torch.float32)
    got = twice.twice(x.cuda())
    assert got.is_cuda
    torch.testing.assert_close(got.cpu(), 2 * x)
''',
}


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
@pytest.mark.parametrize("setup", ["with setup.py", "without setup.py"])
def test_a_kernel_in_a_python_string_is_ported_in_place_and_built_on_musa_by_load_inline(
        pt_out: Path, tmp_path: Path, setup: str) -> None:
    """The string holds CUDA (a stream, a launch); the port makes it MUSA inside its quotes and the
    stand-in's load_inline builds it, its launch read by the CPU view, so the test's kernel runs on musa.
    The project has no C++ file at all: its Python is all there is to port; nor, in one case, a setup.py:
    the tests, run from the project's root, import the package and so build it."""
    project = tmp_path / "twice"
    for rel, text in INLINE_PACKAGE.items():
        if rel == "setup.py" and setup == "without setup.py":
            continue
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    ext = tmp_path / "ext"
    _port(project, ext)
    init = next(ext.rglob("twice/__init__.py")).read_text()
    assert "musaStream_t stream = at::musa::getCurrentMUSAStream();" in init and "cudaStream_t" not in init
    assert "cuda_sources" not in init and "musa_sources=CUDA" in init
    done, report = _validate(ext, pt_out)
    assert done.returncode == 0, done.stdout + done.stderr
    (module,) = report["build"]["modules"]
    assert (module["name"], module["jit"], module["inline"], module["loaded"]) == ("twice_ext", True, True, True)
    assert "PASS JIT build twice_ext when the tests ran (from sources in Python strings)" in done.stdout
    if setup == "without setup.py":
        assert report["build"]["command"] == "no setup.py: built on import by twice/__init__.py:19"
        assert report["build"]["dropped"] == []
    tests = report["tests"]
    assert (tests["passed"], tests["failed"], tests["errors"]) == (1, 0, 0), tests


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
def test_a_kernel_the_build_files_drop_is_a_missing_symbol_at_import(pt_out: Path, tmp_path: Path) -> None:
    project = tmp_path / "vecops"
    shutil.copytree(VECOPS, project)
    setup = project / "setup.py"
    setup.write_text(setup.read_text().replace(', "csrc/cuda/shift_cuda.cu"', ""))
    ext = tmp_path / "ext"
    _port(project, ext)
    done, report = _validate(ext, pt_out)
    assert done.returncode == 1
    assert report["build"]["ok"]  # a Python extension links with symbols left undefined ...
    (module,) = report["build"]["modules"]
    assert not module["loaded"] and "undefined symbol" in module["error"]  # ... and does not load
    assert module["missing"] == ["shift_musa(at::Tensor const&, double)"]
    assert report["build"]["dropped"] == ["csrc/musa/shift_musa.mu"]
    assert module["defined_in"] == {"shift_musa(at::Tensor const&, double)": ["csrc/musa/shift_musa.mu"]}
    assert ("NOTE shift_musa(at::Tensor const&, double) is defined in csrc/musa/shift_musa.mu, which no module of "
            "the build compiles") in done.stdout
    assert "NOTE csrc/musa/shift_musa.mu: ported, but no module of the build compiles it" in done.stdout
    assert report["tests"]["passed"] == 0 and report["tests"]["errors"] + sum(
        1 for f in report["tests"]["files"] if f["error"]) >= 1


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
def test_a_hand_patch_laid_over_the_port_is_what_builds_and_is_tested(pt_out: Path, tmp_path: Path) -> None:
    """The dropped kernel again, put back by a patch against the port (as a team keeps its hand edits): the
    build compiles it, the module loads, the tests pass; the port and the project stay as they were."""
    import difflib

    project = tmp_path / "vecops"
    shutil.copytree(VECOPS, project)
    (project / "setup.py").write_text((project / "setup.py").read_text().replace(', "csrc/cuda/shift_cuda.cu"', ""))
    ext = tmp_path / "ext"
    _port(project, ext)
    ported = ext / "generated_cuda_compatible" / "setup.py"
    setup = ported.read_text()
    fixed = setup.replace('"csrc/musa/scale_musa.mu"]', '"csrc/musa/scale_musa.mu", "csrc/musa/shift_musa.mu"]')
    assert fixed != setup
    patch = tmp_path / "shift.patch"
    patch.write_text("".join(difflib.unified_diff(setup.splitlines(True), fixed.splitlines(True),
                                                  "a/setup.py", "b/setup.py")))
    before = tree_digest(ext / "generated_cuda_compatible"), tree_digest(project)
    done = musaport("validate", "--extension", "--out", str(ext), "--torch", str(pt_out), "-j", "2",
                    "--patch", str(patch))
    report = json.loads((ext / "validate_extension_report.json").read_text())
    assert done.returncode == 0, done.stdout + done.stderr
    assert report["build"]["patches"] == [{"patch": str(patch), "files": ["setup.py"]}]
    assert f"NOTE patch {patch} laid over the port: setup.py" in done.stdout
    (module,) = report["build"]["modules"]
    assert module["loaded"] and report["build"]["dropped"] == []
    assert (report["tests"]["passed"], report["tests"]["failed"]) == (9, 0)
    assert "--patch shift.patch" in report["command"]
    assert f"`{patch}`: `setup.py`" in (ext / "validate_extension_report.md").read_text()
    assert (tree_digest(ext / "generated_cuda_compatible"), tree_digest(project)) == before


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
def test_a_test_selection_runs_only_the_tests_it_names(pt_out: Path, tmp_path: Path) -> None:
    ext = tmp_path / "ext"
    _port(VECOPS, ext)
    done, report = _validate(ext, pt_out, "--test-select", "shift and not empty")
    assert done.returncode == 0, done.stdout + done.stderr
    tests = report["tests"]
    assert (tests["passed"], tests["failed"], tests["skipped"], tests["select"]) == (2, 0, 0, "shift and not empty")
    assert "tests 2 passed, 0 failed, 0 skipped, 0 errors (only those -k 'shift and not empty' selects)" in done.stdout
    assert report["command"].endswith("--test-select 'shift and not empty'")


SCRIPT = """import torch
import vecops
import vecref

x = torch.arange(6, dtype=torch.float32)
got = vecops.scale(x.musa(), 2.0).cpu()
assert torch.equal(got, vecref.scale(x, 2.0)), got
assert {fails}, "the script's own check failed"
print("ok")
"""


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
@pytest.mark.parametrize("fails", [False, True])
def test_a_test_script_runs_as_its_project_runs_it_with_the_packages_it_imports(
        pt_out: Path, torch_env, tmp_path: Path, fails: bool) -> None:
    """Deformable-DETR tests with ``python test.py``: a file with no pytest test is run as a script and
    counts as one test; what it imports that the torch environment lacks comes from --test-deps; a kernel's
    dynamic shared memory (``extern __shared__``) links to the runtime's buffer."""
    project = tmp_path / "vecops"
    shutil.copytree(VECOPS, project)
    (project / "test.py").write_text(SCRIPT.format(fails=not fails))
    # Deformable-DETR's kernels stage through dynamic shared memory declared in a template's body: the module
    # linked with `_s` undefined until its link gave extern __shared__ arrays their storage.
    kernel = project / "csrc/cuda/scale_cuda.cu"
    kernel.write_text(kernel.read_text().replace("""  if (i < n) {
    y[i] = x[i] * a;
  }""", """  extern __shared__ int staged_[];
  T* staged = reinterpret_cast<T*>(staged_);
  staged[threadIdx.x] = i < n ? x[i] : T(0);
  __syncthreads();
  if (i < n) {
    y[i] = staged[threadIdx.x] * a;
  }""").replace("<<<blocks, threads, 0, stream>>>", "<<<blocks, threads, threads * sizeof(scalar_t), stream>>>"))
    assert "extern __shared__" in kernel.read_text() and "threads * sizeof" in kernel.read_text()
    ref = tmp_path / "vecref"
    (ref / "vecref").mkdir(parents=True)
    (ref / "vecref/__init__.py").write_text("def scale(x, f):\n    return x * f\n")
    (ref / "setup.py").write_text("from setuptools import setup\nsetup(name='vecref', version='1.0', "
                                  "packages=['vecref'])\n")
    ext = tmp_path / "ext"
    _port(project, ext)
    done = musaport("validate", "--extension", "--out", str(ext), "--torch", str(pt_out), "-j", "2",
                    "--tests", "test.py", "--test-deps", str(ref))
    report = json.loads((ext / "validate_extension_report.json").read_text())
    (script,) = report["tests"]["files"]
    assert script["file"] == "test.py"
    assert (ext / ".musaport/extension/deps/vecref/__init__.py").is_file()
    if fails:
        assert done.returncode == 1
        assert (script["passed"], script["failed"]) == (0, 1)
        assert script["failures"][0]["error"] == "AssertionError: the script's own check failed"
        assert "Traceback" not in done.stderr, done.stderr  # the Markdown report renders a script's failure too
        assert "`test.py (script)`" in (ext / "validate_extension_report.md").read_text()
    else:
        assert done.returncode == 0, done.stdout + done.stderr
        assert (script["passed"], script["failed"], script["error"]) == (1, 0, "")
    assert not list(torch_env.site_packages.glob("vecref*"))  # the torch environment is never changed


MEMORY_TEST = """import torch


def quarter_of_the_machine():
    sizes = dict(line.split(":", 1) for line in open("/proc/meminfo"))
    kib = sum(int(sizes[k].split()[0]) for k in ("MemTotal", "SwapTotal") if k in sizes)
    return kib * 1024 // 4


def test_more_than_the_machine_has():
    # five quarters of RAM and swap, never touched: without a bound every one of them is mapped
    held = [torch.empty(quarter_of_the_machine(), dtype=torch.uint8, device="musa") for _ in range(5)]
    assert len(held) == 5


def test_within_it():
    assert torch.ones(4, device="musa").sum().item() == 4
"""


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
def test_a_test_that_needs_more_memory_than_the_machine_has_fails_for_lack_of_memory(pt_out: Path,
                                                                                    tmp_path: Path) -> None:
    """A test process may use three quarters of the machine's RAM and swap. Past that its allocation fails with the allocator's
    own error and is counted apart, and the next test runs (Deformable-DETR's 2,048-channel gradient check
    asks more than this machine has); unbounded, the kernel's OOM killer ends a process without a word."""
    project = tmp_path / "vecops"
    shutil.copytree(VECOPS, project)
    (project / "tests" / "test_memory.py").write_text(MEMORY_TEST)
    ext = tmp_path / "ext"
    _port(project, ext)
    done, report = _validate(ext, pt_out, "--tests", "tests/test_memory.py")
    assert done.returncode == 1, done.stdout + done.stderr
    (tests,) = report["tests"]["files"]
    assert (tests["passed"], tests["failed"], tests["failed_memory"]) == (1, 1, 1)
    (failure,) = tests["failures"]
    assert failure["test"].endswith("test_more_than_the_machine_has") and failure["lacks_memory"]
    assert "out of memory" in failure["error"].lower(), failure["error"]
    gib = report["tests"]["memory_limit_bytes"] / 2**30
    assert f"(1 failed for lack of memory: a test process may use {gib:.1f} GiB here" in done.stdout
    assert "(lack of memory)" in (ext / "validate_extension_report.md").read_text()


def test_an_allocation_refused_is_told_from_other_failures():
    from musaport.validate.extension.tests import lacks_memory

    assert lacks_memory("torch.OutOfMemoryError: MUSA out of memory. Tried to allocate 6.00 GiB.")
    assert lacks_memory("RuntimeError: [enforce fail at alloc_cpu.cpp:120] data. DefaultCPUAllocator: can't "
                        "allocate memory: you tried to allocate 8053063680 bytes. Error code 12")
    assert lacks_memory("MemoryError")
    assert not lacks_memory("AssertionError: Tensor-likes are not close!")
    assert not lacks_memory("RuntimeError: memory format ChannelsLast is not supported")


def test_extension_mode_needs_a_pytorch_port(tmp_path: Path) -> None:
    ext = tmp_path / "ext"
    _port(VECOPS, ext)
    done = musaport("validate", "--extension", "--out", str(ext))
    assert done.returncode == 2 and "--extension needs --torch PT_OUT" in done.stderr
    done = musaport("validate", "--extension", "--out", str(ext), "--torch", str(ext))
    assert done.returncode == 2 and "which is not a PyTorch tree" in done.stderr
    done = musaport("validate", "--extension", "--out", str(ext), "--torch", str(ext), "--build-env", "FORCE")
    assert done.returncode == 2 and "expected NAME=VALUE" in done.stderr
    done = musaport("validate", "--extension", "--out", str(ext), "--torch", str(ext), "--test-deps", "--user")
    assert done.returncode == 2 and "--test-deps '--user': expected a requirement" in done.stderr
    assert not (ext / "validate_extension_report.json").exists()


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
def test_one_command_ports_compiles_builds_and_tests_the_project(pt_out: Path, tmp_path: Path) -> None:
    """validate --extension --src PROJECT is the whole proof: the port (as run --src makes it), then the
    three phases on it, numbered 1 to 4; the report says what the port did."""
    ext = tmp_path / "ext"
    done = musaport("validate", "--extension", "--src", str(VECOPS), "--out", str(ext), "--torch", str(pt_out),
                    "-j", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    phases = [line for line in done.stderr.splitlines() if line.startswith("musaport: phase ")]
    assert [p.split(":")[1].strip() for p in phases] == ["phase 1 of 4", "phase 2 of 4", "phase 3 of 4", "phase 4 of 4"]
    port_line = next(line for line in done.stdout.splitlines() if line.startswith("PASS port "))
    report = json.loads((ext / "validate_extension_report.json").read_text())
    assert report["port"]["source"] == str(VECOPS) and report["port"]["ported"] >= 3
    assert f"{report['port']['files']} files, {report['port']['ported']} ported" in port_line
    assert report["command"].startswith("musaport validate --extension --src PROJECT --out EXT_OUT")
    assert (report["tests"]["passed"], report["tests"]["failed"]) == (9, 0)
    assert "| 1. port (`musaport run --src`) |" in (ext / "validate_extension_report.md").read_text()
    # the port is the one run --src makes: a second run over it writes nothing
    again = musaport("run", "--src", str(VECOPS), "--out", str(ext), "-q")
    assert again.returncode == 0 and not list((ext / ".musaport").glob("staging-*"))
    assert not (VECOPS / "build").exists()


USES_VECOPS = """import torch
import vecops


def test_scale_from_the_other_project():
    x = torch.arange(6.0).cuda()
    y = vecops.scale(x, 2.0)
    assert y.is_cuda
    torch.testing.assert_close(y.cpu(), torch.arange(6.0) * 2)
"""


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
def test_tests_import_another_ported_extension_built_against_the_same_device(pt_out: Path, tmp_path: Path) -> None:
    """mamba's tests import causal-conv1d, another project's port: --with-extension puts the build of an
    extension validated against the same device on the tests' path. Here pyops' tests import vecops."""
    vec = tmp_path / "vec"
    done = musaport("validate", "--extension", "--src", str(VECOPS), "--out", str(vec), "--torch", str(pt_out),
                    "-j", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    project = tmp_path / "pyops"
    shutil.copytree(PYOPS, project)
    (project / "tests/test_uses_vecops.py").write_text(USES_VECOPS)
    ext = tmp_path / "ext"
    _port(project, ext)
    alone = musaport("validate", "--extension", "--out", str(ext), "--torch", str(pt_out), "-j", "2",
                     "--tests", "test_uses_vecops.py")
    assert alone.returncode == 1
    assert "No module named 'vecops'" in (ext / "validate_extension_report.json").read_text()
    # The package index's vecops (a CUDA build, as torchvision's wheel is for detectron2's tests), asked for by
    # --test-deps too: the tests must import the port, never it.
    index = tmp_path / "index-vecops"
    (index / "vecops").mkdir(parents=True)
    (index / "vecops/__init__.py").write_text("raise ImportError('the package index vecops, not its port')\n")
    (index / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "vecops"\nversion = "0.0.1"\n[tool.setuptools]\npackages = ["vecops"]\n')
    before = tree_digest(vec)
    done = musaport("validate", "--extension", "--out", str(ext), "--torch", str(pt_out), "-j", "2",
                    "--tests", "test_uses_vecops.py", "--with-extension", str(vec), "--test-deps", str(index))
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((ext / "validate_extension_report.json").read_text())
    assert (report["tests"]["passed"], report["tests"]["failed"], report["tests"]["errors"]) == (1, 0, 0)
    assert (ext / ".musaport/extension/deps/vecops/__init__.py").is_file()  # installed, and not imported
    (mate,) = report["tests"]["with_extensions"]
    assert mate["out"] == str(vec) and mate["modules"] == ["vecops._C"] and mate["project"] == str(VECOPS)
    assert mate["replaces"] == ["vecops"]
    assert "--with-extension vec" in report["command"]
    assert f"NOTE the tests import the port of {VECOPS} too (vecops._C, from {vec})" in done.stdout
    assert f"NOTE --test-deps installed vecops too; the tests import the port's, from {vec}" in done.stdout
    assert f"- `{VECOPS}` (`{vec}`): `vecops._C` (in the place of `vecops`, which `--test-deps` installed too)" \
        in (ext / "validate_extension_report.md").read_text()
    assert tree_digest(vec) == before  # the other port is only read


def test_with_extension_must_be_a_validated_extension_of_the_same_torch(tmp_path: Path) -> None:
    pt, other = tmp_path / "pt", tmp_path / "other-pt"
    for out in (pt, other):
        assert musaport("run", "--out", str(out), "-q").returncode == 0
    mate, ext = tmp_path / "mate", tmp_path / "ext"
    _port(VECOPS, mate)
    done = musaport("validate", "--extension", "--src", str(VECOPS), "--out", str(ext), "--torch", str(pt),
                    "--with-extension", str(mate))
    assert done.returncode == 2 and not ext.exists() and "Traceback" not in done.stderr
    assert f"{mate}: --with-extension is not the --out of a 'musaport validate --extension' run" in done.stderr
    report = mate / "validate_extension_report.json"
    report.write_text(json.dumps({"torch": str(other), "device": "", "build": {"ok": True, "modules": []}}))
    done = musaport("validate", "--extension", "--src", str(VECOPS), "--out", str(ext), "--torch", str(pt),
                    "--with-extension", str(mate))
    assert done.returncode == 2 and not ext.exists()
    assert f"{report}: validated against --torch {other}, not {pt}" in done.stderr
    device = pt / ".musaport/device/libmusaport_backend.so"
    report.write_text(json.dumps({"torch": str(pt), "device": str(device),
                                  "build": {"ok": True, "modules": [{"name": "vecops._C", "loaded": False}]}}))
    done = musaport("validate", "--extension", "--src", str(VECOPS), "--out", str(ext), "--torch", str(pt),
                    "--with-extension", str(mate))
    assert done.returncode == 2 and f"{report}: its module vecops._C does not load with the device" in done.stderr
    assert not ext.exists()


def test_one_command_says_what_is_wrong_before_it_writes(tmp_path: Path) -> None:
    pt = tmp_path / "pt"
    assert musaport("run", "--out", str(pt), "-q").returncode == 0  # a PyTorch port: the bundled tree's
    ext, empty = tmp_path / "ext", tmp_path / "empty"
    empty.mkdir()
    done = musaport("validate", "--extension", "--src", str(VECOPS), "--out", str(ext))
    assert done.returncode == 2 and "--extension needs --torch PT_OUT" in done.stderr and not ext.exists()
    done = musaport("validate", "--extension", "--src", str(empty), "--out", str(ext), "--torch", str(pt))
    assert done.returncode == 2 and f"{empty}: --src holds no CUDA source to port" in done.stderr
    assert "Traceback" not in done.stderr and not ext.exists()
    done = musaport("validate", "--compile", "--src", str(VECOPS), "--out", str(ext))
    assert done.returncode == 2 and "--src go with --extension" in done.stderr and not ext.exists()


def _wheel(folder: Path, name: str, version: str, needs: list[str] | None = None) -> None:
    """A pure-Python wheel of an empty package ``name`` that requires ``needs``."""
    import zipfile

    info = f"{name}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(
        f"Requires-Dist: {n}\n" for n in needs or ())
    files = {f"{name}/__init__.py": "", f"{info}/METADATA": metadata,
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    with zipfile.ZipFile(folder / f"{name}-{version}-py3-none-any.whl", "w") as whl:
        for path, text in files.items():
            whl.writestr(path, text)
        whl.writestr(f"{info}/RECORD", "".join(f"{path},,\n" for path in files) + f"{info}/RECORD,,\n")


@pytest.mark.torch
def test_test_deps_bring_what_they_need_that_the_environment_lacks(torch_env, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """mamba's tests import transformers, which needs tokenizers, safetensors and a dozen more: --test-deps
    installs that closure, as pip resolves it against the torch environment, and nothing the environment
    has (filelock, which torch needs). Offline: the packages are local wheels."""
    from musaport.validate.extension.build import Device, install_deps

    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for name, needs in (("vecdep", []), ("vecref", ["vecdep", "filelock"])):
        _wheel(wheels, name, "1.0", needs)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    device = Device(tmp_path, tmp_path, tmp_path, torch_env.python, tmp_path, "2.6.0")
    logged: list[str] = []
    assert install_deps(tmp_path / "state", device, ("vecref",), logged.append) == ""
    deps = tmp_path / "state" / "deps"
    assert (deps / "vecref/__init__.py").is_file() and (deps / "vecdep/__init__.py").is_file()
    assert not (deps / "filelock").exists() and not (deps / "torch").exists()
    assert logged == [f"musaport: installing the tests' packages into {deps}: vecref==1.0 vecdep==1.0"]
    # A distribution the environment has, named by --test-deps itself in another version (setuptools==80.9.0
    # for the pkg_resources that setuptools 81 dropped): installed for the tests, before the environment's.
    _wheel(wheels, "filelock", "0.0.1")
    logged.clear()
    assert install_deps(tmp_path / "state", device, ("vecref", "filelock==0.0.1"), logged.append) == ""
    assert (deps / "filelock/__init__.py").is_file() and (deps / "vecref/__init__.py").is_file()
    assert logged == [f"musaport: installing the tests' packages into {deps}: filelock==0.0.1 vecref==1.0 "
                      "vecdep==1.0"]



def test_a_build_that_probes_for_the_musa_compiler_finds_the_stand_in(tmp_path: Path) -> None:
    """A setup.py that adds its MUSA extension only when ``call(["mcc"])`` finds the compiler (a sorting
    library's, ported from its nvcc probe) finds the emulated toolkit's stand-in on the build's PATH, in
    MUSA_HOME/bin; it answers a version query and compiles nothing itself."""
    import subprocess
    import sys

    from musaport.validate.extension.build import Device, environment, stand_in

    loader = tmp_path / "device"
    device = Device(loader / "libdevice.so", loader, tmp_path / "view", Path(sys.executable), tmp_path / "inc",
                    "2.6.0")
    site = stand_in(tmp_path / "state", device)
    env = environment(OutDir(tmp_path / "out"), site, device, {})
    probe = ("from subprocess import DEVNULL, call\n"
             "try:\n    call(['mcc'], stdout=DEVNULL, stderr=DEVNULL)\n    print('found')\n"
             "except FileNotFoundError:\n    print('missing')\n")
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert done.stdout.strip() == "found", done.stderr
    version = subprocess.run(["mcc", "--version"], env=env, capture_output=True, text=True)
    assert version.returncode == 0 and "stand-in" in version.stdout
    compile_ = subprocess.run(["mcc", "-c", "k.mu"], env=env, capture_output=True, text=True)
    assert compile_.returncode == 1 and "compiles nothing" in compile_.stderr
    assert (site / "bin/mcc").is_file() and env["PATH"].split(os.pathsep)[0] == str(site / "bin")


PARALLEL_COMPILE = """
import importlib.util, os, sys, threading
from setuptools._distutils.ccompiler import new_compiler

# the module alone: the package's __init__ loads a device this test has not built
spec = importlib.util.spec_from_file_location("musa_extension", sys.argv[2])
musa_extension = importlib.util.module_from_spec(spec)
spec.loader.exec_module(musa_extension)

compiler = new_compiler()
compiler.src_extensions += [".mu"]  # as the stand-in's BuildExtension tells it
met = threading.Barrier(2, timeout=10)  # passed only when two sources compile at once
compiled = []

def _compile(obj, src, ext, cc_args, extra_postargs, pp_opts):
    met.wait()
    compiled.append(os.path.basename(src))

compiler._compile = _compile
compile = musa_extension._parallel_compile(compiler, musa_extension._max_jobs())
objects = compile(["a.cpp", "b.mu"], output_dir=sys.argv[1])
print(musa_extension._max_jobs(), sorted(compiled), [os.path.basename(o) for o in objects])
"""


@pytest.mark.torch
def test_an_extensions_sources_compile_max_jobs_at_a_time(torch_env, tmp_path: Path) -> None:
    """setuptools compiles an extension's sources one by one; the stand-in compiles ``MAX_JOBS`` of them at
    once (validate --extension sets it from -j), as torch's Ninja build would. Two sources meet at a barrier
    only when they compile together; one job at a time, the barrier breaks."""
    import subprocess

    from musaport.validate.extension.build import Device, environment, stand_in

    device = Device(tmp_path / "libdevice.so", tmp_path, tmp_path / "view", torch_env.python, tmp_path / "inc",
                    "2.6.0")
    site = stand_in(tmp_path / "state", device)
    env = environment(OutDir(tmp_path / "out"), site, device, {}, jobs=2)
    assert env["MAX_JOBS"] == "2"
    run = [str(torch_env.python), "-c", PARALLEL_COMPILE, str(tmp_path / "obj"),
           str(site / "torch_musa/utils/musa_extension.py")]
    done = subprocess.run(run, env=env, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == "2 ['a.cpp', 'b.mu'] ['a.o', 'b.o']"
    one = subprocess.run(run, env=dict(env, MAX_JOBS="1"), capture_output=True, text=True, cwd=tmp_path)
    assert one.returncode != 0 and "BrokenBarrierError" in one.stderr


def test_other_ported_extensions_come_before_the_tests_packages(tmp_path: Path) -> None:
    """The order of the tests' path: the stand-in and loader, the project, each --with-extension, and only
    then what --test-deps installed (which may hold the package index's build of a companion's package)."""
    from musaport.validate.extension.companions import Companion, replaced
    from musaport.validate.extension.tests import tests_path

    site, loader, deps = tmp_path / "site", tmp_path / "loader", tmp_path / "deps"
    root, mate = tmp_path / "project", tmp_path / "vec/src"
    path = tests_path(os.pathsep.join(map(str, (site, loader, deps))), root, [mate], deps).split(os.pathsep)
    assert path == [str(site), str(loader), str(root), str(mate), str(deps)]
    assert tests_path(os.pathsep.join(map(str, (site, loader))), root, [], deps).split(os.pathsep) == \
        [str(site), str(loader), str(root)]
    companion = Companion(str(tmp_path / "vec"), "vecops", str(mate), ("vecops._C", "vecops_extra"))
    (deps / "vecops").mkdir(parents=True)
    (deps / "other").mkdir()
    assert replaced(companion, deps) == ["vecops"]
    (deps / "vecops_extra.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    assert replaced(companion, deps) == ["vecops", "vecops_extra"]
