"""`run --src` on a large ops library's patterns: fixtures/extensions/polyops, written for this project.

polyops has what a real ops library has and the three smaller fixtures do
not: its own device registry (POLY_REGISTER_IMPL pastes its device into
at::k##DEV, POLY_AUTOGRAD_KEY into DispatchKey::Autograd##DEV), headers named
bare from sibling folders, include folders that setup.py computes with
abspath/realpath/join/Path, prefixed guards (POLY_WITH_CUDA), a shared file
with a MUSA branch of its own, identifiers with cuda in them
(rotated_nms_cuda, BoxAreaCUDAKernelLauncher, POLY_CUDA_1D_KERNEL_LOOP) that
other files call, and a file named cudaops.cpp. Each test checks what the
port does with one pattern and what it reports.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, musaport
from harness import assert_one_clear_line
from musaport.extension.buildfiles import declared_include_dirs, port_cmake, port_setup_py, Paths
from musaport.extension.discover import discover
from musaport.extension.project import code_view, project_names, registry_macros
from musaport.extension.pyeval import assignments, evaluate
from test_extensions import include_check

FIXTURE = ROOT / "fixtures" / "extensions" / "polyops"
TREE = "generated_cuda_compatible"
CODE = (".cpp", ".h", ".hpp", ".cu", ".cuh", ".mu", ".muh")


def copy(tmp_path: Path, name: str = "polyops") -> Path:
    src = tmp_path / "src" / name
    shutil.copytree(FIXTURE, src)
    return src


def port(src: Path, out: Path, *extra: str):
    return musaport("run", "--src", str(src), "--out", str(out), "-q", *extra)


def findings(out: Path, rule: str = "") -> list[dict]:
    found = json.loads((out / "porting_report.json").read_text())["findings"]
    return [f for f in found if f["rule"].startswith(rule)] if rule else found


@pytest.fixture(scope="module")
def ported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("polyops")
    src = base / "src"
    shutil.copytree(FIXTURE, src)
    result = port(src, base / "out")
    assert result.returncode == 0, result.stderr
    return base / "out"


@pytest.fixture(scope="module")
def ported_bare(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """polyops without its setup.py: no include root is declared at all."""
    base = tmp_path_factory.mktemp("polyops_bare")
    src = base / "src"
    shutil.copytree(FIXTURE, src)
    (src / "setup.py").unlink()
    result = port(src, base / "out")
    assert result.returncode == 0, result.stderr
    return base / "out"


def text(out: Path, rel: str) -> str:
    return (out / TREE / rel).read_text()


# 1. Include roots as the build sees them.

@pytest.mark.parametrize(("expr", "value"), [
    ("os.path.abspath('./lib/ops/csrc/common')", "lib/ops/csrc/common"),
    ("os.path.realpath(os.path.join('lib', 'csrc', '..', 'include'))", "lib/include"),
    ("os.path.join(os.path.dirname(os.path.abspath(__file__)), 'csrc')", "csrc"),
    ("os.path.dirname(os.path.dirname(os.path.abspath(__file__)))", ".."),
    ("Path(__file__).resolve().parent / 'csrc' / 'common'", "csrc/common"),
    ("str(Path(__file__).parent.joinpath('inc'))", "inc"),
    ("f'{ROOT}/include'", "pkg/include"),
    ("os.path.join(os.getcwd(), 'a') + '/b'", "a/b"),
    ("os.path.abspath('.')", "."),
    ("os.environ['X']", None),
    ("get_dirs()", None),
    ("os.path.join(ROOT, CUDA_HOME)", None),
])
def test_setup_paths_are_evaluated_relative_to_setup_py(expr: str, value: str | None) -> None:
    tree = ast.parse(f"ROOT = os.path.join(os.path.dirname(__file__), 'pkg')\nx = {expr}\n")
    assert evaluate(ast.parse(expr, mode="eval").body, assignments(tree)) == value


def test_setup_py_include_dirs_of_the_fixture() -> None:
    """abspath('./polyops/csrc/common'), str(ROOT / PKG / ...), realpath(join(f'./{PKG}/csrc', ...)): all three
    name their folders (the old reading took abspath(...) for the project root and ignored its argument)."""
    assert declared_include_dirs(FIXTURE, "setup.py") == [
        "polyops/csrc/common", "polyops/csrc/core", "polyops/csrc/common/cuda"]
    assert discover(FIXTURE).roots[:3] == ("polyops/csrc/common", "polyops/csrc/core", "polyops/csrc/common/cuda")


@pytest.mark.parametrize("which", ["ported", "ported_bare"])
def test_no_stale_includes(which: str, request: pytest.FixtureRequest) -> None:
    out = request.getfixturevalue(which)
    src = Path(json.loads((out / "porting_report.json").read_text())["source"])
    project, rewritten, stale = include_check(src, out / TREE)
    assert not stale
    assert (project, rewritten) == (10, 5)
    assert '#include "box_area_musa_kernel.muh"' in text(out, "polyops/csrc/core/musa/box_area_musa.mu")
    assert '#include "torch_musa_helper.hpp"' in text(out, "polyops/csrc/core/musa/rotated_nms_musa.mu")


def test_bare_includes_are_followed_by_their_trailing_path_and_reported(ported_bare: Path) -> None:
    found = findings(ported_bare, "include-found-by-path")
    sites = sorted(f["site"] for f in found)
    assert "polyops/csrc/core/cuda/box_area_cuda.cu:2" in sites
    assert all("no declared include root finds this" in f["message"] for f in found)
    assert any("polyops/csrc/common/cuda is added" in f["message"] for f in found)
    cmake = text(ported_bare, "musaport_sources.cmake")
    roots = re.search(r"set\(MUSAPORT_INCLUDE_DIRS\n(.*?)\)", cmake, re.S).group(1)  # type: ignore[union-attr]
    assert '"${CMAKE_CURRENT_LIST_DIR}/polyops/csrc/common/musa"' in roots
    assert '"${CMAKE_CURRENT_LIST_DIR}/polyops/csrc/common"' in roots


def test_declared_roots_need_no_trailing_match(ported: Path) -> None:
    assert not findings(ported, "include-found-by-path") and not findings(ported, "include-unresolved")


def test_validate_uses_the_roots_the_port_found(ported_bare: Path, tmp_path: Path) -> None:
    from musaport.extension.overlay import overlay_flags

    src = Path(json.loads((ported_bare / "porting_report.json").read_text())["source"])
    flags = overlay_flags(ported_bare / TREE, src, set(), tmp_path / "overlay.json")
    assert f"-I{ported_bare / TREE / 'polyops/csrc/common/musa'}" in flags


@pytest.mark.shared
@pytest.mark.compiles
def test_the_port_without_declared_roots_compiles(ported_bare: Path, ported_260: Path, clang) -> None:
    """The renamed "box_area_musa_kernel.muh" compiles because its folder is an include root of the port."""
    result = musaport("validate", "--compile", "--out", str(ported_bare), "--torch", str(ported_260), "-j", "1",
                      "*.mu", "polyops/csrc/core/box_area.cpp", "polyops/csrc/core/rotated_nms.cpp", "*/musaops.cpp")
    assert result.returncode == 0, result.stdout + result.stderr
    assert sum(ln.startswith("PASS ") for ln in result.stdout.splitlines()) == 5, result.stdout


def test_an_unresolved_include_of_a_renamed_name_is_reported(tmp_path: Path) -> None:
    src = copy(tmp_path)
    (src / "setup.py").unlink()
    nms = src / "polyops/csrc/core/cuda/rotated_nms_cuda.cu"
    nms.write_text(nms.read_text().replace('#include "common_cuda_helper.cuh"',
                                           '#include "common_cuda_helper.cuh"\n#include "old/box_area_cuda_kernel.cuh"'
                                           '\n#include "vendor_math.cuh"\n#include "cub/cub.cuh"'))
    (src / "polyops/csrc/extra/cuda").mkdir(parents=True)
    (src / "polyops/csrc/extra/cuda/common_cuda_helper.cuh").write_text("#pragma once\n")
    assert port(src, tmp_path / "out").returncode == 0
    unresolved = {f["site"]: f["message"] for f in findings(tmp_path / "out", "include-unresolved")}
    assert set(unresolved) == {f"polyops/csrc/core/cuda/rotated_nms_cuda.cu:{n}" for n in (2, 3, 4)}
    assert "matches 2 project files" in unresolved["polyops/csrc/core/cuda/rotated_nms_cuda.cu:2"]
    assert "names no project file" in unresolved["polyops/csrc/core/cuda/rotated_nms_cuda.cu:3"]
    assert "renames it to vendor_math.muh" in unresolved["polyops/csrc/core/cuda/rotated_nms_cuda.cu:4"]


# 2. Project registries.

def test_registry_macros_are_found_from_their_definitions() -> None:
    texts = {"a.h": "#define POLY_REGISTER_IMPL(op, DEV, impl) \\\n  static int r = add(at::k##DEV, impl)\n"
                    "#define KEYED(D) c10::DispatchKey::Autograd##D\n"
                    "#define ODD(D) c10::DispatchKey::D##Tensor\n"
                    "#define TYPED(x, D) c10::DeviceType::D\n"
                    "#define FWD(op, impl) POLY_REGISTER_IMPL(op, CUDA, impl)\n"
                    "#define PASS(op, dev, impl) POLY_REGISTER_IMPL(op, dev, impl)\n"
                    "#define OTHER(x) foo(x)\n"
                    "#define OPS_IMPL(k) TORCH_LIBRARY_IMPL(polyops, k, m)\n"}
    found = {r.name: (r.index, r.decided) for r in registry_macros(texts)}
    assert found == {"POLY_REGISTER_IMPL": (1, True), "KEYED": (0, True), "ODD": (0, False), "TYPED": (1, True),
                     "PASS": (1, True), "OPS_IMPL": (0, True)}


def test_registry_call_sites_name_privateuse1(ported: Path) -> None:
    assert "POLY_REGISTER_IMPL(box_area_impl, PrivateUse1, box_area_musa);" in \
        text(ported, "polyops/csrc/core/musa/box_area_musa.mu")
    assert "POLY_AUTOGRAD_KEY(PrivateUse1)" in text(ported, "polyops/csrc/core/box_area.cpp")
    assert not (ported / TREE / "polyops/csrc/core/cpu/box_area_cpu.cpp").exists()  # CPU registration: untouched
    assert not findings(ported, "project-registry-undecided")


def test_registry_under_another_name_and_undecided_sites(tmp_path: Path) -> None:
    src = copy(tmp_path)
    for path in src.rglob("*"):
        if path.suffix in CODE:
            path.write_text(path.read_text().replace("POLY_REGISTER_IMPL", "ZZ_ADD_KERNEL"))
    reg = src / "polyops/csrc/common/poly_registry.hpp"
    reg.write_text(reg.read_text() + "#define ZZ_ODD_KEY(DEV) c10::DispatchKey::DEV##Tensor\n"
                                      "#define ZZ_ADD_CUDA(op, impl) ZZ_ADD_KERNEL(op, CUDA, impl)\n")
    cu = src / "polyops/csrc/core/cuda/box_area_cuda.cu"
    cu.write_text(cu.read_text().replace("}  // namespace polyops",
                                         "ZZ_ADD_KERNEL(box_area_impl, POLY_DEVICE, box_area_cuda);\n"
                                         "auto k = ZZ_ODD_KEY(CUDA);\n}  // namespace polyops"))
    assert port(src, tmp_path / "out").returncode == 0
    out = text(tmp_path / "out", "polyops/csrc/core/musa/box_area_musa.mu")
    assert "ZZ_ADD_KERNEL(box_area_impl, PrivateUse1, box_area_musa);" in out
    assert "auto k = ZZ_ODD_KEY(CUDA);" in out
    assert "ZZ_ADD_KERNEL(op, PrivateUse1, impl)" in (tmp_path / "out" / TREE / "polyops/csrc/common/poly_registry.hpp"
                                                      ).read_text()
    undecided = {f["site"]: f["message"] for f in findings(tmp_path / "out", "project-registry-undecided")}
    sites = {s.rsplit(":", 1)[0] for s in undecided}
    assert sites == {"polyops/csrc/core/cuda/box_area_cuda.cu"} and len(undecided) == 2
    assert any("'POLY_DEVICE'" in m for m in undecided.values())
    assert any("no known PrivateUse1 form" in m for m in undecided.values())


# 3. Project guards and existing MUSA support.

def test_prefixed_guards_in_code_setup_py_and_cmake(ported: Path) -> None:
    assert "#ifdef POLY_WITH_MUSA" in text(ported, "polyops/csrc/core/bindings.cpp")
    assert "POLY_WITH_CUDA" not in text(ported, "polyops/csrc/core/bindings.cpp")
    assert '("POLY_WITH_MUSA", None)' in text(ported, "setup.py")
    paths = Paths.of({}, frozenset())
    assert port_cmake("add_definitions(-DGEO_USE_CUDA)\nif(GEO_WITH_CUDA)\nendif()\n", "", paths).text == \
        "add_definitions(-DGEO_USE_MUSA)\nif(GEO_WITH_MUSA)\nendif()\n"
    assert "'-DGEO_WITH_MUSA'" in port_setup_py("x = ['-DGEO_WITH_CUDA']\n", "", paths).text


def test_an_existing_musa_branch_is_not_bypassed(ported: Path) -> None:
    nms = text(ported, "polyops/csrc/core/rotated_nms.cpp")
    assert "boxes.device().is_cuda()" in nms and "is_privateuseone" not in nms
    assert nms.count("#ifdef POLY_WITH_CUDA") == 2 and nms.count("#ifdef POLY_WITH_MUSA") == 2
    assert "boxes.device().type() == at::kPrivateUse1" in nms
    kept = findings(ported, "existing-musa-branch")
    assert sorted(f["site"] for f in kept) == [f"polyops/csrc/core/rotated_nms.cpp:{n}" for n in (18, 19, 6)]
    assert all("line 9: POLY_WITH_MUSA" in f["message"] for f in kept)


# 4. One name table for the project.

def test_project_names_are_renamed_everywhere(ported: Path) -> None:
    mu = text(ported, "polyops/csrc/core/musa/box_area_musa.mu")
    assert "void BoxAreaMUSAKernelLauncher(" in mu and "box_area_musa_kernel<scalar_t>" in mu
    assert "POLY_MUSA_1D_KERNEL_LOOP" in text(ported, "polyops/csrc/common/musa/box_area_musa_kernel.muh")
    assert "#define POLY_MUSA_1D_KERNEL_LOOP" in text(ported, "polyops/csrc/common/musa/common_musa_helper.muh")
    assert "at::Tensor rotated_nms_musa(" in text(ported, "polyops/csrc/core/musa/rotated_nms_musa.mu")
    assert "std::string get_compiled_musa_version()" in text(ported, "polyops/csrc/core/musa/musaops.cpp")
    bindings = text(ported, "polyops/csrc/core/bindings.cpp")  # not CUDA code: ported because it calls one
    assert "&polyops::get_compiled_musa_version" in bindings and '"compiled_cuda_version"' in bindings
    report = json.loads((ported / "porting_report.json").read_text())
    assert "polyops/csrc/core/bindings.cpp" in report["files"]
    # libtorch's names keep the PyTorch policy
    assert "at::musa::getCurrentMUSAStream()" in mu and "C10_MUSA_KERNEL_LAUNCH_CHECK" in mu


def test_libtorch_names_are_not_the_projects() -> None:
    names = project_names({"a.h": "#define CUDA_KERNEL_ASSERT(x) x\n#define MY_CUDA_LOOP(i) i\n"
                                  "cudaError_t cudaMalloc(void**, size_t);\nvoid run_cuda();\n"
                                  "enum class Where { CPU, CUDA };\nbool is_cuda(int d);\n"})
    assert names == {"MY_CUDA_LOOP": "MY_MUSA_LOOP", "run_cuda": "run_musa"}


_CALL = re.compile(r"(?<![\w.>:])(?:\w+::)*(\w+)\s*(?:<[^<>;{}()]*>\s*)?(?:\(|<<<)")
_DEFINITION = re.compile(r"(?<![\w])(\w+)\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*(?:const\s*)?\{")
_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)
_PROTOTYPE = re.compile(r"(?<![\w])(?!return\b|else\b)[\w:<>]+[ \t*&]+(\w+)\s*\([^;{}()]*\)\s*;")
_NOT_FUNCTIONS = {"if", "for", "while", "switch", "return", "sizeof", "catch", "decltype", "defined"}


def defined_and_called(root: Path, rels: list[str]) -> tuple[set[str], set[str]]:
    defined, called = set(), set()
    for rel in rels:
        code = code_view((root / rel).read_text())
        defined |= set(_MACRO.findall(code)) | {m for m in _DEFINITION.findall(code) if m not in _NOT_FUNCTIONS}
        called |= {m for m in _CALL.findall(code) if m not in _NOT_FUNCTIONS}
    return defined, called


def test_nothing_the_port_leaves_is_called_but_not_defined(ported: Path) -> None:
    """Over the port laid on the project's other files: every function or macro of the project that is called
    is defined (libtorch's and the toolkit's calls are not the project's)."""
    src = Path(json.loads((ported / "porting_report.json").read_text())["source"])
    rels = [p.relative_to(src).as_posix() for p in src.rglob("*") if p.suffix in CODE]
    d = discover(src)
    src_defined, src_called = defined_and_called(src, rels)
    project = src_defined | {n for r in rels for n in _PROTOTYPE.findall(code_view((src / r).read_text()))}
    names = dict(d.names)
    project |= {names.get(n, n) for n in project}
    ported_rels = {p.out for p in d.picked}
    overlay = [(ported / TREE, r) for r in sorted(ported_rels)] + \
        [(src, r) for r in rels if r not in {p.rel for p in d.picked}]
    defined, called = set(), set()
    for root, rel in overlay:
        got = defined_and_called(root, [rel])
        defined |= got[0]
        called |= got[1]
    missing = sorted(n for n in called & project if n not in defined)
    assert not missing
    assert {"rotated_nms_musa", "BoxAreaMUSAKernelLauncher", "get_compiled_musa_version"} <= called & defined


def test_file_names_with_cuda_inside_a_word(ported: Path) -> None:
    assert (ported / TREE / "polyops/csrc/core/musa/musaops.cpp").is_file()
    assert not (ported / TREE / "polyops/csrc/core/musa/cudaops.cpp").exists()


# 5. No silent overwrite.

def test_a_renamed_output_on_a_project_file_stops(tmp_path: Path) -> None:
    src = copy(tmp_path)
    own = src / "polyops/csrc/common/torch_musa_helper.hpp"
    own.write_text("// the project's own MUSA helper\n#pragma once\n#define POLY_OWN_MUSA_HELPER 1\n")
    result = port(src, tmp_path / "out")
    assert_one_clear_line(result, 2, "polyops/csrc/common/torch_cuda_helper.hpp: its port "
                                     "polyops/csrc/common/torch_musa_helper.hpp would overwrite the project's own")
    assert str(own) in result.stderr and not (tmp_path / "out" / TREE).exists()

    assert port(src, tmp_path / "project", "--on-collision", "project").returncode == 0
    assert not (tmp_path / "project" / TREE / "polyops/csrc/common/torch_musa_helper.hpp").exists()
    assert '#include "torch_musa_helper.hpp"' in text(tmp_path / "project",
                                                       "polyops/csrc/core/musa/rotated_nms_musa.mu")
    skipped = json.loads((tmp_path / "project" / "porting_report.json").read_text())["skipped"]
    assert any("torch_cuda_helper.hpp" in json.dumps(s) and "--on-collision project" in json.dumps(s)
               for s in skipped)

    assert port(src, tmp_path / "port", "--on-collision", "port").returncode == 0
    assert "POLY_MUSA_CHECK" in text(tmp_path / "port", "polyops/csrc/common/torch_musa_helper.hpp")
    result = musaport("run", "--out", str(tmp_path / "pt"), "--on-collision", "port", "-q")
    assert_one_clear_line(result, 2, "--on-collision goes with --src")


# 6. The optional pack for toolchains without half kernels.

def test_no_half_kernels_pack(ported: Path, tmp_path: Path) -> None:
    assert "AT_DISPATCH_FLOATING_TYPES_AND_HALF" in text(ported, "polyops/csrc/core/musa/box_area_musa.mu")
    src = Path(json.loads((ported / "porting_report.json").read_text())["source"])
    assert port(src, tmp_path / "out", "--pack", "no-half-kernels").returncode == 0
    mu = text(tmp_path / "out", "polyops/csrc/core/musa/box_area_musa.mu")
    assert "AT_DISPATCH_FLOATING_TYPES(boxes.scalar_type()" in mu and "_AND_HALF" not in mu
    sites = [f["site"] for f in findings(tmp_path / "out", "no-half-dispatch")]
    assert sites == ["polyops/csrc/core/cuda/box_area_cuda.cu:12"]


def test_a_musa_name_the_project_already_defines_is_not_made_twice(tmp_path: Path) -> None:
    """A hand-written MUSA implementation of rotated_nms (musa/rotated_nms_impl.mu defines rotated_nms_musa):
    the ported CUDA one keeps its name, and each of its uses is reported."""
    src = copy(tmp_path)
    (src / "polyops/csrc/core/musa").mkdir()
    (src / "polyops/csrc/core/musa/rotated_nms_impl.mu").write_text(
        "#include <ATen/ATen.h>\nnamespace polyops {\n"
        "at::Tensor rotated_nms_musa(const at::Tensor& boxes, const at::Tensor& scores, float threshold) {\n"
        "  return scores;\n}\n}  // namespace polyops\n")
    assert port(src, tmp_path / "out").returncode == 0
    assert "at::Tensor rotated_nms_cuda(" in text(tmp_path / "out", "polyops/csrc/core/musa/rotated_nms_musa.mu")
    kept = findings(tmp_path / "out", "project-name-kept")
    assert {f["site"] for f in kept} == {"polyops/csrc/core/cuda/rotated_nms_cuda.cu:12",
                                        "polyops/csrc/core/rotated_nms.cpp:7", "polyops/csrc/core/rotated_nms.cpp:20"}
    assert all("polyops/csrc/core/musa/rotated_nms_impl.mu:3" in f["message"] for f in kept)
    assert "rotated_nms_musa_kernel" in text(tmp_path / "out", "polyops/csrc/core/musa/rotated_nms_musa.mu")


def test_a_macro_the_build_sets_keeps_its_name_in_the_code(tmp_path: Path) -> None:
    """setup.py passes -DPOLY_BUILD_CUDA=1 and the code defaults it to 0 (torch-harmonics' BUILD_CUDA): renamed
    in the code alone, the kernels would report themselves missing. It keeps its name in both, its default
    is reported, and the project's other cuda names are renamed as before."""
    src = copy(tmp_path)
    setup = src / "setup.py"
    setup.write_text(setup.read_text().replace('extra_compile_args["nvcc"] = ["-O2"]',
                                               'extra_compile_args["nvcc"] = ["-O2", "-DPOLY_BUILD_CUDA=1"]'))
    (src / "polyops/csrc/core/cuda/built_cuda.cu").write_text(
        "#ifndef POLY_BUILD_CUDA\n#define POLY_BUILD_CUDA 0\n#endif\n#define POLY_CUDA_BLOCK 128\n"
        "bool poly_cuda_built() { return POLY_BUILD_CUDA; }\nint poly_cuda_block() { return POLY_CUDA_BLOCK; }\n")
    assert port(src, tmp_path / "out").returncode == 0
    mu = text(tmp_path / "out", "polyops/csrc/core/musa/built_musa.mu")
    assert "#define POLY_BUILD_CUDA 0" in mu and "return POLY_BUILD_CUDA;" in mu
    assert "bool poly_musa_built()" in mu and "return POLY_MUSA_BLOCK;" in mu
    assert "-DPOLY_BUILD_CUDA=1" in text(tmp_path / "out", "setup.py")
    (kept,) = findings(tmp_path / "out", "project-build-macro-kept")
    assert kept["site"] == "polyops/csrc/core/cuda/built_cuda.cu:2"
    assert kept["message"].startswith("kept as POLY_BUILD_CUDA: setup.py:31 sets it for the compiler")
    assert "POLY_WITH_MUSA" in text(tmp_path / "out", "setup.py")  # a guard the build renames is renamed in both


def test_a_cuda_registration_the_project_already_has_for_privateuse1_stays(tmp_path: Path) -> None:
    """The project registers box_area_impl for PrivateUse1 by hand: converting its CUDA registration would
    register the same operator twice, so it stays CUDA and is reported."""
    src = copy(tmp_path)
    (src / "polyops/csrc/core/musa").mkdir()
    (src / "polyops/csrc/core/musa/box_area_own.mu").write_text(
        '#include "poly_registry.hpp"\nnamespace polyops {\nat::Tensor box_area_own(const at::Tensor& b) { return b; }\n'
        "at::Tensor box_area_impl(const at::Tensor& boxes);\n"
        "POLY_REGISTER_IMPL(box_area_impl, PrivateUse1, box_area_own);\n}  // namespace polyops\n")
    assert port(src, tmp_path / "out").returncode == 0
    assert "POLY_REGISTER_IMPL(box_area_impl, CUDA, box_area_musa);" in \
        text(tmp_path / "out", "polyops/csrc/core/musa/box_area_musa.mu")
    kept = findings(tmp_path / "out", "project-registry-undecided")
    assert [f["site"] for f in kept] == ["polyops/csrc/core/cuda/box_area_cuda.cu:27"]
    assert "polyops/csrc/core/musa/box_area_own.mu:5" in kept[0]["message"]
