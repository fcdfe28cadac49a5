"""Where output is read: the one place that makes rich consoles, and the progress of long phases.

On a terminal rich draws to the terminal's width. Elsewhere (a CI log,
``| less``, ``> file``) rich would assume 80 columns and cut table cells with
"…": a rule id or a path cut that way cannot be pasted back. So off a
terminal a console is as wide as what it prints (``COLUMNS`` still wins when
set) and never wraps a line; on a terminal, columns that hold something a
user copies fold instead of being cut (:func:`copyable`).

Long phases (torchgen's headers, the precompiled prelude, checking hundreds
of files, porting both trees of a bump) report through :func:`progress`: a
transient bar or spinner on a terminal, one ``musaport: ...`` line per phase
on stderr elsewhere, nothing with ``-q``. The library code calls
:func:`phase` and :func:`steps`, which do nothing until a command turns
progress on, so tests and other callers see no output they did not ask for.
"""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from rich.console import Console

# Off a terminal: wide enough for any line musaport prints (rich sizes a table to its content).
UNLIMITED = 1 << 16


def is_terminal(stderr: bool = False) -> bool:
    stream = sys.stderr if stderr else sys.stdout
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def console(stderr: bool = False) -> Console:
    """A rich console for stdout (or stderr): the terminal's width there, full width anywhere else."""
    from rich.console import Console

    if is_terminal(stderr) or os.environ.get("COLUMNS"):
        return Console(stderr=stderr)
    return Console(stderr=stderr, width=UNLIMITED, soft_wrap=True)


def copyable() -> dict:
    """Column options for text a user copies (ids, paths, commands): folded, never cut with "…"."""
    return {"overflow": "fold"}


class _Lines:
    """Off a terminal: one line per phase on stderr, and a count now and then for long step loops."""

    def __init__(self) -> None:
        self.start = time.monotonic()

    def say(self, text: str) -> None:
        print(f"musaport: {text}", file=sys.stderr, flush=True)

    @contextmanager
    def phase(self, text: str) -> Iterator[None]:
        self.say(f"{text} ...")
        yield

    @contextmanager
    def steps(self, text: str, total: int) -> Iterator[_Counter]:
        self.say(f"{text} ...")
        counter = _Counter(total, lambda done: self.say(f"{done} of {total} done"))
        yield counter


class _Counter:
    """Counts steps; reports at every tenth of the total (never more than 10 lines)."""

    def __init__(self, total: int, report) -> None:
        self.total, self.done, self.report = total, 0, report
        self.next = max(1, total // 10)

    def advance(self, n: int = 1) -> None:
        self.done += n
        if self.done >= self.next and self.done < self.total:
            self.report(self.done)
            self.next = self.done + max(1, self.total // 10)


class _Bar:
    """On a terminal: a transient spinner per phase, a bar for step loops (on stderr)."""

    def __init__(self) -> None:
        self.err = console(stderr=True)

    @contextmanager
    def phase(self, text: str) -> Iterator[None]:
        with self.err.status(text, spinner="dots"):
            yield

    @contextmanager
    def steps(self, text: str, total: int) -> Iterator[object]:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn(text), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=self.err,
                      transient=True) as bar:
            task = bar.add_task(text, total=total)

            class Advance:
                def advance(self, n: int = 1) -> None:
                    bar.advance(task, n)

            yield Advance()


class _Silent:
    @contextmanager
    def phase(self, text: str) -> Iterator[None]:
        yield

    @contextmanager
    def steps(self, text: str, total: int) -> Iterator[object]:
        yield _Counter(total, lambda done: None)


_reporter: _Lines | _Bar | _Silent = _Silent()


def progress(quiet: bool) -> None:
    """Turn progress on for this command: a bar on a terminal, phase lines elsewhere, nothing when quiet."""
    global _reporter
    _reporter = _Silent() if quiet else _Bar() if is_terminal(stderr=True) else _Lines()


def progress_on() -> bool:
    return not isinstance(_reporter, _Silent)


@contextmanager
def phase(text: str) -> Iterator[None]:
    """A phase that may take a while, said before it starts ("generating ATen/ops headers with torchgen")."""
    with _reporter.phase(text):
        yield


@contextmanager
def steps(text: str, total: int):
    """A loop of ``total`` steps; call ``.advance()`` on what this yields after each."""
    with _reporter.steps(text, total) as counter:
        yield counter
