"""Which names a C++ file declares, told from the tokens around each name (no compiler).

A regex approximation of C++ declarations, good enough to tell a project's
own names from the toolkit's: ``port.file.find_unmapped`` leaves a CUDA-like
name the file declares itself out of the unmapped list.
"""

from __future__ import annotations

import re

from musaport.cpp.parser import MASK
from musaport.cpp.text import from_heads

# Declarations, found by the tokens around a name (a regex approximation of C++,
# good enough to tell a project's own names from the toolkit's).
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)
# A function-like macro's parameters are its own names (``#define BLOCKS(Q, CUDA_N_THREADS) ...``).
_MACRO_PARAMS = re.compile(r"^[ \t]*#[ \t]*define[ \t]+\w+\(([\w\s,.]*)\)", re.M)
_DIRECTIVE_LINE = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)
_TAGS = frozenset({"struct", "class", "union", "enum", "namespace", "typename", "concept"})
_NOT_A_TYPE = frozenset({
    "return", "else", "case", "goto", "throw", "new", "delete", "co_return", "co_yield", "co_await", "sizeof",
    "alignof", "typeid", "decltype", "operator", "public", "private", "protected", "using", "if", "while", "for",
    "switch", "do", "and", "or", "not", "default", "typedef", "template",
})
_FOLLOWS_DECLARATOR = frozenset("(=;[{,):")
# Before ``a * b`` (an expression, not a declaration of b): an operator or return.
_EXPRESSION_BEFORE = frozenset(["=", "return", "+", "-", "/", "%", "<", "|", "^", "!", "?", "["])
_DECLARING_MACRO = re.compile(r"\w*(?:DECLARE|DEFINE)\w*")


def declared_names(text: str, code: str, names: set[str] | frozenset[str]) -> set[str]:
    """Which of ``names`` the file declares: as a macro, type, namespace,
    enumerator, function, variable or parameter, or through a DECLARE/DEFINE
    macro.  ``code`` is the file's code view (other contexts masked)."""
    if not names:
        return set()
    found = {m.group(1) for m in _DEFINE.finditer(text) if m.group(1) in names and code[m.start(1)] != MASK}
    found |= {p.strip() for m in _MACRO_PARAMS.finditer(text) if code[m.start(1) - 1] != MASK
              for p in m.group(1).split(",") if p.strip() in names}
    rest = names - found
    if not rest:
        return found
    # Preprocessor lines neither declare (macro bodies) nor border a declaration.
    pieces, pos = [], 0
    for m in _DIRECTIVE_LINE.finditer(text):
        pieces += [code[pos : m.start()], "\n".join(" " * len(line) for line in m.group(0).split("\n"))]
        pos = m.end()
    code = "".join(pieces) + code[pos:]
    alternatives = "|".join(sorted(map(re.escape, rest)))
    # Where a name starts is found first, then the whole pattern tried there: its leading lookbehind keeps
    # the engine from skipping ahead to a name. The same matches as ``ident.finditer(code)``.
    head, ident = re.compile(alternatives), re.compile(r"(?<![\w])(?:" + alternatives + r")(?![\w])")
    for m in from_heads(head, ident, code):
        if m.group(0) not in found and _declares(code, m.start(), m.end()):
            found.add(m.group(0))
    return found


def _declares(code: str, start: int, end: int) -> bool:
    """Whether the name at ``code[start:end]`` is being declared there."""
    nxt = _next_token(code, end)
    before = _skip_qualifiers(code, start)
    prev, at = _prev_token(code, before)
    if prev in _TAGS:
        return _prev_token(code, at)[0] != "using" and (nxt != "::" or prev == "namespace")
    if prev == "using":
        return nxt == "="
    if prev in ("(", ",") and _in_declaring_macro(code, before, prev) or _is_enumerator(code, before, prev, nxt):
        return True
    if nxt not in _FOLLOWS_DECLARATOR:
        return False
    if prev in ("*", "&", "&&"):
        prev2, at2 = _prev_token(code, at)
        if prev2 == "(" and nxt == ")":  # (*fn)(...)
            return True
        before_type = _prev_token(code, _skip_qualifiers(code, at2))[0]
        return (prev2 == ">" or _is_type_word(prev2)) and before_type not in _EXPRESSION_BEFORE
    return prev == ">" or _is_type_word(prev)


def _is_type_word(token: str) -> bool:
    return bool(token) and (token[0].isalpha() or token[0] == "_") and token not in _NOT_A_TYPE


def _skip_qualifiers(code: str, pos: int) -> int:
    """Start of ``A::B::`` written before ``pos`` (so ``bool Foo::bar(`` sees ``bool``)."""
    while True:
        tok, at = _prev_token(code, pos)
        if tok != "::":
            return pos
        name, name_at = _prev_token(code, at)
        if not _is_type_word(name):
            return at
        pos = name_at


def _prev_token(code: str, pos: int) -> tuple[str, int]:
    """The token ending before ``pos`` (skipping space and masked text) and where it starts."""
    i = pos - 1
    while i >= 0 and (code[i].isspace() or code[i] == MASK):
        i -= 1
    if i < 0:
        return "", 0
    if is_word(code[i]):
        j = i
        while j > 0 and is_word(code[j - 1]):
            j -= 1
        return code[j : i + 1], j
    for op in ("::", "&&"):
        if code[max(0, i - 1) : i + 1] == op:
            return op, i - 1
    return code[i], i


def _next_token(code: str, pos: int) -> str:
    n = len(code)
    while pos < n and (code[pos].isspace() or code[pos] == MASK):
        pos += 1
    if pos >= n:
        return ""
    return "::" if code.startswith("::", pos) else code[pos]


def _in_declaring_macro(code: str, pos: int, prev: str) -> bool:
    """``DECLARE_DISPATCH(fn_type, name)``, ``C10_DEFINE_REGISTRY(name, ...)``: the
    first argument (the last one for a dispatch stub) is declared."""
    paren = code.rfind("(", 0, pos)
    if paren < 0 or ")" in code[paren:pos]:
        return False
    macro = _prev_token(code, paren)[0]
    if not _DECLARING_MACRO.fullmatch(macro):
        return False
    return prev == "(" or ("DISPATCH" in macro and _next_token(code, pos) != ",")


def _is_enumerator(code: str, pos: int, prev: str, nxt: str) -> bool:
    if prev not in ("{", ",") or nxt not in (",", "=", "}"):
        return False
    brace = code.rfind("{", 0, pos)
    if brace < 0 or any(c in code[brace + 1 : pos] for c in ";}"):
        return False
    head_start = max(code.rfind(c, 0, brace) for c in ";{}")
    return re.search(r"\benum\b", code[head_start + 1 : brace]) is not None


def is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"
