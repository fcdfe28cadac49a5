"""The release's own torch wheel in a Python environment of its own, fetched once into the user cache.

``validate --backend`` links the port against that wheel's ``libtorch_cpu.so``
and headers; ``validate --opinfo`` loads the built backend into that same
torch as the ``musa`` device and runs PyTorch's own tests there.  One
download serves both: ``pip install torch==<release>`` with the wheel's own
pinned dependencies (the NVIDIA runtime wheels ``libtorch_cpu.so`` and
``libtorch_cuda.so`` are linked against; no GPU is touched, ``import torch``
works on a CPU-only machine), plus what PyTorch's test files import
(``expecttest``, ``hypothesis``, ``numpy``, ``pytest``, and ``setuptools``, which
``torch.utils.cpp_extension`` imports: torch's wheel pulls it in only on
Python 3.12+, yet ``common_utils`` imports that module on every Python),
and ``pytest-forked`` and ``pytest-timeout``, which run each of those tests
in a process of its own with a timeout.

Layout: ``<user cache>/torch/<release>/`` is a virtual environment; its
``bin/python`` runs torch; its site-packages holds ``torch/`` and
``nvidia/``, which is exactly what :class:`~musaport.validate.torchwheel.libtorch.Libtorch`
reads.  The environment is made in a staging folder beside it and renamed
into place only when pip succeeded and ``import torch`` answered the release,
so an interrupted fetch leaves nothing a later run would take for complete
(the next fetch removes the stale staging folder).  Programs are always run
as ``bin/python -m ...``: the console scripts' ``#!`` lines name the staging
folder and are never used.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from musaport import children
from musaport.errors import ToolError
from musaport.outdir import write_atomic
from musaport.resources import user_cache

# What PyTorch's device-generic test files import besides torch (test_ops.py, common_utils.py; common_utils
# imports torch.utils.cpp_extension, which imports setuptools), and the pytest plugins that run each test in
# a process of its own with a timeout (validate --opinfo --pytorch-tests). pytest stays below 9: pytest-forked
# 1.7.5 cannot send pytest 9's reports (their NodeId) back from the forked process.
# What PyTorch's own tests import beside torch. SciPy gives OpInfo entries their references (special
# functions: without it `op.ref` is None, and test_unary_ufuncs' reference tests fail on every device).
TEST_PACKAGES = ("expecttest", "hypothesis", "numpy", "pytest>=8,<9", "setuptools", "pytest-forked", "pytest-timeout",
                 "scipy")
_DONE = ".complete"


class FetchError(ToolError):
    """The environment could not be made (pip or the interpreter failed): a tool failure, exit 1."""


@dataclass(frozen=True)
class TorchEnv:
    """One release's torch environment."""

    version: str
    root: Path

    @property
    def python(self) -> Path:
        return self.root / "bin" / "python"

    @property
    def site_packages(self) -> Path:
        """The folder holding ``torch/`` and ``nvidia/`` (read from the marker the fetch wrote)."""
        return self.root / (self.root / _DONE).read_text(encoding="utf-8").split("\n")[1]


def base(cache: Path | None = None) -> Path:
    return (cache or user_cache()) / "torch"


def cached(version: str, cache: Path | None = None) -> TorchEnv | None:
    """The environment of ``version`` if a fetch completed, else None."""
    root = base(cache) / version
    return TorchEnv(version, root) if (root / _DONE).is_file() else None


def fetched(cache: Path | None = None) -> list[Path]:
    """Every release whose environment a fetch completed, by folder."""
    return sorted(p.parent for p in base(cache).glob(f"*/{_DONE}"))


def fetch(version: str, cache: Path | None = None, log=print) -> TorchEnv:
    """Make (once) the environment of ``torch==version``; a completed one is reused, topped up with any
    test package it was made without (its marker lists what it holds)."""
    done = cached(version, cache)
    if done is not None:
        return _topped_up(done, log)
    folder = base(cache)
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob(f".{version}.*"):
        shutil.rmtree(stale, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{version}.", dir=folder))
    try:
        log(f"musaport: fetching torch=={version} with its pinned dependencies and {', '.join(TEST_PACKAGES)} "
            f"(about 3 GB, once) into {folder / version}")
        # No pip of its own (ensurepip takes half a minute): this interpreter's pip installs into it.
        _run([_base_python(), "-m", "venv", "--without-pip", str(staging)], "python -m venv", staging)
        python = staging / "bin" / "python"
        _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-input",
              "--only-binary=:all:", f"torch=={version}", *TEST_PACKAGES], f"pip install torch=={version}", staging)
        answer = _run([str(python), "-c", "import sys, sysconfig, torch; "
                       "print(torch.__version__); print(sysconfig.get_paths()['purelib'])"],
                      "import torch", staging).stdout.split("\n")
        if not answer[0].startswith(version):
            raise FetchError(f"import torch in {staging} answered {answer[0]!r}, not {version}")
        site = Path(answer[1]).relative_to(staging)
        _mark(staging, version, site.as_posix())
        target = folder / version
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return TorchEnv(version, folder / version)


def _mark(root: Path, version: str, site: str) -> None:
    """The completion marker: the release, site-packages (relative) and the test packages it holds."""
    write_atomic(root / _DONE, f"{version}\n{site}\n{' '.join(TEST_PACKAGES)}\n".encode())


def _topped_up(env: TorchEnv, log) -> TorchEnv:
    """``env`` with every one of TEST_PACKAGES installed (an environment made before one was added lacks it)."""
    lines = (env.root / _DONE).read_text(encoding="utf-8").split("\n")
    held = set(lines[2].split()) if len(lines) > 2 else set()
    missing = [name for name in TEST_PACKAGES if name not in held]
    if missing:
        log(f"musaport: installing {', '.join(missing)} into the torch environment {env.root}")
        _run([sys.executable, "-m", "pip", "--python", str(env.python), "install", "--quiet", "--no-input",
              "--only-binary=:all:", *missing], f"pip install {' '.join(missing)}", env.root)
        _mark(env.root, env.version, lines[1])
    return env


def _base_python() -> str:
    """The interpreter a new environment is made from: this one's base (a venv of a venv works too)."""
    return getattr(sys, "_base_executable", "") or sys.executable


def _run(cmd: list[str], what: str, cwd: Path):
    done = children.run(cmd, cwd=cwd)
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.strip().splitlines() if ln.strip()]
        last = next((ln for ln in reversed(lines) if "error" in ln.lower()), lines[-1] if lines else "")
        raise FetchError(f"{what} failed (exit {done.returncode}): {last.strip() or 'no message'}")
    return done
