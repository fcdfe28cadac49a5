"""`run --src` on small projects written here for one defect class each: what a real project's sources and
build files may hold, read as their own tools read them.

- setup.py is read as Python reads it (its tokenizer's line endings, PEP 263's coding cookie and byte-order
  mark), and its port is proved to be Python (``ast.parse``), whatever the import it rewrites looks like.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from conftest import musaport
from musaport.extension.buildfiles import Paths, port_setup_py, read_python

NO_RENAMES = Paths.of({}, frozenset())
KERNEL = "__global__ void k(float* x) { x[0] = 1; }\n"
TREE = "generated_cuda_compatible"


def project(root: Path, files: dict[str, str | bytes]) -> Path:
    """A project of the given files (text or bytes) under ``root``."""
    for rel, body in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.write_bytes if isinstance(body, bytes) else path.write_text)(body)  # type: ignore[operator]
    return root


def port(src: Path, out: Path, *extra: str):
    return musaport("run", "--src", str(src), "--out", str(out), "-q", *extra)


def port_with_summary(src: Path, out: Path):
    """A run that prints its terminal summary (``port`` runs quietly), wide enough that no line folds."""
    return musaport("run", "--src", str(src), "--out", str(out), env={"COLUMNS": "1000"})


SETUP = ("from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
         "setup(ext_modules=[CUDAExtension('k', ['csrc/cuda/k.cu'])], cmdclass={'build_ext': BuildExtension})")


@pytest.mark.parametrize(("name", "data"), [
    ("no final newline", SETUP.encode()),
    ("CR-only line endings", SETUP.replace("\n", "\r").encode() + b"\r"),
    ("CR LF line endings", SETUP.replace("\n", "\r\n").encode() + b"\r\n"),
    ("Latin-1 with a coding cookie", b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + SETUP.encode() + b"\n"),
    ("a byte-order mark", b"\xef\xbb\xbf" + SETUP.encode() + b"\n"),
])
def test_setup_py_read_as_python_reads_it(tmp_path: Path, name: str, data: bytes) -> None:
    src = project(tmp_path / "p", {"setup.py": data, "csrc/cuda/k.cu": KERNEL})
    done = port(src, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    new = (tmp_path / "out" / TREE / "setup.py").read_bytes()
    text, encoding = read_python(new)
    assert encoding == read_python(data)[1]  # written back in its own encoding, BOM and all
    ast.parse(text)
    assert "MUSAExtension('k', ['csrc/musa/k.mu'])" in text and "CUDA" not in text
    if data.startswith(b"\xef\xbb\xbf"):
        assert new.startswith(b"\xef\xbb\xbf# musaport")
    if b"coding" in data:
        assert new.splitlines()[0] == b"# -*- coding: latin-1 -*-" and b"caf\xe9" in new
    if b"\r" in data and b"\r\n" not in data:
        assert b"\n" not in new


@pytest.mark.parametrize("text", [
    "if True:\n\tfrom torch.utils.cpp_extension import CppExtension, CUDAExtension\n\text = CUDAExtension\n",
    "x = 1; from torch.utils.cpp_extension import CppExtension, CUDAExtension\next = CUDAExtension\n",
    "if x: from torch.utils.cpp_extension import CppExtension, CUDA_HOME\n",
    "from torch.utils.cpp_extension import *\next = CUDAExtension(cmdclass={'build_ext': BuildExtension})\n",
    "try:\n    from torch.utils.cpp_extension import (\n        CUDAExtension,\n        CppExtension)\nexcept ImportError:\n"
    "    pass\n",
])
def test_import_rewrite_is_python(text: str) -> None:
    new = port_setup_py(text, "", NO_RENAMES).text
    tree = ast.parse(new)
    imported = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                and n.module == "torch_musa.utils.musa_extension" for a in n.names}
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} & {"MUSAExtension", "BuildExtension", "MUSA_HOME"}
    assert used <= imported and imported
    assert "CUDAExtension" not in new and "CUDA_HOME" not in new


def test_compiler_key_follows_in_a_membership_test() -> None:
    """A script that asks whether its flags have an nvcc key before it edits them (a debug build's ``-O0 -g``)
    asks of the key the port wrote: left ``"nvcc" in args``, the test is always false on MUSA and the edit of
    ``args["mcc"]`` below it is silently skipped."""
    text = ("from torch.utils.cpp_extension import CUDAExtension\n"
            "args = {'cxx': [], 'nvcc': []}\n"
            "if 'nvcc' in args:\n    args['nvcc'].append('-g')\n"
            "if \"nvcc\" not in args:\n    args[\"nvcc\"] = []\n"
            "print('nvcc')\n")
    new = port_setup_py(text, "", NO_RENAMES).text
    assert "if 'mcc' in args:\n    args['mcc'].append('-g')" in new
    assert 'if "mcc" not in args:\n    args["mcc"] = []' in new
    assert "args = {'cxx': [], 'mcc': []}" in new and "print('nvcc')" in new


def test_source_with_a_byte_order_mark_keeps_it_first(tmp_path: Path) -> None:
    src = project(tmp_path / "p", {"csrc/k.cu": "\ufeff" + KERNEL + "void f() { cudaDeviceSynchronize(); }\n"})
    done = port(src, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    new = (tmp_path / "out" / TREE / "csrc/k.mu").read_bytes()
    assert new.startswith(b"\xef\xbb\xbf// musaport") and new.count(b"\xef\xbb\xbf") == 1


def test_launches_device_checks_and_versions_as_the_musa_build_needs(tmp_path: Path) -> None:
    """Class 3: formatter-spaced launches; class 4: the deprecated ``type().is_cuda()``; class 6: the
    toolkit version an extension sees (``MUSA_VERSION``, from musa.h) and MUSAExtension's ``mcc_dlink`` key;
    a torch-1.x dispatch on ``value.type()``, which torch 2.6's AT_DISPATCH no longer takes."""
    src = project(tmp_path / "p", {
        "csrc/k.cu": KERNEL + "#include <cuda.h>\n#include <torch/extension.h>\n"
        "void run(at::Tensor value, float* p) {\n"
        '  AT_ASSERTM(value.type().is_cuda(), "value must be a CUDA tensor");\n'
        '  AT_DISPATCH_FLOATING_TYPES(value.type(), "run", ([&] { p[0] = 1; }));\n'
        "  k << <1, 32 >> > (p);\n  k<< <dim3(1), dim3(32), 0>> >(p);\n"
        "#if defined(CUDA_VERSION) && CUDA_VERSION >= 11000\n  k<<<1, 1>>>(p);\n#endif\n}\n",
        "setup.py": "from torch.utils.cpp_extension import CUDAExtension\n"
        "ext = CUDAExtension('k', ['csrc/k.cu'], extra_compile_args={'cxx': [], 'nvcc': ['-O3'], "
        "'nvcc_dlink': ['-dlink']})\n",
    })
    done = port(src, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    tree = tmp_path / "out" / TREE
    kernel = (tree / "csrc/k.mu").read_text()
    assert "k <<<1, 32 >>> (p);" in kernel and "k<<<dim3(1), dim3(32), 0>>>(p);" in kernel
    assert "<< <" not in kernel and ">> >" not in kernel
    assert "AT_ASSERTM(value.is_privateuseone()," in kernel and ".type()" not in kernel
    assert 'AT_DISPATCH_FLOATING_TYPES(value.scalar_type(), "run"' in kernel
    assert "#if defined(MUSA_VERSION) && MUSA_VERSION >= 11000" in kernel and "COMP_VERSION" not in kernel
    setup = (tree / "setup.py").read_text()
    assert "{'cxx': [], 'mcc': ['-O3'], 'mcc_dlink': ['-dlink']}" in setup


def test_a_device_check_through_device_type_alias_takes_musa_tensors(tmp_path: Path) -> None:
    """``Device::Type`` is c10::Device's alias of DeviceType: an input check written with it (older kernels
    spell ``x.device().type() == at::Device::Type::CUDA``) must accept the MUSA tensor, as the check written
    with ``DeviceType::CUDA`` does; a case label stays and is reported, and nothing is left unreported."""
    src = project(tmp_path / "p", {
        "csrc/cuda/ops.cpp": "#include <torch/extension.h>\n"
        "#define CHECK_DEV(x) AT_ASSERTM(x.device().type() == at::Device::Type::CUDA, #x \" must be on CUDA\")\n"
        "int where(const at::Tensor& x) {\n  CHECK_DEV(x);\n  if (x.device().type() != c10::Device::Type::CUDA) "
        "return 0;\n  switch (x.device().type()) {\n    case at::Device::Type::CUDA: return 1;\n"
        "    default: return 2;\n  }\n}\n",
        "csrc/cuda/k.cu": KERNEL,
    })
    done = port(src, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    host = (tmp_path / "out" / TREE / "csrc/musa/ops.cpp").read_text()
    assert "x.device().type() == at::Device::Type::PrivateUse1, #x" in host
    assert "x.device().type() != c10::Device::Type::PrivateUse1)" in host
    assert "case at::Device::Type::CUDA: return 1;" in host
    report = json.loads((tmp_path / "out" / "porting_report.json").read_text())
    assert [(f["rule"], f["site"]) for f in report["findings"]] == [("extension-cuda-case-label", "csrc/cuda/ops.cpp:7")]
    assert report["unmapped"] == []


JIT_INIT = """import glob
import os
import torch
from torch.utils.cpp_extension import load as jit_load

_root = os.path.join(os.path.dirname(__file__), "csrc")


def build(name):
    assert torch.cuda.is_available()
    sources = [os.path.join(_root, "cuda", "{}.cpp".format(name)),
               os.path.join(_root, "cuda", "{}_cuda.cu".format(name))]
    sources += glob.glob(os.path.join(_root, "extra", "*.cu"))
    return jit_load(name=name, sources=sources, extra_cuda_cflags=["-O2", "--use_fast_math"], with_cuda=True)
"""
JIT_OTHER = """import os
from torch.utils import cpp_extension
from torch.utils.cpp_extension import (
    load_inline,
    CUDA_HOME,
)

here = os.path.dirname(__file__)
ext = cpp_extension.load("more", [f"{here}/csrc/cuda/more_cuda.cu"])
inline = load_inline("inl", cpp_sources="", cuda_sources="cudaStream_t s; __global__ void k() {}", with_cuda=True)
built = load_inline("built", "", "__global__ void " + name(), with_cuda=True)
"""
NOT_JIT = """import os
KERNEL = os.path.join("csrc", "cuda", "ops_cuda.cu")  # a path string in a module that builds nothing
"""


def test_a_module_that_builds_its_extension_when_imported_names_the_ported_sources(tmp_path: Path) -> None:
    """A package that JIT-builds its extension with torch.utils.cpp_extension.load (no ext_modules in setup.py)
    calls torch_musa's builder of the same name, with MUSA's keywords: the paths and globs it hands the builder
    follow the port's renames, as a ported setup.py's do; its nvcc flag, each JIT build and the CUDA code that
    load_inline holds in strings are findings at their lines, which every edit keeps; a module that builds
    nothing keeps its strings."""
    src = project(tmp_path / "p", {
        "setup.py": "from setuptools import setup\nsetup(name='pkg', packages=['pkg'])\n",
        "pkg/__init__.py": JIT_INIT, "pkg/more.py": JIT_OTHER, "pkg/paths.py": NOT_JIT,
        "pkg/csrc/cuda/ops.cpp": "#include <ATen/cuda/CUDAContext.h>\nvoid f() { at::cuda::getCurrentCUDAStream(); }\n",
        "pkg/csrc/cuda/ops_cuda.cu": KERNEL, "pkg/csrc/cuda/more_cuda.cu": KERNEL, "pkg/csrc/extra/a.cu": KERNEL,
    })
    done = port(src, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    tree = tmp_path / "out" / TREE
    init = (tree / "pkg/__init__.py").read_text()
    ast.parse(init)
    assert 'os.path.join(_root, "musa", "{}.cpp".format(name))' in init
    assert 'os.path.join(_root, "musa", "{}_musa.mu".format(name))' in init
    assert 'os.path.join(_root, "extra", "*.mu")' in init and "torch.musa.is_available()" in init
    assert "from torch_musa.utils.musa_extension import load as jit_load\n" in init
    assert 'extra_musa_cflags=["-O2", "--use_fast_math"], with_musa=True)' in init
    more = (tree / "pkg/more.py").read_text()
    ast.parse(more)
    assert 'f"{here}/csrc/musa/more_musa.mu"' in more
    assert "from torch.utils import cpp_extension; import torch_musa.utils.musa_extension\n" in more
    assert "ext = torch_musa.utils.musa_extension.load(" in more
    assert ("from torch.utils.cpp_extension import CUDA_HOME; from torch_musa.utils.musa_extension import "
            "load_inline\n") in more
    assert 'musa_sources="musaStream_t s; __global__ void k() {}", with_musa=True)' in more  # the string is MUSA
    assert '"__global__ void " + name(), with_musa=True)' in more  # a built string is left, and reported
    assert more.count("\n") == JIT_OTHER.count("\n") + 1  # the provenance line; every edit keeps the lines
    for rel in ("pkg/csrc/musa/ops.cpp", "pkg/csrc/musa/ops_musa.mu", "pkg/csrc/musa/more_musa.mu",
                "pkg/csrc/extra/a.mu"):
        assert (tree / rel).is_file(), rel  # every path the ported modules name is a file of the port
    assert 'os.path.join("csrc", "cuda", "ops_cuda.cu")' in (tree / "pkg/paths.py").read_text()
    report = json.loads((tmp_path / "out" / "porting_report.json").read_text())
    sites = sorted((f["rule"], f["site"]) for f in report["findings"] if f["site"].startswith("pkg/"))
    assert ("py-jit-extension-build", "pkg/__init__.py:14") in sites
    assert ("py-jit-extension-build", "pkg/more.py:9") in sites
    assert ("py-jit-inline-sources", "pkg/more.py:10") not in sites  # ported, so nothing is left to report
    assert report["files"]["pkg/more.py"]["rules"]["py-jit-inline-ported"] == 1
    assert ("py-jit-inline-sources", "pkg/more.py:11") in sites
    assert ("py-cuda-home", "pkg/more.py:3") in sites  # the import statement that names it
    assert ("build-nvcc-flags", "pkg/__init__.py:14") in sites
    assert not any(site.startswith("pkg/paths.py") and rule != "py-cuda-string" for rule, site in sites)


INLINE_UNMAPPED = '''from torch.utils.cpp_extension import load_inline
KERNEL = """
__global__ void k() {}
void f() { cudaStream_t s; cudaNoSuchCall(s); }
"""
mod = load_inline("m", "", cuda_sources=KERNEL)
'''


def test_a_cuda_name_left_in_a_load_inline_string_is_in_the_unmapped_report(tmp_path: Path) -> None:
    """The strings load_inline compiles are ported as files are, so what no rule maps in them is an unmapped
    name at its line of the Python file, and the run does not say "none"."""
    src = project(tmp_path / "p", {"pkg/m.py": INLINE_UNMAPPED, "pkg/k.cu": KERNEL})
    done = port_with_summary(src, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert "musaStream_t s; cudaNoSuchCall(s);" in (tmp_path / "out" / TREE / "pkg/m.py").read_text()
    report = json.loads((tmp_path / "out" / "porting_report.json").read_text())
    assert {u["name"]: u["sites"] for u in report["unmapped"]} == {"cudaNoSuchCall": ["pkg/m.py:4"]}
    assert "unmapped CUDA APIs: 1 names; most used: cudaNoSuchCall (1)" in done.stdout


INLINE_LEFT = '''from torch.utils.cpp_extension import load_inline
HEAD = "#include <cuda_fp16.h>\\n"
joined = load_inline("j", "", cuda_sources=HEAD + "void f() { cudaNoSuchCall(); }")
made = load_inline("m", "", cuda_sources=kernel_text())
'''


def _scan_of_module(tmp_path: Path, module: str):
    """A project of ``module`` (as pkg/m.py) beside a kernel, ported with its summary printed: the run, and
    its report's unmapped names with their sites and its unscanned load_inline sources."""
    done = port_with_summary(project(tmp_path / "p", {"pkg/m.py": module, "pkg/k.cu": KERNEL}), tmp_path / "out")
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "out" / "porting_report.json").read_text())
    return done, {u["name"]: u["sites"] for u in report["unmapped"]}, report["unscanned"]


def test_load_inline_sources_left_as_written_are_scanned_and_what_runs_is_reported_unscanned(
        tmp_path: Path) -> None:
    """A source built by concatenation stays as written, but the CUDA names in its string pieces are unmapped
    names; a source only running the code makes cannot be scanned, so the run says so instead of "none"."""
    done, unmapped, unscanned = _scan_of_module(tmp_path, INLINE_LEFT)
    assert unmapped == {"cudaNoSuchCall": ["pkg/m.py:3"]} and unscanned == ["pkg/m.py:4"]
    assert "1 load_inline sources that only running the code makes were not scanned" in done.stdout
    alone = project(tmp_path / "q", {"pkg/m.py": INLINE_LEFT.replace("void f() { cudaNoSuchCall(); }", ""),
                                     "pkg/k.cu": KERNEL})
    done = port_with_summary(alone, tmp_path / "out2")
    assert done.returncode == 0, done.stderr
    assert "unmapped CUDA APIs: none found in the code scanned; 1 load_inline sources" in done.stdout
    assert "Not scanned: 1 load_inline sources" in (tmp_path / "out2" / "porting_report.md").read_text()


INLINE_FSTRING = '''from torch.utils.cpp_extension import load_inline
N = 4
made = load_inline("f", "", cuda_sources=f"""
#define N {N}
__global__ void k(float* x) {{ x[threadIdx.x] = N; }}
void f() {{
  cudaNoSuchCall();
}}""")
'''


def test_a_cuda_name_in_an_f_string_source_is_reported_at_its_own_line(tmp_path: Path) -> None:
    """An f-string source stays as written (its fields are known only at run time), and the name left in
    the piece after its field is reported where it is: line 7, not the f-string's first line (which the
    syntax tree gives every piece before Python 3.12)."""
    _, unmapped, unscanned = _scan_of_module(tmp_path, INLINE_FSTRING)
    assert unmapped == {"cudaNoSuchCall": ["pkg/m.py:7"]} and unscanned == ["pkg/m.py:3"]


def test_the_shim_musa_h_gives_musa_version() -> None:
    """The MUSA_VERSION that extension-musa-version names is what the shim's musa.h defines."""
    import musaport
    header = (Path(musaport.__file__).parent / "shim" / "include" / "musa.h").read_text()
    assert re.search(r"^#define MUSA_VERSION\b", header, re.M)


def test_every_cuda_name_left_is_reported(tmp_path: Path) -> None:
    """Class 5: names outside the toolkit list survive no longer unreported; what the naming facts map is
    mapped (the typedefs, make_cuda*, cuComplex's make_cu*, the two THC shims), the rest (the legacy THC API, libcu++, NVSHMEM) is in
    the unmapped report with its site, and "none" is said only of a port where the scan found none."""
    src = project(tmp_path / "p", {
        "csrc/k.cu": "#include <THC/THC.h>\n#include <THC/THCAtomics.cuh>\n#include <cuda/atomic>\n"
        "#include <nvshmem.h>\n#include <cuda_bf16.h>\n"
        "__global__ void k(nv_bfloat16* x, nv_half* h) {\n  THCudaCheck(cudaGetLastError());\n"
        "  int n = THCCeilDiv(4, 2);\n  nvshmem_barrier_all();\n  cuda::atomic<int> a;\n}\n"
        "void f() { auto e = make_cudaExtent(1, 2, 3); CUDA_KERNEL_ASSERT(true); }\n"
        "cuFloatComplex g() { return make_cuFloatComplex(1.f, 0.f); }\n",
        "csrc/clean.cu": KERNEL,
    })
    done = musaport("run", "--src", str(src), "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    kernel = (tmp_path / "out" / TREE / "csrc/k.mu").read_text()
    assert "__mt_bfloat16* x, __half* h" in kernel and "make_musaExtent(1, 2, 3)" in kernel
    assert "muFloatComplex g() { return make_muFloatComplex(1.f, 0.f); }" in kernel
    assert "#include <ATen/musa/Atomic.muh>" in kernel and "THCAtomics" not in kernel
    report = json.loads((tmp_path / "out" / "porting_report.json").read_text())
    unmapped = {u["name"]: u["sites"] for u in report["unmapped"]}
    assert unmapped == {"<THC/THC.h>": ["csrc/k.cu:1"], "<cuda/atomic>": ["csrc/k.cu:3"],
                        "<nvshmem.h>": ["csrc/k.cu:4"], "THCudaCheck": ["csrc/k.cu:7"],
                        "THCCeilDiv": ["csrc/k.cu:8"], "nvshmem_barrier_all": ["csrc/k.cu:9"],
                        "cuda": ["csrc/k.cu:10"]}
    kept = {k["name"]: k["reason"] for k in report["kept_cuda_names"]}
    assert list(kept) == ["CUDA_KERNEL_ASSERT"] and "c10/macros/Macros.h" in kept["CUDA_KERNEL_ASSERT"]
    assert "unmapped CUDA APIs: 7 names" in " ".join(done.stdout.split())
    (src / "csrc/k.cu").unlink()
    clean = musaport("run", "--src", str(src), "--out", str(tmp_path / "out2"))
    assert "unmapped CUDA APIs: none" in clean.stdout
    assert "None: the scan of code and includes found no name" in (tmp_path / "out2" / "porting_report.md").read_text()


# A setup.py that builds its source paths every way Python allows (class 2 of the extension issue; D8).
PATHS_SETUP = '''import os.path as osp
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension
ROOT = osp.dirname(osp.abspath(__file__))
d = osp.join(ROOT, 'csrc')
sources = [osp.join(d, 'ops.cpp')]
for name in ['box', 'nms']:
    path = osp.join(d, 'cuda', f'{name}_cuda.cu')
    if osp.exists(path):
        sources.append(path)
sources.append(osp.join(d, 'cuda', '{}_cuda.cu'.format('extra')))
sources.append(d + '/cuda/' + 'tri' + '_cuda.cu')
sources.append(osp.join(d, """cuda/cat_cuda.cu"""))
sources.append(osp.join(d, 'cuda/' 'dog_cuda.cu'))
setup(ext_modules=[CUDAExtension('k', sources)], cmdclass={'build_ext': BuildExtension})
'''
KERNELS = {f"csrc/cuda/{n}_cuda.cu": KERNEL for n in ("box", "nms", "extra", "tri", "cat", "dog")}
# Stand-ins for the builder, so the ported setup.py runs and says which sources it would build.
STUBS = {
    "setuptools/__init__.py": "def setup(**kw):\n    pass\n",
    "torch/__init__.py": "", "torch/utils/__init__.py": "",
    "torch/utils/cpp_extension.py": "def CppExtension(name, sources, **kw):\n    return sources\n",
    "torch_musa/__init__.py": "", "torch_musa/utils/__init__.py": "",
    "torch_musa/utils/musa_extension.py": "import json, os\nMUSA_HOME = '/musa'\nclass BuildExtension: pass\n"
    "def MUSAExtension(name, sources, **kw):\n    json.dump(sources, open(os.environ['SOURCES_OUT'], 'w'))\n",
}


def overlay(src: Path, out: Path, dest: Path) -> Path:
    """The project with its port laid over it, as the README says to build it."""
    import shutil
    shutil.copytree(src, dest)
    for rel in json.loads((out / "porting_report.json").read_text())["files"]:
        (dest / rel).unlink()
    shutil.copytree(out / TREE, dest, dirs_exist_ok=True)
    return dest


def built_sources(tree: Path, tmp_path: Path) -> list[str]:
    """The sources the ported setup.py hands to MUSAExtension when it runs (under stand-in builders)."""
    import os
    import subprocess
    import sys
    project(tmp_path / "stubs", STUBS)  # type: ignore[arg-type]
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "stubs"), SOURCES_OUT=str(tmp_path / "sources.json"))
    done = subprocess.run([sys.executable, "setup.py"], cwd=tree, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads((tmp_path / "sources.json").read_text())


def test_every_source_a_ported_setup_py_names_exists(tmp_path: Path) -> None:
    src = project(tmp_path / "p", {"setup.py": PATHS_SETUP, "csrc/ops.cpp": "int ops();\n", **KERNELS,
                                   "CMakeLists.txt": 'set(SRCS "csrc/cuda/box_cuda.cu;csrc/ops.cpp")\n'
                                   "add_library(k ${SRCS} csrc/cuda/nms_cuda.cu)\n"})
    done = port(src, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    tree = overlay(src, tmp_path / "out", tmp_path / "built")
    sources = built_sources(tree, tmp_path)
    assert [Path(s).relative_to(tree).as_posix() for s in sources] == [
        "csrc/ops.cpp", "csrc/musa/box_musa.mu", "csrc/musa/nms_musa.mu", "csrc/musa/extra_musa.mu",
        "csrc/musa/tri_musa.mu", "csrc/musa/cat_musa.mu", "csrc/musa/dog_musa.mu"]
    assert all(Path(s).is_file() for s in sources)
    cmake = (tree / "CMakeLists.txt").read_text()
    assert 'set(SRCS "csrc/musa/box_musa.mu;csrc/ops.cpp")' in cmake and "csrc/musa/nms_musa.mu)" in cmake
    findings = json.loads((tmp_path / "out" / "porting_report.json").read_text())["findings"]
    assert not [f for f in findings if f["rule"].startswith("build-source")]


def test_a_source_path_the_port_cannot_follow_is_a_finding(tmp_path: Path) -> None:
    """The port renames cudaops.cpp (a CUDA file) to musaops.cpp, but in 'cudaops' + '.cpp' no piece is a CUDA
    folder or file name to rename: the check finds the ported build file naming a file that is no longer there,
    and says which source it cannot evaluate at all."""
    setup = PATHS_SETUP.replace("sources.append(osp.join(d, 'cuda/' 'dog_cuda.cu'))",
                                "sources.append(osp.join(d, 'cudaops' + '.cpp'))\nunknown = [x for x in y]\n"
                                "e = CUDAExtension('e', [os.environ['SRC']])")
    src = project(tmp_path / "p", {"setup.py": setup, "csrc/ops.cpp": "int ops();\n", **KERNELS,
                                   "csrc/cudaops.cpp": "void f() { cudaDeviceSynchronize(); }\n"})
    done = port(src, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "out" / "porting_report.json").read_text())
    found = {(f["rule"], f["site"]): f["text"] for f in report["findings"] if f["rule"].startswith("build-source")}
    assert list(found) == [("build-source-lost", "setup.py:14"), ("build-source-unchecked", "setup.py:16")]
    assert "csrc/musaops.cpp" in found["build-source-lost", "setup.py:14"]
    assert found["build-source-unchecked", "setup.py:16"] == "os.environ['SRC']"


# A setup.py whose source folder is a name bound to a bare folder name (a points-kernels layout).
BOUND_FOLDER_SETUP = """import glob
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension
BACKEND = "cuda"
root = "cuda"
srcs = glob.glob("{}/src/*.cpp".format(root)) + glob.glob("{}/src/*.cu".format(root))
cpu_root = "cpu"
setup(ext_modules=[CUDAExtension("k", srcs, include_dirs=["{}/include".format(root)]),
                   CppExtension("c", glob.glob("{}/src/*.cpp".format(cpu_root)))],
      cmdclass={"build_ext": BuildExtension})
"""


def test_a_source_folder_bound_to_a_name_follows_the_port(tmp_path: Path) -> None:
    """``root = "cuda"`` used as ``"{}/src/*.cu".format(root)``: the literal the name is bound to is a piece of
    the source path, so the folder is renamed with the files and the ported setup.py builds the same sources
    (before, both globs named nothing in the port: a build-source-lost finding, the kernels out of the
    build). A ``"cuda"`` no path uses stays."""
    src = project(tmp_path / "p", {"setup.py": BOUND_FOLDER_SETUP, "cuda/src/bind.cpp": "int bind();\n",
                                   "cuda/src/k.cu": '#include "k.h"\n' + KERNEL,
                                   "cuda/include/k.h": "#include <cuda_runtime.h>\n",
                                   "cpu/src/c.cpp": "int c();\n"})
    done = port(src, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    setup = (tmp_path / "out" / TREE / "setup.py").read_text()
    assert 'root = "musa"' in setup and 'BACKEND = "cuda"' in setup and 'cpu_root = "cpu"' in setup
    tree = overlay(src, tmp_path / "out", tmp_path / "built")
    assert sorted(Path(s).as_posix() for s in built_sources(tree, tmp_path)) == ["musa/src/bind.cpp",
                                                                                 "musa/src/k.mu"]
    assert (tree / "musa/include/k.h").is_file()
    report = json.loads((tmp_path / "out" / "porting_report.json").read_text())
    assert not [f for f in report["findings"] if f["rule"].startswith("build-source")]


# A setup.py that reaches the builder through its module (a sorting library's), under both spellings.
MODULE_ALIAS_SETUP = """import torch
from setuptools import setup
from torch.utils import cpp_extension
import torch.utils.cpp_extension as ce
exts = [cpp_extension.CppExtension("s.cpu", sources=["s/cpu.cpp"])]
if cpp_extension.CUDA_HOME is not None:
    exts.append(cpp_extension.CUDAExtension("s.gpu", sources=["s/gpu_cuda.cu"]))
exts.append(ce.CUDAExtension("s.more", sources=["s/more.cu"]))
setup(ext_modules=exts, cmdclass={"build_ext": cpp_extension.BuildExtension})
"""


def test_a_builder_reached_through_its_module_is_torch_musas(tmp_path: Path) -> None:
    """``from torch.utils import cpp_extension`` then ``cpp_extension.CUDAExtension(...)`` (or an ``import ... as``
    alias): the CUDA builder's names become torch_musa's, imported beside the script's import, so the renamed .mu
    sources go to MUSAExtension (torch's CUDAExtension would refuse them: "unknown file type"); CppExtension stays
    torch's. Before, each use was only a setup-qualified-builder finding."""
    src = project(tmp_path / "p", {"setup.py": MODULE_ALIAS_SETUP, "s/cpu.cpp": "int cpu();\n",
                                   "s/gpu_cuda.cu": KERNEL, "s/more.cu": KERNEL})
    done = port(src, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    setup = (tmp_path / "out" / TREE / "setup.py").read_text()
    musa = "torch_musa.utils.musa_extension"
    assert f"from torch.utils import cpp_extension\nimport {musa}\nimport torch.utils.cpp_extension as ce\n" \
           f"import {musa}\n" in setup
    assert 'cpp_extension.CppExtension("s.cpu"' in setup and f"if {musa}.MUSA_HOME is not None:" in setup
    assert f'{musa}.MUSAExtension("s.gpu", sources=["s/gpu_musa.mu"])' in setup
    assert f'{musa}.MUSAExtension("s.more", sources=["s/more.mu"])' in setup
    assert f'cmdclass={{"build_ext": {musa}.BuildExtension}}' in setup
    tree = overlay(src, tmp_path / "out", tmp_path / "built")
    assert built_sources(tree, tmp_path) == ["s/more.mu"]  # the stand-in records the last MUSAExtension
    report = json.loads((tmp_path / "out" / "porting_report.json").read_text())
    assert not [f for f in report["findings"] if f["rule"] in ("setup-qualified-builder", "build-source-lost")]


JIT_BACKEND = """import glob
import os
from torch.utils.cpp_extension import load
PATH = os.path.dirname(os.path.abspath(__file__))
_C = load(name="k", sources=glob.glob(os.path.join(PATH, "csrc/*.cu")))
"""


def test_a_jit_source_path_the_port_cannot_follow_is_a_finding(tmp_path: Path) -> None:
    """A package whose Python sits in the cuda/ folder beside its kernels (a NeRF library's
    pkg/cuda/_backend.py builds pkg/cuda/csrc/*.cu when imported): the kernels move to pkg/musa/csrc/, the
    Python stays where it is imported from, and the path it builds from its own folder names no source after
    the port. It is checked as a build file's are: a build-source-lost finding naming the lost kernel, where
    before the run said nothing. A JIT path the port follows (from the project's root) is no finding."""
    src = project(tmp_path / "p", {"pkg/__init__.py": "", "pkg/cuda/__init__.py": "from ._backend import _C\n",
                                   "pkg/cuda/_backend.py": JIT_BACKEND, "pkg/cuda/csrc/k.cu": KERNEL,
                                   "build.py": JIT_BACKEND.replace('os.path.join(PATH, "csrc/*.cu")',
                                                                   '"pkg/cuda/csrc/k.cu"')})
    done = port(src, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "out" / "porting_report.json").read_text())
    lost = [(f["site"], f["text"]) for f in report["findings"] if f["rule"].startswith("build-source")]
    assert len(lost) == 1 and lost[0][0] == "pkg/cuda/_backend.py:5", lost
    assert "pkg/musa/csrc/k.mu" in lost[0][1]
    assert '"pkg/musa/csrc/k.mu"' in (tmp_path / "out" / TREE / "build.py").read_text()


FUNCTION_SETUP = """import os
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension
use_hip = os.environ.get("HIP") == "1"


def get_sources():
    if use_hip:
        return ["ops.hip", "bind.cpp"]
    else:
        return ["ops.cu", "cudaops" + ".cu", "bind.cpp"]


def from_env():
    if os.environ.get("SRCS"):
        return os.environ["SRCS"].split()
    return


setup(ext_modules=[CUDAExtension("a._C", sources=get_sources()),
                   CUDAExtension("b._C", from_env())],
      cmdclass={"build_ext": BuildExtension})
"""


def test_sources_a_function_of_setup_py_returns_are_checked(tmp_path: Path) -> None:
    """A setup.py that returns its source list from a function of its own (get_sources() with a ROCm branch, as
    a rasterizer's KNN helper does): every list it returns is checked where it is written, so a path the port
    cannot follow is found, and the call is no longer "unchecked"; a function that may return something else (an
    environment variable, nothing) still is."""
    src = project(tmp_path / "p", {"setup.py": FUNCTION_SETUP, "ops.cu": KERNEL, "cudaops.cu": KERNEL,
                                   "bind.cpp": "int bind();\n"})
    done = port(src, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    setup = (tmp_path / "out" / TREE / "setup.py").read_text()
    assert 'return ["ops.mu", "cudaops" + ".mu", "bind.cpp"]' in setup and '"ops.hip"' in setup
    report = json.loads((tmp_path / "out" / "porting_report.json").read_text())
    found = [(f["rule"], f["site"], f["text"]) for f in report["findings"] if f["rule"].startswith("build-source")]
    assert [f[:2] for f in found] == [("build-source-lost", "setup.py:11"), ("build-source-unchecked", "setup.py:21")]
    assert "musaops.mu" in found[0][2] and found[1][2] == "from_env()"


INCLUDE_FLAGS_SETUP = """import os
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension
ROOT = os.path.dirname(os.path.abspath(__file__))
args = {"cxx": ["-O3", f"-I{ROOT}/inc"],
        "nvcc": ["-Xcompiler", "-fno-gnu-unique", "-I" + os.path.join(ROOT, "third_party/vec/"), "-I", "more"]}
setup(ext_modules=[CUDAExtension("k", ["csrc/cuda/k.cu"], extra_compile_args=args)],
      cmdclass={"build_ext": BuildExtension})
"""


def test_include_folders_given_as_compiler_flags_are_include_roots(tmp_path: Path) -> None:
    """A rasterizer's setup.py puts its header-only math library (a submodule in third_party/) on the include
    path with "-I" + os.path.join(here, "third_party/vecmath/") in the nvcc flags, not in include_dirs: such -I
    folders are include roots of the port (a header there is found by its bracketed include) and of
    validate's compile, which reads a folder the port never looks into (third_party/) from the project."""
    from musaport.extension.buildfiles import declared_include_dirs
    from musaport.extension.discover import discover
    from musaport.extension.overlay import overlay_flags

    src = project(tmp_path / "p", {
        "setup.py": INCLUDE_FLAGS_SETUP,
        "csrc/cuda/k.cu": "#include <vec/vec.hpp>\n#include <scale_defs.h>\n" + KERNEL,
        "third_party/vec/vec/vec.hpp": "namespace vec { struct V { float x; }; }\n",
        "inc/scale_defs.h": "#define SCALE 2.0f\n", "more/m.h": "#pragma once\n",
    })
    assert declared_include_dirs(src, "setup.py") == ["inc", "third_party/vec", "more"]
    assert discover(src).roots[:2] == ("inc", "more")
    done = port(src, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    flags = overlay_flags(tmp_path / "out" / TREE, src, set(), tmp_path / "overlay.json")
    assert f"-I{tmp_path / 'out' / TREE / 'inc'}" in flags and f"-I{src / 'third_party/vec'}" in flags
    assert flags.index(f"-I{tmp_path / 'out' / TREE}") < flags.index(f"-I{src / 'third_party/vec'}")


def test_a_package_named_with_cuda_is_no_cuda_setting(tmp_path: Path) -> None:
    """setup(name="PTS_CUDA") (a point-cloud package's name) and an extension module's name are no CUDA setting to
    decide by hand; the CUDA environment variables a build script reads still are."""
    setup = ("import os\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
             "arch = os.environ.get('TORCH_CUDA_ARCH_LIST')\nforce = os.getenv(\"FORCE_CUDA\", \"0\")\n"
             "setup(name='PTS_CUDA', version='0.1', description='PTS_CUDA',\n"
             "      ext_modules=[CUDAExtension('PTS_CUDA_EXT', ['k.cu'])])\n")
    src = project(tmp_path / "p", {"setup.py": setup, "k.cu": KERNEL})
    done = port(src, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "out" / "porting_report.json").read_text())
    flagged = [(f["site"], f["text"]) for f in report["findings"] if f["rule"] == "setup-cuda-environment"]
    assert flagged == [("setup.py:4", "TORCH_CUDA_ARCH_LIST"), ("setup.py:5", "FORCE_CUDA")]


def test_cmake_is_read_as_cmake_reads_it(tmp_path: Path) -> None:
    """D18: thousands of unclosed ``#[[`` (each a line comment) read in one pass; a bracket comment hides
    what it holds; a quoted list's elements are paths each; a build file over the size bound is not read."""
    from musaport.extension.buildfiles import MAX_BUILD_FILE_BYTES, port_cmake
    paths = Paths.of({"csrc/cuda/k.cu": "csrc/musa/k.mu"}, frozenset({"csrc/cuda/k.cu", "csrc/a.cpp"}))
    text = "#[[ csrc/cuda/k.cu\n" * 20000 + "#[==[ csrc/cuda/k.cu\n]==] add_library(k csrc/cuda/k.cu)\n" \
        'set(S "csrc/cuda/k.cu;csrc/a.cpp")\n'
    new = port_cmake(text, "", paths).text
    assert new.endswith('add_library(k csrc/musa/k.mu)\nset(S "csrc/musa/k.mu;csrc/a.cpp")\n')
    assert new.count("csrc/cuda/k.cu") == 20001
    src = project(tmp_path / "p", {"csrc/cuda/k.cu": KERNEL,
                                   "CMakeLists.txt": "#" * (MAX_BUILD_FILE_BYTES + 1) + "\n"})
    done = port(src, tmp_path / "out")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "CMakeLists.txt: not ported: 1,048,578 bytes, more than the 1,048,576 a build file may have" in \
        " ".join((done.stdout + done.stderr).split())


@pytest.mark.parametrize("odd", ["new\nline", "esc\x1bape", "bidi\u202eover", 'quote"', "dollar$", "semi;colon"])
def test_files_whose_names_the_port_cannot_carry_are_skipped(tmp_path: Path, odd: str) -> None:
    """D16: a name with a newline, ESC, a bidi override or one of "$; is skipped with a warning, as the README
    says (it would break the provenance comment or musaport_sources.cmake), never ported."""
    src = project(tmp_path / "p", {"csrc/k.cu": KERNEL, f"csrc/{odd}.cu": KERNEL})
    done = port(src, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "out" / "porting_report.json").read_text())
    assert list(report["files"]) == ["csrc/k.cu"]
    assert [w for w in report["warnings"] if "(not ported)" in w and "file name has" in w]
    written = [p.name for p in (tmp_path / "out" / TREE).rglob("*")]
    assert not [n for n in written if not n.isprintable() or set(n) & set('"$;')]


def test_a_tree_with_nothing_to_port_or_no_build_says_so(tmp_path: Path) -> None:
    """D22: an empty --src is a wrong path (exit 2, one line); a build declared only in pyproject.toml is not
    ported, which the run says and exits 1 for; no build file at all is a warning."""
    empty = port(project(tmp_path / "empty", {"README.md": "x\n"}), tmp_path / "o1")
    assert empty.returncode == 2 and "--src holds no CUDA source to port" in empty.stderr
    assert len(empty.stderr.strip().splitlines()) == 1
    toml = project(tmp_path / "toml", {"csrc/k.cu": KERNEL, "pyproject.toml":
                                       '[tool.setuptools]\next-modules = [{name = "k", sources = ["csrc/k.cu"]}]\n'})
    done = port(toml, tmp_path / "o2")
    assert done.returncode == 1
    assert "pyproject.toml: not ported: the build names the CUDA sources here" in done.stderr
    (toml / "pyproject.toml").unlink()
    bare = port(toml, tmp_path / "o3")
    assert bare.returncode == 0
    warnings = json.loads((tmp_path / "o3" / "porting_report.json").read_text())["warnings"]
    assert any("no build file" in w for w in warnings)


PYTHON_ONLY = {
    "setup.py": 'from setuptools import setup\n\nsetup(name="twice", packages=["twice"])\n',
    "twice/__init__.py": (
        "from torch.utils.cpp_extension import load_inline\n\n"
        'CUDA = """\n#include <cuda_runtime.h>\n'
        "__global__ void twice_kernel(const float* x, float* y, int n) { y[threadIdx.x] = 2.0f * x[threadIdx.x]; }\n"
        'void run(const float* x, float* y, cudaStream_t s) { twice_kernel<<<1, 32, 0, s>>>(x, y, 32); }\n"""\n'
        '_ext = load_inline("twice_ext", cpp_sources="", cuda_sources=CUDA, functions=["run"])\n'),
    "tests/test_twice.py": "import torch\n\n\ndef test_it():\n    assert torch.ones(2).cuda().is_cuda\n",
}


def test_a_project_whose_only_kernels_are_python_strings_is_ported(tmp_path: Path) -> None:
    """No .cu file and no C++ file, but a module that builds a CUDA kernel with load_inline when it is
    imported: the project has work to port (its Python and the kernel in its string), not nothing."""
    src = project(tmp_path / "p", PYTHON_ONLY)
    done = port(src, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    init = (tmp_path / "out" / TREE / "twice" / "__init__.py").read_text()
    assert "from torch_musa.utils.musa_extension import load_inline" in init
    assert "musaStream_t s" in init and "musa_sources=CUDA" in init and "cuda" not in init.split("\n", 1)[1]
    assert "torch.ones(2).musa().is_musa" in (tmp_path / "out" / TREE / "tests" / "test_twice.py").read_text()


def test_python_that_only_mentions_load_inline_is_still_nothing_to_port(tmp_path: Path) -> None:
    """The evidence is a call of torch's JIT builder, not the word: a comment or a function of the same
    name from elsewhere leaves a run of nothing, refused as a wrong path."""
    src = project(tmp_path / "p", {"setup.py": PYTHON_ONLY["setup.py"], "twice/__init__.py":
                                   "# we used torch.utils.cpp_extension's load_inline(...) once\n"
                                   "from mylib import load_inline\nload_inline('x')\n"})
    done = port(src, tmp_path / "out")
    assert done.returncode == 2 and "--src holds no CUDA source to port" in done.stderr
    assert "load_inline" in done.stderr and not (tmp_path / "out").exists()
