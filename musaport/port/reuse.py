"""The warm path of ``musaport run``: find out whether anything changed since the last run.

Discovery (one ``stat`` per source), the cache, the plan (one ``stat`` per
output) and the run digest decide; when every file and every input of the
generation step is as the last run left it, the last report is the answer
and nothing is written.  This module imports none of the porting machinery
(workers, libclang batches, the stage, the operator model), so the CLI can
ask it first and import that machinery only when there is work.
"""

from __future__ import annotations

from dataclasses import dataclass

from musaport.outdir import OutDir
from musaport.port import cache
from musaport.port.config import Config, Options
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
    return Report.from_summary(str(opts.source), found.cached.summary, reused=len(work.reused))


def up_to_date(opts: Options, config: Config) -> Report | None:
    """The last report when a run would change nothing, else None (the run then does the work).

    Checks the tree and ``--out`` and takes the lock as ``port.run.run`` does,
    so a bad path or a concurrent run fails here with the same line. An
    ``--out`` without a cache is left untouched: a first run has work.
    """
    check_tree(config.layout, opts.source)
    check_out(config.layout, opts.source, opts.out)
    out = OutDir(opts.out)
    if not out.state_file(cache.CACHE_NAME).is_file():
        return None
    with out.lock():
        return unchanged(opts, config, survey(opts, config, out), out)
