"""``validate --extension --src PROJECT``: the port made first, so that one command is the whole proof.

The port is exactly ``musaport run --src PROJECT --out EXT_OUT`` with the rules a bare run uses (the
bundled packs and the extension packs): the same function, the same output, reused when nothing changed.
A port that fails (a file that does not port, an output that could not be made) stops the command
before the device or the compiler is asked for anything, as ``run`` itself would stop.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from musaport.errors import LoadError
from musaport.outdir import OutDir
from musaport.resources import run_packs


@dataclass(frozen=True)
class Ported:
    """What the port phase did: the counts its report gives, for the terminal and the report."""

    source: str
    files: int
    ported: int
    written: int
    reused: int
    unmapped: int
    findings: int

    def line(self) -> str:
        unmapped = f"{self.unmapped} unmapped CUDA names" if self.unmapped else "no unmapped CUDA name left"
        return (f"PASS port {self.source}: {self.files} files, {self.ported} ported, {self.written} written, "
                f"{self.reused} reused; {unmapped}; {self.findings} findings to review")


def port_project(source: Path, out: OutDir, jobs: int) -> Ported:
    """Port ``source`` into ``out`` as ``musaport run --src`` does; a LoadError when the port fails."""
    from musaport.extension.generate import extension_options
    from musaport.port.run import run

    opts, config = extension_options(source, out.root, run_packs(extension=True), jobs)
    report = run(opts, config)
    if report.return_code:
        why = "; ".join([*(f"{f.src}: {'; '.join(f.warnings)}" for f in report.failed[:3]),
                         *report.summary().get("problems", [])[:3]])
        raise LoadError(f"{source}: the port failed ({why}); 'musaport run --src {source} --out {out.root}' "
                        "says the same; the phases did not run")
    summary = report.summary()
    counts = summary["counts"]
    return Ported(str(source), counts["total"], counts["ported"], report.written, report.reused,
                  summary["unmapped_names"], summary["findings"])
