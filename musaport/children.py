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
import functools
import os
import resource
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Sequence

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int | None = None) -> None:
    """Ask the kernel to kill this process when its parent dies (Linux; elsewhere a no-op).

    ``parent`` is the pid of the process that forked this one: a parent killed
    between the fork and the ``prctl`` call sends no signal, so a child that
    finds another parent by then ends itself (on a loaded machine that window
    is wide enough for ``kill -9`` to hit it).  A forked worker also gets
    SIGTERM's default back: the parent's handler (``errors.handle_sigterm``) is
    for the parent, which cleans up for all of them.
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if parent is not None and os.getppid() != parent:
        os._exit(1)


def tied_to_this_process() -> Callable[[], None]:
    """The ``preexec_fn`` or pool ``initializer`` that ties a child to this process (see ``die_with_parent``)."""
    return functools.partial(die_with_parent, os.getpid())


def _tied_and_bounded(parent: int, limit: int) -> None:
    """Tie the child to ``parent`` (``die_with_parent``) and bound its address space at ``limit`` bytes (or the
    lower bound it inherited), so that a child that asks for more fails its allocation instead of driving the
    machine into the kernel's OOM killer."""
    die_with_parent(parent)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    bound = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    if soft == resource.RLIM_INFINITY or soft > bound:
        resource.setrlimit(resource.RLIMIT_AS, (bound, hard))


def tied_and_bounded(limit: int) -> Callable[[], None]:
    """The ``preexec_fn`` of a child tied to this process whose address space is at most ``limit`` bytes."""
    return functools.partial(_tied_and_bounded, os.getpid(), limit)


def python(*args: str) -> list[str]:
    """The command line of an isolated Python child that writes no bytecode."""
    return [sys.executable, "-I", "-B", *args]


def popen(cmd: Sequence[str], cwd: Path, **kwargs: Any) -> subprocess.Popen[str]:
    """Start ``cmd`` in ``cwd``; it dies with this process."""
    return subprocess.Popen(list(cmd), cwd=cwd, preexec_fn=tied_to_this_process(), text=True, **kwargs)


def run(cmd: Sequence[str], cwd: Path, timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` in ``cwd`` to completion, output captured, no input; it dies with this process.

    A child that outlives ``timeout`` raises ``subprocess.TimeoutExpired``
    (``subprocess.run`` kills it first)."""
    return subprocess.run(list(cmd), cwd=cwd, preexec_fn=tied_to_this_process(), capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def scratch() -> Path:
    """A working directory for a child that reads and writes no file (``--version``, ``c++filt``)."""
    return Path(tempfile.gettempdir())


def signal_name(number: int) -> str:
    """A signal's name (``SIGKILL``) for a child that a signal ended, or ``signal N`` for one Python does not know."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
