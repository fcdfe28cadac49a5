"""``musaport whereis SYMBOL``: which ported file defines an undefined symbol.

The torch_musa manual's FAQ recipe, automated: demangle the symbol, find the
file of the ported tree that *defines* it (not one that declares or calls
it), and say what to do: add that ``.mu`` to the backend's CMake sources,
report a ``.cpp`` definition as a porting bug, or look in the MUSA libraries
when PyTorch does not define it.  Files are prefiltered by a byte search for
the unqualified name, so only a handful are lexed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from musaport.cpp.parser import parse
from musaport.cpp.scope import CLASS, DECLARATION, DEFINITION, INSTANTIATION, Occurrence, occurrences
from musaport.cpp.symbols import ANONYMOUS, Symbol
from musaport.cpp.tokens import lex_many
from musaport.ops.emit_cmake import cmake_variables
from musaport.fstree import walk
from musaport.outdir import CMAKE_FILE, OutDir

VARIABLE_BY_SUFFIX = {".mu": "MUSAPORT_MU_SOURCES", ".cpp": "MUSAPORT_CPP_SOURCES"}
PREFERRED_VARIABLES = ("MUSAPORT_MU_SOURCES", "MUSAPORT_CPP_SOURCES", "MUSAPORT_REGISTRATION_SOURCES")
_SOURCE_SUFFIXES = (".mu", ".cpp", ".cu", ".cc")
_SEARCHED = (".mu", ".muh", ".cu", ".cuh", ".cpp", ".cc", ".h", ".hpp")
_PYTORCH_FOLDERS = ("aten/src", "c10", "torch/csrc")

FOUND, NOT_DEFINED = 0, 1
INTERNAL = "internal"


@dataclass(frozen=True)
class Place:
    """One matching statement: file (tree-relative), line, kind and its text."""

    file: str
    line: int
    kind: str
    text: str
    template: bool = False
    source: str = ""  # the PyTorch file it was ported from, when known


@dataclass(frozen=True)
class Answer:
    """Everything ``whereis`` found and concluded about one symbol."""

    symbol: Symbol
    verdict: str  # "add-source" | "cpp-defines" | "header-only" | "not-defined"
    definitions: tuple[Place, ...] = ()
    instantiations: tuple[Place, ...] = ()
    declarations: tuple[Place, ...] = ()
    add: tuple[str, ...] = ()
    variables: dict[str, str] = field(default_factory=dict)  # file -> CMake variable
    generated: dict[str, bool] = field(default_factory=dict)  # file -> musaport_sources.cmake lists it
    cmake_found: bool = False  # musaport_sources.cmake exists
    listed: dict[str, str] = field(default_factory=dict)  # file -> "FILE:line" in --cmake-list, or ""
    upstream: tuple[Place, ...] = ()  # definitions in the PyTorch tree (not ported)
    internal: tuple[Place, ...] = ()  # definitions in an anonymous namespace (internal linkage)

    @property
    def exit_code(self) -> int:
        return NOT_DEFINED if self.verdict == "not-defined" else FOUND


def needles(symbol: Symbol) -> tuple[bytes, ...]:
    """Words a defining file must contain: the name, and the innermost scope's name
    (``structured_tril_cuda::impl`` is written ``TORCH_IMPL_FUNC(tril_cuda)``)."""
    inner = symbol.scope[-1] if symbol.scope else ANONYMOUS
    if inner.startswith("structured_") and symbol.name in ("impl", "meta"):
        return (inner.removeprefix("structured_").encode(),)
    words = [symbol.name] + ([inner] if inner != ANONYMOUS else [])
    return tuple(w.encode() for w in words)


def candidate_files(root: Path, words: tuple[bytes, ...], suffixes: tuple[str, ...] = _SEARCHED) -> dict[str, bytes]:
    """Tree-relative paths and bytes of the files whose bytes contain every word."""
    found = {}
    for folder, dirs, files in walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for fname in sorted(files):
            if fname.endswith(suffixes):
                path = Path(folder) / fname
                data = path.read_bytes()
                if all(w in data for w in words) and all(_whole_word(w, data) for w in words):
                    found[path.relative_to(root).as_posix()] = data
    return found


def _whole_word(word: bytes, data: bytes) -> bool:
    """``word`` occurs as an identifier of its own, not inside a longer one."""
    return re.search(rb"(?<![A-Za-z0-9_])" + re.escape(word) + rb"(?![A-Za-z0-9_])", data) is not None


def search(files: dict[str, bytes], symbol: Symbol, origin: dict[str, str] | None = None) -> list[Place]:
    """Every statement in ``files`` that declares, defines or instantiates ``symbol``."""
    rels = sorted(files)
    places = []
    for rel, toks in zip(rels, lex_many([files[r] for r in rels])):
        for occ in occurrences(parse(files[rel], toks), symbol.name):
            kind = occ.kind if matches(occ, symbol) else _internal(occ, symbol)
            if kind:
                places.append(Place(rel, occ.line, kind, occ.text, occ.template, (origin or {}).get(rel, "")))
    return places


def _internal(occ: Occurrence, symbol: Symbol) -> str:
    """INTERNAL for a definition that matches once anonymous namespaces are left out.

    Such a function has internal linkage, so it cannot be what a loader misses;
    saying where it is helps the user who typed the name by hand.
    """
    if occ.kind != DEFINITION or ANONYMOUS not in occ.path or ANONYMOUS in symbol.scope:
        return ""
    inner = occ.path[: occ.scope_len].count(ANONYMOUS)
    public = Occurrence(occ.kind, tuple(p for p in occ.path if p != ANONYMOUS), occ.scope_len - inner, occ.line, occ.text)
    return INTERNAL if matches(public, symbol) else ""


def matches(occ: Occurrence, symbol: Symbol) -> bool:
    """Whether ``occ`` names the symbol's entity.

    The written name must be a suffix of the symbol's path; the rest of the
    path (what the qualifier leaves out) must be a scope ``occ`` sits in, and
    that scope must enclose the symbol's own scope (where C++ allows a
    qualified definition).
    """
    wanted = symbol.scope + (symbol.name,)
    scope, written = occ.path[: occ.scope_len], occ.path[occ.scope_len :]
    if symbol.anywhere:  # a plain name: that name in any namespace (an anonymous one: see _internal)
        return written[-1:] == (symbol.name,) and ANONYMOUS not in occ.path and (occ.kind != CLASS or bool(symbol.what))
    if not written or len(written) > len(wanted) or wanted[len(wanted) - len(written) :] != written:
        return False
    outer = wanted[: len(wanted) - len(written)]
    if scope[: len(outer)] != outer or wanted[: len(scope)] != scope or len(scope) >= len(wanted):
        return False
    return occ.kind != CLASS or bool(symbol.what)


def conclude(symbol: Symbol, places: list[Place]) -> Answer:
    """The verdict: which source file to add, or why there is none."""
    defs = tuple(p for p in places if p.kind in (DEFINITION, CLASS))
    insts = tuple(p for p in places if p.kind == INSTANTIATION)
    decls = tuple(p for p in places if p.kind == DECLARATION)
    internal = tuple(p for p in places if p.kind == INTERNAL)
    templated = bool(symbol.template_args) or any(p.template for p in defs)
    providers = insts if templated and insts else defs
    add = tuple(dict.fromkeys(p.file for p in providers if p.file.endswith(_SOURCE_SUFFIXES)))
    if not defs and not insts:
        verdict = "not-defined"
    elif not add:
        verdict = "header-only"
    elif any(f.endswith(".mu") for f in add):
        verdict = "add-source"
        add = tuple(f for f in add if f.endswith(".mu"))
    else:
        verdict = "cpp-defines"
    return Answer(symbol, verdict, defs, insts, decls, add, internal=internal)


def variable_of(rel: str, variables: dict[str, list[tuple[str, int]]]) -> str:
    """The variable listing ``rel`` (entries may carry a folder prefix), else "".

    The per-kind lists come first: a file is also in its folder's group variable.
    """
    preferred = [v for v in PREFERRED_VARIABLES if v in variables]
    for var in preferred + [v for v in variables if v not in preferred]:
        entries = variables[var]
        if any(e == rel or e.endswith("/" + rel) for e, _ in entries):
            return var
    return ""


def listed_in(rel: str, path: Path, text: str) -> str:
    """``FILE:line`` where the backend's own list names ``rel`` (or its last two parts), else ""."""
    tail = "/".join(rel.split("/")[-2:])
    for needle in (rel, tail):
        at = text.find(needle)
        if at != -1:
            return f"{path}:{text.count(chr(10), 0, at) + 1}"
    return ""


def upstream_symbol(symbol: Symbol) -> Symbol:
    """The CUDA spelling PyTorch uses for a ported name (``at::musa`` → ``at::cuda``)."""
    rename = {"musa": "cuda", "MUSA": "CUDA", "Musa": "Cuda"}
    scope = tuple(re.sub(r"musa|MUSA|Musa", lambda m: rename[m.group()], s) for s in symbol.scope)
    name = re.sub(r"MUSA|Musa", lambda m: rename[m.group()], symbol.name)
    return Symbol(symbol.given, symbol.demangled, scope, name, symbol.template_args, symbol.params, symbol.what)


def whereis(symbol: Symbol, out: OutDir, pytorch_src: Path | None = None, cmake_list: Path | None = None) -> Answer:
    """Search the ported tree (and, when nothing defines it there, the PyTorch tree)."""
    tree = out.tree
    origins = {rel: src for src, rel in out.out_paths().items()}
    answer = conclude(symbol, search(candidate_files(tree, needles(symbol)), symbol, origins))
    if answer.verdict == "not-defined" and pytorch_src is not None:
        answer = _with_upstream(answer, pytorch_src)
    variables = _cmake(tree / CMAKE_FILE)
    found = {f: variable_of(f, variables or {}) for f in answer.add}
    chosen = {f: found[f] or VARIABLE_BY_SUFFIX.get(Path(f).suffix, "") for f in answer.add}
    listed = {}
    if cmake_list is not None:
        text = cmake_list.read_text(errors="replace")
        listed = {f: listed_in(f, cmake_list, text) for f in answer.add}
    return Answer(**{**answer.__dict__, "variables": chosen, "listed": listed,
                     "generated": {f: bool(v) for f, v in found.items()}, "cmake_found": variables is not None})


def _with_upstream(answer: Answer, pytorch_src: Path) -> Answer:
    """Definitions in the PyTorch tree under the CUDA spelling, in folders the port may have left out."""
    cuda = upstream_symbol(answer.symbol)
    places: list[Place] = []
    for folder in _PYTORCH_FOLDERS:
        root = pytorch_src / folder
        if root.is_dir():
            files = candidate_files(root, needles(cuda))
            found = search(files, cuda)
            places += [Place(f"{folder}/{p.file}", p.line, p.kind, p.text, p.template) for p in found]
    upstream = tuple(p for p in places if p.kind in (DEFINITION, INSTANTIATION))
    return Answer(**{**answer.__dict__, "upstream": upstream})


def _cmake(path: Path) -> dict[str, list[tuple[str, int]]] | None:
    """The generated source lists, or None when the run did not write them."""
    try:
        return cmake_variables(path.read_text(errors="replace"))
    except OSError:
        return None
