"""Headers a PyTorch build generates, made for checking ported code without a build.

A ported translation unit includes headers that only exist after PyTorch's
CMake configure step (``c10/macros/cmake_macros.h``, ``ATen/Config.h``, the
CUDA config headers, which the port renames) and after its code generator
(``ATen/ops/*.h``, ``ATen/Functions.h``...).  This module renders the first
from their ``.h.in`` templates and runs the tree's own torchgen for the
second, caching both by the digest of their inputs.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from musaport import children
from musaport.errors import LoadError, ToolError
from musaport.outdir import write_atomic
from musaport.port.cmake_headers import render
from musaport.rewrite.transforms import rename_path

CONFIG_TEMPLATES = (
    "c10/macros/cmake_macros.h.in",
    "aten/src/ATen/Config.h.in",
    "aten/src/ATen/cuda/CUDAConfig.h.in",
    "c10/cuda/impl/cuda_cmake_macros.h.in",
)
# Values for @VAR@ placeholders: a CPU-parallel build with no optional libraries.
CONFIG_VALUES = {"AT_PARALLEL_NATIVE": "1", "AT_BUILD_WITH_BLAS": "1", "AT_POCKETFFT_ENABLED": "0"}


def render_config(text: str) -> str:
    """A configured header: ``#cmakedefine X`` left undefined, ``@VAR@`` → its value (default 0)."""
    return render(text, CONFIG_VALUES)


def config_headers(tree: Path, dest: Path) -> Path:
    """Render the config headers under ``dest`` at their include paths, renamed as ported."""
    for template in CONFIG_TEMPLATES:
        source = tree / template
        if not source.is_file():
            continue
        rel = template.removesuffix(".in")
        rel = rel.split("/src/", 1)[1] if rel.startswith("aten/src/") else rel
        for path in {rel, rename_path(rel)}:  # unchanged bytes keep their mtime: a PCH built on them holds
            write_atomic(dest / path, render_config(source.read_text(encoding="utf-8")).encode())
    return dest


def aten_ops_headers(tree: Path, cache: Path, progress: Any = None) -> Path:
    """torchgen's per-operator headers for ``tree``, generated once per yaml digest.

    Returns the folder to put on the include path (it holds ``ATen/``).
    """
    yaml = tree / "aten/src/ATen/native/native_functions.yaml"
    if not yaml.is_file():
        raise LoadError(f"{yaml}: missing; cannot generate ATen/ops headers")
    digest = hashlib.sha256(yaml.read_bytes() + (tree / "aten/src/ATen/native/tags.yaml").read_bytes()).hexdigest()[:16]
    root = cache / f"aten-ops-{digest}"
    if (root / ".done").is_file():
        return musa_dispatch_headers(root)
    tmp = cache / f".aten-ops-{digest}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    announce = progress.phase if progress is not None else lambda text: nullcontext()
    with announce("generating the ATen/ops headers with the tree's torchgen (once per tree)"):
        done = children.run(_torchgen_gen(tree.resolve(), tmp.resolve() / "ATen"), cwd=tmp)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ToolError(f"{tree}: the tree's torchgen could not generate ATen/ops headers: {last}")
    (tmp / ".done").write_text("ok")
    shutil.rmtree(root, ignore_errors=True)
    tmp.rename(root)
    return musa_dispatch_headers(root)


def _torchgen_gen(tree: Path, install_dir: Path) -> list[str]:
    """The tree's own ``torchgen.gen`` as an isolated child: the tree on ``sys.path``, absolute paths only,
    so it reads the tree and writes nothing but ``install_dir`` (no bytecode either)."""
    argv = ["torchgen.gen", "--source-path", str(tree / "aten/src/ATen"), "--install_dir", str(install_dir),
            "--per-operator-headers", "--generate", "headers"]
    code = (f"import runpy, sys; sys.path.insert(0, {str(tree)!r}); sys.argv = {argv!r}; "
            "runpy.run_module('torchgen.gen', run_name='__main__')")
    return children.python("-c", code)


# torchgen's CUDA dispatch-key headers, as the port names them: ported code includes
# <ATen/MUSAFunctions.h> and <ATen/ops/sum_musa_dispatch.h> and calls at::musa::sum.
_CUDA_KEY_HEADER = re.compile(r"^(?:CUDAFunctions(?:_inl)?\.h|ops/\w+_cuda_dispatch\.h)$")
_CUDA_KEY_TEXT = re.compile(r"\bnamespace cuda\b|\bCUDAFunctions_inl\.h\b|_cuda_dispatch\.h\b")
_MUSA_KEY_TEXT = {"namespace cuda": "namespace musa", "CUDAFunctions_inl.h": "MUSAFunctions_inl.h",
                  "_cuda_dispatch.h": "_musa_dispatch.h"}


def musa_dispatch_headers(root: Path) -> Path:
    """Add MUSA-named copies of the CUDA dispatch-key headers under ``root/ATen`` (once)."""
    marker = root / ".musa-dispatch"
    if marker.is_file():
        return musa_native_declarations(root)
    aten = root / "ATen"
    for path in sorted(aten.rglob("*cuda*")) + sorted(aten.glob("CUDA*")):
        rel = path.relative_to(aten).as_posix()
        if not _CUDA_KEY_HEADER.match(rel):
            continue
        text = _CUDA_KEY_TEXT.sub(lambda m: _MUSA_KEY_TEXT[m.group(0)], path.read_text(encoding="utf-8"))
        target = aten / rel.replace("CUDAFunctions", "MUSAFunctions").replace("_cuda_dispatch", "_musa_dispatch")
        target.write_text(text, encoding="utf-8")
    marker.write_text("ok")
    return musa_native_declarations(root)


# Kernels the port renames (empty_cuda -> empty_musa in TensorFactories.mu and at its call sites)
# are declared by torchgen under their CUDA names in ops/*_native.h.
_CUDA_KERNEL_DECL = re.compile(r"^(TORCH_API .*?\b\w+)_cuda(\(.*)$", re.M)


def musa_native_declarations(root: Path) -> Path:
    """Beside each ``X_cuda`` declaration in ``ATen/ops/*_native.h``, declare ``X_musa`` (once)."""
    marker = root / ".musa-native"
    if marker.is_file():
        return root
    for path in sorted((root / "ATen/ops").glob("*_native.h")):
        text = path.read_text(encoding="utf-8")
        renamed = _CUDA_KERNEL_DECL.sub(lambda m: f"{m.group(0)}\n{m.group(1)}_musa{m.group(2)}", text)
        if renamed != text:
            path.write_text(renamed, encoding="utf-8")
    marker.write_text("ok")
    return root
