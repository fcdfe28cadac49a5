"""musaport_sources.cmake: the ported tree's source lists, for a backend's CMake build.

The manual's FAQ case (an undefined symbol after porting) is fixed by adding
the right ``.mu`` to the backend's source list; generating the lists from the
run makes that list complete and keeps it in step with every PyTorch bump.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Iterable

from musaport.outdir import CMAKE_FILE
from musaport.resources import render_template

INCLUDE_DIRS = ("", "aten/src")


def source_group(out: str) -> str:
    """The ported folder a file belongs to: its path up to the first ``musa`` folder, else its folder."""
    parts = PurePosixPath(out).parts[:-1]
    for i, part in enumerate(parts):
        if part == "musa":
            return "/".join(parts[: i + 1])
    return "/".join(parts) or "."


def group_variable(folder: str) -> str:
    """``aten/src/ATen/native/musa`` → ``MUSAPORT_SOURCES_ATEN_SRC_ATEN_NATIVE_MUSA``.

    ASCII only: ``${...}`` accepts no other letters in a variable name.
    """
    return "MUSAPORT_SOURCES_" + re.sub(r"\W+", "_", folder, flags=re.ASCII).strip("_").upper()


_CMAKE_ESCAPES = {"\\": "\\\\", '"': '\\"', "$": "\\$", ";": "\\;", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def cmake_quoted(text: str) -> str:
    """``text`` for the inside of a CMake quoted argument: it stays one list element, expands nothing.

    ``"`` would end the argument (and let the rest of a crafted name run as
    CMake code at include()), ``$`` expand a variable, ``;`` split the list,
    ``\\`` start an escape, a newline end the line.  Text that is not UTF-8
    (lone surrogates) cannot be written at all: such characters become ``?``.
    """
    safe = text.encode("utf-8", "replace").decode("utf-8") if not text.isascii() else text
    return "".join(_CMAKE_ESCAPES.get(ch, ch) for ch in safe)


def comment_text(text: str) -> str:
    """``text`` for a ``#`` comment line: characters that are not printable shown as escapes."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def sources_cmake(outputs: Iterable[str], registration: Iterable[str], header: str,
                  left_out: dict[str, str] | None = None, include_dirs: tuple[str, ...] = INCLUDE_DIRS) -> str:
    """The CMake text for the ported ``outputs`` (tree-relative) and the generated registration files;
    ``left_out`` (output → reason) are listed apart, not in the default build lists; ``include_dirs`` are
    tree-relative ("" is the tree itself)."""
    left_out = left_out or {}
    outs = sorted(set(outputs) - set(left_out))
    mu = [o for o in outs if o.endswith(".mu")]
    cpp = [o for o in outs if o.endswith(".cpp")]
    groups: dict[str, list[str]] = {}
    for o in mu + cpp:
        groups.setdefault(source_group(o), []).append(o)
    rows = [{"var": group_variable(folder), "folder": comment_text(folder), "files": _quoted(files)}
            for folder, files in sorted(groups.items())]
    apart = [{"file": cmake_quoted(f), "why": comment_text(why)} for f, why in sorted(left_out.items())]
    return render_template(CMAKE_FILE + ".j2", header=comment_text(header.replace("//", "#", 1)),
                           mu=_quoted(mu), cpp=_quoted(cpp), registration=_quoted(registration),
                           include_dirs=_quoted_dirs(include_dirs), groups=rows, left_out=apart)


def _quoted_dirs(dirs: Iterable[str]) -> list[str]:
    """Include folders, each escaped for a CMake quoted argument, in their given order (it matters)."""
    return [cmake_quoted(d) for d in dirs]


def _quoted(paths: Iterable[str]) -> list[str]:
    """Sorted paths, each escaped for a CMake quoted argument (sorted before escaping: the order stays)."""
    return [cmake_quoted(p) for p in sorted(paths)]


def cmake_variables(cmake_text: str) -> dict[str, list[tuple[str, int]]]:
    """Entries of every ``set(VAR ...)`` / ``list(APPEND VAR ...)`` with their lines."""
    found: dict[str, list[tuple[str, int]]] = {}
    cmake_text = re.sub(r'(?m)("[^"\n]*")|#.*$', lambda m: m.group(1) or "", cmake_text)  # comments out
    for m in re.finditer(r"\b(?:set|list)\s*\(\s*(?:APPEND\s+)?(\w+)([^)]*)\)", cmake_text, re.I):
        line = cmake_text.count("\n", 0, m.start(2)) + 1
        for item in re.finditer(r"\"[^\"]*\"|[^\s\"]+", m.group(2)):
            at = line + m.group(2).count("\n", 0, item.start())
            found.setdefault(m.group(1), []).append((item.group().strip('"'), at))
    return found


def left_out_sources(lists: str) -> set[str]:
    """Tree-relative paths the list file keeps out of the default build (``MUSAPORT_LEFT_OUT_SOURCES``)."""
    prefix = "${CMAKE_CURRENT_LIST_DIR}/"
    return {p.removeprefix(prefix) for p, _ in cmake_variables(lists).get("MUSAPORT_LEFT_OUT_SOURCES", [])}
