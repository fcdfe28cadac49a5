"""The verdicts of ``validate --opinfo``: pure functions over the child's answers (no torch, no I/O).

Statuses, worst last: ``skip`` (not run, with the reason), ``pass``, ``fail``
(the device's result differs from the CPU's beyond ``atol=rtol=1e-3``),
``error`` (the device raised, or gave no answer in time), ``crash`` (the
worker process died: a segfault, an abort). An operator's status is ``pass``
only when every dtype it ran passes; dtypes that did not run (``skip``) do
not count, and an operator none of whose dtypes ran is ``skip``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

STATUSES = ("skip", "pass", "fail", "error", "crash")
RUN = ("pass", "fail", "error", "crash")
_RANK = {s: i for i, s in enumerate(STATUSES)}


@dataclass(frozen=True)
class DtypeResult:
    """One OpInfo entry in one dtype: every reference sample on the device against the CPU."""

    dtype: str
    status: str
    samples: int = 0
    failed: int = 0
    reason: str = ""
    ops: tuple[str, ...] = ()  # the aten operators the device run dispatched
    failing_op: str = ""  # the aten operator an error left, when the child saw it
    seconds: float = 0.0
    rounding: int = 0  # samples that differ from the CPU but match its double-precision result
    paths: int = 0  # samples that differ from the CPU's vectorized result but match its element path
    reference: int = 0  # samples that differ from the CPU but match the entry's NumPy reference

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")


@dataclass(frozen=True)
class OpResult:
    """One OpInfo entry: its dtypes and the verdict over them."""

    key: str
    dtypes: tuple[DtypeResult, ...]
    note: str = ""  # why it did not run at all (no common dtype, no entry of that name)
    files: tuple[str, ...] = ()  # the ported files of the registered operators it dispatches
    operators: tuple[str, ...] = ()  # registered operators it dispatches (musa_functions.yaml names)
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def status(self) -> str:
        return op_status(self.dtypes)

    @property
    def reason(self) -> str:
        if self.note and not any(d.status in RUN for d in self.dtypes):
            return self.note
        return op_reason(self.dtypes)


def op_status(dtypes: tuple[DtypeResult, ...] | list[DtypeResult]) -> str:
    """``pass`` only when every dtype that ran passed; the worst status otherwise; ``skip`` when none ran."""
    ran = [d.status for d in dtypes if d.status in RUN]
    if not ran:
        return "skip"
    return max(ran, key=_RANK.__getitem__)


def op_reason(dtypes: tuple[DtypeResult, ...] | list[DtypeResult]) -> str:
    """The first reason of the worst status (``dtype: reason``); a skip's reason when nothing ran."""
    status = op_status(dtypes)
    for d in dtypes:
        if d.status == status and (d.reason or status != "pass"):
            return f"{d.dtype}: {d.reason}" if d.reason else d.dtype
    return ""


def from_child(answer: dict) -> DtypeResult:
    """A child's JSON answer as a result (unknown statuses are the child's bug: an error, said so)."""
    status = answer.get("status", "error")
    reason = str(answer.get("reason", ""))
    if status not in STATUSES:
        status, reason = "error", f"the worker answered an unknown status {status!r}"
    return DtypeResult(str(answer.get("dtype", "")), status, int(answer.get("samples", 0)),
                       int(answer.get("failed", 0)), reason, tuple(answer.get("ops", ())),
                       str(answer.get("failing_op", "")), float(answer.get("seconds", 0.0)),
                       int(answer.get("rounding", 0)), int(answer.get("paths", 0)),
                       int(answer.get("reference", 0)))


def exit_code(results: list[OpResult], test_files: dict[str, dict] | None = None) -> int:
    """0 when everything that ran passed (ops, and test files: no failure, error or timeout, and no failed test
    counted apart for its CUDA branch or for failing alike on the CPU), else 1.

    A run where nothing ran at all is 1: it proves nothing.
    """
    statuses = [r.status for r in results]
    files_ok = all(not f.get("failed") and not f.get("cuda_branch") and not f.get("cpu_too") and not f.get("errors")
                   and not f.get("timeout") and f.get("ran", True)
                   for f in (test_files or {}).values())
    ran_any = any(s in RUN for s in statuses) or bool(test_files)
    return 0 if ran_any and files_ok and all(s in ("pass", "skip") for s in statuses) else 1


_NUMBERS = re.compile(r"\b0x[0-9a-f]+\b|\d+(\.\d+)?(e[-+]?\d+)?", re.I)
_SAMPLE = re.compile(r"^sample \d+: ")
_MISSING = re.compile(r"Could not run '([\w:.]+)' with arguments from the '(\w+)' backend")


def error_kind(reason: str) -> str:
    """What a reason says, without the numbers that differ from sample to sample (grouping key)."""
    text = _SAMPLE.sub("", reason.split(": ", 1)[1] if re.match(r"^\w+: sample", reason) else reason)
    missing = _MISSING.search(text)
    if missing:
        return f"not registered: {missing.group(1)} on {missing.group(2)}"
    if "Tensor-likes are not close" in text or "Scalars are not close" in text or "not equal" in text:
        return "values differ from the CPU beyond atol=rtol=1e-3"
    if text.startswith("timeout"):
        return "timeout"
    if text.startswith("worker died"):
        return text.split(";", 1)[0]
    return without_numbers(text)


def without_numbers(text: str) -> str:
    """An error line without the numbers that vary (sizes, indices, values): what groups failures."""
    return _NUMBERS.sub("N", text)[:200]


def missing_operator(reason: str) -> str:
    """The aten operator a 'Could not run ... with arguments from the ... backend' reason names, or ''."""
    found = _MISSING.search(reason)
    return found.group(1) if found else ""
