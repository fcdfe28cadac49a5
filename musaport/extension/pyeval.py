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
from dataclasses import dataclass

_MAX_DEPTH = 16


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
    value = _value(expr, env, depth)
    if value is FILE:
        return None  # the script itself is no folder
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


def _value(expr: ast.expr, env: dict[str, ast.expr], depth: int):
    if depth > _MAX_DEPTH:
        return None
    d = depth + 1
    if isinstance(expr, ast.Constant):
        return expr.value if isinstance(expr.value, str) else None
    if isinstance(expr, ast.JoinedStr):
        parts = []
        for piece in expr.values:
            if isinstance(piece, ast.Constant) and isinstance(piece.value, str):
                parts.append(piece.value)
            elif isinstance(piece, ast.FormattedValue) and piece.format_spec is None and piece.conversion in (-1, 115):
                got = _value(piece.value, env, d)
                if not isinstance(got, str):
                    return None
                parts.append(got)
            else:
                return None
        return "".join(parts)
    if isinstance(expr, ast.Name):
        if expr.id == "__file__":
            return FILE
        return _value(env[expr.id], env, d) if expr.id in env else None
    if isinstance(expr, ast.BinOp):
        left, right = _value(expr.left, env, d), _value(expr.right, env, d)
        if isinstance(expr.op, ast.Add) and isinstance(left, str) and isinstance(right, str):
            return left + right
        if isinstance(expr.op, ast.Div):
            return _join([left, right])
        return None
    if isinstance(expr, ast.Attribute) and expr.attr == "parent":
        return _dirname(_value(expr.value, env, d))
    if isinstance(expr, ast.Call) and not expr.keywords:
        return _call(expr, env, d)
    return None


def _call(expr: ast.Call, env: dict[str, ast.expr], depth: int):
    func = expr.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    args = [_value(a, env, depth) for a in expr.args]
    is_method = isinstance(func, ast.Attribute) and not _is_module(func.value)
    if is_method:
        receiver = _value(func.value, env, depth)  # type: ignore[union-attr]
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


def _is_module(node: ast.expr) -> bool:
    """``os.path``, ``os``, ``posixpath``, ``pathlib``: a module, not a path value."""
    if isinstance(node, ast.Name):
        return node.id in ("os", "posixpath", "pathlib", "path", "osp")
    return isinstance(node, ast.Attribute) and node.attr == "path" and isinstance(node.value, ast.Name) \
        and node.value.id == "os"
