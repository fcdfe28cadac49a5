"""`musaport diff`: rule attribution, the unified diff, and the command on fixtures and PyTorch 2.6.0."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import FIXTURE_TREE, musaport
from musaport.diff.files import DiffLine, file_diff, final_ranges, unified
from musaport.resources import default_packs
from musaport.rewrite.packs import load_packs

RULES = load_packs(default_packs())
SNIPPET = b"""#include <cuda_runtime.h>
// uses cudaMalloc
void f(cudaStream_t s) {
  cudaMalloc(nullptr, 0); at::cuda::getCurrentCUDAStream();
}
"""


def test_final_ranges_follow_later_edits() -> None:
    # r1 turns "bb" into "BBBB" in "aa bb cc"; r2 then shortens "aa" to "A", moving r1's text left by one.
    steps = (("r1", ((3, 5, "BBBB"),)), ("r2", ((0, 2, "A"),)))
    assert final_ranges(steps) == [(0, 1, "r2"), (2, 6, "r1")]


def test_each_changed_line_names_the_rules_that_changed_it() -> None:
    diff = file_diff("aten/src/ATen/native/cuda/X.cu", "aten/src/ATen/native/musa/X.mu", SNIPPET, None, RULES)
    changed = {ln.text: ln.rules for ln in diff.lines if ln.tag == "+"}
    assert changed["#include <musa_runtime.h>"] == ("toolkit-header-cuda-prefix",)
    assert changed["void f(musaStream_t s) {"] == ("toolkit-names",)
    assert set(changed["  musaMalloc(nullptr, 0); at::musa::getCurrentMUSAStream();"]) == {
        "toolkit-names", "pytorch-namespaces", "pytorch-cuda-classes"}
    assert any(rules == ("provenance",) for rules in changed.values())
    assert DiffLine(" ", "// uses cudaMalloc") in diff.lines  # comments are not ported, so not changed
    assert (diff.origin, diff.attributed, diff.added, diff.removed) == ("memory", True, 4, 3)


def test_a_port_the_rules_do_not_reproduce_is_shown_unattributed() -> None:
    other = b"// musaport 0.1.0: ported from X.cu (sha256 0)\n#include <hand_edited.h>\n" + SNIPPET.split(b"\n", 1)[1]
    diff = file_diff("aten/src/ATen/native/cuda/X.cu", "aten/src/ATen/native/musa/X.mu", SNIPPET, other, RULES)
    assert diff.origin == "out" and not diff.attributed
    assert DiffLine("+", "#include <hand_edited.h>") in diff.lines


def test_unified_hunks_match_diff_u() -> None:
    old = "a\nb\nc\nd\ne\nf\ng\nh\n"
    new = "a\nB\nc\nd\ne\nf\ng\nh\nI\n"
    lines = unified(old, new, {1: ("r",)}, context=1)
    assert [ln.tag + ln.text for ln in lines] == ["@@@ -1,3 +1,3 @@", " a", "-b", "+B", " c",
                                                  "@@@ -8 +8,2 @@", " h", "+I"]
    assert lines[3].rules == ("r",)


@pytest.fixture(scope="module")
def fixture_port(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("diff")
    assert musaport("run", "--pytorch-src", str(FIXTURE_TREE), "--out", str(out), "-q").returncode == 0
    return out


def test_cli_diff_abs_on_the_fixture_tree(fixture_port: Path) -> None:
    result = musaport("diff", "abs", "--out", str(fixture_port), "--no-color")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "--- aten/src/ATen/native/cuda/AbsKernel.cu\n+++ aten/src/ATen/native/musa/AbsKernel.mu\n" in out
    assert re.search(r"^-#include <ATen/native/cuda/Loops.cuh>$", out, re.M)
    assert re.search(r"^\+#include <ATen/native/musa/Loops.muh> +\[pytorch-include-paths\]$", out, re.M)
    assert "abs.out  stub: kernel abs_out, stubs abs_stub" in out
    assert "registration: none (the tree has no torchgen/" in out
    assert "\x1b[" not in out


def test_cli_diff_tril_stat_and_json(fixture_port: Path) -> None:
    stat = musaport("diff", "tril", "--out", str(fixture_port), "--stat")
    assert stat.returncode == 0, stat.stderr
    lines = stat.stdout.splitlines()
    assert lines[0].startswith("aten/src/ATen/native/cuda/TriangularOps.cu -> "
                               "aten/src/ATen/native/musa/TriangularOps.mu | +8 -7 | is-cuda (1)")
    assert lines[-1] == "1 file changed, 8 insertions(+), 7 deletions(-)"
    doc = json.loads(musaport("diff", "tril_", "--out", str(fixture_port), "--json").stdout)
    assert [op["name"] for op in doc["operators"]] == ["tril_"]
    assert doc["operators"][0]["delegate"] == "tril.out"
    [f] = doc["files"]
    assert (f["src"], f["out"], f["origin"], f["attributed"]) == (
        "aten/src/ATen/native/cuda/TriangularOps.cu", "aten/src/ATen/native/musa/TriangularOps.mu", "out", True)
    assert {"tag": "+", "text": '  TORCH_CHECK(self.is_privateuseone(), "expected a cuda tensor, got cudaMalloc failure");',
            "rules": ["is-cuda"]} in f["lines"]


def test_cli_diff_without_a_port_ports_in_memory(tmp_path: Path) -> None:
    result = musaport("diff", "abs.out", "--out", str(tmp_path / "none"), "--pytorch-src", str(FIXTURE_TREE),
                      "--no-color")
    assert result.returncode == 0, result.stderr
    assert "+++ aten/src/ATen/native/musa/AbsKernel.mu (ported in memory: OUT holds no port of it)" in result.stdout
    assert not (tmp_path / "none" / "generated_cuda_compatible").exists()


def test_cli_unknown_operator_exits_2_with_suggestions(fixture_port: Path) -> None:
    result = musaport("diff", "trill", "--out", str(fixture_port))
    assert result.returncode == 2
    assert result.stderr == "musaport: error: no operator 'trill' with a CUDA kernel; did you mean: tril, tril_, tril.out?\n"


@pytest.mark.shared
def test_diff_abs_and_tril_on_pytorch_260(ported_260: Path, pytorch_260: Path) -> None:
    result = musaport("diff", "abs", "--out", str(ported_260), "--pytorch-src", str(pytorch_260), "--no-color")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "--- aten/src/ATen/native/cuda/AbsKernel.cu\n+++ aten/src/ATen/native/musa/AbsKernel.mu\n" in out
    assert re.search(r"^\+#include <ATen/native/musa/JitLoops.muh> +\[pytorch-include-paths\]$", out, re.M)
    assert 'm.impl("abs.out", TORCH_FN(at::wrapper_MUSA_abs__out));' in out

    doc = json.loads(musaport("diff", "tril", "--out", str(ported_260), "--pytorch-src", str(pytorch_260),
                              "--json").stdout)
    assert [op["name"] for op in doc["operators"]] == ["tril", "tril.out", "tril_"]
    [f] = doc["files"]
    assert f["out"] == "aten/src/ATen/native/musa/TriangularOps.mu" and f["attributed"]
    launch = [ln for ln in f["lines"] if ln["tag"] == "+" and "getCurrentMUSAStream" in ln["text"]]
    assert launch and all(set(ln["rules"]) == {"pytorch-namespaces", "pytorch-cuda-classes"} for ln in launch)
    assert 'm.impl("tril_"' in doc["registration"]


def test_stat_of_an_operator_without_ported_files_gives_its_reason() -> None:
    from musaport.diff.render import render_stat
    from musaport.diff.operator import OpDiff
    from musaport.ops.model import Operator

    op = Operator("cudnn_foo", "cudnn_foo(Tensor self) -> Tensor", 1, "not-portable", "cudnn_foo", (), (),
                  reason="cudnn_foo calls cudnnFoo (cuDNN: no MUSA counterpart)")
    stat = render_stat(OpDiff("cudnn_foo", "tree", (op,), (), "", "no registrable operator"))
    assert stat == ("cudnn_foo: not-portable: cudnn_foo calls cudnnFoo (cuDNN: no MUSA counterpart)\n"
                    "0 files changed, 0 insertions(+), 0 deletions(-)\n")
