"""The ported tree as a plain C++ compiler sees it: every launch turned into a call.

g++ cannot parse ``<<<...>>>``, and launches sit in ported headers too
(``Loops.muh``, ``Reduce.muh``, ``MUSAApplyUtils.muh``), so the CPU build
compiles a mirror of the whole port in which each file holding a launch is
converted (see ``cpp.launches``) and every other file is the same bytes.  A
whole mirror, not only the converted files, keeps ``#include "x.muh"``
relative lookups inside it.  Unchanged files keep their mtime, so the object
cache and the compiler see only what changed; the port itself is never edited.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from musaport.cpp.launches import LaunchError, rewrite_launches
from musaport.cpp.parser import encode, parse
from musaport.outdir import write_atomic


@dataclass(frozen=True)
class ViewProblem:
    """A ported file whose launches could not be converted (the CPU build of its users fails)."""

    file: str
    error: str


def cpu_bytes(data: bytes) -> bytes:
    """One file as the CPU build reads it (LaunchError when a launch cannot be delimited)."""
    return encode(rewrite_launches(parse(data))) if b"<<<" in data else data


def refresh(tree: Path, view: Path) -> list[ViewProblem]:
    """Bring ``view`` in line with ``tree``: convert, copy, delete what the port no longer has."""
    problems = []
    wanted = set()
    for path in sorted(_files(tree)):
        rel = path.relative_to(tree).as_posix()
        wanted.add(rel)
        data = path.read_bytes()
        try:
            data = cpu_bytes(data)
        except LaunchError as err:
            problems.append(ViewProblem(rel, str(err)))
        write_atomic(view / rel, data)
    for path in _files(view) if view.is_dir() else []:
        if path.relative_to(view).as_posix() not in wanted:
            path.unlink()
    return problems


def _files(root: Path) -> list[Path]:
    found = []
    for folder, _, names in os.walk(root):
        found += [Path(folder) / n for n in names if not n.startswith(".")]
    return found
