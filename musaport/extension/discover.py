"""Which files of an extension project are CUDA sources, found without a layout file.

An extension keeps its CUDA code wherever its authors like: ``.cu`` files
anywhere, whole ``cuda/`` or ``gpu/`` folders, and host ``.cpp`` files that
dispatch on ``x.is_cuda()`` or register ``TORCH_LIBRARY_IMPL(ns, CUDA, m)``.
So the selection is computed: a cheap text test on each C++ file's code
(comments and strings blanked), then a fixpoint that also takes every file
including a renamed one (else its include would go stale). The result is an
ordinary :class:`~musaport.port.layout.Layout` whose ``selected`` entries are
the discovery itself, so the port, the cache and the report work unchanged.
Discovery is a generator over root-relative POSIX paths that gives every skip
its reason.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from musaport.errors import LoadError
from musaport.extension.buildfiles import BUILD_FILES, build_guard, declared_include_dirs, jit_builds
from musaport.extension.includes import Include, blank, resolve, scan_includes
from musaport.extension.project import (Inferred, Registry, build_macros, defined_elsewhere, infer_roots,
                                        musa_evidence, project_names, project_rename, registry_macros, registry_sites,
                                        registry_use, uses, with_existing)
from musaport.outdir import TREE
from musaport.port.layout import Folder, Found, Layout, Skipped, name_problem, printable
from musaport.resources import parse_vocabulary, vocabulary_file
from musaport.rewrite.transforms import rename_dirs, systematic

CUDA_SUFFIXES = (".cu", ".cuh")
MUSA_SUFFIXES = (".mu", ".muh")
CHECKED_SUFFIXES = (".cpp", ".cc", ".cxx", ".h", ".hpp", ".hh", ".inl")
SOURCE_SUFFIXES = CUDA_SUFFIXES + MUSA_SUFFIXES + CHECKED_SUFFIXES + (".c",)
DEVICE_FOLDERS = frozenset({"cuda", "gpu"})
ROOT_LIKE = frozenset({"csrc", "src", "include"})
# Folders that are never the project's CUDA sources: VCS and tool state, build output, other
# backends' generated copies, vendored code (port that on its own).
PRUNED = frozenset({"__pycache__", "build", "dist", "hip", "third_party", "node_modules"})

# Code (comments and strings blanked) that uses CUDA or PyTorch's CUDA layer.
_CUDA_USE = re.compile(
    r"(?<![\w])(?:"
    r"cuda[A-Z_]\w*|CUDART_\w+|CUDA_VERSION|__CUDACC\w*__|__CUDA_ARCH\w*__"
    r"|(?:cublas|cusparse|cusolver|curand|cufft|cudnn|nccl)[A-Za-z_]\w*"
    r"|(?:at|c10|torch)::cuda\b|is_cuda\b|kCUDA\b|DeviceType::CUDA\b|(?:WITH|USE)_CUDA\b"
    r"|(?:AT|C10|TORCH)_CUDA\w*|\w*CUDA(?:Stream|Guard|Event|CachingAllocator|GeneratorImpl)\w*"
    r"|DispatchKey::\w*CUDA\b|TORCH_LIBRARY_IMPL\s*\(\s*\w+\s*,\s*\w*CUDA\s*,"
    # CUDA's autocast without the word: the key's old alias (Autocast = AutocastCUDA), and the calls whose
    # device defaults to CUDA (cached_cast of two arguments, is_enabled(), get_autocast_gpu_dtype())
    r"|TORCH_LIBRARY_IMPL\s*\(\s*\w+\s*,\s*Autocast\s*,|DispatchKey::Autocast\b"
    r"|autocast::cached_cast\s*\(\s*(?:[^(),]|\([^()]*\))+,\s*(?:[^(),]|\([^()]*\))+\)"
    r"|autocast::(?:is_enabled|get_autocast_gpu_dtype)\s*\(\s*\)"
    r"|__global__|__device__"
    r"|nv_(?:bfloat16|half)\w*|make_cu(?:da)?[A-Z]\w*|THC[A-Z]\w*|nvshmem\w*|NVSHMEM_\w+"
    r")|<<<|<<\s+<"
)
_DRIVER_NAME = re.compile(r"(?<![\w])(?:cu|CU)[A-Za-z_]\w*")
# Headers of the CUDA toolkit and of PyTorch's CUDA layer.
_CUDA_HEADER = re.compile(
    r"[<\"](?:cuda\w*\.h|cu(?:blas|sparse|solver|rand|fft|dnn|Complex)\w*\.h|nccl\.h|cub/|thrust/|cuda/|THC/|nvshmem"
    r"|ATen/cuda/|ATen/native/cuda/|c10/cuda/|torch/csrc/cuda/|[^>\"]*\.cuh[>\"])"
)


@dataclass(frozen=True)
class Picked:
    """A selected file: where it goes, whether it is copied as it is, and why it was taken."""

    rel: str
    out: str
    copy_only: bool
    reason: str


@dataclass(frozen=True)
class Discovery:
    """The whole selection of one extension tree, and what the include rewriting needs from it."""

    root: Path
    picked: tuple[Picked, ...]
    skipped: tuple[Skipped, ...]
    build_files: tuple[str, ...]
    roots: tuple[str, ...]
    files: frozenset[str]
    includes: tuple[tuple[str, tuple[Include, ...]], ...]
    # What the project decides for itself (extension.project): includes found by their trailing path
    # components, its CUDA-named identifiers, its device-registry macros, files with MUSA code of their own.
    inferred: tuple[Inferred, ...] = ()
    names: tuple[tuple[str, str], ...] = ()
    registries: tuple[Registry, ...] = ()
    musa_aware: tuple[tuple[str, int, str], ...] = ()
    # A renamed output that is a file of the project, which --on-collision said to keep: source → that file.
    kept_own: tuple[tuple[str, str], ...] = ()
    undecided: tuple[tuple[str, int, str, str], ...] = ()  # registry call sites: (file, line, call, why)
    # Project names kept because the project already defines their MUSA spelling: (old, new, where).
    name_clashes: tuple[tuple[str, str, str], ...] = ()
    # Project macros kept because a build file sets them for the compiler (-DBUILD_CUDA): (name, where).
    build_macros: tuple[tuple[str, str], ...] = ()

    def renames(self) -> dict[str, str]:
        """Source path → ported path, for every selected file whose path changes (and every file whose port
        the project's own file replaces: its includes name that file)."""
        return {p.rel: p.out for p in self.picked if p.out != p.rel} | dict(self.kept_own)

    def digest(self) -> str:
        """Everything the selection decided, for the cache key: a rename change re-ports."""
        doc = {"picked": [[p.rel, p.out, p.copy_only] for p in self.picked], "roots": list(self.roots),
               "build": list(self.build_files), "skipped": [[s.rel, s.reason] for s in self.skipped],
               "includes": [[rel, [i.spelling for i in incs]] for rel, incs in self.includes],
               "inferred": [list(map(str, (i.includer, i.line, i.spelling, i.target, i.note))) for i in self.inferred],
               "names": [list(n) for n in self.names], "registries": [list(map(str, r.__dict__.values()))
                                                                      for r in self.registries],
               "musa_aware": [list(map(str, m)) for m in self.musa_aware], "kept_own": [list(k) for k in self.kept_own],
               "undecided": [list(map(str, u)) for u in self.undecided]}
        return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()

    def layout(self) -> Layout:
        """The selection as a Layout: its folders guard ``--out``, ``selected`` is the discovery."""
        found = [Found(p.rel, p.out, p.copy_only) for p in self.picked]
        # The project root is not a ported folder: discovery never looks into --out, wherever it is.
        folders = sorted({p.rel.rpartition("/")[0] for p in self.picked} - {""})
        return Layout(name="extension", markers=(), copy_only=(), suffixes=SOURCE_SUFFIXES, exclude=(),
                      folders=tuple(Folder(f, False, ("*",), f"{self.root}: discovered") for f in folders),
                      digest=self.digest(), source=f"discovered in {self.root}",
                      selected=tuple(sorted(found, key=lambda f: f.rel)) + self.skipped)


COLLISION_CHOICES = ("error", "port", "project")


def discover(root: Path, out: Path | None = None, collision: str = "error") -> Discovery:
    """Select the CUDA sources of the extension tree ``root`` (``out`` is never looked into).

    ``collision`` decides what happens when a renamed output is a file the
    project already has (``torch_cuda_helper.hpp`` → ``torch_musa_helper.hpp``
    beside the project's own): ``error`` stops with both names, ``port``
    writes the port (it replaces the project's file in the MUSA build),
    ``project`` keeps the project's file and includes of the CUDA one name it.
    """
    if not root.is_dir():
        raise LoadError(f"{root}: --src is not a directory")
    files: list[str] = []
    skipped: list[Skipped] = []
    for item in walk(root, out):
        (files.append(item) if isinstance(item, str) else skipped.append(item))
    texts = {rel: _read(root / rel) for rel in files if rel.endswith(SOURCE_SUFFIXES)}
    includes = {rel: scan_includes(text) for rel, text in texts.items() if text is not None}
    builds = tuple(rel for rel in files if rel.rpartition("/")[2] in BUILD_FILES)
    roots = include_roots(root, files, builds)
    every = frozenset(files)
    would_rename = frozenset(rel for rel in texts if project_rename(rel) != rel)
    added, inferred = infer_roots(includes, roots, every, would_rename)
    roots = roots + added
    names = project_names(texts)
    clashes = defined_elsewhere(texts, names)  # the project already defines the MUSA name: keep the CUDA one
    names = {k: v for k, v in names.items() if k not in clashes}
    # a macro the build sets keeps its name (the build files rename only the WITH_/USE_CUDA guards, alike)
    set_by_build = {k: at for k, at in build_macros({rel: _read(root / rel) for rel in builds}).items()
                    if k in names and not build_guard(k)}
    names = {k: v for k, v in names.items() if k not in set_by_build}
    registries = with_existing(texts, registry_macros(texts))
    picked, passed = _select(texts, includes, roots, every, names, registries)
    picked, kept_own, passed = _collisions(root, picked, every, collision, passed)
    if not picked and not kept_own and not jit_evidence(root, files, builds):
        raise LoadError(f"{root}: --src holds no CUDA source to port (no .cu/.cuh file, no cuda/ or gpu/ folder, "
                        "no C++ file using CUDA or PyTorch's CUDA layer, no Python module building an extension "
                        "with torch.utils.cpp_extension's load or load_inline); a run of nothing is a wrong path")
    skipped += _build_notes(files, builds)
    aware = tuple((p.rel, *hit) for p in picked if (t := texts.get(p.rel)) and (hit := musa_evidence(t)))
    return Discovery(root, picked, tuple(sorted(skipped + passed, key=lambda s: s.rel)), builds, roots,
                     every, tuple((p.rel, includes.get(p.rel, ())) for p in picked), inferred,
                     tuple(sorted(names.items())), registries, aware, kept_own, registry_sites(texts, registries),
                     tuple((old, systematic(old), where) for old, where in sorted(clashes.items())),
                     tuple(sorted(set_by_build.items())))


def _build_notes(files: list[str], builds: tuple[str, ...]) -> list[Skipped]:
    """What a run must say when it ports no build file: that the port has no build of its own (a pyproject.toml
    that names the CUDA sources is a problem of the run instead, see ``generate``)."""
    if builds or pyproject_builds(files):
        return []
    return [Skipped(".", "no build file (setup.py, CMakeLists.txt, or a pyproject.toml naming the CUDA sources): "
                    "the port has no build of its own; musaport_sources.cmake lists the ported sources", warn=True)]


def pyproject_builds(files: list[str] | frozenset[str], root: Path | None = None) -> list[str]:
    """The pyproject.toml files of the tree (those naming a CUDA source, ``.cu``, when ``root`` is given to
    read them): a build musaport does not port."""
    tomls = sorted(f for f in files if f.rpartition("/")[2] == "pyproject.toml")
    if root is None:
        return tomls
    return [t for t in tomls if re.search(r"\.cuh?\b", _read(root / t) or "")]


def _collisions(root: Path, picked: tuple[Picked, ...], files: frozenset[str], collision: str,
                passed: list[Skipped]) -> tuple[tuple[Picked, ...], tuple[tuple[str, str], ...], list[Skipped]]:
    """A renamed output that lands on a file the project has: an error naming both, or --on-collision's pick."""
    moved = {p.rel for p in picked if p.out != p.rel}
    clashes = [p for p in picked if p.out != p.rel and p.out in files and p.out not in moved]
    if not clashes:
        return picked, (), passed
    if collision == "error":
        p = clashes[0]
        more = f" (and {len(clashes) - 1} more)" if len(clashes) > 1 else ""
        raise LoadError(f"{root / p.rel}: its port {p.out} would overwrite the project's own {root / p.out}{more}; "
                        "choose with --on-collision port (the port replaces it) or project (keep the project's)")
    if collision == "port":
        return picked, (), passed
    gone = {p.rel for p in clashes}
    kept = [Skipped(p.rel, f"not ported: the project's own {p.out} takes its place (--on-collision project)")
            for p in clashes]
    return (tuple(p for p in picked if p.rel not in gone), tuple((p.rel, p.out) for p in clashes),
            passed + kept)


def walk(root: Path, out: Path | None = None, start: str = "") -> Iterator[str | Skipped]:
    """Root-relative POSIX paths of every file, sorted; pruned folders and odd links as skips.

    Depth first in name order, with a stack of listings rather than recursion, so a tree
    thousands of folders deep is walked like any other.
    """
    port = _identity(out / TREE) if out is not None else None
    stack = [_listing(root, start)]
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
            continue
        if isinstance(entry, Skipped):
            yield entry
            continue
        rel, entry = entry
        if entry.is_symlink():
            reason = _link_problem(root, Path(entry.path))
            if reason:
                yield Skipped(rel, reason, warn=True)
                continue
        if entry.is_dir(follow_symlinks=False):
            reason = _pruned(entry, port)
            if reason:
                yield Skipped(rel + "/", reason)
            else:
                stack.append(_listing(root, rel))
        elif entry.is_file():
            problem = name_problem(rel)
            # A name that would break the files the port writes it into (a newline ends a C++ comment, a
            # ';' splits a CMake list): skipped with a warning, as in a PyTorch tree.
            yield Skipped(printable(rel), f"file name has {problem} (not ported)", warn=True) if problem else rel


def _listing(root: Path, start: str) -> Iterator[tuple[str, os.DirEntry] | Skipped]:
    """The entries of one folder in name order, each with its root-relative path (a Skipped when it
    cannot be listed)."""
    try:
        entries = sorted(os.scandir(root / start if start else root), key=lambda e: e.name)
    except OSError as exc:
        yield Skipped(start or ".", f"cannot list: {exc.strerror or exc}", warn=True)
        return
    for entry in entries:
        yield (f"{start}/{entry.name}" if start else entry.name), entry


def _identity(path: Path) -> tuple[int, int] | None:
    """Device and inode of a folder (None when there is none): what tells the port in ``--out`` apart
    from a folder of the project, at the cost of one ``stat``."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _pruned(entry: os.DirEntry, port: tuple[int, int] | None) -> str:
    """Why a folder is not searched ('' when it is).

    The ported tree in ``--out`` is never searched, but the rest of an ``--out`` inside the project is:
    sources there are the project's (and ``--out`` in their folder is refused, see
    ``port.layout.check_out``), never hidden from the port.
    """
    name = entry.name
    if port is not None and name == TREE and _identity(Path(entry.path)) == port:
        return "the ported tree in --out"
    if name.startswith("."):
        return "hidden folder"
    if name in PRUNED or name.endswith(".egg-info"):
        return f"{name}/ is build output, another backend's copy or vendored code"
    return ""


def _link_problem(root: Path, path: Path) -> str:
    """A symlink is followed only to a file inside the tree."""
    target = path.resolve()
    if not target.is_relative_to(root.resolve()):
        return f"symlink to {target} outside the source tree (not followed)"
    if not target.is_file():
        return "symlink to something that is not a file (not followed)"
    return ""


def jit_evidence(root: Path, files: list[str], builds: tuple[str, ...]) -> str:
    """The first Python module of the project that builds an extension when it runs ('' when none).

    A project may hold its kernels only in Python: strings handed to
    ``load_inline``, or sources that ``load`` compiles on import. Its Python
    is then all there is to port (``pyport``, ``extension.inline``), and the
    run is not one of nothing. Only a call of torch's own JIT builder counts
    (``extension.buildfiles.jit_builds``), so a mention in a comment does not.
    """
    skip = set(builds)
    for rel in sorted(f for f in files if f.endswith(".py") and f not in skip):
        text = _read(root / rel)
        if text is None or "cpp_extension" not in text:
            continue
        try:
            calls = jit_builds(ast.parse(text))
        except (SyntaxError, ValueError):
            continue  # the Python port reports the file that does not parse
        if calls:
            return f"{rel}:{calls[0].lineno}"
    return ""


def _read(path: Path) -> str | None:
    """The text of a source file, or None when it cannot be read (the port then fails it loudly)."""
    try:
        return path.read_bytes().decode("utf-8", "surrogateescape")
    except OSError:
        return None


def cuda_evidence(text: str, vocabulary: frozenset[str] = frozenset()) -> str:
    """The first sign, in code, that a C++ file uses CUDA or PyTorch's CUDA layer ('' when none).

    Comments and strings are blanked first, so ``// no cudaMalloc here`` and
    ``"cuda"`` are not evidence; an include of a CUDA header is.
    """
    code = blank(text)
    hits = [(m.start(), m.group(0)) for m in (_CUDA_USE.search(code), _CUDA_HEADER.search(blank(text, strings=False)))
            if m]
    hits += [(m.start(), m.group(0)) for m in _DRIVER_NAME.finditer(code) if m.group(0) in vocabulary][:1]
    if not hits:
        return ""
    pos, what = min(hits)
    line = text.count("\n", 0, pos) + 1
    shown = what if what == "<<<" else " ".join(what.strip(_DELIMITERS).split())
    return f"uses CUDA: {shown} (line {line})"


_DELIMITERS = "<>\""


def _select(texts: dict[str, str | None], includes: dict[str, tuple[Include, ...]], roots: tuple[str, ...],
            files: frozenset[str], names: dict[str, str] | None = None,
            registries: tuple[Registry, ...] = ()) -> tuple[tuple[Picked, ...], list[Skipped]]:
    """Pick by suffix, folder and code; then, until nothing changes, every file including a renamed one;
    and every file using a project name the port renames (``names``), or its call would name nothing."""
    names = names or {}
    vocabulary = _vocabulary()
    picked: dict[str, Picked] = {}
    rest: dict[str, str] = {}
    for rel, text in sorted(texts.items()):
        reason = _reason(rel, text, vocabulary)
        if reason:
            copy = rel.endswith(MUSA_SUFFIXES)
            picked[rel] = Picked(rel, rename_dirs(rel) if copy else project_rename(rel), copy, reason)
        elif rel.endswith(CHECKED_SUFFIXES) and text is not None and (used := uses(text, names)):
            picked[rel] = Picked(rel, project_rename(rel), False, f"uses {used}, a project name the port renames")
        elif rel.endswith(CHECKED_SUFFIXES) and text is not None and (used := registry_use(text, registries)):
            picked[rel] = Picked(rel, project_rename(rel), False, f"registers for CUDA with {used}")
        elif rel.endswith(CHECKED_SUFFIXES):
            rest[rel] = "no CUDA or PyTorch-CUDA API in its code"
    changed = True
    while changed:
        changed = False
        renamed = {p.rel for p in picked.values() if p.out != p.rel}
        for rel in sorted(rest):
            hit = next((i for i in includes.get(rel, ()) if resolve(i, rel, roots, files) in renamed), None)
            if hit is not None:
                picked[rel] = Picked(rel, project_rename(rel), False,
                                     f"includes {hit.spelling}, which the port renames")
                del rest[rel]
                changed = True
    skipped = [Skipped(rel, why) for rel, why in sorted(rest.items())]
    return tuple(picked[rel] for rel in sorted(picked)), skipped


def _reason(rel: str, text: str | None, vocabulary: frozenset[str]) -> str:
    """Why ``rel`` is a CUDA source ('' when it is not one)."""
    if rel.endswith(CUDA_SUFFIXES):
        return "CUDA source"
    if rel.endswith(MUSA_SUFFIXES):
        return "hand-written MUSA source (copied)"
    folder = next((p for p in rel.split("/")[:-1] if p in DEVICE_FOLDERS), "")
    if folder:
        return f"in a {folder}/ folder"
    if text is None:
        return "cannot be read (the port reports it)" if rel.endswith(CHECKED_SUFFIXES) else ""
    return cuda_evidence(text, vocabulary) if rel.endswith(CHECKED_SUFFIXES) else ""


def _vocabulary() -> frozenset[str]:
    return parse_vocabulary(vocabulary_file().read_bytes())


def include_roots(root: Path, files: list[str], builds: tuple[str, ...]) -> tuple[str, ...]:
    """The folders bracketed includes are relative to, in search order.

    First what the build files name (setup.py's ``include_dirs``, CMake's
    ``include_directories``), then the project root, then ``csrc``-like
    folders (``csrc``, ``src``, ``include``), shallow ones first.
    """
    folders = {f.rpartition("/")[0] for f in files}
    folders |= {"/".join(f.split("/")[:i]) for f in list(folders) for i in range(1, f.count("/") + 1)}
    declared = [d for b in builds for d in declared_include_dirs(root, b) if d == "" or d in folders]
    like = sorted((f for f in folders if f and f.rpartition("/")[2] in ROOT_LIKE), key=lambda f: (f.count("/"), f))
    return tuple(dict.fromkeys([*declared, "", *like]))
