"""The one Report object: counts, per-file outcomes, totals and the exit code.

Report files hold only what follows from the input and the rules (no
timings, no "written this run" counts), so a second run over the same input
writes byte-identical reports, whatever ``--jobs`` was.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from typing import Any

from musaport import __version__
from musaport.errors import EXIT_FAILED, EXIT_OK
from musaport.port.file import UNSCANNED_INLINE, FileResult, FileStatus, family
from musaport.port.layout import Skipped, printable
from musaport.resources import render_template



@dataclass
class Report:
    """Collects outcomes; renders JSON and Markdown; owns the return code."""

    source: str
    results: list[FileResult] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    written: int = 0
    removed: int = 0
    reused: int = 0
    generated: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # generated outputs that could not be made, and why
    removed_files: list[str] = field(default_factory=list)  # stale outputs this run deleted
    kept: list[str] = field(default_factory=list)  # files in the tree the tool did not write
    stored: dict[str, Any] | None = None

    @classmethod
    def from_summary(cls, source: str, summary: dict[str, Any], reused: int) -> "Report":
        """A report for a run that changed nothing: the last run's summary stands."""
        return cls(source=source, reused=reused, stored=summary)

    def summary(self) -> dict[str, Any]:
        """What the terminal shows: counts, the most used unmapped names, totals."""
        if self.stored is not None:
            return self.stored
        unmapped = self.unmapped()
        return {
            "counts": self.counts(),
            "unmapped_names": len(unmapped),
            "unmapped_top": [[u["name"], u["count"]] for u in unmapped[:8]],
            "kept_names": len(self.kept_cuda_names()),
            "unscanned": len(self.unscanned()),
            "findings": len(self.findings()),
            "warnings": len(self.warnings()),
            "problems": list(self.problems),
            "python": self.python(),
        }

    def add(self, result: FileResult) -> None:
        self.results.append(result)

    @property
    def failed(self) -> list[FileResult]:
        return [r for r in self.results if r.status == FileStatus.FAILED]

    @property
    def return_code(self) -> int:
        """0 when every file ported and every output was generated; 1 when a file failed (the
        output was not updated) or a generated output could not be made."""
        return EXIT_FAILED if self.failed or self.problems else EXIT_OK

    def counts(self) -> dict[str, int]:
        c = Counter(r.status for r in self.results)
        return {s.value: c.get(s, 0) for s in FileStatus} | {
            "skipped": len(self.skipped),
            "total": len(self.results),
        }

    def rule_totals(self) -> dict[str, dict[str, int]]:
        """Per rule: matches and files, sorted by rule id."""
        matches: Counter[str] = Counter()
        files: Counter[str] = Counter()
        for r in self.results:
            for rule, n in r.fired.items():
                matches[rule] += n
                files[rule] += 1
        return {k: {"matches": matches[k], "files": files[k]} for k in sorted(matches)}

    def unmapped(self) -> list[dict]:
        """Every CUDA API name left in code, most frequent first, with its family and sites."""
        return [{"name": n, "family": family(n), "count": count, "sites": where}
                for n, count, where in self._name_uses(self._left_in())]

    def _left_in(self):
        """A result's unmapped names less those the project declares in any of its files (a header's struct
        member ``nv_enc_state`` used in a ``.cpp``): each file drops its own at scan time, the report the rest."""
        own = {n for r in self.results for n in r.declared}
        return lambda r: [u for u in r.unmapped if u[0] not in own] if own else r.unmapped

    def _name_uses(self, names_of) -> list[tuple[str, int, list[str]]]:
        """(name, uses, ``file:line`` sites) of the names ``names_of(result)`` gives, most used first."""
        uses: Counter[str] = Counter()
        sites: dict[str, dict[str, None]] = defaultdict(dict)
        for r in sorted(self.results, key=lambda r: r.src):
            for name, line in names_of(r):
                uses[name] += 1
                sites[name][f"{r.src}:{line}"] = None
        return [(n, uses[n], list(sites[n])) for n in sorted(uses, key=lambda n: (-uses[n], n))]

    def unscanned(self) -> list[str]:
        """Where code the leftover scan could not read stands (``file:line``), so "none" would claim too much."""
        return [f"{r.src}:{f.line}" for r in sorted(self.results, key=lambda r: r.src) for f in r.findings
                if f.rule == UNSCANNED_INLINE]

    def kept_cuda_names(self) -> list[dict]:
        """The CUDA spellings left on purpose, each with the reason the keep-list gives, most frequent first."""
        from musaport.port.file import kept

        return [{"name": n, "reason": kept(n), "count": count, "sites": where}
                for n, count, where in self._name_uses(lambda r: r.kept)]

    def families(self, unmapped: list[dict] | None = None) -> list[dict]:
        """Unmapped names per library family: names, uses and files, most files first."""
        names: Counter[str] = Counter()
        uses: Counter[str] = Counter()
        files: dict[str, set[str]] = defaultdict(set)
        for u in self.unmapped() if unmapped is None else unmapped:
            names[u["family"]] += 1
            uses[u["family"]] += u["count"]
            files[u["family"]].update(site.rpartition(":")[0] for site in u["sites"])
        ordered = sorted(names, key=lambda f: (-len(files[f]), f))
        return [{"family": f, "names": names[f], "uses": uses[f], "files": len(files[f])} for f in ordered]

    def findings(self) -> list[dict]:
        """Flags and lossy rewrites with file:line, in file order."""
        out = []
        for r in sorted(self.results, key=lambda r: r.src):
            for f in r.findings:
                out.append({"rule": f.rule, "site": f"{r.src}:{f.line}", "text": f.text, "message": f.message})
        return out

    def warnings(self) -> list[str]:
        out = [f"{s.rel}: {s.reason}" for s in self.skipped if s.warn]
        for r in sorted(self.results, key=lambda r: r.src):
            out.extend(f"{r.src}: {w}" for w in r.warnings)
        out.extend(f"{printable(rel)}: in the output tree but not written by musaport (kept)" for rel in self.kept)
        return out

    def python(self) -> dict[str, int] | None:
        """The project's own Python in a ``run --src`` port (every ``.py`` but its ``setup.py`` build files,
        see ``musaport.pyport``): files per outcome, rewrites, findings, files copied unparsed; None when
        the run has none."""
        mine = [r for r in self.results if r.src.endswith(".py") and r.src.rpartition("/")[2] != "setup.py"]
        if not mine:
            return None
        c = Counter(r.status for r in mine)
        return {"files": len(mine)} | {s.value: c.get(s, 0) for s in FileStatus} | {
            "rewrites": sum(sum(r.fired.values()) for r in mine),
            "findings": sum(len(r.findings) for r in mine),
            "not_parsed": sum(1 for r in mine if any(w.endswith("(not ported)") for w in r.warnings)),
        }

    def to_json(self) -> dict:
        unmapped = self.unmapped()
        left = self._left_in()
        files = {
            r.src: {
                "out": r.out,
                "status": r.status,
                "src_hash": r.src_hash,
                "rules": r.fired,
                "unmapped": len(left(r)),
            }
            for r in sorted(self.results, key=lambda r: r.src)
        }
        return {
            "tool": f"musaport {__version__}",
            "source": self.source,
            "summary": self.counts(),
            **({"python": py} if (py := self.python()) is not None else {}),
            "rules": self.rule_totals(),
            "unmapped": unmapped,
            "unmapped_families": self.families(unmapped),
            "kept_cuda_names": self.kept_cuda_names(),
            "unscanned": self.unscanned(),
            "findings": self.findings(),
            "warnings": self.warnings(),
            "not_generated": list(self.problems),
            "skipped": [{"path": s.rel, "reason": s.reason} for s in sorted(self.skipped, key=lambda s: s.rel)],
            "generated": self.generated,
            "removed": self.removed_files,
            "files": files,
        }

    def render_json(self) -> str:
        return json.dumps(self.to_json(), indent=2, sort_keys=False) + "\n"

    def render_markdown(self) -> str:
        return render_template("porting_report.md.j2", report=self.to_json())
