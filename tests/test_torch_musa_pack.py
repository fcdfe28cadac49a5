"""`--pack torch-musa` follows torch_musa's naming convention on the real PyTorch 2.6.0 tree.

torch_musa keeps PyTorch-level names with their CUDA spelling inside its musa
namespaces and writes __syncthreads() as its __SYNCTHREADS macro; the toolkit's
names, the namespaces and the runtime families its core declares under MUSA
names follow MUSA. The default policy (docs/naming.md) is unchanged.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from conftest import ROOT, musaport
from musaport.cpp.parser import CODE, masked, parse
from musaport.extension.project import code_view
from musaport.resources import default_packs, optional_pack
from musaport.rewrite.apply import rewrite
from musaport.rewrite.packs import load_packs

TREE = "generated_cuda_compatible"


def _script():
    spec = importlib.util.spec_from_file_location("torch_musa_names", ROOT / "scripts" / "torch_musa_names.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_the_name_list_is_what_the_script_makes() -> None:
    data = (ROOT / "rules" / "optional" / "torch-musa-cuda-names.txt").read_text()
    assert data == _script().render()


@pytest.mark.parametrize(("before", "after"), [
    ("c10::cuda::CUDAGuard g(d); auto s = at::cuda::getCurrentCUDAStream(); C10_CUDA_KERNEL_LAUNCH_CHECK();",
     "c10::musa::MUSAGuard g(d); auto s = at::musa::getCurrentMUSAStream(); C10_MUSA_KERNEL_LAUNCH_CHECK();"),
    ("cudaStream_t s; TORCH_CUSOLVER_CHECK(cusolverDnCreate(&h));",
     "musaStream_t s; TORCH_MUSOLVER_CHECK(musolverDnCreate(&h));"),
    ("REGISTER_CUDA_DISPATCH(abs_stub, &abs_kernel_cuda);", "REGISTER_MUSA_DISPATCH(abs_stub, &abs_kernel_cuda);"),
])
def test_runtime_families_and_the_toolkit_keep_musa_names(before: str, after: str) -> None:
    rules = load_packs([*default_packs(), optional_pack("torch-musa")])
    assert rewrite(parse(before.encode()), rules.rules, "aten/src/ATen/native/cuda/X.cpp").text == after


@pytest.fixture(scope="module")
def ported_pack(pytorch_260: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("torch_musa_pack") / "out"
    result = musaport("run", "--pytorch-src", str(pytorch_260), "--out", str(out), "-q", "--pack", "torch-musa",
                      "--no-registration")
    assert result.returncode == 0, result.stderr
    return out / TREE


def _grep(tree: Path, pattern: str, suffixes=(".mu", ".muh", ".h", ".cpp", ".hpp")) -> list[str]:
    """Files whose code (comments and plain string literals masked) matches ``pattern``."""
    rx = re.compile(pattern, re.M)
    return sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*")
                  if p.suffix in suffixes and rx.search(code_view(p.read_text(errors="replace"))))


def _code(path: Path) -> str:
    """The file's code only (comments and string literals, raw JIT templates too, masked)."""
    data = path.read_bytes()
    text = data.decode("utf-8", "surrogateescape")
    return masked(text, parse(data).spans, frozenset({CODE}))


@pytest.mark.shared
def test_pytorch_260_names_in_torch_musa_spelling(ported_pack: Path) -> None:
    assert _grep(ported_pack, r"\bat::musa::getCurrentCUDABlasHandle\(\)")
    assert not _grep(ported_pack, r"\bgetCurrentMUSABlasHandle\b")
    assert _grep(ported_pack, r"#define CUDA_KERNEL_LOOP\b") and _grep(ported_pack, r"^\s*CUDA_KERNEL_LOOP\(", (".mu",))
    assert not _grep(ported_pack, r"\bMUSA_KERNEL_LOOP\b")
    assert _grep(ported_pack, r"namespace torch::musa::CUDAPluggableAllocator\b")
    assert not _grep(ported_pack, r"^(?!#include).*\bMUSAPluggableAllocator\b")  # the redirected header keeps its name
    # torch_musa's barrier macro in kernels; no plain __syncthreads() left in kernel code
    assert len(_grep(ported_pack, r"\b__SYNCTHREADS\b", (".mu", ".muh"))) > 20
    left = [p for p in _grep(ported_pack, r"\b__syncthreads\s*\(", (".mu", ".muh"))
            if re.search(r"\b__syncthreads\s*\(", _code(ported_pack / p))]
    assert not left
    # namespaces, toolkit names and the runtime families follow MUSA
    assert not _grep(ported_pack, r"\b(?:at|c10)::cuda::")
    assert not _grep(ported_pack, r"\bcublasHandle_t\b|\bcudaStream_t\b")
    assert _grep(ported_pack, r"\bgetCurrentMUSAStream\b") and _grep(ported_pack, r"\bOptionalMUSAGuard\b")
    assert not _grep(ported_pack, r"\bgetCurrentCUDAStream\b|\bOptionalCUDAGuard\b")


@pytest.mark.shared
def test_the_default_policy_is_unchanged(ported_260: Path) -> None:
    tree = ported_260 / TREE
    assert _grep(tree, r"\bat::musa::getCurrentMUSABlasHandle\(\)") and _grep(tree, r"#define MUSA_KERNEL_LOOP\b")
    assert not _grep(tree, r"\bgetCurrentCUDABlasHandle\(|\b__SYNCTHREADS\b")
