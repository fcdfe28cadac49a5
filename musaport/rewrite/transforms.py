"""Named transforms that rules may use instead of a fixed replacement.

A rule says ``transform: systematic`` or ``transform: rename_path`` and the
engine calls the function registered here on the matched text.  They are pure
functions, so the examples in each rule pack test them directly.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

_LIBRARIES = ("cublas", "cusparse", "cusolver", "curand", "cufft", "cupti")
_CUDA_WORD = re.compile(r"cuda|Cuda|CUDA")
_CUDA_SPELLING = {"cuda": "musa", "Cuda": "Musa", "CUDA": "MUSA"}
# Where a word starts: at the start, after an underscore or at a camel-case step.
_WORD_START = r"(?:^|(?<=_)|(?<=[a-z0-9])(?=[A-Z]))"
# A library word anywhere in the name (TORCH_CUSOLVER_CHECK, _cublasOpFromChar,
# CuFFTConfig, alertCuBLASConfig...): its cu/CU/Cu becomes mu/MU/Mu.
# cuSPARSELt is a library of its own with no MUSA counterpart, so cusparseLt stays.
_LIBRARY_WORD = re.compile(
    _WORD_START + r"(cu|CU|Cu)(?=(?:blas|sparse(?![Ll]t)|solver|rand|fft|pti)|(?:BLAS|SPARSE(?!LT)|SOLVER|RAND|FFT|PTI)"
    r"|(?:Blas|Sparse(?![Ll]t)|Solver|Rand|Fft|Pti))"
)
# cubin, the CUDA binary format, is a CUDA word too (CU_JIT_INPUT_CUBIN -> MU_JIT_INPUT_MUBIN).
_BINARY_WORD = re.compile(_WORD_START + r"(cu|CU|Cu)(?=bin(?![a-z])|BIN(?![A-Z])|bin[A-Z])")
# cuSOLVER's complex routines put the type letter C before a routine that starts
# with "un" (cusolverDnCungqr); MUSA's tables spell them with M (musolverDnMungqr).
_SOLVER_COMPLEX = re.compile(r"(?<=[a-z0-9])Cu(?=n[a-z])")
_MU = {"cu": "mu", "CU": "MU", "Cu": "Mu"}


def systematic(name: str) -> str:
    """Rename every CUDA-ish word of a toolkit identifier to its MUSA spelling.

    The pattern follows the public naming facts: ``cuda``→``musa`` in any case
    and anywhere (``cudaErrorCudartUnloading``), a leading driver ``cu``/``CU``
    →``mu``/``MU``, library words (``cublas``… at the start or after ``_`` or a
    camel step)→``mu…``, ``cubin``→``mubin``, ``__nv``→``__mt`` and
    ``npp``→``mtpp``.  Every other word stays as it is: the ``Cu`` of
    ``Current``, ``Cube`` or ``Custom`` is not a CUDA word, and neither is
    ``cudnn`` or ``cusparseLt`` (cuDNN, cuSPARSELt: no MUSA counterpart).
    """
    head, rest = _split_prefix(name)
    if head == "mu" and name.startswith("cusolver"):
        rest = _SOLVER_COMPLEX.sub("Mu", rest)
    rest = _CUDA_WORD.sub(lambda m: _CUDA_SPELLING[m.group(0)], rest)
    rest = _LIBRARY_WORD.sub(lambda m: _MU[m.group(1)], rest)
    rest = _BINARY_WORD.sub(lambda m: _MU[m.group(1)], rest)
    return head + rest


def _split_prefix(name: str) -> tuple[str, str]:
    """Rename the leading family marker and return (new head, untouched rest)."""
    for lib in _LIBRARIES:
        for spelled in (lib, lib.upper(), lib.capitalize()):
            if name.startswith(spelled) and not name.lower().startswith("cusparselt"):
                return _MU[spelled[:2]], name[2:]
    for old, new in (("__nv", "__mt"), ("__NV", "__MT"), ("npp", "mtpp"), ("NPP", "MTPP")):
        if name.startswith(old):
            return new, name[len(old) :]
    if re.match(r"cu(?:[A-Z]|uint\d)", name):
        return "mu", name[2:]
    if re.match(r"CU[a-z_]", name):
        return "MU", name[2:]
    return "", name


_DIR_WORD = re.compile(r"(?<![A-Za-z])cuda(?![a-z])|CUDA|Cuda")


def rename_path(path: str) -> str:
    """Rename a POSIX path the way ported files are renamed.

    ``cuda`` folders become ``musa``, ``.cu``/``.cuh`` become ``.mu``/``.muh``
    and ``CUDA``/``cuda`` inside a file name become ``MUSA``/``musa``
    (``ATen/native/cuda/CUDALoops.cuh`` → ``ATen/native/musa/MUSALoops.muh``).
    """
    folder, sep, name = path.rpartition("/")
    return f"{_rename_folders(folder)}/{_rename_part(name, True)}" if sep else _rename_part(name, True)


@lru_cache(maxsize=4096)
def _rename_folders(folder: str) -> str:
    """The folders of a path renamed (a tree has few folders and many files: computed once each)."""
    return "/".join(_rename_part(p, last=False) for p in folder.split("/"))


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


_MUSA_WORD = re.compile(r"musa|Musa|MUSA")


def cuda_spelling(name: str) -> str:
    """The CUDA word back in a name the port spelled with MUSA (``getCurrentMUSABlasHandle`` →
    ``getCurrentCUDABlasHandle``): for an optional pack whose target keeps PyTorch's spelling."""
    return _MUSA_WORD.sub(lambda m: {"musa": "cuda", "Musa": "Cuda", "MUSA": "CUDA"}[m.group(0)], name)


TRANSFORMS: dict[str, Callable[[str], str]] = {
    "systematic": systematic,
    "rename_path": rename_path,
    "cuda_spelling": cuda_spelling,
}
