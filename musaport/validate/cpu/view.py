"""The ported tree as a plain C++ compiler sees it: every launch turned into a call.

g++ cannot parse ``<<<...>>>``, and launches sit in ported headers too
(``Loops.muh``, ``Reduce.muh``, ``MUSAApplyUtils.muh``), so the CPU build
compiles a mirror of the whole port in which each file holding a launch is
converted (see ``cpp.launches``) and every other file is the same bytes.  A
whole mirror, not only the converted files, keeps ``#include "x.muh"``
relative lookups inside it.  Unchanged files keep their mtime, so the object
cache and the compiler see only what changed; the port itself is never edited.

The CPU build compiles host and device code in one pass with ``__MUSA_ARCH__``
undefined, so a ``__host__ __device__`` function takes its host branch when a
kernel calls it.  Mostly both branches compute the same; one kind does not: a
host branch that only asserts it is never run (``CUDAMathCompat.h``'s
``copysign``: "should not run on the CPU"), because the real host never calls
it.  On the CPU runtime the device *is* the host, so the view takes the device
branch of such a conditional (``#if 1``, the lines kept), which a MUSA
compiler's device pass would take.

A branch chosen by the device's architecture (``#if defined(__MUSA_ARCH__) &&
__MUSA_ARCH__ < 900``) is device code either way, and the host pass's choice
(``__MUSA_ARCH__`` undefined) is the newest architecture's, which the
emulated device is not: torch-harmonics splits a ``float4`` atomic add into
four below 900 and otherwise calls the vector ``atomicAdd`` that only
sm_90 has. For an extension's device sources the view evaluates such a
condition for the architecture the shim reports (``EMULATED_ARCH``: compute
capability 7.0), the original kept as a comment on the same line. The
PyTorch port's own files keep the host pass's choice for now: changing it
changes code in 73 of its files, and the whole device would have to be
rebuilt and judged again.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from musaport.cpp.launches import LaunchError, rewrite_launches
from musaport.cpp.parser import Parsed, encode, masked, parse
from musaport.cpp.text import CODE_ONLY
from musaport.fstree import walk
from musaport.outdir import write_atomic


@dataclass(frozen=True)
class ViewProblem:
    """A ported file whose launches could not be converted (the CPU build of its users fails)."""

    file: str
    error: str


_DEVICE_IF = re.compile(rb"[ \t]*#[ \t]*if[ \t]+defined\(__MUSA_ARCH__\)(?:[ \t]*\|\|[ \t]*defined\(\w+\))*[ \t]*")
_DIRECTIVE = re.compile(rb"[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b")
# A failing assertion (TORCH_INTERNAL_ASSERT, CUDA_KERNEL_ASSERT, assert ... of false or 0), perhaps followed
# by the placeholder return that keeps the compiler quiet (SortingRadixSelect.muh's float16 convert).
_FAILING_ASSERT = re.compile(rb"(?:\w*_ASSERT|assert)\(\s*(?:false|0)\b[^;]*\);(?:\s*return\b[^;]*;)?")


def device_branches(data: bytes) -> bytes:
    """``data`` with each ``#if defined(__MUSA_ARCH__)`` (or'ed with other ``defined`` tests) whose ``#else``
    branch only asserts that it never runs (comments and a placeholder return aside) made ``#if 1``, the
    original condition kept as a comment and every line in place."""
    if b"__MUSA_ARCH__" not in data:
        return data
    lines = data.split(b"\n")
    for i, line in enumerate(lines):
        if _DEVICE_IF.fullmatch(line) and _host_branch_only_asserts(lines, i):
            lines[i] = b"#if 1 // musaport cpu view, device branch: " + line.strip()
    return b"\n".join(lines)


def _host_branch_only_asserts(lines: list[bytes], at: int) -> bool:
    """The conditional opened at ``at`` is ``#if … #else <a failing assertion> #endif``, none nested."""
    directives = [(j, m.group(1)) for j in range(at + 1, len(lines)) if (m := _DIRECTIVE.match(lines[j]))][:2]
    if [d for _, d in directives] != [b"else", b"endif"]:
        return False
    (other, _), (end, _) = directives
    code = b" ".join(ln.split(b"//")[0].strip() for ln in lines[other + 1:end]).strip()
    return bool(_FAILING_ASSERT.fullmatch(code))


# The architecture the shim's device reports (musaGetDeviceProperties: major 7, minor 0), as __MUSA_ARCH__ spells it.
EMULATED_ARCH = 700
_ARCH_IF = re.compile(rb"^([ \t]*#[ \t]*(?:if|elif)\b)([^\n]*\b__MUSA_ARCH__[ \t]*\)*[ \t]*(?:[<>]=?|[=!]=)[ \t]*\d[^\n]*)$",
                      re.M)
_ARCH_DEFINED = re.compile(rb"\bdefined[ \t]*\([ \t]*__MUSA_ARCH__[ \t]*\)|\bdefined[ \t]+__MUSA_ARCH__\b")
_ARCH = re.compile(rb"\b__MUSA_ARCH__\b")


def arch_branches(data: bytes, arch: int = EMULATED_ARCH) -> bytes:
    """``data`` with each one-line ``#if``/``#elif`` that compares ``__MUSA_ARCH__`` with a number evaluated
    for ``arch``: ``defined(__MUSA_ARCH__)`` becomes 1 and ``__MUSA_ARCH__`` the number, the original
    condition kept as a comment, every line in place."""
    if b"__MUSA_ARCH__" not in data:
        return data

    def evaluated(m: re.Match[bytes]) -> bytes:
        condition = m.group(2)
        if condition.rstrip().endswith(b"\\") or b"/*" in condition:
            return m.group(0)
        code = condition.split(b"//", 1)[0].rstrip()
        new = _ARCH.sub(str(arch).encode(), _ARCH_DEFINED.sub(b"1", code))
        return m.group(1) + new + b" // musaport cpu view, device arch " + str(arch).encode() + b": " + code.strip()

    return _ARCH_IF.sub(evaluated, data)


# blockDim and gridDim as the runtime's thread-local variables cost a general-dynamic TLS lookup at every
# read in the dlopen'd device, which GCC does not hoist from loops (a grid-stride loop reads both at every
# step); through the runtime's const accessor (builtin_vars.h) it looks them up once per function.
_DIM_NAMES = re.compile(rb"\b(?:blockDim|gridDim)\b")
_DIM_USE = re.compile(r"(?<![\w.>:])(blockDim|gridDim)\b")
_MEMBER = re.compile(r"\s*\.\s*[xyz]\b")
_ACCESSOR = {"blockDim": "musaport_indices_here()->block_dim", "gridDim": "musaport_indices_here()->grid_dim"}


def dims_through_accessor(parsed: Parsed) -> str:
    """The text with each ``blockDim.x`` (and ``gridDim``, any member) read through the runtime's accessor,
    for each of the two names whose every use in the file's code is such a read: a file in which the name
    is anything else (a parameter, a local ``dim3 blockDim(16, 16)``, a member, a macro's argument, a
    launch's configuration) keeps that name as written, since the name may not be the builtin there."""
    text = parsed.text
    code = masked(text, parsed.spans, CODE_ONLY)
    reads: dict[str, list[int]] = {"blockDim": [], "gridDim": []}
    named_otherwise: set[str] = set()
    for m in _DIM_USE.finditer(code):  # after `.`, `->` or `::` the name is a member or qualified: left alone
        if _MEMBER.match(code, m.end()):
            reads[m.group(1)].append(m.start())
        else:
            named_otherwise.add(m.group(1))
    starts = sorted((at, name) for name, found in reads.items() if name not in named_otherwise for at in found)
    if not starts:
        return text
    pieces, pos = [], 0
    for at, name in starts:
        pieces += [text[pos:at], _ACCESSOR[name]]
        pos = at + len(name)
    pieces.append(text[pos:])
    return "".join(pieces)


def cpu_bytes(data: bytes, arch: int | None = None) -> bytes:
    """One file as the CPU build reads it (LaunchError when a launch cannot be delimited); with ``arch``,
    its architecture branches as a device of that architecture takes them (``arch_branches``); its reads of
    ``blockDim`` and ``gridDim`` through the runtime's accessor where the file allows (``dims_through_accessor``)."""
    data = device_branches(data)
    if arch is not None:
        data = arch_branches(data, arch)
    if _DIM_NAMES.search(data):
        data = encode(dims_through_accessor(parse(data)))
    return encode(rewrite_launches(parse(data))) if b"<<<" in data else data


def refresh(tree: Path, view: Path) -> list[ViewProblem]:
    """Bring ``view`` in line with ``tree``: convert, copy, delete what the port no longer has."""
    problems = []
    wanted = set()
    for path in sorted(_files(tree)):
        rel = path.relative_to(tree).as_posix()
        wanted.add(rel)
        data = path.read_bytes()
        try:
            data = cpu_bytes(data)
        except LaunchError as err:
            problems.append(ViewProblem(rel, str(err)))
        write_atomic(view / rel, data)
    for path in _files(view) if view.is_dir() else []:
        if path.relative_to(view).as_posix() not in wanted:
            path.unlink()
    return problems


def _files(root: Path) -> list[Path]:
    found = []
    for folder, _, names in walk(root):  # any depth (fstree)
        found += [Path(folder) / n for n in names if not n.startswith(".")]
    return found


def main(argv: list[str]) -> int:
    """``python -m musaport.validate.cpu.view SOURCE VIEW``: one device source as the emulated device compiles
    it, for the stand-in ``load_inline`` (which runs in the torch environment, without musaport's parser)."""
    if len(argv) != 2:
        print("usage: python -m musaport.validate.cpu.view SOURCE VIEW", file=sys.stderr)
        return 2
    source, view = Path(argv[0]), Path(argv[1])
    try:
        data = cpu_bytes(source.read_bytes(), EMULATED_ARCH)
    except OSError as exc:
        print(f"{source}: cannot read: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except LaunchError as exc:
        print(f"{source}: {exc}", file=sys.stderr)
        return 1
    if not view.exists() or view.read_bytes() != data:
        write_atomic(view, data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
