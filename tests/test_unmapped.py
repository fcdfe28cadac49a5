"""The unmapped report: toolkit names only (not the project's own), by family."""

from __future__ import annotations

import pytest

from musaport.cpp.parser import CODE, masked, parse
from musaport.cpp.declarations import declared_names
from musaport.port.file import FileResult, family, find_unmapped, scan_cuda_names
from musaport.port.report import Report
from musaport.resources import parse_vocabulary, vocabulary_file

VOCAB = parse_vocabulary(vocabulary_file().read_bytes())


def unmapped(source: str) -> tuple[tuple[str, int], ...]:
    return find_unmapped(parse(source.encode()), VOCAB)


@pytest.mark.parametrize(
    ("source", "declared"),
    [
        ("cudaError_t cudaStatus = cudaMalloc(&p, n);", "cudaStatus"),
        ("auto cudaStatus = f();", "cudaStatus"),
        ("#define NCCL_CHECK(cmd) cmd\n", "NCCL_CHECK"),
        ("static cudaError_t cudaMallocMaybeCapturing(void** p, size_t size) {}", "cudaMallocMaybeCapturing"),
        ("bool Alloc::cudaHelper(int x) const;", "cudaHelper"),
        ("struct TORCH_API cudaKeyValuePair {};", "cudaKeyValuePair"),
        ("enum class R { ncclSuccessLocal = 0, ncclOther };", "ncclOther"),
        ("DECLARE_DISPATCH(fn_t, cudnn_stub);", "cudnn_stub"),
        ("for (auto& cudaStream : streams) {}", "cudaStream"),
        ("void f(const Foo& cudaRef, int* cudaPtr);", "cudaPtr"),
        ("static void (*cudaFp)(int);", "cudaFp"),
        ("at::DynamicLibrary& getCUDALibrary() {", "getCUDALibrary"),
        ("#ifdef X\n#else\nat::Tensor& cuda_out(const Tensor& t);\n#endif\n", "cuda_out"),
        ("#define BLOCKS(Q, CUDA_N_THREADS) ((Q - 1) / CUDA_N_THREADS + 1)\n", "CUDA_N_THREADS"),
    ],
)
def test_declarations_are_found(source: str, declared: str) -> None:
    parsed = parse(source.encode())
    code = masked(parsed.text, parsed.spans, frozenset({CODE}))
    assert declared in declared_names(parsed.text, code, {declared})


@pytest.mark.parametrize(
    "source",
    [
        "x = cudaMalloc(&p, n);",
        "return cudaGetLastError();",
        "f(a, cudaMemcpyHostToDevice);",
        "x = a * cudaMul;",
        "using namespace cudaNS;",
        "if (cudaSuccess != err) {}",
        "#define CHECK(x) cudaCheck(x)\n",
        "#ifdef NO_DESTROY\n#else\n  cudaCheck(handle);\n#endif\n",
    ],
)
def test_uses_are_not_declarations(source: str) -> None:
    parsed = parse(source.encode())
    code = masked(parsed.text, parsed.spans, frozenset({CODE}))
    names = {"cudaMalloc", "cudaGetLastError", "cudaMemcpyHostToDevice", "cudaMul", "cudaNS", "cudaSuccess",
             "cudaCheck"}
    assert not declared_names(parsed.text, code, names)


def test_a_local_variable_is_not_a_cuda_api() -> None:
    found = unmapped("void f() {\n  cudaError_t cudaStatus = cudaSetDevice(0);\n  if (cudaStatus) ncclFoo();\n}\n")
    assert [n for n, _ in found] == ["cudaError_t", "cudaSetDevice", "ncclFoo"]


def test_a_toolkit_name_counts_even_when_the_file_wraps_it() -> None:
    """A vocabulary name the file redeclares (a lazy-loading stub) is still the toolkit's."""
    assert ("cuCtxGetCurrent", 1) in unmapped("CUresult cuCtxGetCurrent(CUcontext* ctx) { return f(ctx); }\n")


def test_lines_count_the_newlines_of_comments() -> None:
    assert unmapped("/* a\nb\nc */\nint x = ncclFoo();\n") == (("ncclFoo", 4),)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("ncclComm_t", "NCCL"),
        ("NCCL_MAJOR", "NCCL"),
        ("cudnnHandle_t", "cuDNN"),
        ("CUDNN_VERSION", "cuDNN"),
        ("nvrtcProgram", "NVRTC"),
        ("nvtxRangePushA", "NVTX"),
        ("nvjpegDecode", "nvJPEG"),
        ("cuvidCreateDecoder", "NVDEC/NVCUVID"),
        ("CUVIDPICPARAMS", "NVDEC/NVCUVID"),
        ("nppiResize_8u_C3R", "NPP"),
        ("cusparseLtInit", "cuSPARSELt"),
        ("CUSPARSELT_VERSION", "cuSPARSELt"),
        ("cutlass::gemm", "CUTLASS/CuTe"),
        ("cute::Tensor", "CUTLASS/CuTe"),
        ("CUTLASS_DEVICE", "CUTLASS/CuTe"),
        ("cudaProfilerInitialize", "CUDA toolkit"),
        ("THCudaMalloc", "THC (PyTorch before 1.11)"),
        ("THCState_getCurrentStream", "THC (PyTorch before 1.11)"),
        ("<THC/THC.h>", "THC (PyTorch before 1.11)"),
        ('"THC/THCGeneral.h"', "THC (PyTorch before 1.11)"),
        ("THCPStream", "CUDA toolkit"),
        ("cudaVideoCodec_H264", "NVDEC/NVCUVID"),
        ("cudaVideoSurfaceFormat_NV12", "NVDEC/NVCUVID"),
    ],
)
def test_family(name: str, expected: str) -> None:
    assert family(name) == expected


@pytest.mark.parametrize(
    "source",
    [
        "nvjpegHandle_t h; nvjpegCreateSimple(&h);",
        "CUvideodecoder d; cuvidCreateDecoder(&d, &info);",
        "NppiSize s; nppiResize_8u_C3R(a, b);",
        "nvrtcProgram p;",
        "cusparseLtHandle_t h; cusparseLtInit(&h);",
        "int v = CUSPARSELT_VERSION;",
        "cutlass::gemm::GemmCoord c; cute::Tensor t;",
    ],
)
def test_whole_families_are_found(source: str) -> None:
    names = [n for n, _ in unmapped(source)]
    assert names and all(family(n) != "CUDA toolkit" for n in names), names


def test_report_groups_unmapped_names_by_family() -> None:
    report = Report("src")
    for src, unmapped_names in (
        ("b.cu", (("ncclSend", 3), ("cudnnCreate", 4), ("ncclSend", 9))),
        ("a.cu", (("ncclRecv", 1), ("cutlass::gemm", 2))),
    ):
        report.add(FileResult(src, src, "ported", "h", unmapped=unmapped_names))
    data = report.to_json()
    assert [(u["name"], u["family"], u["count"]) for u in data["unmapped"]] == [
        ("ncclSend", "NCCL", 2), ("cudnnCreate", "cuDNN", 1), ("cutlass::gemm", "CUTLASS/CuTe", 1), ("ncclRecv", "NCCL", 1),
    ]
    assert data["unmapped_families"] == [
        {"family": "NCCL", "names": 2, "uses": 3, "files": 2},
        {"family": "CUTLASS/CuTe", "names": 1, "uses": 1, "files": 1},
        {"family": "cuDNN", "names": 1, "uses": 1, "files": 1},
    ]
    md = report.render_markdown()
    assert "| NCCL | 2 | 3 | 2 |" in md and "| `ncclSend` | NCCL | 2 |" in md


def test_a_name_the_project_declares_in_another_file_is_its_own() -> None:
    """A struct member declared in a header (``nv_state``) and used in a ``.cpp``: the project's, in both;
    a toolkit name stays reported wherever it is."""
    header = parse(b"struct Codec {\n  int nv_state;\n  int nv_params;\n};\n")
    source = parse(b"#include \"codec.h\"\nvoid f(Codec& c) {\n  g(c.nv_state, nv_params_of(c));\n"
                   b"  cudaDeviceSynchronize();\n}\n")
    report = Report("src")
    for src, parsed in (("codec.h", header), ("codec.cpp", source)):
        unmapped, kept, declared = scan_cuda_names(parsed, VOCAB)
        report.add(FileResult(src, src, "ported", "h", unmapped=unmapped, kept=kept, declared=declared))
    assert report.results[0].declared == ("nv_params", "nv_state") and not report.results[0].unmapped
    assert {n for n, _ in report.results[1].unmapped} == {"nv_state", "nv_params_of", "cudaDeviceSynchronize"}
    assert [u["name"] for u in report.unmapped()] == ["cudaDeviceSynchronize", "nv_params_of"]
    assert report.to_json()["files"]["codec.cpp"]["unmapped"] == 2


@pytest.mark.parametrize(
    ("source", "declared"),
    [
        ("int xcudaFoo = 1; int cudaFooBar; void cudaFoo();", {"cudaFoo"}),  # the whole word, after parts of others
        ("int xcudaFoo = cudaFoo; int cudaFooBar;", set()),  # only inside other words, or used
        ("f(cudaA); int cudaAB; void cudaA_(); struct cudaB {};", {"cudaB"}),
    ],
)
def test_a_name_counts_only_as_a_whole_word(source: str, declared: set[str]) -> None:
    parsed = parse(source.encode())
    code = masked(parsed.text, parsed.spans, frozenset({CODE}))
    assert declared_names(parsed.text, code, {"cudaFoo", "cudaA", "cudaB"}) == declared


@pytest.mark.parametrize("header", [
    '"device_launch_parameters.h"', "<cooperative_groups.h>", "<cooperative_groups/reduce.h>",
    "<sm_60_atomic_functions.h>", "<device_functions.h>", "<vector_types.h>", "<math_constants.h>",
    "<crt/host_defines.h>", "<nvfunctional>",
])
def test_toolkit_headers_without_a_cuda_word_are_reported(header: str) -> None:
    """Headers of nvcc's include folder whose names hold no CUDA word (a point-cloud kernel includes
    "device_launch_parameters.h" and <cooperative_groups/reduce.h>) have no MUSA name in the naming facts: the
    port that keeps them does not build, so they are unmapped, never a silent "none"."""
    assert unmapped(f"#include {header}\nint x;\n") == ((header, 1),)


@pytest.mark.parametrize("header", [
    '"my/vector_types.h"', "<cub/cub.cuh>", "<thrust/device_vector.h>", '"spatial.h"', "<mma.h>",
    '"cooperative_groups_helpers.h"', "<ATen/ops/sm_scale.h>",
])
def test_headers_of_the_tree_or_kept_names_are_not(header: str) -> None:
    assert unmapped(f"#include {header}\nint x;\n") == ()


def test_the_deprecated_cuda_type_is_reported() -> None:
    """at::CUDA(kFloat) / torch::CUDA(t) make CUDA tensors; their word is CUDA alone, which no toolkit
    spelling matches, so the scan names them itself (rule deprecated-cuda-tensor-type maps them).
    A CUDA that is no such call (a DeviceType member, a project's own ns::CUDA) is not this name."""
    found = unmapped("auto a = torch::zeros({n}, torch::CUDA(x.scalar_type()));\n"
                     "auto b = at::CUDA (at::kFloat).options();\nauto c = at::CPU(at::kFloat);\n"
                     "auto d = c10::DeviceType::CUDA; auto e = my::at::CUDA(1);\n")
    assert found == (("torch::CUDA", 1), ("at::CUDA", 2))
