"""``musaport run``: discover, port (incrementally, in parallel), commit, report."""

from __future__ import annotations

import hashlib
import os
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from typing import TYPE_CHECKING

from . import cache
from .cache import Entry
from .generate import GenerateOptions
from .layout import Found, Layout, Skipped, check_out, check_tree, discover, load_layout
from .report import Report

if TYPE_CHECKING:
    from .concurrency import Task
    from .port import FileResult
from .resources import parse_vocabulary, vocabulary_file
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

    reused: dict[str, Entry] = field(default_factory=dict)
    tasks: list["Task"] = field(default_factory=list)
    collisions: list["FileResult"] = field(default_factory=list)


def load_config(opts: Options) -> Config:
    """Load layout, packs and vocabulary; any problem raises LoadError."""
    layout = load_layout(opts.layout)
    rules = load_packs(opts.packs, compile=False)  # compiled in run() when there is work
    if opts.generate.exclude_stubs:
        from .exclusions import with_exclusions

        rules = with_exclusions(rules, opts.generate.exclude_stubs)
    raw = vocabulary_file().read_bytes()
    vocabulary = parse_vocabulary(raw)
    key = cache.cache_key(rules.digest, layout.digest, hashlib.sha256(raw).hexdigest())
    return Config(layout, rules, vocabulary, key)


def run(opts: Options, config: Config, progress: Callable[["FileResult"], None] | None = None,
        on_plan: Callable[[int], None] | None = None) -> Report:
    """Port the tree; the previous output stays untouched unless every file ported."""
    timer = Timer()
    check_tree(config.layout, opts.source)
    check_out(config.layout, opts.source, opts.out)
    found, skipped = _discover(config.layout, opts.source)
    cached = cache.load(opts.out / STATE_DIR, config.key)
    plan = _plan(found, cached.entries, opts.source, opts.out / TREE)
    timer.lap("discover+plan")
    if not plan.tasks and not plan.collisions and _nothing_changed(opts, config, plan, skipped, cached):
        return Report.from_summary(str(opts.source), cached.summary, reused=len(plan.reused))
    config.rules.compile()
    from .generate import check_selection

    check_selection(opts.source, opts.out, opts.generate)
    if on_plan:
        on_plan(len(plan.tasks))
    stage = Stage(opts.out / TREE, opts.out / STATE_DIR)
    stage.sweep()
    fresh = _port(opts, config, plan, stage, progress)
    timer.lap("port")
    report = Report(source=str(opts.source), skipped=skipped, reused=len(plan.reused))
    for result in [e.result for e in plan.reused.values()] + fresh + plan.collisions:
        report.add(result)
    report.results.sort(key=lambda r: r.src)
    if report.failed:
        stage.discard()
    else:
        _commit(opts, config, plan, fresh, report, stage, skipped)
    timer.lap("commit")
    _write_reports(opts.out, report)
    timer.lap("reports")
    return report


def _port(opts: Options, config: Config, plan: Plan, stage: Stage,
          progress: Callable[["FileResult"], None] | None) -> list["FileResult"]:
    """Port the planned files; an interruption removes the staging folder."""
    if not plan.tasks:
        return []
    from .concurrency import Context, port_all  # libclang and workers only when there is work

    context = Context(config.rules, config.vocabulary, opts.out / TREE, stage.root)
    try:
        return port_all(plan.tasks, context, opts.jobs, progress)
    except BaseException:
        stage.discard()
        raise


def _digest(opts: Options, config: Config, entries: dict[str, Entry], skipped: list[Skipped]) -> str:
    """Everything the reports and generated files depend on, in one hash."""
    from .generate import inputs_digest

    h = hashlib.sha256(f"{config.key}\0{opts.source}\0{opts.generate!r}\0{inputs_digest(opts.source)}".encode())
    for src in sorted(entries):
        h.update(f"\0{src}\0{entries[src].out_hash}".encode())
    for s in skipped:
        h.update(f"\0{s.rel}\0{s.reason}".encode())
    return h.hexdigest()


def _nothing_changed(opts: Options, config: Config, plan: Plan, skipped: list[Skipped], cached: cache.Cache) -> bool:
    """True when every file was reused and the last reports still describe this run."""
    return (
        bool(cached.summary)
        and len(cached.entries) == len(plan.reused)
        and cached.digest == _digest(opts, config, plan.reused, skipped)
        and all((opts.out / name).is_file() for name in REPORTS)
    )


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
            from .port import failed

            plan.collisions.append(failed(f.rel, f.out, f"output {f.out} collides with the port of {owners[f.out]}"))
            continue
        owners[f.out] = f.rel
        entry = entries.get(f.rel)
        if entry and entry.out == f.out and _unchanged(entry, source / f.rel, tree / f.out):
            plan.reused[f.rel] = entry
        else:
            from .concurrency import Task

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


def _commit(opts: Options, config: Config, plan: Plan, fresh: list["FileResult"], report: Report,
            stage: Stage, skipped: list[Skipped]) -> None:
    """Stage generated files, swap everything in, drop stale outputs, save the cache."""
    from .generate import generated_files

    tree = opts.out / TREE
    for result in fresh:
        if result.staged:
            stage.adopt(result.out)
    try:
        generated = generated_files(opts.source, report.results, opts.generate, opts.out)
    except BaseException:
        stage.discard()
        raise
    report.generated = sorted(generated)
    for rel, data in sorted(generated.items()):
        if not _holds(tree / rel, data):
            stage.put(rel, data)
    wanted = {r.out for r in report.results} | set(generated)
    for rel in _existing(tree):
        if rel not in wanted:
            stage.remove(rel)
    report.written, report.removed = len(stage.files), len(stage.removals)
    stage.commit()
    entries = dict(plan.reused)
    for result in fresh:
        entries[result.src] = _entry(result, opts.source / result.src, tree / result.out)
    summary = report.summary()
    cache.dump(opts.out / STATE_DIR, config.key, cache.Cache(entries, _digest(opts, config, entries, skipped), summary))


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


def _entry(result: "FileResult", src: Path, out: Path) -> Entry:
    s, o = src.stat(), out.stat()
    return Entry(s.st_size, s.st_mtime_ns, o.st_size, o.st_mtime_ns, result=replace(result, data=None))


REPORTS = ("porting_report.json", "porting_report.md")


def _write_reports(out: Path, report: Report) -> None:
    write_atomic(out / REPORTS[0], report.render_json().encode())
    write_atomic(out / REPORTS[1], report.render_markdown().encode())
