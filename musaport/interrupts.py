"""SIGTERM handled as Ctrl-C is: the run unwinds, cleans up, and says so in one line.

Apart from ``children`` (which imports ``subprocess``) so that a warm run,
which installs the handler too, imports nothing heavy for it.
"""

from __future__ import annotations

import signal
from typing import Any

EXIT_TERMINATED = 128 + signal.SIGTERM  # what a shell reports for a process SIGTERM ended: 143


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread, so it unwinds like Ctrl-C: every cleanup an interruption
    runs (the staging folder, a half-written file, the lock) runs for it too."""


def _terminate(_signum: int, _frame: Any) -> None:
    raise Terminated


def handle_sigterm() -> None:
    """From now on SIGTERM in this process (forked workers reset it) raises :class:`Terminated`."""
    signal.signal(signal.SIGTERM, _terminate)
