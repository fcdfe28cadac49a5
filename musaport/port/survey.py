"""What a run finds before it works: the selection, the cache, the plan, and whether anything changed.

Shared by the two entries of a run, ``port.reuse.port`` (the warm path, which
stops here when nothing changed) and ``port.run`` (the work), so neither
imports the other for it: ``port.reuse`` imports ``port.run`` only when there
is work, and ``port.run`` never imports ``port.reuse``.
"""

from __future__ import annotations

from dataclasses import dataclass

from musaport.outdir import OutDir
from musaport.port import cache
from musaport.port.config import Config, Options
from musaport.port.layout import Found, Skipped, discover
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
