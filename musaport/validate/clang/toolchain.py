"""The clang that ``validate --compile`` runs, found the same way on every machine.

The default is the clang inside the ``ziglang`` wheel, which the README's
install command brings into the virtual environment: no root and no system
clang needed, and one compiler version wherever the tool runs, so verdicts
and their cache do not depend on what a machine happens to have on PATH.
``MUSAPORT_CLANG`` names another clang instead (``MUSAPORT_CLANG=clang++-16``
for Debian's); the default never looks at PATH for one.

The wheel's clang is a bare driver: its default target is musl, its resource
folder is not where the driver looks for it, and it ships neither glibc's
nor libstdc++'s headers nor clang's CUDA wrappers of ``<new>``/``<algorithm>``/
``<cmath>``/``<complex>``.  So the host target is named (x86_64-linux-gnu),
the resource folder is given, the system's C++ and C headers are the ones g++
searches (asked from g++ itself, in its order), and the shim's own
``cuda_wrappers`` stand in for clang's (see ``musaport/shim/wrappers``).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import platform
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from musaport import children
from musaport.errors import LoadError
from musaport.resources import shim_wrappers

ENV = "MUSAPORT_CLANG"
DEFAULT = "ziglang"
INSTALL = "python3 -m pip install ziglang"
TIMEOUT = 30


@dataclass(frozen=True)
class Toolchain:
    """A clang driver: ``argv`` starts a compile, ``flags`` come before the caller's."""

    name: str
    version: str
    argv: tuple[str, ...]
    flags: tuple[str, ...] = ()

    @property
    def identity(self) -> str:
        """What decides a verdict besides the sources (part of validate's cache key)."""
        return " ".join([self.version, *self.argv, *self.flags])


def requested() -> str:
    """The toolchain asked for: ``ziglang`` (the default) or the clang that ``MUSAPORT_CLANG`` names."""
    return os.environ.get(ENV, "").strip() or DEFAULT


def find() -> Toolchain:
    """The toolchain to use, or a LoadError that says how to install it."""
    name = requested()
    return _ziglang() if name == DEFAULT else _system(name)


def zig_executable() -> Path | None:
    """The ``zig`` program inside the installed ziglang wheel (found without importing it, which runs zig)."""
    try:
        spec = importlib.util.find_spec("ziglang")
    except (ImportError, ValueError):
        return None
    zig = Path(spec.origin).parent / "zig" if spec is not None and spec.origin else None
    return zig if zig is not None and os.access(zig, os.X_OK) else None


def missing_line() -> str:
    """Why the requested toolchain cannot be used and how to get it (doctor's and validate's wording)."""
    name = requested()
    if name == DEFAULT:
        return (f"the ziglang wheel's clang, which is not installed ({INSTALL}; "
                f"or set {ENV}=clang++-16 to use a system clang)")
    return f"{ENV}={name}, which is not on PATH (unset {ENV} to use the ziglang wheel's clang)"


@functools.lru_cache(maxsize=None)
def _ziglang() -> Toolchain:
    zig = zig_executable()
    if zig is None:
        raise LoadError(f"validate --compile needs {missing_line()}")
    found = version([str(zig), "clang"])
    machine = platform.machine()
    flags = ("-target", f"{machine}-linux-gnu", "-resource-dir", str(zig.parent / "lib"),
             "-nostdlibinc", "-isystem", str(shim_wrappers()), *gxx_include_flags())
    return Toolchain("ziglang", found, (str(zig), "clang"), flags)


@functools.lru_cache(maxsize=None)
def _system(name: str) -> Toolchain:
    path = shutil.which(name)
    if path is None:
        raise LoadError(f"validate --compile needs {missing_line()}")
    return Toolchain(name, version([path]), (path,))


def version(argv: list[str]) -> str:
    """The first line of ``--version`` ("clang version 22.1.8")."""
    try:
        done = children.run([*argv, "--version"], children.scratch(), timeout=TIMEOUT)
    except (OSError, subprocess.SubprocessError) as err:
        raise LoadError(f"{argv[0]}: cannot run it: {err}") from err
    first = (done.stdout.strip().splitlines() or [""])[0].strip()
    if done.returncode != 0 or "clang" not in first:
        raise LoadError(f"{' '.join(argv)} --version did not report a clang: {first or done.stderr.strip()}")
    return first


@functools.lru_cache(maxsize=None)
def gxx_include_flags() -> tuple[str, ...]:
    """The system's C++ and C header folders, as g++ searches them, for a clang that has none of its own.

    g++'s own builtin folder (``stddef.h``...) is left out: clang's resource folder holds clang's. The
    C++ folders come first (``-isystem``); the C folders after clang's builtins (``-idirafter``), which
    is the order a system clang uses, so ``#include_next`` in either goes where it expects.
    """
    gxx = shutil.which("g++")
    if gxx is None:
        raise LoadError("validate --compile needs g++ for the system's C++ headers (apt-get install -y g++)")
    try:
        done = children.run([gxx, "-E", "-x", "c++", "/dev/null", "-v"], children.scratch(), timeout=TIMEOUT)
        builtin = children.run([gxx, "-print-file-name=include"], children.scratch(), timeout=TIMEOUT).stdout.strip()
    except (OSError, subprocess.SubprocessError) as err:
        raise LoadError(f"{gxx}: cannot ask it for its include folders: {err}") from err
    dirs = _search_list(done.stderr)
    if not dirs:
        raise LoadError(f"{gxx} -v printed no include search list")
    builtin_dir = os.path.realpath(builtin) if builtin else ""
    at = next((i for i, d in enumerate(dirs) if os.path.realpath(d) == builtin_dir), None)
    cxx, c = (dirs, []) if at is None else (dirs[:at], dirs[at + 1:])
    if at is None:  # no builtin folder named: the C++ library's folders are the ones with c++ in the path
        cxx, c = [d for d in dirs if "c++" in d], [d for d in dirs if "c++" not in d]
    return tuple(f for d in cxx for f in ("-isystem", d)) + tuple(f for d in c for f in ("-idirafter", d))


def _search_list(stderr: str) -> list[str]:
    """The folders between ``#include <...> search starts here:`` and ``End of search list.``."""
    lines = stderr.splitlines()
    try:
        start = lines.index("#include <...> search starts here:") + 1
        end = lines.index("End of search list.", start)
    except ValueError:
        return []
    return [os.path.normpath(line.strip().split(" (")[0]) for line in lines[start:end] if line.strip()]
