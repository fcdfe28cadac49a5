"""The project's Python in ``musaport run --src``: which files, what each becomes, and the run's hooks.

Every ``.py`` of the project (package, tests, scripts) but its build files
(``setup.py``, which ``extension.buildfiles`` ports) is part of the run's
selection at its own path, so the cache, ``--jobs``, the staging and the
report treat it as they treat a C++ file. :func:`port_python` is the per-file
step (bytes in, a :class:`~musaport.port.file.FileResult` out); a file LibCST
cannot parse, or that is not UTF-8, is copied unchanged with a warning
naming its line.
"""

from __future__ import annotations

import ast
import hashlib
import io
import json
import re
import tokenize
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from musaport import __version__
from musaport.port.file import FileResult, FileStatus, Task, sha256
from musaport.port.layout import Found, Layout
from musaport.pyport.pack import Pack, load

if TYPE_CHECKING:
    from musaport.extension.inline import CppPorter
    from musaport.extension.discover import Discovery

PY_SUFFIX = ".py"
# A .py this large is generated data (tables, embedded weights), not code a person wrote: LibCST would
# take minutes over it, so it is copied as it is, with a warning.
MAX_PYTHON_BYTES = 2 * 1024 * 1024
PROVENANCE = "# musaport"
# The first line may be a #! line, and the first two may carry the encoding (PEP 263): the provenance
# comment goes after them, so the script still runs and still decodes.
_CODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")


@dataclass(frozen=True)
class PythonPort:
    """What porting the project's Python depends on: the pack and the extension module renames."""

    pack: Pack
    modules: tuple[tuple[str, str], ...] = ()
    renames: tuple[tuple[str, str], ...] = ()  # the run's file renames, which a JIT build's source paths follow
    files: tuple[str, ...] = ()  # the project's files, against which a JIT build's source paths are checked

    def digest(self) -> str:
        """For the cache key: a changed pack, module rename, file rename or file list re-ports every Python
        file."""
        return hashlib.sha256(json.dumps([self.pack.digest, list(self.modules), list(self.renames),
                                          list(self.files)]).encode()).hexdigest()

    def __call__(self, task: Task, data: bytes, cpp: "CppPorter | None" = None) -> FileResult | None:
        """The run's porter hook: this port's result for a ``.py`` task (None: not a Python file); ``cpp``
        ports C++ text with the run's packs (``load_inline``'s source strings)."""
        if not task.src.endswith(PY_SUFFIX):
            return None
        return port_python(data, task.src, task.out, self.pack, dict(self.modules), dict(self.renames), cpp,
                           frozenset(self.files))


def port_python(data: bytes, src: str, out: str, pack: Pack, modules: dict[str, str] | None = None,
                renames: dict[str, str] | None = None, cpp: "CppPorter | None" = None,
                files: frozenset[str] = frozenset()) -> FileResult:
    """One Python file ported: PORTED with a provenance line, UNCHANGED, or COPIED (already a port);
    never FAILED for its content (a file LibCST cannot parse is copied unchanged, with a warning).

    A module that builds its extension when it runs (``torch.utils.cpp_extension.load``) first has its
    source paths follow the port's file ``renames``, as setup.py's do (``extension.buildfiles.port_jit_paths``),
    and the C++ of its ``load_inline`` source strings is ported by ``cpp`` (``extension.inline``); each of
    those paths that named project ``files`` and names other files after the port is a finding.
    """
    digest = sha256(data)
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]  # PEP 263's cookie, or UTF-8
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return FileResult(src, out, FileStatus.UNCHANGED, digest, digest, data=data,
                          warnings=(f"line {line}: not valid {exc.encoding}; copied unchanged (not ported)",))
    except (SyntaxError, LookupError) as exc:
        return FileResult(src, out, FileStatus.UNCHANGED, digest, digest, data=data,
                          warnings=(f"line 1: its encoding cannot be read ({exc}); copied unchanged (not ported)",))
    if _provenance_line(text):
        return FileResult(src, out, FileStatus.COPIED, digest, digest, data=data)
    jit = _jit_paths(text, src, renames or {}, cpp, files) if len(data) <= MAX_PYTHON_BYTES else None
    if jit is not None:
        original, text = text, jit.text
    if not _may_use_cuda(text, modules or {}) and jit is None:
        return FileResult(src, out, FileStatus.UNCHANGED, digest, digest, data=data)
    if len(data) > MAX_PYTHON_BYTES:
        return FileResult(src, out, FileStatus.UNCHANGED, digest, digest, data=data,
                          warnings=(f"line 1: over {MAX_PYTHON_BYTES // 1024 // 1024} MB, which is data rather "
                                    "than code; copied unchanged (not ported)",))
    unparsable = _python_problem(text, src)
    if unparsable:
        return FileResult(src, out, FileStatus.UNCHANGED, digest, digest, data=data,
                          warnings=(f"{unparsable}; copied unchanged (not ported)",))
    from musaport.pyport.codemod import ParseFailure, port_text  # LibCST: imported only when there is work

    try:
        ported = port_text(text, pack, modules)
    except RecursionError:
        return FileResult(src, out, FileStatus.UNCHANGED, digest, digest, data=data,
                          warnings=("line 1: nested too deeply for LibCST; copied unchanged (not ported)",))
    except ParseFailure as exc:
        return FileResult(src, out, FileStatus.UNCHANGED, digest, digest, data=data,
                          warnings=(f"line {exc.line}: LibCST cannot parse it ({_short(exc.message)}); "
                                    "copied unchanged (not ported)",))
    if jit is not None:  # the two ports edit strings in place, so the lines of their findings agree
        fired = dict(jit.fired)
        for rule, n in ported.fired.items():
            fired[rule] = fired.get(rule, 0) + n
        findings = tuple(sorted((*jit.findings, *ported.findings), key=lambda f: (f.line, f.rule, f.text)))
        ported, text = replace(ported, fired=dict(sorted(fired.items())), findings=findings), original
    unmapped = jit.unmapped if jit is not None else ()  # the C++ of load_inline's strings (extension.inline)
    if ported.text == text:
        return FileResult(src, out, FileStatus.UNCHANGED, digest, digest, findings=ported.findings,
                          unmapped=unmapped, data=data)
    new = with_provenance(ported.text, src, digest).encode(encoding)
    return FileResult(src, out, FileStatus.PORTED, digest, sha256(new), ported.fired, ported.findings, unmapped,
                      data=new)


def _jit_paths(text: str, src: str, renames: dict[str, str], cpp: "CppPorter | None" = None,
               files: frozenset[str] = frozenset()):
    """``text`` with a JIT build's source paths following the port (None: the module builds nothing), and a
    ``build-source-lost`` finding for each that named project ``files`` and names others after it."""
    if "cpp_extension" not in text:
        return None
    from musaport.extension.buildfiles import Paths, port_jit_paths, source_findings

    paths = Paths.of(renames, files)
    ported = port_jit_paths(text, src.rpartition("/")[0], paths, cpp)
    if ported is None or not files:
        return ported
    return replace(ported, findings=ported.findings + source_findings(src, text, ported.text, paths))


def _python_problem(text: str, src: str) -> str:
    """Why Python's own parser refuses ``text`` ('' when it reads it), as 'line N: ...'.

    Asked first because it is fast and bounded: LibCST's native parser
    overflows its stack (a crash, not an exception) on nesting that Python
    refuses with an error (thousands of brackets or unary operators).
    """
    try:
        with warnings.catch_warnings():  # the project's invalid escapes and the like are not the port's to say
            warnings.simplefilter("ignore")
            ast.parse(text, src)
    except SyntaxError as exc:
        return f"line {exc.lineno or 1}: not Python 3 ({exc.msg})"
    except (RecursionError, MemoryError, ValueError) as exc:
        return f"line 1: cannot be parsed ({type(exc).__name__}: nested too deeply or not text)"
    return ""


def _short(message: str) -> str:
    """LibCST's parser message without its list of every token it expected."""
    first = (message.splitlines() or [""])[0]
    return first.split(": expected one of", 1)[0][:120]


def _may_use_cuda(text: str, modules: dict[str, str]) -> bool:
    """A cheap test before parsing: only a file that spells cuda/CUDA (or a renamed module) has work."""
    return "cuda" in text or "CUDA" in text or any(m.rpartition(".")[2] in text for m in modules)


def with_provenance(text: str, src: str, digest: str) -> str:
    """``text`` with the line naming the tool, the source and its hash, after any #! and coding lines."""
    newline = "\r\n" if "\r\n" in text[:4096] else "\n"
    name = src if src.isprintable() else repr(src)
    header = f"{PROVENANCE} {__version__}: ported from {name} (sha256 {digest[:16]}){newline}"
    lines = text.splitlines(keepends=True)
    keep = 1 if lines and lines[0].startswith("#!") else 0
    for i, line in enumerate(lines[:2]):
        if _CODING.match(line):
            keep = max(keep, i + 1)
    return "".join(lines[:keep]) + header + "".join(lines[keep:])


def _provenance_line(text: str) -> bool:
    """The file is a port already (its provenance line is among its first three)."""
    return any(line.startswith(PROVENANCE + " ") for line in text.splitlines()[:3])


# ---------------------------------------------------------------- the run's selection

def python_files(files: frozenset[str], build_files: tuple[str, ...]) -> tuple[Found, ...]:
    """Every ``.py`` of the project but its build files, each ported to its own path."""
    builds = set(build_files)
    return tuple(Found(rel, rel, False) for rel in sorted(files) if rel.endswith(PY_SUFFIX) and rel not in builds)


def with_python(layout: Layout, found: tuple[Found, ...], port: PythonPort) -> Layout:
    """The discovered layout with the Python files added; its digest covers them and the port's inputs."""
    selected = tuple(layout.selected or ())
    have = {f.rel for f in selected if isinstance(f, Found)}
    extra = tuple(f for f in found if f.rel not in have)
    files = sorted([f for f in selected if isinstance(f, Found)] + list(extra), key=lambda f: f.rel)
    rest = tuple(s for s in selected if not isinstance(s, Found))
    digest = hashlib.sha256(f"{layout.digest}\0{port.digest()}\0{[f.rel for f in extra]}".encode()).hexdigest()
    return replace(layout, selected=tuple(files) + rest, digest=digest)


# ---------------------------------------------------------------- extension module renames

def extension_names(setup_text: str) -> list[str]:
    """The module names a setup.py builds, in order: the literal first argument (or ``name=``) of each
    ``*Extension(...)`` call; a name built at run time is left out (the port cannot follow it)."""
    try:
        tree = ast.parse(setup_text)
    except (SyntaxError, ValueError):
        return []
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if not func.endswith("Extension"):
                continue
            arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "name"), None)
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                names.append((node.lineno, node.col_offset, arg.value))
    return [n for _, _, n in sorted(names)]


def module_renames(before: str, after: str) -> tuple[tuple[str, str], ...]:
    """Extension module renames the build-file port made: names that differ between ``setup.py`` and its
    port, matched in order (none when the two do not build the same number of extensions)."""
    old, new = extension_names(before), extension_names(after)
    if len(old) != len(new):
        return ()
    return tuple(sorted({a: b for a, b in zip(old, new) if a != b}.items()))


def project_renames(source: Path, build_files: tuple[str, ...], ported: dict[str, bytes]) -> tuple[tuple[str, str], ...]:
    """The extension module renames of a project: each setup.py against its port (``ported``: build
    file → its ported bytes; a build file that could not be ported renames nothing)."""
    found: dict[str, str] = {}
    for rel in build_files:
        if not rel.endswith("setup.py") or rel not in ported:
            continue
        try:
            before = (source / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeError):
            continue
        found.update(module_renames(before, ported[rel].decode("utf-8", "replace")))
    return tuple(sorted(found.items()))


def python_port(modules: tuple[tuple[str, str], ...] = (), renames: tuple[tuple[str, str], ...] = (),
                files: tuple[str, ...] = ()) -> PythonPort:
    """The port of a run: the bundled pack, the project's module renames, its file renames and its files."""
    return PythonPort(load(), modules, renames, files)


def of_discovery(source: Path, discovery: "Discovery") -> tuple[PythonPort, tuple[Found, ...]]:
    """The Python port of a discovered extension project and its Python files.

    The module renames come from porting each ``setup.py`` here as the
    generation step will (``extension.buildfiles``, pure and cheap): the
    imports follow exactly what the ported build names.
    """
    from musaport.extension.buildfiles import Paths, port_build_file
    from musaport.rewrite.transforms import rename_dirs

    paths = Paths.of(discovery.renames(), discovery.files)
    ported: dict[str, bytes] = {}
    for rel in discovery.build_files:
        if rel.endswith("setup.py"):
            try:
                ported[rel] = port_build_file(source, rel, rename_dirs(rel), paths).data or b""
            except Exception:  # noqa: BLE001 - the generation step ports it again and reports the failure
                continue
    port = python_port(project_renames(source, discovery.build_files, ported), tuple(sorted(paths.files.items())),
                       tuple(sorted(discovery.files)))
    return port, python_files(discovery.files, discovery.build_files)
