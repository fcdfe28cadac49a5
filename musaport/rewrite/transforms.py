"""Named transforms that rules may use instead of a fixed replacement.

A rule says ``transform: systematic`` or ``transform: rename_path`` and the
engine calls the function registered here on the matched text.  They are pure
functions, so the examples in each rule pack test them directly.
"""

from __future__ import annotations

import re
from typing import Callable

_LIBRARIES = ("cublas", "cusparse", "cusolver", "curand", "cufft", "cupti")
_CUDA_WORD = re.compile(r"cuda|Cuda|CUDA")
_CAMEL_CU = re.compile(r"(?<=[a-z0-9])Cu(?=[a-z])")
_UPPER_PART = re.compile(r"(?<=_)CU(?=BIN\b|BIN_)")


def systematic(name: str) -> str:
    """Rename every CUDA-ish part of a toolkit identifier to its MUSA spelling.

    The pattern follows the public naming facts: ``cuda``→``musa`` in any case,
    driver ``cu``/``CU``→``mu``/``MU``, library prefixes (``cublas``…)→``mu…``,
    ``__nv``→``__mt``, ``npp``→``mtpp``, and camel parts such as ``Cungqr``.
    """
    head, rest = _split_prefix(name)
    rest = _CUDA_WORD.sub(lambda m: {"cuda": "musa", "Cuda": "Musa", "CUDA": "MUSA"}[m.group(0)], rest)
    rest = _CAMEL_CU.sub("Mu", rest)
    rest = _UPPER_PART.sub("MU", rest)
    return head + rest


def _split_prefix(name: str) -> tuple[str, str]:
    """Rename the leading family marker and return (new head, untouched rest)."""
    for lib in _LIBRARIES:
        for spelled in (lib, lib.upper(), lib.capitalize()):
            if name.startswith(spelled):
                return "mu" if spelled[0] == "c" else ("MU" if spelled[1] == "U" else "Mu"), name[2:]
    for old, new in (("__nv", "__mt"), ("__NV", "__MT"), ("npp", "mtpp"), ("NPP", "MTPP")):
        if name.startswith(old):
            return new, name[len(old) :]
    if re.match(r"cu[A-Z]", name):
        return "mu", name[2:]
    if re.match(r"CU[A-Za-z_]", name) and not name.startswith("CUDA"):
        return "MU", name[2:]
    return "", name


_DIR_WORD = re.compile(r"(?<![A-Za-z])cuda(?![a-z])|CUDA|Cuda")


def rename_path(path: str) -> str:
    """Rename a POSIX path the way ported files are renamed.

    ``cuda`` folders become ``musa``, ``.cu``/``.cuh`` become ``.mu``/``.muh``
    and ``CUDA``/``cuda`` inside a file name become ``MUSA``/``musa``
    (``ATen/native/cuda/CUDALoops.cuh`` → ``ATen/native/musa/MUSALoops.muh``).
    """
    parts = path.split("/")
    return "/".join(_rename_part(p, last=(i == len(parts) - 1)) for i, p in enumerate(parts))


def rename_dirs(path: str) -> str:
    """Rename only the folders of ``path``: a hand-written MUSA file keeps its name
    but lands beside the ported files of its folder."""
    folder, _, name = path.rpartition("/")
    return f"{rename_path(folder + '/x').rpartition('/')[0]}/{name}" if folder else name


def _rename_part(part: str, last: bool) -> str:
    """Rename one path component."""
    if not last:
        return "musa" if part == "cuda" else part
    stem, dot, ext = part.rpartition(".")
    if not dot:
        stem, ext = part, ""
    ext = {"cu": "mu", "cuh": "muh"}.get(ext, ext)
    stem = _DIR_WORD.sub(lambda m: {"cuda": "musa", "CUDA": "MUSA", "Cuda": "Musa"}[m.group(0)], stem)
    return stem + (dot + ext if dot else "")


TRANSFORMS: dict[str, Callable[[str], str]] = {
    "systematic": systematic,
    "rename_path": rename_path,
}
