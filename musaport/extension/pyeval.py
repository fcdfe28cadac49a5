"""The paths a ``setup.py`` computes, evaluated from its syntax tree without running it.

A build script names its include folders the way Python lets it:
``os.path.abspath('./lib/csrc/common')``, ``os.path.join(this_dir, 'csrc')``,
``Path(__file__).resolve().parent / 'csrc'``, ``f'{ROOT}/include'``. The
build runs the script from its own folder, so a relative path, ``abspath``,
``realpath``, ``os.getcwd()`` and ``__file__``'s folder all name places
relative to that folder. This module evaluates such expressions over the
``ast`` (setup.py is never executed): string literals, f-strings and ``+``
of evaluable parts, ``os.path.join``/``abspath``/``realpath``/``normpath``/
``dirname``, ``Path(...)``, ``/``, ``.parent``, ``.resolve()``,
``.joinpath(...)``, ``str(...)``, and names bound by a plain assignment.
Anything else (a call it does not know, an environment variable, a
subscript) is unknown: ``None``, never a guess.
"""

from __future__ import annotations

import ast
import posixpath
import re
from dataclasses import dataclass

_MAX_DEPTH = 16
# What an unknown part of a path stands for in a pattern (``pattern``): any text, as in a glob.
WILD = "*"


@dataclass(frozen=True)
class _File:
    """The value of ``__file__``: the script itself (its folder is ``.``)."""


FILE = _File()

_NORMALISE = frozenset({"abspath", "realpath", "normpath", "expanduser", "fspath", "str", "PurePath",
                        "PurePosixPath"})
_PATH_TYPES = frozenset({"Path", "PurePath", "PurePosixPath", "PosixPath"})
_SAME = frozenset({"resolve", "absolute", "expanduser"})


def assignments(tree: ast.AST) -> dict[str, ast.expr]:
    """Names bound by a plain ``NAME = expr`` anywhere in the script (the last one wins)."""
    env: dict[str, ast.expr] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    env[target.id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            env[node.target.id] = node.value
    return env


def evaluate(expr: ast.expr, env: dict[str, ast.expr], depth: int = 0) -> str | None:
    """The path ``expr`` names relative to the script's folder (``.`` is the folder), or None."""
    value = _Eval(env, {}, wild=False).value(expr, depth)
    if value is FILE:
        return None  # the script itself is no folder
    return _norm(value) if isinstance(value, str) else None


def pattern(expr: ast.expr, env: dict[str, ast.expr], loops: dict[str, ast.expr] | None = None) -> str | None:
    """The paths ``expr`` may name, as a glob relative to the script's folder: what cannot be evaluated (a
    loop variable over something unknown, an environment variable, a call) is ``*``, so
    ``osp.join(d, 'cuda', f'{name}_cuda.cu')`` is ``csrc/cuda/*_cuda.cu``. A name bound by a ``for`` loop
    (``loops``) stands for any element of what it iterates: the pattern of that glob. None when nothing of it
    is a path."""
    value = _Eval(env, loops or {}, wild=True).value(expr, 0)
    return _norm(value) if isinstance(value, str) else None


def _norm(path: str) -> str:
    return posixpath.normpath(path) if path else "."


def _join(parts: list) -> str | None:
    if any(not isinstance(p, str) for p in parts):
        return None
    out = ""
    for part in parts:
        out = part if part.startswith("/") or not out else posixpath.join(out, part)
    return out or "."


def _dirname(value) -> str | None:
    if value is FILE:
        return "."
    if not isinstance(value, str):
        return None
    norm = _norm(value)
    if norm == ".":
        return ".."
    if norm == "/" or norm.split("/")[-1] == "..":
        return None if norm == "/" else norm + "/.."
    parent = posixpath.dirname(norm)
    return parent or "."


class _Eval:
    """One evaluation: the script's assignments, its loop variables, and whether unknowns are ``*``."""

    def __init__(self, env: dict[str, ast.expr], loops: dict[str, ast.expr], wild: bool) -> None:
        self.env, self.loops, self.unknown = env, loops, (WILD if wild else None)

    def value(self, expr: ast.expr, depth: int):
        if depth > _MAX_DEPTH:
            return self.unknown
        d = depth + 1
        if isinstance(expr, ast.Constant):
            return expr.value if isinstance(expr.value, str) else self.unknown
        if isinstance(expr, ast.JoinedStr):
            parts = []
            for piece in expr.values:
                if isinstance(piece, ast.Constant) and isinstance(piece.value, str):
                    parts.append(piece.value)
                    continue
                got = self.value(piece.value, d) if isinstance(piece, ast.FormattedValue) and \
                    piece.format_spec is None and piece.conversion in (-1, 115) else self.unknown
                if not isinstance(got, str):
                    return self.unknown
                parts.append(got)
            return "".join(parts)
        if isinstance(expr, ast.Name):
            if expr.id == "__file__":
                return FILE
            if expr.id in self.env:
                return self.value(self.env[expr.id], d)
            if expr.id in self.loops and self.unknown is not None:
                return self.value(self.loops[expr.id], d)
            return self.unknown
        if isinstance(expr, ast.BinOp):
            left, right = self.value(expr.left, d), self.value(expr.right, d)
            if isinstance(expr.op, ast.Add) and isinstance(left, str) and isinstance(right, str):
                return left + right
            if isinstance(expr.op, ast.Div):
                return _join([left, right]) or self.unknown
            return self.unknown
        if isinstance(expr, ast.Attribute) and expr.attr == "parent":
            got = _dirname(self.value(expr.value, d))
            return got if got is not None else self.unknown
        if isinstance(expr, ast.Call) and (not expr.keywords or self.unknown is not None):
            got = self.call(expr, d)
            return got if got is not None else self.unknown
        return self.unknown

    def call(self, expr: ast.Call, depth: int):
        func = expr.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if self.unknown is not None:
            if name in _PASS_THROUGH and len(expr.args) == 1:
                return self.value(expr.args[0], depth)  # glob(p): any file p matches, sorted(...), list(...)
            if name == "format" and isinstance(func, ast.Attribute):
                return self._format(func.value, expr, depth)
        if expr.keywords and name not in _PASS_THROUGH:
            return None
        args = [self.value(a, depth) for a in expr.args]
        is_method = isinstance(func, ast.Attribute) and not _is_module(func.value)
        if is_method:
            receiver = self.value(func.value, depth)  # type: ignore[union-attr]
            if name in _SAME and not args:
                return receiver
            if name == "joinpath":
                return _join([receiver, *args])
            return None
        if name == "getcwd" and not args:
            return "."
        if name == "join":
            return _join(args) if args else None
        if name == "dirname" and len(args) == 1:
            return _dirname(args[0])
        if name in _PATH_TYPES:
            if len(args) == 1 and args[0] is FILE:
                return FILE
            return _join(args) if args else "."
        if name in _NORMALISE and len(args) == 1:
            return args[0] if args[0] is FILE or not isinstance(args[0], str) else _norm(args[0])
        return None

    def _format(self, template: ast.expr, call: ast.Call, depth: int) -> str | None:
        """``'{}_cuda.cu'.format(n)``: each replacement field is its argument's value (``*`` if unknown)."""
        text = self.value(template, depth)
        if not isinstance(text, str):
            return None
        args = [self.value(a, depth) for a in call.args]
        return re.sub(r"\{[^{}]*\}", lambda m: _field(m.group(0), args), text.replace("{{", "\0").replace(
            "}}", "\1")).replace("\0", "{").replace("\1", "}")


_PASS_THROUGH = frozenset({"glob", "iglob", "sorted", "list", "tuple"})


def _field(spec: str, args: list) -> str:
    """A ``str.format`` field filled from positional ``args`` (``*`` for what is unknown or named)."""
    key = spec[1:-1].split(":")[0].split("!")[0]
    value = args[int(key)] if key.isdigit() and int(key) < len(args) else args[0] if not key and len(args) == 1 \
        else None
    return value if isinstance(value, str) else WILD


def _is_module(node: ast.expr) -> bool:
    """``os.path``, ``os``, ``posixpath``, ``pathlib``: a module, not a path value."""
    if isinstance(node, ast.Name):
        return node.id in ("os", "posixpath", "pathlib", "path", "osp")
    return isinstance(node, ast.Attribute) and node.attr == "path" and isinstance(node.value, ast.Name) \
        and node.value.id == "os"
