"""``musaport run``: discover, port (incrementally, in parallel), commit, report."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from . import cache
from .cache import Entry
from .concurrency import Context, Task, port_all
from .layout import Found, Layout, Skipped, check_out, check_tree, discover, load_layout
from .port import FileResult, failed
from .report import Report
from .resources import vocabulary_file
from .rules import RuleSet, load_packs
from .writer import STATE_DIR, Stage, write_atomic

TREE = "generated_cuda_compatible"


@dataclass(frozen=True)
class Options:
    """Everything a run depends on, as given on the command line."""

    source: Path
    out: Path
    layout: Path
    packs: tuple[Path, ...]
    jobs: int = 1


@dataclass(frozen=True)
class Config:
    """The loaded, validated inputs of a run."""

    layout: Layout
    rules: RuleSet
    vocabulary: frozenset[str]
    key: str


@dataclass
class Plan:
    """What the run will do with each discovered file."""

    reused: list[Entry] = field(default_factory=list)
    tasks: list[Task] = field(default_factory=list)
    collisions: list[FileResult] = field(default_factory=list)


def load_config(opts: Options) -> Config:
    """Load layout, packs and vocabulary; any problem raises LoadError."""
    layout = load_layout(opts.layout)
    rules = load_packs(opts.packs)
    raw = vocabulary_file().read_bytes()
    vocabulary = frozenset(ln for ln in raw.decode().split() if not ln.startswith("#"))
    key = cache.cache_key(rules.digest, layout.digest, hashlib.sha256(raw).hexdigest())
    return Config(layout, rules, vocabulary, key)


def run(opts: Options, config: Config, progress: Callable[[FileResult], None] | None = None,
        on_plan: Callable[[int], None] | None = None) -> Report:
    """Port the tree; the previous output stays untouched unless every file ported."""
    check_tree(config.layout, opts.source)
    check_out(config.layout, opts.source, opts.out)
    found, skipped = _discover(config.layout, opts.source)
    state = opts.out / STATE_DIR
    entries = cache.load(state, config.key)
    plan = _plan(found, entries, opts.source, opts.out / TREE)
    if on_plan:
        on_plan(len(plan.tasks))
    fresh = port_all(plan.tasks, Context(config.rules, config.vocabulary), opts.jobs, progress)
    report = Report(source=str(opts.source), skipped=skipped, reused=len(plan.reused))
    for result in [e.result for e in plan.reused] + fresh + plan.collisions:
        report.add(result)
    report.results.sort(key=lambda r: r.src)
    if not report.failed:
        _commit(opts, config, plan, fresh, entries, report)
    _write_reports(opts.out, report)
    return report


def _discover(layout: Layout, source: Path) -> tuple[list[Found], list[Skipped]]:
    found: list[Found] = []
    skipped: list[Skipped] = []
    for item in discover(layout, source):
        (found if isinstance(item, Found) else skipped).append(item)
    return found, skipped


def _plan(found: list[Found], entries: dict[str, Entry], source: Path, tree: Path) -> Plan:
    """Reuse cached results whose source and output are as they were; port the rest."""
    plan = Plan()
    owners: dict[str, str] = {}
    for f in found:
        if f.out in owners:
            plan.collisions.append(failed(f.rel, f.out, f"output {f.out} collides with the port of {owners[f.out]}"))
            continue
        owners[f.out] = f.rel
        entry = entries.get(f.rel)
        if entry and entry.result.out == f.out and _unchanged(entry, source / f.rel, tree / f.out):
            plan.reused.append(entry)
        else:
            plan.tasks.append(Task(source / f.rel, f.rel, f.out, f.copy_only))
    return plan


def _unchanged(entry: Entry, src: Path, out: Path) -> bool:
    """Size and mtime of source and output match the cache (no hashing needed)."""
    try:
        s, o = src.stat(), out.stat()
    except OSError:
        return False
    return (s.st_size, s.st_mtime_ns, o.st_size, o.st_mtime_ns) == (
        entry.size, entry.mtime_ns, entry.out_size, entry.out_mtime_ns)


def _commit(opts: Options, config: Config, plan: Plan, fresh: list[FileResult],
            entries: dict[str, Entry], report: Report) -> None:
    """Stage changed outputs, swap them in, drop stale ones, then save the cache."""
    tree = opts.out / TREE
    stage = Stage(tree, opts.out / STATE_DIR)
    stage.sweep()
    for result in fresh:
        if not _same_bytes(tree / result.out, result.data):
            stage.put(result.out, result.data or b"")
    wanted = {r.out for r in report.results}
    for rel in _existing(tree):
        if rel not in wanted:
            stage.remove(rel)
    report.written, report.removed = len(stage.files), len(stage.removals)
    stage.commit()
    new_entries = {e.result.src: e for e in plan.reused}
    for result in fresh:
        new_entries[result.src] = _entry(result, opts.source / result.src, tree / result.out)
    cache.dump(opts.out / STATE_DIR, config.key, new_entries)


def _same_bytes(path: Path, data: bytes | None) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def _existing(tree: Path) -> list[str]:
    """Every file currently in the output tree, as tree-relative POSIX paths."""
    out = []
    for folder, _, files in os.walk(tree):
        rel = Path(folder).relative_to(tree).as_posix()
        out.extend(name if rel == "." else f"{rel}/{name}" for name in files)
    return out


def _entry(result: FileResult, src: Path, out: Path) -> Entry:
    s, o = src.stat(), out.stat()
    return Entry(s.st_size, s.st_mtime_ns, o.st_size, o.st_mtime_ns, replace(result, data=None))


def _write_reports(out: Path, report: Report) -> None:
    write_atomic(out / "porting_report.json", report.render_json().encode())
    write_atomic(out / "porting_report.md", report.render_markdown().encode())
