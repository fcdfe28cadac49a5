"""Rendering CMake-configured headers as configure_file does."""

from __future__ import annotations

import pytest

from musaport.port.cmake_headers import render


@pytest.mark.parametrize(("before", "values", "after"), [
    ("#define A() @A@\n", {"A": "1"}, "#define A() 1\n"),
    ("#define A() @A@\n", {}, "#define A() 0\n"),
    ('#define F "@F@"\n', {"F": ""}, '#define F ""\n'),
    ("#cmakedefine B\n", {"B": "1"}, "#define B\n"),
    ("#cmakedefine B 7\n", {"B": "ON"}, "#define B 7\n"),
    ("#cmakedefine B\n", {"B": "0"}, "/* #undef B */\n"),
    ("#cmakedefine B\n", {}, "/* #undef B */\n"),
    ("// @ in prose stays\n", {}, "// @ in prose stays\n"),
])
def test_render(before: str, values: dict[str, str], after: str) -> None:
    assert render(before, values) == after
