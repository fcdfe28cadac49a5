"""How ``musaport diff`` looks: plain text, rich colour, ``--stat`` and JSON.

One layout for plain and colour: each output line is a (style, text, rules)
triple; the plain renderer joins them, the rich one highlights the code as
C++ and colours the diff marks and the rule ids.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Iterator

from musaport.diff.files import FileDiff
from musaport.diff.operator import OpDiff

RULE_COLUMN = 100
Row = tuple[str, str, tuple[str, ...]]  # (style: title|meta|file|hunk|ctx|del|add|code, text, rules)
_TAGS = {" ": "ctx", "-": "del", "+": "add", "@": "hunk"}


def rows(diff: OpDiff) -> Iterator[Row]:
    """The whole report, line by line: operators, file diffs, registration code."""
    yield from _operator_rows(diff)
    for f in diff.files:
        yield from file_rows(f)
    yield ("title", "registration generated for PrivateUse1 (RegisterMUSA.cpp):" if diff.registration
           else f"registration: none ({diff.note})", ())
    for line in diff.registration.splitlines():
        yield ("code", line, ())


def _operator_rows(diff: OpDiff) -> Iterator[Row]:
    n = len(diff.operators)
    yield ("title", f"musaport diff {diff.query}: {n} operator{'s' * (n != 1)} in {diff.source}", ())
    width = max(len(op.name) for op in diff.operators)
    for op in diff.operators:
        extra = f", stubs {', '.join(op.stubs)}" if op.stubs else ""
        extra += f", delegates to {op.delegate}" if op.delegate else ""
        extra += f", {op.reason}" if op.reason else ""
        yield ("meta", f"  {op.name:<{width}}  {op.kind}: kernel {op.kernel}{extra}", ())
        yield ("meta", f"  {'':<{width}}  {op.schema}", ())
    if not diff.files:
        yield ("meta", "  no ported file defines or registers these operators", ())


def file_rows(f: FileDiff) -> Iterator[Row]:
    """``--- source`` / ``+++ port`` and the hunks, each change with its rules."""
    yield ("file", f"--- {f.src}", ())
    note = " (ported in memory: OUT holds no port of it)" if f.origin == "memory" and not f.foreign else ""
    yield ("file", f"+++ {f.out}{note}", ())
    if f.foreign:
        yield ("meta", f"    ({f.foreign})", ())
    if not f.attributed:
        yield ("meta", "    (rule ids unavailable: re-porting with these packs does not give the file shown)", ())
    if not f.lines:
        yield ("meta", "    (the port is identical to the source)", ())
    for line in f.lines:
        yield (_TAGS[line.tag], line.text if line.tag == "@" else line.tag + line.text, line.rules)


def render_plain(diff: OpDiff) -> str:
    """No colour: rule ids in a column after the code."""
    return "".join(_plain_row(r) + "\n" for r in rows(diff))


def _plain_row(row: Row) -> str:
    _, text, rules = row
    if not rules:
        return text
    return f"{text:<{RULE_COLUMN}}  [{', '.join(rules)}]"


def render_stat(diff: OpDiff) -> str:
    """Per file: added and removed lines and the rules that fired; then the totals."""
    lines = []
    for f in diff.files:
        fired = ", ".join(f"{rule} ({n})" for rule, n in sorted(f.fired.items())) or "no rule fired"
        lines.append(f"{f.src} -> {f.out} | +{f.added} -{f.removed} | {fired}")
        if f.foreign:
            lines.append(f"  ({f.foreign})")
    if not diff.files:
        lines += [f"{op.name}: {op.kind}{': ' + op.reason if op.reason else ''}" for op in diff.operators]
    added, removed = sum(f.added for f in diff.files), sum(f.removed for f in diff.files)
    lines.append(f"{len(diff.files)} file{'s' * (len(diff.files) != 1)} changed, "
                 f"{added} insertions(+), {removed} deletions(-)")
    return "\n".join(lines) + "\n"


def to_json(diff: OpDiff) -> dict:
    """Everything for machines: operators, per-file hunks with rule ids, registration text."""
    return {
        "query": diff.query,
        "source": diff.source,
        "operators": [asdict(op) for op in diff.operators],
        "files": [_file_json(f) for f in diff.files],
        "registration": diff.registration,
        "note": diff.note,
    }


def _file_json(f: FileDiff) -> dict:
    return {
        "src": f.src, "out": f.out, "origin": f.origin, "attributed": f.attributed, "foreign": f.foreign,
        "added": f.added, "removed": f.removed, "fired": f.fired,
        "lines": [{"tag": ln.tag, "text": ln.text, "rules": list(ln.rules)} for ln in f.lines],
    }


_STYLES = {"title": "bold", "meta": "dim", "file": "bold", "hunk": "cyan", "del": "red", "add": "green"}


def render_rich(diff: OpDiff, console) -> None:
    """Colour: C++ highlighting of the code, red/green marks, rule ids in yellow."""
    from rich.syntax import Syntax
    from rich.text import Text

    syntax = Syntax("", "cpp", theme="ansi_dark", background_color="default")
    for style, text, rules in rows(diff):
        if style in ("ctx", "del", "add", "code"):
            mark = "" if style == "code" else text[:1]
            body = syntax.highlight(text[len(mark):])
            body.rstrip()
            line = Text(mark, style=_STYLES.get(style, "")) + body
            if style != "ctx" and style != "code":
                line.stylize("on #2a0000" if style == "del" else "on #002a00")
        else:
            line = Text(text, style=_STYLES[style])
        if rules:
            line.pad_right(max(0, RULE_COLUMN - line.cell_len))
            line.append(f"  [{', '.join(rules)}]", style="yellow")
        console.print(line, soft_wrap=True)
