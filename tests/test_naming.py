"""Naming policy: the systematic rename changes only CUDA words, and what the
port leaves CUDA-named in code is libtorch's or listed with a reason."""

from __future__ import annotations

import re

import pytest

from musaport.resources import parse_vocabulary, vocabulary_file
from musaport.rewrite.transforms import systematic

TOOLKIT = sorted(parse_vocabulary(vocabulary_file().read_bytes()))

# Words of an identifier: runs split at underscores and camel-case steps; a
# leading CU or MU before lower case (CUresult, MUresult) is a word of its own.
_WORD = re.compile(r"(?:CU|MU)(?=[a-z])|[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+|[A-Z]+|\d+")
_LIBRARIES = ("cublas", "cusparse", "cusolver", "curand", "cufft", "cupti")


def words(name: str) -> list[str]:
    return [w for part in name.split("_") for w in _WORD.findall(part)]


def cuda_word_renamed(old: str, new: str, first: bool) -> bool:
    """Whether ``old`` → ``new`` renames a CUDA-ish word and nothing else in it."""
    lower = old.lower()
    if "cuda" in lower:
        return new == re.sub("cuda|Cuda|CUDA", lambda m: {"cuda": "musa", "Cuda": "Musa", "CUDA": "MUSA"}[m.group(0)], old)
    if first and lower in ("nv", "npp", "nppi", "npps"):
        return new.lower() in ("mt", "mtpp", "mtppi", "mtpps")
    if lower.startswith("cu") and (first or lower.startswith(_LIBRARIES) or lower == "cubin"):
        return new == {"c": "m", "C": "M"}[old[0]] + {"u": "u", "U": "U"}[old[1]] + old[2:]
    return False


@pytest.mark.parametrize("vocabulary", [TOOLKIT], ids=["toolkit"])
def test_systematic_changes_only_cuda_words(vocabulary: list[str]) -> None:
    """For every name of the vocabulary, each word that changes is a CUDA word
    (cuda/CUDA anywhere, the leading cu/CU/__nv/npp family word, a library word,
    cubin), renamed to its MUSA spelling; every other word stays as it was."""
    bad = []
    for name in vocabulary:
        new = systematic(name)
        old_words, new_words = words(name), words(new)
        if len(old_words) != len(new_words):
            bad.append((name, new))
            continue
        for i, (o, n) in enumerate(zip(old_words, new_words)):
            if o != n and not cuda_word_renamed(o, n, first=i == 0):
                bad.append((name, new))
                break
    assert not bad, f"{len(bad)} names with a non-CUDA word renamed, e.g. {bad[:5]}"


def test_current_is_not_a_cuda_word() -> None:
    assert systematic("cudaMemPoolAttrReservedMemCurrent") == "musaMemPoolAttrReservedMemCurrent"
    assert systematic("cuCtxGetCurrent") == "muCtxGetCurrent"
    assert systematic("cudaGraphicsCubeFacePositiveX") == "musaGraphicsCubeFacePositiveX"
    assert not [n for n in TOOLKIT if "Murrent" in systematic(n) or "Mube" in systematic(n)]
