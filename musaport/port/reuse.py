"""The one path of ``musaport run``: read the cache, decide, work, write the cache (:func:`port`).

As black's ``schedule_formatting``: the tree and ``--out`` are checked once,
``--out`` is locked once, discovery (one ``stat`` per source), the cache, the
plan (one ``stat`` per output) and the run digest decide once, and that
survey is passed on to the work.  When every file and every input of the
generation step is as the last run left it, the last report is the answer
and nothing is written.  This module imports none of the porting machinery
(workers, libclang batches, the stage, the operator model): ``port.run`` is
imported when there is work, and so is the generation step's heavy half.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from musaport.outdir import OutDir
from musaport.port import cache, snapshot
from musaport.port.config import Config, GenerationStep, Options, load_config
from musaport.port.file import FileResult
from musaport.port.layout import Found, Skipped, check_out, check_tree, discover
from musaport.port.report import Report


@dataclass(frozen=True)
class Survey:
    """What discovery found and skipped, the cache, and the plan made from both."""

    found: list[Found]
    skipped: list[Skipped]
    cached: cache.Cache
    work: cache.Plan


def survey(opts: Options, config: Config, out: OutDir) -> Survey:
    """Discover the selection and plan it against the cache (``--out`` held by the caller)."""
    found: list[Found] = []
    skipped: list[Skipped] = []
    for item in discover(config.layout, opts.source):
        (found if isinstance(item, Found) else skipped).append(item)
    cached = cache.load(out.state_file(cache.CACHE_NAME), config.key)
    return Survey(found, skipped, cached, cache.plan(found, cached.entries, opts.source, out.tree))


def digest(opts: Options, config: Config, entries: dict[str, cache.Entry], skipped: list[Skipped]) -> str:
    """The run digest: the cache key, the source, the generation step's inputs, every output."""
    generated = opts.generation.describe(opts.source, config.layout) if opts.generation else ""
    return cache.run_digest(config.key, f"{opts.source}\0{generated}", entries, skipped)


def unchanged(opts: Options, config: Config, found: Survey, out: OutDir) -> Report | None:
    """The last run's report when nothing changed since it, else None."""
    work = found.work
    if work.tasks or work.collisions:
        return None
    if not cache.nothing_changed(found.cached, work, digest(opts, config, work.reused, found.skipped),
                                 out.reports()):  # the digest only when it can matter
        return None
    if not out.reports_intact():  # a truncated report is written again
        return None
    return Report.from_summary(str(opts.source), found.cached.summary, reused=len(work.reused))


def port(opts: Options, working_step: Callable[[], GenerationStep] | None = None,
         progress: Callable[[FileResult], None] | None = None,
         on_plan: Callable[[int], None] | None = None) -> tuple[Options, Report]:
    """Port ``opts.source`` into ``opts.out``: the last report when nothing changed, else the run.

    ``opts.generation`` is the light half of the generation step (what the
    cache key and the run digest need); ``working_step`` makes the step that
    does the work, called only when there is work.  The configuration comes
    from the last run's snapshot while nothing it came from changed
    (``port.snapshot``); the rules are loaded when there is work.
    """
    saved = snapshot.load(opts)
    config = snapshot.light_config(*saved) if saved else load_config(opts)
    check_tree(config.layout, opts.source)
    check_out(config.layout, opts.source, opts.out)
    out = OutDir(opts.out)
    with out.lock():
        found = survey(opts, config, out)
        report = unchanged(opts, config, found, out)
        if report is None:
            from musaport.port.run import work_on  # the porting machinery, only when there is work

            config = load_config(opts) if saved else config
            opts = replace(opts, generation=working_step()) if working_step else opts
            report = work_on(opts, config, out, found, progress, on_plan)
        elif saved:
            return opts, report
    if report.return_code == 0:  # the next warm run need not load the configuration either
        snapshot.save(opts, config)
    return opts, report
