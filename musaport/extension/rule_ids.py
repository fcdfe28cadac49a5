"""The rule ids ``run --src`` makes by code, declared for ``musaport rules explain`` (``rewrite.registry``).

The build files are rewritten and reviewed by code (``buildfiles``), and the
include renames are rules computed from the discovered files (``includes``);
their ids appear in the porting report like any pack rule's.
"""

from __future__ import annotations

from musaport.extension.buildfiles import CMAKE_FLAGS, CUDA_ENV, QUALIFIED, TORCH_CUDA
from musaport.extension.includes import RULE_ID
from musaport.rewrite.registry import CodeRule

_BUILD = "musaport/extension/buildfiles.py (run --src: setup.py and CMakeLists.txt)"

CODE_RULES: tuple[CodeRule, ...] = (
    *(CodeRule(f.id, "flag", f.message, _BUILD, f.pattern.pattern) for f in (*CMAKE_FLAGS, TORCH_CUDA, CUDA_ENV,
                                                                            QUALIFIED)),
    CodeRule("setup-builder-imports", "edit", "torch.utils.cpp_extension's CUDA builder becomes torch_musa's: "
             "the import names the MUSA builder.", _BUILD,
             "from torch.utils.cpp_extension import CUDAExtension, BuildExtension",
             "from torch_musa.utils.musa_extension import MUSAExtension, BuildExtension"),
    CodeRule("setup-builder-names", "edit", "The CUDA builder's names are spelled as the MUSA builder's.", _BUILD,
             "CUDAExtension(", "MUSAExtension("),
    CodeRule("setup-compiler-key", "edit", "The per-compiler flags key of nvcc is the MUSA compiler's (mcc).", _BUILD,
             "extra_compile_args={'nvcc': [...]}", "extra_compile_args={'mcc': [...]}"),
    CodeRule("build-with-musa", "edit", "A WITH_CUDA/USE_CUDA build guard is the MUSA build's WITH_MUSA/USE_MUSA.",
             _BUILD, "-DWITH_CUDA", "-DWITH_MUSA"),
    CodeRule("build-source-paths", "edit", "A build file names each source by the path the port gives it.", _BUILD,
             "csrc/cuda/kernel.cu", "csrc/musa/kernel.mu"),
    CodeRule(f"{RULE_ID}*", "names", "This project's includes of a file the port renames must name the renamed "
             "file (one rule per group of files that resolve includes alike: -2, -3, ... after the first).",
             "musaport/extension/includes.py (run --src: computed from the discovered files)",
             '#include "cuda/kernel.cuh"', '#include "musa/kernel.muh"'),
)
