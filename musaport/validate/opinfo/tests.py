"""``validate --opinfo --pytorch-tests``: PyTorch's own device-generic test files on the ported device.

Each file of the tree's ``test/`` folder runs through pytest in the torch
environment, under ``nice``, with
``PYTORCH_TESTING_DEVICE_ONLY_FOR=privateuse1``: the device-generic tests are
instantiated for ``PrivateUse1TestBase`` only. The device is registered by
a plugin of ours (``pytest_plugin.py``) that pytest imports with
``-p`` before any test module. The tree's own ``conftest.py`` and
``pytest.ini`` are not used (they need PyTorch's CI plugins); ours keeps
their options that change outcomes (native tracebacks, ``--capture=sys``, no
assertion rewriting). Nothing is written into the tree (no cache, no
bytecode). A file runs to its end, however long that takes (test_ops.py's
33,000 tests take hours on the emulated device), with its progress in tests
done of tests collected; given a file timeout, a file that runs past it is
killed and reported with the counts it reached and ``"timeout": true``, and the
next run of the same build goes on where it stopped.

Tests run in pytest's own process, each with a timeout (pytest-timeout), and
a test that kills that process (a segfault, an abort, a kernel that never
returns) counts as failed; pytest then starts again with the tests already
done deselected, as PyTorch's own CI resumes a file after a crash.  A new
start costs a collection of the file (test_ops.py's 33,392 tests: 15 s
alone, 134 s on 2 cores with a build beside it), and crashes come in
families (one operator in every dtype), so after a death the dead test's siblings (the same test in
the other dtypes) run forked (pytest-forked), where a crash costs only that
test.  Forking every test instead costs about 0.2 s a test in a process of
torch's size, more than the collections it saves when deaths are rare.

With ``jobs`` above one, each file runs as that many shards, each its own
pytest process taking the tests whose id hashes to it (the collection order
of a device-generic file is not stable across processes, its ids are): one
long file (test_ops.py) then uses every slot instead of one, and its counts
are the sum of its shards'.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import threading
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from musaport import children
from musaport.jsonfile import load_json
from musaport.outdir import TEST_DIED, TEST_DONE, TEST_JUNIT, TEST_LOG, TEST_OUTCOMES, TEST_STATE, write_atomic
from musaport.validate.opinfo import cpu_twins, libtorch_checks
from musaport.validate.opinfo.differential import Device
from musaport.validate.opinfo.verdict import without_numbers

PLUGIN = Path(__file__).with_name("pytest_plugin.py")
PLUGIN_MODULE = "musaport_device_plugin"
TEST_FILES = ("test_ops.py", "test_unary_ufuncs.py", "test_binary_ufuncs.py", "test_reductions.py",
              "test_sort_and_select.py", "test_indexing.py", "test_shape_ops.py", "test_tensor_creation_ops.py",
              "test_view_ops.py")
# The core files of the release's test/ folder (--test-files core): the device-generic suite an
# out-of-tree backend is asked to pass (RFC-0050's level 3; PyTorch's OpenReg runs such an allowlist).
CORE_FILES = ("test_ops.py", "test_ops_gradients.py", "test_ops_fwd_gradients.py", "test_torch.py", "test_nn.py",
              "test_modules.py", "test_autograd.py", "test_optim.py", "test_transformers.py",
              "nn/test_convolution.py", "nn/test_pooling.py", "nn/test_embedding.py", "nn/test_dropout.py",
              "nn/test_multihead_attention.py", "test_binary_ufuncs.py", "test_unary_ufuncs.py",
              "test_reductions.py", "test_indexing.py", "test_scatter_gather_ops.py", "test_shape_ops.py",
              "test_view_ops.py", "test_sort_and_select.py", "test_tensor_creation_ops.py",
              "test_type_promotion.py", "test_complex.py", "test_masked.py", "test_segment_reductions.py",
              "test_spectral_ops.py", "test_serialization.py", "test_foreach.py")
# Names --test-files takes for a list of files (a name in the list may be given too, as a file).
FILE_LISTS = {"default": TEST_FILES, "core": CORE_FILES}


def expand_file_lists(names: tuple[str, ...]) -> tuple[str, ...]:
    """``--test-files``' names with each list name (``core``, ``default``) replaced by its files, in
    order, each file once."""
    files = [f for n in names for f in FILE_LISTS.get(n, (n,))]
    return tuple(dict.fromkeys(files))


FILE_TIMEOUT: float | None = None  # a file runs to its end; --test-timeout bounds it
POLL_SECONDS = 5.0  # how often a running file's outcome lines are counted for its progress
TEST_TIMEOUT = 300.0  # one test; a kernel that never returns fails that test, and the file resumes after it
PYTEST_INI = """[pytest]
addopts = --tb=native --capture=sys -p no:warnings -p no:cacheprovider --assert=plain
xfail_strict = True
timeout_func_only = true
timeout_method = thread
markers =
    serial: marks tests as needs to be run serially
"""
COUNTS = ("passed", "failed", "skipped", "errors")


@dataclass(frozen=True)
class FileResult:
    name: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    errors: int = 0
    seconds: float = 0.0
    timeout: bool = False
    ran: bool = True  # False: pytest did not get to run the file (it does not exist, it cannot import)
    note: str = ""
    first_failures: tuple[str, ...] = ()
    died: int = 0  # tests whose process died (counted in failed): a crash, an abort, their own timeout
    shard: int = 0  # which shard of the file this is (a shard's result, before merge_shards)
    shards: int = 1  # the pytest processes the file's tests were spread over
    causes: tuple[tuple[str, int, str], ...] = ()  # (first line without its numbers, tests, one of them)
    # Failed tests whose own code branches on CUDA (the plugin's cuda_branch): not counted in failed.
    cuda_branch: int = 0
    cuda_branches: tuple[tuple[str, int, str], ...] = ()  # (the branch's file:line: text, tests, one of them)
    skip_reasons: tuple[tuple[str, int, str], ...] = ()  # (a skip's reason without its numbers, tests, one)
    # Failed tests whose CPU twin fails the same way in torch without the device (:func:`on_cpu_too`): not
    # the port's, not counted in failed either.
    cpu_too: int = 0
    cpu_too_causes: tuple[tuple[str, int, str], ...] = ()  # (the first line both share, tests, one of them)

    def as_json(self) -> dict:
        doc = {k: getattr(self, k) for k in COUNTS}
        doc.update(seconds=self.seconds, timeout=self.timeout, ran=self.ran)
        if self.died:
            doc["died"] = self.died
        if self.shards > 1:
            doc["shards"] = self.shards
        if self.note:
            doc["note"] = self.note
        if self.first_failures:
            doc["first_failures"] = list(self.first_failures)
        if self.causes:
            doc["causes"] = [{"error": e, "tests": n, "example": t} for e, n, t in self.causes]
        if self.cuda_branch:
            doc["cuda_branch"] = self.cuda_branch
            doc["cuda_branches"] = [{"branch": b, "tests": n, "example": t} for b, n, t in self.cuda_branches]
        if self.cpu_too:
            doc["cpu_too"] = self.cpu_too
            doc["cpu_too_causes"] = [{"error": e, "tests": n, "example": t} for e, n, t in self.cpu_too_causes]
        if self.skip_reasons:
            doc["skip_reasons"] = [{"reason": r, "tests": n, "example": t} for r, n, t in self.skip_reasons]
        return doc


def device_filter(device: Device) -> str:
    """What PYTORCH_TESTING_DEVICE_ONLY_FOR names: a backend registered as PrivateUse1 is 'privateuse1'."""
    return device.name if device.name in ("cpu", "cuda", "meta", "mps", "xpu") else "privateuse1"


def junit_counts(path: Path) -> dict[str, int] | None:
    """passed/failed/skipped/errors of a junit xml (None when it is missing or unreadable)."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    total = {"tests": 0, "failures": 0, "skipped": 0, "errors": 0}
    for s in suites:
        for k in total:
            total[k] += int(s.get(k, 0) or 0)
    passed = total["tests"] - total["failures"] - total["skipped"] - total["errors"]
    return {"passed": max(0, passed), "failed": total["failures"], "skipped": total["skipped"],
            "errors": total["errors"]}


def outcome_counts(path: Path) -> tuple[dict[str, int], list[str]]:
    """The counts of the plugin's outcome lines (a killed file's partial counts) and the first failures."""
    counts = dict.fromkeys(COUNTS, 0)
    first: list[str] = []
    for row in _rows(path):
        if row.get("outcome") in counts:
            counts[row["outcome"]] += 1
            if row["outcome"] in ("failed", "errors") and len(first) < 5:
                first.append(f"{row['test']}: {row.get('first', '')}")
    return counts, first


def run_test_files(device: Device, tree: Path, work: Path, files: tuple[str, ...] = TEST_FILES,
                   timeout: float | None = FILE_TIMEOUT, progress: Callable[[int, int, str], None] | None = None,
                   log=print, jobs: int = 1, test_timeout: float | None = TEST_TIMEOUT,
                   tests_progress: Callable[[str, int, int], None] | None = None,
                   parts: dict[str, list[tuple[int, int]]] | None = None) -> list[FileResult]:
    """Run each test file as ``jobs`` shards, up to ``jobs`` pytest processes at once; per file its counts
    (junit xml when pytest finished, else the outcome lines), in the order of ``files``.
    ``timeout``: each shard's (None: none); ``test_timeout``: each test's (None: none), a test past it
    kills pytest and is resumed after; ``tests_progress(file, done, total)``: a running file's tests.
    ``parts``: per file, the parts (part, of how many) of it to run (``--shard``: a long file is split
    across machines; default: the whole file), each as ``jobs`` shards of its own."""
    work.mkdir(parents=True, exist_ok=True)
    plugin_dir = work / "plugin"
    plugin_dir.mkdir(exist_ok=True)
    shutil.copyfile(PLUGIN, plugin_dir / f"{PLUGIN_MODULE}.py")
    (work / "pytest.ini").write_text(PYTEST_INI, encoding="utf-8")
    shards = max(1, jobs)
    lock = threading.Lock()
    tasks = [(name, part * shards + k, of * shards) for name in files
             for part, of in (parts or {}).get(name, [(0, 1)]) for k in range(shards)]
    expected = {name: sum(1 for t in tasks if t[0] == name) for name in files}
    slots = {(name, index): i for name in files for i, (_, index, _) in
             enumerate(t for t in tasks if t[0] == name)}
    done_parts: dict[str, list[FileResult]] = {name: [] for name in files}
    ticks: dict[str, list[tuple[int, int]]] = {name: [(0, 0)] * expected[name] for name in files}

    def tick(name: str, shard: int, done: int, total: int) -> None:
        with lock:
            ticks[name][slots[(name, shard)]] = (done, total)
            done, total = (sum(col) for col in zip(*ticks[name]))
        if tests_progress:
            tests_progress(name, done, total)

    def one(task: tuple[str, int, int]) -> None:
        name, shard, count = task
        result = _run_file(device, tree / "test" / name, work, plugin_dir, timeout, log, test_timeout,
                           (lambda d, t: tick(name, shard, d, t)) if tests_progress else None, (shard, count), name)
        with lock:
            done_parts[name].append(result)
            if len(done_parts[name]) < expected[name]:
                return
            merged = merge_shards(done_parts[name])
            finished = sum(len(p) == expected[n] for n, p in done_parts.items())
        if progress:
            progress(finished, len(files), f"{name}: {merged.passed} passed, {merged.failed} failed"
                     + (" (timeout)" if merged.timeout else ""))

    if progress:
        progress(0, len(files), f"{files[0]}: running" if files else "no files")
    with ThreadPoolExecutor(max(1, min(jobs, len(tasks) or 1))) as pool:
        list(pool.map(one, tasks))
    return [merge_shards(done_parts[name]) for name in files]


def failure_causes(rows: list[dict]) -> tuple[tuple[str, int, str], ...]:
    """A file's failed tests grouped by their first error line without its numbers (as the OpInfo
    causes are), the group of most tests first: (that line, tests, the first test of the group).
    Tests that branch on CUDA are grouped apart (:func:`cuda_branches`)."""
    return _ranked((without_numbers(str(row.get("first", "")) or "no error line"), 1, str(row.get("test", "")))
                   for row in rows if row.get("outcome") in ("failed", "errors")
                   and not row.get("cuda_branch") and not row.get("cpu_too"))


def cuda_branches(rows: list[dict]) -> tuple[tuple[str, int, str], ...]:
    """Failed tests whose own code checks for a CUDA device, grouped by that line (file:line: text): the
    device runs CUDA's kernels, and such a test's CUDA branch (a skip, another dtype list) does not fire
    for a PrivateUse1 device.  Counted apart from the port's failures; each group's example is a test with
    its error line, for a person to judge whether the branch or the port made it fail."""
    return _ranked((str(row["cuda_branch"]), 1, f"{row.get('test', '')}: {str(row.get('first', ''))[:150]}")
                   for row in rows if row.get("outcome") == "failed" and row.get("cuda_branch"))


def libtorch_branches(rows: list[dict], tree: Path | None) -> list[dict]:
    """The failed tests that the release's own libtorch refused on the device (a check of its non-CUDA
    sources that admits CUDA, ``libtorch_checks``) marked as CUDA branches, at that check's line: the port
    never ran for them, and every PrivateUse1 backend of the release meets the same check."""
    if tree is None:
        return rows
    marked = []
    for row in rows:
        if row.get("outcome") == "failed" and not row.get("cuda_branch"):
            check = libtorch_checks.check_of(str(row.get("first", "")), tree)
            if check is not None:
                row = dict(row, cuda_branch=f"libtorch {check.where}: TORCH_CHECK({check.condition[:120]}")
        marked.append(row)
    return marked


TWIN_TIMEOUT = 900.0  # all CPU twins of one shard; past it, the failures whose twin did not finish stay failures


def on_cpu_too(rows: list[dict], device: Device, path: Path, stem: Path, plugin_dir: Path,
               test_timeout: float | None, log) -> tuple[list[dict], str]:
    """``rows`` with the failures whose CPU twin fails the same way in torch without the device marked
    ``cpu_too`` (:mod:`cpu_twins`), and a note for the report when not every failure got its twin.
    One pytest process, at most :data:`TWIN_TIMEOUT`; its files sit beside the shard's (``stem``)."""
    chosen = cpu_twins.candidates(rows)
    if not chosen:
        return rows, ""
    outcomes, output = stem.with_name(stem.name + ".cpu" + TEST_OUTCOMES), stem.with_name(stem.name + ".cpu" + TEST_LOG)
    outcomes.unlink(missing_ok=True)
    ids = sorted({cpu_twins.twin(str(r["test"]), device.name) for r in chosen})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTORCH_TESTING", "PYTEST_", "MUSAPORT_"))}
    env.update(PYTORCH_TESTING_DEVICE_ONLY_FOR="cpu", PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=str(plugin_dir),
               MUSAPORT_TEST_OUTCOMES=str(outcomes), OMP_NUM_THREADS="1")
    cmd = ["nice", "-n", "10", str(device.python), "-B", "-m", "pytest", *(f"{path}{t}" for t in ids),
           "-c", str(plugin_dir.parent / "pytest.ini"), "--rootdir", str(plugin_dir.parent), "--noconftest",
           "-p", PLUGIN_MODULE, "-q"] + ([f"--timeout={test_timeout:g}"] if test_timeout is not None else [])
    log(f"opinfo: {path.name}: {len(ids)} failed test(s) once more on torch's CPU, without the device")
    with open(output, "w", encoding="utf-8") as sink:
        _, timed_out = _attempt(cmd, plugin_dir.parent, sink, env, TWIN_TIMEOUT)
    twins = {str(r["test"]): r for r in _rows(outcomes) if "outcome" in r}
    left = len(cpu_twins.eligible(rows)) > len(chosen)
    missing = sum(1 for t in ids if t not in twins)
    notes = []
    if missing:
        notes.append(f"{missing} CPU twin{'s' * (missing != 1)} of failed tests did not finish"
                     + (f" in {TWIN_TIMEOUT:.0f} s" if timed_out else "") + "; those failures stay counted as failed")
    if left:
        notes.append(f"only the first {cpu_twins.MAX_TWINS} failures (by id) were rerun on the CPU")
    return cpu_twins.mark(rows, twins, device.name), "; ".join(notes)


def cpu_too_groups(rows: list[dict]) -> tuple[tuple[str, int, str], ...]:
    """The failed tests whose CPU twin fails the same way, by that first line (numbers aside), most first."""
    return _ranked((without_numbers(str(row.get("first", ""))), 1, f"{row.get('test', '')} (CPU: {row['cpu_too']})")
                   for row in rows if row.get("outcome") == "failed" and row.get("cpu_too"))


def _release_tree(path: Path, name: str) -> Path | None:
    """The release's source tree a test file (``TREE/test/NAME``) belongs to, when it has libtorch's sources."""
    parts = len(Path(name or path.name).parts) + 1
    tree = path.parents[parts - 1] if len(path.parents) >= parts else None
    return tree if tree is not None and (tree / "aten/src/ATen").is_dir() else None


def skip_reasons(rows: list[dict]) -> tuple[tuple[str, int, str], ...]:
    """Skipped tests grouped by their reason without its numbers, the reason of most tests first."""
    return _ranked((without_numbers(str(row.get("reason", ""))) or "no reason given", 1, str(row.get("test", "")))
                   for row in rows if row.get("outcome") == "skipped")


def _ranked(groups) -> tuple[tuple[str, int, str], ...]:
    """(line, tests, first test) triples with their counts added up by line, the line of most tests first."""
    merged: dict[str, list] = {}
    for error, n, test in groups:
        merged.setdefault(error, [0, test])[0] += n
    return tuple(sorted(((e, n, t) for e, (n, t) in merged.items()), key=lambda c: (-c[1], c[0])))


def merge_shards(parts: list[FileResult]) -> FileResult:
    """One file's result from its shards': counts summed, its time the slowest shard's (they run side
    by side), each shard's note prefixed with its number."""
    if len(parts) == 1:
        return parts[0]
    parts = sorted(parts, key=lambda p: p.shard)
    first = parts[0]
    if not any(p.ran for p in parts):
        return replace(first, shard=0)
    counts = {k: sum(getattr(p, k) for p in parts) for k in (*COUNTS, "died", "cuda_branch", "cpu_too")}
    notes = [f"shard {i + 1} of {len(parts)}: {p.note}" for i, p in enumerate(parts) if p.note]
    failures = tuple(f for p in parts for f in p.first_failures)[:5]
    return FileResult(first.name, **counts, seconds=max(p.seconds for p in parts),
                      timeout=any(p.timeout for p in parts), ran=True, note="; ".join(notes),
                      first_failures=failures, shards=len(parts), causes=_ranked(c for p in parts for c in p.causes),
                      cuda_branches=_ranked(c for p in parts for c in p.cuda_branches),
                      cpu_too_causes=_ranked(c for p in parts for c in p.cpu_too_causes),
                      skip_reasons=_ranked(c for p in parts for c in p.skip_reasons))


MAX_RESUMES = 500  # a file whose tests keep killing pytest is resumed at most this often


def _run_file(device: Device, path: Path, work: Path, plugin_dir: Path, timeout: float | None, log,
              test_timeout: float | None = TEST_TIMEOUT, tick: Callable[[int, int], None] | None = None,
              shard: tuple[int, int] = (0, 1), name: str = "") -> FileResult:
    """One shard of a test file (``shard``: which, of how many) through pytest, to its end: a test whose
    process dies (a segfault, an abort in a kernel, its own timeout) counts as failed ("the process
    died"); should that process be pytest's own, pytest resumes after it, the tests already done
    deselected, until the shard ends or ``timeout`` (for all attempts; None: none) runs out.
    ``tick(done, total)``: the shard's tests, every few seconds; ``name``: the file as given, relative
    to test/ (``nn/test_pooling.py``; default: its name)."""
    name = name or path.name
    if not path.is_file():
        return FileResult(name, ran=False, note=f"{path} does not exist", shard=shard[0])
    index, count = shard
    stem = name.removesuffix(".py").replace("/", "_") + (f".{index + 1}of{count}" if count > 1 else "")
    label = name + (f" (shard {index + 1} of {count})" if count > 1 else "")
    xml, outcomes, output = work / f"{stem}{TEST_JUNIT}", work / f"{stem}{TEST_OUTCOMES}", work / f"{stem}{TEST_LOG}"
    done_file, died_file, state = work / f"{stem}{TEST_DONE}", work / f"{stem}{TEST_DIED}", work / f"{stem}{TEST_STATE}"
    key = _resume_key(device, path, shard)
    carried = _carried_over(state, key, outcomes)
    for p in (xml, done_file, died_file, state) + (() if carried else (outcomes,)):
        p.unlink(missing_ok=True)
    # Unfinished until it ends: a run killed or interrupted on the way (Ctrl-C, a lost machine) is carried
    # over by the next run of the same build, as one stopped at its timeout is.
    write_atomic(state, json.dumps({"key": key, "finished": False}).encode())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTORCH_TESTING", "PYTEST_"))}
    env.update(PYTORCH_TESTING_DEVICE_ONLY_FOR=device_filter(device), PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=str(plugin_dir), MUSAPORT_TEST_OUTCOMES=str(outcomes), OMP_NUM_THREADS="1")
    if count > 1:
        env["MUSAPORT_TEST_SHARD"] = f"{index}/{count}"
    if device.loader is not None:
        env["MUSAPORT_DEVICE_LOADER"] = str(device.loader)
    if device.library is not None:
        env["MUSAPORT_DEVICE_LIBRARY"] = str(device.library)
    cmd = ["nice", "-n", "10", str(device.python), "-B", "-m", "pytest", str(path), "-c", str(work / "pytest.ini"),
           "--rootdir", str(work), "--noconftest", "-p", PLUGIN_MODULE, f"--junitxml={xml}", "-q"]
    if test_timeout is not None:
        cmd.append(f"--timeout={test_timeout:g}")
    env["MUSAPORT_DEVICE_NAME"] = device.name
    died: list[str] = []
    before = 0
    if carried:
        died = _killed_pytest(outcomes)
        before = _write_done(outcomes, done_file)
        env["MUSAPORT_TEST_DONE"] = str(done_file)
        if died:
            died_file.write_text("".join(f"{t}\n" for t in died), encoding="utf-8")
            env["MUSAPORT_TEST_DIED"] = str(died_file)
    log(f"opinfo: {label}: pytest on '{device.name}'" + (f" (timeout {timeout:.0f} s)" if timeout else "")
        + (f", going on after the {before} tests an earlier run of this build did" if carried else ""))
    started = time.monotonic()
    timed_out, code = False, 0
    with open(output, "a" if carried else "w", encoding="utf-8") as sink:
        tally = Tally(outcomes, tick)
        for _ in range(MAX_RESUMES + 1):
            left = None if timeout is None else timeout - (time.monotonic() - started)
            if left is not None and left <= 0:
                timed_out = True
                break
            xml.unlink(missing_ok=True)
            mark = sink.tell()
            code, timed_out = _attempt(cmd, work, sink, env, left, tally)
            if timed_out or (code in (0, 1, 5) and xml.is_file()):
                break  # the file ended (5: nothing left to run), or its time did
            victim = _died_in(outcomes)
            if victim is not None:
                died.append(victim)
                past = test_timeout is not None and _timed_out_since(output, mark)
                why = (f"the test ran past its {test_timeout:g} s timeout" if past
                       else f"the process died in this test ({_signal_name(code)})")
                with open(outcomes, "a", encoding="utf-8") as f:
                    f.write(json.dumps({"test": victim, "outcome": "failed", "first": why}) + "\n")
                died_file.write_text("".join(f"{t}\n" for t in died), encoding="utf-8")
                env["MUSAPORT_TEST_DIED"] = str(died_file)
            finished = _write_done(outcomes, done_file)
            if victim is None and finished == before:
                break  # died outside any test (import, collection) with no progress: nothing to skip past
            before = finished
            env["MUSAPORT_TEST_DONE"] = str(done_file)
            sink.write(f"\nmusaport: {victim} killed pytest ({_signal_name(code)}); resuming after it\n")
            sink.flush()
    seconds = round(time.monotonic() - started, 1)
    write_atomic(state, json.dumps({"key": key, "finished": not timed_out}).encode())
    partial, first = outcome_counts(outcomes)
    forked_deaths = [row["test"] for row in _rows(outcomes) if row.get("died")]
    counts = junit_counts(xml) if not timed_out and not died and not carried else None
    notes = []
    if carried:
        notes.append(f"went on after the {carried} tests that earlier runs of this build did (their counts included)")
    if forked_deaths:
        n = len(forked_deaths)
        notes.append(f"{n} test{'s' * (n != 1)} died in {'their' if n != 1 else 'its'} own forked process "
                     f"and counted as failed (first: {forked_deaths[0]})")
    if died:
        notes.append(f"{len(died)} test{'s' * (len(died) != 1)} killed pytest and counted as failed; "
                     f"it resumed after each (first: {died[0]})")
    if timed_out:
        notes.append(f"stopped at the {timeout or 0:.0f} s timeout: the counts are what ran until then")
    elif counts is None and not ((died or carried) and code in (0, 1, 5)):
        notes.append(f"pytest exited {code} without a junit xml: {_last_line(output)}")
    elif code not in (0, 1, 5):
        notes.append(f"pytest exited {code}: {_last_line(output)}")
    ran = counts is not None or any(partial.values())
    rows = libtorch_branches(_rows(outcomes), _release_tree(path, name))
    if device.loader is not None and not timed_out:
        rows, note = on_cpu_too(rows, device, path, work / f"{stem}", plugin_dir, test_timeout, log)
        notes += [note] if note else []
    branches, twins = cuda_branches(rows), cpu_too_groups(rows)
    apart, cpu_too = sum(n for _, n, _ in branches), sum(n for _, n, _ in twins)
    counts = dict(counts or partial)
    # counted apart: the test's CUDA branch, or a failure torch's own CPU has too; neither is the port's
    counts["failed"] = max(0, counts["failed"] - apart - cpu_too)
    return FileResult(name, **counts, seconds=seconds, timeout=timed_out, ran=ran,
                      note="; ".join(notes), first_failures=tuple(first), died=len(died) + len(forked_deaths),
                      shard=index, causes=failure_causes(rows), cuda_branch=apart, cuda_branches=branches,
                      skip_reasons=skip_reasons(rows), cpu_too=cpu_too, cpu_too_causes=twins)


def _attempt(cmd: list[str], work: Path, sink, env: dict[str, str], timeout: float | None,
             tally: "Tally | None" = None) -> tuple[int, bool]:
    """One pytest run; its exit code and whether it was stopped at ``timeout`` (None: none). While it
    runs, ``tally`` counts its outcome lines every few seconds."""
    proc = children.popen(cmd, cwd=work, stdout=sink, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        wait = POLL_SECONDS if deadline is None else min(POLL_SECONDS, max(0.0, deadline - time.monotonic()))
        try:
            code = proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            if deadline is not None and time.monotonic() >= deadline:
                os.killpg(proc.pid, signal.SIGKILL)
                return proc.wait(), True
            if tally is not None:
                tally.poll()
            continue
        if tally is not None:
            tally.poll()
        return code, False


class Tally:
    """Follows a file's outcome lines as pytest writes them (reading only what is new): the tests done,
    of those done before plus those the plugin says it collected, for ``tick(done, total)``."""

    def __init__(self, outcomes: Path, tick: Callable[[int, int], None] | None) -> None:
        self.outcomes, self.tick = outcomes, tick
        self.offset, self.done, self.total = 0, set(), 0
        self.poll()

    def poll(self) -> None:
        if self.tick is None:
            return
        try:
            with open(self.outcomes, "rb") as f:
                f.seek(self.offset)
                chunk = f.read()
        except OSError:
            return
        complete = chunk[: chunk.rfind(b"\n") + 1]  # a line still being written waits for the next poll
        self.offset += len(complete)
        for line in complete.splitlines():
            row = _row(line)
            if row is None:
                continue
            if "collected" in row:  # an attempt's collection: what it will run, after what is done
                self.total = len(self.done) + int(row["collected"])
            elif "outcome" in row and "test" in row:
                self.done.add(row["test"])
        self.tick(len(self.done), max(self.total, len(self.done)))


def _resume_key(device: Device, path: Path, shard: tuple[int, int] = (0, 1)) -> str:
    """What a shard's outcomes hold for: the device library, the test file and the runner, by content,
    and which shard of how many."""
    digest = hashlib.sha256()
    for part in (device.library, path, PLUGIN):
        if part is not None and Path(part).is_file():
            digest.update(hashlib.sha256(Path(part).read_bytes()).digest())
    digest.update(f"{device.python}\0{device.name}\0{PYTEST_INI}\0{shard[0]}/{shard[1]}".encode())
    return digest.hexdigest()


def _carried_over(state: Path, key: str, outcomes: Path) -> int:
    """The tests an earlier run finished when it stopped (at its timeout, or killed) with this same build
    (0: start afresh), so running the command again takes a long file further instead of from its start."""
    earlier = load_json(state, {"key": str, "finished": bool})
    if earlier is None or earlier["key"] != key or earlier["finished"]:
        return 0
    return len({r["test"] for r in _rows(outcomes) if "outcome" in r and "test" in r})


def _killed_pytest(outcomes: Path) -> list[str]:
    """The tests recorded as having killed pytest (the runner's own lines, not a forked test's)."""
    return [r["test"] for r in _rows(outcomes) if r.get("outcome") == "failed" and not r.get("died")
            and str(r.get("first", "")).startswith(("the process died in this test", "the test ran past its"))]


def _timed_out_since(output: Path, offset: int) -> bool:
    """pytest-timeout's banner in the log after ``offset``: the attempt ended at a test's timeout."""
    try:
        with open(output, "rb") as f:
            f.seek(offset)
            return b"+ Timeout +" in f.read()
    except OSError:
        return False


def _died_in(outcomes: Path) -> str | None:
    """The test that started last and has no outcome: the one the process died in."""
    last, finished = None, set()
    for row in _rows(outcomes):
        if row.get("start"):
            last = row.get("test")
        elif "outcome" in row:
            finished.add(row.get("test"))
    return last if last is not None and last not in finished else None


def _write_done(outcomes: Path, done_file: Path) -> int:
    """The tests with an outcome, one per line, for the plugin to deselect; how many."""
    tests = sorted({str(row["test"]) for row in _rows(outcomes) if "test" in row and "outcome" in row})
    done_file.write_text("".join(f"{t}\n" for t in tests), encoding="utf-8")
    return len(tests)


def _rows(outcomes: Path) -> list[dict]:
    """The plugin's lines (starts and outcomes) as dicts; none when the file is missing."""
    try:
        lines = outcomes.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    return [row for row in map(_row, lines) if row is not None]


def _row(line: str | bytes) -> dict | None:
    """One line of the plugin's as a dict; None for a line cut by a kill (or damaged: too deep, not an object)."""
    try:
        row = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return row if isinstance(row, dict) else None


def _signal_name(code: int) -> str:
    return children.signal_name(-code) if code < 0 else f"exit {code}"


def _last_line(path: Path) -> str:
    try:
        lines = [ln.strip() for ln in path.read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return lines[-1][:300] if lines else "no output"
