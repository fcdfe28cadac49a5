"""The rule ids ``run --src`` makes by code, declared for ``musaport rules explain`` (``rewrite.registry``).

The build files are rewritten and reviewed by code (``buildfiles``), the
include renames are rules computed from the discovered files (``includes``),
and what the project decides for itself (its names, registry macros, include
roots found by trailing path, files with a MUSA branch) becomes rules and
flags of the run (``extension.rules``); their ids appear in the porting
report like any pack rule's.
"""

from __future__ import annotations

from musaport.extension.buildfiles import (CMAKE_FLAGS, CUDA_ENV, JIT_BUILD, JIT_INLINE, JIT_INLINE_RULE,
                                           JIT_INLINE_UNMAPPED, JIT_INLINE_UNSCANNED, JIT_RULE, JIT_UNPORTED,
                                           NVCC_PROGRAM, QUALIFIED, SETUP_TORCH_DEVICE, TORCH_CUDA)
from musaport.extension.includes import RULE_ID
from musaport.rewrite.registry import CodeRule

_BUILD = "musaport/extension/buildfiles.py (run --src: setup.py and CMakeLists.txt)"
_PROJECT = "musaport/extension/rules.py (run --src: computed from the project's own sources, extension/project.py)"

CODE_RULES: tuple[CodeRule, ...] = (
    *(CodeRule(f.id, "flag", f.message, _BUILD, f.pattern.pattern) for f in (*CMAKE_FLAGS, TORCH_CUDA, CUDA_ENV,
                                                                            QUALIFIED, NVCC_PROGRAM, JIT_BUILD,
                                                                            JIT_INLINE, JIT_INLINE_UNMAPPED,
                                                                            JIT_INLINE_UNSCANNED, JIT_UNPORTED)),
    CodeRule(JIT_RULE, "edit", "torch's JIT extension builders (load, load_inline) become torch_musa's, which "
             "compile .mu sources with the MUSA compiler: their import (or qualified name) names torch_musa's "
             "module, and the CUDA keywords are MUSA's (extra_cuda_cflags, with_cuda, cuda_sources).", _BUILD,
             "from torch.utils.cpp_extension import load; load('ops', srcs, extra_cuda_cflags=['-O2'])",
             "from torch_musa.utils.musa_extension import load; load('ops', srcs, extra_musa_cflags=['-O2'])"),
    CodeRule(JIT_INLINE_RULE, "edit", "The C++ and CUDA code a load_inline call holds in string literals "
             "(cpp_sources, cuda_sources: a literal, a list of them, or a name bound once to one) is ported by the "
             "C++ packs as the files torch's builder writes them to (main.cpp, cuda.cu), inside the same quotes.",
             _BUILD, "load_inline('k', '', cuda_sources='cudaStream_t s = at::cuda::getCurrentCUDAStream();')",
             "load_inline('k', '', musa_sources='musaStream_t s = at::musa::getCurrentMUSAStream();')"),
    CodeRule("setup-builder-imports", "edit", "torch.utils.cpp_extension's CUDA builder becomes torch_musa's: "
             "the import names the MUSA builder.", _BUILD,
             "from torch.utils.cpp_extension import CUDAExtension, BuildExtension",
             "from torch_musa.utils.musa_extension import MUSAExtension, BuildExtension"),
    CodeRule("setup-builder-names", "edit", "The CUDA builder's names are spelled as the MUSA builder's.", _BUILD,
             "CUDAExtension(", "MUSAExtension("),
    CodeRule(SETUP_TORCH_DEVICE, "edit", "In a build script that builds with torch_musa's builder (whose import "
             "imports torch_musa, adding torch.musa), a torch.cuda device check asks torch.musa, for the names the "
             "Python pack's py-torch-cuda-api maps; other torch.cuda uses stay and are reported (setup-torch-cuda).",
             _BUILD, "if torch.cuda.is_available() and CUDA_HOME is not None:",
             "if torch.musa.is_available() and MUSA_HOME is not None:"),
    CodeRule("setup-compiler-key", "edit", "The per-compiler flags key of nvcc is the MUSA compiler's (mcc).", _BUILD,
             "extra_compile_args={'nvcc': [...]}", "extra_compile_args={'mcc': [...]}"),
    CodeRule("build-with-musa", "edit", "A WITH_CUDA/USE_CUDA build guard is the MUSA build's WITH_MUSA/USE_MUSA.",
             _BUILD, "-DWITH_CUDA", "-DWITH_MUSA"),
    CodeRule("build-source-paths", "edit", "A build file names each source by the path the port gives it.", _BUILD,
             "csrc/cuda/kernel.cu", "csrc/musa/kernel.mu"),
    CodeRule("project-cuda-names", "names", "Identifiers the project declares with 'cuda' in them are renamed like "
             "its files, declaration and use alike, in every ported file.", _PROJECT,
             "at::Tensor rotated_nms_cuda(const at::Tensor& boxes);",
             "at::Tensor rotated_nms_musa(const at::Tensor& boxes);"),
    CodeRule("project-registry-undecided*", "flag", "A call of a project device-registry macro the port cannot "
             "decide (a device argument that is no device type name, a pasted key with no PrivateUse1 form, an "
             "operator the project already registers for PrivateUse1): kept as written.", _PROJECT,
             "POLY_REGISTER_IMPL(op, SOME_DEVICE, impl)"),
    CodeRule("project-registry-*", "regex", "A project macro that pastes its device argument into a device type "
             "or dispatch key (at::k##DEV, DeviceType::DEV, DispatchKey::Autograd##DEV) registers per device: "
             "its CUDA call sites name PrivateUse1 (one rule per macro, named after it).", _PROJECT,
             "POLY_REGISTER_IMPL(box_area_impl, CUDA, box_area_cuda);",
             "POLY_REGISTER_IMPL(box_area_impl, PrivateUse1, box_area_musa);"),
    CodeRule("project-name-kept*", "flag", "A project name whose MUSA spelling the project already defines by "
             "hand keeps its CUDA spelling; each use is reported.", _PROJECT, "rotated_nms_cuda"),
    CodeRule("project-build-macro-kept*", "flag", "A project macro that a build file sets for the compiler "
             "(-DBUILD_CUDA=1) keeps its name in the code; its default #define is reported.", _PROJECT,
             "#define BUILD_CUDA 0"),
    CodeRule("include-found-by-path*", "flag", "An include no declared include root finds, matched by its "
             "trailing path to exactly one project file: followed, and its folder added to the include roots.",
             _PROJECT, '#include "box_area_cuda_kernel.cuh"'),
    CodeRule("include-unresolved*", "flag", "An include of a name the port renames that resolves nowhere (or in "
             "several files): it cannot be followed.", _PROJECT, '#include "old/box_area_cuda_kernel.cuh"'),
    CodeRule("existing-musa-branch*", "flag", "In a file with MUSA code of its own, CUDA device checks, guards "
             "and registrations stay as they are, so MUSA tensors still reach that branch.", _PROJECT,
             "if (x.is_cuda()) { ... } else if (x.device().type() == at::kPrivateUse1) { ... }"),
    CodeRule(f"{RULE_ID}*", "names", "This project's includes of a file the port renames must name the renamed "
             "file (one rule per group of files that resolve includes alike: -2, -3, ... after the first).",
             "musaport/extension/includes.py (run --src: computed from the discovered files)",
             '#include "cuda/kernel.cuh"', '#include "musa/kernel.muh"'),
)
