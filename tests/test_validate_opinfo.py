"""validate --opinfo without torch: verdicts, selection, tracing to the port, report shape, test-file counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from musaport.errors import LoadError
from musaport.outdir import OutDir
from musaport.validate.opinfo.differential import Entry, PortedOp, operators_of, packet, registered_ops, select
from musaport.validate.opinfo.report import causes, render_markdown, report_doc
from musaport.validate.opinfo.tests import (FileResult, device_filter, failure_causes, junit_counts, merge_shards,
                                                   outcome_counts)
from musaport.validate.opinfo.differential import Device
from musaport.validate.opinfo.verdict import DtypeResult, OpResult, error_kind, exit_code, from_child, op_status

MISSING = ("NotImplementedError: Could not run 'aten::abs.out' with arguments from the 'PrivateUse1' backend. "
           "This could be because the operator doesn't exist for this backend")


def d(dtype: str, status: str, reason: str = "", **kw) -> DtypeResult:
    return DtypeResult(dtype, status, reason=reason, **kw)


def test_an_op_passes_only_when_every_dtype_it_ran_passes() -> None:
    assert op_status([d("float32", "pass"), d("float64", "pass"), d("bool", "skip", "upstream skips")]) == "pass"
    assert op_status([d("float32", "pass"), d("float16", "fail", "x")]) == "fail"
    assert op_status([d("float32", "fail"), d("float16", "error"), d("int8", "pass")]) == "error"
    assert op_status([d("float32", "error"), d("float16", "crash")]) == "crash"
    assert op_status([d("float32", "skip"), d("float16", "skip")]) == "skip"
    assert op_status([]) == "skip"


def test_the_reason_is_the_first_dtype_of_the_worst_status() -> None:
    r = OpResult("mul", (d("float32", "pass"), d("complex64", "fail", "sample 3: values"),
                         d("float16", "fail", "sample 9: other")))
    assert (r.status, r.reason) == ("fail", "complex64: sample 3: values")
    none_ran = OpResult("copy_", (), note="no OpInfo entry is named 'copy_' in op_db")
    assert (none_ran.status, none_ran.reason) == ("skip", "no OpInfo entry is named 'copy_' in op_db")


def test_a_child_answer_with_an_unknown_status_is_an_error_not_a_pass() -> None:
    r = from_child({"dtype": "float32", "status": "ok", "samples": 3})
    assert r.status == "error" and "unknown status 'ok'" in r.reason
    good = from_child({"dtype": "float32", "status": "pass", "samples": 35, "failed": 0, "ops": ["aten::abs"]})
    assert (good.status, good.samples, good.ops) == ("pass", 35, ("aten::abs",))
    with pytest.raises(ValueError):
        DtypeResult("float32", "passed")


def test_exit_code_is_zero_only_when_everything_that_ran_passed() -> None:
    ok = [OpResult("abs", (d("float32", "pass"),)), OpResult("empty", (d("float32", "skip", "upstream"),))]
    assert exit_code(ok) == 0
    assert exit_code(ok + [OpResult("neg", (d("float32", "crash", "worker died: SIGSEGV"),))]) == 1
    assert exit_code([OpResult("empty", (d("float32", "skip"),))]) == 1  # nothing ran: proves nothing
    files_ok = {"test_ops.py": {"passed": 3, "failed": 0, "skipped": 1, "errors": 0, "timeout": False}}
    assert exit_code(ok, files_ok) == 0
    assert exit_code(ok, {"test_ops.py": {**files_ok["test_ops.py"], "failed": 1}}) == 1
    assert exit_code(ok, {"test_ops.py": {**files_ok["test_ops.py"], "timeout": True}}) == 1
    assert exit_code(ok, {"test_x.py": {"passed": 0, "failed": 0, "skipped": 0, "errors": 0, "ran": False}}) == 1


def test_error_kinds_group_what_differs_only_in_numbers() -> None:
    assert error_kind("sample 3: " + MISSING) == "not registered: aten::abs.out on PrivateUse1"
    assert error_kind("float32: sample 12: Tensor-likes are not close!; Mismatched elements: 3 / 20") == \
        "values differ from the CPU beyond atol=rtol=1e-3"
    assert error_kind("sample 1: RuntimeError: size 3 vs 4") == error_kind("sample 7: RuntimeError: size 5 vs 9")
    assert error_kind("worker died: SIGSEGV; last line") == "worker died: SIGSEGV"


ENTRIES = [
    Entry("abs", "abs", "abs", ("float32", "float64"), ("aten::abs",)),
    Entry("fill", "fill", "fill", ("float32",), ("aten::fill.Scalar",)),
    Entry("nn.functional.conv2d", "nn.functional.conv2d", "conv2d", ("float32",), ("aten::convolution",)),
    Entry("max.reduction_with_dim", "max", "max", ("float32",), ("aten::max.dim",)),
    Entry("jiterator_unary", "jiterator_unary", "", ("float32",), (), trace_error="AssertionError: no GPU"),
]
REGISTERED = {
    "abs.out": PortedOp("abs.out", "stub", "abs_out", ("aten/src/ATen/native/cuda/AbsKernel.cu",)),
    "fill_.Scalar": PortedOp("fill_.Scalar", "stub", "fill_", ("aten/src/ATen/native/cuda/Fill.cu",)),
    "max.dim_max": PortedOp("max.dim_max", "structured", "max_out", ("aten/src/ATen/native/cuda/ReduceMax.cu",)),
}


def test_without_ops_every_entry_whose_traced_operators_the_port_registers_runs() -> None:
    chosen = select(ENTRIES, REGISTERED)
    # abs reaches abs.out (same packet), max.dim reaches max.dim_max; fill_ is not fill; conv2d is not ported
    assert [e.key for e in chosen.entries] == ["abs", "max.reduction_with_dim"]


def test_ops_select_entries_by_name_and_say_which_names_no_entry_answers() -> None:
    chosen = select(ENTRIES, REGISTERED, ("fill_", "abs", "copy_", "max"))
    assert [e.key for e in chosen.entries] == ["abs", "fill", "max.reduction_with_dim"]
    assert chosen.unmatched == ("copy_",)


def test_aten_names_map_to_the_registered_overload_else_the_whole_packet() -> None:
    reg = {**REGISTERED, "add.Tensor": PortedOp("add.Tensor", "structured", "add", ()),
           "add.out": PortedOp("add.out", "structured", "add_out", ())}
    assert [o.name for o in operators_of(["aten::add.Tensor"], reg)] == ["add.Tensor"]
    assert [o.name for o in operators_of(["aten::add.Scalar"], reg)] == ["add.Tensor", "add.out"]
    assert [o.name for o in operators_of(["aten::abs"], reg)] == ["abs.out"]
    assert packet("aten::sum.dim_IntList") == "sum"


def test_registered_ops_read_musa_functions_yaml_with_the_build_status(tmp_path: Path) -> None:
    tree = tmp_path / "generated_cuda_compatible"
    tree.mkdir()
    (tree / "musa_functions.yaml").write_text(
        'backend: PrivateUse1\nregistered:\n  - name: "abs.out"\n    kind: stub\n    kernel: "abs_out"\n'
        '    files: ["aten/src/ATen/native/cuda/AbsKernel.cu"]\n', encoding="utf-8")
    ops = registered_ops(OutDir(tmp_path), {"abs.out": (False, "AbsKernel.mu:12: error: no member")})
    assert ops["abs.out"].files == ("aten/src/ATen/native/cuda/AbsKernel.cu",)
    assert (ops["abs.out"].built, ops["abs.out"].error) == (False, "AbsKernel.mu:12: error: no member")
    (tree / "musa_functions.yaml").write_text("registered:\n  - name: [unclosed\n", encoding="utf-8")
    with pytest.raises(LoadError, match=r"musa_functions.yaml:\d+: not valid YAML"):
        registered_ops(OutDir(tmp_path))


def test_registered_ops_without_a_port_name_the_fix(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="musaport run --out"):
        registered_ops(OutDir(tmp_path))


PORTING_REPORT = {"files": {
    "aten/src/ATen/native/cuda/AbsKernel.cu": {"out": "aten/src/ATen/native/musa/AbsKernel.mu",
                                               "rules": {"device-macros": 2, "launch-bounds": 1}},
    "aten/src/ATen/native/cuda/ReduceMax.cu": {"out": "aten/src/ATen/native/musa/ReduceMax.mu",
                                               "rules": {"cub-namespace": 4}},
}}


def _results() -> list[OpResult]:
    return [
        OpResult("abs", (d("float32", "error", "sample 1: " + MISSING, failing_op="aten::abs"),)),
        OpResult("abs.alias", (d("float32", "error", "sample 4: " + MISSING, failing_op="aten::abs"),)),
        OpResult("max.reduction_with_dim", (d("float32", "pass"), d("float16", "fail",
                 "sample 2: Tensor-likes are not close!", ops=("aten::max.dim",)))),
        OpResult("amax", (d("float16", "fail", "sample 9: Tensor-likes are not close!", ops=("aten::max.dim",)),)),
        OpResult("neg", (d("float32", "pass"),)),
    ]


def test_failures_are_traced_to_ported_files_and_rules_and_grouped_by_cause() -> None:
    found = causes(_results(), REGISTERED, PORTING_REPORT)
    assert [(c.kind, c.entries) for c in found] == [
        ("fail", ["max.reduction_with_dim", "amax"]),
        ("not-registered", ["abs", "abs.alias"]),
    ]
    mismatch, missing = found
    assert mismatch.files == ("aten/src/ATen/native/musa/ReduceMax.mu",)
    assert mismatch.rules == {"cub-namespace": 4} and mismatch.kernels == ["max_out"]
    assert mismatch.first_error.startswith("float16: sample 2: Tensor-likes")
    assert missing.summary == "not registered: aten::abs.out on PrivateUse1"
    assert missing.rules == {"device-macros": 2, "launch-bounds": 1}


def test_a_build_error_is_the_cause_before_the_error_it_leads_to() -> None:
    broken = {**REGISTERED, "abs.out": PortedOp("abs.out", "stub", "abs_out", REGISTERED["abs.out"].files,
                                                False, "AbsKernel.mu:40: error: 'x' was not declared")}
    found = causes(_results()[:2], broken, PORTING_REPORT)
    assert [(c.kind, c.operators, len(c.entries)) for c in found] == [("build-error", ["abs.out"], 2)]
    assert "AbsKernel.mu:40" in found[0].first_error


def test_the_json_report_has_the_documented_shape() -> None:
    results = _results()
    doc = report_doc("2.6.0", "musa", results, causes(results, REGISTERED, PORTING_REPORT),
                     {"test_ops.py": {"passed": 0, "failed": 0, "skipped": 0, "errors": 0}}, {"seconds": 1.0})
    json.dumps(doc)  # serialisable
    assert doc["torch_version"] == "2.6.0"
    assert doc["ops"]["neg"] == {"status": "pass", "reason": "", "files": [], "operators": [],
                                 "dtypes": {"float32": {"status": "pass", "samples": 0, "failed": 0}}}
    assert doc["ops"]["max.reduction_with_dim"]["status"] == "fail"
    assert doc["ops"]["max.reduction_with_dim"]["dtypes"]["float16"]["reason"].startswith("sample 2")
    assert doc["test_files"]["test_ops.py"] == {"passed": 0, "failed": 0, "skipped": 0, "errors": 0}
    assert doc["summary"] == {"entries": 5, "ran": 5, "skip": 0, "pass": 1, "fail": 2, "error": 2, "crash": 0,
                              "one_dtype": {"ran": 5, "pass": 2}}  # max passes in float32, its first dtype
    md = render_markdown(doc, "musaport validate --opinfo --out OUT")
    assert "## Failures by cause" in md and "| 1 | fail | 2: max.reduction_with_dim, amax |" in md
    assert "1 of 5 OpInfo entries that ran pass" in md


def test_junit_and_outcome_lines_give_the_same_counts(tmp_path: Path) -> None:
    xml = tmp_path / "r.xml"
    xml.write_text('<testsuites><testsuite name="pytest" errors="1" failures="2" skipped="3" tests="10">'
                   "</testsuite></testsuites>", encoding="utf-8")
    assert junit_counts(xml) == {"passed": 4, "failed": 2, "skipped": 3, "errors": 1}
    assert junit_counts(tmp_path / "missing.xml") is None
    lines = tmp_path / "o.jsonl"
    rows = [("a", "passed"), ("b", "failed"), ("c", "skipped"), ("d", "errors"), ("e", "passed")]
    lines.write_text("".join(json.dumps({"test": t, "outcome": o, "first": "boom"}) + "\n" for t, o in rows)
                     + '{"test": "f", "outc', encoding="utf-8")  # a killed run's cut last line
    counts, first = outcome_counts(lines)
    assert counts == {"passed": 2, "failed": 1, "skipped": 1, "errors": 1}
    assert first == ["b: boom", "d: boom"]


def test_a_test_files_failures_are_grouped_by_their_first_line_without_its_numbers() -> None:
    """893 failures of test_ops.py are read by cause, not one by one: the same error line (its sizes and
    indices aside) is one group, the group of most tests first, and a file's shards' groups add up."""
    std = "RuntimeError: std and var supports tensors on a CPU, CUDA, or XPU device only, but got: musa"
    lu = "RuntimeError: torch.linalg.lu_factor: U[{0},{0}] is zero"
    one = [{"test": "t1", "outcome": "failed", "first": std}, {"test": "t2", "outcome": "passed"},
           {"test": "t3", "outcome": "failed", "first": lu.format(3)}, {"test": "t4", "outcome": "errors", "first": ""}]
    two = [{"test": "t5", "outcome": "failed", "first": lu.format(1)},
           {"test": "t6", "outcome": "failed", "first": std},
           {"test": "t7", "outcome": "failed", "first": lu.format(2)}, {"test": "t8", "outcome": "skipped"}]
    shape = "RuntimeError: torch.linalg.lu_factor: U[N,N] is zero"
    assert failure_causes(one) == ((std, 1, "t1"), (shape, 1, "t3"), ("no error line", 1, "t4"))
    merged = merge_shards([FileResult("test_ops.py", failed=2, errors=1, shard=0, causes=failure_causes(one)),
                           FileResult("test_ops.py", failed=3, shard=1, causes=failure_causes(two))])
    assert merged.causes == ((shape, 3, "t3"), (std, 2, "t1"), ("no error line", 1, "t4"))
    doc = report_doc("2.6.0", "musa", [], [], {"test_ops.py": merged.as_json()}, {})
    assert doc["test_files"]["test_ops.py"]["causes"][0] == {"error": shape, "tests": 3, "example": "t3"}
    md = render_markdown(doc, "musaport validate --opinfo --out OUT --pytorch-tests")
    assert "### test_ops.py: failures by their first error line" in md
    assert f"| 3 | {shape} | t3 |" in md
    from rich.console import Console

    from musaport.validate.opinfo.render import summary

    console = Console(record=True, width=200, color_system=None)
    summary(doc, console)
    assert "3: RuntimeError: torch.linalg.lu_factor: U[N,N] is zero" in console.export_text()


def test_a_privateuse1_device_is_selected_as_privateuse1() -> None:
    assert device_filter(Device(Path("python"), "musa")) == "privateuse1"
    assert device_filter(Device(Path("python"), "cpu")) == "cpu"


def test_a_build_error_citing_a_ported_line_names_the_rules_behind_that_line(tmp_path: Path) -> None:
    from conftest import musaport

    from musaport.resources import default_packs
    from musaport.rewrite.packs import load_packs
    from musaport.validate.opinfo.report import Cause, cited_line_rules

    assert musaport("run", "--out", str(tmp_path), "-q").returncode == 0  # the bundled fixture tree
    out = OutDir(tmp_path)
    ported = (out.tree / "aten/src/ATen/native/musa/AbsKernel.mu").read_text(encoding="utf-8").splitlines()
    kernel = next(i for i, ln in enumerate(ported, 1) if "void abs_kernel_musa(" in ln)
    plain = next(i for i, ln in enumerate(ported, 1) if ln.strip() == "}")
    rules = load_packs(default_packs())
    cause = Cause("build-error", "x", ("aten/src/ATen/native/musa/AbsKernel.mu",),
                  first_error=f"abs.out: build-error: native/musa/AbsKernel.mu:{kernel}:6: error: no matching call")
    cited_line_rules(cause, out, out.source(), rules)
    assert cause.line_rules == {f"aten/src/ATen/native/musa/AbsKernel.mu:{kernel}": ["pytorch-cuda-names"]}
    untouched = Cause("build-error", "x", (), first_error=f"aten/src/ATen/native/musa/AbsKernel.mu:{plain}: error")
    cited_line_rules(untouched, out, out.source(), rules)
    assert untouched.line_rules == {f"aten/src/ATen/native/musa/AbsKernel.mu:{plain}": []}


VIEW_AS_REAL = ("NotImplementedError: Could not run 'aten::view_as_real' with arguments from the 'musa' backend. "
                "This could be because the operator doesn't exist for this backend")


def test_operators_a_kernel_calls_that_the_port_registers_join_the_build_and_their_entries_rerun() -> None:
    from musaport.validate.opinfo.differential import OpinfoRun
    from musaport.validate.opinfo.run import lacking_operators

    ported = {**REGISTERED, "view_as_real": PortedOp("view_as_real", "cuda-function", "view_as_real", ())}
    run = OpinfoRun("2.6.0", (
        OpResult("abs", (d("float32", "pass"), d("complex64", "error", "sample 1: " + VIEW_AS_REAL))),
        OpResult("fill", (d("float32", "error", "sample 1: " + MISSING.replace("abs.out", "aten::nope")),)),
    ), 694, 1.0, tuple(ENTRIES[:2]))
    assert lacking_operators(run, ported, ["abs.out", "fill_.Scalar"]) == (["view_as_real"], (ENTRIES[0],))
    assert lacking_operators(run, ported, ["abs.out", "view_as_real"]) == ([], ())  # built: no new round


def test_an_operator_unlinked_for_another_operators_backend_function_brings_that_operator() -> None:
    """istft meets aten::equal; Equal.cpp's kernel calls at::musa::eq, which only eq's registration
    defines: the build that added equal could not link it, so the next round adds eq and reruns istft."""
    from musaport.validate.opinfo.differential import OpinfoRun
    from musaport.validate.opinfo.run import lacking_operators

    ported = {**REGISTERED,
              "equal": PortedOp("equal", "cuda-function", "cuda_equal", ("aten/src/ATen/native/cuda/Equal.cpp",)),
              "eq.Tensor": PortedOp("eq.Tensor", "structured", "eq_out", ("aten/src/ATen/native/cuda/CompareEQ.cu",)),
              "eq.Tensor_out": PortedOp("eq.Tensor_out", "structured", "eq_out",
                                        ("aten/src/ATen/native/cuda/CompareEQ.cu",))}
    equal = VIEW_AS_REAL.replace("view_as_real", "equal")
    run = OpinfoRun("2.6.0", (OpResult("abs", (d("complex64", "error", "sample 1: " + equal),)),), 694, 1.0,
                    tuple(ENTRIES[:1]))
    unlinked = {"equal": (False, "missing-symbol: no ported file defines at::musa::eq(at::Tensor const&, "
                                 "at::Tensor const&)")}
    assert lacking_operators(run, ported, ["abs.out", "equal"], unlinked) == (
        ["eq.Tensor", "eq.Tensor_out"], (ENTRIES[0],))
    assert lacking_operators(run, ported, ["abs.out", "equal"], {"equal": (True, "")}) == ([], ())
    other = {"equal": (False, "build-error (aten/src/ATen/native/musa/Equal.cpp): error: at::musa::eq( x")}
    assert lacking_operators(run, ported, ["abs.out", "equal"], other) == ([], ())


def test_an_operator_the_port_does_not_register_is_its_own_cause_without_files() -> None:
    results = [OpResult("abs", (d("complex64", "error", "sample 1: " + VIEW_AS_REAL),))]
    found = causes(results, REGISTERED, PORTING_REPORT)
    assert [(c.kind, c.files, c.operators) for c in found] == [("not-registered", (), [])]
    assert found[0].summary == ("not registered: aten::view_as_real on musa "
                                "(the port registers no kernel for it)")
    why = {"view_as_real": "unresolved: view_as_real is not defined in any scanned file"}
    assert causes(results, REGISTERED, PORTING_REPORT, why)[0].summary == (
        "not registered: aten::view_as_real on musa "
        "(musa_functions.yaml: unresolved: view_as_real is not defined in any scanned file)")


def test_the_opinfo_mode_refuses_what_is_not_its_own_in_one_line(tmp_path: Path) -> None:
    from conftest import musaport

    cases = [
        (("--opinfo", "x.mu"), "--opinfo takes no file patterns (select OpInfo entries with --ops)"),
        (("--compile", "--pytorch-tests"), "--ops, --pytorch-tests, --test-files, --test-timeout, --shard and "
         "--shard-timings go with --opinfo"),
        (("--opinfo", "--shard", "5/4"), "--shard: '5/4' is not I/N with 1 <= I <= N (e.g. 2/4)"),
        (("--opinfo", "--shard-timings", str(tmp_path / "t.json")), "--shard-timings goes with --shard"),
        (("--opinfo", "--shard", "1/2", "--shard-timings", str(tmp_path / "t.json")), "t.json: no such file"),
        (("--opinfo", "--libtorch", str(tmp_path)), "--samples and --libtorch go with --backend"),
        (("--opinfo", "--test-timeout", "60"), "--test-timeout goes with --pytorch-tests"),
        (("--opinfo", "--test-files", "test_ops.py"), "--test-files goes with --pytorch-tests"),
        (("--opinfo", "--pytorch-tests", "--test-timeout", "soon"), "--test-timeout: 'soon' is not a number"),
        (("--opinfo",), "no ported tree here; run 'musaport run --out"),
    ]
    for args, message in cases:
        done = musaport("validate", *args, "--out", str(tmp_path / "out"))
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()  # refused before anything was written


def test_phase_lines_say_each_tenth_once_however_often_a_file_is_polled() -> None:
    """A running test file is polled every few seconds: off a terminal that is a line at its start, at each
    tenth and at its end, not one per poll (nor any while it is still collecting)."""
    from musaport.validate.opinfo.render import PhaseLines

    lines: list[str] = []
    say = PhaseLines(lines.append)
    for done, total in [(0, 0)] * 5 + [(0, 200)] * 5 + [(d, 200) for d in range(201)] + [(200, 200)] * 3:
        say("tests:test_ops.py", done, total, "test_ops.py")
    assert lines[0] == "test_ops.py tests: 0/200 (test_ops.py)"
    assert lines[-1] == "test_ops.py tests: 200/200 (test_ops.py)"
    assert len(lines) == 11, lines


def test_test_files_take_the_core_list_by_name_and_each_file_once() -> None:
    """--test-files core names the 30 core files of 2.6.0's test/ folder (nn/ ones with their folder);
    a list and a file of it given together run that file once, in the list's order."""
    from musaport.validate.opinfo.tests import CORE_FILES, TEST_FILES, expand_file_lists

    assert len(CORE_FILES) == 30 and set(TEST_FILES) <= set(CORE_FILES)
    assert "nn/test_convolution.py" in CORE_FILES
    assert expand_file_lists(("test_nn.py", "core"))[:2] == ("test_nn.py", "test_ops.py")
    assert len(expand_file_lists(("test_nn.py", "core"))) == 30
    assert expand_file_lists(("default",)) == TEST_FILES
    assert expand_file_lists(("test_foo.py",)) == ("test_foo.py",)


@pytest.mark.shared
def test_every_core_file_is_in_the_release_tree(pytorch_260: Path) -> None:
    from musaport.validate.opinfo.tests import CORE_FILES

    assert [f for f in CORE_FILES if not (pytorch_260 / "test" / f).is_file()] == []


def test_operators_an_adapter_registers_are_left_out_of_the_builds_registration() -> None:
    """The refused-operators adapter registers std/var, mode, cdist, pdist and _index_put_impl_ for
    PrivateUse1 itself; the registration the build generates must not register them a second time."""
    from musaport.validate.backend.backend import adapted_operators

    adapted = adapted_operators()
    assert {"std.correction", "var_mean.correction", "mode", "_pdist_forward", "_cdist_backward",
            "_index_put_impl_", "convolution_overrideable", "convolution_backward_overrideable",
            "_copy_from"} <= adapted
    assert "add.out" not in adapted


def test_an_adapter_that_wraps_the_ports_kernels_is_built_only_with_them() -> None:
    """The deterministic adapter calls at::musa::scatter_add and its kin for the cases it leaves alone: a
    build without those operators (M1's) compiles none of it and keeps nothing of theirs unregistered."""
    from musaport.validate.backend.backend import active_adapters, adapted_operators, adapter_operators

    scatter = adapter_operators("deterministic")
    assert {"scatter_add.out", "scatter.src", "scatter_reduce.two_out"} <= scatter
    small = active_adapters(["add.out", "abs.out", "scatter_add.out"])
    assert "deterministic" not in small and "refused_ops" in small
    assert not scatter & adapted_operators(small)
    whole = active_adapters(["add.out", *scatter])
    assert "deterministic" in whole and scatter <= adapted_operators(whole)
