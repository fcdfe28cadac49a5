"""Port many files across processes; results come back in input order.

libclang and the regex engine hold the GIL, so parallelism means processes.
Workers are forked after the rule set is loaded, so they inherit it instead
of re-parsing YAML, and each keeps one libclang translation unit for reuse.
Small batches run in-process: a pool costs more than it saves there.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
import threading
from contextlib import contextmanager
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from musaport.fstree import make_dirs
from musaport.children import tied_to_this_process
from musaport.cpp.parser import decode, encode
from musaport.port.cmake_headers import render
from musaport.port.file import FileResult, Observer, Task, copy_bytes, failed, port_bytes
from musaport.rewrite.apply import RuleTimeout
from musaport.rewrite.rules import RuleSet
from musaport.cpp.tokens import Tokens, lex_many

_MIN_PER_WORKER = 24
_BATCH = 64
# The CPU time one file may take to port.  PyTorch's slowest file takes well under a second; a
# user's pattern that backtracks catastrophically (``(a+)+$``) would take forever, so the file fails,
# naming the rule, and the run goes on to fail as a whole (exit 1, the output left as it was).
FILE_SECONDS_ENV = "MUSAPORT_FILE_SECONDS"
FILE_SECONDS = 60.0
# A bound this long or longer (``inf`` among them) is no bound: the CPU timer cannot hold it
# (``setitimer`` overflows near 1e10 s), and no run lasts 11 days.
UNBOUNDED_SECONDS = 1e6


@dataclass(frozen=True)
class Context:
    """What every worker needs: the rules, the vocabulary, and where outputs go.

    Workers stage changed outputs themselves (``stage`` folder, mirroring
    ``tree``), so output bytes never travel back to the parent process.
    """

    rules: RuleSet
    vocabulary: frozenset[str]
    tree: Path | None = None
    stage: Path | None = None
    observe: Observer | None = None
    # Ports the files it knows in place of the C++ port (None for the others): an extension's Python. Its
    # third argument ports C++ text with these rules (the C++ an extension's Python holds in strings).
    porter: Callable[[Task, bytes, Callable[[bytes, str], FileResult]], FileResult | None] | None = None


_CONTEXT: Context | None = None


def run_batch(tasks: list[Task]) -> list[FileResult]:
    """Read and port a batch of files, lexing them with one libclang reparse."""
    assert _CONTEXT is not None
    loaded: list[tuple[Task, bytes]] = []
    results: dict[str, FileResult] = {}
    for task in tasks:
        try:
            data = task.path.read_bytes()
        except OSError as exc:
            results[task.src] = failed(task.src, task.out, f"cannot read: {exc.strerror or exc}")
            continue
        if task.copy_only:
            results[task.src] = copy_bytes(data, task.src, task.out)
        elif _CONTEXT.porter is not None and (other := _port_other(task, data)) is not None:
            results[task.src] = other
        elif task.values is not None:
            loaded.append((task, encode(render(decode(data), dict(task.values)))))
        else:
            loaded.append((task, data))
    for (task, data), tokens in zip(loaded, _lex([d for _, d in loaded])):
        results[task.src] = _port_one(task, data, tokens)
    return [_staged(results[t.src]) for t in tasks]


def _staged(result: FileResult) -> FileResult:
    """Write a changed output into the staging folder; drop the bytes from the result."""
    assert _CONTEXT is not None
    if _CONTEXT.stage is None or result.data is None:
        return result
    staged = False
    try:
        current = (_CONTEXT.tree / result.out).read_bytes() if _CONTEXT.tree else None
    except OSError:
        current = None
    if current != result.data:
        path = _CONTEXT.stage / result.out
        make_dirs(path.parent)
        path.write_bytes(result.data)
        staged = True
    return replace(result, data=None, staged=staged)


def _lex(datas: list[bytes]) -> list[Tokens | None]:
    """Tokens for each file; if the batch fails, each file is lexed on its own later."""
    try:
        return list(lex_many(datas))
    except Exception:  # noqa: BLE001 - fall back to per-file lexing and errors
        return [None] * len(datas)


def _port_one(task: Task, data: bytes, tokens: Tokens | None) -> FileResult:
    assert _CONTEXT is not None
    seconds = _file_seconds()
    try:
        with _time_bound(seconds):
            return port_bytes(data, task.src, task.out, _CONTEXT.rules, _CONTEXT.vocabulary, tokens,
                              _CONTEXT.observe)
    except RuleTimeout as exc:
        return failed(task.src, task.out, f"took over {seconds:g} s of CPU to port: {exc}")
    except TimeoutError:
        return failed(task.src, task.out, f"took over {seconds:g} s of CPU to port (not in a rule)")
    except Exception as exc:  # a per-file outcome, not a crash of the run
        return failed(task.src, task.out, f"internal error while porting: {exc!r}")


def _port_other(task: Task, data: bytes) -> FileResult | None:
    """The context's porter on one file, bounded and contained like the C++ port."""
    assert _CONTEXT is not None and _CONTEXT.porter is not None
    seconds = _file_seconds()
    try:
        with _time_bound(seconds):
            return _CONTEXT.porter(task, data, _port_text)
    except TimeoutError:
        return failed(task.src, task.out, f"took over {seconds:g} s of CPU to port")
    except Exception as exc:  # a per-file outcome, not a crash of the run
        return failed(task.src, task.out, f"internal error while porting: {exc!r}")


def _port_text(data: bytes, name: str) -> FileResult:
    """C++ text that a file holds (``name``: the file it is compiled as) ported with the context's rules."""
    assert _CONTEXT is not None
    return port_bytes(data, name, name, _CONTEXT.rules, _CONTEXT.vocabulary)


def _file_seconds() -> float | None:
    """The bound ``MUSAPORT_FILE_SECONDS`` asks for (at least 0.1 s); None: unbounded (``inf``, or a
    value no timer can hold); the default for what is not a number (``nan`` included)."""
    try:
        seconds = float(os.environ.get(FILE_SECONDS_ENV, FILE_SECONDS))
    except ValueError:
        return FILE_SECONDS
    if math.isnan(seconds):
        return FILE_SECONDS
    return None if seconds >= UNBOUNDED_SECONDS else max(0.1, seconds)


def _expired(_signum, _frame) -> None:
    raise TimeoutError


@contextmanager
def _time_bound(seconds: float | None):
    """Raise TimeoutError in this block once it has used ``seconds`` of CPU time.

    A profiling timer (SIGPROF) counts this process's CPU time, so a loaded
    machine does not fail a slow-but-sound file; the regex engine checks for
    signals while it backtracks, so the handler interrupts even one match.
    Two system calls per file; off the main thread (no signals) nothing is bounded.
    """
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGPROF, _expired)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def port_all(
    tasks: list[Task], context: Context, jobs: int, progress: Callable[[FileResult], None] | None = None
) -> list[FileResult]:
    """Port ``tasks`` with up to ``jobs`` processes, preserving order."""
    global _CONTEXT
    _CONTEXT = context
    workers = max(1, min(jobs, len(tasks) // _MIN_PER_WORKER))
    batches = _batches(tasks, workers)
    out: list[FileResult] = []
    if workers == 1:
        for batch in batches:
            out.extend(_tick(r, progress) for r in run_batch(batch))
        return out
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                             initializer=tied_to_this_process()) as pool:
        for results in pool.map(run_batch, batches):
            out.extend(_tick(r, progress) for r in results)
    return out


def _batches(tasks: list[Task], workers: int) -> list[list[Task]]:
    """Batches small enough to balance the workers, large enough to amortise a reparse."""
    size = max(1, min(_BATCH, -(-len(tasks) // (workers * 4))))
    return [tasks[i : i + size] for i in range(0, len(tasks), size)]


def _tick(result: FileResult, progress: Callable[[FileResult], None] | None) -> FileResult:
    if progress is not None:
        progress(result)
    return result
