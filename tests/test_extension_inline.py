"""load_inline's source strings are C++: the literals a call compiles, and each one ported inside its quotes."""

from __future__ import annotations

import ast

from musaport.extension import inline
from musaport.extension.inline import port_literal, source_literals
from musaport.port.file import FileResult, FileStatus


def _call(module: str) -> tuple[ast.Call, ast.Module]:
    tree = ast.parse(module)
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "load_inline")
    return call, tree


def _texts(module: str) -> list[tuple[str, str]] | None:
    call, tree = _call(module)
    found = source_literals(call, tree)
    return None if found is None else [(c.value, name) for c, name in found]


def test_keyword_positional_and_listed_sources_are_read_with_the_file_they_compile_as() -> None:
    assert _texts('load_inline("m", "int f();", cuda_sources=["__global__ void k();", "int g;"])') == [
        ("int f();", "main.cpp"), ("__global__ void k();", "cuda.cu"), ("int g;", "cuda.cu")]
    assert _texts('load_inline("m", cpp_sources=None, cuda_sources="x")') == [("x", "cuda.cu")]


def test_a_name_bound_once_is_followed_and_one_bound_twice_or_built_is_not() -> None:
    assert _texts('SRC = "int a;"\nload_inline("m", "", cuda_sources=SRC)') == [("", "main.cpp"), ("int a;", "cuda.cu")]
    assert _texts('SRC = "a"\nSRC = "b"\nload_inline("m", "", cuda_sources=SRC)') is None
    assert _texts('load_inline("m", "", cuda_sources="a" + b)') is None
    assert _texts('load_inline("m", "", cuda_sources=f"{b}")') is None


def _porter(new: str | None) -> object:
    def port(data: bytes, name: str) -> FileResult:
        if new is None:
            return FileResult(name, name, FileStatus.UNCHANGED, "", "", data=data)
        return FileResult(name, name, FileStatus.PORTED, "", "", data=("// provenance\n" + new).encode())
    return port


def test_a_literal_is_ported_inside_its_own_quotes() -> None:
    assert port_literal('"cudaStream_t s;"', "cuda.cu", _porter("musaStream_t s;")) == ('"musaStream_t s;"', ())
    assert port_literal("r'''a\nb'''", "cuda.cu", _porter("c\nd")) == ("r'''c\nd'''", ())
    assert port_literal('"int a;"', "main.cpp", _porter(None)) == ('"int a;"', ())


def test_a_rewrite_that_would_change_the_string_s_lines_or_end_it_early_is_refused() -> None:
    assert port_literal('"a"', "cuda.cu", _porter("b\nc")) is None  # a new line
    assert port_literal('"a"', "cuda.cu", _porter('#include "b.h"')) is None  # its quote would end the string


def test_an_f_strings_pieces_are_placed_by_its_source() -> None:
    """Each literal piece's first line, after fields with format specs, doubled braces and quoted keys; a
    concatenation of f-strings is not one literal, so it is not guessed at."""
    text = 'f"""\nab\n{y["k"]}\ncuda {{x}}\n{z!r:>{w}}tail\n"""'
    assert inline.fstring_literal_lines(text) == [0, 2, 4]
    assert inline.fstring_literal_lines('f"{a}{b}"') == []
    assert inline.fstring_literal_lines('f"a" f"b{x}"') is None
