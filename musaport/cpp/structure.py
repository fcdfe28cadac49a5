"""Structure facts about a parsed file: kernels, launches, registrations.

Later features link operators to kernels through these facts (the operator
model, run-mode launch rewriting), so they are found in the code context only:
a ``REGISTER_DISPATCH`` inside a comment or a string is not a registration.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from musaport.cpp.parser import INCLUDE, Parsed, masked
from musaport.cpp.text import CODE_ONLY, LineIndex

_KERNEL = re.compile(r"__global__")  # word boundaries checked by hand: a leading \b defeats the literal scan
_NAME_BEFORE_PAREN = re.compile(r"(~?[A-Za-z_]\w*)\s*$")
_LAUNCH = re.compile(r"<<<")
_LAUNCH_BOUNDS = re.compile(r"__launch_bounds__\s*\([^()]*(?:\([^()]*\)[^()]*)*\)")
_REGISTER = re.compile(r"(REGISTER_(?:CUDA_|MUSA_|PRIVATEUSE1_)?DISPATCH)\s*\(\s*(\w+)\s*,\s*([^;]*?)\)\s*;?")
_IMPL_FUNC = re.compile(r"TORCH_IMPL_FUNC\s*\(\s*(\w+)\s*\)")
_LIBRARY_IMPL = re.compile(r"TORCH_LIBRARY_IMPL\s*\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*\)")


@dataclass(frozen=True)
class Site:
    """A named thing at a line; ``args`` holds what the construct names besides."""

    name: str
    line: int
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class Structure:
    """Everything later features need to know about one file's shape."""

    includes: tuple[Site, ...] = ()
    kernels: tuple[Site, ...] = ()
    launches: tuple[Site, ...] = ()
    registrations: tuple[Site, ...] = ()
    impl_funcs: tuple[Site, ...] = ()
    library_impls: tuple[Site, ...] = ()

    def to_json(self) -> dict:
        """Plain lists and dicts, for the cache and ``musaport parse``."""
        return {
            name: [{"name": s.name, "line": s.line, "args": s.args} for s in getattr(self, name)]
            for name in ("includes", "kernels", "launches", "registrations", "impl_funcs", "library_impls")
        }

    @classmethod
    def from_json(cls, data: dict) -> "Structure":
        return cls(**{k: tuple(Site(s["name"], s["line"], tuple(s["args"])) for s in v) for k, v in data.items()})


def structure(parsed: Parsed, code: str | None = None) -> Structure:
    """Find kernels, launches, dispatch registrations and impl definitions.

    Each search runs only when its keyword occurs in the file at all.
    """
    text = parsed.text
    line = LineIndex(text)
    includes = tuple(Site(text[s.start : s.end], line(s.start)) for s in parsed.spans if s.context == INCLUDE)
    if not any(k in text for k in ("__global__", "<<<", "DISPATCH", "TORCH_IMPL_FUNC", "TORCH_LIBRARY_IMPL")):
        return Structure(includes=includes)
    if code is None:
        code = masked(text, parsed.spans, CODE_ONLY)
    return Structure(
        includes=includes,
        kernels=tuple(Site(n, line(p)) for n, p in _kernels(code)),
        launches=tuple(Site(n, line(p)) for n, p in _launches(code)),
        registrations=tuple(
            Site(m.group(2), line(m.start()), (m.group(1), " ".join(m.group(3).split())))
            for m in _words(_REGISTER, code)
        ),
        impl_funcs=tuple(Site(m.group(1), line(m.start())) for m in _words(_IMPL_FUNC, code)),
        library_impls=tuple(
            Site(m.group(1), line(m.start()), (m.group(2), m.group(3))) for m in _words(_LIBRARY_IMPL, code)
        ),
    )


def _words(regex: re.Pattern[str], code: str) -> list[re.Match[str]]:
    """Matches that start a word (the patterns begin with a literal for speed)."""
    return [m for m in regex.finditer(code) if not m.start() or not (code[m.start() - 1].isalnum() or code[m.start() - 1] == "_")]


def _kernels(code: str) -> list[tuple[str, int]]:
    """Names of ``__global__`` functions: the identifier before the parameter list."""
    found = []
    for m in _words(_KERNEL, code):
        if m.end() < len(code) and (code[m.end()].isalnum() or code[m.end()] == "_"):
            continue
        head = _strip_launch_bounds(code[m.end() : m.end() + 400])
        paren = head.find("(")
        stop = min((i for i in (head.find(";"), head.find("{")) if i != -1), default=len(head))
        if paren == -1 or paren > stop:
            continue
        name = _NAME_BEFORE_PAREN.search(head[:paren])
        if name:
            found.append((name.group(1), m.start()))
    return found


def _strip_launch_bounds(head: str) -> str:
    """Blank out ``__launch_bounds__(...)`` so its parenthesis is not the parameter list."""
    if "__launch_bounds__" not in head:  # most kernels: no regex at all
        return head
    return _LAUNCH_BOUNDS.sub(lambda m: " " * len(m.group(0)), head)


def _launches(code: str) -> list[tuple[str, int]]:
    """The callee named before each ``<<<``, template arguments included."""
    found = []
    for m in _LAUNCH.finditer(code):
        found.append((_callee_before(code, m.start()), m.start()))
    return found


def _callee_before(code: str, pos: int) -> str:
    """The kernel named before the ``<<<`` at ``pos``, whitespace folded."""
    return " ".join(code[callee_start(code, pos) : pos].split())


def callee_start(code: str, pos: int) -> int:
    """Where ``name<targs>`` (balanced angle brackets) before ``pos`` begins."""
    i = _blanks_before(code, pos)
    depth = 0
    while i > 0:
        ch = code[i - 1]
        if ch == ">":
            depth += 1
        elif ch == "<" and depth:
            depth -= 1
            if depth == 0:  # the name may stand on a line of its own before its template arguments
                i = _blanks_before(code, i - 1)
                continue
        elif depth == 0 and not (ch.isalnum() or ch in "_:"):
            break
        i -= 1
    return i


def _blanks_before(code: str, pos: int) -> int:
    """Where the spaces, and the '\\' that continues a macro's line, before ``pos`` begin."""
    i = pos
    while i > 0 and (code[i - 1].isspace() or code.startswith("\\\n", i - 1)):
        i -= 1
    return i
