"""Naming policy: the systematic rename changes only CUDA words, and what the
port leaves CUDA-named in code is libtorch's or listed with a reason."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import naming_tree
from conftest import CACHE
from musaport.cpp.parser import parse
from musaport.resources import data_dir, default_packs, parse_vocabulary, shim_include, vocabulary_file
from musaport.rewrite.apply import rewrite
from musaport.rewrite.packs import load_packs
from musaport.rewrite.transforms import systematic
from musaport.validate.compile.buildenv import aten_ops_headers, config_headers

TOOLKIT = sorted(parse_vocabulary(vocabulary_file().read_bytes()))
PYTORCH = sorted(parse_vocabulary((data_dir("rules") / "data" / "pytorch_cuda_names.txt").read_bytes()))

# Words of an identifier: runs split at underscores and camel-case steps; a
# leading CU or MU before lower case (CUresult, MUresult) is a word of its own.
_WORD = re.compile(r"(?:CU|MU)(?=[a-z])|[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+|[A-Z]+|\d+")
_LIBRARIES = ("cublas", "cusparse", "cusolver", "curand", "cufft", "cupti")
_LIBRARY_WORDS = ("blas", "sparse", "solver", "rand", "fft", "pti")


def words(name: str) -> list[str]:
    return [w for part in name.split("_") for w in _WORD.findall(part)]


def cuda_word_renamed(old: str, new: str, first: bool, following: str = "") -> bool:
    """Whether ``old`` → ``new`` renames a CUDA-ish word and nothing else in it
    (``following`` is the next word: the Cu of CuBLAS or CuSparse is a library prefix)."""
    lower = old.lower()
    if "cuda" in lower:
        return new == re.sub("cuda|Cuda|CUDA", lambda m: {"cuda": "musa", "Cuda": "Musa", "CUDA": "MUSA"}[m.group(0)], old)
    if first and lower in ("nv", "npp", "nppi", "npps"):
        return new.lower() in ("mt", "mtpp", "mtppi", "mtpps")
    library = lower.startswith(_LIBRARIES) or (lower == "cu" and following.lower() in _LIBRARY_WORDS)
    if lower.startswith("cu") and (first or library or lower == "cubin"):
        return new == {"c": "m", "C": "M"}[old[0]] + {"u": "u", "U": "U"}[old[1]] + old[2:]
    return False


@pytest.mark.parametrize("vocabulary", [TOOLKIT, PYTORCH], ids=["toolkit", "pytorch"])
def test_systematic_changes_only_cuda_words(vocabulary: list[str]) -> None:
    """For every name of a vocabulary, each word that changes is a CUDA word
    (cuda/CUDA anywhere, the leading cu/CU/__nv/npp family word, a library word,
    cubin), renamed to its MUSA spelling; every other word stays as it was."""
    bad = []
    for name in vocabulary:
        new = systematic(name)
        old_words, new_words = words(name), words(new)
        if len(old_words) != len(new_words):
            bad.append((name, new))
            continue
        for i, (o, n) in enumerate(zip(old_words, new_words)):
            following = old_words[i + 1] if i + 1 < len(old_words) else ""
            if o != n and not cuda_word_renamed(o, n, first=i == 0, following=following):
                bad.append((name, new))
                break
    assert not bad, f"{len(bad)} names with a non-CUDA word renamed, e.g. {bad[:5]}"


def test_current_is_not_a_cuda_word() -> None:
    assert systematic("cudaMemPoolAttrReservedMemCurrent") == "musaMemPoolAttrReservedMemCurrent"
    assert systematic("cuCtxGetCurrent") == "muCtxGetCurrent"
    assert systematic("cudaGraphicsCubeFacePositiveX") == "musaGraphicsCubeFacePositiveX"
    assert not [n for n in TOOLKIT if "Murrent" in systematic(n) or "Mube" in systematic(n)]


# --- the policy on the real PyTorch 2.6.0 port (docs/naming.md) ------------------------------------

TREE = "generated_cuda_compatible"
CUDA_DISPATCH_KEY = re.compile(
    r"\bDispatchKey::(?:Autograd|Quantized|Sparse|SparseCsr|NestedTensor|Autocast)?CUDA\b"
    r"|\bTORCH_LIBRARY_IMPL\(\s*\w+\s*,\s*(?:Autograd|Quantized|Sparse|SparseCsr|NestedTensor|Autocast)?CUDA\s*,"
)


@pytest.fixture(scope="session")
def facts_260(pytorch_260: Path) -> "naming_tree.Declarations":
    """Where PyTorch 2.6.0 declares its CUDA-word names (about 10 s)."""
    return naming_tree.declarations(pytorch_260)


@pytest.fixture(scope="session")
def port_code_260(ported_260: Path, pytorch_260: Path) -> dict[str, str]:
    """The code view (strings and comments masked) of every ported file, by output path."""
    out = ported_260 / TREE
    views = {}
    for rel in sorted(set(naming_tree.ported_files(pytorch_260).values())):
        if (out / rel).is_file():
            views[rel] = naming_tree.code_view((out / rel).read_bytes())[1]
    return views


def sites(code_by_file: dict[str, str], pattern: re.Pattern[str]) -> list[str]:
    return [f"{rel}: {m.group(0)}" for rel, code in code_by_file.items() for m in pattern.finditer(code)]


@pytest.mark.shared
def test_no_murrent_in_the_port(ported_260: Path) -> None:
    hits = [p.name for p in (ported_260 / TREE).rglob("*") if p.is_file() and b"Murrent" in p.read_bytes()]
    assert not hits


@pytest.mark.shared
def test_no_cuda_dispatch_key_in_code(port_code_260: dict[str, str]) -> None:
    assert not sites(port_code_260, CUDA_DISPATCH_KEY)
    embedding_bag = port_code_260["aten/src/ATen/native/quantized/musa/EmbeddingBag.mu"]
    assert "TORCH_LIBRARY_IMPL(quantized, PrivateUse1, m)" in embedding_bag


@pytest.mark.shared
def test_the_device_guard_is_registered_for_privateuse1(port_code_260: dict[str, str]) -> None:
    assert not sites(port_code_260, re.compile(r"\bC10_REGISTER_GUARD_IMPL\(\s*CUDA\b"))
    assert "C10_REGISTER_GUARD_IMPL(PrivateUse1, MUSAGuardImpl);" in port_code_260["c10/musa/impl/MUSAGuardImpl.cpp"]


@pytest.mark.shared
def test_cuda_hooks_are_reported_not_kept_silently(pytorch_260: Path, ported_260: Path,
                                                  port_code_260: dict[str, str]) -> None:
    ported = naming_tree.ported_files(pytorch_260)
    report = json.loads((ported_260 / "porting_report.json").read_text())
    flagged = {ported[f["site"].rpartition(":")[0]] for f in report["findings"] if f["rule"] == "cuda-hooks-registration"}
    hooks = re.compile(r"\bREGISTER_CUDA_HOOKS\s*\(\s*\w+\s*\)\s*;|\bpublic\s+(?:at::)?CUDAHooksInterface\b")
    uses = {rel for rel, code in port_code_260.items() if hooks.search(code)}
    assert uses and uses <= flagged


@pytest.mark.shared
def test_tensor_cuda_calls_move_to_privateuse1(port_code_260: dict[str, str]) -> None:
    assert not sites(port_code_260, re.compile(r"(?:\.|->)cuda\(\s*\)"))
    assert "tg_batch_offsets.to(c10::DeviceType::PrivateUse1)" in port_code_260["aten/src/ATen/native/musa/LossCTC.mu"]


@pytest.mark.shared
def test_cuda_names_left_are_libtorchs_or_kept(pytorch_260: Path, ported_260: Path,
                                               facts_260: "naming_tree.Declarations") -> None:
    """Every CUDA-word identifier left in the code of the port is declared in the
    unported tree (libtorch's) or listed in rules/data/keep_cuda_names.txt."""
    left = naming_tree.names_left(ported_260 / TREE, naming_tree.ported_files(pytorch_260))
    keep = naming_tree.keep_list()
    unexplained = naming_tree.unexplained(left, facts_260, keep)
    assert not unexplained, [f"{n} ({files[0]})" for n, files in list(unexplained.items())[:20]]
    assert not keep.unused(left), f"keep-list entries that match nothing left in the port: {keep.unused(left)}"


@pytest.mark.shared
def test_the_renamed_names_follow_the_port(port_code_260: dict[str, str]) -> None:
    """The names the policy renames (examples from the naming bug reports) are gone from code."""
    stale = re.compile(
        r"\b(?:CUDAGuardImpl|setCurrentCUDAStream|getCUDADeviceAllocator|C10_CUDA_(?:API|EXPORT|IMPORT|ERROR_HANDLED)"
        r"|TORCH_CUSOLVER_CHECK|AT_CUDA_DRIVER_CHECK|CUDABLAS_\w+_ARGTYPES|cuuint(?:32|64)_t)\b"
    )
    assert not sites(port_code_260, stale)


@pytest.mark.shared
def test_the_pytorch_vocabulary_is_current(facts_260: "naming_tree.Declarations") -> None:
    """rules/data/pytorch_cuda_names.txt is what tests/naming_tree.py makes from PyTorch 2.6.0."""
    expected = naming_tree.rename_vocabulary(facts_260, naming_tree.keep_list())
    committed = sorted(parse_vocabulary((data_dir("rules") / "data" / "pytorch_cuda_names.txt").read_bytes()))
    assert committed == expected, (
        f"missing {sorted(set(expected) - set(committed))[:10]}, extra {sorted(set(committed) - set(expected))[:10]}; "
        "regenerate: python tests/naming_tree.py PYTORCH_TREE > rules/data/pytorch_cuda_names.txt"
    )


@pytest.mark.shared
def test_no_include_dangles(pytorch_260: Path, ported_260: Path) -> None:
    """Each include of the port resolves in the port, the source tree, the shim or the
    generated headers, or is listed in rules/data/unresolved_includes.txt with its reason."""
    generated = [config_headers(pytorch_260, ported_260 / ".musaport" / "test-naming-config"),
                 aten_ops_headers(pytorch_260, CACHE / "buildenv")]
    dangling = naming_tree.dangling_includes(ported_260 / TREE, naming_tree.ported_files(pytorch_260),
                                             pytorch_260, [shim_include(), *generated])
    allowed = naming_tree.unresolved_allowed()
    bad = {t: files for t, files in dangling.items() if allowed.reason(t) is None}
    assert not bad, [f"{t} ({files[0]})" for t, files in list(bad.items())[:20]]
    assert not allowed.unused(dangling), f"entries of unresolved_includes.txt that nothing needs: {allowed.unused(dangling)}"


@pytest.mark.shared
def test_includes_follow_every_renamed_header(pytorch_260: Path) -> None:
    """pytorch-include-paths lists its folders by hand: it must rename the include of
    every header whose path the layout renames, to exactly the path the port writes."""
    rules = load_packs(default_packs())
    wrong = []
    for rel, out in naming_tree.ported_files(pytorch_260).items():
        if rel == out or not rel.endswith((".h", ".cuh", ".hpp", ".inl")):
            continue
        spelled, written = (p.removeprefix("aten/src/") for p in (rel, out))
        result = rewrite(parse(f"#include <{spelled}>\n".encode()), rules.rules, "aten/src/ATen/native/cuda/X.cu")
        if result.text != f"#include <{written}>\n":
            wrong.append(f"{spelled} -> {result.text.strip()} (port writes {written})")
    assert not wrong, wrong[:10]
