"""The errors a user sees as one line, and the exit codes every command shares.

Errors come in two kinds, as black's ``InvalidInput`` and ``CannotTransform``:

- a ``LoadError`` is bad input (a data file, a path, an option): its message
  names the file and, where there is one, the line.  Exit ``EXIT_USAGE`` (2).
- a ``ToolError`` is a tool that failed on good input (the compiler, the
  linker, pip, the tree's torchgen, a port ``check`` made): its message names
  the tool.  Exit ``EXIT_FAILED`` (1).

The command group (``cli._Commands``) prints either as one ``musaport:
error:`` line; no command catches them itself.
"""

from __future__ import annotations

import signal
from enum import Enum
from typing import Any

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class LoadError(Exception):
    """An input that cannot be used; the message names file and line."""


class ToolError(Exception):
    """A tool that failed on input musaport accepted; the message names the tool."""


EXIT_TERMINATED = 128 + signal.SIGTERM  # what a shell reports for a process SIGTERM ended: 143


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread, so it unwinds like Ctrl-C: every cleanup an interruption
    runs (the staging folder, a half-written file, the lock) runs for it too.  The command group
    prints one line and exits ``EXIT_TERMINATED``."""


def _terminate(_signum: int, _frame: Any) -> None:
    raise Terminated


def handle_sigterm() -> None:
    """From now on SIGTERM in this process raises :class:`Terminated` (forked workers reset it, see
    ``children.die_with_parent``)."""
    signal.signal(signal.SIGTERM, _terminate)


class Outcome(str, Enum):
    """The base of every outcome enum (``FileStatus``, ``OpKind``, ``Status``): a member is the word the
    reports and caches have always used, as text, in f-strings and in JSON, on every Python (3.12
    changed how ``str`` enums format)."""

    __str__ = str.__str__
    __format__ = str.__format__
