"""Small text facts every C++ reader here needs: the code view, brackets, lines.

One bracket matcher and one line index for the whole package, so the
scanner, the launch converter and the scope tracker agree on what a body or
an argument list is and on which line an offset sits.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Iterator

from musaport.cpp.parser import CODE

CODE_ONLY = frozenset({CODE})
"""The contexts of the code view: comments, strings and include targets masked."""

_PAIRS = {"(": ")", "{": "}", "[": "]"}


def matching(code: str, start: int) -> int:
    """Offset of the bracket closing the one at ``start`` (-1 when unbalanced).

    Only brackets of the same kind count: in a code view strings and comments
    are masked, so a ``(`` can only be closed by its own ``)``.  Each step
    goes to the next closing bracket and counts the opening ones before it
    (both at C speed), so a body costs one step per closing bracket.
    """
    opening = code[start]
    closing = _PAIRS[opening]
    depth, pos = 1, start + 1
    while True:
        close = code.find(closing, pos)
        if close < 0:
            return -1
        depth += code.count(opening, pos, close) - 1
        if depth == 0:
            return close
        pos = close + 1


class LineIndex:
    """The 1-based line of an offset.

    Scans ask in ascending order, so counting the newlines between consecutive
    offsets (C speed) beats building a table of every newline; a lookup
    backwards builds that table once and bisects it.
    """

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.line = text, 0, 1
        self._newlines: list[int] | None = None

    def __call__(self, offset: int) -> int:
        if offset < self.pos:
            if self._newlines is None:
                self._newlines = [m.start() for m in re.finditer("\n", self.text)]
            return bisect_right(self._newlines, offset - 1) + 1
        self.line += self.text.count("\n", self.pos, offset)
        self.pos = offset
        return self.line


def from_heads(head: re.Pattern[str], pattern: re.Pattern[str], text: str, start: int = 0,
               end: int | None = None) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text, start, end)``, for a pattern whose every match starts where ``head`` matches
    (a literal after zero-width assertions, the names a pattern alternates between).

    Why: a pattern that starts with a lookbehind or an optional group is tried by the engine at every
    character of the text; ``head`` finds the candidates at C speed and the pattern is tried there only.
    """
    end = len(text) if end is None else end
    pos = start
    while pos <= end:
        cand = head.search(text, pos, end)
        if cand is None:
            return
        m = pattern.match(text, cand.start(), end)
        if m is None:
            pos = cand.start() + 1
            continue
        yield m
        pos = m.end() if m.end() > m.start() else m.end() + 1
