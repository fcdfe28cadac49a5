#!/usr/bin/env python3
"""Extract the CUDA toolkit identifier vocabulary from installed CUDA headers.

Why: the toolkit rule pack renames only names that really belong to the CUDA
toolkit, so that words such as ``Cutoff`` or PyTorch's own ``CUDA_KERNEL_LOOP``
are never touched.  The list is committed as data (rules/data/) so that users
without a CUDA toolkit get exactly the same rules; this script is how it was
made and how to refresh it for a newer toolkit:

    python scripts/extract_cuda_names.py /usr/local/cuda/include > rules/data/cuda_toolkit_names.txt
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# Names whose spelling marks them as toolkit API (see docs/musa-naming facts).
_TOOLKIT = re.compile(
    r"\b(?:cuda[A-Z_]\w*|Cuda[A-Z]\w*|CUDA_?[A-Z0-9]\w*|CUDART_\w+|cu[A-Z]\w*|CU[a-z]\w*|CU_\w+"
    r"|cupti\w*|CUPTI\w*|__nv_\w+|__NV_\w+|__CUDA_\w+)\b"
)
# Families with no one-to-one MUSA counterpart, and compiler internals.
_SKIP = re.compile(r"^(?:nvtx|NVTX|nvrtc|NVRTC|__cuda|CUDA_API_PER_THREAD|__CUDA_ARCH)")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')


def names_in(text: str) -> set[str]:
    """Toolkit-looking identifiers in one header, comments and strings removed."""
    code = _STRING.sub('""', _COMMENT.sub(" ", text))
    return {n for n in _TOOLKIT.findall(code) if not _SKIP.match(n)}


def headers(root: Path) -> list[Path]:
    """Every C/C++ header below ``root`` except the NVTX and CCCL trees."""
    found = [p for p in root.rglob("*") if p.suffix in {".h", ".hpp"} and p.is_file()]
    return sorted(p for p in found if not {"nvtx3", "cccl", "nv"} & set(p.relative_to(root).parts))


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else "/usr/local/cuda/include")
    vocab: set[str] = set()
    for header in headers(root):
        vocab |= names_in(header.read_text(encoding="utf-8", errors="replace"))
    sys.stdout.write(f"# CUDA toolkit identifiers extracted by scripts/extract_cuda_names.py from {len(headers(root))} headers\n")
    sys.stdout.write("".join(f"{name}\n" for name in sorted(vocab)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
