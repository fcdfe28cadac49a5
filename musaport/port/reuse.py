"""The one path of ``musaport run``: read the cache, decide, work, write the cache (:func:`port`).

As black's ``schedule_formatting``: the tree and ``--out`` are checked once,
``--out`` is locked once, discovery (one ``stat`` per source), the cache, the
plan (one ``stat`` per output) and the run digest decide once, and that
survey is passed on to the work.  When every file and every input of the
generation step is as the last run left it, the last report is the answer
and nothing is written (the survey and that decision: ``port.survey``, which
``port.run`` shares).  This module imports none of the porting machinery
(workers, libclang batches, the stage, the operator model): ``port.run`` is
imported when there is work, and so is the generation step's heavy half.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from musaport.outdir import OutDir
from musaport.port import snapshot
from musaport.port.config import GenerationStep, Options, load_config
from musaport.port.file import FileResult
from musaport.port.layout import check_out, check_tree
from musaport.port.report import Report
from musaport.port.survey import survey, unchanged


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
