"""Turn ``kernel<<<grid, block, shmem, stream>>>(args)`` into a plain call.

g++ cannot parse triple-chevron launches, so the CPU run mode of
``musaport validate`` rewrites each launch the parser found into a call to
the shim's CPU runtime::

    k<T><<<g, b, s, st>>>(x, n);
    musaport_launch(g, b, s, st, [&]() { k<T>(x, n); });

Missing shared-memory and stream arguments become 0.  Only code context is
considered, so a ``<<<`` in a string or comment stays as it is.
"""

from __future__ import annotations

import re

from musaport.cpp.parser import Parsed, masked
from musaport.cpp.structure import callee_start
from musaport.cpp.text import CODE_ONLY, matching

# Spaces and line continuations between a kernel's name and its ``<<<`` (macros span lines).
_TRAILING_BLANKS = re.compile(r"(?:\s|\\(?=\n))+$")


class LaunchError(ValueError):
    """A launch whose arguments could not be delimited (reported with its line)."""


def rewrite_launches(parsed: Parsed) -> str:
    """The text with every ``<<<...>>>(...)`` launch turned into a runtime call."""
    text = parsed.text
    code = masked(text, parsed.spans, CODE_ONLY)
    pieces: list[str] = []
    pos = 0
    for start, config_end, call_end, callee in _launches(code):
        config = _split_args(text[start + 3 : config_end - 3])
        if not 2 <= len(config) <= 4:
            raise LaunchError(f"line {text.count(chr(10), 0, start) + 1}: launch needs 2 to 4 configuration arguments")
        config += ["0"] * (4 - len(config))
        args = text[config_end:call_end]
        head = start - len(callee)
        pieces.append(text[pos:head])
        callee = _TRAILING_BLANKS.sub("", text[head:start])
        pieces.append(f"musaport_launch({', '.join(config)}, [&]() {{ {callee}{args}; }})")
        pos = call_end
    pieces.append(text[pos:])
    return "".join(pieces)


def _launches(code: str) -> list[tuple[int, int, int, str]]:
    """(start of <<<, end of >>>, end of the call's ')', callee text incl. spacing)."""
    found = []
    search = 0
    while (start := code.find("<<<", search)) != -1:
        config_end = code.find(">>>", start)
        if config_end == -1:
            raise LaunchError(f"line {code.count(chr(10), 0, start) + 1}: '<<<' without '>>>'")
        config_end += 3
        paren = config_end
        while paren < len(code) and (code[paren].isspace() or code.startswith("\\\n", paren)):
            paren += 1  # a launch inside a multi-line macro continues its lines with '\'
        if paren >= len(code) or code[paren] != "(":
            raise LaunchError(f"line {code.count(chr(10), 0, start) + 1}: launch without an argument list")
        close = matching(code, paren)
        if close < 0:
            raise LaunchError(f"line {code.count(chr(10), 0, paren) + 1}: unbalanced launch arguments")
        call_end = close + 1
        found.append((start, config_end, call_end, _callee(code, start)))
        search = call_end
    return found


def _callee(code: str, start: int) -> str:
    """The kernel expression before ``<<<`` (name, scope and template arguments)."""
    return code[callee_start(code, start) : start]


def _split_args(config: str) -> list[str]:
    """Split on top-level commas (not inside (), [], {} or template <>)."""
    parts, depth, current = [], 0, []
    for ch in config:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        parts.append("".join(current).strip())
    return parts
