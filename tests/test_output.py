"""Output where it is read: off a terminal (CI logs, pipes, files) nothing is cut, long phases say what they
do, options mean one thing everywhere, and help text is whole.

Every command here runs as a user runs it, with stdout and stderr captured (so not a terminal).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURE_TREE, musaport
from musaport.resources import data_dir, default_packs
from musaport.rewrite.packs import load_packs

CUT = "…"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    return dict(env, **extra)


def _musaport(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["musaport", *args], capture_output=True, text=True, cwd=cwd, env=_env(**env))


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The quick start: the bundled fixture tree ported into OUT."""
    out = tmp_path_factory.mktemp("bundled") / "build"
    result = musaport("run", "--out", str(out), "-q")
    assert result.returncode == 0, result.stderr
    return out


# --- nothing a user copies is cut ------------------------------------------------------------------

def test_rules_list_off_a_terminal_prints_every_rule_id_whole() -> None:
    result = _musaport("rules", "list")
    assert result.returncode == 0, result.stderr
    ids = [rule.id for rule in load_packs(tuple(default_packs())).rules]
    long_ids = [i for i in ids if len(i) > 24]
    assert long_ids, "the bundled packs have long rule ids (toolkit-header-cuda-preference...)"
    cells = {cell.strip() for line in result.stdout.splitlines() for cell in line.split("│")}
    assert [i for i in ids if i not in cells] == []
    assert CUT not in result.stdout


def test_rules_list_on_a_narrow_screen_folds_ids_rather_than_cut_them() -> None:
    """COLUMNS=60 (a narrow terminal, or a user's choice): ids fold onto the next line, never "…"."""
    result = _musaport("rules", "list", COLUMNS="60")
    assert result.returncode == 0, result.stderr
    first_column = "".join(line.split("│")[1].strip() for line in result.stdout.splitlines()
                           if line.startswith("│"))
    assert CUT not in first_column
    for rule_id in (r.id for r in load_packs(tuple(default_packs())).rules):
        assert rule_id in first_column


def test_doctor_off_a_terminal_prints_paths_whole() -> None:
    result = _musaport("doctor")
    assert CUT not in result.stdout
    from musaport.doctor import diagnose

    details = [s.detail for s in diagnose() if "/" in s.detail]
    assert details, "doctor shows paths (libclang's, the clang's, g++'s)"
    assert [d for d in details if d not in result.stdout] == []


def test_run_summary_off_a_terminal_keeps_its_headers_and_paths(tmp_path: Path) -> None:
    out = tmp_path / "a-rather-long-folder-name-for-the-output-of-this-run" / "build"
    result = _musaport("run", "--out", str(out))
    assert result.returncode == 0, result.stderr
    header = next(line for line in result.stdout.splitlines() if "files" in line and "ported" in line)
    for column in ("files", "ported", "unchanged", "copied", "failed", "skipped", "written", "removed", "reused"):
        assert f" {column} " in header, header
    assert f"report: {out / 'porting_report.md'}" in result.stdout
    assert CUT not in result.stdout


# --- long phases say what they do ------------------------------------------------------------------

@pytest.mark.compiles
def test_validate_compile_says_what_it_does_off_a_terminal(bundled: Path, clang) -> None:
    state = bundled / ".musaport" / "validate"
    for pch in state.glob("*.pch"):
        pch.unlink()
    (state / "results.json").unlink(missing_ok=True)
    result = _musaport("validate", "--compile", "--out", str(bundled))
    lines = [ln for ln in result.stderr.splitlines() if ln.startswith("musaport: ") and "error" not in ln]
    assert any("precompiling the common prelude" in ln for ln in lines), result.stderr
    assert any(re.search(r"checking 5 translation units \(clang version [\d.]+\) \.\.\.$", ln) for ln in lines), \
        result.stderr
    assert "PASS" not in result.stderr and "FAIL" in result.stdout  # results stay on stdout


@pytest.mark.compiles
def test_quiet_validate_and_check_print_no_progress(bundled: Path, tmp_path: Path, clang) -> None:
    (bundled / ".musaport" / "validate" / "results.json").unlink(missing_ok=True)
    quiet = _musaport("validate", "--compile", "-q", "--out", str(bundled))
    assert quiet.returncode == 1
    assert [ln for ln in quiet.stderr.splitlines() if ln.startswith("musaport: ")] == []
    assert "of 5 passed" in quiet.stdout
    check = ["check", "--pytorch-src", str(FIXTURE_TREE), "--baseline", str(FIXTURE_TREE), "--out",
             str(tmp_path / "check")]
    loud = _musaport(*check)
    assert any(ln.startswith("musaport: porting") for ln in loud.stderr.splitlines()), loud.stderr
    silent = _musaport(*check, "-q")
    assert silent.returncode == loud.returncode
    assert [ln for ln in silent.stderr.splitlines() if ln.startswith("musaport: ")] == []


# --- the bundled tree compiles nothing, and says why -----------------------------------------------

@pytest.mark.compiles
def test_validate_compile_on_the_quick_start_says_the_tree_has_no_aten_headers(bundled: Path, clang) -> None:
    result = _musaport("validate", "--compile", "--out", str(bundled))
    assert result.returncode == 1
    assert "0 of 5 passed" in result.stdout
    note = next(ln for ln in result.stdout.splitlines() if "neither in the port nor in its source tree" in ln)
    assert "no headers in ATen/" in note and "bundled fixture tree" in note
    assert "--pytorch-src" in note


@pytest.mark.compiles
def test_the_missing_headers_note_comes_from_the_port_not_from_names(tmp_path: Path, clang) -> None:
    """A copy of the fixture tree is no longer 'the bundled tree', but still lacks ATen headers; given the
    headers, the note goes away for the files that found them."""
    import shutil

    src = tmp_path / "src"
    shutil.copytree(FIXTURE_TREE, src)
    out = tmp_path / "out"
    assert musaport("run", "--pytorch-src", str(src), "--out", str(out), "-q").returncode == 0
    result = _musaport("validate", "--compile", "--out", str(out), "-q")
    note = next(ln for ln in result.stdout.splitlines() if "neither in the port nor" in ln)
    assert "no headers in ATen/" in note and "bundled" not in note


def test_the_note_names_the_mode_that_has_a_builds_generated_headers(tmp_path: Path) -> None:
    """An extension compiled with --compile --torch PT_OUT misses the headers torchgen writes; the note
    points to validate --extension, which compiles against the wheel's headers."""
    import json

    from musaport.outdir import OutDir
    from musaport.validate.compile.compile import Outcome, missing_headers_note

    (tmp_path / "src").mkdir()
    out = tmp_path / "out"
    (out / "generated_cuda_compatible").mkdir(parents=True)
    (out / "porting_report.json").write_text(json.dumps({"source": str(tmp_path / "src"), "files": {}}))
    error = "torch/types.h:7:10: fatal error: 'torch/csrc/autograd/generated/variable_factories.h' file not found"
    note = missing_headers_note(OutDir(out), [Outcome("k.mu", False, "host", error)])
    assert note and "validate --extension --torch PT_OUT" in note
    other = error.replace("torch/csrc/autograd/generated/variable_factories.h", "mylib/config.h")
    assert "validate --extension" not in (missing_headers_note(OutDir(out), [Outcome("k.mu", False, "host", other)])
                                         or "")


# --- options mean one thing everywhere; help is whole ----------------------------------------------

def test_pack_lists_its_choices() -> None:
    packs = sorted(p.stem for p in (data_dir("rules") / "optional").glob("*.yaml"))
    for command in (["run"], ["rules", "list"], ["check"], ["diff"]):
        shown = _musaport(*command, "--help").stdout
        assert "[" + "|".join(packs) + "]" in re.sub(r"\s+", "", shown), command
    bad = _musaport("run", "--pack", "nope", "-q", "--out", "x")
    assert bad.returncode == 2
    assert bad.stderr == f"musaport: error: --pack: no optional pack 'nope' (known: {', '.join(packs)})\n"


def test_validate_samples_are_not_run_ops() -> None:
    """run --ops selects operators to register; validate --backend selects samples with --samples, and
    --ops (the OpInfo entries of --opinfo) given to --backend says so in one line."""
    help_text = _musaport("validate", "--help").stdout
    assert "--samples" in help_text and "--opinfo: the OpInfo entries" in help_text
    old = _musaport("validate", "--backend", "--ops", "abs", "--out", "nowhere")
    assert old.returncode == 2
    assert ("musaport: error: --ops, --pytorch-tests, --test-files, --test-timeout, --shard and --shard-timings "
            "go with --opinfo (--backend picks its samples with --samples)") in old.stderr


def test_every_command_that_shows_progress_takes_q() -> None:
    for command in (["run"], ["validate"], ["check"]):
        assert re.search(r"-q, --quiet", _musaport(*command, "--help").stdout), command


def test_validate_help_gives_the_default_pattern_and_the_required_mode() -> None:
    text = re.sub(r"\s+", " ", _musaport("validate", "--help").stdout).replace("--merge- reports", "--merge-reports")
    assert "exactly one of --compile, --run, --backend, --opinfo or --merge-reports" in text
    assert "default: *.mu" in text


def test_command_summaries_are_whole_sentences() -> None:
    listing = _musaport("--help").stdout
    commands = listing.split("Commands:", 1)[1].strip().splitlines()
    assert len(commands) >= 8
    for line in commands:
        assert not line.rstrip().endswith("..."), line
    groups = _musaport("rules", "--help").stdout.split("Commands:", 1)[1].strip().splitlines()
    for line in groups:
        assert not line.rstrip().endswith("..."), line
