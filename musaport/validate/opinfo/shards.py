"""``--shard I/N``: one of N machines' part of ``validate --opinfo``, and the merge of the N reports.

The test files are split as PyTorch's CI splits them (``tools/testing/test_selections.py``,
which ``run_test.py`` uses): a file whose previous run took more than ``THRESHOLD`` seconds is
cut into ``ceil(seconds / THRESHOLD)`` parts, each taking the tests whose id hashes to it (the
plugin's ``MUSAPORT_TEST_SHARD``: a device-generic file's collection order is not stable across
processes, its ids are); the parts and the whole files are then bin-packed, longest first, each
onto the shard with the least time so far; files with no previous time go round-robin after.
The previous run's times come from a ``validate_opinfo_report.json`` (``--shard-timings``; by default the
one in ``--out``): a file's time there is its slowest hash shard's, times its shards.

pytest-split (durations-balanced groups of tests) does not fit: it balances *tests* of one
pytest session by a ``.test_durations`` file of per-test times, while the unit here is a test
file run to its end as separate pytest processes (resumed after crashes, its tests deselected),
and the only times a run records are per file.

The OpInfo entries are split by a hash of their key (they cost about the same each), so every
shard builds the whole device and runs a disjoint part of both. Each shard writes its own
report in its own ``--out``; :func:`merge` makes one report of them
(``musaport validate --merge-reports --out MERGED SHARD_OUT...``).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

from musaport.errors import LoadError

THRESHOLD = 600.0  # seconds: a file longer than this is split (run_test.py's THRESHOLD)


@dataclass(frozen=True)
class Unit:
    """A test file, or part ``part`` (0-based) of ``parts`` of it, with its expected seconds (None: unknown)."""

    file: str
    part: int = 0
    parts: int = 1
    seconds: float | None = None


def parse_shard(text: str) -> tuple[int, int]:
    """``"I/N"`` (1-based, as PyTorch's CI numbers shards) as (I - 1, N); a LoadError when malformed."""
    left, sep, right = str(text).partition("/")
    if sep and left.strip().isdigit() and right.strip().isdigit():
        index, count = int(left), int(right)
        if 1 <= index <= count:
            return index - 1, count
    raise LoadError(f"--shard: {text!r} is not I/N with 1 <= I <= N (e.g. 2/4)")


def file_seconds(report: dict) -> dict[str, float]:
    """Each test file's time in a previous report: its slowest hash shard's seconds times its shards."""
    found = {}
    for name, doc in (report.get("test_files") or {}).items():
        if isinstance(doc, dict) and doc.get("ran", True) and isinstance(doc.get("seconds"), (int, float)):
            found[name] = float(doc["seconds"]) * int(doc.get("shards", 1) or 1)
    return found


def plan(files: tuple[str, ...] | list[str], seconds: dict[str, float], count: int) -> list[list[Unit]]:
    """The units of each of ``count`` shards (see the module docstring); deterministic for equal input."""
    timed: list[Unit] = []
    untimed: list[Unit] = []
    for name in files:
        t = seconds.get(name)
        if t is None:
            untimed.append(Unit(name))
        elif t > THRESHOLD:
            parts = math.ceil(t / THRESHOLD)
            timed += [Unit(name, k, parts, t / parts) for k in range(parts)]
        else:
            timed.append(Unit(name, 0, 1, t))
    shards: list[list[Unit]] = [[] for _ in range(count)]
    load = [0.0] * count
    for unit in sorted(timed, key=lambda u: (-(u.seconds or 0.0), u.file, u.part)):
        k = min(range(count), key=lambda i: (load[i], i))
        shards[k].append(unit)
        load[k] += unit.seconds or 0.0
    for i, unit in enumerate(untimed):
        shards[i % count].append(unit)
    return shards


def owns_entry(key: str, shard: tuple[int, int]) -> bool:
    """Whether the OpInfo entry ``key`` runs on ``shard`` (index, count): by a hash of the key."""
    return zlib.crc32(key.encode()) % shard[1] == shard[0]


# ---- merging the shards' reports

_COUNTS = ("passed", "failed", "skipped", "errors", "died", "cuda_branch", "cpu_too")
# A file's groups of tests, each by its key: the failures' first lines, the CUDA branches, the CPU twins', the skips.
_GROUPS = (("causes", "error"), ("cuda_branches", "branch"), ("cpu_too_causes", "error"), ("skip_reasons", "reason"))


def merge(docs: list[dict]) -> dict:
    """One ``validate_opinfo_report.json`` document from the shards' (every shard of one run, any order)."""
    if not docs:
        raise LoadError("--merge-reports: no reports given")
    versions = {d.get("torch_version") for d in docs}
    if len(versions) > 1:
        raise LoadError(f"--merge-reports: the reports are of different torch versions ({', '.join(map(str, versions))})")
    docs = sorted(docs, key=_shard_of)
    ops: dict[str, dict] = {}
    for d in docs:
        ops.update(d.get("ops") or {})
    ops = dict(sorted(ops.items()))
    files: dict[str, dict] = {}
    for d in docs:
        for name, doc in (d.get("test_files") or {}).items():
            files[name] = _merge_file(files[name], doc) if name in files else dict(doc)
    figures = {"seconds": max(float((d.get("figures") or {}).get("seconds", 0.0)) for d in docs),
               "shards": [d.get("figures") or {} for d in docs]}
    return {"torch_version": docs[0].get("torch_version"), "device": docs[0].get("device"),
            "summary": _summary(ops), "figures": figures, "ops": ops,
            "causes": _merge_causes([c for d in docs for c in d.get("causes") or []]), "test_files": files}


def _shard_of(doc: dict) -> tuple[int, str]:
    """The order of a shard's report: by its number (``figures.shard``, "I/N")."""
    text = str((doc.get("figures") or {}).get("shard", ""))
    number = text.split("/")[0]
    return (int(number) if number.isdigit() else 0, text)


def _merge_file(a: dict, b: dict) -> dict:
    """One test file's result from two machines' parts: counts summed, the slower part's time (they ran
    side by side), its hash shards summed, the failures and causes of both."""
    merged = dict(a)
    for k in _COUNTS:
        if a.get(k) or b.get(k):
            merged[k] = int(a.get(k, 0)) + int(b.get(k, 0))
    merged["seconds"] = max(float(a.get("seconds", 0.0)), float(b.get("seconds", 0.0)))
    merged["timeout"] = bool(a.get("timeout")) or bool(b.get("timeout"))
    merged["ran"] = bool(a.get("ran", True)) or bool(b.get("ran", True))
    merged["shards"] = int(a.get("shards", 1)) + int(b.get("shards", 1))
    notes = [n for n in (a.get("note"), b.get("note")) if n]
    if notes:
        merged["note"] = "; ".join(notes)
    failures = [*(a.get("first_failures") or []), *(b.get("first_failures") or [])][:5]
    if failures:
        merged["first_failures"] = failures
    for field, key in _GROUPS:
        groups: dict[str, dict] = {}
        for c in [*(a.get(field) or []), *(b.get(field) or [])]:
            g = groups.setdefault(c[key], {key: c[key], "tests": 0, "example": c["example"]})
            g["tests"] += int(c["tests"])
        if groups:
            merged[field] = sorted(groups.values(), key=lambda c: (-c["tests"], c[key]))
    return merged


def _summary(ops: dict[str, dict]) -> dict:
    """The report's summary of the merged entries, counted as ``report.summary`` counts OpResults."""
    from musaport.validate.opinfo.verdict import RUN, STATUSES

    counts = {s: 0 for s in STATUSES}
    first_ran = first_pass = 0
    for op in ops.values():
        counts[op["status"]] += 1
        first = next(iter((op.get("dtypes") or {}).values()), None)
        if first is not None and first["status"] in RUN:
            first_ran += 1
            first_pass += first["status"] == "pass"
    ran = sum(counts[s] for s in RUN)
    return {"entries": len(ops), "ran": ran, **counts, "one_dtype": {"ran": first_ran, "pass": first_pass}}


def _merge_causes(causes: list[dict]) -> list[dict]:
    """Causes of the same kind, summary and files from several shards as one, the one taking most first."""
    groups: dict[tuple, dict] = {}
    for c in causes:
        key = (c["kind"], c["summary"], tuple(c.get("files") or ()))
        g = groups.get(key)
        if g is None:
            groups[key] = {**c, "entries": list(c.get("entries") or []), "operators": list(c.get("operators") or []),
                           "kernels": list(c.get("kernels") or [])}
            continue
        g["entries"] = sorted(set(g["entries"]) | set(c.get("entries") or []))
        for field in ("operators", "kernels"):
            g[field] += [x for x in c.get(field) or [] if x not in g[field]]
    return sorted(groups.values(), key=lambda c: (-len(c["entries"]), c["kind"], c["summary"], tuple(c["files"])))
