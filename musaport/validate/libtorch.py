"""The real libtorch of the ported tree's release, fetched once into the user cache.

``validate --backend`` links the port against PyTorch's own ``libtorch_cpu.so``
and ``libc10.so``: evidence no one here wrote.  PyPI's ``torch`` wheel carries
them with the matching ``torch/include``; ``libtorch_cpu.so`` also needs the
CUDA runtime and CUPTI shared libraries to be present at link and load time
(no GPU is touched), which the wheel's own ``Requires-Dist`` pins name.  Only
those files are unpacked (about 500 MB of the 2 GB the wheels hold), under
``<user cache>/libtorch/<version>/``; the wheels themselves are deleted.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from musaport import children
from musaport.errors import LoadError, ToolError
from musaport.resources import user_cache

# Of each wheel, the members the backend build needs.
_TORCH_MEMBERS = re.compile(r"^torch/(include/.*|lib/lib(torch_cpu|torch|c10|gomp[^/]*)\.so[^/]*"
                            r"|version\.py|share/cmake/Torch/TorchConfig\.cmake)$")
_NVIDIA_MEMBERS = re.compile(r"^nvidia/[^/]+/lib/lib(cudart|cupti)\.so[^/]*$")
# The NVIDIA wheels libtorch_cpu.so is linked against (DT_NEEDED libcudart.so.N, libcupti.so.N).
_NVIDIA_WHEELS = ("nvidia-cuda-runtime-", "nvidia-cuda-cupti-")
_DONE = ".complete"


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
    """The libtorch of ``version`` if a previous fetch completed, else None."""
    root = (cache or user_cache()) / "libtorch" / version
    return Libtorch(version, root) if (root / _DONE).is_file() else None


def fetched(cache: Path | None = None) -> list[Path]:
    """Every release a previous fetch completed, by folder (for ``musaport doctor``)."""
    return sorted(p.parent for p in ((cache or user_cache()) / "libtorch").glob(f"*/{_DONE}"))


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
    """Download ``torch==version`` and its CUDA runtime wheels with pip, unpack what the build needs.

    Idempotent and atomic: a completed fetch is reused; a failed or interrupted
    one leaves nothing behind but a temporary folder that the next fetch removes.
    """
    done = cached(version, cache)
    if done is not None:
        return done
    base = (cache or user_cache()) / "libtorch"
    base.mkdir(parents=True, exist_ok=True)
    for stale in base.glob(f".{version}.*"):
        shutil.rmtree(stale, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{version}.", dir=base))
    try:
        log(f"musaport: fetching torch=={version} (about 800 MB, once) into {base}")
        torch_wheel = _download([f"torch=={version}"], staging / "wheels")[0]
        _unpack(torch_wheel, staging, _TORCH_MEMBERS)
        pins = runtime_pins(_metadata(torch_wheel))
        for wheel in _download(pins, staging / "wheels") if pins else []:
            _unpack(wheel, staging, _NVIDIA_MEMBERS)
        shutil.rmtree(staging / "wheels")
        (staging / _DONE).write_text(version + "\n")
        target = base / version
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return Libtorch(version, base / version)


def runtime_pins(metadata: str) -> list[str]:
    """The ``Requires-Dist`` pins of the CUDA runtime and CUPTI wheels (``nvidia-cuda-runtime-cu12==12.4.127``)."""
    pins = []
    for line in metadata.splitlines():
        match = re.match(r"^Requires-Dist:\s*([A-Za-z0-9_.-]+)\s*\(?\s*==\s*([^\s;)]+)", line)
        if match and match.group(1).startswith(_NVIDIA_WHEELS):
            pins.append(f"{match.group(1)}=={match.group(2)}")
    return sorted(set(pins))


def _download(requirements: list[str], dest: Path) -> list[Path]:
    """``pip download --no-deps`` into ``dest``; the wheels it saved, in order of the requirements."""
    dest.mkdir(parents=True, exist_ok=True)
    before = set(dest.glob("*.whl"))
    done = children.run(children.python("-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                                         "--quiet", "-d", str(dest), *requirements), cwd=dest)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["pip failed without a message"])[-1]
        raise ToolError(f"pip download {' '.join(requirements)}: {last}")
    return sorted(set(dest.glob("*.whl")) - before)


def _metadata(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        return z.read(name).decode("utf-8", "replace")


def _unpack(wheel: Path, dest: Path, members: re.Pattern[str]) -> None:
    with zipfile.ZipFile(wheel) as z:
        z.extractall(dest, [n for n in z.namelist() if members.match(n)])


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
