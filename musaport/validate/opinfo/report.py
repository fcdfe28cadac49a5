"""The reports of ``validate --opinfo``: the JSON, the failures traced to the port and grouped by cause,
and the Markdown for people. Pure functions over results (no torch, no processes)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from musaport.cpp.parser import decode, parse
from musaport.diff.files import PROVENANCE_TAG, rules_by_line
from musaport.outdir import OutDir
from musaport.rewrite.apply import rewrite
from musaport.rewrite.rules import RuleSet
from musaport.validate.opinfo.differential import PortedOp, operators_of
from musaport.validate.opinfo.verdict import RUN, STATUSES, OpResult, error_kind, missing_operator



@dataclass
class Cause:
    """Failures that share one cause: the same ported files and the same kind of first error."""

    kind: str  # build-error | not-registered | fail | error | crash
    summary: str  # the error, without the numbers that vary
    files: tuple[str, ...]  # ported files (generated_cuda_compatible paths)
    rules: dict[str, int] = field(default_factory=dict)  # rules that changed those files (porting_report)
    operators: list[str] = field(default_factory=list)  # registered operators (musa_functions.yaml)
    kernels: list[str] = field(default_factory=list)
    entries: list[str] = field(default_factory=list)  # OpInfo entries it takes down
    first_error: str = ""  # the first error in full, of the first entry
    line_rules: dict[str, list[str]] = field(default_factory=dict)  # "file:line" the error cites -> rules

    def as_json(self) -> dict:
        return {"kind": self.kind, "summary": self.summary, "entries": self.entries, "operators": self.operators,
                "kernels": self.kernels, "files": list(self.files), "rules": self.rules,
                "line_rules": self.line_rules, "first_error": self.first_error}


def trace(result: OpResult, registered: dict[str, PortedOp], unregistered: dict[str, str] | None = None) -> tuple:
    """The cause of one entry that did not pass: (kind, summary, suspect operators, first error).

    The suspects are the registered operators behind the aten operator the device said it could not
    run, else the one the exception left, else every registered operator the entry dispatched. A
    suspect that did not build is the cause before the error it leads to.
    """
    bad = next(d for d in result.dtypes if d.status == result.status)
    first = f"{bad.dtype}: {bad.reason}"
    lacking = missing_operator(bad.reason)
    aten = [lacking] if lacking else [bad.failing_op] if bad.failing_op else list(bad.ops) or list(result.operators)
    suspects = operators_of(aten, registered) if aten else []
    broken = [op for op in suspects if op.built is False]
    if broken:
        op = broken[0]
        return "build-error", error_kind(op.error or "did not build"), broken, f"{op.name}: {op.error}"
    summary = error_kind(bad.reason)
    if lacking:
        if not suspects:
            short = lacking.split("::", 1)[-1]
            why = (unregistered or {}).get(short) or next(
                (v for k, v in (unregistered or {}).items() if k.split(".", 1)[0] == short.split(".", 1)[0]), "")
            summary += f" (musa_functions.yaml: {why})" if why else " (the port registers no kernel for it)"
        return "not-registered", summary, suspects, first
    return result.status, summary, suspects, first


def causes(results: list[OpResult], registered: dict[str, PortedOp], porting_report: dict,
           unregistered: dict[str, str] | None = None) -> list[Cause]:
    """Every entry that failed, errored or crashed, grouped by cause, the cause that takes most first."""
    files_doc = porting_report.get("files") or {}
    out_paths = {src: e.get("out", src) for src, e in files_doc.items() if isinstance(e, dict)}
    groups: dict[tuple, Cause] = {}
    for r in results:
        if r.status not in ("fail", "error", "crash"):
            continue
        kind, summary, suspects, first = trace(r, registered, unregistered)
        sources = sorted({f for op in suspects for f in op.files})
        ported = tuple(out_paths.get(s, s) for s in sources)
        key = (kind, summary, ported)
        cause = groups.get(key)
        if cause is None:
            rules: dict[str, int] = {}
            for s in sources:
                for rule, n in ((files_doc.get(s) or {}).get("rules") or {}).items():
                    rules[rule] = rules.get(rule, 0) + int(n)
            cause = groups[key] = Cause(kind, summary, ported, dict(sorted(rules.items())), first_error=first)
        cause.entries.append(r.key)
        for op in suspects:
            if op.name not in cause.operators:
                cause.operators.append(op.name)
            if op.kernel and op.kernel not in cause.kernels:
                cause.kernels.append(op.kernel)
    return sorted(groups.values(), key=lambda c: (-len(c.entries), c.kind, c.summary, c.files))


def report_doc(torch_version: str, device: str, results: list[OpResult], causes_: list[Cause],
               test_files: dict[str, dict] | None, figures: dict) -> dict:
    """``{"torch_version", "ops": {key: {status, reason, dtypes, files}}, "test_files", ...}``."""
    ops = {}
    for r in results:
        ops[r.key] = {
            "status": r.status,
            "reason": r.reason,
            "dtypes": {d.dtype: {"status": d.status, "samples": d.samples, "failed": d.failed,
                                 **({"rounding": d.rounding} if d.rounding else {}),
                                 **({"paths": d.paths} if d.paths else {}),
                                 **({"reference": d.reference} if d.reference else {}),
                                 **({"reason": d.reason} if d.reason else {})} for d in r.dtypes},
            "files": list(r.files),
            "operators": list(r.operators),
        }
    return {
        "torch_version": torch_version,
        "device": device,
        "summary": summary(results),
        "figures": figures,
        "ops": ops,
        "causes": [c.as_json() for c in causes_],
        "test_files": test_files or {},
    }


def summary(results: list[OpResult]) -> dict:
    """The counts of entries by status; ``one_dtype``: the entries as upstream's ``test_compare_cpu`` judges
    them, in one dtype each (``OpDTypes.any_common_cpu_cuda_one``: the first common dtype, which is the
    first the child lists), how many ran in it and how many pass."""
    counts = {s: 0 for s in STATUSES}
    first_ran = first_pass = 0
    for r in results:
        counts[r.status] += 1
        if r.dtypes and r.dtypes[0].status in RUN:
            first_ran += 1
            first_pass += r.dtypes[0].status == "pass"
    ran = sum(counts[s] for s in RUN)
    return {"entries": len(results), "ran": ran, **counts, "one_dtype": {"ran": first_ran, "pass": first_pass}}


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("`", "'").replace("\n", " ")


def render_markdown(doc: dict, command: str) -> str:
    """The Markdown report: counts, failures by cause (most entries first), test files, every entry."""
    s = doc["summary"]
    lines = [f"# validate --opinfo: PyTorch {doc['torch_version']} on '{doc['device']}'", "",
             f"`{command}`", "",
             f"{s['pass']} of {s['ran']} OpInfo entries that ran pass every sample in every dtype "
             f"({s['fail']} fail, {s['error']} error, {s['crash']} crash; {s['skip']} skipped). "
             "Each entry: every reference sample of every dtype its CPU and CUDA sets share, on the device and "
             "on the CPU, compared as `test_compare_cpu` does (`atol=rtol=1e-3`).", ""]
    one = s.get("one_dtype")
    if one:
        lines += [f"In one dtype per entry, as upstream's `test_compare_cpu` runs (the first dtype the CPU and CUDA "
                  f"share): {one['pass']} of {one['ran']} pass.", ""]
    if doc["causes"]:
        lines += ["## Failures by cause", "",
                  "The cause that takes down most entries first. Files are the ported files of the operators "
                  "involved (`musa_functions.yaml`); rules are those that changed them (`porting_report.json`; "
                  "`musaport diff OPERATOR` shows each changed line with its rule).", "",
                  "| # | kind | entries | operators (kernel) | ported files | rules | first error |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
        for i, c in enumerate(doc["causes"], 1):
            entries = ", ".join(c["entries"][:8]) + (f" (+{len(c['entries']) - 8})" if len(c["entries"]) > 8 else "")
            ops = ", ".join(f"{o}" for o in c["operators"][:4]) + (f" ({', '.join(c['kernels'][:2])})"
                                                                   if c["kernels"] else "")
            rules = "; ".join(f"line {where.rsplit(':', 1)[1]}: {', '.join(ids) or 'no rule'}"
                              for where, ids in c.get("line_rules", {}).items())
            rules = (rules + "; file: " if rules else "") + ", ".join(f"{r} ({n})" for r, n in list(c["rules"].items())[:6])
            lines.append(f"| {i} | {c['kind']} | {len(c['entries'])}: {_cell(entries)} | {_cell(ops)} | "
                         f"{_cell(', '.join(c['files']) or '-')} | {_cell(rules or '-')} | "
                         f"{_cell(c['first_error'][:300])} |")
        lines.append("")
    if doc["test_files"]:
        lines += ["## PyTorch's test files on the device", "",
                  "`CUDA branch`: failed tests whose own code checks for a CUDA device (a skip or a dtype list "
                  "that does not fire for a PrivateUse1 device running CUDA's kernels), or that the release's own "
                  "libtorch refused before any ported kernel ran (a `TORCH_CHECK` of its sources that admits CUDA "
                  "and not this device, found by its message), counted apart from `failed`; each is listed with "
                  "that line below. `CPU too`: failed tests whose CPU twin (the same test, for the CPU, in torch "
                  "without the device) failed with the same first error line, so neither the port nor the "
                  "device made them fail; counted apart from `failed` too, and listed below.", "",
                  "| file | passed | failed | CUDA branch | CPU too | skipped | errors | seconds | note |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for name, f in doc["test_files"].items():
            lines.append(f"| {name} | {f.get('passed', 0)} | {f.get('failed', 0)} | {f.get('cuda_branch', 0)} | "
                         f"{f.get('cpu_too', 0)} | "
                         f"{f.get('skipped', 0)} | {f.get('errors', 0)} | {f.get('seconds', '')} | "
                         f"{_cell(f.get('note', ''))} |")
        lines.append("")
        for name, f in doc["test_files"].items():
            lines += _file_causes(name, f.get("causes") or [])
            lines += _file_groups(name, f.get("cuda_branches") or [], "failed tests that branch on CUDA or "
                                  "expect CUDA's route, by that line", "branch")
            lines += _file_groups(name, f.get("cpu_too_causes") or [], "failed tests that fail alike on torch's "
                                  "own CPU, without the device, by their first error line", "error")
            lines += _file_groups(name, f.get("skip_reasons") or [], "skipped tests by reason", "reason")
    lines += ["## Every entry", "", "| entry | status | dtypes passed / ran | reason |", "| --- | --- | --- | --- |"]
    for key, op in doc["ops"].items():
        ran = [d for d in op["dtypes"].values() if d["status"] in RUN]
        passed = sum(d["status"] == "pass" for d in ran)
        lines.append(f"| {_cell(key)} | {op['status']} | {passed} / {len(ran)} | {_cell(op['reason'][:200])} |")
    return "\n".join(lines) + "\n"


FILE_CAUSES_SHOWN = 15


def _file_causes(name: str, groups: list[dict]) -> list[str]:
    """A test file's failures by their first error line, the line that fails most tests first."""
    if not groups:
        return []
    lines = [f"### {name}: failures by their first error line", "", "| tests | first error line | first test |",
             "| ---: | --- | --- |"]
    for g in groups[:FILE_CAUSES_SHOWN]:
        lines.append(f"| {g['tests']} | {_cell(g['error'])} | {_cell(g['example'])} |")
    rest = groups[FILE_CAUSES_SHOWN:]
    if rest:
        lines.append(f"| {sum(g['tests'] for g in rest)} | {len(rest)} other lines (in the JSON report) | |")
    return lines + [""]


def _file_groups(name: str, groups: list[dict], title: str, key: str) -> list[str]:
    """A test file's tests grouped by ``key`` (a CUDA branch's line, a skip's reason), most tests first."""
    if not groups:
        return []
    lines = [f"### {name}: {title}", "", f"| tests | {key} | first test |", "| ---: | --- | --- |"]
    for g in groups[:FILE_CAUSES_SHOWN]:
        lines.append(f"| {g['tests']} | {_cell(g[key])} | {_cell(g['example'])} |")
    rest = groups[FILE_CAUSES_SHOWN:]
    if rest:
        lines.append(f"| {sum(g['tests'] for g in rest)} | {len(rest)} others (in the JSON report) | |")
    return lines + [""]


_CITED = re.compile(r"((?:[\w.+-]+/)*[\w.+-]+\.(?:mu|muh|cpp|cc|h|hpp)):(\d+)")


def cited_line_rules(cause: Cause, out: OutDir, source: Path | None, rules: RuleSet | None) -> None:
    """When the first error cites ``file:line`` of a ported file, the rules behind that line, as
    ``musaport diff`` attributes them (the source re-ported with every edit traced).

    Sets ``cause.line_rules`` to ``{"file:line": [rule ids]}``; an error that cites no ported line, or a
    re-port that does not give the file OUT holds, leaves it empty (the per-file rules stay).
    """
    if source is None or rules is None:
        return
    by_out = {v: k for k, v in out.out_paths().items()}
    for match in _CITED.finditer(cause.first_error):
        cited, line = match.group(1), int(match.group(2))
        rel = next((o for o in by_out if o == cited or o.endswith("/" + cited) or cited.endswith("/" + o)), None)
        if rel is None:
            continue
        try:
            data = (source / by_out[rel]).read_bytes()
            shown = (out.tree / rel).read_bytes()
        except OSError:
            continue
        result = rewrite(parse(data), rules.rules, by_out[rel], trace=True)
        text = decode(shown)
        if not text.endswith(result.text):
            continue  # not the port these rules make: no attribution, as diff says
        found = rules_by_line(text, result.text, result.steps).get(line - 1, ())
        cause.line_rules[f"{rel}:{line}"] = [r for r in found if r != PROVENANCE_TAG]
        return
