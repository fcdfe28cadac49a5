"""How ``validate --opinfo`` looks: progress on the long phases and the terminal summary.

On a terminal each phase (the OpInfo jobs, the test files) draws a bar;
elsewhere (CI logs, pipes) it prints a phase line at each tenth of the work,
so a log shows progress without a line per job.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from musaport.validate.opinfo.verdict import STATUSES

_STYLE = {"pass": "green", "fail": "red", "error": "red", "crash": "magenta", "skip": "yellow"}
_PHASES = {"opinfo": "OpInfo entry-dtype runs", "tests": "PyTorch test files"}


def phase_name(phase: str) -> str:
    """What a phase is called: ``tests:test_ops.py`` is that file's tests."""
    if phase.startswith("tests:"):
        return f"{phase[len('tests:'):]} tests"
    return _PHASES.get(phase, phase)


class PhaseLines:
    """``phase: done/total (what)`` at the start, at each tenth and at the end of a phase."""

    def __init__(self, echo) -> None:
        self.echo = echo
        self.marks: dict[str, int] = {}
        self.last: dict[str, tuple[int, int]] = {}

    def __call__(self, phase: str, done: int, total: int, what: str) -> None:
        if total <= 0 or self.last.get(phase) == (done, total):
            return  # nothing to count yet (a file still collecting), or a poll that found nothing new
        self.last[phase] = (done, total)
        tenth = (10 * done) // total
        if self.marks.get(phase) == tenth and done not in (0, total):
            return
        self.marks[phase] = tenth
        self.echo(f"{phase_name(phase)}: {done}/{total} ({what})")


@contextmanager
def progress_display(console, echo) -> Iterator:
    """A progress callback: rich bars on a terminal, phase lines elsewhere."""
    if not console.is_terminal:
        yield PhaseLines(echo)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.fields[what]}"))
    with Progress(*columns, console=console, transient=True) as bar:
        tasks: dict[str, int] = {}

        def update(phase: str, done: int, total: int, what: str) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase_name(phase), total=total, what="")
            bar.update(tasks[phase], completed=done, total=total, what=what[:50])

        yield update


def summary(doc: dict, console) -> None:
    """Counts by status, the causes that take most entries, the test files (the closing line is the CLI's)."""
    from rich.table import Table

    s = doc["summary"]
    table = Table(title=f"validate --opinfo: PyTorch {doc['torch_version']} on '{doc['device']}'",
                  title_justify="left")
    for status in ("entries", *STATUSES):
        table.add_column(status, justify="right")
    table.add_row(str(s["entries"]), *(f"[{_STYLE[st]}]{s[st]}[/{_STYLE[st]}]" for st in STATUSES))
    console.print(table)
    if doc["causes"]:
        causes = Table("entries", "kind", "cause", "ported files", title="failures by cause (most entries first)",
                       title_justify="left")
        for c in doc["causes"][:10]:
            causes.add_row(str(len(c["entries"])), c["kind"], c["summary"][:70], ", ".join(c["files"][:2])[:60])
        console.print(causes)
        if len(doc["causes"]) > 10:
            console.print(f"... and {len(doc['causes']) - 10} more causes in the report")
    if doc["test_files"]:
        files = Table("test file", "passed", "failed", "CUDA branch", "CPU too", "skipped", "errors", "most failures",
                      "note", title_justify="left")
        for name, f in doc["test_files"].items():
            top = (f.get("causes") or [None])[0]
            files.add_row(name, *(str(f.get(k, 0)) for k in ("passed", "failed", "cuda_branch", "cpu_too", "skipped",
                                                              "errors")),
                          f"{top['tests']}: {top['error'][:60]}" if top else "",
                          ("timeout; " if f.get("timeout") else "") + f.get("note", "")[:50])
        console.print(files)
