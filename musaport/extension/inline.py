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
    for keyword, position, name in SOURCE_ARGS:
        expr = next((k.value for k in call.keywords if k.arg == keyword), None)
        if expr is None and len(call.args) > position:
            expr = call.args[position]
        if expr is None:
            continue
        literals = _literals(expr, tree, follow=True)
        if literals is None:
            return None
        found += [(literal, name) for literal in literals]
    return found


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
    if isinstance(expr, ast.Name) and follow:
        bound = [node.value for node in ast.walk(tree) if isinstance(node, (ast.Assign, ast.AnnAssign))
                 and node.value is not None and _binds(node, expr.id)]
        if len(bound) == 1:
            return _literals(bound[0], tree, follow=False)
    return None


def _binds(node: ast.Assign | ast.AnnAssign, name: str) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return any(isinstance(t, ast.Name) and t.id == name for t in targets)


def port_literal(segment: str, name: str, port: CppPorter) -> tuple[str, tuple[tuple[str, int], ...]] | None:
    """The literal's source text with its C++ ported, and the CUDA names no rule maps that stay in it, each
    with its line (1: the literal's first line); None
    when the literal cannot be ported in place (see the module's docstring)."""
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
