"""The named transforms rules use: toolkit renames and path renames."""

from __future__ import annotations

import pytest

from musaport.rewrite.transforms import rename_dirs, rename_path, systematic


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("cudaMalloc", "musaMalloc"),
        ("cudaStream_t", "musaStream_t"),
        ("cudaErrorCudartUnloading", "musaErrorMusartUnloading"),
        ("CUDART_VERSION", "MUSART_VERSION"),
        ("cuDeviceGet", "muDeviceGet"),
        ("CUresult", "MUresult"),
        ("CU_JIT_INPUT_CUBIN", "MU_JIT_INPUT_MUBIN"),
        ("cublasHandle_t", "mublasHandle_t"),
        ("CUBLAS_OP_N", "MUBLAS_OP_N"),
        ("cusolverDnCungqr", "musolverDnMungqr"),
        ("__nv_bfloat16", "__mt_bfloat16"),
        ("nppiSet_16u_C4R", "mtppiSet_16u_C4R"),
        ("cudaOccupancyMaxActiveBlocksPerMultiprocessor", "musaOccupancyMaxActiveBlocksPerMultiprocessor"),
        ("cudaMemPoolAttrReservedMemCurrent", "musaMemPoolAttrReservedMemCurrent"),
        ("cuCtxGetCurrent", "muCtxGetCurrent"),
        ("CU_CUBEMAP_FACE_NEGATIVE_X", "MU_CUBEMAP_FACE_NEGATIVE_X"),
        ("CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0", "MUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0"),
        ("CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE", "MUPTI_ACTIVITY_OVERHEAD_MUPTI_RESOURCE"),
        ("cuptiGetCubinCrc", "muptiGetMubinCrc"),
        ("cuuint32_t", "muuint32_t"),
        ("TORCH_CUSOLVER_CHECK", "TORCH_MUSOLVER_CHECK"),
        ("CuFFTConfig", "MuFFTConfig"),
        ("_cublasOpFromChar", "_mublasOpFromChar"),
        ("getCurrentCUDABlasLtHandle", "getCurrentMUSABlasLtHandle"),
        ("CUB_WRAPPER", "CUB_WRAPPER"),
        ("hasCuDNN", "hasCuDNN"),
        ("cusparseLtMatmul", "cusparseLtMatmul"),
        ("MetadataCuSparseLt", "MetadataCuSparseLt"),
        ("CuSparseDescriptor", "MuSparseDescriptor"),
    ],
)
def test_systematic(before: str, after: str) -> None:
    assert systematic(before) == after


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("aten/src/ATen/native/cuda/AbsKernel.cu", "aten/src/ATen/native/musa/AbsKernel.mu"),
        ("aten/src/ATen/native/cuda/CUDALoops.cuh", "aten/src/ATen/native/musa/MUSALoops.muh"),
        ("c10/cuda/CUDAGuard.h", "c10/musa/MUSAGuard.h"),
        ("aten/src/ATen/cuda/PhiloxCudaState.h", "aten/src/ATen/musa/PhiloxMusaState.h"),
        ("aten/src/ATen/cudnn/Handle.h", "aten/src/ATen/cudnn/Handle.h"),
        ("aten/src/ATen/native/DispatchStub.h", "aten/src/ATen/native/DispatchStub.h"),
        ("torch/csrc/cuda/nccl.cpp", "torch/csrc/musa/nccl.cpp"),
    ],
)
def test_rename_path(before: str, after: str) -> None:
    assert rename_path(before) == after


def test_rename_dirs_keeps_the_name() -> None:
    assert rename_dirs("aten/src/ATen/native/cuda/CUDAThing.mu") == "aten/src/ATen/native/musa/CUDAThing.mu"
