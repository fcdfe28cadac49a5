"""Which part of a source file is code, string, comment, include or directive.

The lexing is libclang's (``tokens.py``); this module turns tokens into
*context spans* over the decoded text.  Everything not covered by a span is
code.  Spans are what rules consult before touching a match, so a rename
never reaches into a string, a comment or an unrelated include.
"""

from __future__ import annotations

from dataclasses import dataclass
import re
from bisect import bisect_left, bisect_right
from typing import NamedTuple

from musaport.cpp.tokens import COMMENT, IDENTIFIER, KEYWORD, LITERAL, PUNCTUATION, Tokens, lex

CODE, STRING, COMMENT_CTX, INCLUDE, DIRECTIVE = "code", "string", "comment", "include", "directive"
CONTEXTS = (CODE, STRING, COMMENT_CTX, INCLUDE, DIRECTIVE)
MASK = "\x01"
_WHOLE_LINE_DIRECTIVES = {b"pragma", b"error", b"warning", b"line", b"ident"}
_INCLUDE_DIRECTIVES = {b"include", b"include_next", b"import"}


class Span(NamedTuple):
    """A half-open character range ``[start, end)`` with a non-code context.

    A named tuple rather than a frozen dataclass: files have thousands of
    spans and every rewrite shifts them, and a tuple is several times cheaper
    to create while just as immutable.
    """

    start: int
    end: int
    context: str


@dataclass(frozen=True)
class Parsed:
    """A decoded file with its context spans (sorted, non-overlapping)."""

    text: str
    spans: tuple[Span, ...]


def decode(data: bytes) -> str:
    """Decode as UTF-8, keeping undecodable bytes so that encoding restores them."""
    return data.decode("utf-8", "surrogateescape")


def encode(text: str) -> bytes:
    """Inverse of :func:`decode`, byte for byte."""
    return text.encode("utf-8", "surrogateescape")


def parse(data: bytes, tokens: Tokens | None = None) -> Parsed:
    """Lex ``data`` with libclang (unless its tokens are given) and find its contexts."""
    text = decode(data)
    spans = byte_spans(data, tokens if tokens is not None else lex(data))
    if len(text) != len(data):
        spans = _to_char_offsets(data, spans)
    return Parsed(text, tuple(spans))


def byte_spans(data: bytes, toks: Tokens) -> list[Span]:
    """Context spans in byte offsets, from libclang's token stream.

    Only comments, literals and directive ``#`` tokens matter, so they are
    located with C-speed searches (over the kinds array and the raw text)
    instead of a Python loop over every token.
    """
    spans: list[Span] = []
    kinds, offs, base = toks.kinds, toks.offsets, toks.base
    kind_bytes = kinds.tobytes()[:: kinds.itemsize]
    interesting = [m.start() for m in _COMMENT_KIND.finditer(kind_bytes)]
    interesting += _string_tokens(data, toks, kind_bytes)
    interesting += _directive_tokens(data, toks)
    interesting.sort()
    directive_end = -1
    for i in interesting:
        off = offs[i] - base
        if off < directive_end:
            continue
        kind = kinds[i]
        if kind == COMMENT:
            spans.append(Span(off, off + toks.lengths[i], COMMENT_CTX))
        elif kind == LITERAL:
            if _is_string(data, off):
                spans.append(Span(off, off + toks.lengths[i], STRING))
        else:
            directive_end = _directive(data, toks, i, spans)
    return spans


_COMMENT_KIND = re.compile(re.escape(bytes([COMMENT])))
_LITERAL_KIND = re.compile(re.escape(bytes([LITERAL])))
_QUOTE = re.compile(rb"[\"']")
# How far before its quote a string literal can start: the longest prefix, u8R.
_PREFIX_REACH = 3


def _string_tokens(data: bytes, toks: Tokens, kinds: bytes) -> list[int]:
    """Indices of the literal tokens that are string or character literals (``_is_string``).

    ``kinds``: one byte per token, its kind. A file whose literals are
    mostly numbers (a table of constants holds thousands) is not visited
    literal by literal: a string literal starts at a quote or at most three
    bytes before one (``u8R"``), so only the tokens starting there are looked
    up, each checked as the others are. Which way is cheaper is counted at C
    speed; both give the same tokens.
    """
    offs, base = toks.offsets, toks.base
    if kinds.count(LITERAL) <= 4 * (data.count(b'"') + data.count(b"'")):
        return [m.start() for m in _LITERAL_KIND.finditer(kinds) if _is_string(data, offs[m.start()] - base)]
    found = set()
    for m in _QUOTE.finditer(data):
        i = bisect_left(offs, m.start() - _PREFIX_REACH + base)
        while i < len(offs) and offs[i] - base <= m.start():
            if kinds[i] == LITERAL and _is_string(data, offs[i] - base):
                found.add(i)
            i += 1
    return list(found)
_HASH_AT_LINE_START = re.compile(rb"^[ \t]*(#|%:)", re.M)


def _directive_tokens(data: bytes, toks: Tokens) -> list[int]:
    """Indices of ``#`` tokens that begin a preprocessor directive."""
    found = []
    offs, kinds = toks.offsets, toks.kinds
    for m in _HASH_AT_LINE_START.finditer(data):
        raw = m.start(1) + toks.base
        i = bisect_left(offs, raw)
        if i < len(offs) and offs[i] == raw and kinds[i] == PUNCTUATION and not _continues(data, m.start()):
            found.append(i)
    return found


def _continues(data: bytes, line_start: int) -> bool:
    """True when the line before ``line_start`` ends with a backslash."""
    return _backslash_before(data, line_start - 1) if line_start else False


def _backslash_before(data: bytes, nl: int) -> bool:
    """True when the line ending at the newline ``nl`` ends with a backslash (CR allowed).

    Looks at the two bytes before ``nl`` only: slicing the whole prefix made
    every directive cost a copy of the file up to it.
    """
    end = nl - 1 if nl > 0 and data[nl - 1] == 13 else nl
    return end > 0 and data[end - 1] == 92


_STRING_START = re.compile(rb"(?:u8|[LuU])?R?[\"']")


def _is_string(data: bytes, off: int) -> bool:
    """A literal token is a string/char literal when a quote starts it after a prefix."""
    return _STRING_START.match(data, off) is not None


def _line_end(data: bytes, off: int) -> int:
    """End of the logical line at ``off`` (backslash continuations joined)."""
    while True:
        nl = data.find(b"\n", off)
        if nl == -1:
            return len(data)
        if _backslash_before(data, nl):
            off = nl + 1
            continue
        return nl if data[nl - 1 : nl] != b"\r" else nl - 1


_INCLUDE_TARGET = re.compile(rb"[ \t]*(<[^>\n]*>|\"[^\"\n]*\"|[A-Za-z_]\w*)")


def _directive(data: bytes, toks: Tokens, i: int, spans: list[Span]) -> int:
    """Record the spans of the directive whose ``#`` is token ``i``.

    Returns where the directive's own spans end: tokens before that offset are
    not looked at again (the rest of an ``#if`` line is code; a comment after
    an include target is still a comment).
    """
    kinds, lens, base = toks.kinds, toks.lengths, toks.base
    hash_off = toks.offsets[i] - base
    end = _line_end(data, hash_off)
    j = i + 1
    name_off = toks.offsets[j] - base if j < len(kinds) else end
    if name_off >= end or kinds[j] not in (IDENTIFIER, KEYWORD):
        spans.append(Span(hash_off, hash_off + lens[i], DIRECTIVE))
        return hash_off + lens[i]
    name_end = name_off + lens[j]
    name = data[name_off:name_end]
    if name in _WHOLE_LINE_DIRECTIVES:
        spans.append(Span(hash_off, end, DIRECTIVE))
        return end
    spans.append(Span(hash_off, name_end, DIRECTIVE))
    if name in _INCLUDE_DIRECTIVES:
        target = _INCLUDE_TARGET.match(data, name_end, end)
        if target:
            spans.append(Span(target.start(1), target.end(1), INCLUDE))
            return target.end(1)
    return name_end


def _to_char_offsets(data: bytes, spans: list[Span]) -> list[Span]:
    """Map byte offsets to character offsets for files with multi-byte text.

    Only non-ASCII characters shift offsets, so the map is built from them
    alone: a byte offset minus the extra bytes of the characters before it.
    """
    text = decode(data)
    byte_pos: list[int] = []
    extra: list[int] = []
    delta = 0
    for m in re.finditer(r"[^\x00-\x7f]", text):
        width = len(encode(m.group(0)))
        byte_pos.append(m.start() + delta)
        delta += width - 1
        extra.append(delta)

    def char_at(byte_off: int) -> int:
        k = bisect_right(byte_pos, byte_off - 1)
        return byte_off - (extra[k - 1] if k else 0)

    return [Span(char_at(s.start), char_at(s.end), s.context) for s in spans]


def masked(text: str, spans: tuple[Span, ...] | list[Span], allowed: frozenset[str]) -> str:
    """``text`` with every character outside ``allowed`` contexts replaced by MASK.

    Offsets are unchanged, so a regex match found in the masked view that
    contains no MASK character lies wholly in allowed contexts.
    """
    pieces: list[str] = []
    pos = 0
    code = CODE in allowed
    for span in spans:
        gap = text[pos : span.start]
        pieces.append(gap if code else MASK * len(gap))
        body = text[span.start : span.end]
        pieces.append(body if span.context in allowed else MASK * len(body))
        pos = span.end
    tail = text[pos:]
    pieces.append(tail if code else MASK * len(tail))
    return "".join(pieces)


def context_at(spans: tuple[Span, ...] | list[Span], pos: int) -> str:
    """Context of the character at ``pos``."""
    k = bisect_right(spans, pos, key=lambda s: s.start) - 1
    if k >= 0 and spans[k].start <= pos < spans[k].end:
        return spans[k].context
    return CODE
