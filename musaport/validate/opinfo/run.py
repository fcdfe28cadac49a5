"""``validate --opinfo`` from end to end: the device, the differential, the test files, the reports.

Independent of the command line: :func:`validate_opinfo` takes the device
(the ported backend loaded into the release's torch, or a stand-in) and
returns the report and the exit code; the CLI draws progress and the summary.

Exit code: 0 when everything that ran passed (every OpInfo entry that ran
passes in every dtype it ran; with ``--pytorch-tests`` every file ran with no
failure, no error and no timeout); 1 otherwise, and also when nothing ran.
"""

from __future__ import annotations

import re

import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from musaport.outdir import VALIDATE_OPINFO_JSON, VALIDATE_OPINFO_MD, OutDir, write_atomic
from musaport.validate.opinfo import shards
from musaport.validate.opinfo.differential import (JOB_TIMEOUT, Device, DeviceError, PortedOp, Selection,
                                                   operators_of, plan_opinfo, registered_ops, run_opinfo,
                                                   unregistered_reasons, write_json)
from musaport.validate.opinfo.report import causes, cited_line_rules, render_markdown, report_doc
from musaport.validate.opinfo.tests import FILE_TIMEOUT, TEST_FILES, run_test_files
from musaport.validate.opinfo.verdict import exit_code, missing_operator

Progress = Callable[[str, int, int, str], None]  # phase, done, total, what
# Given the registered operators to build (None: all of them), the device, each operator's build
# status (name -> (built, first error)) and the build's figures.
MakeDevice = Callable[[list[str] | None], tuple[Device, dict[str, tuple[bool, str]], dict]]


@dataclass(frozen=True)
class OpinfoOutcome:
    doc: dict
    json_path: Path
    md_path: Path
    code: int


def from_device_build(build) -> tuple[Device, dict[str, tuple[bool, str]], dict]:
    """A :class:`musaport.validate.device.build.DeviceBuild` as this mode needs it."""
    if build.library is None:
        raise DeviceError(f"the musa device did not build: {build.figures.get('error', 'no library')}")
    built = {}
    for name, op in build.operators.items():
        ok = op.status == "built"
        where = f" ({op.file})" if getattr(op, "file", "") else ""
        built[name] = (ok, "" if ok else f"{op.status}{where}: {op.error}")
    return Device(build.python, "musa", build.loader, build.library), built, dict(build.figures)


# Rounds that add operators a run met but its entries' CPU traces did not show; a round is taken only
# while something new lacks.  istft's chain on 2.6.0 takes four: mul.out, conj_physical.out, eq (equal's
# at::musa::eq), all.all_out.
MAX_ROUNDS = 5


# A ported kernel calls another operator's backend function (Equal.cpp's at::musa::eq); only the
# registration of that operator defines it.
_BACKEND_FUNCTION = re.compile(r"no ported file defines at::musa::(\w+)\(")


def lacking_operators(run, ported: dict[str, PortedOp], needed: list[str],
                      built: dict[str, tuple[bool, str]] | None = None) -> tuple[list[str], tuple]:
    """Registered operators (of the port) that a device run missed and the build did not include, and the
    entries (of the run's plan) to run again with them.  ``built`` (the device build's status of each
    operator): an operator the build could not link because it calls ``at::musa::NAME`` brings NAME's."""
    lacking: list[str] = []
    keys = set()
    for r in run.results:
        for d in r.dtypes:
            aten = missing_operator(d.reason)
            if not aten:
                continue
            found = operators_of([aten], ported)
            for op in list(found):
                ok, why = (built or {}).get(op.name, (True, ""))
                called = _BACKEND_FUNCTION.search(why) if not ok else None
                if called:
                    found += [o for o in operators_of([f"aten::{called.group(1)}"], ported) if o not in found]
            names = [op.name for op in found if op.name not in needed]
            if names:
                keys.add(r.key)
                lacking += [n for n in names if n not in lacking]
    return sorted(lacking), tuple(e for e in run.plan_entries if e.key in keys)


def _attribute_lines(found: list, out: OutDir) -> None:
    """The rules behind each ported line a build error cites (the packs of the run that made ``out``, as
    its request recorded them)."""
    cited = [c for c in found if c.kind == "build-error"]
    if not cited:
        return
    from musaport.port.request import run_rules

    rules = run_rules(out)
    for cause in cited:
        cited_line_rules(cause, out, out.source(), rules)


def validate_opinfo(out: OutDir, python: Path, make_device: MakeDevice, wanted: tuple[str, ...] = (),
                    workers: int = 1, pytorch_tests: bool = False, test_files: tuple[str, ...] = TEST_FILES,
                    job_timeout: float = JOB_TIMEOUT, file_timeout: float | None = FILE_TIMEOUT,
                    progress: Progress | None = None, log=print,
                    command: str = "musaport validate --opinfo",
                    shard: tuple[int, int] | None = None, timings: dict[str, float] | None = None) -> OpinfoOutcome:
    """Choose the entries, build what they need, run the differential (and the test files), write both
    reports; return them with the exit code. ``shard`` (index, count): run only that shard's part of
    the entries and of the test files (``opinfo.shards``), the files balanced by ``timings``."""
    started = time.monotonic()
    ported = registered_ops(out)
    plan = plan_opinfo(python, out, ported, wanted, log)
    parts = None
    if shard is not None:
        entries = tuple(e for e in plan.selection.entries if shards.owns_entry(e.key, shard))
        plan = replace(plan, selection=replace(plan.selection, entries=entries))
        units = shards.plan(test_files, timings or {}, shard[1])[shard[0]]
        parts = {}
        for u in units:
            parts.setdefault(u.file, []).append((u.part, u.parts))
        test_files = tuple(parts)
        log(f"opinfo: shard {shard[0] + 1} of {shard[1]}: {len(entries)} OpInfo entries, test files "
            + (", ".join(f"{u.file}" + (f" (part {u.part + 1} of {u.parts})" if u.parts > 1 else "") for u in units)
               or "none"))
    needed = sorted(set(plan.operators(ported)) | set(wanted)) if wanted else None
    device, built, build_figures = make_device(needed)
    registered = registered_ops(out, built)
    phase = (lambda d, t, w: progress("opinfo", d, t, w)) if progress else None
    run = run_opinfo(device, out, registered, plan, workers, job_timeout, phase, log)
    for _ in range(MAX_ROUNDS if needed is not None else 0):
        # A kernel may call operators its entry's CPU trace cannot show (abs on complex calls
        # view_as_real): the ones the port registers join the build, and the entries that met them rerun.
        lacking, again = lacking_operators(run, ported, needed, built)
        if not lacking:
            break
        log(f"opinfo: the device lacks {', '.join(lacking)}, which the port registers: adding them and "
            f"running {len(again)} entr{'y' if len(again) == 1 else 'ies'} again")
        needed = sorted(set(needed) | set(lacking))
        device, built, build_figures = make_device(needed)
        registered = registered_ops(out, built)
        rerun = run_opinfo(device, out, registered, replace(plan, selection=Selection(again)), workers,
                           job_timeout, phase, log)
        merged = {r.key: r for r in run.results} | {r.key: r for r in rerun.results}
        run = replace(run, results=tuple(merged[k] for k in sorted(merged)))
    files = None
    if pytorch_tests:
        source = out.source()
        tree = source if source is not None else Path(".")
        results = run_test_files(device, tree, out.work("opinfo") / "tests", test_files, file_timeout,
                                 (lambda d, t, w: progress("tests", d, t, w)) if progress else None, log,
                                 jobs=workers,
                                 tests_progress=(lambda f, d, t: progress(f"tests:{f}", d, t, f)) if progress else None,
                                 parts=parts)
        files = {r.name: r.as_json() for r in results}
    found = causes(list(run.results), registered, out.porting_report(), unregistered_reasons(out))
    _attribute_lines(found, out)
    figures = {"seconds": round(time.monotonic() - started, 1), "opinfo_seconds": run.seconds,
               "op_db_entries": run.entries_total, "workers": workers,
               **({"shard": f"{shard[0] + 1}/{shard[1]}"} if shard is not None else {}),
               **({"build": build_figures} if build_figures else {})}
    doc = report_doc(run.torch_version, device.name, list(run.results), found, files, figures)
    json_path = write_json(out.top(VALIDATE_OPINFO_JSON), doc)
    md_path = out.top(VALIDATE_OPINFO_MD)
    write_atomic(md_path, render_markdown(doc, command).encode())
    return OpinfoOutcome(doc, json_path, md_path, exit_code(list(run.results), files))
