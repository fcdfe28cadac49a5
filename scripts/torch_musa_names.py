#!/usr/bin/env python3
"""The PyTorch-level names that ``--pack torch-musa`` gives back their CUDA spelling.

torch_musa's convention (read in its public sources: the porting tool under
``tools/cuda_porting`` and the headers under ``torch_musa/csrc``): its port of
PyTorch's CUDA layer renames the CUDA toolkit's names to the MUSA toolkit's,
the ``cuda`` namespaces and folders to ``musa``, and a short list of runtime
names that its hand-written core re-implements; every other name PyTorch's
CUDA layer declares keeps its CUDA spelling inside the ``musa`` namespaces
(``at::musa::getCurrentCUDABlasHandle``, ``CUDA_KERNEL_LOOP``,
``torch::musa::CUDAPluggableAllocator``). Code meant to link with torch_musa
must use those spellings.

This script states that convention over musaport's own name tables: every
name the default packs rename only by its CUDA word (the ``pytorch-cuda-names``
vocabulary, ``pytorch-cuda-classes``, ``pytorch-checks``) is listed in its
MUSA spelling, for the pack to spell back, except the families torch_musa's
core declares under MUSA names (``RUNTIME`` below, each with its reason).
Regenerate after ``rules/data/pytorch_cuda_names.txt`` changes:

    python scripts/torch_musa_names.py > rules/optional/torch-musa-cuda-names.txt
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from musaport.resources import default_packs, parse_vocabulary, vocabulary_file  # noqa: E402
from musaport.rewrite.packs import load_packs  # noqa: E402
from musaport.rewrite.transforms import cuda_spelling, systematic  # noqa: E402

# What torch_musa's core declares with MUSA names, so the port keeps the MUSA spelling:
RUNTIME = (
    # streams and everything named after them (MUSAStream, getCurrentMUSAStream, MUSAStreamGuard...):
    # torch_musa/csrc/core/MUSAStream.h and MUSAGuard.h
    (re.compile(r"Stream"), "streams: torch_musa/csrc/core/MUSAStream.h"),
    # device and stream guards and the guard implementation: torch_musa/csrc/core/MUSAGuard.h, GuardImpl.h
    (re.compile(r"Guard"), "guards: torch_musa/csrc/core/MUSAGuard.h, GuardImpl.h"),
    # the caching allocator's namespace: torch_musa/csrc/core/MUSACachingAllocator.h
    (re.compile(r"CachingAllocator"), "caching allocator: torch_musa/csrc/core/MUSACachingAllocator.h"),
    # the error-check macros of c10 (C10_MUSA_CHECK, C10_MUSA_KERNEL_LAUNCH_CHECK): torch_musa's port renames
    # them, its core (MUSAException.h) defines the MUSA ones
    (re.compile(r"^C10_CUDA_(?:CHECK|KERNEL_LAUNCH_CHECK|IGNORE_ERROR|ERROR_HANDLED)"),
     "c10 check macros: torch_musa/csrc/core/MUSAException.h"),
    # the DispatchStub registration: torch_musa registers its kernels with REGISTER_MUSA_DISPATCH
    (re.compile(r"REGISTER_CUDA_DISPATCH|RegisterCUDADispatch"), "stub registration"),
)


def pairs() -> dict[str, str]:
    """CUDA name → the default port's spelling, for the PyTorch-level names the default packs rename."""
    rules = load_packs(default_packs())
    out: dict[str, str] = {}
    for rule_id in ("pytorch-cuda-classes", "pytorch-checks"):
        rule = rules.by_id(rule_id)
        assert rule is not None, rule_id
        out.update(dict(rule.names))
    vocab = rules.by_id("pytorch-cuda-names")
    assert vocab is not None
    for name in vocab.vocabulary:
        out.setdefault(name, systematic(name))
    return out


def kept() -> list[str]:
    """The MUSA spellings the pack turns back into PyTorch's CUDA spelling, sorted."""
    toolkit = {systematic(n) for n in parse_vocabulary(vocabulary_file().read_bytes())}
    found = []
    for cuda, musa in pairs().items():
        if musa == cuda or cuda_spelling(musa) != cuda or musa in toolkit:
            continue  # unchanged, or a library word changed too (TORCH_MUSOLVER_CHECK: the toolkit's side)
        if any(p.search(cuda) for p, _ in RUNTIME):
            continue
        found.append(musa)
    return sorted(found)


def render() -> str:
    head = ("# MUSA spellings that --pack torch-musa turns back into PyTorch's CUDA spelling (torch_musa keeps\n"
            "# PyTorch-level names as PyTorch declares them). Made by scripts/torch_musa_names.py (see there).\n")
    return head + "".join(f"{n}\n" for n in kept())


if __name__ == "__main__":
    sys.stdout.write(render())
