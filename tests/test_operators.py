"""The operator model: how the MUSA backend gets each operator with a CUDA kernel."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import FIXTURE_TREE
from musaport.ops.emit_registration import registration_source
from musaport.ops.model import KINDS, OperatorModel, operator_model
from musaport.outdir import OutDir
from musaport.ops.scan import definitions, pasted_regex, pasted_with
from musaport.ops.records import cuda_operators

TREE = "generated_cuda_compatible"


# --- code facts: what counts as a definition ---------------------------------------------------

@pytest.mark.parametrize(("code", "defined"), [
    pytest.param("Tensor& abs_out(const Tensor& self, Tensor& result) { return f(self); }", ["abs_out"], id="function"),
    pytest.param("TORCH_IMPL_FUNC(tril_cuda)(const Tensor& self, const Tensor& r) { k(); }", ["tril_cuda"], id="impl"),
    pytest.param("int size() const noexcept { return 1; }", ["size"], id="qualifiers"),
    pytest.param("void a() { b(); }\nvoid c() { d(); }", ["a", "c"], id="two"),
    pytest.param("namespace at { void a() { if (x) { y(); } } }", ["a"], id="nested-braces"),
])
def test_definitions(code: str, defined: list[str]) -> None:
    found, _ = definitions(code)
    assert [d.name for d in found] == defined


@pytest.mark.parametrize("code", [
    pytest.param("if (x) { y(); }", id="if"),
    pytest.param("abs_stub(iter.device_type(), iter);", id="call"),
    pytest.param("REGISTER_DISPATCH(abs_stub, &abs_kernel_cuda);", id="macro"),
    pytest.param("void f(int x);", id="declaration"),
])
def test_not_definitions(code: str) -> None:
    found, _ = definitions(code)
    assert found == []


def test_a_body_names_its_calls_and_stubs() -> None:
    (d,), _ = definitions("Tensor& abs_out(const Tensor& s, Tensor& r) { return helper(r, s, abs_stub); }")
    assert {"helper", "abs_stub"} <= d.names


def test_a_top_level_macro_invocation_keeps_its_arguments() -> None:
    _, (inv,) = definitions("CREATE_UNARY_TORCH_IMPL_FUNC(tanh_out, tanh_stub)\n")
    assert (inv.name, inv.names) == ("CREATE_UNARY_TORCH_IMPL_FUNC", frozenset({"tanh_out", "tanh_stub"}))


@pytest.mark.parametrize(("pasted", "regex", "with_eq"), [
    ("foreach_tensor_##OP##_cuda", r"foreach_tensor_\w+_cuda", "foreach_tensor_eq_cuda"),
    ("func##_Scalar_out", r"\w+_Scalar_out", "eq_Scalar_out"),
    ("func ## _stub", r"\w+_stub", "eq_stub"),
])
def test_pasted_names(pasted: str, regex: str, with_eq: str) -> None:
    assert (pasted_regex(pasted), pasted_with(pasted, "eq")) == (regex, with_eq)


# --- linking on a tiny tree: only code makes a link --------------------------------------------

YAML = """\
- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU, CUDA: foo_out
"""
KERNEL = "void foo_kernel_cuda(TensorIteratorBase& iter) {}\nREGISTER_DISPATCH(foo_stub, &foo_kernel_cuda);\n"


def _tiny_tree(root: Path, body: str) -> Path:
    native = root / "aten/src/ATen/native"
    (native / "cuda").mkdir(parents=True)
    (native / "native_functions.yaml").write_text(YAML)
    (native / "tags.yaml").write_text("- tag: core\n  desc: core\n")
    (native / "Foo.cpp").write_text(f"Tensor& foo_out(const Tensor& self, Tensor& out) {{\n{body}\n}}\n")
    (native / "cuda/FooKernel.cu").write_text(KERNEL)
    return root


@pytest.mark.parametrize(("body", "kind"), [
    pytest.param("  foo_stub(kCUDA, iter); return out;", "stub", id="called"),
    pytest.param("  return unary_out(out, self, foo_stub);", "stub", id="passed"),
    # No code link to a stub: device-generic code, registered as libtorch defines it.
    pytest.param("  // foo_stub(kCUDA, iter);\n  return out;", "generic", id="comment"),
    pytest.param('  TORCH_WARN("foo_stub"); return out;', "generic", id="string"),
])
def test_stub_links_come_from_code_only(tmp_path: Path, body: str, kind: str) -> None:
    tree = _tiny_tree(tmp_path / "tree", body)
    model = operator_model(tree, OutDir(tmp_path / "out"), ported=["aten/src/ATen/native/cuda/FooKernel.cu"])
    op = model.operators["foo.out"]
    assert op.kind == kind, op.reason
    assert (op.stubs, op.files) == ((("foo_stub",), ("aten/src/ATen/native/cuda/FooKernel.cu",))
                                    if kind == "stub" else ((), ()))


@pytest.mark.parametrize(("functor", "kind"), [
    # Device-generic code hands its stub to a template as a functor (uniform_ → UniformStub → uniform_stub).
    pytest.param("template <typename RNG>\nstruct FooStub {\n  void operator()(TensorIteratorBase& iter) {\n"
                 "    foo_stub(iter.device_type(), iter);\n  }\n};\n", "stub", id="functor"),
    pytest.param("struct FooStub final : public Base {\n  void operator()(TensorIteratorBase& iter) {\n"
                 "    foo_stub(iter.device_type(), iter);\n  }\n};\n", "stub", id="derived"),
    # A type that is only declared, or a type whose body names no stub, links nowhere.
    pytest.param("struct FooStub;\n", "generic", id="declared"),
    pytest.param("enum class FooStub { foo_stub };\n", "generic", id="enum"),
])
def test_a_functor_type_links_the_body_naming_it_to_its_stub(tmp_path: Path, functor: str, kind: str) -> None:
    tree = _tiny_tree(tmp_path / "tree", "  return foo_impl_<FooStub>(self, out);")
    native = tree / "aten/src/ATen/native"
    (native / "Foo.cpp").write_text(functor + (native / "Foo.cpp").read_text())
    model = operator_model(tree, OutDir(tmp_path / "out"), ported=["aten/src/ATen/native/cuda/FooKernel.cu"])
    op = model.operators["foo.out"]
    assert (op.kind, op.stubs) == (kind, ("foo_stub",) if kind == "stub" else ()), op.reason


def test_a_stub_no_ported_file_registers_leaves_the_operator_unresolved(tmp_path: Path) -> None:
    tree = _tiny_tree(tmp_path / "tree", "  bar_stub(kCUDA, iter); return out;")
    (tree / "aten/src/ATen/native/Bar.h").write_text(
        "DECLARE_DISPATCH(void (*)(TensorIteratorBase&, int64_t), bar_stub);\n")
    model = operator_model(tree, OutDir(tmp_path / "out"), ported=["aten/src/ATen/native/cuda/FooKernel.cu"])
    op = model.operators["foo.out"]
    assert (op.kind, op.reason) == ("unresolved", "foo_out in aten/src/ATen/native/Foo.cpp reaches DispatchStub "
                                                  "bar_stub, which no ported file registers")


def _cuda_function_tree(root: Path, helper_body: str) -> Path:
    """bar.out's CUDA kernel is defined only in a ported file and calls a device-generic helper."""
    tree = _tiny_tree(root, "  return out;")
    native = tree / "aten/src/ATen/native"
    (native / "native_functions.yaml").write_text(
        YAML + "- func: bar.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  dispatch:\n    CUDA: bar_out_cuda\n")
    (native / "cuda/Bar.cpp").write_text(
        "Tensor& bar_out_cuda(const Tensor& self, Tensor& out) {\n  finish_bar(out);\n  return out;\n}\n")
    (native / "Helpers.cpp").write_text(f"void finish_bar(Tensor& out) {{\n{helper_body}\n}}\n"
                                        "void far_away(Tensor& out) {\n  foo_stub(kCUDA, out);\n}\n")
    return tree


@pytest.mark.parametrize(("helper_body", "stubs", "files"), [
    # The helper calls a stub the ported FooKernel.cu registers: the kernel needs that file too (as
    # _fft_r2c_cufft needs SpectralOps.cu for _fft_fill_with_conjugate_symmetry_'s stub).
    pytest.param("  foo_stub(kCUDA, out);", ("foo_stub",), ("cuda/Bar.cpp", "cuda/FooKernel.cu"), id="helper-stub"),
    # Only the kernel's own callees count: a stub two calls away adds nothing.
    pytest.param("  far_away(out);", (), ("cuda/Bar.cpp",), id="two-levels"),
    pytest.param("  out.zero_();", (), ("cuda/Bar.cpp",), id="no-stub"),
])
def test_a_cuda_function_needs_the_stubs_its_generic_helpers_call(tmp_path: Path, helper_body: str,
                                                                   stubs: tuple[str, ...],
                                                                   files: tuple[str, ...]) -> None:
    tree = _cuda_function_tree(tmp_path / "tree", helper_body)
    ported = ["aten/src/ATen/native/cuda/FooKernel.cu", "aten/src/ATen/native/cuda/Bar.cpp"]
    op = operator_model(tree, OutDir(tmp_path / "out"), ported=ported).operators["bar.out"]
    assert (op.kind, op.stubs, op.files) == ("cuda-function", stubs,
                                             tuple(f"aten/src/ATen/native/{f}" for f in files))


@pytest.mark.parametrize(("line", "kind"), [
    pytest.param("  cudnnCreate(&handle);", "not-portable", id="calls-cudnn"),
    pytest.param("  at::native::cudnn_convolution<float>(out);", "not-portable", id="calls-a-template"),
    # Only a call counts: the 2.6.0 attention kernel compares an enumerator and names cudnn_seed.
    pytest.param("  if (backend == sdp::SDPBackend::cudnn_attention) { return out; }", "cuda-function",
                 id="enumerator"),
    pytest.param("  Tensor cudnn_seed = out;\n  cudnn_seed.zero_();", "cuda-function", id="variable"),
    # An operator called through the dispatcher runs the kernel of the tensors' device: 2.6.0's
    # _batch_norm_with_update_cuda calls at::cudnn_batch_norm only when _select_batch_norm_backend says cuDNN.
    pytest.param("  if (false) { at::cudnn_batch_norm(out); }", "cuda-function", id="dispatcher-call"),
])
def test_only_a_call_into_a_vendor_library_makes_a_kernel_not_portable(tmp_path: Path, line: str,
                                                                       kind: str) -> None:
    tree = _cuda_function_tree(tmp_path / "tree", "  out.zero_();")
    bar = tree / "aten/src/ATen/native/cuda/Bar.cpp"
    bar.write_text(bar.read_text().replace("  finish_bar(out);", line))
    ported = ["aten/src/ATen/native/cuda/FooKernel.cu", "aten/src/ATen/native/cuda/Bar.cpp"]
    op = operator_model(tree, OutDir(tmp_path / "out"), ported=ported).operators["bar.out"]
    assert op.kind == kind, op.reason
    assert ("cuDNN: no MUSA counterpart" in op.reason) == (kind == "not-portable")


def test_a_kernel_defined_in_a_generic_header_is_generic(tmp_path: Path) -> None:
    """``view_as_real`` is defined in ``ATen/native/ComplexHelper.h``, a header the port copies in place:
    libtorch compiles its own copy, so the backend registers that one."""
    tree = _tiny_tree(tmp_path / "tree", "  return out;")
    (tree / "aten/src/ATen/native/native_functions.yaml").write_text(
        YAML + "- func: view_as_real(Tensor(a) self) -> Tensor(a)\n  dispatch:\n    CPU, CUDA: view_as_real\n")
    (tree / "aten/src/ATen/native/ComplexHelper.h").write_text(
        "Tensor view_as_real(const Tensor& self) {\n  return _view_as_real_physical(self);\n}\n")
    ported = ["aten/src/ATen/native/cuda/FooKernel.cu", "aten/src/ATen/native/ComplexHelper.h"]
    model = operator_model(tree, OutDir(tmp_path / "out"), ported=ported)
    op = model.operators["view_as_real"]
    assert (op.kind, op.reason) == ("generic", "view_as_real in aten/src/ATen/native/ComplexHelper.h: device-generic "
                                               "code, no DispatchStub; its at:: calls re-dispatch to the device")


# --- the bundled fixture tree (no torchgen: plain-yaml fallback) -------------------------------

@pytest.fixture(scope="module")
def fixture_model(tmp_path_factory: pytest.TempPathFactory) -> OperatorModel:
    return operator_model(FIXTURE_TREE, OutDir(tmp_path_factory.mktemp("fixture-model")))


@pytest.mark.parametrize(("name", "kind", "kernel", "stubs", "file"), [
    ("abs.out", "stub", "abs_out", ("abs_stub",), "cuda/AbsKernel.cu"),
    ("tril.out", "structured", "tril_cuda", (), "cuda/TriangularOps.cu"),
    ("tril", "structured", "tril_cuda", (), "cuda/TriangularOps.cu"),
    ("tril_", "structured", "tril_cuda", (), "cuda/TriangularOps.cu"),
    ("sum.IntList_out", "structured", "sum_out", ("sum_stub",), "cuda/ReduceSum.cu"),
    ("randperm.generator_out", "cuda-function", "randperm_out_cuda", (), "cuda/Randperm.cu"),
    ("mm.out", "structured", "mm_out_cuda", (), "cuda/Blas.cpp"),
])
def test_fixture_operators(fixture_model: OperatorModel, name: str, kind: str, kernel: str,
                           stubs: tuple[str, ...], file: str) -> None:
    op = fixture_model.operators[name]
    assert (op.kind, op.kernel, op.stubs, op.files) == (kind, kernel, stubs, (f"aten/src/ATen/native/{file}",))


def test_fixture_falls_back_to_plain_yaml_and_says_so(fixture_model: OperatorModel) -> None:
    assert fixture_model.origin == "yaml"
    assert "no torchgen" in fixture_model.note
    assert set(fixture_model.operators) >= set(cuda_operators(FIXTURE_TREE))


@pytest.mark.parametrize(("query", "names"), [
    ("tril", ["tril", "tril.out", "tril_"]),
    ("tril_", ["tril_"]),
    ("tril.out", ["tril.out"]),
    ("sum", ["sum.IntList_out", "sum.dim_IntList"]),
    ("trill", []),
    ("tri", []),
])
def test_resolve(fixture_model: OperatorModel, query: str, names: list[str]) -> None:
    assert [op.name for op in fixture_model.resolve(query)] == names


def test_suggestions_for_an_unknown_name(fixture_model: OperatorModel) -> None:
    assert "tril" in fixture_model.suggestions("trill")


def test_delegates_follow_their_out_variant(fixture_model: OperatorModel) -> None:
    out = fixture_model.operators["tril.out"]
    for name in ("tril", "tril_"):
        op = fixture_model.operators[name]
        assert (op.delegate, op.kind, op.files) == ("tril.out", out.kind, out.files)


# --- real PyTorch 2.6.0 -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def model_260(pytorch_260: Path, ported_260: Path) -> OperatorModel:
    """The model of the 2.6.0 port (its torchgen records and scan are cached by the run)."""
    return operator_model(pytorch_260, OutDir(ported_260))


@pytest.mark.shared
def test_the_kinds_table_of_the_registration_page_is_the_models(model_260: OperatorModel) -> None:
    """docs/registration.md counts 2.6.0's operators by kind (structured delegates apart): those are this model's."""
    page = (Path(__file__).resolve().parents[1] / "docs/registration.md").read_text(encoding="utf-8")
    quoted = {kind: int(n) for kind, n in re.findall(r"^\| `([\w-]+)` \| (\d+) \|", page, re.M)}
    own = [op for op in model_260.operators.values() if not op.delegate]
    assert quoted == {kind: sum(op.kind == kind for op in own) for kind in KINDS}
    delegates = len(model_260.operators) - len(own)
    assert f"of the {len(own)} operators with a CUDA kernel" in page and f"their {delegates} structured delegates" in page


@pytest.mark.shared
def test_the_registration_page_counts_the_registrations_of_the_port(ported_260: Path) -> None:
    page = (Path(__file__).resolve().parents[1] / "docs/registration.md").read_text(encoding="utf-8")
    source = (ported_260 / "generated_cuda_compatible/aten/src/ATen/RegisterMUSA.cpp").read_text(encoding="utf-8")
    registered = source.count('m.impl("')
    assert f"`RegisterMUSA.cpp` for 2.6.0 registers {registered:,} operators" in page


@pytest.mark.shared
def test_abs_out_goes_through_abs_stub(model_260: OperatorModel) -> None:
    op = model_260.operators["abs.out"]
    assert (op.kind, op.kernel, op.stubs, op.files) == (
        "stub", "abs_out", ("abs_stub",), ("aten/src/ATen/native/cuda/AbsKernel.cu",))
    assert op.schema == "abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"


@pytest.mark.parametrize("name", ["_fft_r2c", "_fft_r2c.out"])
@pytest.mark.shared
def test_fft_r2c_brings_the_file_registering_its_helpers_stub(model_260: OperatorModel, name: str) -> None:
    """_fft_r2c_cufft calls at::native::_fft_fill_with_conjugate_symmetry_ (aten/src/ATen/native/SpectralOps.cpp),
    whose stub only the ported SpectralOps.cu registers; the defining file stays first (it names the split
    registration file)."""
    op = model_260.operators[name]
    assert (op.kind, op.kernel, op.stubs, op.files) == (
        "cuda-function", name.replace(".out", "") + "_cufft" + ("_out" if name.endswith(".out") else ""),
        ("fft_fill_with_conjugate_symmetry_stub",),
        ("aten/src/ATen/native/cuda/SpectralOps.cpp", "aten/src/ATen/native/cuda/SpectralOps.cu"))


@pytest.mark.shared
def test_tril_is_structured_with_its_delegates(model_260: OperatorModel) -> None:
    out = model_260.operators["tril.out"]
    assert (out.kind, out.kernel, out.files) == ("structured", "tril_cuda",
                                                 ("aten/src/ATen/native/cuda/TriangularOps.cu",))
    assert [op.name for op in model_260.resolve("tril")] == ["tril", "tril.out", "tril_"]
    for name in ("tril", "tril_"):
        op = model_260.operators[name]
        assert (op.delegate, op.kind, op.kernel, op.files) == ("tril.out", "structured", "tril_cuda", out.files)


@pytest.mark.shared
def test_every_cuda_operator_is_classified_and_none_dropped(model_260: OperatorModel, pytorch_260: Path) -> None:
    own = [op for op in model_260.operators.values() if not op.delegate]
    assert len(own) == 849  # 848 with CUDA in their yaml dispatch, plus add.out's ufunc kernel
    assert set(cuda_operators(pytorch_260)) <= {op.name for op in own}
    assert {op.kind for op in model_260.operators.values()} <= set(KINDS)
    classified = [op for op in own if op.kind != "unresolved"]
    assert len(classified) >= 700
    assert all(op.reason for op in model_260.operators.values() if op.kind in ("unresolved", "not-portable"))


@pytest.mark.shared
def test_cudnn_kernels_are_not_portable(model_260: OperatorModel) -> None:
    op = model_260.operators["cudnn_convolution"]
    assert op.kind == "not-portable"
    assert "cuDNN" in op.reason and "aten/src/ATen/native/cudnn/" in op.reason


@pytest.mark.parametrize(("name", "stub", "file"), [
    ("uniform_", "uniform_stub", "DistributionUniform.cu"),
    ("normal_", "normal_stub", "DistributionNormal.cu"),
    ("exponential_", "exponential_stub", "DistributionExponentialKernel.cu"),
])
@pytest.mark.shared
def test_random_sampling_reaches_its_stub_through_the_functor(model_260: OperatorModel, name: str, stub: str,
                                                              file: str) -> None:
    """``uniform_`` calls ``templates::uniform_impl_<UniformStub, Generator>``; only ``struct UniformStub``'s
    body calls ``uniform_stub``, which the ported DistributionUniform.cu registers.  Before the model read
    type bodies it stopped short and took far-away stubs (``std_var_stub``), so a device built for
    ``uniform_`` lacked its kernel."""
    op = model_260.operators[name]
    assert (op.kind, op.stubs, op.files) == ("stub", (stub,), (f"aten/src/ATen/native/cuda/{file}",))


@pytest.mark.shared
def test_comparison_impls_made_by_macros_reach_their_stubs(model_260: OperatorModel) -> None:
    op = model_260.operators["eq.Scalar_out"]
    assert (op.kind, op.stubs, op.files) == (
        "structured", ("eq_stub",), ("aten/src/ATen/native/cuda/CompareEQKernel.cu",))


def test_a_torchgen_that_fails_falls_back_to_plain_yaml(tmp_path: Path) -> None:
    tree = _tiny_tree(tmp_path / "tree", "  foo_stub(kCUDA, iter); return out;")
    (tree / "torchgen").mkdir()
    (tree / "torchgen/__init__.py").write_text("raise ImportError('a torchgen from the future')\n")
    model = operator_model(tree, OutDir(tmp_path / "out"), ported=["aten/src/ATen/native/cuda/FooKernel.cu"])
    assert model.origin == "yaml"
    assert "torchgen failed" in model.note and "a torchgen from the future" in model.note
    assert model.operators["foo.out"].kind == "stub"


def test_registration_needs_signatures(fixture_model: OperatorModel) -> None:
    with pytest.raises(ValueError, match="cannot register abs.out"):
        registration_source(fixture_model, ["abs.out"])
