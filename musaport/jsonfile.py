"""The one reader of musaport's own JSON files (state, caches, reports), with their shape checked.

Every JSON file musaport reads back was written by musaport, but a disk
that filled, a hand edit, a truncation or a hostile ``--out`` can leave
anything there: bytes that are not JSON, a document nested deeper than
Python's recursion allows (``json.loads`` then raises ``RecursionError``,
not ``ValueError``), or valid JSON of the wrong shape (a list where an
object was, a number where a path was), which the code reading it would
trip on later with a ``TypeError``.  :func:`read_json` turns every one of
those into a one-line :class:`LoadError` naming the file (and the entry
that does not fit); :func:`load_json` is the same for a cache, where any
damage reads as "no cache".

A shape is a type (``object``: anything), a ``{"*": shape}`` for a mapping
with any keys, a ``{key: shape}`` for fixed keys (a key ending in ``?`` may
be missing; ``"*"`` beside them takes the other keys), a ``[shape]`` for a
list, and a tuple of shapes for either.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from musaport.errors import LoadError

# No JSON file of musaport's comes near this (PyTorch 2.6.0's porting report is about 3 MB).
MAX_JSON_BYTES = 256 * 1024 * 1024


def read_json(path: Path, shape: Any = object, what: str = "JSON file") -> Any:
    """The document at ``path`` when it is JSON of ``shape``; else a LoadError naming ``path``."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_JSON_BYTES + 1)
    except FileNotFoundError:
        raise LoadError(f"{path}: not a readable {what}: file not found") from None
    except OSError as exc:
        raise LoadError(f"{path}: not a readable {what}: {exc.strerror or exc}") from None
    if len(data) > MAX_JSON_BYTES:
        raise LoadError(f"{path}: over {MAX_JSON_BYTES // (1024 * 1024)} MiB, too large for a {what}")
    return parse_json(data, path, shape, what)


def parse_json(data: bytes, path: Path, shape: Any = object, what: str = "JSON file") -> Any:
    """``data`` (read from ``path``) parsed and checked against ``shape``; else a LoadError naming ``path``."""
    try:
        doc = json.loads(data)
    except RecursionError:
        raise LoadError(f"{path}: nested too deeply to be a {what} (damaged?)") from None
    except ValueError as exc:  # JSONDecodeError, and bytes that are not UTF-8
        raise LoadError(f"{path}: not a readable {what}: {exc} (truncated or damaged?)") from None
    check_shape(doc, path, shape)
    return doc


def load_json(path: Path, shape: Any = object) -> Any | None:
    """:func:`read_json` for a cache or a record: None when the file is missing or damaged in any way."""
    try:
        return read_json(path, shape)
    except LoadError:
        return None


def check_shape(value: Any, path: Path, shape: Any, where: str = "") -> None:
    """Raise a LoadError naming ``path`` and the entry (``files["a.cu"].out``) that does not fit ``shape``."""
    if isinstance(shape, tuple):
        problems = []
        for option in shape:
            try:
                check_shape(value, path, option, where)
                return
            except LoadError as exc:
                problems.append(str(exc))
        raise LoadError(problems[-1])
    if isinstance(shape, type):
        if shape is object or isinstance(value, shape) and not (shape is int and isinstance(value, bool)):
            return
        raise LoadError(f"{path}: {where or 'the document'} must be {_NAMES.get(shape, shape.__name__)}, "
                        f"not {_json_type(value)} ({_preview(value)})")
    if isinstance(shape, list):
        if not isinstance(value, list):
            raise LoadError(f"{path}: {where or 'the document'} must be a list, not {_json_type(value)}")
        for i, item in enumerate(value):
            check_shape(item, path, shape[0], f"{where}[{i}]")
        return
    if not isinstance(value, dict):
        raise LoadError(f"{path}: {where or 'the document'} must be an object, not {_json_type(value)}")
    fixed = {k.rstrip("?"): v for k, v in shape.items() if k != "*"}
    for key in shape:
        if key != "*" and not key.endswith("?") and key not in value:
            raise LoadError(f"{path}: {where or 'the document'} is missing {key!r}")
    for key, item in value.items():
        inner = f"{where}.{key}" if key in fixed and where else key if key in fixed else f"{where}[{json.dumps(key)}]"
        if key in fixed:
            check_shape(item, path, fixed[key], inner)
        elif "*" in shape:
            check_shape(item, path, shape["*"], inner)
        else:
            raise LoadError(f"{path}: {where or 'the document'} has an unknown key {key!r}")


_NAMES = {str: "a string", int: "a whole number", bool: "true or false", type(None): "null"}


def _json_type(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _preview(value: Any) -> str:
    """The start of ``value`` as JSON (a value nested too deeply to print shows as ``...``)."""
    try:
        return json.dumps(value)[:40]
    except (RecursionError, ValueError):
        return "..."
