"""The libclang-based parser: which span of a file is which context, and structure facts."""

from __future__ import annotations

import pytest

from musaport.cpp.parser import parse
from musaport.cpp.structure import structure

SOURCE = b"""#include <cuda_runtime.h> // runtime
#include "foo.cuh"
#define ON_DEVICE defined(__CUDACC__) /* macro */
#pragma unroll 4
const char* s = "cudaMalloc in a string";
char c = 'c';
auto raw = R"(cudaFree)";
// cudaMemcpy in a comment
int x = cudaMalloc(&p, 4);
  #  if __CUDA_ARCH__ >= 800
#endif
"""


def contexts_of(data: bytes) -> dict[str, str]:
    parsed = parse(data)
    return {parsed.text[s.start : s.end]: s.context for s in parsed.spans}


@pytest.mark.parametrize(
    ("text", "context"),
    [
        ("#include", "directive"),
        ("<cuda_runtime.h>", "include"),
        ("// runtime", "comment"),
        ('"foo.cuh"', "include"),
        ("#define", "directive"),
        ("/* macro */", "comment"),
        ("#pragma unroll 4", "directive"),
        ('"cudaMalloc in a string"', "string"),
        ("'c'", "string"),
        ('R"(cudaFree)"', "string"),
        ("// cudaMemcpy in a comment", "comment"),
        ("#  if", "directive"),
    ],
)
def test_contexts(text: str, context: str) -> None:
    assert contexts_of(SOURCE)[text] == context


def test_code_is_not_a_span() -> None:
    found = contexts_of(SOURCE)
    assert "cudaMalloc(&p, 4)" not in found
    assert not any("ON_DEVICE" in t for t in found)


def test_crlf_and_multibyte_offsets() -> None:
    data = "// héllo wörld\r\nconst char* s = \"ü\";\r\n".encode()
    parsed = parse(data)
    found = {parsed.text[s.start : s.end]: s.context for s in parsed.spans}
    assert found == {"// héllo wörld": "comment", '"ü"': "string"}


def test_invalid_utf8_offsets_stay_aligned() -> None:
    data = b'// caf\xe9\nconst char* s = "x";\n'
    parsed = parse(data)
    assert [parsed.text[s.start : s.end] for s in parsed.spans][1] == '"x"'


def test_continued_line_hash_is_not_a_directive() -> None:
    data = b"#define STR(x) \\\n  #x\nint y;\n"
    assert contexts_of(data) == {"#define": "directive"}


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_directive_after_a_blank_line_ending_a_macro(newline: str) -> None:
    # The blank line ends the continued #define, so the next # starts a directive
    # (PyTorch 2.6.0's DistributionTemplates.h and Exceptions.h are written so).
    data = f"#define A(x) x \\{newline}{newline}#include <cuda.h>{newline}".encode()
    assert contexts_of(data) == {"#define": "directive", "#include": "directive", "<cuda.h>": "include"}


def test_structure_facts() -> None:
    data = b"""
#include <ATen/native/cuda/Loops.cuh>
template <typename T>
__global__ void __launch_bounds__(128) scale_kernel(T* x) { x[threadIdx.x] *= 2; }
void run(float* x, cudaStream_t s) {
  scale_kernel<float><<<1, 128, 0, s>>>(x);
}
// REGISTER_DISPATCH(fake_stub, &nothing);
REGISTER_DISPATCH(abs_stub, &abs_kernel_cuda);
TORCH_IMPL_FUNC(tril_cuda)(const Tensor& self, int64_t k, const Tensor& result) {}
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {}
"""
    facts = structure(parse(data))
    assert [(k.name, k.line) for k in facts.kernels] == [("scale_kernel", 4)]
    assert [(k.name, k.line) for k in facts.launches] == [("scale_kernel<float>", 6)]
    assert [(r.name, r.args) for r in facts.registrations] == [("abs_stub", ("REGISTER_DISPATCH", "&abs_kernel_cuda"))]
    assert [i.name for i in facts.impl_funcs] == ["tril_cuda"]
    assert [(i.name, i.args) for i in facts.library_impls] == [("aten", ("PrivateUse1", "m"))]
    assert [i.name for i in facts.includes] == ["<ATen/native/cuda/Loops.cuh>"]


@pytest.mark.parametrize(
    ("code", "start", "expected"),
    [
        ("f(a, g(b), (c)) + 1", 1, 14),
        ("{ if (x) { y(); } else { { } } }", 0, 31),
        ("{ [a[1]] { }", 0, -1),  # unbalanced
        ("a[b[c](d)]e", 1, 9),  # only brackets of its own kind count
        ("()", 0, 1),
        ("(((", 1, -1),
    ],
)
def test_matching_bracket(code: str, start: int, expected: int) -> None:
    from musaport.cpp.text import matching

    assert matching(code, start) == expected


TYPES = """enum class E { A }; struct S { int x; }; struct Fwd;
class C final : public B<int> { struct In { void f() { g_stub(); } }; };
DECLARE_DISPATCH(void (*)(int), a_stub); XDEFINE_DISPATCH(no); DEFINE_DISPATCH(b_stub); subclass K {};
classy; class{}; struct Q : ::x {};"""


def test_type_and_dispatch_heads_match_as_finditer_does() -> None:
    """The scan finds type heads and dispatch declarations by their literal first: the same matches as the
    whole patterns' finditer, which their leading assertions make slow."""
    from musaport.cpp.text import from_heads
    from musaport.ops import scan

    for head, pattern in ((scan._TYPE_WORD, scan._TYPE_HEAD), (scan._DISPATCH_WORD, scan._DISPATCH_DECL)):
        assert [m.span() for m in from_heads(head, pattern, TYPES)] == [m.span() for m in pattern.finditer(TYPES)]
        assert [m.span() for m in from_heads(head, pattern, TYPES, 40, 200)] == [
            m.span() for m in pattern.finditer(TYPES, 40, 200)]  # within bounds, as a rule's window is searched
    assert [d.name for d in scan.type_bodies(TYPES)] == ["S", "C", "In", "Q"]
    assert scan.dispatch_declarations(TYPES) == ("a_stub", "b_stub")


STRINGS = b"""auto a = u8"x"; auto b = LR"(y)"; char c = 'q'; auto d = u8R"(z)"; int e = 3'000;
// don't count 'this' or "that"
auto f = U"w" "v"; /* it's */ int g = x"y";
"""


@pytest.mark.parametrize("numbers", [0, 400])  # few literals (each looked at) or mostly numbers (found by quote)
def test_string_literals_are_found_either_way(numbers: int) -> None:
    data = STRINGS + b"int t[] = {" + b", ".join(b"%d" % n for n in range(numbers)) + b"};\n"
    parsed = parse(data)
    strings = [parsed.text[s.start : s.end] for s in parsed.spans if s.context == "string"]
    assert strings == ['u8"x"', 'LR"(y)"', "'q'", 'u8R"(z)"', 'U"w"', '"v"', '"y"']
