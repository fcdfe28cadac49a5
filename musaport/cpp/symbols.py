"""C++ symbol names: demangling (binutils' ``c++filt``) and splitting a
demangled name into the namespace path a definition must live under.

``musaport whereis`` starts from the undefined symbol a loader prints.  The
search needs only the qualified name (``at::musa::cub::exclusive_sum...``);
the return type, parameter list and template arguments are kept for display.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass

from musaport import children
from musaport.errors import LoadError

ANONYMOUS = "(anonymous namespace)"
_PREFIXES = ("vtable for ", "typeinfo for ", "typeinfo name for ", "VTT for ", "guard variable for ",
             "construction vtable for ", "non-virtual thunk to ", "virtual thunk to ")
_OPERATOR = re.compile(r"(?:^|::)operator\b")
_OPERATOR_CHARS = frozenset(" <>=!+-*/%^&|~[],")
# A parameter list as demangled names end: balanced at its ends, then qualifiers.
_PARAMS = re.compile(r"\(.*\)(?:\s*(?:const|volatile|noexcept|&&|&))*\s*")
# One part of a name a person types: an identifier, a destructor, an operator, an anonymous namespace.
_NAME = re.compile(r"~?[A-Za-z_]\w*|operator\W.*|operator\s+\w.*|" + re.escape(ANONYMOUS))


class SymbolError(LoadError):
    """A symbol that cannot be read, or no demangler; the message says which (bad input: exit 2)."""


@dataclass(frozen=True)
class Symbol:
    """A demangled symbol: its scope path, its own name and what surrounds them."""

    given: str
    demangled: str
    scope: tuple[str, ...]
    name: str
    template_args: str = ""
    params: str | None = None  # None for a variable (no parameter list)
    what: str = ""  # "vtable for " and the like: the symbol belongs to a class
    # A plain name as a user types it (``abs_kernel_musa``: not mangled, no ``::``): it names the
    # entity in whatever namespace it is, where a mangled name always says its full scope.
    anywhere: bool = False

    @property
    def qualified(self) -> str:
        return "::".join(self.scope + (self.name,))


def demangle(symbol: str) -> str:
    """The demangled spelling of ``symbol``; an already readable name is returned as is."""
    symbol = symbol.strip()
    if not symbol.startswith("_Z"):
        return symbol
    tool = shutil.which("c++filt")
    if tool is None:
        raise SymbolError("c++filt not found on PATH (install binutils), or pass the demangled name instead")
    out = children.run([tool, symbol], children.scratch()).stdout.strip()
    if not out or out == symbol:
        raise SymbolError(f"{symbol}: not a valid mangled C++ name (c++filt cannot demangle it)")
    return out


def parse_symbol(given: str, demangled: str) -> Symbol:
    """Split a demangled name into scope, name, template arguments and parameters."""
    text, what = _strip_prefix(demangled.strip())
    text = text.replace(ANONYMOUS, "\x00")
    op = _OPERATOR.search(text)
    head, params = _split_params(text, op.end() if op else 0)
    qualified = _last_top_level_word(head) if op is None else _operator_qualified(head, op.start())
    parts = [p.replace("\x00", ANONYMOUS) for p in _split_scope(qualified)]
    if not parts or not parts[-1]:
        raise SymbolError(f"{given}: cannot find a name in '{demangled}'")
    name, targs = _strip_template_args(parts[-1])
    scope = tuple(_strip_template_args(p)[0] for p in parts[:-1])
    readable = given.strip() == demangled.strip()
    if readable:  # typed by a person, not demangled: each part must be a C++ name
        bad = next((p for p in scope + (name,) if not _NAME.fullmatch(p)), None)
        if bad is None and params is not None and not _PARAMS.fullmatch(params):
            bad = params
        if bad is not None:
            raise SymbolError(f"{given!r} is not a C++ name ({bad!r} is not an identifier or a parameter list); give a function, "
                              "variable or class name, qualified or not, or a mangled symbol (_Z...)")
    return Symbol(given, demangled.strip(), scope, name, targs, params, what,
                  anywhere=readable and not scope and not demangled.strip().startswith("::"))


def _strip_prefix(text: str) -> tuple[str, str]:
    for prefix in _PREFIXES:
        if text.startswith(prefix):
            return text[len(prefix) :], prefix.strip()
    return text, ""


def _split_params(text: str, start: int) -> tuple[str, str | None]:
    """(everything before the parameter list, the parameter list or None).

    The parameter list is the first ``(`` outside template arguments, after
    an ``operator`` keyword when there is one (``operator()`` is a name).
    """
    depth = 0
    i = start
    if start and text[start:].lstrip().startswith("()"):
        i = text.index(")", start) + 1
    elif start:
        while i < len(text) and text[i] in _OPERATOR_CHARS:
            i += 1
    while i < len(text):
        ch = text[i]
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif ch == "(" and depth == 0 and (start == 0 or i > start):
            return text[:i].rstrip(), text[i:]
        i += 1
    return text, None


def _last_top_level_word(head: str) -> str:
    """The qualified name after the return type: the last space-separated word outside ``<>``."""
    depth = 0
    cut = 0
    for i, ch in enumerate(head):
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif ch == " " and depth == 0 and head[i - 1] != ",":
            cut = i + 1
    return head[cut:]


def _operator_qualified(head: str, op_start: int) -> str:
    """``Scope::operator==``: the scope is the word before ``operator``, the rest is the name."""
    scope_part = _last_top_level_word(head[:op_start]) if op_start else ""
    return scope_part + head[op_start:].replace(" ", "") if scope_part else head[op_start:].replace(" ", "")


def _split_scope(qualified: str) -> list[str]:
    """Split at ``::`` outside template arguments (``Foo<a::b>::bar`` has two parts)."""
    parts, depth, start, i = [], 0, 0, 0
    text = qualified.lstrip(":")
    while i < len(text):
        ch = text[i]
        if ch == "<" and not text[start:i].startswith("operator"):
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif text.startswith("::", i) and depth == 0:
            parts.append(text[start:i])
            start = i + 2
            i += 1
        i += 1
    parts.append(text[start:])
    return parts


def _strip_template_args(part: str) -> tuple[str, str]:
    """``foo<int, int>`` → (``foo``, ``<int, int>``); operators keep their spelling."""
    if part.startswith("operator") or "<" not in part or not part.endswith(">"):
        return part, ""
    cut = part.index("<")
    return part[:cut], part[cut:]
