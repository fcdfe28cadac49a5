"""The C++ and CUDA sources a ``load_inline`` call holds in Python strings, ported as source files are.

``torch.utils.cpp_extension.load_inline(name, cpp_sources, cuda_sources)``
compiles code that lives in string literals: torch writes them to
``main.cpp`` and ``cuda.cu`` and builds those. torch_musa's builder of the
same name writes ``musa_sources`` to a ``.mu``, so the strings must hold MUSA
code, or the build fails where nvcc's would not. The port reads each source
argument that is a literal (or a list of them, or a name bound once to one)
and ports its text with the C++ rule packs, as it would a ``.cpp`` or ``.cu``
file, in place inside the same quotes. A literal is left as it is, and the
call reported, when its rewrite would not stay the same Python string: an
f-string or bytes, implicit concatenation, or an edit that changes its line
count (the findings of the two Python ports agree on lines) or its quoting.

A source left as it is still has its string pieces scanned for CUDA names
(:func:`source_fragments`), so the unmapped report counts what they hold;
what only running the code shows (a call's result, a name bound elsewhere,
an f-string's fields) is reported as not scanned, never as "none".
"""

from __future__ import annotations

import ast
import re
from typing import Callable

from musaport.port.file import FileResult, FileStatus

# Ports one C++ text (its bytes, a name whose suffix says how it is compiled) as a ported file's result.
CppPorter = Callable[[bytes, str], FileResult]

# load_inline's source arguments: keyword, position, and the file torch's builder writes them to.
SOURCE_ARGS = (("cpp_sources", 1, "main.cpp"), ("cuda_sources", 2, "cuda.cu"))
_LITERAL = re.compile(r"(?P<prefix>[rRuU]?)(?P<quote>\"\"\"|'''|\"|')(?P<body>.*)(?P=quote)", re.S)


def source_literals(call: ast.Call, tree: ast.AST) -> list[tuple[ast.Constant, str]] | None:
    """Each string literal a ``load_inline`` call compiles, with the file name it is compiled as; None when a
    source argument is anything else (a call, a concatenation, a name bound more than once)."""
    found: list[tuple[ast.Constant, str]] = []
    for expr, name in _source_args(call):
        literals = _literals(expr, tree, follow=True)
        if literals is None:
            return None
        found += [(literal, name) for literal in literals]
    return found


def _source_args(call: ast.Call) -> list[tuple[ast.expr, str]]:
    """The source arguments a ``load_inline`` call passes (by keyword or position), each with its file name."""
    found = []
    for keyword, position, name in SOURCE_ARGS:
        expr = next((k.value for k in call.keywords if k.arg == keyword), None)
        if expr is None and len(call.args) > position:
            expr = call.args[position]
        if expr is not None:
            found.append((expr, name))
    return found


def _bound_once(name: str, tree: ast.AST) -> ast.expr | None:
    """The value of the module's one assignment to ``name``; None when it is bound more than once, or never."""
    bound = [node.value for node in ast.walk(tree) if isinstance(node, (ast.Assign, ast.AnnAssign))
             and node.value is not None and _binds(node, name)]
    return bound[0] if len(bound) == 1 else None


def _literals(expr: ast.expr, tree: ast.AST, follow: bool) -> list[ast.Constant] | None:
    if isinstance(expr, ast.Constant) and (expr.value is None or isinstance(expr.value, str)):
        return [] if expr.value is None else [expr]
    if isinstance(expr, (ast.List, ast.Tuple)):
        found: list[ast.Constant] = []
        for item in expr.elts:
            got = _literals(item, tree, follow)
            if got is None:
                return None
            found += got
        return found
    if isinstance(expr, ast.Name) and follow and (bound := _bound_once(expr.id, tree)) is not None:
        return _literals(bound, tree, follow=False)
    return None


# The source text of a node (its segment of the file), for what the syntax tree does not place.
Segment = Callable[[ast.expr], str]


def source_fragments(call: ast.Call, tree: ast.AST, segment: Segment | None = None
                     ) -> tuple[list[tuple[ast.Constant, str, int]], bool]:
    """Every string piece of a ``load_inline`` call's source arguments, with the file name it is compiled as
    and the file line it starts on, and whether they are the whole of those arguments: False when a part is
    known only at run time. ``segment`` places an f-string's pieces where the tree does not (below)."""
    found: list[tuple[ast.Constant, str, int]] = []
    whole = True
    for expr, name in _source_args(call):
        pieces, known = _fragments(expr, tree, follow=True, segment=segment)
        found += [(piece, name, line) for piece, line in pieces]
        whole = whole and known
    return found, whole


def _fragments(expr: ast.expr, tree: ast.AST, follow: bool, segment: Segment | None = None
               ) -> tuple[list[tuple[ast.Constant, int]], bool]:
    """The string constants in ``expr``, each with its first line, and whether ``expr``'s value is made of
    them alone."""
    if isinstance(expr, ast.Constant):
        return ([(expr, expr.lineno)] if isinstance(expr.value, str) else []), \
            expr.value is None or isinstance(expr.value, str)
    if isinstance(expr, ast.JoinedStr):
        return _fstring_fragments(expr, segment)
    parts: list[ast.expr]
    if isinstance(expr, (ast.List, ast.Tuple)):
        parts = list(expr.elts)
    elif isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        parts = [expr.left, expr.right]
    elif isinstance(expr, ast.Name) and follow:
        bound = _bound_once(expr.id, tree)
        return _fragments(bound, tree, False, segment) if bound is not None else ([], False)
    elif _is_join(expr):  # "\n".join([...]): the separator and the joined pieces
        parts = [expr.func.value, *expr.args]  # type: ignore[attr-defined]
    else:
        return [], False
    found: list[tuple[ast.Constant, int]] = []
    whole = True
    for part in parts:
        pieces, known = _fragments(part, tree, follow, segment)
        found += pieces
        whole = whole and known
    return found, whole


def _fstring_fragments(expr: ast.JoinedStr, segment: Segment | None) -> tuple[list[tuple[ast.Constant, int]], bool]:
    """An f-string's literal pieces; its fields are known only at run time. Before Python 3.12 the tree
    gives every piece the whole f-string's position, so there each piece's line is read from the source."""
    pieces = [v for v in expr.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    lines = [p.lineno for p in pieces]
    spanning = all((p.lineno, p.col_offset, p.end_lineno, p.end_col_offset) ==
                   (expr.lineno, expr.col_offset, expr.end_lineno, expr.end_col_offset) for p in pieces)
    if pieces and spanning and segment is not None:
        starts = fstring_literal_lines(segment(expr))
        if starts is not None and len(starts) == len(pieces):
            lines = [expr.lineno + s for s in starts]
    return list(zip(pieces, lines)), all(isinstance(v, ast.Constant) for v in expr.values)


_OPENING = re.compile(r"""[A-Za-z]*("""  '"""' r"""|'''|"|')""")


def fstring_literal_lines(text: str) -> list[int] | None:
    """Where each non-empty literal piece of one f-string starts, in lines after its first (0: on it); None
    when ``text`` is not one f-string literal that this reader follows (an implicit concatenation)."""
    opening = _OPENING.match(text)
    if opening is None:
        return None
    quote, i = opening.group(1), opening.end()
    starts: list[int] = []
    piece, filled = i, False
    while i < len(text):
        if text.startswith(quote, i):
            if filled:
                starts.append(piece)
            return [text.count("\n", 0, s) for s in starts] if not text[i + len(quote):].strip() else None
        if text[i] == "\\" or text.startswith(("{{", "}}"), i):
            i, filled = i + 2, True
        elif text[i] == "{":
            if filled:
                starts.append(piece)
            i = _field_end(text, i + 1, quote)
            if i < 0:
                return None
            piece, filled = i, False
        else:
            i, filled = i + 1, True
    return None


def _field_end(text: str, i: int, quote: str) -> int:
    """The offset just after the ``}`` that closes the f-string field starting at ``i``; -1 when not found."""
    depth = 0
    while i < len(text):
        char = text[i]
        if text.startswith(quote, i):
            return -1
        if char in "'\"":  # a string inside the field (before 3.12, of the other kind of quote)
            close = text.find(char, i + 1)
            if close < 0:
                return -1
            i = close + 1
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                return i + 1 if char == "}" else -1
            depth -= 1
        i += 1
    return -1


def _is_join(expr: ast.expr) -> bool:
    return (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "join"
            and isinstance(expr.func.value, ast.Constant) and isinstance(expr.func.value.value, str)
            and len(expr.args) == 1 and not expr.keywords)


def scan_fragment(piece: ast.Constant, name: str, port: CppPorter, first: int | None = None
                  ) -> tuple[tuple[str, int], ...]:
    """The CUDA names no rule maps in one string piece that starts on file line ``first`` (default: the
    piece's own line), each with its line in the Python file."""
    result = port(piece.value.encode("utf-8", "surrogateescape"), name)
    first = piece.lineno if first is None else first
    last = piece.end_lineno or piece.lineno
    return tuple(sorted({(n, min(first + line - 1, last)) for n, line in result.unmapped}))


def _binds(node: ast.Assign | ast.AnnAssign, name: str) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return any(isinstance(t, ast.Name) and t.id == name for t in targets)


def port_literal(segment: str, name: str, port: CppPorter) -> tuple[str, tuple[tuple[str, int], ...]] | None:
    """The literal's source text with its C++ ported, and the CUDA names no rule maps that stay in it, each
    with its line (1: the literal's first line); None when the literal cannot be ported in place (see the
    module's docstring)."""
    literal = _LITERAL.fullmatch(segment)
    if literal is None:
        return None
    body = literal["body"]
    result = port(body.encode("utf-8", "surrogateescape"), name)
    unmapped = tuple(sorted(set(result.unmapped)))
    if result.status is FileStatus.UNCHANGED:
        return segment, unmapped
    if result.status is not FileStatus.PORTED or result.data is None:
        return None
    text = result.data.decode("utf-8", "surrogateescape").split("\n", 1)[1]  # less the provenance line
    new = literal["prefix"] + literal["quote"] + text + literal["quote"]
    if text.count("\n") != body.count("\n") or not _one_literal(new):
        return None
    return new, unmapped


def _one_literal(new: str) -> bool:
    """Whether ``new`` is still one string literal (a rewrite that put its quote in would end it early)."""
    try:
        tree = ast.parse(new, mode="eval")
    except (SyntaxError, ValueError):
        return False
    return isinstance(tree.body, ast.Constant) and isinstance(tree.body.value, str)
