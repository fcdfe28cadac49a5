"""What a PyTorch tree declares under CUDA-word names, and where: the facts
behind the naming policy (docs/naming.md).

* A **CUDA word** is ``cuda`` in any case anywhere in an identifier
  (``getCUDAHooks``, ``cuda_stream``, ``CUDART``), a leading driver prefix
  (``cuFoo``, ``CUresult``, ``CU_X``, ``cuuint32_t``), or a library word at a
  word start (``cublas``, ``cusparse``, ``cusolver``, ``curand``, ``cufft``,
  ``cupti``, ``cudnn`` in any case: ``TORCH_CUSOLVER_CHECK``, ``CuFFTConfig``).
  ``CUB``, ``CUTLASS``, ``Current`` or ``Cutoff`` are not.
* The **renamed port** is every file the layout selects whose output path
  differs from its source path (``cuda/`` → ``musa/``, ``CUDA`` → ``MUSA`` in a
  name); **in-place headers** are the selected files that keep their path
  (``ATen/Context.h``, ``c10/macros/Macros.h``): they replace libtorch's own
  headers, so what they declare is libtorch's.
* The **unported tree** is every other C/C++ file of ``aten/src``, ``c10`` and
  ``torch/csrc`` (tests and HIP copies aside), plus the kernels that
  ``native_functions.yaml`` declares (torchgen writes their declarations).

``python tests/naming_tree.py PYTORCH_TREE > rules/data/pytorch_cuda_names.txt``
writes the vocabulary of the ``pytorch-cuda-names`` rule: the CUDA-word
identifiers the renamed port declares and libtorch does not, minus the
keep-list.  The tests use the same functions to check the port.
"""

from __future__ import annotations

import fnmatch
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from musaport.cpp.parser import CODE, INCLUDE, masked, parse
from musaport.cpp.declarations import declared_names
from musaport.port.layout import Found, discover, load_layout
from musaport.resources import data_dir, default_layout, parse_vocabulary, vocabulary_file
from musaport.rewrite.transforms import systematic

CUDA_WORD = re.compile(
    r"(?i:cuda)|^_*(?:cu[A-Z]|CU[a-z_]|cuuint\d)"
    r"|(?:^|_|(?<=[a-z0-9]))(?i:cublas|cusparse|cusolver|curand|cufft|cupti|cudnn)"
)
IDENTIFIER = re.compile(r"(?<![\w])[A-Za-z_]\w*")
SOURCE_SUFFIXES = (".h", ".hpp", ".cuh", ".cu", ".cpp", ".cc", ".c", ".inl", ".mu", ".muh")
LIBTORCH_ROOTS = ("aten/src", "c10", "torch/csrc")
_CODE = frozenset({CODE})
_KERNEL = re.compile(r"^\s+[\w, ]+:\s*(\w+)\s*$", re.M)
# A cheap test on the raw bytes: files without any of these have no CUDA-word name.
_MAYBE = re.compile(rb"(?i:cuda|cublas|cusparse|cusolver|curand|cufft|cupti|cudnn)|\bcu[A-Z]|\bCU[a-z_]|cuuint")


def is_cuda_word_name(name: str) -> bool:
    return CUDA_WORD.search(name) is not None


@dataclass
class Declarations:
    """CUDA-word names each part of a tree declares (name -> first files)."""

    renamed: dict[str, list[str]] = field(default_factory=dict)
    in_place: dict[str, list[str]] = field(default_factory=dict)
    unported: dict[str, list[str]] = field(default_factory=dict)


def ported_files(tree: Path) -> dict[str, str]:
    """Source path -> output path of every file the default layout ports."""
    layout = load_layout(default_layout())
    return {f.rel: f.out for f in discover(layout, tree) if isinstance(f, Found)}


def code_view(data: bytes) -> tuple[str, str]:
    parsed = parse(data)
    return parsed.text, masked(parsed.text, parsed.spans, _CODE)


def cuda_word_names(code: str) -> set[str]:
    return {m.group(0) for m in IDENTIFIER.finditer(code) if is_cuda_word_name(m.group(0))}


def declarations(tree: Path) -> Declarations:
    """Where the tree declares its CUDA-word identifiers."""
    ported = ported_files(tree)
    found = Declarations()
    for rel in _sources(tree, ported):
        data = (tree / rel).read_bytes()
        if not _MAYBE.search(data):
            continue
        text, code = code_view(data)
        names = cuda_word_names(code)
        if not names:
            continue
        part = found.unported if rel not in ported else found.in_place if ported[rel] == rel else found.renamed
        for name in declared_names(text, code, names):
            part.setdefault(name, []).append(rel)
    yaml = tree / "aten/src/ATen/native/native_functions.yaml"
    for kernel in _KERNEL.findall(yaml.read_text(encoding="utf-8")):
        for name in (kernel, f"structured_{kernel}"):
            if is_cuda_word_name(name):
                found.unported.setdefault(name, []).append("aten/src/ATen/native/native_functions.yaml")
    return found


def _sources(tree: Path, ported: dict[str, str]) -> list[str]:
    """Every C/C++ file of the libtorch roots (tests and HIP copies aside) and every ported file."""
    rels = set(ported)
    for root in LIBTORCH_ROOTS:
        for path in (tree / root).rglob("*"):
            rel = path.relative_to(tree).as_posix()
            if rel.endswith(SOURCE_SUFFIXES) and path.is_file() and not re.search(r"/(?:tests?|hip)/", rel):
                rels.add(rel)
    return sorted(rels)


@dataclass(frozen=True)
class ReasonList:
    """Names or paths (or globs of them), each with the reason it is allowed."""

    entries: dict[str, str]

    @classmethod
    def load(cls, path: Path) -> "ReasonList":
        entries = {}
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            name, sep, reason = line.partition("#")
            if not sep or not reason.strip() or len(name.split()) != 1:
                raise ValueError(f"{path}:{n}: expected 'NAME  # reason', got {line!r}")
            entries[name.strip()] = reason.strip()
        return cls(entries)

    def reason(self, name: str) -> str | None:
        if name in self.entries:
            return self.entries[name]
        return next((r for glob, r in self.entries.items() if "*" in glob and fnmatch.fnmatchcase(name, glob)), None)

    def unused(self, names: Iterable[str]) -> list[str]:
        """Entries that none of ``names`` needs (stale ones)."""
        names = set(names)
        return [e for e in self.entries if e not in names and not ("*" in e and fnmatch.filter(names, e))]


def keep_list() -> ReasonList:
    """CUDA-word identifiers the port keeps (rules/data/keep_cuda_names.txt)."""
    return ReasonList.load(data_dir("rules") / "data" / "keep_cuda_names.txt")


def unresolved_allowed() -> ReasonList:
    """Include targets allowed not to resolve (rules/data/unresolved_includes.txt)."""
    return ReasonList.load(data_dir("rules") / "data" / "unresolved_includes.txt")


def rename_vocabulary(found: Declarations, keep: ReasonList) -> list[str]:
    """The names the port renames: declared in the renamed port, and neither
    libtorch's (unported tree, in-place headers) nor kept nor a toolkit name."""
    toolkit = parse_vocabulary(vocabulary_file().read_bytes())
    names = set(found.renamed) - set(found.unported) - set(found.in_place) - toolkit
    return sorted(n for n in names if keep.reason(n) is None and systematic(n) != n)


def main(argv: list[str]) -> int:
    tree = Path(argv[1])
    names = rename_vocabulary(declarations(tree), keep_list())
    version = (tree / "version.txt").read_text().strip() if (tree / "version.txt").is_file() else "?"
    sys.stdout.write(
        "# CUDA-word identifiers declared in the renamed part of the port of PyTorch "
        f"{version} and nowhere else in libtorch\n# (made by tests/naming_tree.py; see docs/naming.md)\n"
    )
    sys.stdout.write("".join(f"{n}\n" for n in names))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))


def names_left(out_tree: Path, ported: dict[str, str]) -> dict[str, list[str]]:
    """CUDA-word identifiers in the code of the ported files under ``out_tree`` (name -> files)."""
    left: dict[str, list[str]] = {}
    for out in sorted(set(ported.values())):
        path = out_tree / out
        if path.is_file():
            for name in cuda_word_names(code_view(path.read_bytes())[1]):
                left.setdefault(name, []).append(out)
    return left


def unexplained(left: dict[str, list[str]], found: Declarations, keep: ReasonList) -> dict[str, list[str]]:
    """Names left in the port that libtorch does not declare and the keep-list does not give a reason for."""
    return {n: files for n, files in sorted(left.items()) if n not in found.unported and keep.reason(n) is None}


INCLUDE_ROOTS = (".", "aten/src", "torch/csrc/api/include")


def dangling_includes(out_tree: Path, ported: dict[str, str], tree: Path, extra: list[Path]) -> dict[str, list[str]]:
    """Include targets of the ported files that resolve nowhere (target -> including files).

    A quoted include may name a file beside the including one; any include may
    name a file below an include root of the port or of the source tree, or
    in ``extra`` (the shim, the generated headers).
    """
    roots = [out_tree / r for r in INCLUDE_ROOTS] + [tree / r for r in INCLUDE_ROOTS] + extra
    dangling: dict[str, list[str]] = {}
    for out in sorted(set(ported.values())):
        path = out_tree / out
        if not path.is_file():
            continue
        parsed = parse(path.read_bytes())
        for span in parsed.spans:
            if span.context != INCLUDE:
                continue
            spelled = parsed.text[span.start : span.end]
            target = spelled[1:-1]
            here = [path.parent] if spelled.startswith('"') else []
            if not any((base / target).is_file() for base in here + roots):
                dangling.setdefault(target, []).append(out)
    return dangling
