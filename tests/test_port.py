"""Porting one file: must-not-change inputs, byte fidelity, provenance, idempotency."""

from __future__ import annotations

import pytest

from musaport.port.file import PROVENANCE, port_bytes
from musaport.resources import default_packs, parse_vocabulary, vocabulary_file
from musaport.rewrite.packs import load_packs

RULES = load_packs(default_packs())
VOCAB = parse_vocabulary(vocabulary_file().read_bytes())
PATH = "aten/src/ATen/native/cuda/X.cu"


def port(data: bytes, path: str = PATH):
    return port_bytes(data, path, path.replace("cuda/", "musa/"), RULES, VOCAB)


def body(result) -> bytes:
    """The output without its provenance line."""
    assert result.data is not None
    return result.data.split(b"\n", 1)[1] if result.status == "ported" else result.data


@pytest.mark.parametrize(
    "source",
    [
        'TORCH_CHECK(ok, "cudaMalloc failed");\n',
        "// cudaMalloc is called by the allocator\n",
        "/* cudaStream_t */ int Cutoff = 3;\n",
        "int cuttlefish_logging = 0; float cudaMallocCount;\n",
        "#include <cub/cub.cuh>\n#include <thrust/sort.h>\n",
        "cuda::atomic<int, cuda::thread_scope_device> a; cuda::barrier<cuda::thread_scope_block> b;\n",
        "case DeviceType::CUDA: return 1;\n",
        "AT_DISPATCH_ALL_TYPES(t, \"abs_cuda\", [&] {});\n",
        "__global__ void k(float* x) { __syncthreads(); x[threadIdx.x] = __shfl_down_sync(0xffffffff, 1.f, 1); }\n",
    ],
)
def test_must_not_change(source: str) -> None:
    result = port(source.encode())
    assert result.status == "unchanged"
    assert result.data == source.encode()


def test_rewrites_code_and_keeps_strings() -> None:
    source = b'cudaStream_t s; cudaMalloc(&p, n); TORCH_CHECK(x.is_cuda(), "cudaMalloc: is_cuda()");\n'
    assert body(port(source)) == b'musaStream_t s; musaMalloc(&p, n); TORCH_CHECK(x.is_privateuseone(), "cudaMalloc: is_cuda()");\n'


def test_libcuxx_standard_library_becomes_musa_std() -> None:
    """libcu++'s standard half has MUSA headers and a namespace of its own; the rest of libcu++ stays."""
    source = (b"#include <cuda/std/type_traits>\n#include <cuda/barrier>\n"
              b"typename ::cuda::std::enable_if<cuda::std::is_integral<T>::value>::type f(); cuda::barrier<S> b;\n")
    assert body(port(source)) == (b"#include <musa/std/type_traits>\n#include <cuda/barrier>\n"
                                  b"typename ::musa::std::enable_if<musa::std::is_integral<T>::value>::type f(); "
                                  b"cuda::barrier<S> b;\n")


def test_a_dead_include_of_a_library_musa_lacks_goes_and_the_report_says_so() -> None:
    """A translation unit that includes libcu++'s barrier or CUTLASS and names nothing of them: the include can
    only stop a MUSA compiler, so it becomes a comment on its line (later lines keep their numbers), each a
    finding; a header keeps its includes."""
    source = b"#include <cuda/barrier>\n#include <cutlass/gemm/device/gemm_grouped.h>\n__global__ void k() {}\n"
    result = port(source)
    assert body(result) == (b"// musaport, dead include: #include <cuda/barrier>\n"
                            b"// musaport, dead include: #include <cutlass/gemm/device/gemm_grouped.h>\n"
                            b"__global__ void k() {}\n")
    assert [(f.rule, f.line) for f in result.findings] == [("unused-libcuxx-include", 1),
                                                           ("unused-cutlass-include", 2)]
    header = port(source, "aten/src/ATen/native/cuda/X.cuh")
    assert b"#include <cuda/barrier>\n#include <cutlass/gemm/device/gemm_grouped.h>\n" in header.data


def test_crlf_stays_crlf() -> None:
    result = port(b"#include <cuda_runtime.h>\r\ncudaStream_t s;\r\n")
    assert result.data is not None
    assert result.data.count(b"\r\n") == 3 and b"\n" not in result.data.replace(b"\r\n", b"")
    assert body(result) == b"#include <musa_runtime.h>\r\nmusaStream_t s;\r\n"


def test_invalid_utf8_bytes_are_kept() -> None:
    source = b"// caf\xe9 \xff\xfe\ncudaStream_t s; // \x80\n"
    result = port(source)
    assert body(result) == b"// caf\xe9 \xff\xfe\nmusaStream_t s; // \x80\n"
    assert any("not valid UTF-8" in w for w in result.warnings)


def test_provenance_line_names_version_source_and_hash() -> None:
    result = port(b"cudaStream_t s;\n")
    assert result.data is not None
    first = result.data.split(b"\n", 1)[0].decode()
    assert first.startswith(PROVENANCE) and PATH in first and result.src_hash[:16] in first


def test_porting_the_output_again_changes_nothing() -> None:
    once = port(b"#include <ATen/native/cuda/Loops.cuh>\ncudaStream_t s = at::cuda::getCurrentCUDAStream();\n")
    assert once.data is not None
    twice = port(once.data, path="aten/src/ATen/native/musa/X.mu")
    assert twice.data == once.data


def test_unmapped_names_have_lines() -> None:
    result = port(b"int a;\ncudnnHandle_t h;\nncclComm_t c; // cudnnCreate\n")
    assert result.unmapped == (("cudnnHandle_t", 2), ("ncclComm_t", 3))
