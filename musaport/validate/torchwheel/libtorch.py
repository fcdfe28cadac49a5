"""The real libtorch of the ported tree's release: the torch wheel's headers and libraries.

``validate --backend`` links the port against PyTorch's own ``libtorch_cpu.so``
and ``libc10.so``: evidence no one here wrote.  PyPI's ``torch`` wheel carries
them with the matching ``torch/include``; ``libtorch_cpu.so`` also needs the
CUDA runtime and CUPTI shared libraries at link and load time (no GPU is
touched), which the wheel's pinned NVIDIA wheels install beside it.  One
download serves the link and the Python device alike: the release's torch
environment (:mod:`musaport.validate.torchwheel.torchenv`), whose site-packages holds
``torch/`` and ``nvidia/`` as this module reads them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from musaport import children
from musaport.errors import LoadError, ToolError
from musaport.validate.torchwheel import torchenv



@dataclass(frozen=True)
class Libtorch:
    """Where one release's libtorch lives: headers, libraries, the runtime libraries they need."""

    version: str
    root: Path

    @property
    def include(self) -> list[Path]:
        return [self.root / "torch/include", self.root / "torch/include/torch/csrc/api/include"]

    @property
    def lib(self) -> Path:
        return self.root / "torch/lib"

    @property
    def runtime_libs(self) -> list[Path]:
        return sorted(p for p in (self.root / "nvidia").glob("*/lib") if p.is_dir())

    def cxx_flags(self) -> list[str]:
        """The flags every TU linked with this libtorch needs, as the release itself says.

        ``TORCH_CXX_FLAGS`` of its ``TorchConfig.cmake`` gives the string ABI;
        the exported ``DispatchStubImpl::get_call_ptr`` shows which CPU
        capabilities the release was built with (each adds a parameter, and
        the ported ``DispatchStub.h`` must declare the same function).
        """
        return _abi_flags(self.root) + _capability_flags(self.lib / "libtorch_cpu.so")


def release(tree: Path) -> str:
    """The release a PyTorch tree is (``version.txt``: ``2.6.0a0`` → ``2.6.0``)."""
    path = tree / "version.txt"
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError as err:
        raise LoadError(f"{path}: cannot read the tree's version ({err.strerror})") from err
    match = re.match(r"^(\d+\.\d+\.\d+)", text)
    if not match:
        raise LoadError(f"{path}:1: not a PyTorch version: {text[:40]!r}")
    return match.group(1)


def cached(version: str, cache: Path | None = None) -> Libtorch | None:
    """The libtorch of ``version`` if its torch environment was fetched, else None."""
    env = torchenv.cached(version, cache)
    return Libtorch(version, env.site_packages) if env is not None else None


def fetched(cache: Path | None = None) -> list[Path]:
    """Every release whose torch environment a fetch completed, by folder (for ``musaport doctor``)."""
    return torchenv.fetched(cache)


def given(folder: Path, version: str) -> Libtorch:
    """A libtorch the user points at (an installed ``torch`` package's folder, or an unpacked wheel)."""
    root = folder.parent if (folder / "include").is_dir() and (folder / "lib").is_dir() else folder
    found = _version_of(root / "torch")
    if not (root / "torch/lib/libtorch_cpu.so").is_file():
        raise LoadError(f"{folder}: no torch/lib/libtorch_cpu.so: not a torch package or unpacked wheel")
    if found and found != version:
        raise LoadError(f"{folder}: libtorch {found} does not match the ported tree's release {version}")
    return Libtorch(version, root)


def _version_of(torch_dir: Path) -> str:
    """``torch/version.py``'s ``__version__`` without importing torch (``2.6.0+cpu`` → ``2.6.0``)."""
    try:
        text = (torch_dir / "version.py").read_text(encoding="utf-8")
    except OSError:
        return ""
    match = re.search(r"__version__\s*=\s*['\"](\d+\.\d+\.\d+)", text)
    return match.group(1) if match else ""


def fetch(version: str, cache: Path | None = None, log=print) -> Libtorch:
    """The libtorch of the release's torch environment, fetched once (see :mod:`torchenv`); a pip
    failure is a :class:`torchenv.FetchError`."""
    env = torchenv.fetch(version, cache, log)
    return Libtorch(version, env.site_packages)


def _abi_flags(root: Path) -> list[str]:
    config = root / "torch/share/cmake/Torch/TorchConfig.cmake"
    try:
        text = config.read_text(encoding="utf-8")
    except OSError:
        return ["-D_GLIBCXX_USE_CXX11_ABI=0"]  # a torch without its CMake files: the wheels' default
    match = re.search(r'set\(TORCH_CXX_FLAGS\s+"([^"]*)"\)', text)
    return match.group(1).split() if match else []


# DispatchStubImpl::get_call_ptr(DeviceType, void* DEFAULT, [void* AVX512], [void* AVX2]) on x86-64.
_GET_CALL_PTR = re.compile(r"_ZN2at6native16DispatchStubImpl12get_call_ptrEN3c1010DeviceTypeE(\w*)")
_CAPABILITIES = {1: [], 3: ["-DHAVE_AVX512_CPU_DEFINITION", "-DHAVE_AVX2_CPU_DEFINITION"]}


def capability_flags(dynsyms: str) -> list[str]:
    """The ``HAVE_*_CPU_DEFINITION`` macros matching the exported ``get_call_ptr`` (``readelf --dyn-syms``)."""
    match = _GET_CALL_PTR.search(dynsyms)
    if match is None:
        raise LoadError("libtorch_cpu.so does not export DispatchStubImpl::get_call_ptr: not a libtorch")
    pointers = len(re.findall(r"Pv|S\d*_", match.group(1)))
    if pointers not in _CAPABILITIES:
        raise LoadError(f"libtorch_cpu.so: get_call_ptr takes {pointers} kernel pointers, a layout musaport does not know")
    return _CAPABILITIES[pointers]


def _capability_flags(lib: Path) -> list[str]:
    """:func:`capability_flags` of ``lib``, remembered beside it (readelf takes seconds on 440 MB)."""
    memo = lib.with_name(".capabilities")
    if memo.is_file() and memo.stat().st_mtime >= lib.stat().st_mtime:
        return memo.read_text(encoding="utf-8").split()
    done = children.run(["readelf", "--dyn-syms", "-W", str(lib)], cwd=lib.parent)
    if done.returncode != 0:
        raise ToolError(f"readelf: {lib}: failed: {done.stderr.strip()[:200]}")
    flags = capability_flags(done.stdout)
    try:
        memo.write_text(" ".join(flags), encoding="utf-8")
    except OSError:
        pass  # a read-only install: compute it again next time
    return flags
