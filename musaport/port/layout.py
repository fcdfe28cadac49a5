"""Which files of a PyTorch tree are ported, and where each one lands.

The selection is data (``rules/layouts/pytorch.yaml``), not code, so a backend team
can pass its own.  Discovery is a generator over root-relative POSIX paths
that reports every skip with its reason, the way black's ``files.py`` does.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from musaport.rewrite.transforms import rename_dirs, rename_path
from musaport.yamlload import Fields, load_yaml, read_config
from musaport.errors import LoadError

# Sources over this size are skipped with a warning: porting holds a file's
# text, its tokens and every rule's view of it in memory at once, so a 50 MB
# source costs about 1.6 GB and half a minute; PyTorch's largest is 150 kB.
MAX_SOURCE_BYTES = 8 * 1024 * 1024
# Characters a CMake quoted argument or list cannot carry as they are: the
# quote ends it, ``$`` expands variables, ``;`` splits the list, ``\`` escapes.
_CMAKE_UNSAFE = frozenset('"$;\\')


@dataclass(frozen=True)
class Folder:
    """One selected folder: recursion and the file-name globs it ports."""

    path: str
    recursive: bool
    files: tuple[str, ...]
    where: str
    # A folder some trees the layout serves lack (a later release's, or one the bundled mini tree
    # leaves out): missing, it selects nothing.  Any other missing folder is an error (a typo).
    optional: bool = False


@dataclass(frozen=True)
class OperatorFolders:
    """Folders outside the selection that the operator model reads (see ``ops.model``).

    ``generic``: device-generic folders whose ``.cpp`` files define CUDA
    kernels that go through stubs; ``vendor``: folders whose code needs a
    library MUSA has no counterpart for, each with the reason.
    """

    generic: tuple[str, ...] = ()
    vendor: tuple[tuple[str, str], ...] = ()

    def vendor_reason(self, path: str) -> str:
        """Why ``path`` cannot be ported, when it lies in a vendor folder ('' otherwise)."""
        return next((why for folder, why in self.vendor if path.startswith(folder + "/")), "")


@dataclass(frozen=True)
class Layout:
    """The whole selection, loaded from a layout file."""

    name: str
    markers: tuple[str, ...]
    copy_only: tuple[str, ...]
    suffixes: tuple[str, ...]
    exclude: tuple[str, ...]
    folders: tuple[Folder, ...]
    digest: str
    source: str
    operators: OperatorFolders = OperatorFolders()
    configured: tuple[Configured, ...] = ()
    # A selection computed by code rather than globs (``musaport run --src``, see
    # ``musaport.extension.discover``): discovery yields exactly these, in order.
    selected: tuple[Found | Skipped, ...] | None = None


@dataclass(frozen=True)
class Configured:
    """A CMake-configured header the port renders (``values`` for its ``@VAR@``/``#cmakedefine``)."""

    template: str
    values: tuple[tuple[str, str], ...]
    why: str
    where: str


@dataclass(frozen=True)
class Found:
    """A discovered file: its source path, where its port goes, and the values it is rendered with
    first when it is a configured header.

    ``size``/``mtime_ns``: the source's stat taken by discovery (-1: not
    taken), so the cache's plan need not stat it again.  ``error``: a folder
    that could not be read; the run fails on it like on an unreadable file.
    """

    rel: str
    out: str
    copy_only: bool
    values: tuple[tuple[str, str], ...] | None = None
    size: int = field(default=-1, compare=False)
    mtime_ns: int = field(default=-1, compare=False)
    error: str = ""


@dataclass(frozen=True)
class Skipped:
    """A path that was looked at and not taken, with the reason."""

    rel: str
    reason: str
    warn: bool = False


def load_layout(path: Path) -> Layout:
    """Parse a layout file; errors name the file and line."""
    raw = load_yaml(path)
    f = Fields(raw, f"{path}:1", "layout")
    optional = f.pop("optional", False, kind=bool)  # the default of each folder's 'optional'
    folders = tuple(_folder(entry, path, optional) for entry in f.pop("folders", kind=list))
    layout = Layout(
        name=f.pop("layout", kind=str),
        markers=tuple(f.pop("markers", [], kind=list, items=str)),
        copy_only=tuple(f.pop("copy_only", [], kind=list, items=str)),
        suffixes=tuple(f.pop("suffixes", kind=list, items=str)),
        exclude=tuple(f.pop("exclude", [], kind=list, items=str)),
        folders=folders,
        digest=hashlib.sha256(read_config(path)).hexdigest(),
        source=str(path),
        operators=_operator_folders(f.pop("operators", {}, kind=dict), path),
        configured=tuple(_configured(c, path) for c in f.pop("configured", [], kind=list)),
    )
    f.pop("why", "", kind=str)
    f.done()
    return layout


def _folder(entry: object, path: Path, optional: bool = False) -> Folder:
    line = entry.get("__line__", 0) if isinstance(entry, dict) else 0
    f = Fields(entry, f"{path}:{line}", "folder")
    folder = Folder(
        path=inside_path(f.pop("path", kind=str), f"{path}:{line}"),
        recursive=f.pop("recursive", True, kind=bool),
        files=tuple(f.pop("files", ["*"], kind=list, items=str)),
        where=f"{path}:{line}",
        optional=f.pop("optional", optional, kind=bool),
    )
    f.done()
    return folder


def _operator_folders(entry: dict, path: Path) -> OperatorFolders:
    f = Fields(entry, f"{path}:{entry.get('__line__', 0)}", "operators")
    generic = tuple(inside_path(g, f.where) for g in f.pop("generic", [], kind=list, items=str))
    vendor = tuple(_vendor(v, path) for v in f.pop("vendor", [], kind=list))
    f.done()
    return OperatorFolders(generic + tuple(p for p, _ in vendor), vendor)


def _vendor(entry: object, path: Path) -> tuple[str, str]:
    line = entry.get("__line__", 0) if isinstance(entry, dict) else 0
    f = Fields(entry, f"{path}:{line}", "vendor folder")
    found = (inside_path(f.pop("path", kind=str), f.where), f.pop("why", kind=str))
    f.done()
    return found


def _configured(entry: object, path: Path) -> Configured:
    line = entry.get("__line__", 0) if isinstance(entry, dict) else 0
    f = Fields(entry, f"{path}:{line}", "configured header")
    template = inside_path(f.pop("template", kind=str), f"{path}:{line}")
    values = f.pop("values", {}, kind=dict)
    why = f.pop("why", kind=str)
    f.done()
    if not template.endswith(".in"):
        raise LoadError(f"{path}:{line}: a configured header's template ends in .in ({template})")
    for key, value in values.items():
        if key != "__line__" and (isinstance(value, (dict, list)) or value is None):
            raise LoadError(f"{path}:{line}: value of {key!r} must be a number, a string or true/false "
                            f"(a CMake value), not {type(value).__name__}")
    pairs = tuple(sorted((str(k), _cmake_value(v)) for k, v in values.items() if k != "__line__"))
    return Configured(template, pairs, why, f"{path}:{line}")


def _cmake_value(value: object) -> str:
    """YAML's true/false as CMake writes them (1/0); everything else as text."""
    return {True: "1", False: "0"}.get(value, str(value)) if isinstance(value, bool) else str(value)


def inside_path(raw: str, where: str) -> str:
    """A layout folder as a tree-relative POSIX path, or a LoadError naming ``where``.

    An absolute path or a ``..`` part would read sources outside
    ``--pytorch-src`` and, since outputs mirror source paths, write their port
    outside ``--out``; both are refused rather than silently rewritten.  A
    trailing ``/`` and ``.`` parts are harmless and normalised away.
    """
    if raw.startswith("/") or ".." in raw.split("/"):
        raise LoadError(f"{where}: folder path {raw!r} leaves the source tree (absolute or with '..'); "
                        "give a path relative to --pytorch-src")
    path = posixpath.normpath(raw.rstrip("/")) if raw.strip("/") else ""
    if path in ("", "."):
        raise LoadError(f"{where}: folder path {raw!r} names no folder inside the source tree")
    return path


def _safe_rel(rel: str) -> bool:
    """True when ``rel`` is relative and stays below the folder it is joined to."""
    parts = rel.split("/")
    return bool(rel) and not rel.startswith("/") and not any(p in ("", ".", "..") for p in parts)


def name_problem(rel: str) -> str:
    """Why the path ``rel`` cannot be written into generated files ('' when it can).

    Names go into C++ comments, CMake lists, YAML, JSON and Markdown; a
    newline there turns a file name into a live ``#error`` or a CMake command,
    and bytes that are not UTF-8 cannot be written at all.  Such files are
    skipped with a warning rather than escaped into a port nobody can build.
    """
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return "bytes that are not valid UTF-8"
    if not rel.isprintable():
        return "a control or invisible character"
    unsafe = sorted(c for c in _CMAKE_UNSAFE if c in rel)
    if unsafe:
        return f"{' '.join(unsafe)}, which a CMake source list cannot carry"
    return ""


def printable(rel: str) -> str:
    """``rel`` as it can be shown in a report: itself when harmless, else its escaped repr
    (of the raw bytes when they are not UTF-8)."""
    if not name_problem(rel):
        return rel
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return repr(os.fsencode(rel))
    return repr(rel)


def check_tree(layout: Layout, root: Path) -> None:
    """Refuse a source tree that does not look like the layout expects."""
    if not root.is_dir():
        raise LoadError(f"{root}: --pytorch-src is not a directory")
    missing = [m for m in layout.markers if not (root / m).exists()]
    if missing:
        raise LoadError(f"{root}: not a PyTorch source tree (missing {', '.join(missing)})")
    for folder in layout.folders:
        if not folder.optional and not (root / folder.path).is_dir():
            raise LoadError(f"{folder.where}: layout folder {folder.path!r} is not a folder in {root} (a typo? "
                            "a folder only some trees have takes 'optional: true')")


def check_out(layout: Layout, root: Path, out: Path) -> None:
    """Refuse an output folder that would land inside the ported sources (or, for a PyTorch tree, anywhere in it),
    or that holds ported sources (its state and reports would land among them)."""
    out_r, root_r = out.resolve(), root.resolve()
    if out_r == root_r or root_r.is_relative_to(out_r):
        raise LoadError(f"{out}: --out must not be the source tree or contain it")
    for folder in layout.folders:
        path = (root_r / folder.path).resolve()
        if out_r == path or out_r.is_relative_to(path):
            raise LoadError(f"{out}: --out is inside the ported source folder {folder.path} ({folder.where})")
    # An extension project builds inside itself (``build/``, skipped by its discovery); a PyTorch
    # tree is never written: an --out anywhere in it (``--out pytorch/aten``) is refused.
    if layout.selected is None and out_r.is_relative_to(root_r):
        raise LoadError(f"{out}: --out is inside the source tree {root}, which a run never writes; "
                        "give a folder outside it")
    for folder in layout.folders:  # an --out above a ported folder: its state and reports among the sources
        if (root_r / folder.path).resolve().is_relative_to(out_r):
            raise LoadError(f"{out}: --out holds the ported source folder {folder.path} ({folder.where}); "
                            "give a folder that holds no sources")


def discover(layout: Layout, root: Path) -> Iterator[Found | Skipped]:
    """Yield every selected file once, in sorted order, and every skip.

    A layout computed by code (``selected``: an extension project's) yields
    its selection as it is. A folder that cannot be read is yielded as a
    ``Found`` with an ``error`` (the run fails, keeping the previous output)
    rather than dropped, which would delete its outputs.  A layout that
    selects nothing is a LoadError: a run of zero files is a wrong path, not
    a success.
    """
    if layout.selected is not None:
        yield from layout.selected
        return
    seen: set[str] = set()
    selected = 0
    root_r = root.resolve()
    for c in layout.configured:
        if (root / c.template).is_file():
            seen.add(c.template)
            item = _configured_found(c, root, root_r)
            selected += isinstance(item, Found)
            yield item
    match = _Matchers(layout)
    for folder in layout.folders:
        base = root / folder.path
        if not base.is_dir():
            continue
        wanted = _matcher(folder.files)
        for rel, entry in _walk(str(root), folder.path, folder.recursive):
            if rel in seen:
                continue
            if isinstance(entry, Found):
                item: Found | Skipped = entry
            elif wanted(entry.name):
                item = _classify(match, root_r, root, rel, entry)
            else:
                continue  # not this folder's business
            seen.add(rel)
            selected += isinstance(item, Found)
            yield item
    if not selected:
        raise LoadError(f"{layout.source}: selects no file in {root}: its folders are missing or hold "
                        "no source file; check the layout's folder paths")


def _configured_found(c: Configured, root: Path, root_r: Path) -> Found | Skipped:
    """A configured header to render and port, unless it is a symlink that leaves the tree
    (the rule for every source file)."""
    path = root / c.template
    if path.is_symlink() and not path.resolve().is_relative_to(root_r):
        return Skipped(c.template, f"symlink to {path.resolve()} outside the source tree (not followed)", warn=True)
    return Found(c.template, rename_path(c.template.removesuffix(".in")), False, c.values)


def _walk(root: str, start: str, recursive: bool) -> Iterator[tuple[str, os.DirEntry | Found]]:
    """Root-relative POSIX paths below ``start``, sorted, each with its directory entry, not
    following links to folders.

    The entry carries the file's type from the directory listing, so telling
    files, folders and symlinks apart costs no system call.  A folder that
    cannot be listed comes out as a failed ``Found`` naming it.  Depth first,
    a folder's files before its subfolders, with a stack rather than recursion:
    a tree thousands of folders deep is walked like any other.
    """
    pending = [start]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(f"{root}/{folder}") as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            yield folder, Found(folder, "", False, error=f"cannot read folder: {exc.strerror or exc}")
            continue
        dirs = []
        for entry in entries:
            rel = f"{folder}/{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                dirs.append(rel)
            else:
                yield rel, entry
        if recursive:
            pending.extend(reversed(dirs))


class _Matchers:
    """The layout's globs, each list compiled into one regex (what ``fnmatchcase`` does per glob)."""

    def __init__(self, layout: Layout) -> None:
        self.excluded = _matcher(layout.exclude)
        self.copy_only = _matcher(layout.copy_only)
        self.suffixes = tuple(layout.suffixes)


def _matcher(globs: tuple[str, ...]) -> Callable[[str], bool]:
    """True for a name that ``fnmatch.fnmatchcase`` matches with any of ``globs``."""
    if not globs:
        return lambda _name: False
    regex = re.compile("|".join(fnmatch.translate(g) for g in globs))
    return lambda name: regex.match(name) is not None


def _classify(match: _Matchers, root_r: Path, root: Path, rel: str,
              entry: os.DirEntry) -> Found | Skipped:
    """Decide what happens to one file its folder's globs select.

    Costs one ``stat`` for a selected file (its size and mtime, for the plan)
    and none for the others; a symlink is resolved to check where it points.
    """
    name = entry.name
    problem = name_problem(rel)
    if problem:
        return Skipped(printable(rel), f"file name has {problem} (not ported)", warn=True)
    if match.excluded(rel):
        return Skipped(rel, "excluded by layout")
    if not name.endswith(match.suffixes):
        return Skipped(rel, "not a source file")
    if entry.is_symlink():
        try:
            target = (root / rel).resolve()
        except (RuntimeError, OSError):  # RuntimeError: Python before 3.13 on a loop
            return Skipped(rel, "symlink loop (not followed)", warn=True)
        if not target.is_relative_to(root_r):
            return Skipped(rel, f"symlink to {target} outside the source tree (not followed)", warn=True)
        if not target.is_file():
            return Skipped(rel, "symlink to something that is not a file", warn=True)
    elif not entry.is_file(follow_symlinks=False):
        return Skipped(rel, "not a regular file (a FIFO, socket or device; reading it could block)", warn=True)
    copy = match.copy_only(name)
    out = rename_dirs(rel) if copy else rename_path(rel)
    if not _safe_rel(out):
        return Skipped(rel, f"its port {out!r} would leave the output tree (not ported)", warn=True)
    return _sized(Found(rel, out, copy), entry)


def _sized(found: Found, entry: os.DirEntry) -> Found | Skipped:
    """``found`` with its source's size and mtime, or a Skipped when it is over the size limit."""
    try:
        st = entry.stat()  # follows a symlink (checked above to stay inside the tree)
    except OSError:
        return found  # the read fails later, as a failed file
    if st.st_size > MAX_SOURCE_BYTES:
        return Skipped(found.rel, f"{st.st_size} bytes, over the {MAX_SOURCE_BYTES // (1024 * 1024)} MiB "
                                  "limit for one source (not ported)", warn=True)
    return Found(found.rel, found.out, found.copy_only, found.values, st.st_size, st.st_mtime_ns)
