"""RegisterMUSA.cpp, musa_functions.yaml and the run options that shape them."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import CACHE, FIXTURE_TREE, ROOT, musaport, tree_digest
from musaport.validate.compile.buildenv import aten_ops_headers, config_headers
from musaport.ops.exclusions import Exclusion, rule_for
from musaport.ops.emit_registration import registration_source
from musaport.ops.model import operator_model
from musaport.outdir import OutDir
from musaport.cpp.parser import parse
from musaport.ops.emit_registration import wrapper_name
from musaport.resources import shim_include
from musaport.rewrite.apply import rewrite

TREE = "generated_cuda_compatible"
REGISTER = "aten/src/ATen/RegisterMUSA.cpp"


@pytest.mark.parametrize(("name", "wrapper"), [
    ("abs.out", "wrapper_MUSA_abs__out"),
    ("tril", "wrapper_MUSA_tril"),
    ("tril_", "wrapper_MUSA_tril_"),
    ("max.dim_max", "wrapper_MUSA_max__dim_max"),
])
def test_wrapper_names(name: str, wrapper: str) -> None:
    assert wrapper_name(name) == wrapper


REMOVED = "/* musaport: REGISTER_DISPATCH(index_stub, ...) removed (--exclude-stubs) */"


@pytest.mark.parametrize(("before", "after"), [
    pytest.param("REGISTER_DISPATCH(index_stub, &index_kernel);\n", f"{REMOVED}\n", id="plain"),
    pytest.param("REGISTER_DISPATCH(index_stub, &index_kernel)\nREGISTER_DISPATCH(put_stub, &put_kernel)\n",
                 f"{REMOVED}\nREGISTER_DISPATCH(put_stub, &put_kernel)\n", id="no-semicolon"),
    pytest.param("REGISTER_CUDA_DISPATCH(\n    index_stub,\n    &index_kernel<float>);\n", f"{REMOVED}\n",
                 id="multi-line"),
])
def test_exclusion_rule(before: str, after: str) -> None:
    rule = rule_for(Exclusion("index_stub", "--exclude-stubs"))
    done = rewrite(parse(before.encode()), (rule,), "aten/src/ATen/native/cuda/IndexKernel.cu")
    assert done.text == after
    assert [f.rule for f in done.findings] == ["exclude-stub-index_stub"]


@pytest.mark.parametrize("text", [
    pytest.param("REGISTER_DISPATCH(index_fill_stub, &index_fill_kernel);\n", id="other-stub"),
    pytest.param("// REGISTER_DISPATCH(index_stub, &index_kernel);\n", id="comment"),
    pytest.param('const char* s = "REGISTER_DISPATCH(index_stub, &k);";\n', id="string"),
    pytest.param("index_stub(kCUDA, iter);\n", id="call"),
])
def test_exclusion_rule_leaves_alone(text: str) -> None:
    rule = rule_for(Exclusion("index_stub", "--exclude-stubs"))
    done = rewrite(parse(text.encode()), (rule,), "aten/src/ATen/native/cuda/IndexKernel.cu")
    assert (done.text, done.findings) == (text, ())


# --- the 2.6.0 port ------------------------------------------------------------------------------

@pytest.mark.shared
def test_registration_file_registers_for_privateuse1(ported_260: Path) -> None:
    text = (ported_260 / TREE / REGISTER).read_text()
    assert text.startswith("// musaport ")
    assert "#include <c10/musa/MUSAGuard.h>" in text
    assert text.count("TORCH_LIBRARY_IMPL(aten, PrivateUse1, m)") == 1
    assert 'm.impl("abs.out", TORCH_FN(at::wrapper_MUSA_abs__out));' in text
    assert "const c10::OptionalDeviceGuard device_guard(at::device_of(self));" in text
    assert "return at::native::abs_out(self, out);" in text


@pytest.mark.shared
def test_unstructured_wrappers_check_their_tensors_share_a_device(ported_260: Path) -> None:
    """As torchgen's wrappers do: test_ops.py's test_out passes a CPU out= to bucketize on the device and
    expects an error, not a kernel writing through a host pointer. TensorIterator operators (device_check:
    NoCheck in the yaml) check themselves, and their wrappers do not."""
    text = (ported_260 / TREE / REGISTER).read_text()
    bucketize = text[text.index("wrapper_MUSA_bucketize__Tensor_out("):]
    bucketize = bucketize[:bucketize.index("\n}\n")]
    assert [line.strip() for line in bucketize.splitlines() if "check_and_update_common_device" in line] == [
        f'c10::impl::check_and_update_common_device(common_device, {arg}, "wrapper_MUSA_bucketize__Tensor_out", '
        f'"{arg}");' for arg in ("out", "self", "boundaries")]
    abs_out = text[text.index("wrapper_MUSA_abs__out("):]
    assert "check_and_update_common_device" not in abs_out[:abs_out.index("\n}\n")]


@pytest.mark.shared
def test_registration_calls_kernels_by_their_ported_names(ported_260: Path) -> None:
    """TensorFactories.mu defines empty_musa (the port renames empty_cuda): the wrapper must call that,
    or the backend does not link (found by linking the registration against the port)."""
    text = (ported_260 / TREE / REGISTER).read_text()
    assert "at::native::empty_musa(C10_AS_INTARRAYREF_SLOW(size)" in text
    assert "at::native::empty_strided_musa(" in text
    assert "at::native::empty_cuda(" not in text and "at::native::empty_strided_cuda(" not in text


@pytest.mark.shared
def test_registration_defines_the_dispatch_key_cpp_api(ported_260: Path) -> None:
    """Ported code calls at::musa::sort(...) as CUDA code calls at::cuda::sort(...): torchgen's
    RegisterCUDA.cpp defines that API, so RegisterMUSA.cpp must (found by linking the ported topk)."""
    text = (ported_260 / TREE / REGISTER).read_text()
    api = text[text.index("namespace musa {"):text.index("} // namespace musa")]
    assert ("::std::tuple<at::Tensor,at::Tensor> sort(const at::Tensor & self, ::std::optional<bool> stable, "
            "int64_t dim, bool descending) {\n  return at::wrapper_MUSA_sort__stable(self, stable, dim, descending);") in api
    assert "at::Tensor & abs_out(at::Tensor & out, const at::Tensor & self) {" in api
    assert "at::Tensor & abs_outf(const at::Tensor & self, at::Tensor & out) {" in api
    # non-SymInt overloads translate to the wrapper's SymInt (dispatcher) signature
    assert "return at::wrapper_MUSA_reflection_pad1d__out(self, c10::fromIntArrayRefSlow(padding), out);" in api


def test_ported_calls_rename_only_what_the_names_rules_rename() -> None:
    from musaport.ops.emit_registration import ported_calls
    from musaport.ops.records import Guard, Wrapper
    from musaport.resources import default_packs
    from musaport.rewrite.packs import load_packs
    rules = load_packs(default_packs())
    w = Wrapper("at::Tensor", "", (), Guard("none", ""), False,
                call="at::native::empty_cuda(size, at::native::abs_out(x))", parent="at::native::structured_tril_cuda")
    got = ported_calls(w, rules)
    assert got.call == "at::native::empty_musa(size, at::native::abs_out(x))"
    assert got.parent == "at::native::structured_tril_cuda"
    assert ported_calls(w, None) is w


@pytest.mark.parametrize("variant", ["functional", "inplace", "out"])
@pytest.mark.shared
def test_tril_variants_derive_from_the_structured_class(ported_260: Path, variant: str) -> None:
    text = (ported_260 / TREE / REGISTER).read_text()
    struct = f"struct musa_structured_tril_cuda_{variant} final : public at::native::structured_tril_cuda {{"
    body = text[text.index(struct):]
    body = body[: body.index("\n};\n")]
    for member in ("void set_output_strided(", "void set_output_raw_strided(",
                   "const at::Tensor& maybe_get_output(int64_t output_idx) override",
                   "c10::musa::OptionalMUSAGuard guard_;"):
        assert member in body


@pytest.mark.shared
def test_functions_yaml_lists_every_operator_once(ported_260: Path, pytorch_260: Path) -> None:
    doc = yaml.safe_load((ported_260 / TREE / "musa_functions.yaml").read_text())
    model = operator_model(pytorch_260, OutDir(ported_260))
    registered = {e["name"]: e for e in doc["registered"]}
    left = {e["name"]: e for e in doc["not_registered"]}
    assert not registered.keys() & left.keys()
    assert registered.keys() | left.keys() == model.operators.keys()
    assert registered["abs.out"] == {"name": "abs.out", "kind": "stub", "kernel": "abs_out", "line": 357,
                                     "stubs": ["abs_stub"], "files": ["aten/src/ATen/native/cuda/AbsKernel.cu"],
                                     "registration": REGISTER}
    assert registered["tril_"]["delegate"] == "tril.out"
    assert all(e["reason"] for e in left.values())
    assert doc["operators_from"] == "torchgen"


@pytest.fixture(scope="module")
def include_flags(pytorch_260: Path, ported_260: Path) -> list[str]:
    """The include path of a backend build: shim, ported tree, configured and torchgen'd headers."""
    state = CACHE / "buildenv"
    state.mkdir(parents=True, exist_ok=True)
    generated = config_headers(pytorch_260, ported_260 / ".musaport" / "test-config")
    dirs = [shim_include(), ported_260 / TREE / "aten/src", ported_260 / TREE, generated,
            aten_ops_headers(pytorch_260, state), pytorch_260 / "aten/src", pytorch_260,
            pytorch_260 / "torch/csrc/api/include"]
    return [f"-I{d}" for d in dirs]


@pytest.mark.shared
@pytest.mark.compiles
def test_abs_and_tril_stubs_pass_a_syntax_check(pytorch_260: Path, ported_260: Path, include_flags: list[str],
                                                tmp_path: Path, clang) -> None:
    model = operator_model(pytorch_260, OutDir(ported_260))
    names = [op.name for query in ("abs", "tril", "bucketize") for op in model.resolve(query)]
    assert names[:4] == ["abs.out", "tril", "tril.out", "tril_"] and "bucketize.Tensor_out" in names  # device checks
    source = tmp_path / "RegisterMUSA_abs_tril.cpp"
    source.write_text(registration_source(model, names))
    cmd = [*clang.argv, *clang.flags, "-x", "cuda", "-nocudainc", "-nocudalib", "--cuda-host-only", "-Wno-unknown-cuda-version",
           "-fsyntax-only", "-std=c++17", "-w", "-DAT_PER_OPERATOR_HEADERS", "-DC10_MUSA_NO_CMAKE_CONFIGURE_FILE",
           "-include", "musa_runtime.h", *include_flags, str(source)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    text = source.read_text()
    assert [n for n in names if f'm.impl("{n}", TORCH_FN(at::{wrapper_name(n)}));' in text] == names


# --- run options ---------------------------------------------------------------------------------

@pytest.fixture()
def port_copy(ported_260: Path, tmp_path: Path) -> Path:
    """A copy of the 2.6.0 port (mtimes kept, so the run reuses every file)."""
    copy = tmp_path / "out"
    shutil.copytree(ported_260, copy, symlinks=True)
    return copy


@pytest.mark.shared
def test_ops_and_split_select_and_spread_the_registrations(pytorch_260: Path, port_copy: Path) -> None:
    run = ("run", "--pytorch-src", str(pytorch_260), "--out", str(port_copy), "-q")
    done = musaport(*run, "--ops", "abs,tril", "--exclude-ops", "tril_", "--split")
    assert done.returncode == 0, done.stderr
    tree = port_copy / TREE
    assert not (tree / REGISTER).exists()
    registered = {e["name"]: e["registration"]
                  for e in yaml.safe_load((tree / "musa_functions.yaml").read_text())["registered"]}
    assert registered == {"abs.out": "aten/src/ATen/RegisterMUSA_cuda_AbsKernel.cpp",
                          "tril": "aten/src/ATen/RegisterMUSA_cuda_TriangularOps.cpp",
                          "tril.out": "aten/src/ATen/RegisterMUSA_cuda_TriangularOps.cpp"}
    assert sorted(p.name for p in (tree / "aten/src/ATen").glob("RegisterMUSA*")) == [
        "RegisterMUSA_cuda_AbsKernel.cpp", "RegisterMUSA_cuda_TriangularOps.cpp"]
    before = tree_digest(tree)
    again = musaport(*run, "--ops", "abs,tril", "--exclude-ops", "tril_", "--split")
    assert again.returncode == 0, again.stderr
    assert tree_digest(tree) == before


@pytest.mark.parametrize(("args", "message"), [
    (("--ops", "abss"), "--ops: no operator 'abss' with a CUDA kernel in aten/src/ATen/native/native_functions.yaml"
                        "; did you mean: abs?"),
    (("--exclude-ops", "tril,nope_op"), "--exclude-ops: no operator 'nope_op'"),
])
def test_unknown_operator_is_a_usage_error(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    done = musaport("run", "--out", str(tmp_path / "out"), "-q", *args)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and message in done.stderr
    assert not (tmp_path / "out" / TREE).exists()


@pytest.mark.parametrize(("text", "where"), [
    ("stubs:\n  - index_stub\n  - {stub: 12bad}\n", ":3: '12bad' is not a DispatchStub name"),
    ("stub:\n  - index_stub\n", ":1: stub exclusion file is missing 'stubs'"),
    ("stubs:\n  - {stub: index_stub, reason: x}\n", ":2: unknown key(s) in stub entry: reason"),
])
def test_malformed_exclusion_file(tmp_path: Path, text: str, where: str) -> None:
    bad = tmp_path / "stubs.yaml"
    bad.write_text(text)
    done = musaport("run", "--out", str(tmp_path / "out"), "-q", "--exclude-stubs-file", str(bad))
    assert done.returncode == 2
    assert f"musaport: error: {bad}{where}" in done.stderr
    assert done.stderr.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_excluded_stub_registrations_are_removed_and_reported(tmp_path: Path) -> None:
    plain, excluded = tmp_path / "plain", tmp_path / "excluded"
    stubs = tmp_path / "stubs.yaml"
    stubs.write_text("stubs:\n  - {stub: abs_stub, why: the backend has a muDNN abs}\n")
    assert musaport("run", "--out", str(plain), "-q").returncode == 0
    done = musaport("run", "--out", str(excluded), "-q", "--exclude-stubs-file", str(stubs))
    assert done.returncode == 0, done.stderr
    mu = "aten/src/ATen/native/musa/AbsKernel.mu"
    text = (excluded / TREE / mu).read_text()
    assert "REGISTER_DISPATCH(abs_stub, &abs_kernel_cuda)" not in text
    assert "/* musaport: REGISTER_DISPATCH(abs_stub, ...) removed (--exclude-stubs) */" in text
    report = json.loads((excluded / "porting_report.json").read_text())
    findings = [f for f in report["findings"] if f["rule"] == "exclude-stub-abs_stub"]
    assert [f["site"] for f in findings] == ["aten/src/ATen/native/cuda/AbsKernel.cu:29"]
    assert findings[0]["message"].startswith("lossy: abs_stub is excluded: the backend has a muDNN abs")
    doc = yaml.safe_load((excluded / TREE / "musa_functions.yaml").read_text())
    assert doc["excluded_stubs"] == [{"stub": "abs_stub",
                                      "registrations_removed_from": ["aten/src/ATen/native/cuda/AbsKernel.cu"]}]
    unchanged = "aten/src/ATen/native/musa/TriangularOps.mu"
    assert (excluded / TREE / unchanged).read_bytes() == (plain / TREE / unchanged).read_bytes()


def test_fixture_tree_without_torchgen_gets_no_registration_code(tmp_path: Path) -> None:
    assert not (FIXTURE_TREE / "torchgen").exists()
    assert musaport("run", "--out", str(tmp_path), "-q").returncode == 0
    doc = yaml.safe_load((tmp_path / TREE / "musa_functions.yaml").read_text())
    assert (doc["operators_from"], doc["registered"]) == ("yaml", [])
    reasons = {e["reason"] for e in doc["not_registered"]}
    assert reasons == {"no C++ signature (operators read from plain YAML: see note)"}
    assert not (tmp_path / TREE / REGISTER).exists()


@pytest.mark.shared
def test_a_warm_run_does_no_torchgen_work(pytorch_260: Path, port_copy: Path) -> None:
    for records in (port_copy / ".musaport").glob("operators-*.json"):
        records.unlink()
    before = tree_digest(port_copy / TREE)
    done = musaport("run", "--pytorch-src", str(pytorch_260), "--out", str(port_copy), "-q")
    assert done.returncode == 0, done.stderr
    assert list((port_copy / ".musaport").glob("operators-*.json")) == []
    assert tree_digest(port_copy / TREE) == before


def test_an_edited_yaml_regenerates_only_what_it_changes(tmp_path: Path) -> None:
    src = tmp_path / "pytorch"
    shutil.copytree(FIXTURE_TREE, src)
    out = tmp_path / "out"
    assert musaport("run", "--pytorch-src", str(src), "--out", str(out), "-q").returncode == 0
    before = tree_digest(out / TREE)
    yaml_path = src / "aten/src/ATen/native/native_functions.yaml"
    yaml_path.write_text(yaml_path.read_text().replace("CPU, CUDA: abs_out", "CPU: abs_out"))
    assert musaport("run", "--pytorch-src", str(src), "--out", str(out), "-q").returncode == 0
    after = tree_digest(out / TREE)
    assert {rel for rel in after if after[rel] != before.get(rel)} == {"musa_functions.yaml"}
    assert '"abs.out"' not in (out / TREE / "musa_functions.yaml").read_text()


@pytest.mark.shared
def test_out_and_inplace_checks_say_what_torchgens_say(pytorch_260: Path) -> None:
    """PyTorch's tests match the messages of torchgen's ``resize_out`` and ``check_inplace`` (test_ops.py's
    test_errors for mean, gather, aminmax: "Expected out tensor to have dtype"); the registration's own
    checks must raise the same words, read here from the release's torchgen."""
    torchgen = (pytorch_260 / "torchgen" / "dest" / "register_dispatch_key.py").read_text(encoding="utf-8")
    checks = re.search(r"void resize_out\(.*?\nvoid check_inplace\(.*?\n}\n", torchgen, re.S)
    assert checks, "the release's torchgen has no resize_out/check_inplace"
    literals = re.compile(r'(?<!")"([^"\n]+)"(?!")')  # C++ string literals, not the Python quotes around them
    theirs = {s for s in literals.findall(checks.group(0)) if s.strip()}
    assert "Expected out tensor to have dtype " in theirs
    ours = set(literals.findall((ROOT / "templates" / "RegisterMUSA.cpp.j2").read_text(encoding="utf-8")))
    assert sorted(theirs - ours) == []
