"""A failed test's CPU twin: the same test in torch without the device, to tell the port's failures from the test's.

Some of PyTorch's tests fail under any harness but the one upstream CI uses
(``test_serialization.py`` expects its classes in ``__main__``, which pytest
does not give them), and some fail on torch's own CPU backend in this
release. Neither is a porting error, and a backend team should not chase
them. So the tests that failed on the device are run once more in torch
without the device loaded, as their CPU twins: a device-generic test under
its CPU name (``TestFooPRIVATEUSE1::test_bar_musa_float32`` becomes
``TestFooCPU::test_bar_cpu_float32``), any other test under its own. A test
whose twin fails with the same first error line (numbers and device names
aside) is counted apart, with that line; one whose twin passes, or fails
otherwise, stays the port's failure.

Pure functions from rows to rows; the pytest run is ``tests.on_cpu_too``'s.
"""

from __future__ import annotations

import re

from musaport.validate.opinfo.verdict import without_numbers

# The framework's class suffix for a PrivateUse1 device, and for the CPU.
_GENERIC_SUFFIX, _CPU_SUFFIX = "PRIVATEUSE1", "CPU"
# At most this many failures of one shard are rerun (a file that fails in thousands fails for the port).
MAX_TWINS = 300
# What the device's death lines say (tests.py writes them): such a test is not rerun.
_DEATHS = ("the process died", "the test ran past")


def twin(test: str, device: str) -> str:
    """The CPU twin's id of ``test`` (``::Class::name``, pytest's node id without the path): a
    device-generic class and test renamed for the CPU, any other test as it is."""
    parts = test.split("::")
    if len(parts) < 3 or not parts[-2].endswith(_GENERIC_SUFFIX):
        return test
    cls = parts[-2][: -len(_GENERIC_SUFFIX)] + _CPU_SUFFIX
    name = _rename_device(parts[-1], device)
    return "::".join([*parts[:-2], cls, name])


def _rename_device(name: str, device: str) -> str:
    """``test_bar_musa_float32`` → ``test_bar_cpu_float32``: the last ``_<device>`` word of the name."""
    matches = list(re.finditer(rf"_{re.escape(device)}(?=_|\[|$)", name))
    if not matches:
        return name
    m = matches[-1]
    return name[: m.start()] + "_cpu" + name[m.end():]


def eligible(rows: list[dict]) -> list[dict]:
    """The failed rows worth a twin, in id order: not a CUDA branch (already counted apart), not a death
    (a kernel that crashed or hung is the device's)."""
    chosen = [r for r in rows if r.get("outcome") == "failed" and not r.get("cuda_branch") and not r.get("died")
              and not str(r.get("first", "")).startswith(_DEATHS)]
    return sorted(chosen, key=lambda r: str(r.get("test", "")))


def candidates(rows: list[dict]) -> list[dict]:
    """The first :data:`MAX_TWINS` of :func:`eligible`."""
    return eligible(rows)[:MAX_TWINS]


def same_failure(ours: str, theirs: str, device: str) -> bool:
    """Whether two first error lines say the same, numbers and device names aside."""
    return bool(ours) and _plain(ours, device) == _plain(theirs, device)


def _plain(line: str, device: str) -> str:
    return without_numbers(re.sub(rf"\b(?:{re.escape(device)}|cpu)(?::\d+)?\b", "DEVICE", line, flags=re.I))


def mark(rows: list[dict], twins: dict[str, dict], device: str) -> list[dict]:
    """``rows`` with each failed test whose twin (``twins``: twin id → its outcome row) failed the same way
    marked ``cpu_too`` (the twin's id)."""
    marked = []
    for row in rows:
        if row.get("outcome") == "failed" and not row.get("cuda_branch"):
            other = twins.get(twin(str(row.get("test", "")), device))
            if other and other.get("outcome") == "failed" and same_failure(
                    str(row.get("first", "")), str(other.get("first", "")), device):
                row = dict(row, cpu_too=twin(str(row["test"]), device))
        marked.append(row)
    return marked
