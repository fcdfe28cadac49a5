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
from musaport.cpp.parser import MASK, Parsed, decode, encode, masked, parse
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
    text = decode(data)
    if text.startswith(PROVENANCE):
        return FileResult(src, out, "copied", digest, digest, warnings=warnings, data=data)
    parsed = parse(data, tokens)
    code = masked(parsed.text, parsed.spans, CODE_ONLY)
    facts = structure(parsed, code)
    observed = observe(src, parsed, code, facts) if observe is not None else None
    result = rewrite(parsed, rules.rules, src, {CODE_ONLY: code})
    unmapped = find_unmapped(Parsed(result.text, result.spans), vocabulary, result.views.get(CODE_ONLY))
    if result.text == text:
        return FileResult(src, out, "unchanged", digest, digest, {}, result.findings, unmapped, warnings, facts, data,
                          observed=observed)
    new = encode(provenance(src, digest, text) + result.text)
    return FileResult(src, out, "ported", digest, sha256(new), result.fired, result.findings, unmapped, warnings, facts, new,
                      observed=observed)


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
        if m.start() and _is_word(code[m.start() - 1]):
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


# Declarations, found by the tokens around a name (a regex approximation of C++,
# good enough to tell a project's own names from the toolkit's).
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)
_DIRECTIVE_LINE = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)
_TAGS = frozenset({"struct", "class", "union", "enum", "namespace", "typename", "concept"})
_NOT_A_TYPE = frozenset({
    "return", "else", "case", "goto", "throw", "new", "delete", "co_return", "co_yield", "co_await", "sizeof",
    "alignof", "typeid", "decltype", "operator", "public", "private", "protected", "using", "if", "while", "for",
    "switch", "do", "and", "or", "not", "default", "typedef", "template",
})
_FOLLOWS_DECLARATOR = frozenset("(=;[{,):")
# Before ``a * b`` (an expression, not a declaration of b): an operator or return.
_EXPRESSION_BEFORE = frozenset(["=", "return", "+", "-", "/", "%", "<", "|", "^", "!", "?", "["])
_DECLARING_MACRO = re.compile(r"\w*(?:DECLARE|DEFINE)\w*")


def declared_names(text: str, code: str, names: set[str] | frozenset[str]) -> set[str]:
    """Which of ``names`` the file declares: as a macro, type, namespace,
    enumerator, function, variable or parameter, or through a DECLARE/DEFINE
    macro.  ``code`` is the file's code view (other contexts masked)."""
    if not names:
        return set()
    found = {m.group(1) for m in _DEFINE.finditer(text) if m.group(1) in names and code[m.start(1)] != MASK}
    rest = names - found
    if not rest:
        return found
    # Preprocessor lines neither declare (macro bodies) nor border a declaration.
    pieces, pos = [], 0
    for m in _DIRECTIVE_LINE.finditer(text):
        pieces += [code[pos : m.start()], "\n".join(" " * len(line) for line in m.group(0).split("\n"))]
        pos = m.end()
    code = "".join(pieces) + code[pos:]
    ident = re.compile(r"(?<![\w])(?:" + "|".join(sorted(map(re.escape, rest))) + r")(?![\w])")
    for m in ident.finditer(code):
        if m.group(0) not in found and _declares(code, m.start(), m.end()):
            found.add(m.group(0))
    return found


def _declares(code: str, start: int, end: int) -> bool:
    """Whether the name at ``code[start:end]`` is being declared there."""
    nxt = _next_token(code, end)
    before = _skip_qualifiers(code, start)
    prev, at = _prev_token(code, before)
    if prev in _TAGS:
        return _prev_token(code, at)[0] != "using" and (nxt != "::" or prev == "namespace")
    if prev == "using":
        return nxt == "="
    if prev in ("(", ",") and _in_declaring_macro(code, before, prev) or _is_enumerator(code, before, prev, nxt):
        return True
    if nxt not in _FOLLOWS_DECLARATOR:
        return False
    if prev in ("*", "&", "&&"):
        prev2, at2 = _prev_token(code, at)
        if prev2 == "(" and nxt == ")":  # (*fn)(...)
            return True
        before_type = _prev_token(code, _skip_qualifiers(code, at2))[0]
        return (prev2 == ">" or _is_type_word(prev2)) and before_type not in _EXPRESSION_BEFORE
    return prev == ">" or _is_type_word(prev)


def _is_type_word(token: str) -> bool:
    return bool(token) and (token[0].isalpha() or token[0] == "_") and token not in _NOT_A_TYPE


def _skip_qualifiers(code: str, pos: int) -> int:
    """Start of ``A::B::`` written before ``pos`` (so ``bool Foo::bar(`` sees ``bool``)."""
    while True:
        tok, at = _prev_token(code, pos)
        if tok != "::":
            return pos
        name, name_at = _prev_token(code, at)
        if not _is_type_word(name):
            return at
        pos = name_at


def _prev_token(code: str, pos: int) -> tuple[str, int]:
    """The token ending before ``pos`` (skipping space and masked text) and where it starts."""
    i = pos - 1
    while i >= 0 and (code[i].isspace() or code[i] == MASK):
        i -= 1
    if i < 0:
        return "", 0
    if _is_word(code[i]):
        j = i
        while j > 0 and _is_word(code[j - 1]):
            j -= 1
        return code[j : i + 1], j
    for op in ("::", "&&"):
        if code[max(0, i - 1) : i + 1] == op:
            return op, i - 1
    return code[i], i


def _next_token(code: str, pos: int) -> str:
    n = len(code)
    while pos < n and (code[pos].isspace() or code[pos] == MASK):
        pos += 1
    if pos >= n:
        return ""
    return "::" if code.startswith("::", pos) else code[pos]


def _in_declaring_macro(code: str, pos: int, prev: str) -> bool:
    """``DECLARE_DISPATCH(fn_type, name)``, ``C10_DEFINE_REGISTRY(name, ...)``: the
    first argument (the last one for a dispatch stub) is declared."""
    paren = code.rfind("(", 0, pos)
    if paren < 0 or ")" in code[paren:pos]:
        return False
    macro = _prev_token(code, paren)[0]
    if not _DECLARING_MACRO.fullmatch(macro):
        return False
    return prev == "(" or ("DISPATCH" in macro and _next_token(code, pos) != ",")


def _is_enumerator(code: str, pos: int, prev: str, nxt: str) -> bool:
    if prev not in ("{", ",") or nxt not in (",", "=", "}"):
        return False
    brace = code.rfind("{", 0, pos)
    if brace < 0 or any(c in code[brace + 1 : pos] for c in ";}"):
        return False
    head_start = max(code.rfind(c, 0, brace) for c in ";{}")
    return re.search(r"\benum\b", code[head_start + 1 : brace]) is not None


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

