"""``validate --opinfo --shard I/N``: the split of the test files and entries, and ``--merge-reports``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import musaport
from musaport.errors import LoadError
from musaport.outdir import VALIDATE_OPINFO_JSON, VALIDATE_OPINFO_MD
from musaport.validate.opinfo import tests as opinfo_tests
from musaport.validate.opinfo.pytest_plugin import in_shard
from musaport.validate.opinfo.shards import Unit, file_seconds, merge, owns_entry, parse_shard, plan


def test_long_files_are_split_and_everything_bin_packed_longest_first() -> None:
    """As PyTorch's calculate_shards: a file over 600 s in ceil(t / 600) parts, longest unit onto the
    least-loaded shard, files with no time round-robin after."""
    seconds = {"test_ops.py": 1500.0, "test_b.py": 500.0, "test_c.py": 400.0, "test_d.py": 100.0}
    shards = plan(["test_ops.py", "test_b.py", "test_c.py", "test_d.py", "test_new.py"], seconds, 2)
    assert shards == [
        [Unit("test_b.py", 0, 1, 500.0), Unit("test_ops.py", 1, 3, 500.0), Unit("test_c.py", 0, 1, 400.0),
         Unit("test_new.py")],
        [Unit("test_ops.py", 0, 3, 500.0), Unit("test_ops.py", 2, 3, 500.0), Unit("test_d.py", 0, 1, 100.0)],
    ]
    assert plan(["test_a.py"], {}, 3) == [[Unit("test_a.py")], [], []]


def test_the_parts_of_a_file_and_their_jobs_take_every_test_once() -> None:
    """Part p of P run as j pytest processes is hash shards p*j .. p*j+j-1 of P*j: together every id once."""
    ids = [f"test/test_ops.py::TestCommonMUSA::test_{i}_musa_float32" for i in range(500)]
    parts, jobs = 3, 2
    owners = [[(p, k) for p in range(parts) for k in range(jobs) if in_shard(f"{p * jobs + k}/{parts * jobs}")(i)]
              for i in ids]
    assert all(len(o) == 1 for o in owners)
    assert {o[0][0] for o in owners} == {0, 1, 2}


def test_run_test_files_runs_each_part_given_as_jobs_hash_shards(monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    ran: list[tuple[str, tuple[int, int]]] = []

    def fake(device, path, work, plugin_dir, timeout, log, test_timeout=None, tick=None, shard=(0, 1), name=""):
        ran.append((path.name, shard))
        return opinfo_tests.FileResult(path.name, passed=1, seconds=2.0, shard=shard[0])

    monkeypatch.setattr(opinfo_tests, "_run_file", fake)
    results = opinfo_tests.run_test_files(None, tmp_path, tmp_path / "work", ("test_ops.py", "test_b.py"),  # type: ignore[arg-type]
                                          log=lambda m: None, jobs=2,
                                          parts={"test_ops.py": [(0, 3), (2, 3)]})
    assert sorted(ran) == [("test_b.py", (0, 2)), ("test_b.py", (1, 2)), ("test_ops.py", (0, 6)),
                           ("test_ops.py", (1, 6)), ("test_ops.py", (4, 6)), ("test_ops.py", (5, 6))]
    assert [(r.name, r.passed, r.shards) for r in results] == [("test_ops.py", 4, 4), ("test_b.py", 2, 2)]


def test_shard_spec_and_previous_times() -> None:
    assert parse_shard("2/4") == (1, 4)
    for bad in ("0/4", "5/4", "2", "a/b", "-1/2"):
        with pytest.raises(LoadError, match="is not I/N"):
            parse_shard(bad)
    report = {"test_files": {"test_ops.py": {"seconds": 900.0, "shards": 2}, "test_b.py": {"seconds": 10},
                             "test_gone.py": {"ran": False, "seconds": 0.0}}}
    assert file_seconds(report) == {"test_ops.py": 1800.0, "test_b.py": 10.0}
    keys = [f"entry{i}" for i in range(40)]
    assert sorted(k for s in range(3) for k in keys if owns_entry(k, (s, 3))) == sorted(keys)


def _doc(shard: str, ops: dict, files: dict, causes: list) -> dict:
    return {"torch_version": "2.6.0", "device": "musa", "summary": {}, "figures": {"seconds": 10.0, "shard": shard},
            "ops": ops, "causes": causes, "test_files": files}


def _op(status: str) -> dict:
    return {"status": status, "reason": "", "dtypes": {"float32": {"status": status, "samples": 3, "failed": 0}},
            "files": [], "operators": []}


SHARD_1 = _doc("1/2", {"abs": _op("pass"), "sin": _op("fail")},
               {"test_ops.py": {"passed": 5, "failed": 1, "skipped": 2, "errors": 0, "seconds": 100.0,
                                "timeout": False, "ran": True, "shards": 2,
                                "causes": [{"error": "boom", "tests": 1, "example": "t1"}],
                                "cuda_branch": 2, "cuda_branches": [{"branch": "t.py:9: if cuda", "tests": 2,
                                                                     "example": "t3"}]}},
               [{"kind": "fail", "summary": "wrong", "entries": ["sin"], "operators": ["sin"], "kernels": [],
                 "files": ["a.mu"], "rules": {}, "line_rules": {}, "first_error": "x"}])
SHARD_2 = _doc("2/2", {"add": _op("pass"), "cos": _op("fail")},
               {"test_ops.py": {"passed": 7, "failed": 2, "skipped": 0, "errors": 0, "seconds": 140.0,
                                "timeout": False, "ran": True, "shards": 2,
                                "causes": [{"error": "boom", "tests": 2, "example": "t9"}],
                                "cuda_branch": 1, "cuda_branches": [{"branch": "t.py:9: if cuda", "tests": 1,
                                                                     "example": "t8"}],
                                "cpu_too": 1, "cpu_too_causes": [{"error": "main", "tests": 1, "example": "t7"}]},
                "test_b.py": {"passed": 3, "failed": 0, "skipped": 0, "errors": 0, "seconds": 5.0,
                              "timeout": False, "ran": True}},
               [{"kind": "fail", "summary": "wrong", "entries": ["cos"], "operators": ["cos"], "kernels": [],
                 "files": ["a.mu"], "rules": {}, "line_rules": {}, "first_error": "y"}])


def test_merge_sums_a_split_file_and_joins_entries_and_causes() -> None:
    merged = merge([SHARD_2, SHARD_1])
    assert list(merged["ops"]) == ["abs", "add", "cos", "sin"]
    assert merged["summary"]["pass"] == 2 and merged["summary"]["fail"] == 2 and merged["summary"]["ran"] == 4
    ops = merged["test_files"]["test_ops.py"]
    assert (ops["passed"], ops["failed"], ops["skipped"], ops["seconds"], ops["shards"]) == (12, 3, 2, 140.0, 4)
    assert ops["causes"] == [{"error": "boom", "tests": 3, "example": "t1"}]
    assert (ops["cuda_branch"], ops["cpu_too"]) == (3, 1)
    assert ops["cuda_branches"] == [{"branch": "t.py:9: if cuda", "tests": 3, "example": "t3"}]
    assert ops["cpu_too_causes"] == [{"error": "main", "tests": 1, "example": "t7"}]
    assert merged["test_files"]["test_b.py"]["passed"] == 3
    assert [(c["entries"], c["operators"]) for c in merged["causes"]] == [(["cos", "sin"], ["sin", "cos"])]


def test_merge_reports_command_writes_one_report(tmp_path: Path) -> None:
    for name, doc in (("a", SHARD_1), ("b", SHARD_2)):
        (tmp_path / name).mkdir()
        (tmp_path / name / VALIDATE_OPINFO_JSON).write_text(json.dumps(doc))
    result = musaport("validate", "--merge-reports", "--out", str(tmp_path / "m"), str(tmp_path / "a"),
                      str(tmp_path / "b"))
    assert result.returncode == 1, result.stderr  # sin, cos and a test file failed
    assert "2 shards merged: 2 of 4 OpInfo entries that ran pass; test files without a failure: 1 of 2" in result.stdout
    merged = json.loads((tmp_path / "m" / VALIDATE_OPINFO_JSON).read_text())
    assert merged["test_files"]["test_ops.py"]["passed"] == 12
    assert (tmp_path / "m" / VALIDATE_OPINFO_MD).is_file()


@pytest.mark.parametrize("given, error", [
    (["a"], "the shards do not make one run: missing 2/2"),
    (["a", "a2"], "shard 1/2 is also"),
    (["nothing"], "no such report"),
    (["bad"], "not a validate_opinfo_report.json report"),
])
def test_merge_reports_refuses_what_is_not_one_run(tmp_path: Path, given: list[str], error: str) -> None:
    for name, text in (("a", json.dumps(SHARD_1)), ("a2", json.dumps(SHARD_1)), ("bad", "{")):
        (tmp_path / name).mkdir()
        (tmp_path / name / VALIDATE_OPINFO_JSON).write_text(text)
    result = musaport("validate", "--merge-reports", "--out", str(tmp_path / "m"),
                      *(str(tmp_path / g) for g in given))
    assert result.returncode == 2 and "musaport: error: " in result.stderr and error in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "m").exists()
