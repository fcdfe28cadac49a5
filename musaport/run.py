"""``musaport run``: discover, port (incrementally, in parallel), commit, report."""

from __future__ import annotations

import hashlib
import os
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from . import cache
from .cache import Entry
from .concurrency import Context, Task, port_all
from .generate import GenerateOptions, generated_files
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
    generate: GenerateOptions = GenerateOptions()


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
    vocabulary = frozenset(ln.strip() for ln in raw.decode().splitlines() if ln.strip() and not ln.startswith("#"))
    key = cache.cache_key(rules.digest, layout.digest, hashlib.sha256(raw).hexdigest())
    return Config(layout, rules, vocabulary, key)


def run(opts: Options, config: Config, progress: Callable[[FileResult], None] | None = None,
        on_plan: Callable[[int], None] | None = None) -> Report:
    """Port the tree; the previous output stays untouched unless every file ported."""
    timer = Timer()
    check_tree(config.layout, opts.source)
    check_out(config.layout, opts.source, opts.out)
    found, skipped = _discover(config.layout, opts.source)
    entries = cache.load(opts.out / STATE_DIR, config.key)
    plan = _plan(found, entries, opts.source, opts.out / TREE)
    timer.lap("discover+plan")
    if on_plan:
        on_plan(len(plan.tasks))
    stage = Stage(opts.out / TREE, opts.out / STATE_DIR)
    stage.sweep()
    context = Context(config.rules, config.vocabulary, opts.out / TREE, stage.root)
    try:
        fresh = port_all(plan.tasks, context, opts.jobs, progress)
    except BaseException:
        stage.discard()
        raise
    timer.lap("port")
    report = Report(source=str(opts.source), skipped=skipped, reused=len(plan.reused))
    for result in [e.result for e in plan.reused] + fresh + plan.collisions:
        report.add(result)
    report.results.sort(key=lambda r: r.src)
    generated = generated_files(opts.source, report.results, opts.generate) if not report.failed else {}
    report.generated = sorted(generated)
    if report.failed:
        stage.discard()
    else:
        _commit(opts, config, plan, fresh, report, stage, generated)
    timer.lap("commit")
    _write_reports(opts.out, report)
    timer.lap("reports")
    return report


class Timer:
    """Phase timings on stderr when MUSAPORT_TIMING is set (for benchmarks and profiling)."""

    def __init__(self) -> None:
        self.on = bool(os.environ.get("MUSAPORT_TIMING"))
        self.last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        if self.on:
            print(f"musaport timing: {name} {now - self.last:.3f}s", file=sys.stderr)
        self.last = now


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


def _commit(opts: Options, config: Config, plan: Plan, fresh: list[FileResult], report: Report,
            stage: Stage, generated: dict[str, bytes]) -> None:
    """Swap staged outputs in, drop stale ones, then save the cache."""
    tree = opts.out / TREE
    for result in fresh:
        if result.staged:
            stage.adopt(result.out)
    for rel, data in sorted(generated.items()):
        if not _holds(tree / rel, data):
            stage.put(rel, data)
    wanted = {r.out for r in report.results} | set(generated)
    for rel in _existing(tree):
        if rel not in wanted:
            stage.remove(rel)
    report.written, report.removed = len(stage.files), len(stage.removals)
    stage.commit()
    new_entries = {e.result.src: e for e in plan.reused}
    for result in fresh:
        new_entries[result.src] = _entry(result, opts.source / result.src, tree / result.out)
    cache.dump(opts.out / STATE_DIR, config.key, new_entries)


def _holds(path: Path, data: bytes) -> bool:
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
