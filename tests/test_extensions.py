"""`musaport run --src`: the three extension fixtures ported end to end, and the pieces on their own.

Each fixture (fixtures/extensions/, written for this project) has its own
shape: an ops library registered with the dispatcher (imgops), a pybind11
package dispatching on is_cuda() (scatter_ops), a CMake library with
header-only device code in gpu/ (rnnt_lib). The port must leave no include
naming a file it renamed, no CUDA dispatch key, no is_cuda()/WITH_CUDA in
code, a setup.py that builds with torch_musa, CMake lists naming .mu files,
and kernels that compile against the MUSA shim and a ported PyTorch 2.6.0.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import ROOT, musaport, stand_in_clang, tree_digest
from harness import assert_one_clear_line
from musaport.extension.buildfiles import Paths, declared_include_dirs, port_cmake, port_setup_py
from musaport.extension.discover import cuda_evidence, discover
from musaport.extension.includes import Include, blank, follow, groups, resolve, scan_includes
from musaport.port import concurrency
from musaport.port.run import run
from musaport.resources import default_packs, extension_packs
from musaport.rewrite.transforms import rename_dirs

FIXTURES = ROOT / "fixtures" / "extensions"
TREE = "generated_cuda_compatible"


@dataclass(frozen=True)
class Expected:
    """What porting one fixture gives: file counts, project includes, findings, the kernels validate checks."""

    name: str
    ported: int
    unchanged: int
    skipped: int
    project_includes: int
    rewritten: int
    findings: int
    validated: tuple[str, ...]


# The unchanged count holds each package's __init__.py: the project's Python is in the port too (pyport).
# imgops's setup.py device check is ported (setup-torch-device), so its findings are the two nvcc flags.
EXPECTED = {
    "imgops": Expected("imgops", 6, 2, 7, 6, 4, 2, ("*.mu", "csrc/ops/autocast/box_iou_kernel.cpp")),
    "scatter_ops": Expected("scatter_ops", 6, 1, 3, 5, 3, 2, ("*.mu", "csrc/version.cpp")),
    "rnnt_lib": Expected("rnnt_lib", 7, 0, 3, 8, 4, 6, ("*.mu",)),
}


def port(src: Path, out: Path, *extra: str):
    return musaport("run", "--src", str(src), "--out", str(out), "-q", *extra)


@pytest.fixture(scope="module")
def ported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each fixture ported once (from a private copy) for the tests that only read the result."""
    base = tmp_path_factory.mktemp("ext")
    outs = {}
    for name in EXPECTED:
        src = base / "src" / name
        shutil.copytree(FIXTURES / name, src)
        done = port(src, base / name)
        assert done.returncode == 0, done.stderr
        outs[name] = base / name
    return outs


def source_of(out: Path) -> Path:
    return Path(json.loads((out / "porting_report.json").read_text())["source"])


def include_check(src: Path, tree: Path) -> tuple[int, int, list[str]]:
    """(project includes, rewritten, stale): every include of a project file in a ported file, resolved in the
    source and in the port laid over the project's other files; stale ones are listed."""
    d = discover(src)
    ported = {p.rel: p.out for p in d.picked}
    overlay = frozenset(ported.values()) | {f for f in d.files if f not in ported}
    roots = tuple(rename_dirs(f"{r}/x").rpartition("/")[0] if r else "" for r in d.roots)
    project, rewritten, stale = 0, 0, []
    for rel, out in ported.items():
        before = scan_includes((src / rel).read_text())
        after = scan_includes((tree / out).read_text()) if (tree / out).is_file() else ()
        assert len(before) == len(after), rel
        for old, new in zip(before, after):
            target = resolve(old, rel, d.roots, d.files)
            if target is None:
                continue
            project += 1
            rewritten += old.spelling != new.spelling
            if resolve(new, out, roots, overlay) != ported.get(target, target):
                stale.append(f"{out}:{new.line}: {new.spelling} (was {old.spelling}, names {target})")
    return project, rewritten, stale


def code_files(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*") if p.suffix in (".mu", ".muh", ".cpp", ".h", ".cc", ".hpp"))


@pytest.mark.parametrize("name", list(EXPECTED))
def test_counts(ported: dict[str, Path], name: str) -> None:
    expected = EXPECTED[name]
    report = json.loads((ported[name] / "porting_report.json").read_text())
    counts = report["summary"]
    assert (counts["ported"], counts["unchanged"], counts["failed"], counts["skipped"]) == \
        (expected.ported, expected.unchanged, 0, expected.skipped)
    assert len(report["findings"]) == expected.findings
    assert all(re.fullmatch(r"[\w./]+:\d+", f["site"]) for f in report["findings"])


@pytest.mark.parametrize("name", list(EXPECTED))
def test_no_stale_includes(ported: dict[str, Path], name: str) -> None:
    project, rewritten, stale = include_check(source_of(ported[name]), ported[name] / TREE)
    assert stale == []
    assert (project, rewritten) == (EXPECTED[name].project_includes, EXPECTED[name].rewritten)


def test_the_include_check_sees_stale_includes(tmp_path: Path) -> None:
    """The checker itself: a port that copied the sources under their new names has stale includes."""
    src = FIXTURES / "rnnt_lib"
    for p in discover(src).picked:
        (tmp_path / p.out).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src / p.rel, tmp_path / p.out)
    assert len(include_check(src, tmp_path)[2]) == 4


@pytest.mark.parametrize("name", list(EXPECTED))
def test_no_cuda_dispatch_or_device_checks_in_code(ported: dict[str, Path], name: str) -> None:
    keys, leftovers = [], []
    for path in code_files(ported[name] / TREE):
        code = blank(path.read_text())
        keys += re.findall(r"TORCH_LIBRARY_IMPL\s*\(\s*\w+\s*,\s*(\w+)", code)
        leftovers += re.findall(r"\bis_cuda\s*\(|\b(?:WITH|USE)_CUDA\b|DispatchKey::\w*CUDA\b|DispatchKey::Autocast\b"
                                r"|\bkCUDA\b|(?<!case )\bDeviceType::CUDA\b", code)
    assert leftovers == []
    assert not [k for k in keys if "CUDA" in k or k == "Autocast"]
    assert bool(keys) == (name != "scatter_ops")  # the pybind11 package registers nothing


def test_autocast_registration_is_converted_whole(ported: dict[str, Path]) -> None:
    tree = ported["imgops"] / TREE
    box = (tree / "csrc/ops/autocast/box_iou_kernel.cpp").read_text()
    assert "TORCH_LIBRARY_IMPL(imgops, AutocastPrivateUse1, m)" in box
    assert "box_iou_autocast<c10::DispatchKey::AutocastPrivateUse1, c10::DeviceType::PrivateUse1>" in box
    assert "box_iou_autocast<c10::DispatchKey::AutocastCPU, c10::DeviceType::CPU>" in box
    clip = blank((tree / "csrc/ops/autocast/clip_boxes_kernel.cpp").read_text())
    calls = re.findall(r"cached_cast\(([^;]*?)\), height", clip)
    assert calls == ["at::kFloat, boxes, c10::DeviceType::PrivateUse1"]
    assert "ExcludeDispatchKeyGuard no_autocast(c10::DispatchKey::AutocastPrivateUse1)" in clip


@pytest.mark.parametrize("name", ["imgops", "scatter_ops"])
def test_setup_py_builds_with_torch_musa(ported: dict[str, Path], name: str) -> None:
    text = (ported[name] / TREE / "setup.py").read_text()
    tree = ast.parse(text)
    imports = {(n.module, a.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    assert {("torch_musa.utils.musa_extension", n) for n in ("MUSAExtension", "BuildExtension", "MUSA_HOME")} <= imports
    assert ("torch.utils.cpp_extension", "CppExtension") in imports
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert not names & {"CUDAExtension", "CUDA_HOME"}
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert "mcc" in strings and "nvcc" not in strings and "WITH_MUSA" in strings and "*.mu" in strings
    assert "musa" in strings and "cuda" not in strings


def test_cmake_lists_follow_the_renames(ported: dict[str, Path]) -> None:
    out = ported["rnnt_lib"]
    text = (out / TREE / "CMakeLists.txt").read_text()
    assert "${CMAKE_CURRENT_SOURCE_DIR}/src/lib/rnnt/gpu/compute.mu" in text
    assert "src/lib/rnnt/gpu/*.muh" in text and '"src/lib/rnnt/macros_musa.h"' in text
    assert "target_compile_definitions(rnnt PRIVATE USE_MUSA)" in text
    assert not re.search(r"\.cuh?\b", text)
    report = json.loads((out / "porting_report.json").read_text())
    sites = {(f["rule"], f["site"]) for f in report["findings"]}
    assert {("cmake-cuda-language", "CMakeLists.txt:14"), ("cmake-find-cuda", "CMakeLists.txt:15"),
            ("cmake-cuda-architectures", "CMakeLists.txt:16"), ("cmake-cuda-targets", "CMakeLists.txt:27")} <= sites
    listed = (out / TREE / "musaport_sources.cmake").read_text()
    assert '"${CMAKE_CURRENT_LIST_DIR}/src/lib/rnnt/gpu/compute.mu"' in listed
    assert '"${CMAKE_CURRENT_LIST_DIR}/src"' in listed
    assert not (out / TREE / "musa_functions.yaml").exists() and not list((out / TREE).rglob("RegisterMUSA*"))


@pytest.mark.slow
def test_second_run_writes_nothing_and_jobs_do_not_matter(tmp_path: Path, monkeypatch) -> None:
    src = tmp_path / "imgops"
    shutil.copytree(FIXTURES / "imgops", src)
    assert port(src, tmp_path / "out").returncode == 0
    before = tree_digest(tmp_path / "out")
    assert port(src, tmp_path / "out").returncode == 0
    assert tree_digest(tmp_path / "out") == before
    from musaport.extension.generate import extension_options

    monkeypatch.setattr(concurrency, "_MIN_PER_WORKER", 1)
    trees = []
    for jobs in (1, 2):
        opts, config = extension_options(src, tmp_path / f"j{jobs}", (*default_packs(), *extension_packs()), jobs)
        assert run(opts, config).return_code == 0
        trees.append({k: v[1] for k, v in tree_digest(tmp_path / f"j{jobs}" / TREE).items()})
    assert trees[0] == trees[1] == {k: v[1] for k, v in tree_digest(tmp_path / "out" / TREE).items()}


def test_a_rename_change_reports_again(tmp_path: Path) -> None:
    """utils.h starts including a renamed header: it is ported from then on, its include following."""
    src = tmp_path / "scatter_ops"
    shutil.copytree(FIXTURES / "scatter_ops", src)
    assert port(src, tmp_path / "out").returncode == 0
    assert not (tmp_path / "out" / TREE / "csrc/utils.h").exists()
    utils = src / "csrc/utils.h"
    utils.write_text(utils.read_text() + '#include "cuda/scatter_cuda.h"\n')
    assert port(src, tmp_path / "out").returncode == 0
    assert '#include "musa/scatter_musa.h"' in (tmp_path / "out" / TREE / "csrc/utils.h").read_text()
    assert include_check(src, tmp_path / "out" / TREE)[2] == []


def test_out_inside_the_tree_is_not_discovered(tmp_path: Path) -> None:
    src = tmp_path / "scatter_ops"
    shutil.copytree(FIXTURES / "scatter_ops", src)
    assert port(src, src / "build-musa").returncode == 0
    first = tree_digest(src / "build-musa" / TREE)
    assert port(src, src / "build-musa").returncode == 0
    assert tree_digest(src / "build-musa" / TREE) == first
    assert not [p for p in first if "build-musa" in p]


def test_setup_py_that_is_not_python_is_a_problem(tmp_path: Path) -> None:
    src = tmp_path / "scatter_ops"
    shutil.copytree(FIXTURES / "scatter_ops", src)
    (src / "setup.py").write_text("print 'python 2'\n")
    result = port(src, tmp_path / "out")
    assert result.returncode == 1
    assert "setup.py:1: not ported: cannot be read as Python" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("args", "needle"), [
    (("--pytorch-src", "{tmp}"), "not both"),
    (("--layout", "{tmp}/l.yaml"), "--src discovers"),
    (("--ops", "abs"), "--src generates none"),
], ids=["both-sources", "layout", "ops"])
def test_src_rejects_pytorch_options(tmp_path: Path, args: tuple[str, ...], needle: str) -> None:
    extra = [a.format(tmp=tmp_path) for a in args]
    result = port(FIXTURES / "scatter_ops", tmp_path / "out", *extra)
    assert_one_clear_line(result, 2, needle)
    assert not (tmp_path / "out").exists()


def test_src_that_is_not_a_folder(tmp_path: Path) -> None:
    result = port(tmp_path / "missing", tmp_path / "out")
    assert_one_clear_line(result, 2, "--src is not a directory")


def test_validate_torch_must_be_a_pytorch(ported: dict[str, Path], tmp_path: Path) -> None:
    clang = stand_in_clang(tmp_path)  # the --torch check comes after the one for a clang
    result = musaport("validate", "--compile", "--out", str(ported["rnnt_lib"]), "--torch", str(tmp_path), env=clang)
    assert_one_clear_line(result, 2, "--torch is neither a torch include folder")
    result = musaport("validate", "--compile", "--out", str(ported["rnnt_lib"]), "--torch", str(ported["imgops"]),
                      env=clang)
    assert_one_clear_line(result, 2, "which is not a PyTorch tree")
    result = musaport("validate", "--run", "--torch", str(tmp_path))
    assert_one_clear_line(result, 2, "--torch goes with --compile")


def test_device_files_against_an_installed_torchs_headers_alone_are_refused(ported: dict[str, Path],
                                                                            tmp_path: Path) -> None:
    """D9: an installed torch's include folder holds a CUDA build's headers; a .mu fails on its __half in
    clang's CUDA mode, so device files are refused in one line that says what to give instead."""
    wheel = tmp_path / "include"
    (wheel / "torch").mkdir(parents=True)
    (wheel / "torch/extension.h").write_text("#pragma once\n")
    clang = stand_in_clang(tmp_path)
    result = musaport("validate", "--compile", "--out", str(ported["imgops"]), "--torch", str(wheel), env=clang)
    assert_one_clear_line(result, 2, "a CUDA build's", "--out of 'musaport run --pytorch-src'", "'*.cpp'")


@pytest.mark.shared
@pytest.mark.compiles
@pytest.mark.parametrize("name", list(EXPECTED))
def test_kernels_compile_against_ported_pytorch_260(ported: dict[str, Path], ported_260: Path, clang, name: str) -> None:
    """The evidence: PyTorch 2.6.0's port has the ATen, c10/musa and torch/library.h headers the kernels use
    (the bundled fixture tree does not), the shim declares only MUSA names. The PyTorch port is only read: the
    headers a build would generate go under the extension's own OUT."""
    before = tree_digest(ported_260)
    result = musaport("validate", "--compile", "--out", str(ported[name]), "--torch", str(ported_260), "-j", "1",
                      *EXPECTED[name].validated)
    assert result.returncode == 0, result.stdout + result.stderr
    assert tree_digest(ported_260) == before
    passed = [ln for ln in result.stdout.splitlines() if ln.startswith("PASS ")]
    assert len(passed) == {"imgops": 3, "scatter_ops": 2, "rnnt_lib": 1}[name], result.stdout


@pytest.mark.shared
@pytest.mark.compiles
def test_a_cuda_name_left_in_fails_to_compile(ported: dict[str, Path], ported_260: Path, clang, tmp_path: Path) -> None:
    out = tmp_path / "rnnt"
    shutil.copytree(ported["rnnt_lib"], out)
    kernel = out / TREE / "src/lib/rnnt/gpu/compute.mu"
    kernel.write_text(kernel.read_text().replace("options.stream = c10::musa::getCurrentMUSAStream();",
                                                 "options.stream = c10::musa::getCurrentMUSAStream();\n"
                                                 "  cudaStreamSynchronize(options.stream);"))
    result = musaport("validate", "--compile", "--out", str(out), "--torch", str(ported_260), "-j", "1",
                      "--host-only")
    assert result.returncode == 1 and "cudaStreamSynchronize" in result.stdout


# The pieces on their own.

@pytest.mark.parametrize(("spelling", "out", "new"), [
    ('"cuda/scatter_cuda.h"', "csrc/musa/scatter_musa.h", '"musa/scatter_musa.h"'),
    ('"../cuda/box_math.cuh"', "csrc/ops/musa/box_math.muh", '"../musa/box_math.muh"'),
    ("<lib/rnnt/gpu/math.cuh>", "src/lib/rnnt/gpu/math.muh", "<lib/rnnt/gpu/math.muh>"),
    ('"./reducer.cuh"', "csrc/musa/reducer.muh", '"./reducer.muh"'),
])
def test_follow(spelling: str, out: str, new: str) -> None:
    assert follow(spelling, out) == new


def test_resolve_quoted_then_roots_bracketed_roots_only() -> None:
    files = frozenset({"csrc/a/x.h", "csrc/x.h", "x.h"})
    quoted, bracketed = Include('"x.h"', 1), Include("<x.h>", 1)
    assert resolve(quoted, "csrc/a/k.cu", ("csrc", ""), files) == "csrc/a/x.h"
    assert resolve(bracketed, "csrc/a/k.cu", ("csrc", ""), files) == "csrc/x.h"
    assert resolve(Include('"../../../x.h"', 1), "csrc/a/k.cu", ("",), files) is None


def test_a_spelling_that_means_two_things_splits_the_rules() -> None:
    tables = {"a/k.cu": {'"h_cuda.h"': '"h_musa.h"'}, "b/k.cpp": {'"h_cuda.h"': '"h_cuda.h"', '"y.cuh"': '"y.muh"'}}
    assert [members for members, _ in groups(tables)] == [["a/k.cu"], ["b/k.cpp"]]


@pytest.mark.parametrize("text", [
    "// uses cudaMalloc in a comment\nint x;\n",
    'const char* s = "cuda is_cuda() kCUDA";\n',
    "TORCH_LIBRARY_IMPL(ops, CPU, m) {}\n",
    "at::Tensor scatter_cpu(const at::Tensor& x);\n",
])
def test_not_cuda_code(text: str) -> None:
    assert cuda_evidence(text) == ""


@pytest.mark.parametrize(("text", "what"), [
    ("if (x.is_cuda()) {}\n", "is_cuda"),
    ("#ifdef WITH_CUDA\n#endif\n", "WITH_CUDA"),
    ("TORCH_LIBRARY_IMPL(ops, AutogradCUDA, m) {}\n", "TORCH_LIBRARY_IMPL"),
    ('#include "ATen/cuda/CUDAContext.h"\n', "ATen/cuda/"),
    ("k<<<1, 1>>>();\n", "<<<"),
    ("TORCH_LIBRARY_IMPL(ops, Autocast, m) {}\n", "TORCH_LIBRARY_IMPL(ops, Autocast,"),
    ("c10::impl::ExcludeDispatchKeyGuard g(c10::DispatchKey::Autocast);\n", "DispatchKey::Autocast"),
    ("auto y = at::autocast::cached_cast(at::kFloat, x.contiguous());\n", "autocast::cached_cast"),
    ("if (at::autocast::is_enabled()) {}\n", "autocast::is_enabled()"),
])
def test_cuda_code(text: str, what: str) -> None:
    assert cuda_evidence(text).startswith(f"uses CUDA: {what}")


@pytest.mark.parametrize("text", [
    "TORCH_LIBRARY_IMPL(ops, AutocastCPU, m) {}\n",
    "auto y = at::autocast::cached_cast(at::kFloat, x, c10::DeviceType::CPU);\n",
])
def test_another_devices_autocast_is_not_cuda_code(text: str) -> None:
    assert cuda_evidence(text) == ""


# torchvision's autocast wrappers: CUDA's autocast without the word CUDA anywhere in the file.
AUTOCAST_WRAPPER = """\
#include <ATen/autocast_mode.h>
#include <torch/library.h>

at::Tensor pool(const at::Tensor& x);

at::Tensor pool_autocast(const at::Tensor& x) {
  c10::impl::ExcludeDispatchKeyGuard no_autocast(c10::DispatchKey::Autocast);
  return pool(at::autocast::cached_cast(at::kFloat, x)).to(x.scalar_type());
}

TORCH_LIBRARY_IMPL(ops, Autocast, m) {
  m.impl("ops::pool", pool_autocast);
}
"""


def test_an_autocast_wrapper_that_never_says_cuda_is_ported(tmp_path: Path) -> None:
    """Left out as "no CUDA API in its code", torchvision's roi_pool autocast kernel stayed registered for
    CUDA's autocast and cast nothing on musa: its autocast tests failed on mixed dtypes."""
    src = tmp_path / "proj"
    (src / "csrc/cuda").mkdir(parents=True)
    (src / "csrc/cuda/pool.cu").write_text("__global__ void k() {}\n")
    (src / "csrc/autocast").mkdir()
    (src / "csrc/autocast/pool_autocast.cpp").write_text(AUTOCAST_WRAPPER)
    done = port(src, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    ported = (tmp_path / "out/generated_cuda_compatible/csrc/autocast/pool_autocast.cpp").read_text()
    assert "DispatchKey::AutocastPrivateUse1" in ported and "TORCH_LIBRARY_IMPL(ops, AutocastPrivateUse1, m)" in ported
    assert "cached_cast(at::kFloat, x, c10::DeviceType::PrivateUse1)" in ported
    report = json.loads((tmp_path / "out/porting_report.json").read_text())
    assert "csrc/autocast/pool_autocast.cpp" not in [s["path"] for s in report["skipped"]]


NO_RENAMES = Paths.of({"csrc/cuda/k.cu": "csrc/musa/k.mu"}, frozenset({"csrc/cuda/k.cu", "csrc/x.cpp"}))


@pytest.mark.parametrize(("before", "after"), [
    ("from torch.utils.cpp_extension import CUDAExtension as Ext, BuildExtension\n",
     "from torch_musa.utils.musa_extension import MUSAExtension as Ext, BuildExtension\n"),
    ("from torch.utils.cpp_extension import CppExtension, CUDA_HOME\nok = CUDA_HOME is not None\n",
     "from torch.utils.cpp_extension import CppExtension\nfrom torch_musa.utils.musa_extension import MUSA_HOME\n"
     "ok = MUSA_HOME is not None\n"),
    ("args = {'cxx': [], 'nvcc': ['-O2']}\n", "args = {'cxx': [], 'mcc': ['-O2']}\n"),
    ("args = dict(cxx=[], nvcc=[])\n", "args = dict(cxx=[], mcc=[])\n"),
    ("macros = [('WITH_CUDA', None)]\n", "macros = [('WITH_MUSA', None)]\n"),
    ("srcs = ['csrc/cuda/k.cu', 'csrc/x.cpp']\n", "srcs = ['csrc/musa/k.mu', 'csrc/x.cpp']\n"),
    ("g = glob(join(d, 'cuda', '*.cu'))\n", "g = glob(join(d, 'musa', '*.mu'))\n"),
])
def test_setup_py(before: str, after: str) -> None:
    assert port_setup_py(before, "", NO_RENAMES).text == after


@pytest.mark.parametrize("text", [
    "device = 'cuda'  # torch.device('cuda')\nprint('a/cuda/b not a path here')\n",
    "from torch.utils.cpp_extension import CppExtension\n",
])
def test_setup_py_unchanged(text: str) -> None:
    assert port_setup_py(text, "", NO_RENAMES).text == text


def test_a_build_script_that_runs_nvcc_is_reported() -> None:
    """causal-conv1d and mamba read the toolkit's version from ``CUDA_HOME + "/bin/nvcc" -V``: ported to
    MUSA_HOME, the script runs a compiler that MUSA_HOME does not have."""
    text = ("import subprocess\n"
            "def version(cuda_dir):\n"
            "    return subprocess.check_output([cuda_dir + '/bin/nvcc', '-V'])\n"
            "nvcc = os.path.join(cuda_dir, 'bin', 'nvcc')\n"
            "flags = {'nvcc': ['-O3']}  # the compiler key is no program\n")
    found = [(f.rule, f.line, f.text) for f in port_setup_py(text, "", NO_RENAMES).findings]
    assert found == [("setup-nvcc-program", 3, "/bin/nvcc"), ("setup-nvcc-program", 4, "nvcc")]


def test_setup_py_flags_with_lines() -> None:
    text = "import torch\nif torch.cuda.is_available():\n    f = ['-gencode=arch=compute_70,code=sm_70']\n"
    found = [(f.rule, f.line) for f in port_setup_py(text, "", NO_RENAMES).findings]
    assert found == [("setup-torch-cuda", 2), ("build-nvcc-flags", 3)]


BUILDER = "from torch.utils.cpp_extension import CUDAExtension, CUDA_HOME\n"
MUSA_BUILDER = "from torch_musa.utils.musa_extension import MUSAExtension, MUSA_HOME\n"


def test_a_build_script_with_the_musa_builder_checks_the_musa_device() -> None:
    """Deformable-DETR's setup.py raises unless ``torch.cuda.is_available() and CUDA_HOME``: built with
    torch_musa's builder (whose import adds torch.musa), the check asks the musa device."""
    text = BUILDER + "if torch.cuda.is_available() and CUDA_HOME is not None:\n    n = torch.cuda.device_count()\n"
    ported = port_setup_py(text, "", NO_RENAMES)
    assert ported.text == (MUSA_BUILDER + "if torch.musa.is_available() and MUSA_HOME is not None:\n"
                           "    n = torch.musa.device_count()\n")
    assert ported.fired["setup-torch-device"] == 2 and ported.findings == ()


def test_the_builder_spelled_out_is_torch_musas_imported_beside_torch() -> None:
    """Deformable-DETR's ``cmdclass={"build_ext": torch.utils.cpp_extension.BuildExtension}``: left as it was,
    torch's BuildExtension refused the .mu sources ("unknown file type '.mu'")."""
    text = ("import os\nimport torch\n\nok = torch.cuda.is_available()\n"
            "setup(cmdclass={'build_ext': torch.utils.cpp_extension.BuildExtension})\n")
    ported = port_setup_py(text, "", NO_RENAMES)
    assert ported.text == ("import os\nimport torch\nimport torch_musa.utils.musa_extension\n\n"
                           "ok = torch.musa.is_available()\n"
                           "setup(cmdclass={'build_ext': torch_musa.utils.musa_extension.BuildExtension})\n")
    assert ported.findings == ()


def test_the_builder_through_a_module_alias_is_torch_musas() -> None:
    text = "from torch.utils import cpp_extension\nb = cpp_extension.BuildExtension\n"
    ported = port_setup_py(text, "", NO_RENAMES)
    assert ported.text == ("from torch.utils import cpp_extension\nimport torch_musa.utils.musa_extension\n"
                           "b = torch_musa.utils.musa_extension.BuildExtension\n")
    assert ported.findings == ()


def test_the_builder_through_a_module_the_port_cannot_name_is_reported() -> None:
    text = "import importlib\nce = importlib.import_module('torch.utils.cpp_extension')\nb = ce.BuildExtension\n"
    ported = port_setup_py(text, "", NO_RENAMES)
    assert ported.text == text
    assert [(f.rule, f.line) for f in ported.findings] == [("setup-qualified-builder", 3)]


@pytest.mark.parametrize(("text", "line"), [
    # no MUSA builder: nothing would import torch_musa, so torch.musa would not exist
    ("import torch\nok = torch.cuda.is_available()\n", 2),
    # an NVIDIA architecture: the Python pack reviews it, so the build script keeps it and reports it
    (BUILDER + "major = torch.cuda.get_device_capability()[0]\n", 2),
    (BUILDER + "v = torch.version.cuda\nw = torch.cuda\n", 3),
])
def test_other_cuda_checks_in_a_build_script_are_reported(text: str, line: int) -> None:
    ported = port_setup_py(text, "", NO_RENAMES)
    assert "torch.musa" not in ported.text
    assert ("setup-torch-cuda", line) in [(f.rule, f.line) for f in ported.findings]


@pytest.mark.parametrize(("before", "after"), [
    ("add_library(k SHARED csrc/cuda/k.cu csrc/x.cpp)\n", "add_library(k SHARED csrc/musa/k.mu csrc/x.cpp)\n"),
    ("add_subdirectory(csrc/cuda)\n", "add_subdirectory(csrc/musa)\n"),
    ('file(GLOB S "${CMAKE_CURRENT_SOURCE_DIR}/csrc/cuda/*.cu")\n',
     'file(GLOB S "${CMAKE_CURRENT_SOURCE_DIR}/csrc/musa/*.mu")\n'),
    ("# csrc/cuda/k.cu in a comment\n", "# csrc/cuda/k.cu in a comment\n"),
    ("add_definitions(-DWITH_CUDA)\n", "add_definitions(-DWITH_MUSA)\n"),
])
def test_cmake(before: str, after: str) -> None:
    assert port_cmake(before, "", NO_RENAMES).text == after


def test_declared_include_dirs(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text(
        "import os\nthis_dir = os.path.dirname(os.path.abspath(__file__))\n"
        "ext_dir = os.path.join(this_dir, 'pkg', 'csrc')\nsetup(include_dirs=[ext_dir, 'third'])\n")
    (tmp_path / "CMakeLists.txt").write_text(
        "target_include_directories(t PRIVATE ${PROJECT_SOURCE_DIR}/src include)\n# include_directories(x)\n")
    assert declared_include_dirs(tmp_path, "setup.py") == ["pkg/csrc", "third"]
    assert declared_include_dirs(tmp_path, "CMakeLists.txt") == ["src", "include"]


def test_rules_explain_knows_the_extension_rules() -> None:
    explained = musaport("rules", "explain", "--extension", "extension-library-impl-keys")
    assert explained.returncode == 0 and "rules/extension/40-extension.yaml" in explained.stdout
    assert "TORCH_LIBRARY_IMPL(imgops, AutocastCUDA, m) {" in explained.stdout
    assert musaport("rules", "explain", "extension-library-impl-keys").returncode == 2


def test_sources_at_the_root_and_out_inside_the_tree(tmp_path: Path) -> None:
    src = tmp_path / "flat"
    src.mkdir()
    (src / "kernel.cu").write_text('#include "kernel_cuda.h"\n__global__ void k() {}\n')
    (src / "kernel_cuda.h").write_text("#include <cuda_runtime.h>\n")
    assert port(src, src / "out").returncode == 0
    assert (src / "out" / TREE / "kernel.mu").read_text().splitlines()[1] == '#include "kernel_musa.h"'
    assert port(src, src / "out").returncode == 0


def test_torch_include_folder(tmp_path: Path) -> None:
    """An installed torch's include folder is taken as it is (it ships the generated headers and pybind11)."""
    from musaport.validate.compile.compile import torch_dirs

    (tmp_path / "torch").mkdir()
    (tmp_path / "torch/extension.h").write_text("#pragma once\n")
    assert torch_dirs(tmp_path, tmp_path / "gen")[:2] == [tmp_path, tmp_path / "torch/csrc/api/include"]
