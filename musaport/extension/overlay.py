"""An extension's port seen the way its build sees it: laid over the project's own files.

The port holds only what it changed; the rest of the project (a plain header
such as ``csrc/ops/nms.h``, included as ``"../nms.h"`` from a ported
autocast file) comes from the project itself. ``validate --compile`` gives
clang the same view without copying anything: a virtual file system overlay
(``-ivfsoverlay``) shows every project source the port does not replace at
its own path inside the ported tree, so quoted relative includes and the
include roots resolve as they will in the MUSA build.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from musaport.extension.buildfiles import BUILD_FILES, declared_include_dirs
from musaport.extension.discover import SOURCE_SUFFIXES, discover, walk
from musaport.outdir import write_atomic
from musaport.rewrite.transforms import rename_dirs


def overlay_flags(tree: Path, source: Path, ported: set[str], dest: Path) -> list[str]:
    """clang flags for an extension's port: the overlay (written to ``dest``) and the include roots."""
    files = [f for f in walk(source, tree.parent) if isinstance(f, str)]
    shown = sorted(f for f in files if f.endswith(SOURCE_SUFFIXES) and f not in ported and not (tree / f).exists())
    write_atomic(dest, (json.dumps(vfs_overlay(tree, source, shown), indent=1) + "\n").encode())
    builds = tuple(f for f in files if f.rpartition("/")[2] in BUILD_FILES)
    # The roots the port used: declared ones, and those found by an include's trailing path (discover).
    found = discover(source, tree.parent, "port").roots
    roots = [tree / rename_dirs(f"{r}/x").rpartition("/")[0] if r else tree for r in found]
    # A folder the build puts on the include path that the port never looks into (a header-only library in
    # third_party/, a git submodule): read from the project itself, after the port's roots, as the build reads it.
    outside = [source / d for b in builds for d in declared_include_dirs(source, b)
               if d not in found and d and not d.startswith("..") and (source / d).is_dir()]
    return ["-ivfsoverlay", str(dest), *[f"-I{r}" for r in roots], *[f"-I{d}" for d in dict.fromkeys(outside)],
            *build_defines(tree, builds)]


_GUARD = re.compile(r"(?:(?<=-D)|\b)(?:\w+_)?(?:WITH|USE)_MUSA\b")


def build_defines(tree: Path, builds: tuple[str, ...]) -> list[str]:
    """``-D`` for every WITH_MUSA/USE_MUSA guard the ported build files name: the code is checked the way
    the MUSA build compiles it (the CUDA build defined WITH_CUDA the same way)."""
    found: set[str] = set()
    for rel in builds:
        try:
            found.update(_GUARD.findall((tree / rename_dirs(rel)).read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    return [f"-D{name}" for name in sorted(found)]


def vfs_overlay(tree: Path, source: Path, rels: list[str]) -> dict:
    """The overlay document: each project file ``rel`` shown at ``tree/rel`` (clang's VFS format)."""
    folders: dict[str, list[dict]] = {}
    for rel in rels:
        folder, _, name = rel.rpartition("/")
        folders.setdefault(folder, []).append(
            {"type": "file", "name": name, "external-contents": str(source.resolve() / rel)})
    roots = [{"type": "directory", "name": str(tree.resolve() / folder) if folder else str(tree.resolve()),
              "contents": contents} for folder, contents in sorted(folders.items())]
    return {"version": 0, "case-sensitive": "true", "use-external-names": False, "roots": roots}
