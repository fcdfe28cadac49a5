"""The release's own C++ checks that admit CUDA and not a PrivateUse1 device, found by their messages.

Some tests fail on ``musa`` before any ported kernel runs: libtorch itself,
compiled into the release's wheel and never ported, checks the device type
and names CUDA (``TORCH_CHECK(values.device().type() == kCPU ||
values.device().type() == kCUDA || ..., "device type of values (", ...,
") must be CPU or CUDA or Meta")`` in 2.6.0's ``SparseCsrTensor.cpp``).
Every PrivateUse1 backend of that release meets the same check; neither a
rule nor an adapter of ours reaches it when libtorch calls it directly.
Such a failure is a CUDA branch, as a test's own ``device.type == "cuda"``
is, counted apart from the port's failures with the check's file and line.

The check is found in the release's source tree, not in a list of ours: every
``TORCH_CHECK`` of its non-CUDA C++ sources whose condition asks for CUDA
(``kCUDA``, ``DeviceType::CUDA``, ``is_cuda()``; not ``!x.is_cuda() || ...``,
which is strict only on CUDA), with the string
literals of its message.  A failure's first line matches a check when those
literals appear in it in order and hold at least ``MIN_TEXT`` characters
between them, so a short generic message matches nothing.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from musaport.cpp.text import matching
from musaport.extension.includes import blank

# The folders whose C++ libtorch is compiled from and the port does not port.
ROOTS = ("aten/src/ATen", "c10", "torch/csrc")
CUDA_PARTS = {"cuda", "cudnn", "miopen", "hip", "mps", "xpu", "mkldnn", "vulkan", "metal", "quantized"}
CUDA_TEST = re.compile(r"\bkCUDA\b|DeviceType::CUDA\b|\bis_cuda\(\)")
# A test that CUDA is *not* there (``!x.is_cuda() || ...``) is strict only on CUDA: it never refuses musa.
NOT_CUDA = re.compile(r"!\s*[\w.>()-]*?\bis_cuda\(\)|!=\s*(?:c10::)?(?:DeviceType::CUDA|kCUDA)\b"
                      r"|\b(?:DeviceType::CUDA|kCUDA)\s*!=")
MIN_TEXT = 24
_CHECK = re.compile(r"\bTORCH_CHECK\s*\(")
_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


@dataclass(frozen=True)
class Check:
    """One check: where it is (tree-relative file:line), its condition, its message's literals."""

    where: str
    condition: str
    literals: tuple[str, ...]

    def matches(self, message: str) -> bool:
        """Whether ``message`` is this check's message: its literals in it, in order."""
        at = 0
        for text in self.literals:
            found = message.find(text, at)
            if found < 0:
                return False
            at = found + len(text)
        return True


def _condition_end(code: str, start: int, close: int) -> int:
    """The first top-level comma of a call's arguments in a code view (strings blanked), else ``close``."""
    depth = 0
    for i in range(start, close):
        ch = code[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            return i
    return close


def checks_in(text: str, rel: str) -> list[Check]:
    """The CUDA-admitting checks of one source file, with enough message text to be told apart."""
    code = blank(text)  # comments and literals blanked, offsets kept: brackets in strings do not count
    found = []
    for m in _CHECK.finditer(code):
        close = matching(code, m.end() - 1)
        if close < 0:
            continue
        comma = _condition_end(code, m.end(), close)
        condition = code[m.end():comma]
        if not CUDA_TEST.search(NOT_CUDA.sub(" ", condition)):
            continue
        message = blank(text[comma:close], strings=False)  # comments out, the literals kept
        literals = tuple(s.encode().decode("unicode_escape") for s in _LITERAL.findall(message) if s)
        if sum(len(s) for s in literals) >= MIN_TEXT:
            line = text.count("\n", 0, m.start()) + 1
            found.append(Check(f"{rel}:{line}", " ".join(condition.split()), literals))
    return found


@functools.lru_cache(maxsize=4)
def release_checks(tree: Path) -> tuple[Check, ...]:
    """Every such check of the release's tree (its libtorch's own sources, CUDA folders aside)."""
    found: list[Check] = []
    for root in ROOTS:
        for path in sorted((tree / root).rglob("*.cpp")):
            rel = path.relative_to(tree)
            if CUDA_PARTS & {p.lower() for p in rel.parts[:-1]}:
                continue
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if "TORCH_CHECK" in text and CUDA_TEST.search(text):
                found += checks_in(text, rel.as_posix())
    return tuple(found)


def check_of(message: str, tree: Path) -> Check | None:
    """The release's check that raised ``message`` (a failure's first line), if one of them did."""
    if not message:
        return None
    for check in release_checks(tree):
        if check.matches(message):
            return check
    return None
