"""Port one file: bytes in, a :class:`FileResult` value out.

Everything here is a pure function of the input bytes, the source path and
the rule set, so files can be ported in any order, in any process, and the
result is the same.  Failures are values too: one bad file is reported and
the run goes on.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from musaport import __version__
from musaport.errors import Outcome
from musaport.cpp.declarations import declared_names, is_word
from musaport.cpp.parser import Parsed, decode, encode, masked, parse
from musaport.rewrite.apply import Finding, rewrite
from musaport.rewrite.rules import RuleSet
from musaport.cpp.structure import Structure, structure
from musaport.cpp.text import CODE_ONLY
from musaport.cpp.tokens import Tokens

PROVENANCE = "// musaport"
# Spellings that mark a CUDA API name even when the toolkit vocabulary lacks it
# (removed runtime APIs, libraries whose headers are not in the toolkit).
# Driver-style cuFoo names are left to the vocabulary: PyTorch names its own
# kernels that way (cuComputeGradInput).
_CUDA_API = re.compile(
    r"(?:cuda[A-Z]\w*|CU_[A-Z]\w*|__nv_\w+"
    r"|(?:cudnn|nccl|nvrtc|nvtx|nvjpeg|nvml|cudss|cuvid|cuFile|cublas|cusparse|cusolver|cufft|cupti)[A-Z]\w*"
    r"|curand_?[A-Za-z]\w*|CUvideo\w+|CUfile\w+|npp[a-z]?[A-Z]\w*|Npp[0-9A-Z]\w*"
    r"|(?:CUDNN|NCCL|NVRTC|NVTX|NVJPEG|NVML|CUDSS|CUVID|NPP|CUBLAS|CUSPARSE|CUSPARSELT|CUSOLVER|CURAND|CUFFT|CUPTI"
    r"|CUTLASS|CUTE)_\w+"
    r"|(?:cutlass|cute)::\w+)"
)

# Every vocabulary name and every _CUDA_API spelling starts with one of these.
# CUTLASS and CuTe are found by their namespaces and counted per first member (cutlass::gemm).
_CANDIDATE = re.compile(r"(?:cu|CU|Cu|__nv|__NV|__CUDA|nccl|NCCL|nv|NV|npp|NPP|Npp)\w*")
_MEMBER = re.compile(r"::\w+")

# The library families an unmapped name belongs to, by spelling; the first match wins.
FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (family, re.compile(pattern))
    for family, pattern in (
        ("cuSPARSELt", r"(?:cusparseLt|CUSPARSELT)\w*"),
        ("cuDNN", r"(?:cudnn|CUDNN)\w*"),
        ("NCCL", r"(?:nccl|NCCL)\w*"),
        ("NVRTC", r"(?:nvrtc|NVRTC)\w*"),
        ("NVTX", r"(?:nvtx|NVTX)\w*"),
        ("nvJPEG", r"(?:nvjpeg|NVJPEG)\w*"),
        ("NVDEC/NVCUVID", r"(?:cuvid|CUVID|CUvideo)\w*"),
        ("NPP", r"(?:npp|NPP|Npp)\w*"),
        ("NVML", r"(?:nvml|NVML)\w*"),
        ("cuFile", r"(?:cuFile|CUfile|CU_FILE_)\w*"),
        ("cuDSS", r"(?:cudss|CUDSS)\w*"),
        ("CUTLASS/CuTe", r"(?:cutlass::|cute::|CUTLASS_|CUTE_)\w*"),
    )
)
OTHER_FAMILY = "CUDA toolkit"


def family(name: str) -> str:
    """The library family of an unmapped name (``ncclComm_t`` → NCCL), or ``CUDA toolkit``."""
    return next((f for f, pattern in FAMILIES if pattern.fullmatch(name)), OTHER_FAMILY)


@dataclass(frozen=True)
class Task:
    """One file to port: where to read it and what to call it."""

    path: Path
    src: str
    out: str
    copy_only: bool
    values: tuple[tuple[str, str], ...] | None = None  # a configured header: rendered before porting


class FileStatus(Outcome):
    """What happened to one file; the value is what reports and the cache say."""

    PORTED = "ported"
    UNCHANGED = "unchanged"
    COPIED = "copied"
    FAILED = "failed"


@dataclass(frozen=True)
class FileResult:
    """What happened to one file.  ``data`` is the output (not cached)."""

    src: str
    out: str
    status: FileStatus
    src_hash: str
    out_hash: str = ""
    fired: dict[str, int] = field(default_factory=dict)
    findings: tuple[Finding, ...] = ()
    unmapped: tuple[tuple[str, int], ...] = ()
    warnings: tuple[str, ...] = ()
    structure: Structure = field(default_factory=Structure)
    data: bytes | None = field(default=None, compare=False, repr=False)
    staged: bool = field(default=False, compare=False, repr=False)
    # What the generation step's observer took from this port's parse of the source (not cached).
    observed: Any = field(default=None, compare=False, repr=False)


# A generation step's look at each source the port parses, in the worker: (path, parsed source, its
# code view, its structure facts) -> anything picklable, returned in ``FileResult.observed``.
Observer = Callable[[str, Parsed, str, Structure], Any]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def port_bytes(
    data: bytes, src: str, out: str, rules: RuleSet, vocabulary: frozenset[str], tokens: Tokens | None = None,
    observe: Observer | None = None,
) -> FileResult:
    """Port one file's bytes (``tokens``: its libclang tokens, if already lexed; ``observe``: a
    generation step's observer, given the parse of the source so it need not parse it again)."""
    digest = sha256(data)
    warnings = _encoding_warnings(data)
    bom = data.startswith(BOM)
    if bom:  # ported without its mark (lexed again alone), which goes back in front of everything
        data, tokens = data[len(BOM):], None
    text = decode(data)
    if text.startswith(PROVENANCE):
        return FileResult(src, out, FileStatus.COPIED, digest, digest, warnings=warnings, data=BOM * bom + data)
    parsed = parse(data, tokens)
    code = masked(parsed.text, parsed.spans, CODE_ONLY)
    facts = structure(parsed, code)
    observed = observe(src, parsed, code, facts) if observe is not None else None
    result = rewrite(parsed, rules.rules, src, {CODE_ONLY: code})
    unmapped = find_unmapped(Parsed(result.text, result.spans), vocabulary, result.views.get(CODE_ONLY))
    if result.text == text:
        return FileResult(src, out, FileStatus.UNCHANGED, digest, digest, {}, result.findings, unmapped, warnings, facts,
                          BOM * bom + data, observed=observed)
    new = BOM * bom + encode(provenance(src, digest, text) + result.text)
    return FileResult(src, out, FileStatus.PORTED, digest, sha256(new), result.fired, result.findings, unmapped, warnings, facts, new,
                      observed=observed)


# A UTF-8 byte-order mark. A source that starts with one is ported without it and its port starts with
# it, before the provenance line and anything a rule inserts at the start: clang and g++ take the mark
# only as a file's first bytes, and a rule's ``^#include`` must see the line as it is.
BOM = b"\xef\xbb\xbf"


def provenance(src: str, digest: str, text: str) -> str:
    """The one-line header naming tool version, source path and source hash.

    ``src`` is escaped when it holds a character that is not printable: a
    newline in a file name would end the comment and make the rest of the
    name live code (``#error injected``).  Discovery refuses such names; this
    keeps the header one line whatever reaches it.
    """
    newline = "\r\n" if "\r\n" in text[:4096] else "\n"
    name = src if src.isprintable() else repr(src)
    return f"{PROVENANCE} {__version__}: ported from {name} (sha256 {digest[:16]}){newline}"


def copy_bytes(data: bytes, src: str, out: str) -> FileResult:
    """A hand-written MUSA file: copied byte for byte, never re-ported."""
    digest = sha256(data)
    return FileResult(src, out, FileStatus.COPIED, digest, digest, data=data)


def find_unmapped(parsed: Parsed, vocabulary: frozenset[str], code: str | None = None) -> tuple[tuple[str, int], ...]:
    """CUDA API identifiers still present in code context, with their lines.

    A name of the toolkit vocabulary always counts.  A name that only looks
    like one (``cudaStatus``, ``NCCL_CHECK``) does not when the file declares
    it itself: then it is the project's own variable, function or macro.
    """
    if code is None:
        code = masked(parsed.text, parsed.spans, CODE_ONLY)
    found = []
    for m in _CANDIDATE.finditer(code):
        name = m.group(0)
        if m.start() and is_word(code[m.start() - 1]):
            continue
        if name in ("cutlass", "cute"):
            member = _MEMBER.match(code, m.end())
            name += member.group(0) if member else ""
        if name in vocabulary or _CUDA_API.fullmatch(name):
            found.append((name, m.start()))
    if not found:
        return ()
    own = declared_names(parsed.text, code, {n for n, _ in found if n not in vocabulary})
    hits = []
    line, pos = 1, 0
    for name, start in found:
        if name in own:
            continue
        line += parsed.text.count("\n", pos, start)
        pos = start
        hits.append((name, line))
    return tuple(hits)


def _encoding_warnings(data: bytes) -> tuple[str, ...]:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return (f"line {line}: not valid UTF-8; bytes outside rewritten spans are kept as they are",)
    return ()


def failed(src: str, out: str, reason: str) -> FileResult:
    """A file that could not be ported at all."""
    return FileResult(src, out, FileStatus.FAILED, "", warnings=(reason,))

