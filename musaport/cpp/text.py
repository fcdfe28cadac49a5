"""Small text facts every C++ reader here needs: the code view, brackets, lines.

One bracket matcher and one line index for the whole package, so the
scanner, the launch converter and the scope tracker agree on what a body or
an argument list is and on which line an offset sits.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from musaport.cpp.parser import CODE

CODE_ONLY = frozenset({CODE})
"""The contexts of the code view: comments, strings and include targets masked."""

_PAIRS = {"(": ")", "{": "}", "[": "]"}
_BRACKETS = {opening: re.compile(re.escape(opening) + "|" + re.escape(closing)) for opening, closing in _PAIRS.items()}


def matching(code: str, start: int) -> int:
    """Offset of the bracket closing the one at ``start`` (-1 when unbalanced).

    Only brackets of the same kind count: in a code view strings and comments
    are masked, so a ``(`` can only be closed by its own ``)``.
    """
    opening = code[start]
    depth = 0
    for m in _BRACKETS[opening].finditer(code, start):
        depth += 1 if m.group() == opening else -1
        if depth == 0:
            return m.start()
    return -1


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
