"""Apply an ordered rule set to one parsed file: text in, text and facts out.

Find first, edit second (as pyupgrade does): each rule finds its matches in a
*masked view* of the current text, where every character outside the rule's
contexts is hidden, then its edits are applied back to front and the context
spans are shifted so the next rule sees the new text with correct contexts.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterator

from musaport.cpp.parser import CODE, MASK, Parsed, Span, context_at, masked
from musaport.cpp.text import CODE_ONLY, LineIndex, from_heads
from musaport.rewrite.rules import Rule


class RuleTimeout(Exception):
    """A rule ran past the caller's time bound (a ``TimeoutError`` raised while it matched); names it."""

    def __init__(self, rule: Rule) -> None:
        super().__init__(f"rule '{rule.id}' ({rule.where}) was still matching when the time bound ran out: "
                         "a pattern that backtracks catastrophically (like (a+)+$)?")
        self.rule = rule


@dataclass(frozen=True)
class Finding:
    """Something a rule reports at a line: a flag, or a lossy rewrite."""

    rule: str
    line: int
    text: str
    message: str


@dataclass(frozen=True)
class Rewritten:
    """The result of rewriting one file."""

    text: str
    spans: tuple[Span, ...]
    fired: dict[str, int]
    findings: tuple[Finding, ...]
    views: dict[frozenset[str], str] = field(default_factory=dict, compare=False, repr=False)
    # With trace=True: each applying rule's edits (start, end, new text), in the
    # coordinates of the text that rule saw, in the order the rules ran.
    steps: tuple[tuple[str, tuple[tuple[int, int, str], ...]], ...] = field(default=(), compare=False, repr=False)


@dataclass
class _State:
    text: str
    spans: list[Span]
    views: dict[frozenset[str], str] = field(default_factory=dict)
    lines: LineIndex | None = None
    absent: set[str] = field(default_factory=set)
    present: set[str] = field(default_factory=set)

    def has_any(self, needles: tuple[str, ...]) -> bool:
        """Whether the text may contain one of ``needles`` (memoised per file).

        A needle once seen counts as present for good (at worst the rule scans
        and finds nothing); an absent one is re-checked only around edits.
        """
        for n in needles:
            if n in self.present:
                return True
            if n in self.absent:
                continue
            if n in self.text:
                self.present.add(n)
                return True
            self.absent.add(n)
        return False

    def recheck_absent(self, edits: list[tuple[int, int, str]]) -> None:
        """After edits, a needle can only have appeared in or across new text."""
        if not self.absent:
            return
        reach = max(len(n) for n in self.absent)
        windows = []
        delta = 0
        for start, end, new in edits:
            at = start + delta
            windows.append(self.text[max(0, at - reach) : at + len(new) + reach])
            delta += len(new) - (end - start)
        joined = "\x00".join(windows)
        found = {n for n in self.absent if n in joined}
        self.absent -= found

    def view(self, contexts: frozenset[str]) -> str:
        if contexts not in self.views:
            self.views[contexts] = masked(self.text, self.spans, contexts)
        return self.views[contexts]

    def line_of(self, pos: int) -> int:
        if self.lines is None:
            self.lines = LineIndex(self.text)
        return self.lines(pos)


def rewrite(
    parsed: Parsed, rules: tuple[Rule, ...], path: str, views: dict[frozenset[str], str] | None = None,
    trace: bool = False,
) -> Rewritten:
    """Run every applicable rule over ``parsed`` in order.

    ``views`` may hand in masked views already built for ``parsed``; the
    result carries the final ones, so callers need not mask again.
    ``trace`` keeps every rule's edits, so ``musaport diff`` can name the rule
    behind each changed line (a port does not need them).
    """
    state = _State(parsed.text, list(parsed.spans), dict(views or {}))
    fired: Counter[str] = Counter()
    findings: list[Finding] = []
    steps: list[tuple[str, tuple[tuple[int, int, str], ...]]] = []
    for rule in rules:
        if not rule.applies_to(path) or (rule.needles and not state.has_any(rule.needles)):
            continue
        try:
            edits = _find(rule, state, findings)
        except TimeoutError:  # the caller's time bound (port.concurrency): say which rule
            raise RuleTimeout(rule) from None
        if edits:
            fired[rule.id] += len(edits)
            if trace:
                steps.append((rule.id, tuple(edits)))
            _apply(state, edits)
        elif rule.unit.reports and any(f.rule == rule.id for f in findings):
            fired[rule.id] += sum(1 for f in findings if f.rule == rule.id)
    return Rewritten(state.text, tuple(state.spans), dict(sorted(fired.items())), tuple(findings), state.views,
                     tuple(steps))


def _find(rule: Rule, state: _State, findings: list[Finding]) -> list[tuple[int, int, str]]:
    """Matches of one rule as edits (start, end, new text); flags go to findings."""
    view = state.view(rule.contexts)
    replace = rule.replacement()
    edits: list[tuple[int, int, str]] = []
    unless = rule.unless  # asked at the first match, so a file without one pays nothing for it
    for m in matches(rule, view, _windows(rule, state)):
        matched = m.group(0)
        if MASK in matched or (rule.keep and rule.keep.search(matched)):
            continue
        if unless is not None:
            if unless.search(state.view(CODE_ONLY)):
                return []
            unless = None
        if replace is None:
            findings.append(Finding(rule.id, state.line_of(m.start()), matched, rule.message))
            continue
        new = replace(m)
        if new is None or new == matched:
            continue
        if rule.lossy:
            findings.append(Finding(rule.id, state.line_of(m.start()), matched, f"lossy: {rule.why}"))
        edits.append((m.start(), m.end(), new))
    return edits


def _windows(rule: Rule, state: _State) -> list[tuple[int, int]]:
    """Where to search: the whole text, or only the spans of a non-code rule."""
    if CODE in rule.contexts:
        return [(0, len(state.text))]
    return [(s.start, s.end) for s in state.spans if s.context in rule.contexts]


def matches(rule: Rule, view: str, windows: list[tuple[int, int]]) -> Iterator[re.Match[str]]:
    """Non-overlapping matches of the rule's pattern, as ``finditer`` would give.

    With a scan regex (the pattern minus leading assertions) candidates are
    found fast and confirmed with the full pattern at the same position.
    """
    identifiers = rule.unit.scans_identifiers(rule)
    if rule.by_line and rule.words is None and not identifiers:
        windows = [line for start, end in windows for line in needle_lines(view, rule.needles, start, end)]
    for start, end in windows:
        if rule.words is not None:
            yield from _words(rule.words, view, start, end)
            continue
        if identifiers:
            yield from _identifiers(rule.scan, view, start, end)  # type: ignore[arg-type]
            continue
        if rule.scan is None:
            yield from rule.regex.finditer(view, start, end)
            continue
        yield from from_heads(rule.scan, rule.regex, view, start, end)


def needle_lines(view: str, needles: tuple[str, ...], start: int, end: int) -> list[tuple[int, int]]:
    """The lines of ``view[start:end]`` that hold one of ``needles``, as windows in text order.

    For a rule none of whose matches can hold a newline (``Rule.by_line``)
    and each of which holds a needle, searching these windows finds the very
    matches a search of the whole window finds: a window ends at a newline,
    where ``\\b``, ``$`` and a lookahead see what they would see there anyway,
    and starts after one, which lookbehinds still see. The needles are found
    at C speed, once per line that holds them.
    """
    found: dict[int, int] = {}
    for needle in needles:
        i = view.find(needle, start, end)
        while i >= 0:
            line_start = max(start, view.rfind("\n", start, i) + 1)
            line_end = view.find("\n", i, end)
            line_end = end if line_end < 0 else line_end
            found[line_start] = line_end
            i = view.find(needle, line_end, end) if line_end < end else -1
    return sorted(found.items())


# Bytes that can be part of a word; every other byte (and any byte of a non-ASCII character) splits.
_WORD_BYTES = bytes(c if chr(c).isalnum() or c == ord("_") else ord(" ") for c in range(128)) + b" " * 128
_WORD_AT = re.compile(r"(?<!\w)\w+")


def _words(keys: frozenset[bytes], view: str, start: int, end: int) -> Iterator[re.Match[str]]:
    """The whole words of ``view[start:end]`` that are ``keys`` (a names rule's matches), in order.

    The window is split into ASCII words in C (a non-ASCII character splits
    too, so every ASCII word of the text is among them, with at most some
    extra pieces) and intersected with the keys; each occurrence of a key that
    is found is then confirmed as a whole word by the regex engine (not
    preceded by a word character, not followed by one before ``end``).  Only
    the few keys a file holds cost Python work, not each of its identifiers.
    """
    text = view[start:end] if start or end != len(view) else view
    found = keys.intersection(text.encode("ascii", "replace").translate(_WORD_BYTES).split())
    if not found:
        return
    at: list[int] = []
    for key in found:
        word = key.decode()
        i = view.find(word, start, end)
        while i >= 0:
            m = _WORD_AT.match(view, i, end)
            if m is not None and m.end() == i + len(word):
                at.append(i)
            i = view.find(word, i + 1, end)
    for i in sorted(at):
        yield _WORD_AT.match(view, i, end)  # type: ignore[misc]


def _identifiers(scan: re.Pattern[str], view: str, start: int, end: int) -> Iterator[re.Match[str]]:
    """Whole identifiers found by a names rule's prefix scan.

    A candidate preceded by a word character is the tail of a longer
    identifier; the scan already consumed that identifier, so skipping it
    loses nothing.
    """
    for m in scan.finditer(view, start, end):
        pos = m.start()
        if pos and (view[pos - 1].isalnum() or view[pos - 1] == "_"):
            continue
        yield m


def _apply(state: _State, edits: list[tuple[int, int, str]]) -> None:
    """Splice edits into the text and shift every span after them."""
    pieces: list[str] = []
    pos = 0
    for start, end, new in edits:
        pieces.append(state.text[pos:start])
        pieces.append(new)
        pos = end
    pieces.append(state.text[pos:])
    contexts = [context_at(state.spans, start) for start, _, _ in edits]
    state.views = {allowed: _splice(view, edits, contexts, allowed) for allowed, view in state.views.items()}
    state.text = "".join(pieces)
    state.spans = _shift(state.spans, edits)
    state.lines = None
    state.recheck_absent(edits)


def _splice(view: str, edits: list[tuple[int, int, str]], contexts: list[str], allowed: frozenset[str]) -> str:
    """Apply edits to a masked view: new text shows only where its context is allowed."""
    pieces: list[str] = []
    pos = 0
    for (start, end, new), ctx in zip(edits, contexts):
        pieces.append(view[pos:start])
        pieces.append(new if ctx in allowed else MASK * len(new))
        pos = end
    pieces.append(view[pos:])
    return "".join(pieces)


def _shift(spans: list[Span], edits: list[tuple[int, int, str]]) -> list[Span]:
    """Move span boundaries by the size change of the edits before them.

    An edit never straddles a span boundary (masked matches cannot), so a
    span start moves by the edits that end at or before it, and a span end by
    the edits that start before it (an insertion right after a span stays out).
    """
    if not spans:
        return spans
    starts = [s for s, _, _ in edits]
    ends = [e for _, e, _ in edits]
    deltas = [0]
    for start, end, new in edits:
        deltas.append(deltas[-1] + len(new) - (end - start))
    first = bisect_right(spans, starts[0], key=lambda s: s.end)  # spans wholly before every edit keep
    return spans[:first] + [
        Span(s.start + deltas[bisect_right(ends, s.start)], s.end + deltas[bisect_left(starts, s.end)], s.context)
        for s in spans[first:]
    ]
