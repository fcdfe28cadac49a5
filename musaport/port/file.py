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

from musaport import __version__
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
    r"|(?:cudnn|nccl|nvrtc|nvtx|cublas|cusparse|cusolver|cufft|cupti)[A-Z]\w*|curand_?[A-Za-z]\w*"
    r"|(?:CUDNN|NCCL|NVRTC|NVTX|CUBLAS|CUSPARSE|CUSOLVER|CURAND|CUFFT|CUPTI)_\w+)"
)

# Every vocabulary name and every _CUDA_API spelling starts with one of these.
_CANDIDATE = re.compile(r"(?:cu|CU|Cu|__nv|__NV|__CUDA|nccl|NCCL|nvrtc|NVRTC|nvtx|NVTX)\w*")


@dataclass(frozen=True)
class FileResult:
    """What happened to one file.  ``data`` is the output (not cached)."""

    src: str
    out: str
    status: str  # ported | unchanged | copied | failed
    src_hash: str
    out_hash: str = ""
    fired: dict[str, int] = field(default_factory=dict)
    findings: tuple[Finding, ...] = ()
    unmapped: tuple[tuple[str, int], ...] = ()
    warnings: tuple[str, ...] = ()
    structure: Structure = field(default_factory=Structure)
    data: bytes | None = field(default=None, compare=False, repr=False)
    staged: bool = field(default=False, compare=False, repr=False)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def port_bytes(
    data: bytes, src: str, out: str, rules: RuleSet, vocabulary: frozenset[str], tokens: Tokens | None = None
) -> FileResult:
    """Port one file's bytes (``tokens``: its libclang tokens, if already lexed)."""
    digest = sha256(data)
    warnings = _encoding_warnings(data)
    text = decode(data)
    if text.startswith(PROVENANCE):
        return FileResult(src, out, "copied", digest, digest, warnings=warnings, data=data)
    parsed = parse(data, tokens)
    code = masked(parsed.text, parsed.spans, CODE_ONLY)
    facts = structure(parsed, code)
    result = rewrite(parsed, rules.rules, src, {CODE_ONLY: code})
    unmapped = find_unmapped(Parsed(result.text, result.spans), vocabulary, result.views.get(CODE_ONLY))
    if result.text == text:
        return FileResult(src, out, "unchanged", digest, digest, {}, result.findings, unmapped, warnings, facts, data)
    new = encode(provenance(src, digest, text) + result.text)
    return FileResult(src, out, "ported", digest, sha256(new), result.fired, result.findings, unmapped, warnings, facts, new)


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
    return FileResult(src, out, "copied", digest, digest, data=data)


def find_unmapped(parsed: Parsed, vocabulary: frozenset[str], code: str | None = None) -> tuple[tuple[str, int], ...]:
    """CUDA API identifiers still present in code context, with their lines."""
    if code is None:
        code = masked(parsed.text, parsed.spans, CODE_ONLY)
    hits = []
    line, pos = 1, 0
    for m in _CANDIDATE.finditer(code):
        name = m.group(0)
        if m.start() and _is_word(code[m.start() - 1]):
            continue
        if name in vocabulary or _CUDA_API.fullmatch(name):
            line += code.count("\n", pos, m.start())
            pos = m.start()
            hits.append((name, line))
    return tuple(hits)


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _encoding_warnings(data: bytes) -> tuple[str, ...]:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return (f"line {line}: not valid UTF-8; bytes outside rewritten spans are kept as they are",)
    return ()


def failed(src: str, out: str, reason: str) -> FileResult:
    """A file that could not be ported at all."""
    return FileResult(src, out, "failed", "", warnings=(reason,))

