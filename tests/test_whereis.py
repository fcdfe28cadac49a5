"""`musaport whereis`: symbol parsing, definition finding, the FAQ verdicts, the CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import FIXTURE_TREE, musaport, required_tool
from musaport.cpp.scope import occurrences
from musaport.cpp.parser import parse
from musaport.cpp.symbols import SymbolError, demangle, parse_symbol
from musaport.ops.emit_cmake import cmake_variables
from musaport.whereis.search import Place, conclude, matches, search, variable_of

FAQ = "_ZN2at4musa3cub28exclusive_sum_in_common_typeIiiEEvPKT_PT0_l"
# AbsKernel.cu's own kernel name follows the port (docs/naming.md): the backend links abs_kernel_musa.
ABS_KERNEL = "_ZN2at6native15abs_kernel_musaERNS_18TensorIteratorBaseE"


@pytest.mark.parametrize(
    "given, scope, name, targs",
    [
        pytest.param("void at::musa::cub::f<int, int>(int const*, int*, long)", ("at", "musa", "cub"), "f",
                     "<int, int>", id="template-with-return-type"),
        pytest.param("std::tuple<at::Tensor, at::Tensor> at::native::g<float>(int)", ("at", "native"), "g",
                     "<float>", id="return-type-with-spaces"),
        pytest.param("at::Foo<int>::operator()(int) const", ("at", "Foo"), "operator()", "", id="call-operator"),
        pytest.param("at::Foo::operator<<(int)", ("at", "Foo"), "operator<<", "", id="shift-operator"),
        pytest.param("at::native::(anonymous namespace)::h(int)", ("at", "native", "(anonymous namespace)"), "h",
                     "", id="anonymous-namespace"),
        pytest.param("c10::musa::allocator", ("c10", "musa"), "allocator", "", id="variable"),
    ],
)
def test_parse_symbol(given: str, scope: tuple[str, ...], name: str, targs: str) -> None:
    sym = parse_symbol(given, given)
    assert (sym.scope, sym.name, sym.template_args) == (scope, name, targs)


def test_demangle_uses_cxxfilt_and_keeps_readable_names() -> None:
    required_tool("c++filt", "apt-get install -y binutils")
    assert demangle(FAQ) == "void at::musa::cub::exclusive_sum_in_common_type<int, int>(int const*, int*, long)"
    assert demangle("at::native::f(int)") == "at::native::f(int)"
    with pytest.raises(SymbolError, match="not a valid mangled"):
        demangle("_ZN2at4musa3cub28exclusive")


SOURCE = b"""\
#define MAKE(name) void name() {}
namespace at::musa {
// void target(int) {} in a comment does not count
const char* s = "void target(int) {}";
void target(int);                       // a declaration
void caller() { target(1); }            // a call
namespace cub {
template <typename T>
void target(const T* in, int64_t n) {
  target(in, n - 1);
}
template void target(const int32_t* in, int64_t n);
extern template void target(const int64_t* in, int64_t n);
}  // namespace cub
struct Holder {
  static int target;
  void target2();
};
int Holder::target = 0;
}  // namespace at::musa
void at::musa::target(int x) {}
"""


def _kinds(name: str, data: bytes = SOURCE) -> list[tuple[str, str, int]]:
    return [(o.kind, "::".join(o.path), o.line) for o in occurrences(parse(data), name)]


def test_occurrences_tell_definitions_from_declarations_calls_comments_and_strings() -> None:
    assert _kinds("target") == [
        ("declaration", "at::musa::target", 5),
        ("definition", "at::musa::cub::target", 9),
        ("instantiation", "at::musa::cub::target", 12),
        ("declaration", "at::musa::cub::target", 13),
        ("declaration", "at::musa::Holder::target", 16),
        ("definition", "at::musa::Holder::target", 19),
        ("definition", "at::musa::target", 21),
    ]


def test_occurrences_read_structured_impl_and_launch_bounds() -> None:
    data = b"""namespace at::native {
TORCH_SDT_DEFINE_SEMAPHORE(free)
TORCH_IMPL_FUNC(tril_cuda)(const Tensor& self, int64_t k, const Tensor& result) {
  if (k) { return; }
}
template <typename T>
C10_LAUNCH_BOUNDS_1(musa::getApplyBlockSize())
__global__ void roll_kernel(const T* in) {}
}
"""
    assert _kinds("impl", data) == [("definition", "at::native::structured_tril_cuda::impl", 3)]
    assert _kinds("roll_kernel", data) == [("definition", "at::native::roll_kernel", 8)]


def test_a_definition_must_sit_in_a_scope_enclosing_the_symbol() -> None:
    occs = {(o.line): o for o in occurrences(parse(SOURCE), "target")}
    cub = parse_symbol("at::musa::cub::target", "at::musa::cub::target")
    top = parse_symbol("at::musa::target", "at::musa::target")
    assert matches(occs[9], cub) and not matches(occs[9], top)
    assert matches(occs[21], top) and not matches(occs[21], cub)
    assert not matches(occs[19], top)


def _place(file: str, kind: str, template: bool = False) -> Place:
    return Place(file, 1, kind, "", template)


@pytest.mark.parametrize(
    "places, verdict, add",
    [
        pytest.param([_place("a/cub.muh", "definition", True), _place("a/cub.mu", "instantiation")],
                     "add-source", ("a/cub.mu",), id="template-in-header-instantiated-in-mu"),
        pytest.param([_place("a/K.mu", "definition"), _place("a/K.h", "declaration")], "add-source", ("a/K.mu",),
                     id="plain-function"),
        pytest.param([_place("a/Pool.cpp", "definition")], "cpp-defines", ("a/Pool.cpp",), id="cpp"),
        pytest.param([_place("a/K.muh", "definition", True)], "header-only", (), id="template-never-instantiated"),
        pytest.param([_place("a/K.h", "declaration")], "not-defined", (), id="declared-only"),
    ],
)
def test_conclude(places: list[Place], verdict: str, add: tuple[str, ...]) -> None:
    answer = conclude(parse_symbol("at::musa::f", "at::musa::f"), places)
    assert (answer.verdict, answer.add) == (verdict, add)
    assert answer.exit_code == (1 if verdict == "not-defined" else 0)


def test_cmake_variables_find_the_list_naming_a_file() -> None:
    text = 'set(MUSAPORT_MU_SOURCES\n  "${DIR}/aten/A.mu"\n  ${DIR}/aten/B.mu)\nlist(APPEND MUSAPORT_CPP_SOURCES aten/C.cpp)\n'
    variables = cmake_variables(text)
    assert variables["MUSAPORT_MU_SOURCES"] == [("${DIR}/aten/A.mu", 2), ("${DIR}/aten/B.mu", 3)]
    assert variable_of("aten/B.mu", variables) == "MUSAPORT_MU_SOURCES"
    assert variable_of("aten/C.cpp", variables) == "MUSAPORT_CPP_SOURCES"
    assert variable_of("aten/D.mu", variables) == ""


@pytest.fixture(scope="module")
def fixture_port(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("whereis")
    assert musaport("run", "--pytorch-src", str(FIXTURE_TREE), "--out", str(out), "-q").returncode == 0
    return out


def test_cli_mangled_symbol_in_a_mu_with_cmake_lists(fixture_port: Path, tmp_path: Path) -> None:
    own = tmp_path / "CMakeLists.txt"
    own.write_text("set(SRCS\n  x.mu\n  aten/src/ATen/native/musa/AbsKernel.mu)\n")
    result = musaport("whereis", ABS_KERNEL, "--out", str(fixture_port), "--cmake-list", str(own), "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["demangled"] == "at::native::abs_kernel_musa(at::TensorIteratorBase&)"
    assert doc["verdict"] == "add-source"
    assert [(d["file"], d["line"], d["source"]) for d in doc["definitions"]] == [
        ("aten/src/ATen/native/musa/AbsKernel.mu", 21, "aten/src/ATen/native/cuda/AbsKernel.cu")]
    # musaport run wrote musaport_sources.cmake; the file is in its .mu list.
    assert doc["add"] == [{"file": "aten/src/ATen/native/musa/AbsKernel.mu", "variable": "MUSAPORT_MU_SOURCES",
                           "in_generated_cmake": True, "listed": f"{own}:3"}]


def test_cli_without_generated_cmake_names_the_variable_to_use(fixture_port: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(fixture_port, out)
    (out / "generated_cuda_compatible" / "musaport_sources.cmake").unlink()
    result = musaport("whereis", ABS_KERNEL, "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith("=> add aten/src/ATen/native/musa/AbsKernel.mu to the backend sources "
                                  f"(MUSAPORT_MU_SOURCES in {out}/generated_cuda_compatible/musaport_sources.cmake, "
                                  "once generated)\n")


def test_cli_demangled_symbol_defined_in_a_cpp(fixture_port: Path) -> None:
    result = musaport("whereis", "at::native::mini_cudnn_handle()", "--out", str(fixture_port))
    assert result.returncode == 0, result.stderr
    assert "defined      aten/src/ATen/native/musa/CudnnStub.cpp:13" in result.stdout
    assert "=> defined in a .cpp, not a .mu: aten/src/ATen/native/musa/CudnnStub.cpp" in result.stdout
    assert "MUSAPORT_CPP_SOURCES" in result.stdout


def test_cli_symbol_pytorch_does_not_define(fixture_port: Path) -> None:
    result = musaport("whereis", "_ZN2at4musa14muLaunchHelperEv", "--out", str(fixture_port))
    assert result.returncode == 1
    assert "the ported tree does not define at::musa::muLaunchHelper" in result.stdout
    assert "/usr/local/musa" in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["_ZN2at4musa3cub28exclusive"], "not a valid mangled C++ name"),
        (["foo", "--out", "nowhere"], "nowhere/generated_cuda_compatible: no ported tree here"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(fixture_port: Path, args: list[str], message: str) -> None:
    if "--out" not in args:
        args = args + ["--out", str(fixture_port)]
    result = musaport("whereis", *args)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and message in result.stderr


@pytest.mark.shared
def test_faq_symbol_on_pytorch_260(ported_260: Path) -> None:
    started = time.perf_counter()
    result = musaport("whereis", FAQ, "--out", str(ported_260), "--json")
    elapsed = time.perf_counter() - started
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    # In 2.6.0 the template is defined in ATen/cuda/cub.cu and explicitly instantiated
    # there for int32/int64; cub.h only declares it.
    assert [(d["file"], d["line"], d["template"]) for d in doc["definitions"]] == [
        ("aten/src/ATen/musa/cub.mu", 28, True)]
    assert [i["line"] for i in doc["instantiations"]] == [33, 34]
    assert all(i["file"] == "aten/src/ATen/musa/cub.mu" for i in doc["instantiations"])
    assert [(d["file"], d["line"]) for d in doc["declarations"]] == [("aten/src/ATen/musa/cub.h", 75)]
    assert doc["add"] == [{"file": "aten/src/ATen/musa/cub.mu", "variable": "MUSAPORT_MU_SOURCES",
                           "in_generated_cmake": True, "listed": None}]
    assert doc["definitions"][0]["source"] == "aten/src/ATen/cuda/cub.cu"
    assert elapsed < 5


@pytest.mark.shared
def test_cpp_definition_on_pytorch_260(ported_260: Path) -> None:
    result = musaport("whereis", "at::musa::getCurrentMUSABlasHandle()", "--out", str(ported_260))
    assert result.returncode == 0, result.stderr
    assert "defined      aten/src/ATen/musa/CublasHandlePool.cpp:" in result.stdout
    assert "declared     aten/src/ATen/musa/MUSAContextLight.h:" in result.stdout
    assert "=> defined in a .cpp" in result.stdout


@pytest.mark.shared
def test_not_ported_but_upstream_on_pytorch_260(ported_260: Path, pytorch_260: Path) -> None:
    result = musaport("whereis", "at::native::abs(at::Tensor const&)", "--out", str(ported_260),
                      "--pytorch-src", str(pytorch_260))
    assert result.returncode == 1
    assert "upstream     aten/src/ATen/native/UnaryOps.cpp:" in result.stdout


def test_cli_without_cxxfilt_says_so_and_accepts_demangled_names(fixture_port: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(tmp_path)}  # an empty PATH: no binutils

    def run(symbol: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "musaport", "whereis", symbol, "--out", str(fixture_port)],
                              capture_output=True, text=True, env=env)

    missing = run(ABS_KERNEL)
    assert missing.returncode == 2
    assert missing.stderr == ("musaport: error: c++filt not found on PATH (install binutils), "
                              "or pass the demangled name instead\n")
    assert run("at::native::abs_kernel_musa(at::TensorIteratorBase&)").returncode == 0


def test_a_definition_in_an_anonymous_namespace_is_internal_not_found() -> None:
    files = {"a/K.mu": b"namespace at::native {\nnamespace {\nvoid elu_kernel(int x) {}\n}\n}\n"}
    public = parse_symbol("at::native::elu_kernel", "at::native::elu_kernel")
    answer = conclude(public, search(files, public))
    assert answer.verdict == "not-defined" and answer.exit_code == 1
    assert [(p.file, p.line, p.kind) for p in answer.internal] == [("a/K.mu", 3, "internal")]
    spelled = "at::native::(anonymous namespace)::elu_kernel"
    assert conclude(parse_symbol(spelled, spelled), search(files, parse_symbol(spelled, spelled))).add == ("a/K.mu",)


def test_explicit_specializations_are_definitions_of_their_template() -> None:
    """CUDABlas.cpp defines ``template <> void dot<at::Half>(CUDABLAS_DOT_ARGTYPES(at::Half))``: the
    parameter list is a macro, so the name is read before ``<...>``; the device build links dot<Half> only
    when whereis finds its source."""
    data = b"""\
namespace at::musa::blas {
template <typename Dtype> inline void dot(MUSABLAS_DOT_ARGTYPES(Dtype)) { static_assert(false); }
template <> void dot<double>(MUSABLAS_DOT_ARGTYPES(double));
template <>
void dot<at::Half>(MUSABLAS_DOT_ARGTYPES(at::Half)) {
  return;
}
}
"""
    symbol = parse_symbol("void at::musa::blas::dot<c10::Half>(int)", "void at::musa::blas::dot<c10::Half>(int)")
    found = [(p.kind, p.line, p.template) for p in search({"MUSABlas.cpp": data}, symbol)]
    assert ("definition", 5, True) in found
    assert ("definition", 2, True) in found


def test_an_out_of_line_defaulted_destructor_is_a_definition() -> None:
    """``StreamTimer::~StreamTimer() = default;`` in tunable/StreamTimer.cpp defines the destructor (and
    the class's vtable): the device build must add that file when the destructor is missing."""
    data = b"namespace at::musa::tunable {\nStreamTimer::StreamTimer() {}\nStreamTimer::~StreamTimer() = default;\n}\n"
    symbol = parse_symbol("at::musa::tunable::StreamTimer::~StreamTimer()", "at::musa::tunable::StreamTimer::~StreamTimer()")
    assert [(p.kind, p.line) for p in search({"StreamTimer.cpp": data}, symbol)] == [("definition", 3)]
    header = b"namespace at::musa::tunable {\nclass StreamTimer : public ITimer {\n public:\n  ~StreamTimer() override;\n};\n}\n"
    assert [(p.kind, p.line) for p in search({"StreamTimer.h": header}, symbol)] == [("declaration", 4)]


def test_a_braced_default_argument_does_not_end_the_parameter_list() -> None:
    """2.6.0's BatchLinearAlgebraLib.cpp has ``const std::vector<int64_t>& batches = {}`` in a parameter
    list; read as a function body, it hid every later definition of the file (svd_cusolver...)."""
    source = b"""namespace at::native {
static void gesvd(const int& a,
  const std::vector<int64_t>& batches = {}
) {
  g(std::vector<int>{1, 2});
}
void after(int x, Options o = Options{1}) {
  h();
}
}  // namespace at::native
"""
    assert _kinds("after", source) == [("definition", "at::native::after", 7)]
    assert _kinds("gesvd", source) == [("definition", "at::native::gesvd", 2)]


def test_a_defaulted_definition_out_of_its_class_is_a_definition() -> None:
    """2.6.0's tunable/StreamTimer.cpp defines 'StreamTimer::~StreamTimer() = default;': the device build
    must find it there; inside the class the same words only declare (the definition is inline)."""
    source = b"""namespace at::cuda::tunable {
class StreamTimer {
  ~StreamTimer() = default;
  void Start();
};
StreamTimer::~StreamTimer() = default;
void StreamTimer::Start() = delete;
}
"""
    assert _kinds("~StreamTimer", source) == [("declaration", "at::cuda::tunable::StreamTimer::~StreamTimer", 3),
                                              ("definition", "at::cuda::tunable::StreamTimer::~StreamTimer", 6)]
