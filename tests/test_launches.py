"""Launch rewriting for the CPU run mode: <<<...>>> becomes a runtime call."""

from __future__ import annotations

import pytest

from musaport.cpp.launches import LaunchError, rewrite_launches
from musaport.cpp.parser import parse


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("k<<<1, 32>>>(x);", "musaport_launch(1, 32, 0, 0, [&]() { k(x); });"),
        ("k<float><<<g, b, s, st>>>(x, n);", "musaport_launch(g, b, s, st, [&]() { k<float>(x, n); });"),
        ("ns::k<T, 4>\n  <<<dim3(n, 1), b, smem>>>(\n x);", "musaport_launch(dim3(n, 1), b, smem, 0, [&]() { ns::k<T, 4>(\n x); });"),
        ("k<<<g, b>>>(f(a, b), c[1]);", "musaport_launch(g, b, 0, 0, [&]() { k(f(a, b), c[1]); });"),
        # inside a multi-line macro: the lines go on with '\\' around the chevrons
        ("#define L(N) k<T, N> \\\n    <<<g, b>>>  \\\n    (x);",
         "#define L(N) musaport_launch(g, b, 0, 0, [&]() { k<T, N>  \\\n    (x); });"),
        ("#define H \\\n  k<A,  \\\n    B>  \\\n  <<<g, b, 0, s>>>(  \\\n   x, y);",
         "#define H \\\n  musaport_launch(g, b, 0, s, [&]() { k<A,  \\\n    B>(  \\\n   x, y); });"),
        # the kernel's name on a line of its own, its template arguments on the next (DepthwiseConv3d.cu)
        ("#define D \\\n    kern                \\\n    <T, A, (k)>         \\\n      <<<g, b, (m), s>>>(  \\\n  x);",
         "#define D \\\n    musaport_launch(g, b, (m), s, [&]() { kern                \\\n    <T, A, (k)>(  \\\n  x); });"),
    ],
)
def test_launch_becomes_a_call(before: str, after: str) -> None:
    assert rewrite_launches(parse(before.encode())) == after


@pytest.mark.parametrize("text", ['const char* s = "k<<<1, 2>>>(x)";', "// k<<<1, 2>>>(x);", "int a = b << c;"])
def test_not_a_launch(text: str) -> None:
    assert rewrite_launches(parse(text.encode())) == text


def test_malformed_launch_names_its_line() -> None:
    with pytest.raises(LaunchError, match="line 2"):
        rewrite_launches(parse(b"int x;\nk<<<1>>>(x);\n"))
