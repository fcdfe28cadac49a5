"""Port one file: bytes in, a :class:`FileResult` value out.

Everything here is a pure function of the input bytes, the source path and
the rule set, so files can be ported in any order, in any process, and the
result is the same.  Failures are values too: one bad file is reported and
the run goes on.
"""

from __future__ import annotations

import hashlib
import re
from fnmatch import fnmatchcase
from functools import lru_cache
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from musaport import __version__
from musaport.errors import Outcome
from musaport.cpp.declarations import declared_names, is_word
from musaport.cpp.parser import INCLUDE, Parsed, decode, encode, masked, parse
from musaport.resources import data_dir
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

# Every spelling of CUDA, its libraries and NVIDIA that survives in code is reported, even when it is in
# no list: the toolkit's typedefs and helpers (nv_bfloat16, make_cudaExtent, make_cuFloatComplex), the
# legacy THC API, NVSHMEM, macros (CUDA_*, CU_*) and lower-case names (cuda_*). A name a rule keeps on purpose is in
# rules/data/keep_cuda_names.txt with its reason, and a name the file declares itself is the project's.
_CUDA_SPELLING = re.compile(
    r"cuda\w*|cu[A-Z]\w*|CU_\w+|CUDA_\w+|nv_\w+|__nv\w*|THC\w*|nvshmem\w*|NVSHMEM\w*|make_cu(?:da|[A-Z])\w*")
# Include paths of CUDA, its libraries and NVIDIA: a cuda/, THC/, nvtx3/, crt/ or cooperative_groups/ folder
# (libcu++'s <cuda/atomic>), a toolkit header by its bare name (<nvshmem.h>, <cudnn.h>, <nvToolsExt.h>), or one of
# the toolkit's headers whose names hold no CUDA word (<cooperative_groups.h>, "device_launch_parameters.h",
# <sm_60_atomic_functions.h>, <vector_types.h>: nvcc's include folder has them, the naming facts give them no
# MUSA name); a header in a folder of the tree (<ATen/ops/cudnn_batch_norm.h>, <torch/csrc/musa/nccl.h>) is the
# tree's own.
_TOOLKIT_PLAIN_HEADERS = (
    r"cooperative_groups\.h|device_launch_parameters\.h|device_functions\.h|device_atomic_functions\.h"
    r"|device_double_functions\.h|sm_\d+_\w+\.h|vector_types\.h|vector_functions\.h|driver_types\.h"
    r"|builtin_types\.h|host_defines\.h|texture_types\.h|surface_types\.h|texture_fetch_functions\.h"
    r"|math_constants\.h|nvfunctional")
_CUDA_INCLUDE = re.compile(
    r"[<\"](?:(?:cuda|THC|nvtx3|crt|cooperative_groups)/[^>\"]*|(?:cuda|cu[A-Z]|cublas|cusparse|cusolver|curand"
    r"|cufft|cudnn|cupti|nccl|nvshmem|nvrtc|nvToolsExt|nvtx|nvml|nvjpeg|nv_)[^/>\"]*"
    rf"|(?:{_TOOLKIT_PLAIN_HEADERS}))[>\"]")

# PyTorch's own CUDA names that the scan's spellings miss (their word is CUDA alone): the deprecated type of
# the CUDA backend, at::CUDA(scalar_type), which makes CUDA tensors wherever it is left.
_TORCH_CUDA_CALL = re.compile(r"(?<![\w:])(?:at|torch)::CUDA(?=\s*\()")

# Every vocabulary name and every _CUDA_API or _CUDA_SPELLING spelling starts with one of these.
# CUTLASS and CuTe are found by their namespaces and counted per first member (cutlass::gemm).
_CANDIDATE = re.compile(r"(?:cu|CU|Cu|__nv|__NV|__CUDA|nccl|NCCL|nv|NV|npp|NPP|Npp|THC|make_cu)\w*")
_MEMBER = re.compile(r"::\w+")

LEGACY_THC = "THC (PyTorch before 1.11)"
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
        # NVDEC's cuviddec.h spells its codecs, surfaces and chroma formats cudaVideo* (cudaVideoCodec_H264).
        ("NVDEC/NVCUVID", r"(?:cuvid|CUVID|CUvideo|cudaVideo)\w*"),
        ("NPP", r"(?:npp|NPP|Npp)\w*"),
        ("NVML", r"(?:nvml|NVML)\w*"),
        ("cuFile", r"(?:cuFile|CUfile|CU_FILE_)\w*"),
        ("cuDSS", r"(?:cudss|CUDSS)\w*"),
        ("CUTLASS/CuTe", r"(?:cutlass::|cute::|CUTLASS_|CUTE_)\w*"),
        # PyTorch's own CUDA layer before 1.11 (THCState, THCudaMalloc, THCudaBlas_Sgemm, <THC/THC.h>): gone from
        # PyTorch itself, so its code is ported to ATen/c10 first, not renamed; THCP* are torch/csrc's bindings.
        (LEGACY_THC, r"[<\"]THC/[^>\"]*[>\"]|THC(?!P)\w*"),
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
    # CUDA spellings left on purpose (rules/data/keep_cuda_names.txt gives each one's reason), with lines.
    kept: tuple[tuple[str, int], ...] = ()
    # CUDA-like names (no toolkit name) this file declares itself: the project's own, in its other files too.
    declared: tuple[str, ...] = ()


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
    unmapped, kept_here, own = scan_cuda_names(Parsed(result.text, result.spans), vocabulary,
                                               result.views.get(CODE_ONLY))
    if result.text == text:
        return FileResult(src, out, FileStatus.UNCHANGED, digest, digest, {}, result.findings, unmapped, warnings, facts,
                          BOM * bom + data, observed=observed, kept=kept_here, declared=own)
    new = BOM * bom + encode(provenance(src, digest, text) + result.text)
    return FileResult(src, out, FileStatus.PORTED, digest, sha256(new), result.fired, result.findings, unmapped, warnings, facts, new,
                      observed=observed, kept=kept_here, declared=own)


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
    """CUDA API identifiers (and CUDA includes) still present in code context, with their lines."""
    return scan_cuda_names(parsed, vocabulary, code)[0]


def scan_cuda_names(parsed: Parsed, vocabulary: frozenset[str], code: str | None = None
                    ) -> tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...], tuple[str, ...]]:
    """(unmapped, kept, declared): every name of CUDA, its libraries or NVIDIA left in code context or in an
    include, with its line; apart from them those a rule keeps on purpose (``kept``, reason in the
    keep-list); and the CUDA-like names the file declares (``declared``).

    A name of the toolkit vocabulary always counts. A name that only looks
    like one (``cudaStatus``, ``NCCL_CHECK``) does not when the file declares
    it itself: then it is the project's own variable, function or macro.
    The report drops it from the project's other files too (a struct member
    declared in a header, ``nv_enc_state``, used in the ``.cpp``).
    """
    if code is None:
        code = masked(parsed.text, parsed.spans, CODE_ONLY)
    found, keep = [], []
    for m in _CANDIDATE.finditer(code):
        name = m.group(0)
        if m.start() and is_word(code[m.start() - 1]):
            continue
        if name in ("cutlass", "cute"):
            member = _MEMBER.match(code, m.end())
            name += member.group(0) if member else ""
        if name in vocabulary or _CUDA_API.fullmatch(name):
            found.append((name, m.start()))
        elif _CUDA_SPELLING.fullmatch(name):
            (keep if kept(name) else found).append((name, m.start()))
    found += [(m.group(0), m.start()) for m in _TORCH_CUDA_CALL.finditer(code)]
    found += [(site.text, site.start) for site in cuda_includes(parsed)]
    if not found and not keep:
        return (), (), ()
    own = declared_names(parsed.text, code, {n for n, _ in found
                                                if n not in vocabulary and n[0] not in "<\"" and "::" not in n})
    return _lines(parsed.text, [f for f in found if f[0] not in own]), _lines(parsed.text, keep), tuple(sorted(own))


def _lines(text: str, sites: list[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    """(name, offset) sites as (name, line), in text order."""
    hits = []
    line, pos = 1, 0
    for name, start in sorted(sites, key=lambda f: f[1]):
        line += text.count("\n", pos, start)
        pos = start
        hits.append((name, line))
    return tuple(hits)


@dataclass(frozen=True)
class _Site:
    text: str
    start: int


def cuda_includes(parsed: Parsed) -> list[_Site]:
    """Includes that still name a header of CUDA, its libraries or NVIDIA (``<cuda/atomic>``,
    ``<THC/THC.h>``, ``<nvshmem.h>``): a port that includes one does not build without that toolkit."""
    out = []
    for span in parsed.spans:
        if span.context == INCLUDE:
            spelled = parsed.text[span.start : span.end]
            if _CUDA_INCLUDE.fullmatch(spelled):
                out.append(_Site(spelled, span.start))
    return out


# The finding that marks code the scan for CUDA names left after porting could not read (code that only
# running the project makes), so the report may not say "none" for it (Report.unscanned).
UNSCANNED_INLINE = "py-jit-inline-unscanned"


def kept_file() -> Path:
    """The list of CUDA spellings kept on purpose, with their reasons."""
    return data_dir("rules") / "data" / "keep_cuda_names.txt"


@lru_cache(maxsize=1)
def kept_names() -> dict[str, str]:
    """The CUDA spellings a rule keeps on purpose, each with its reason (rules/data/keep_cuda_names.txt:
    ``NAME  # reason``, NAME a glob)."""
    out = {}
    for line in kept_file().read_text(encoding="utf-8").splitlines():
        name, _, reason = line.partition("#")
        if name.strip():
            out[name.strip()] = reason.strip()
    return out


@lru_cache(maxsize=65536)
def kept(name: str) -> str:
    """Why ``name`` keeps its CUDA spelling on purpose ('' when no rule keeps it)."""
    return next((why for glob, why in kept_names().items() if fnmatchcase(name, glob)), "")


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

