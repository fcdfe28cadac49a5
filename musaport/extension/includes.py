"""Every include of a renamed file follows it: the per-run rename map as rules.

The port renames files (``scatter_cuda.h`` → ``scatter_musa.h``,
``gpu/math.cuh`` → ``gpu/math.muh``, ``cuda/`` → ``musa/``), and an
extension names its own headers in every way a compiler allows: quoted and
relative to the including file (``"../cuda/x.cuh"``), or bracketed from an
include root (``<lib/rnnt/gpu/math.cuh>``). Each include is resolved the way
the compiler would (a quoted one against the including file's folder first,
then the include roots; a bracketed one against the roots), and when it
lands on a renamed file, the spelling is rewritten component by component:
the ``..`` prefix stays, the named folders and the file name become their
ported names. The result is data (a table per group of including files), and
it is applied by ordinary names rules in include context, appended to the
packs; its digest is part of the cache key through the discovered layout.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from musaport.cpp.parser import INCLUDE
from musaport.rewrite.rules import Rule, make_rule
from musaport.rewrite.transforms import rename_path

RULE_ID = "follow-renamed-includes"
_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*([<\"][^>\"\n]+[>\"])", re.M)
_COMMENT_OR_STRING = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)


@dataclass(frozen=True)
class Include:
    """One ``#include``: its target with the delimiters (``"x.h"`` or ``<x.h>``) and its line."""

    spelling: str
    line: int

    @property
    def quoted(self) -> bool:
        return self.spelling.startswith('"')

    @property
    def name(self) -> str:
        return self.spelling[1:-1]


def blank(text: str, strings: bool = True) -> str:
    """``text`` with comments (and, with ``strings``, string and char literals) blanked.

    Newlines stay, so offsets and line numbers still hold: a cheap view of the
    code, good enough to decide whether a file uses CUDA and what it includes.
    """
    def sub(m: re.Match[str]) -> str:
        body = m.group(0)
        return body if not strings and body[0] in "\"'" else re.sub(r"[^\n]", " ", body)

    return _COMMENT_OR_STRING.sub(sub, text)


def scan_includes(text: str) -> tuple[Include, ...]:
    """The includes of a C++ file, outside comments."""
    code = blank(text, strings=False)
    return tuple(Include(m.group(1), code.count("\n", 0, m.start()) + 1) for m in _INCLUDE.finditer(code))


def resolve(include: Include, includer: str, roots: tuple[str, ...], files: frozenset[str]) -> str | None:
    """The project file an include names, as the compiler would find it (None: not a project file)."""
    bases = ((includer.rpartition("/")[0],) if include.quoted else ()) + roots
    for base in bases:
        rel = join(base, include.name)
        if rel is not None and rel in files:
            return rel
    return None


def join(base: str, name: str) -> str | None:
    """``base/name`` normalised, or None when it leaves the project (``..`` past the root, absolute)."""
    if name.startswith("/"):
        return None
    path = posixpath.normpath(f"{base}/{name}" if base else name)
    return None if path == ".." or path.startswith("../") else path


def follow(spelling: str, out: str) -> str:
    """The include spelling (delimiters kept) that names ``out``, the ported path of the file it named."""
    return spelling[0] + follow_path(spelling[1:-1], out) + spelling[-1]


def follow_path(name: str, out: str) -> str:
    """The path ``name`` (relative to anything) rewritten to name ``out``, the port of what it named.

    Renames keep the depth of every path, so the trailing components of
    ``name`` are the trailing components of the original path, and their
    ported names are the trailing components of ``out``; a ``../`` prefix
    stays as it is.
    """
    parts = name.split("/")
    lead = 0
    while lead < len(parts) and parts[lead] in (".", ".."):
        lead += 1
    tail = parts[lead:]
    if not tail or any(p in (".", "..", "") for p in tail):
        return rename_path(name)  # an odd spelling: rename it the way files are renamed
    return "/".join(parts[:lead] + out.split("/")[-len(tail):])


def include_tables(includes: tuple[tuple[str, tuple[Include, ...]], ...], renames: dict[str, str],
                   roots: tuple[str, ...], files: frozenset[str]) -> dict[str, dict[str, str]]:
    """Per including file: every include spelling → its new spelling (itself when it stays)."""
    tables: dict[str, dict[str, str]] = {}
    for rel, incs in includes:
        table: dict[str, str] = {}
        for inc in incs:
            target = resolve(inc, rel, roots, files)
            table[inc.spelling] = follow(inc.spelling, renames[target]) if target in renames else inc.spelling
        tables[rel] = table
    return tables


def groups(tables: dict[str, dict[str, str]]) -> list[tuple[list[str], dict[str, str]]]:
    """Including files grouped so that no spelling means two things within a group.

    Usually one group holds every file; a spelling that names a renamed file
    from one folder and a file that keeps its name from another splits them.
    """
    found: list[tuple[list[str], dict[str, str]]] = []
    for rel in sorted(tables):
        table = tables[rel]
        if all(k == v for k, v in table.items()):
            continue
        for members, merged in found:
            if all(merged.get(k, v) == v for k, v in table.items()):
                members.append(rel)
                merged.update(table)
                break
        else:
            found.append(([rel], dict(table)))
    return found


def follow_rules(tables: dict[str, dict[str, str]], where: str) -> list[Rule]:
    """One names rule per group, in include context, limited to the group's files."""
    rules = []
    for n, (members, merged) in enumerate(groups(tables)):
        renames = {k: v for k, v in merged.items() if k != v}
        keys = sorted((re.escape(k) for k in renames), key=lambda k: (-len(k), k))
        rules.append(make_rule(
            id=RULE_ID if n == 0 else f"{RULE_ID}-{n + 1}",
            why="This project's includes of a file the port renames must name the renamed file.",
            kind="names", pack="extension", where=where, pattern=f"(?:{'|'.join(keys)})",
            names=tuple(sorted(renames.items())), contexts=frozenset({INCLUDE}),
            files=tuple(_glob_escape(m) for m in members)))
    return rules


def _glob_escape(path: str) -> str:
    """``path`` as an fnmatch pattern that matches only itself."""
    return re.sub(r"([*?\[])", r"[\1]", path)
