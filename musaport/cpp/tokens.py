"""Lexing C++/CUDA source with libclang, in bulk.

Why this module is shaped the way it is: the Python ``Token`` wrappers cost
several seconds over PyTorch's CUDA folders, while one ``clang_tokenize`` call
per file and reading the ``CXToken`` array as raw memory costs a fraction of
that.  Each file is handed to libclang wrapped in ``#if 0`` so the front end skips
it instead of analysing code whose includes are missing, and one translation
unit, whose main file includes a whole batch of such files, is reparsed per
batch instead of being created anew per file.
"""

from __future__ import annotations

import ctypes
from array import array
from dataclasses import dataclass
from typing import Any

# CXTokenKind values from clang-c/Index.h.
PUNCTUATION, KEYWORD, IDENTIFIER, LITERAL, COMMENT = range(5)

_PREFIX = b"#if 0\n"
_SUFFIX = b"\n#endif\n"
_MAIN = "musaport_input.cu"
_ARGS = ["-x", "c++", "-std=c++17", "-nostdinc", "-nostdinc++"]




@dataclass(frozen=True)
class Tokens:
    """Parallel arrays: kind, location and byte length of every token.

    ``offsets[i] - base`` is the byte offset of token ``i`` (the subtraction
    is left to the few readers that need it, instead of a pass over all).
    """

    kinds: array
    offsets: array
    lengths: array
    base: int = 0

    def offset(self, i: int) -> int:
        return self.offsets[i] - self.base

    def __len__(self) -> int:
        return len(self.kinds)


class Lexer:
    """One reusable libclang translation unit that lexes file contents."""

    def __init__(self) -> None:
        global cindex, _CXToken
        from clang import cindex  # imported on first use: a warm run never lexes

        # cindex.Token is a ctypes mirror of CXToken {unsigned int_data[4]; void *ptr_data;}:
        # int_data[0] is the kind, [1] the raw location, [2] the length.
        _CXToken = cindex.Token
        self._index = cindex.Index.create()
        self._tu = cindex.TranslationUnit.from_source(_MAIN, args=_ARGS, unsaved_files=[(_MAIN, b"")], index=self._index)
        lib = cindex.conf.lib
        self._tokenize = lib.clang_tokenize
        self._tokenize.argtypes = [
            cindex.TranslationUnit,
            cindex.SourceRange,
            ctypes.POINTER(ctypes.POINTER(_CXToken)),
            ctypes.POINTER(ctypes.c_uint),
        ]
        self._dispose = lib.clang_disposeTokens
        self._dispose.argtypes = [cindex.TranslationUnit, ctypes.c_void_p, ctypes.c_uint]

    def lex(self, data: bytes) -> Tokens:
        """Return the tokens of ``data`` with offsets relative to its first byte."""
        return self.lex_many([data])[0]

    def lex_many(self, datas: list[bytes]) -> list[Tokens]:
        """Lex several files with one reparse: the fixed cost of a reparse
        (about 0.6 ms) is most of the cost of lexing a typical file."""
        names = [f"/musaport/input{i}.cu" for i in range(len(datas))]
        main = "".join(f'#include "{n}"\n' for n in names).encode()
        unsaved = [(_MAIN, main)] + [(n, _PREFIX + d + _SUFFIX) for n, d in zip(names, datas)]
        self._tu.reparse(unsaved_files=unsaved)
        return [self._tokens_of(n, d) for n, d in zip(names, datas)]

    def _tokens_of(self, name: str, data: bytes) -> Tokens:
        main = cindex.File.from_name(self._tu, name)
        start = len(_PREFIX)
        rng = cindex.SourceRange.from_locations(
            cindex.SourceLocation.from_offset(self._tu, main, start),
            cindex.SourceLocation.from_offset(self._tu, main, start + len(data)),
        )
        toks = ctypes.POINTER(_CXToken)()
        count = ctypes.c_uint()
        self._tokenize(self._tu, rng, ctypes.byref(toks), ctypes.byref(count))
        try:
            return _clip(self._unpack(toks, count.value, start), len(data))
        finally:
            self._dispose(self._tu, toks, count)

    def _unpack(self, toks, n: int, start: int) -> Tokens:
        """Read kind/location/length straight out of the CXToken array."""
        if n == 0:
            return Tokens(array("I"), array("I"), array("I"))
        words = array("I")
        words.frombytes(ctypes.string_at(toks, n * ctypes.sizeof(_CXToken)))
        stride = ctypes.sizeof(_CXToken) // 4
        kinds, raw, lengths = words[0::stride], words[1::stride], words[2::stride]
        base = raw[0] - (self._offset_of(toks[0]) - start)
        if raw[-1] - base != self._offset_of(toks[n - 1]) - start:  # encoding differs: ask the API
            raw, base = array("I", (self._offset_of(toks[i]) - start for i in range(n))), 0
        return Tokens(kinds, raw, lengths, base)

    def _offset_of(self, token: _CXToken) -> int:
        """Byte offset of one token, asked of libclang (slow path, used twice)."""
        return cindex.conf.lib.clang_getTokenLocation(self._tu, token).offset


def _clip(tokens: Tokens, size: int) -> Tokens:
    """Drop the tokens of the ``#endif`` wrapper that the range end touches."""
    n = len(tokens)
    while n and tokens.offset(n - 1) + tokens.lengths[n - 1] > size:
        n -= 1
    if n == len(tokens):
        return tokens
    return Tokens(tokens.kinds[:n], tokens.offsets[:n], tokens.lengths[:n], tokens.base)


cindex: Any = None
_CXToken: Any = None
_LEXER: Lexer | None = None


def lexer() -> Lexer:
    """The process-wide lexer (created on first use, after any fork)."""
    global _LEXER
    if _LEXER is None:
        _LEXER = Lexer()
    return _LEXER


def lex(data: bytes) -> Tokens:
    """Lex one file's bytes."""
    return lexer().lex(data)


def lex_many(datas: list[bytes]) -> list[Tokens]:
    """Lex a batch of files' bytes in one libclang reparse."""
    return lexer().lex_many(datas) if datas else []
