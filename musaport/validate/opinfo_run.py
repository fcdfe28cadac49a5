"""``validate --opinfo`` from end to end: the device, the differential, the test files, the reports.

Independent of the command line: :func:`validate_opinfo` takes the device
(the ported backend loaded into the release's torch, or a stand-in) and
returns the report and the exit code; the CLI draws progress and the summary.

Exit code: 0 when everything that ran passed (every OpInfo entry that ran
passes in every dtype it ran; with ``--pytorch-tests`` every file ran with no
failure, no error and no timeout); 1 otherwise, and also when nothing ran.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from musaport.outdir import OutDir, write_atomic
from musaport.validate.opinfo import JOB_TIMEOUT, Device, PortedOp, run_opinfo, write_json
from musaport.validate.opinfo_report import REPORT_JSON, REPORT_MD, causes, render_markdown, report_doc
from musaport.validate.opinfo_tests import FILE_TIMEOUT, TEST_FILES, run_test_files
from musaport.validate.opinfo_verdict import exit_code

Progress = Callable[[str, int, int, str], None]  # phase, done, total, what


@dataclass(frozen=True)
class OpinfoOutcome:
    doc: dict
    json_path: Path
    md_path: Path
    code: int


def validate_opinfo(out: OutDir, device: Device, registered: dict[str, PortedOp], wanted: tuple[str, ...] = (),
                    workers: int = 1, pytorch_tests: bool = False, test_files: tuple[str, ...] = TEST_FILES,
                    job_timeout: float = JOB_TIMEOUT, file_timeout: float = FILE_TIMEOUT,
                    progress: Progress | None = None, log=print, command: str = "musaport validate --opinfo",
                    build_figures: dict | None = None) -> OpinfoOutcome:
    """Run the differential (and the test files), write both reports, return them with the exit code."""
    started = time.monotonic()
    run = run_opinfo(device, out, registered, wanted, workers, job_timeout,
                     (lambda d, t, w: progress("opinfo", d, t, w)) if progress else None, log)
    files = None
    if pytorch_tests:
        source = out.source()
        tree = source if source is not None else Path(".")
        results = run_test_files(device, tree, out.work("opinfo") / "tests", test_files, file_timeout,
                                 (lambda d, t, w: progress("tests", d, t, w)) if progress else None, log)
        files = {r.name: r.as_json() for r in results}
    found = causes(list(run.results), registered, out.porting_report())
    figures = {"seconds": round(time.monotonic() - started, 1), "opinfo_seconds": run.seconds,
               "op_db_entries": run.entries_total, "workers": workers, **({"build": build_figures}
                                                                          if build_figures else {})}
    doc = report_doc(run.torch_version, device.name, list(run.results), found, files, figures)
    json_path = write_json(out.root / REPORT_JSON, doc)
    md_path = out.root / REPORT_MD
    write_atomic(md_path, render_markdown(doc, command).encode())
    return OpinfoOutcome(doc, json_path, md_path, exit_code(list(run.results), files))
