"""The CUDA → MUSA diff of source files, with the rule behind every changed line.

The ported text is what the user has (``OUT/generated_cuda_compatible``) or,
when OUT holds no port of a file, the port made here in memory.  Rules are
attributed by porting the source again with ``rewrite(..., trace=True)`` and
following each rule's edits through the later ones to the final text; when
that re-port does not reproduce the shown file (other packs, a stale OUT) the
diff is still shown, marked unattributed.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from pathlib import Path

from musaport.cpp.parser import decode, parse
from musaport.outdir import OutDir
from musaport.port.file import PROVENANCE, provenance, sha256
from musaport.rewrite.apply import rewrite
from musaport.rewrite.rules import RuleSet
from musaport.rewrite.transforms import rename_path

PROVENANCE_TAG = "provenance"
Edits = tuple[tuple[int, int, str], ...]


@dataclass(frozen=True)
class DiffLine:
    """One line of a unified diff: ``tag`` is one of ``@ - + ' '``; ``rules`` only on changes."""

    tag: str
    text: str
    rules: tuple[str, ...] = ()


@dataclass(frozen=True)
class FileDiff:
    """A source file against its port."""

    src: str
    out: str
    origin: str  # "out" (read from OUT) | "memory" (ported here)
    lines: tuple[DiffLine, ...]
    fired: dict[str, int]
    attributed: bool
    # When OUT's file was ported from another version of this source (its provenance line's hash
    # differs: OUT holds the port of another tree or release), why it is not the file shown.
    foreign: str = ""

    @property
    def added(self) -> int:
        return sum(1 for ln in self.lines if ln.tag == "+")

    @property
    def removed(self) -> int:
        return sum(1 for ln in self.lines if ln.tag == "-")


def diff_files(source: Path, out: OutDir, files: list[str], rules: RuleSet, context: int = 3) -> list[FileDiff]:
    """The diff of each tree-relative source file (I/O here; the rest is pure)."""
    mapping = out.out_paths()
    diffs = []
    for src in files:
        data = (source / src).read_bytes()
        rel = mapping.get(src, rename_path(src))
        shown = out.tree / rel
        ported = shown.read_bytes() if src in mapping and shown.is_file() else None
        diffs.append(file_diff(src, rel, data, ported, rules, context))
    return diffs


def file_diff(src: str, out: str, data: bytes, ported: bytes | None, rules: RuleSet, context: int = 3) -> FileDiff:
    """Diff ``data`` against ``ported`` (or against its port made here when None)."""
    text = decode(data)
    digest = sha256(data)
    result = rewrite(parse(data), rules.rules, src, trace=True)
    fresh = text if result.text == text else provenance(src, digest, text) + result.text
    foreign = ""
    ported_from = _provenance_hash(ported) if ported is not None else ""
    if ported_from and ported_from != digest[:16]:
        # Diffing this source against the port of another version would show the upstream drift
        # as port edits; the port made here is the right one to show, and the note says why.
        foreign = (f"OUT's {out} was ported from another version of this file (sha256 {ported_from}, this tree's "
                   f"is {digest[:16]}): OUT holds the port of another tree or release; shown: this file ported "
                   "in memory")
        ported = None
    shown = fresh if ported is None else decode(ported)
    attributed = shown == fresh or (shown.startswith(PROVENANCE) and shown.endswith(result.text))
    line_rules = rules_by_line(shown, result.text, result.steps) if attributed else {}
    lines = unified(text, shown, line_rules, context)
    return FileDiff(src, out, "memory" if ported is None else "out", lines, dict(result.fired), attributed, foreign)


_HASH = re.compile(r"\(sha256 ([0-9a-f]{16})\)\r?$")


def _provenance_hash(ported: bytes) -> str:
    """The source hash in a ported file's provenance line ('' when it has none)."""
    first = decode(ported[:4096]).split("\n", 1)[0]
    if not first.startswith(PROVENANCE):
        return ""
    m = _HASH.search(first)
    return m.group(1) if m else ""


def final_ranges(steps: tuple[tuple[str, Edits], ...]) -> list[tuple[int, int, str]]:
    """Where each rule's new text sits in the final text: (start, end, rule id).

    Every step's edits are in the coordinates of the text that rule saw;
    ranges recorded earlier are moved by the size change of later edits.
    """
    ranges: list[tuple[int, int, str]] = []
    for rule, edits in steps:
        ranges = [(_moved(a, edits), _moved(b, edits), r) for a, b, r in ranges]
        delta = 0
        for start, end, new in edits:
            ranges.append((start + delta, start + delta + len(new), rule))
            delta += len(new) - (end - start)
    return sorted(ranges)


def _moved(pos: int, edits: Edits) -> int:
    """``pos`` after ``edits``: shifted by the edits before it, clamped into one it falls in."""
    delta = 0
    for start, end, new in edits:
        if end <= pos:
            delta += len(new) - (end - start)
        elif start < pos:
            return start + delta + len(new)
        else:
            break
    return pos + delta


def rules_by_line(shown: str, rewritten: str, steps: tuple[tuple[str, Edits], ...]) -> dict[int, tuple[str, ...]]:
    """Rule ids per 0-based line of ``shown`` (the rewritten text, maybe after a provenance line)."""
    base = len(shown) - len(rewritten)
    starts = [0] + [i + 1 for i, ch in enumerate(shown) if ch == "\n"]
    found: dict[int, list[str]] = {}
    if base:
        found[0] = [PROVENANCE_TAG]
    for a, b, rule in final_ranges(steps):
        first = bisect_right(starts, base + a) - 1
        last = max(first, bisect_left(starts, base + b) - 1)
        for line in range(first, last + 1):
            if rule not in found.setdefault(line, []):
                found[line].append(rule)
    return {line: tuple(rules) for line, rules in found.items()}


def unified(old: str, new: str, line_rules: dict[int, tuple[str, ...]], context: int = 3) -> tuple[DiffLine, ...]:
    """Unified-diff hunks of ``old`` → ``new`` with each changed line's rules."""
    a, b = old.splitlines(), new.splitlines()
    out: list[DiffLine] = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context):
        (_, i1, _, j1, _), (_, _, i2, _, j2) = group[0], group[-1]
        out.append(DiffLine("@", f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@"))
        for op, ai, aj, bi, bj in group:
            if op == "equal":
                out += [DiffLine(" ", ln) for ln in a[ai:aj]]
                continue
            removed_rules = () if bj > bi else line_rules.get(bi, ())
            out += [DiffLine("-", ln, removed_rules) for ln in a[ai:aj]]
            out += [DiffLine("+", b[k], line_rules.get(k, ())) for k in range(bi, bj)]
    return tuple(out)


def _range(start: int, end: int) -> str:
    """The ``start,count`` of a hunk header, as diff -u writes it."""
    count = end - start
    return f"{start + 1 if count else start},{count}" if count != 1 else f"{start + 1}"
