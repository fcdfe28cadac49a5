"""``musaport run``: discover, plan, port (in parallel), commit, report.

The port knows nothing about operators: what is generated beside the ported
files (registration stubs, CMake lists) comes in as a :class:`GenerationStep`
hook (see ``port.config``), which ``ops.generate`` implements and the CLI
passes in.  ``port.reuse.port`` is the one entry point (read cache, decide, work, write
cache); :func:`run` is the same for a caller that has its configuration.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

from musaport.errors import LoadError
from musaport.fstree import walk
from musaport.outdir import OutDir
from musaport.port import cache
from musaport.port.concurrency import Context, port_all
from musaport.port.config import Config, Generated, Options
from musaport.port.file import FileResult
from musaport.port.layout import Skipped, check_out, check_tree
from musaport.port.report import Report
from musaport.port.stage import Stage
from musaport.port.survey import Survey, digest, survey, unchanged
from musaport.rewrite.rules import RuleSet


def run(opts: Options, config: Config, progress: Callable[[FileResult], None] | None = None,
        on_plan: Callable[[int], None] | None = None) -> Report:
    """Port the tree; the previous output stays untouched unless every file ported.

    One run at a time per ``--out``: a second one fails at once with one line.
    """
    check_tree(config.layout, opts.source)
    check_out(config.layout, opts.source, opts.out)
    out = OutDir(opts.out)
    with out.lock():
        found = survey(opts, config, out)
        reused = unchanged(opts, config, found, out)
        return reused if reused is not None else work_on(opts, config, out, found, progress, on_plan)


def work_on(opts: Options, config: Config, out: OutDir, found: Survey, progress: Callable[[FileResult], None] | None,
         on_plan: Callable[[int], None] | None) -> Report:
    """The run itself, with ``--out`` held and the survey made (``port.reuse.port`` decided there is work)."""
    foreign = out.foreign_report()
    if foreign is not None:
        raise LoadError(f"{foreign}: not written by musaport (or changed since); the run would overwrite it: "
                        "move it away or choose another --out")
    timer = Timer()
    work, skipped = found.work, found.skipped
    if work.reused and not found.cached.load_results():  # outcomes that do not match the index: port all
        work = cache.plan(found.found, {}, opts.source, out.tree)
    rules = config.rules.compile()
    config = replace(config, rules=rules)  # the generation step ports its sources with them too
    if opts.generation:
        opts.generation.prepare(opts.source, out)
    if on_plan:
        on_plan(len(work.tasks))
    stage = Stage(out)
    stage.sweep()
    fresh = _port(opts, rules, config.vocabulary, work, stage, progress)
    timer.lap("port")
    report = Report(source=str(opts.source), skipped=skipped, reused=len(work.reused))
    for result in [e.result for e in work.reused.values()] + fresh + work.collisions:
        report.add(result)
    report.results.sort(key=lambda r: r.src)
    if report.failed:
        stage.discard()
    else:
        _commit(opts, config, out, work, fresh, report, stage, skipped)
    timer.lap("commit")
    _write_reports(out, report)
    timer.lap("reports")
    return report


def _port(opts: Options, rules: RuleSet, vocabulary: frozenset[str], work: cache.Plan, stage: Stage,
          progress: Callable[[FileResult], None] | None) -> list[FileResult]:
    """Port the planned files; an interruption removes the staging folder."""
    if not work.tasks:
        return []
    observe = opts.generation.observer() if opts.generation else None
    # A generation step may port some files itself (an extension's Python): see GenerationStep.porter.
    porter = getattr(opts.generation, "porter", None)
    context = Context(rules, vocabulary, stage.out, stage.root, observe, porter() if porter else None)
    try:
        return port_all(work.tasks, context, opts.jobs, progress)
    except BaseException:
        stage.discard()
        raise


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


def _commit(opts: Options, config: Config, out: OutDir, work: cache.Plan, fresh: list[FileResult],
            report: Report, stage: Stage, skipped: list[Skipped]) -> None:
    """Stage generated files, swap everything in, drop stale outputs, save the cache.

    Only outputs the tool wrote are ever removed (the manifest says which);
    files a user put in the tree are kept and reported.  A marker spans the
    renames, removals, cache and reports: a run killed in between leaves it,
    so the next run re-ports everything and ``validate`` refuses the tree.
    """
    for result in fresh:
        if result.staged:
            stage.adopt(result.out)
    generated = _generated(opts, config, out, report, stage)
    report.generated = sorted(generated.files)
    report.problems = list(generated.problems)
    for rel, data in sorted(generated.files.items()):
        if not _holds(out.tree / rel, data):
            stage.put(rel, data)
    wanted = {r.out for r in report.results} | set(generated.files)
    owned = _owned(out, stage)
    stale, report.kept = _stale(_existing(out.tree), wanted, owned)
    removed = [] if report.problems else stale  # a broken generation step keeps what the last one made
    for rel in removed:
        stage.remove(rel)
    report.written, report.removed, report.removed_files = len(stage.files), len(removed), removed
    stage.refuse_escapes()
    stage.record_outputs(owned | wanted)  # a kill mid-commit still knows everything it may have written
    out.begin_commit()
    stage.commit()
    opts.request().save(out)  # what later commands read the run's rules and layout from
    entries = dict(work.reused)
    for result in fresh:
        entries[result.src] = cache.entry(result, opts.source / result.src, out.tree / result.out)
    run_digest = "" if report.problems else digest(opts, config, entries, skipped)  # a failure is never reused
    cache.dump(out.state_file(cache.CACHE_NAME), config.key, cache.Cache(entries, run_digest, report.summary()))
    stage.record_outputs(wanted | set(stale) - set(removed))


def _owned(out: OutDir, stage: Stage) -> set[str]:
    """Every tree path an earlier run wrote: the manifest, else the last report's outputs."""
    recorded = stage.recorded_outputs()
    if recorded is not None:
        return recorded
    return set(out.out_paths().values()) | set(out.porting_report().get("generated") or [])


def _stale(existing: list[str], wanted: set[str], owned: set[str]) -> tuple[list[str], list[str]]:
    """Of the files in the tree that this run does not write: the tool's own (to remove)
    and everything else (kept: a user's file is never deleted), both sorted."""
    extra = sorted(rel for rel in existing if rel not in wanted)
    return [rel for rel in extra if rel in owned], [rel for rel in extra if rel not in owned]


def _generated(opts: Options, config: Config, out: OutDir, report: Report, stage: Stage) -> Generated:
    """The generation step's files; an exception there discards the staged port."""
    if opts.generation is None:
        return Generated({})
    try:
        generated = opts.generation.files(opts.source, report.results, out, config)
    except BaseException:
        stage.discard()
        raise
    report.results.extend(generated.results)
    report.results.sort(key=lambda r: r.src)
    return generated


def _holds(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def _existing(tree: Path) -> list[str]:
    """Every file currently in the output tree, as tree-relative POSIX paths."""
    out = []
    for folder, _, files in walk(tree):
        rel = Path(folder).relative_to(tree).as_posix()
        out.extend(name if rel == "." else f"{rel}/{name}" for name in files)
    return out


def _write_reports(out: OutDir, report: Report) -> None:
    """Write the reports; after a commit they are its last step, so the marker goes then."""
    out.write(out.report_json, report.render_json().encode())
    out.write(out.report_md, report.render_markdown().encode())
    out.record_reports()
    if not report.failed:
        out.end_commit()
