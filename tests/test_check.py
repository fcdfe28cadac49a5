"""`musaport check`: comparing two ports, the report formats, exit codes, the real bump."""

from __future__ import annotations

import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import FIXTURE_TREE, musaport
from musaport.check.compare import Snapshot, compare

FORMATS = ["--format", "text", "--format", "md", "--format", "json", "--format", "sarif", "--format", "junit"]


def snap(**kw) -> Snapshot:
    base = {"source": "s", "files": {}, "unmapped": {}, "rules": {}, "operators": {}, "validation": None}
    return Snapshot(**(base | kw))


def test_compare_reports_each_category() -> None:
    old = snap(
        files={"a/x.cu": {"out": "a/x.mu", "src_hash": "1"}, "a/gone.cu": {"out": "a/gone.mu", "src_hash": "2"},
               "a/old/moved.h": {"out": "a/old/moved.h", "src_hash": "3"}},
        unmapped={"cudnnCreate": ["a/x.cu:3"]},
        rules={"r-alive": 2, "r-dead": 4},
        operators={"abs.out": {"schema": "abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", "line": 5, "kernel": "abs_out"}},
        validation={"a/x.mu": True},
    )
    new = snap(
        files={"a/x.cu": {"out": "a/x.mu", "src_hash": "9"}, "a/new.cu": {"out": "a/new.mu", "src_hash": "5"},
               "a/new/moved.h": {"out": "a/new/moved.h", "src_hash": "3"}},
        unmapped={"cudnnCreate": ["a/x.cu:3"], "ncclSend": ["a/new.cu:7", "a/new.cu:9"]},
        rules={"r-alive": 1},
        operators={
            "abs.out": {"schema": "abs.out(Tensor self, *, Tensor(a!) out, int extra) -> Tensor(a!)", "line": 6, "kernel": "abs_out"},
            "frob": {"schema": "frob(Tensor self) -> Tensor", "line": 9, "kernel": "frob_cuda"},
        },
        validation={"a/x.mu": False},
    )
    got = {(f.category, f.file, f.line, f.subject) for f in compare(old, new)}
    assert got == {
        ("added-files", "a/new.cu", 0, "a/new.cu"),
        ("removed-files", "a/gone.cu", 0, "a/gone.cu"),
        ("renamed-files", "a/new/moved.h", 0, "a/old/moved.h"),
        ("new-unmapped", "a/new.cu", 7, "ncclSend"),
        ("dead-rules", "", 0, "r-dead"),
        ("schema-drift", "aten/src/ATen/native/native_functions.yaml", 6, "abs.out"),
        ("new-operators", "aten/src/ATen/native/native_functions.yaml", 9, "frob"),
        ("compile-regression", "a/x.mu", 0, "a/x.mu"),
    }


def test_schema_drift_and_new_operators_follow_the_registrations() -> None:
    schema = "{}(Tensor self) -> Tensor"
    old = snap(operators={
        "kept": {"schema": schema.format("kept"), "line": 1, "kernel": "k", "registered": True},
        "own": {"schema": schema.format("own"), "line": 2, "kernel": "o", "registered": False},
    })
    new = snap(operators={
        "kept": {"schema": "kept(Tensor self, int n) -> Tensor", "line": 1, "kernel": "k", "registered": True},
        "own": {"schema": "own(Tensor self, int n) -> Tensor", "line": 2, "kernel": "o", "registered": False},
        "auto": {"schema": schema.format("auto"), "line": 3, "kernel": "a", "registered": True},
        "manual": {"schema": schema.format("manual"), "line": 4, "kernel": "m", "registered": False},
    })
    got = {(f.category, f.subject) for f in compare(old, new)}
    # 'own' was never registered by the stubs (nothing breaks); 'auto' is new but the stubs cover it
    assert got == {("schema-drift", "kept"), ("new-operators", "manual")}


def test_identical_snapshots_have_no_findings() -> None:
    s = snap(files={"a.cu": {"out": "a.mu", "src_hash": "1"}}, rules={"r": 1})
    assert compare(s, s) == []


@pytest.fixture()
def bumped(tmp_path: Path) -> tuple[Path, Path]:
    """The fixture tree and a 'next release' of it with a few real changes."""
    old = tmp_path / "old"
    new = tmp_path / "new"
    shutil.copytree(FIXTURE_TREE, old)
    shutil.copytree(FIXTURE_TREE, new)
    (new / "aten/src/ATen/native/cuda/Blas.cpp").unlink()
    (new / "aten/src/ATen/native/cuda/Frob.cu").write_text("void frob() { nvrtcCompileProgram(p, 0, nullptr); }\n")
    yaml = new / "aten/src/ATen/native/native_functions.yaml"
    text = yaml.read_text()
    assert "tril.out(Tensor self, int diagonal=0" in text
    yaml.write_text(text.replace("tril.out(Tensor self, int diagonal=0", "tril.out(Tensor self, SymInt diagonal=0"))
    return old, new


def test_check_cli_on_a_bump(bumped: tuple[Path, Path], tmp_path: Path) -> None:
    old, new = bumped
    out = tmp_path / "check"
    result = musaport("check", "--pytorch-src", str(new), "--baseline", str(old), "--out", str(out), *FORMATS)
    assert result.returncode == 1, result.stderr
    doc = json.loads((out / "musaport-check.json").read_text())
    cats = {(f["category"], f["subject"]) for f in doc["findings"]}
    assert ("removed-files", "aten/src/ATen/native/cuda/Blas.cpp") in cats
    assert ("added-files", "aten/src/ATen/native/cuda/Frob.cu") in cats
    assert ("new-unmapped", "nvrtcCompileProgram") in cats
    assert any(c == "schema-drift" and s.startswith("tril") for c, s in cats)
    assert "removed-files" in result.stdout and "result: failed" in result.stdout
    md = (out / "musaport-check.md").read_text()
    assert md.index("| finding | count") < md.index("<details>")
    sarif = json.loads((out / "musaport-check.sarif").read_text())
    assert sarif["version"] == "2.1.0"
    located = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "new-unmapped"]
    assert located[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "aten/src/ATen/native/cuda/Frob.cu"
    assert located[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 1
    junit = ET.parse(out / "musaport-check.junit.xml").getroot()
    failures = [c for c in junit.iter("testcase") if c.find("failure") is not None]
    assert any(c.get("name") == "nvrtcCompileProgram" for c in failures)


def test_check_against_its_own_report_is_clean(bumped: tuple[Path, Path], tmp_path: Path) -> None:
    old, new = bumped
    first = musaport("check", "--pytorch-src", str(new), "--baseline", str(old), "--out", str(tmp_path / "a"),
                     "--format", "json")
    assert first.returncode == 1
    again = musaport("check", "--pytorch-src", str(new), "--baseline-report", str(tmp_path / "a/musaport-check.json"),
                     "--out", str(tmp_path / "b"), "--format", "json")
    assert again.returncode == 0, again.stdout
    assert json.loads((tmp_path / "b/musaport-check.json").read_text())["findings"] == []


def test_fail_on_selects_what_fails(bumped: tuple[Path, Path], tmp_path: Path) -> None:
    old, new = bumped
    result = musaport("check", "--pytorch-src", str(new), "--baseline", str(old), "--out", str(tmp_path / "c"),
                      "--fail-on", "compile-regression")
    assert result.returncode == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "exactly one of --baseline"),
        (["--baseline", "{t}", "--baseline-report", "{t}/r.json"], "exactly one of --baseline"),
        (["--baseline", "{t}", "--fail-on", "typos"], "unknown categories typos"),
        (["--baseline-report", "{t}/missing.json"], "missing.json: not a readable JSON report"),
    ],
)
def test_check_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    result = musaport("check", "--pytorch-src", str(FIXTURE_TREE), "--out", str(tmp_path / "o"),
                      *[a.format(t=FIXTURE_TREE) for a in args])
    assert result.returncode == 2
    assert message in result.stderr


@pytest.mark.shared
def test_real_bump_1131_to_260(pytorch_1131: Path, pytorch_260: Path,
                               bump_check: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    out, result = bump_check
    assert result.returncode == 1, result.stderr
    md = (out / "musaport-check.md").read_text()  # docs/ci/musaport-check.yml posts it as one comment
    assert len(md) <= 65_536, len(md)
    assert "| finding | count" in md and "<b>new-unmapped</b>" in md and "musaport-check.json" in md
    first = (out / "musaport-check.json").read_bytes()
    doc = json.loads(first)
    cats = {(f["category"], f["subject"]) for f in doc["findings"]}
    # verified by hand: ROCmLoops.cuh exists in 1.13.1 only, CUDAContextLight.h in 2.6.0 only
    assert ("removed-files", "aten/src/ATen/native/cuda/ROCmLoops.cuh") in cats
    assert ("removed-files", "c10/util/variant.h") in cats
    assert ("added-files", "aten/src/ATen/cuda/CUDAContextLight.h") in cats
    # eye.out(int n, ...) became eye.out(SymInt n, ...)
    drift = next(f for f in doc["findings"] if f["category"] == "schema-drift" and f["subject"] == "eye.out")
    assert "SymInt n" in drift["message"] and drift["line"] > 0
    again = musaport("check", "--pytorch-src", str(pytorch_260), "--baseline", str(pytorch_1131), "--out", str(out),
                     "--format", "json")
    assert again.returncode == 1
    assert (out / "musaport-check.json").read_bytes() == first, "the JSON report must be stable across runs"


def test_markdown_fits_a_pull_request_comment() -> None:
    """Thousands of findings: the Markdown keeps the summary and the first findings of each
    category, says where the rest is, and stays under GitHub's 65,536 characters."""
    from musaport.check.compare import CATEGORIES
    from musaport.check.render import render_markdown

    findings = [{"category": c, "message": f"finding {i} " + "x" * 400, "file": f"a/f{i}.cu", "line": i + 1,
                 "subject": f"s{i}"} for c in CATEGORIES for i in range(2000)]
    doc = {"old": "old", "new": "new", "failed": True, "summary": {c: 2000 for c in CATEGORIES},
           "fail_on": ["new-unmapped"], "findings": findings}
    md = render_markdown(doc)
    assert len(md) <= 65_536
    assert "| files added to the ported set | 2000 |" in md
    for category in CATEGORIES:
        assert f"<b>{category}</b>: 2000" in md
    assert "`a/f0.cu:1` finding 0" in md and "musaport-check.json" in md
    small = render_markdown({**doc, "findings": findings[:3], "summary": {c: 0 for c in CATEGORIES}})
    assert "finding 2" in small and "Shown here" not in small  # all shown when all fit
