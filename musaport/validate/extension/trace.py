"""From a failure back to the port: the ported file it names, the rules that changed that file, the findings there.

Every phase of ``validate --extension`` names a failure's cause by its
first error; this says which of the port's decisions stand behind it.  A
``path:line`` in the error is looked up in ``porting_report.json`` (paths
are the port's: ``csrc/musa/x.mu``; findings are filed by the project's
paths, ``csrc/cuda/x.cu``): the rules applied to that file, and the
findings within a few lines of that line (all of that file's findings when
the error names no line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from musaport.outdir import OutDir

_SITE = re.compile(r"([\w./+-]+\.(?:mu|muh|cu|cuh|cpp|cc|cxx|h|hpp|py|txt)):(\d+)")
_PY_SITE = re.compile(r'File "([^"]+\.py)", line (\d+)')  # a Python traceback's frame
NEAR = 3  # lines around the error that a finding may sit on


@dataclass(frozen=True)
class Trace:
    """The ported files a failure names, their rules (rule id → sites changed), the findings near it."""

    files: list[str] = field(default_factory=list)
    rules: dict[str, int] = field(default_factory=dict)
    findings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"files": self.files, "rules": self.rules, "findings": self.findings}


class Tracer:
    """Lookups over one port's report."""

    def __init__(self, out: OutDir) -> None:
        report = out.porting_report()
        self.by_out: dict[str, str] = {}
        self.rules: dict[str, dict[str, int]] = {}
        for src, entry in (report.get("files") or {}).items():
            if isinstance(entry, dict) and "out" in entry:
                self.by_out[entry["out"]] = src
                self.rules[src] = dict(entry.get("rules") or {})
        self.findings = [f for f in report.get("findings") or [] if isinstance(f, dict) and "site" in f]

    def source_of(self, ported: str) -> str | None:
        """The project file a ported path (or a path ending in one) came from."""
        if ported in self.by_out:
            return self.by_out[ported]
        hits = [src for out, src in self.by_out.items() if ported.endswith("/" + out) or out.endswith("/" + ported)]
        return hits[0] if len(hits) == 1 else None

    def trace(self, text: str, fallback: list[str] | None = None, near: int | None = NEAR) -> Trace:
        """The ported files ``text`` names with a line (or ``fallback``, ported paths), and what changed them:
        their rules, and their findings within ``near`` lines of the line named (None: all of them)."""
        sites: list[tuple[str, int | None]] = []
        for path, line in _SITE.findall(text) + _PY_SITE.findall(text):
            src = self.source_of(path) or (path if path in self.rules else None)
            if src is not None and (src, int(line)) not in sites:
                sites.append((src, int(line)))
        if not sites:
            sites = [(s, None) for s in (self.source_of(p) for p in fallback or []) if s]
        files, rules, findings = [], {}, []
        for src, line in sites:
            out = next((o for o, s in self.by_out.items() if s == src), src)
            if out not in files:
                files.append(out)
            for rule, count in self.rules.get(src, {}).items():
                rules[rule] = rules.get(rule, 0) + count
            for f in self.findings:
                file, _, at = f["site"].rpartition(":")
                if file == src and (line is None or near is None or (at.isdigit() and abs(int(at) - line) <= near)):
                    text_ = f"{f['site']} {f.get('rule', '')}"
                    if text_ not in findings:
                        findings.append(text_)
        return Trace(files, dict(sorted(rules.items())), findings)
