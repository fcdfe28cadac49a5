"""Child processes that die with musaport and never write into the source tree.

Every child process musaport starts (the tree's torchgen, compilers, pip,
readelf, c++filt, doctor's probes) is started here, so three promises hold
in one place:

- a child dies with its parent: on Linux the kernel sends it SIGKILL when
  musaport dies (``PR_SET_PDEATHSIG``), so a killed run leaves no process
  blocked on a pipe;
- Python children run isolated and write no bytecode (``-I -B``), so the
  tree's ``torchgen`` gets no ``__pycache__``;
- the working directory is always given, never inherited, so a relative path
  inside a child cannot land in the source tree.
"""

from __future__ import annotations

import ctypes
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Sequence

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Ask the kernel to kill this process when its parent dies (Linux; elsewhere a no-op).

    A forked worker also gets SIGTERM's default back: the parent's handler
    (``errors.handle_sigterm``) is for the parent, which cleans up for all of them.
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def python(*args: str) -> list[str]:
    """The command line of an isolated Python child that writes no bytecode."""
    return [sys.executable, "-I", "-B", *args]


def popen(cmd: Sequence[str], cwd: Path, **kwargs: Any) -> subprocess.Popen[str]:
    """Start ``cmd`` in ``cwd``; it dies with this process."""
    return subprocess.Popen(list(cmd), cwd=cwd, preexec_fn=die_with_parent, text=True, **kwargs)


def run(cmd: Sequence[str], cwd: Path, timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` in ``cwd`` to completion, output captured, no input; it dies with this process.

    A child that outlives ``timeout`` raises ``subprocess.TimeoutExpired``
    (``subprocess.run`` kills it first)."""
    return subprocess.run(list(cmd), cwd=cwd, preexec_fn=die_with_parent, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def scratch() -> Path:
    """A working directory for a child that reads and writes no file (``--version``, ``c++filt``)."""
    return Path(tempfile.gettempdir())
