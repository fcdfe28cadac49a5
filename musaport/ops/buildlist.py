"""Which ported sources stay out of the default build list, and why.

Some CUDA sources need a template library that MUSA has only as a separate
product with another API (CUTLASS/CuTe: NVIDIA's GEMM templates; MUSA's
counterpart is its own template library). They are ported and listed in a
CMake variable of their own, but not in ``MUSAPORT_MU_SOURCES``, so a
backend's default build does not fail on them.  A file needs such a library
when it includes one of its headers, directly or through the ported headers
it includes.
"""

from __future__ import annotations

import posixpath
from typing import Iterable

from musaport.port.file import FileResult, FileStatus

# Include prefix → the reason a file that needs it is left out of the default build.
SEPARATE_LIBRARIES = {
    "cutlass/": "need CUTLASS, whose MUSA counterpart is a separate template library with another API",
    "cute/": "need CuTe, part of CUTLASS, whose MUSA counterpart is a separate template library",
}
_ROOTS = ("", "aten/src/")


def left_out(results: Iterable[FileResult]) -> dict[str, str]:
    """Ported output path → reason, for every translation unit that needs a separate library."""
    by_src = {r.src: r for r in results if r.status != FileStatus.FAILED}
    reasons = _direct(by_src)
    includers = _includers(by_src)
    todo = sorted(reasons)
    while todo:  # a file that includes a file that needs a library needs it too (cycles are fine)
        src = todo.pop()
        for parent in includers.get(src, ()):
            if parent not in reasons:
                reasons[parent] = reasons[src]
                todo.append(parent)
    return {by_src[s].out: why for s, why in sorted(reasons.items()) if by_src[s].out.endswith((".mu", ".cpp"))}


def _direct(by_src: dict[str, FileResult]) -> dict[str, str]:
    """Sources that include a separate library's header themselves, with the reason."""
    found = {}
    for src, result in by_src.items():
        for site in result.structure.includes:
            target = site.name.strip('<>"')
            why = next((why for prefix, why in SEPARATE_LIBRARIES.items() if target.startswith(prefix)), "")
            if why:
                found[src] = why
                break
    return found


def _includers(by_src: dict[str, FileResult]) -> dict[str, list[str]]:
    """Ported source → the ported sources that include it."""
    found: dict[str, list[str]] = {}
    for src, result in sorted(by_src.items()):
        for site in result.structure.includes:
            inner = _resolve(src, site.name.strip('<>"'), by_src)
            if inner:
                found.setdefault(inner, []).append(src)
    return found


def _resolve(src: str, target: str, by_src: dict[str, FileResult]) -> str | None:
    """The ported source an include names: beside the includer first, then from the include roots."""
    candidates = [posixpath.normpath(posixpath.join(posixpath.dirname(src), target))]
    candidates += [root + target for root in _ROOTS]
    return next((c for c in candidates if c in by_src), None)
