"""An extension's build files: setup.py to torch_musa's builder, CMake source lists to the renamed files.

``setup.py`` builds CUDA code with ``torch.utils.cpp_extension``
(``CUDAExtension``, ``BuildExtension``, ``CUDA_HOME``, an ``nvcc`` entry in
``extra_compile_args``). torch_musa's ``torch_musa.utils.musa_extension``
offers ``MUSAExtension``, ``BuildExtension`` and ``MUSA_HOME`` and reads the
MUSA compiler's flags from an ``mcc`` entry, so those names move there;
``CppExtension`` and the rest stay with torch. Python is read with ``ast``
(which statement is the import, which strings are paths) and ``tokenize``
(where each name and string is), so a comment or an unrelated string is
never touched. ``CMakeLists.txt`` keeps its logic: only the source files it
names follow their renames and ``WITH_CUDA``/``USE_CUDA`` become
``WITH_MUSA``/``USE_MUSA``, as in the ported code. Everything that only a
person can port (CMake's CUDA language, ``find_package(CUDA)``,
architectures, nvcc flags, ``torch.cuda`` checks) is reported with its
``file:line`` and left as it is.
"""

from __future__ import annotations

import ast
import io
import posixpath
import re
import tokenize
from bisect import bisect_right
from dataclasses import dataclass, replace
from pathlib import Path

from musaport.extension import inline, sources
from musaport.extension.includes import follow_path, join
from musaport.extension.pyeval import assignments, evaluate
from musaport.port.file import UNSCANNED_INLINE, FileResult, FileStatus, provenance, sha256
from musaport.pyport.pack import load as load_python_pack  # owns which torch.cuda names torch.musa mirrors
from musaport.rewrite.apply import Finding
from musaport.rewrite.transforms import rename_path

BUILD_FILES = ("setup.py", "CMakeLists.txt")
TORCH_BUILDER = "torch.utils.cpp_extension"
MUSA_BUILDER = "torch_musa.utils.musa_extension"
# torch's CUDA builder names → torch_musa's (its public API: MUSAExtension, BuildExtension, MUSA_HOME).
MUSA_NAMES = {"CUDAExtension": "MUSAExtension", "BuildExtension": "BuildExtension", "CUDA_HOME": "MUSA_HOME"}
# extra_compile_args keys: torch_musa's BuildExtension reads the MUSA compiler's flags from 'mcc', and
# MUSAExtension its device-link flags from 'mcc_dlink' (torch's CUDAExtension: 'nvcc', 'nvcc_dlink').
COMPILER_KEYS = {"nvcc": "mcc", "nvcc_dlink": "mcc_dlink"}
# WITH_CUDA, USE_CUDA and a project's own <PREFIX>_WITH_CUDA, also in a -DWITH_CUDA flag.
_GUARD = re.compile(r"(?:(?<=-D)|\b)((?:\w+_)?)(WITH|USE)_CUDA\b")


def build_guard(name: str) -> bool:
    """Whether the ported build files rename this macro themselves (WITH_CUDA, USE_CUDA, <PREFIX>_WITH_CUDA)."""
    return _GUARD.fullmatch(name) is not None


_SOURCE = re.compile(r"\.(?:cu|cuh|cpp|cc|cxx|c|h|hpp|mu|muh)$")
_CMAKE_PREFIX = re.compile(
    r"^\$\{(CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR|PROJECT_SOURCE_DIR|CMAKE_SOURCE_DIR)\}/?")
_CMAKE_SPECIAL = re.compile(r"[\"#]|(?<![^\s(])\[=*\[")
_CMAKE_BRACKET = re.compile(r"\[(=*)\[")
_LIST_SEP = re.compile(r"(?<!\\);")
_CMAKE_ARG = re.compile(r"\"(?:\\.|[^\"\\])*\"|[^\s()\"#;]+")
_CMAKE_INCLUDES = re.compile(r"\b(target_)?include_directories\s*\(([^)]*)\)", re.I)
_CMAKE_KEYWORDS = {"SYSTEM", "BEFORE", "AFTER", "PUBLIC", "PRIVATE", "INTERFACE"}


@dataclass(frozen=True)
class Flag:
    """Build logic that only a person can port: reported with file:line, never rewritten."""

    id: str
    pattern: re.Pattern[str]
    message: str


NVCC_FLAGS = Flag("build-nvcc-flags", re.compile(
    r"--expt-relaxed-constexpr|--expt-extended-lambda|-gencode\b|--generate-code\b|-arch=sm_\d+|--use_fast_math"
    r"|-Xcompiler\b|-Xptxas\b|-ccbin\b|\bsm_\d+\b|\bcompute_\d+\b|-D__CUDA_NO_\w+"),
    "nvcc-specific flag; choose the MUSA compiler's (mcc) equivalent by hand")
CMAKE_FLAGS = (
    Flag("cmake-cuda-language", re.compile(r"\benable_language\s*\(\s*CUDA\b|\bLANGUAGES?\b[^)\n]*\bCUDA\b", re.I),
         "CMake's CUDA language compiles with nvcc; .mu files are built by the MUSA compiler (mcc)"),
    Flag("cmake-find-cuda", re.compile(r"\bfind_package\s*\(\s*(?:CUDA|CUDAToolkit)\b", re.I),
         "finds the CUDA toolkit; finding the MUSA toolkit (MUSA_HOME) is not guessed"),
    Flag("cmake-cuda-architectures", re.compile(r"\b(?:CMAKE_)?CUDA_ARCHITECTURES\b|\bTORCH_CUDA_ARCH_LIST\b"),
         "NVIDIA architectures; choose the MUSA architectures by hand"),
    Flag("cmake-cuda-toolchain", re.compile(
        r"\bCMAKE_CUDA_(?!ARCHITECTURES)\w+|\bCUDA_NVCC_FLAGS\b|\bCUDA_SEPARABLE_COMPILATION\b"
        r"|\bCUDA_RESOLVE_DEVICE_SYMBOLS\b|\bCUDA_TOOLKIT_ROOT_DIR\b|\bCUDAToolkit_\w+"),
         "a setting of the CUDA toolchain (nvcc); it has no effect on the MUSA build"),
    Flag("cmake-cuda-targets", re.compile(
        r"\bCUDA::\w+|\bcuda_add_(?:library|executable)\b|\$<COMPILE_LANGUAGE:CUDA>|\bLANGUAGE\s+CUDA\b"),
         "CUDA-only CMake targets or properties; link or build the MUSA counterparts by hand"),
    NVCC_FLAGS,
)
TORCH_CUDA = Flag("setup-torch-cuda", re.compile(r"\btorch\.cuda\b"),
                  "a CUDA check in the build script; decide by hand what the MUSA build tests (torch_musa's device)")
CUDA_ENV = Flag("setup-cuda-environment", re.compile(r"^\w*CUDA\w*$"),
                "a CUDA environment variable or setting; decide its MUSA counterpart by hand")
NVCC_PROGRAM = Flag("setup-nvcc-program", re.compile(r"/nvcc(?:\.exe)?$"),
                    "runs nvcc, CUDA's compiler, from the toolkit folder (its version, its flags); MUSA_HOME has "
                    "the MUSA compiler (mcc) instead, whose version output differs: port this check by hand (keep the "
                    "edit as a patch: validate --extension --patch)")
JIT_BUILD = Flag("py-jit-extension-build", re.compile(r"\b(?:load|load_inline)\s*\("),
                 f"builds the extension when this code runs (a JIT build): the port calls {MUSA_BUILDER}'s "
                 f"builder of the same name, which compiles .mu sources with the MUSA compiler (mcc), where "
                 f"{TORCH_BUILDER}'s compiles .cu with nvcc; its source paths and globs were renamed as the port "
                 "renames files, and its nvcc flags are reported. The build happens on the first import, so only "
                 "running the code (validate --extension runs the project's tests) shows that it builds")
JIT_INLINE = Flag("py-jit-inline-sources", re.compile(r"\bload_inline\s*\("),
                  "load_inline compiles C++ and CUDA code held in Python strings; these are not string literals "
                  "the port can rewrite in place (a call, a concatenation, an f-string, a name bound more than "
                  "once, or a rewrite that would change the string's lines), so their CUDA names and includes "
                  "stay: port them by hand, or move them into source files built with load()")
JIT_INLINE_UNSCANNED = Flag(UNSCANNED_INLINE, re.compile(r"\bload_inline\s*\("),
                            "load_inline compiles code that only running this module makes (a call's result, a "
                            "name bound elsewhere, an f-string's fields): the scan for CUDA names left after "
                            "porting could not read it, so the unmapped report does not cover it")
JIT_INLINE_UNMAPPED = Flag("py-jit-inline-unmapped", re.compile(r"\bload_inline\s*\("),
                           "load_inline's source strings were ported as source files are, but these CUDA names in "
                           "them have no MUSA mapping: port them by hand")
# The edit that ports a load_inline source literal's C++ with the C++ packs (extension.inline).
JIT_INLINE_RULE = "py-jit-inline-ported"
JIT_UNPORTED = Flag("py-jit-builder-kept", re.compile(r"cpp_extension"),
                    f"a JIT build through {TORCH_BUILDER} that the port cannot point at {MUSA_BUILDER}'s builder "
                    "(a star import, or a module without a top-level import to add torch_musa's to): it would "
                    "compile .mu sources as C++ without the MUSA compiler; call torch_musa's builder by hand")
# torch's JIT builder keywords → torch_musa's (its load and load_inline take extra_musa_cflags, with_musa and
# musa_sources where torch's take extra_cuda_cflags, with_cuda and cuda_sources).
JIT_KEYWORDS = {"extra_cuda_cflags": "extra_musa_cflags", "with_cuda": "with_musa", "cuda_sources": "musa_sources"}
JIT_RULE = "py-jit-musa-builder"
SETUP_TORCH_DEVICE = "setup-torch-device"
QUALIFIED = Flag("setup-qualified-builder", re.compile(r"cpp_extension"),
                 f"a qualified use of {TORCH_BUILDER}'s CUDA builder the port cannot rewrite (only "
                 f"torch.utils.cpp_extension.NAME in a script that imports torch is); use {MUSA_BUILDER}'s")


@dataclass(frozen=True)
class Paths:
    """The renames a build file's paths must follow: files and whole folders, and every project file."""

    files: dict[str, str]
    folders: dict[str, str]
    known: frozenset[str]

    @classmethod
    def of(cls, renames: dict[str, str], known: frozenset[str]) -> "Paths":
        folders: dict[str, str] = {}
        for src, out in renames.items():
            s, o = src.split("/")[:-1], out.split("/")[:-1]
            for i in range(1, len(s) + 1):
                if s[:i] != o[:i]:
                    folders["/".join(s[:i])] = "/".join(o[:i])
        return cls(dict(renames), folders, known)

    def rename(self, value: str, base: str, loose: bool) -> str:
        """The ported spelling of a path named relative to ``base`` (``loose``: a glob or a path fragment)."""
        target = join(base, value) if value and "*" not in value else None
        if target is not None and target in self.files:
            return follow_path(value, self.files[target])
        if target is not None and target in self.folders:
            return follow_path(value, self.folders[target])
        return _loose(value) if loose or "*" in value else value


def _loose(value: str) -> str:
    """A path fragment or glob: ``cuda`` folders and ``.cu``/``.cuh`` names renamed as the port renames them."""
    parts = value.split("/")
    parts = ["musa" if p == "cuda" else p for p in parts[:-1]] + parts[-1:]
    last = parts[-1]
    if last == "cuda" or re.search(r"\.cuh?$", last):
        parts[-1] = rename_path(last)
    return "/".join(parts)


# A piece of a path a script builds (``name + '_cuda.cu'``, ``'{}_cuda.cu'.format(n)``, ``f'{d}/cuda/{n}.cu'``):
# it names a CUDA source by its suffix, so its CUDA parts are renamed as the port renames files and folders,
# and any expression that named a project file before names its port after.
_CUDA_PIECE = re.compile(r"\.cuh?$|\.cuh?\*?$|\*\.cuh?\b")


def fragment(value: str) -> str:
    """A path piece whose file the port renames, renamed alike (``_cuda.cu`` → ``_musa.mu``,
    ``/cuda/`` → ``/musa/``); a piece that names no CUDA source stays."""
    if not _CUDA_PIECE.search(value):
        return value
    folder, sep, name = value.rpartition("/")
    renamed = "/".join("musa" if p == "cuda" else p for p in folder.split("/")) + sep if sep else ""
    return renamed + rename_path(name)


def _source_piece(value: str) -> str:
    """A string piece of an expression that builds a source path: its ``cuda`` folder names (a component
    between slashes, or the whole piece) and its CUDA file name renamed as the port renames them."""
    parts = value.split("/")
    if len(parts) > 1 or value == "cuda":
        last = len(parts) - 1
        parts = ["musa" if p == "cuda" and (i < last or len(parts) == 1 or value.endswith("/cuda")) else p
                 for i, p in enumerate(parts)]
    return fragment("/".join(parts))


_FSTRING_PIECE = re.compile(r"\{\{|\}\}|\{[^{}]*\}")


def fstring_pieces(body: str) -> list[tuple[str, bool]] | None:
    """An f-string's body as (text, is_literal) pieces; None when its braces are nested (left alone)."""
    pieces, pos = [], 0
    for m in _FSTRING_PIECE.finditer(body):
        if m.start() > pos:
            pieces.append((body[pos : m.start()], True))
        pieces.append((m.group(0), m.group(0) in ("{{", "}}")))
        pos = m.end()
    if pos < len(body):
        pieces.append((body[pos:], True))
    if any(lit and ("{" in t or "}" in t) and t not in ("{{", "}}") for t, lit in pieces):
        return None
    return pieces


def port_fstring(body: str, in_path_call: bool) -> str:
    """An f-string that builds a source path: the CUDA parts of its literal pieces renamed (the pieces of a
    path that ends in a CUDA source: ``f'{d}/cuda/{name}_cuda.cu'``); other f-strings stay."""
    pieces = fstring_pieces(body)
    literal = "".join(t for t, lit in pieces or () if lit)
    if pieces is None or not (_CUDA_PIECE.search(pieces[-1][0]) and pieces[-1][1]) and not in_path_call:
        return body
    out = []
    for text, lit in pieces:
        if lit and text not in ("{{", "}}"):
            parts = text.split("/")
            text = "/".join("musa" if p == "cuda" and (i < len(parts) - 1 or in_path_call) else p
                            for i, p in enumerate(parts))
            text = fragment(text) if _CUDA_PIECE.search(text) else text
        out.append(text)
    return "".join(out) if literal else body


@dataclass(frozen=True)
class Ported:
    """A build file's new text, the rules that changed it, and what a person must review."""

    text: str
    fired: dict[str, int]
    findings: tuple[Finding, ...]
    unmapped: tuple[tuple[str, int], ...] = ()  # CUDA names left in the C++ of load_inline's strings, by line


# Python ends a line at CR LF, LF or a lone CR (its tokenizer's universal newlines); CMake at LF.
_PY_NEWLINE = re.compile(r"\r\n|\r|\n")


class _Edits:
    """Edits (start, end, new, rule) and findings, applied back to front.

    Lines are counted as Python counts them (``\r\n``, ``\r`` or ``\n``), so a
    (line, column) from ``ast`` or ``tokenize`` is an offset into the text as it
    is on disk, whatever its line endings.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.edits: list[tuple[int, int, str, str]] = []
        self.findings: list[Finding] = []
        self.unmapped: set[tuple[str, int]] = set()
        self.starts = [0] + [m.end() for m in _PY_NEWLINE.finditer(text)]

    def offset(self, line: int, col: int) -> int:
        """The text offset of a (line, column); past the last line (tokenize's end marker of a script with no
        final newline) is the end of the text."""
        return self.starts[line - 1] + col if line <= len(self.starts) else len(self.text)

    def line(self, pos: int) -> int:
        return bisect_right(self.starts, pos)

    def edit(self, start: int, end: int, new: str, rule: str) -> None:
        if new != self.text[start:end]:
            self.edits.append((start, end, new, rule))

    def flag(self, flag: Flag, pos: int, text: str) -> None:
        self.findings.append(Finding(flag.id, self.line(pos), text, flag.message))

    def result(self) -> Ported:
        text, fired = self.text, {}
        for start, end, new, rule in sorted(self.edits, reverse=True):
            text = text[:start] + new + text[end:]
            fired[rule] = fired.get(rule, 0) + 1
        first: dict[tuple[str, int], Finding] = {}
        for f in sorted(self.findings, key=lambda f: (f.line, f.rule)):
            first.setdefault((f.rule, f.line), f)  # one finding per rule and line
        return Ported(text, dict(sorted(fired.items())), tuple(first.values()), tuple(sorted(self.unmapped)))


def python_lines(text: str) -> str:
    """``text`` with every line ending as ``\n``: what Python's tokenizer sees (line and column numbers are
    the same as in ``text``)."""
    return _PY_NEWLINE.sub("\n", text)


def port_setup_py(text: str, folder: str, paths: Paths) -> Ported:
    """setup.py built with torch_musa's extension builder; raises SyntaxError when it is not Python.

    ``text`` is the decoded script (``read_python``); the result is checked with ``ast.parse``, so an edit that
    would make invalid Python raises SyntaxError instead of being written.
    """
    lines = python_lines(text)
    tree = ast.parse(lines)
    edits = _Edits(text)
    covered = [_import_edit(node, edits) for node in ast.walk(tree)
               if isinstance(node, ast.ImportFrom) and node.module == TORCH_BUILDER]
    path_args = _path_arguments(tree)
    pieces = sources.source_pieces(tree)
    labels = _names_and_metadata(tree)
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(lines).readline)
              if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT,
                             tokenize.ENDMARKER)]
    torch_import = _top_level_import(tree, "torch", edits)
    qualified = [i for i in range(len(tokens)) if _qualified_builder(tokens, i)] if torch_import is not None else []
    aliases = _builder_module_aliases(tree)
    through_alias = [i for i in range(len(tokens)) if _aliased_builder(tokens, i, aliases)]
    musa_builder = any(s >= 0 for s, _ in covered) or bool(qualified) or bool(through_alias)
    for i, tok in enumerate(tokens):
        start, end = edits.offset(*tok.start), edits.offset(*tok.end)
        if any(s <= start < e for s, e in covered if s >= 0):
            continue
        before = tokens[i - 1].string if i else ""
        after = tokens[i + 1].string if i + 1 < len(tokens) else ""
        if i in qualified:
            edits.edit(edits.offset(*tokens[i - 6].start), end, f"{MUSA_BUILDER}.{MUSA_NAMES[tok.string]}",
                       "setup-builder-names")
        elif i in through_alias:
            edits.edit(edits.offset(*tokens[i - 2].start), end, f"{MUSA_BUILDER}.{MUSA_NAMES[tok.string]}",
                       "setup-builder-names")
        elif tok.type == tokenize.NAME:
            _setup_name(tok.string, before, after, start, end, edits)
            if tok.string == "torch" and after == "." and i + 2 < len(tokens) and tokens[i + 2].string == "cuda":
                _torch_cuda(tokens[i:i + 5], musa_builder, edits)
        elif tok.type == tokenize.STRING:
            _setup_string(tok.string, (before, after), (tok.start in path_args, tok.start in pieces), start, end,
                          folder, paths, edits, tok.start in labels)
    if qualified and torch_import is not None:
        # torch.utils.cpp_extension.BuildExtension spelled out: torch_musa's module is imported beside torch.
        edits.edit(torch_import[1], torch_import[1], _statement_separator(edits, torch_import[0])
                   + f"import {MUSA_BUILDER}", "setup-builder-imports")
    used = {tokens[i - 2].string for i in through_alias}
    for node in {id(n): n for a, n in aliases.items() if a in used}.values():
        # cpp_extension.BuildExtension through a module alias: torch_musa's module is imported beside it.
        start = _node_offset(edits, node.lineno, node.col_offset)
        edits.edit(*[_node_offset(edits, node.end_lineno or node.lineno, node.end_col_offset or 0)] * 2,
                   _statement_separator(edits, start) + f"import {MUSA_BUILDER}", "setup-builder-imports")
    ported = edits.result()
    try:
        ast.parse(python_lines(ported.text))
    except SyntaxError as exc:
        raise SyntaxError(f"the port would not be Python ({exc.msg}, line {exc.lineno})", (None, exc.lineno, 0, ""))
    return ported


def _builder_module_aliases(tree: ast.AST) -> dict[str, ast.stmt]:
    """The names a script binds to torch's builder module, with the import that binds each:
    ``from torch.utils import cpp_extension [as ce]`` and ``import torch.utils.cpp_extension as ce``."""
    found: dict[str, ast.stmt] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "torch.utils" and not node.level:
            found.update((a.asname or a.name, node) for a in node.names if a.name == "cpp_extension")
        elif isinstance(node, ast.Import):
            found.update((a.asname, node) for a in node.names if a.name == TORCH_BUILDER and a.asname)
    return found


def _aliased_builder(tokens: list[tokenize.TokenInfo], i: int, aliases: dict[str, ast.stmt]) -> bool:
    """Whether token ``i`` is the CUDA builder's name spelled through a module alias, ``cpp_extension.NAME``."""
    return (i >= 2 and tokens[i].type == tokenize.NAME and tokens[i].string in MUSA_NAMES
            and tokens[i - 1].string == "." and tokens[i - 2].string in aliases
            and (i < 3 or tokens[i - 3].string != "."))


_JIT_BUILDERS = frozenset({"load", "load_inline"})


def jit_builds(tree: ast.AST) -> list[ast.Call]:
    """The calls of torch's JIT extension builder in a script (``load``/``load_inline`` imported from
    ``torch.utils.cpp_extension``, under any alias, or called through a name ending in ``cpp_extension``)."""
    names = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == TORCH_BUILDER
             for a in n.names if a.name in _JIT_BUILDERS}
    calls = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in names:
            calls.append(node)
        elif isinstance(func, ast.Attribute) and func.attr in _JIT_BUILDERS and \
                (ast.unparse(func.value).endswith("cpp_extension")):
            calls.append(node)
    return sorted(calls, key=lambda c: (c.lineno, c.col_offset))


def port_jit_paths(text: str, folder: str, paths: Paths, port: inline.CppPorter | None = None) -> Ported | None:
    """A Python module that builds its extension when it runs (``torch.utils.cpp_extension.load``): its
    strings are read as setup.py's are, so the source paths and globs it hands the builder name the port's
    files (``os.path.join(d, 'cuda', '{}.cu'.format(n))`` → ``'musa'``, ``'{}.mu'``), its nvcc flags and CUDA
    settings are reported, and each JIT build is a ``py-jit-extension-build`` finding; ``port`` ports the C++ of
    ``load_inline``'s source literals (``extension.inline``; None: they are reported, not ported). None: the
    module builds nothing, or is not Python (the Python port says so)."""
    if "cpp_extension" not in text:
        return None
    lines = python_lines(text)
    try:
        tree = ast.parse(lines)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    calls = jit_builds(tree)
    if not calls:
        return None
    edits = _Edits(text)
    for call in calls:
        pos = edits.offset(call.lineno, 0)
        edits.flag(JIT_BUILD, pos, _line_text(text, pos))
    literals = _port_jit_builders(tree, calls, edits, port)
    path_args = _path_arguments(tree)
    pieces = sources.source_pieces(tree)
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(lines).readline)
                  if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT,
                                    tokenize.DEDENT, tokenize.ENDMARKER)]
    except (tokenize.TokenError, SyntaxError):
        return None
    for i, tok in enumerate(tokens):
        if tok.type != tokenize.STRING or tok.start in literals:
            continue
        before = tokens[i - 1].string if i else ""
        after = tokens[i + 1].string if i + 1 < len(tokens) else ""
        _setup_string(tok.string, (before, after), (tok.start in path_args, tok.start in pieces),
                      edits.offset(*tok.start), edits.offset(*tok.end), folder, paths, edits)
    ported = edits.result()
    try:
        ast.parse(python_lines(ported.text))
    except SyntaxError:  # never written: the module is ported as if it built nothing
        return None
    return ported


def _port_jit_builders(tree: ast.Module, calls: list[ast.Call], edits: _Edits,
                       port: inline.CppPorter | None) -> frozenset[tuple[int, int]]:
    """torch's JIT builders (``load``, ``load_inline``) become torch_musa's, which take the same arguments with
    MUSA's keyword names: an import of them names torch_musa's module (the other names it imports stay with
    torch), a qualified call (``cpp_extension.load(...)``) is spelled ``torch_musa.utils.musa_extension.load``
    with that module imported beside the script's first import, and the CUDA keywords are MUSA's. Every edit
    keeps the line count, so the findings of this port and of the Python pack agree on lines. Returns where the
    ``load_inline`` source literals it ported start (tokenize's positions), which no other edit may touch."""
    originals = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == TORCH_BUILDER:
            _jit_import_edit(node, edits)
            originals.update({a.asname or a.name: a.name for a in node.names})
    done: set[tuple[int, int]] = set()
    qualified = [c for c in calls if isinstance(c.func, ast.Attribute)]
    anchor = _binding_import(tree, qualified[0].func.value, edits) if qualified else None  # type: ignore[attr-defined]
    for call in qualified:
        if anchor is None:
            pos = edits.offset(call.lineno, 0)
            edits.flag(JIT_UNPORTED, pos, _line_text(edits.text, pos))
            continue
        value = call.func.value  # type: ignore[attr-defined]
        edits.edit(_node_offset(edits, value.lineno, value.col_offset),
                   _node_offset(edits, value.end_lineno or value.lineno, value.end_col_offset or 0), MUSA_BUILDER,
                   JIT_RULE)
    if qualified and anchor is not None:
        edits.edit(anchor, anchor, f"; import {MUSA_BUILDER}", JIT_RULE)
    for call in calls:
        for kw in call.keywords:
            if kw.arg in JIT_KEYWORDS:
                start = _node_offset(edits, kw.lineno, kw.col_offset)
                edits.edit(start, start + len(kw.arg), JIT_KEYWORDS[kw.arg], JIT_RULE)
        func = call.func
        if (func.attr if isinstance(func, ast.Attribute) else originals.get(getattr(func, "id", ""))) == "load_inline":
            done |= _port_inline_sources(tree, call, edits, port, done)
    return frozenset(done)


def _port_inline_sources(tree: ast.Module, call: ast.Call, edits: _Edits, port: inline.CppPorter | None,
                         done: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """One ``load_inline`` call's source literals ported in place (``extension.inline``), each literal once
    however many calls name it; the call is reported when they cannot all be, or when CUDA names stay."""
    pos = edits.offset(call.lineno, 0)
    literals = inline.source_literals(call, tree) if port is not None else None
    if literals is None:
        _left_as_is(tree, call, edits, port)
        return set()
    ported, unmapped = {}, set()
    for literal, name in literals:
        begin = _node_offset(edits, literal.lineno, literal.col_offset)
        start = (literal.lineno, begin - edits.offset(literal.lineno, 0))  # as tokenize counts columns
        if start in done or start in ported:
            continue
        end = _node_offset(edits, literal.end_lineno or literal.lineno, literal.end_col_offset or 0)
        got = inline.port_literal(edits.text[begin:end], name, port)  # type: ignore[arg-type]
        if got is None:
            _left_as_is(tree, call, edits, port)
            return set()
        ported[start] = (begin, end, got[0])
        unmapped.update((n, literal.lineno + line - 1) for n, line in got[1])  # a literal's line 1 is its own
    for begin, end, new in ported.values():
        edits.edit(begin, end, new, JIT_INLINE_RULE)
    _left_unmapped(unmapped, pos, edits)
    return set(ported)


def _left_as_is(tree: ast.Module, call: ast.Call, edits: _Edits, port: inline.CppPorter | None) -> None:
    """A ``load_inline`` call whose sources stay as written: reported, its string pieces scanned so the CUDA
    names they hold are unmapped names at their lines, and what no scan could read reported as such."""
    pos = edits.offset(call.lineno, 0)
    edits.flag(JIT_INLINE, pos, _line_text(edits.text, pos))
    if port is None:
        edits.flag(JIT_INLINE_UNSCANNED, pos, _line_text(edits.text, pos))
        return
    def segment(node: ast.expr) -> str:
        return edits.text[_node_offset(edits, node.lineno, node.col_offset):
                          _node_offset(edits, node.end_lineno or node.lineno, node.end_col_offset or 0)]

    pieces, whole = inline.source_fragments(call, tree, segment)
    _left_unmapped({found for piece, name, first in pieces for found in inline.scan_fragment(piece, name, port, first)},
                   pos, edits)
    if not whole:
        edits.flag(JIT_INLINE_UNSCANNED, pos, _line_text(edits.text, pos))


def _left_unmapped(unmapped: set[tuple[str, int]], pos: int, edits: _Edits) -> None:
    """The CUDA names left in a ``load_inline`` call's sources (name, file line): unmapped names of the file,
    and one finding at the call naming them."""
    if unmapped:
        names = ", ".join(sorted({n for n, _ in unmapped}))
        edits.flag(JIT_INLINE_UNMAPPED, pos, f"{_line_text(edits.text, pos)}  [{names}]")
        edits.unmapped |= unmapped


def _jit_import_edit(node: ast.ImportFrom, edits: _Edits) -> None:
    """``from torch.utils.cpp_extension import load, CUDA_HOME``: the JIT builders come from torch_musa's
    module, the rest from torch's, in two statements on the import's line."""
    if any(a.name == "*" for a in node.names):
        pos = edits.offset(node.lineno, 0)
        edits.flag(JIT_UNPORTED, pos, _line_text(edits.text, pos))
        return
    moved = [a for a in node.names if a.name in _JIT_BUILDERS]
    if not moved:
        return
    kept = [a for a in node.names if a.name not in _JIT_BUILDERS]
    start = _node_offset(edits, node.lineno, node.col_offset)
    end = _node_offset(edits, node.end_lineno or node.lineno, node.end_col_offset or 0)
    statements = ([f"from {TORCH_BUILDER} import {_aliases(kept)}"] if kept else []) + [
        f"from {MUSA_BUILDER} import {_aliases(moved)}"]
    ending = _PY_NEWLINE.search(edits.text)
    lines = (node.end_lineno or node.lineno) - node.lineno  # an import in brackets over lines keeps its lines
    edits.edit(start, end, "; ".join(statements) + (ending.group(0) if ending else "\n") * lines, JIT_RULE)


def _binding_import(tree: ast.Module, value: ast.expr, edits: _Edits) -> int | None:
    """The offset just past the top-level import that binds the first name of ``value`` (``cpp_extension``
    of ``from torch.utils import cpp_extension``, ``torch`` of ``import torch.utils.cpp_extension``), else past
    the script's first top-level import that is not ``from __future__`` (None: it has none)."""
    root = value
    while isinstance(root, ast.Attribute):
        root = root.value
    name = root.id if isinstance(root, ast.Name) else ""
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
               and getattr(n, "module", None) != "__future__"]
    binding = [n for n in imports if any((a.asname or a.name.split(".")[0]) == name for a in n.names)]
    chosen = (binding or imports or [None])[0]
    if chosen is None:
        return None
    return _node_offset(edits, chosen.end_lineno or chosen.lineno, chosen.end_col_offset or 0)


def _node_offset(edits: _Edits, line: int, byte_col: int) -> int:
    """The text offset of an ``ast`` position (its column counted in UTF-8 bytes)."""
    return edits.offset(line, _col(edits.text, edits.offset(line, 0), byte_col))


def _qualified_builder(tokens: list[tokenize.TokenInfo], i: int) -> bool:
    """Whether token ``i`` is the CUDA builder's name spelled ``torch.utils.cpp_extension.NAME``."""
    return (i >= 6 and tokens[i].type == tokenize.NAME and tokens[i].string in MUSA_NAMES
            and [t.string for t in tokens[i - 6:i]] == ["torch", ".", "utils", ".", "cpp_extension", "."]
            and (i < 7 or tokens[i - 7].string != "."))


def _top_level_import(tree: ast.Module, module: str, edits: _Edits) -> tuple[int, int] | None:
    """(start, end) offsets of the script's first top-level ``import MODULE`` statement (None: it has none)."""
    for node in tree.body:
        if isinstance(node, ast.Import) and any(a.name == module and a.asname is None for a in node.names):
            start = edits.offset(node.lineno, _col(edits.text, edits.offset(node.lineno, 0), node.col_offset))
            last = node.end_lineno or node.lineno
            return start, edits.offset(last, _col(edits.text, edits.offset(last, 0), node.end_col_offset or 0))
    return None


def _torch_cuda(tokens: list[tokenize.TokenInfo], musa_builder: bool, edits: _Edits) -> None:
    """``torch.cuda.NAME`` in a build script: the device check of a script that builds with torch_musa's builder
    asks torch_musa's device module (importing the builder imports torch_musa, which adds ``torch.musa``), for
    the names the Python pack maps without review (``is_available``, ``device_count``, ...); any other use is a
    finding. Without the MUSA builder nothing imports torch_musa, so nothing is rewritten."""
    start = edits.offset(*tokens[0].start)
    name = tokens[4].string if len(tokens) == 5 and tokens[3].string == "." else ""
    mirror = load_python_pack().mirrored("torch.cuda").get(name) if musa_builder else None
    if mirror is None or tokens[4].type != tokenize.NAME:
        edits.flag(TORCH_CUDA, start, _line_text(edits.text, start))
        return
    edits.edit(start, edits.offset(*tokens[2].end), mirror[0], SETUP_TORCH_DEVICE)


def _import_edit(node: ast.ImportFrom, edits: _Edits) -> tuple[int, int]:
    """``from torch.utils.cpp_extension import ...``: the CUDA builder's names come from torch_musa's."""
    start = edits.offset(node.lineno, _col(edits.text, edits.offset(node.lineno, 0), node.col_offset))
    end = edits.offset(node.end_lineno or node.lineno,
                       _col(edits.text, edits.offset(node.end_lineno or node.lineno, 0), node.end_col_offset or 0))
    star = any(a.name == "*" for a in node.names)
    moved = [ast.alias(name) for name in MUSA_NAMES] if star else [a for a in node.names if a.name in MUSA_NAMES]
    if not moved:
        return (-1, -1)
    kept = [a for a in node.names if a.name not in MUSA_NAMES]
    lines = [f"from {TORCH_BUILDER} import {_aliases(kept)}"] if kept else []
    # After a star import, so that torch_musa's BuildExtension is the one the script uses.
    lines.append(f"from {MUSA_BUILDER} import {_aliases(moved, MUSA_NAMES)}")
    edits.edit(start, end, _statement_separator(edits, start).join(lines), "setup-builder-imports")
    return (start, end)


def _statement_separator(edits: _Edits, start: int) -> str:
    """What goes between two import statements that replace one: a new line with the same indentation
    (tabs stay tabs) when the import begins its line, else ``; `` (``x = 1; from ... import ...``, or the
    body of a one-line ``if``)."""
    line_start = edits.starts[edits.line(start) - 1]
    indent = edits.text[line_start:start]
    if indent.strip(" \t\f"):
        return "; "
    ending = _PY_NEWLINE.search(edits.text)
    return (ending.group(0) if ending else "\n") + indent


def _aliases(names: list[ast.alias], renames: dict[str, str] | None = None) -> str:
    renames = renames or {}
    return ", ".join(renames.get(a.name, a.name) + (f" as {a.asname}" if a.asname else "") for a in names)


def _col(text: str, line_start: int, byte_col: int) -> int:
    """ast's UTF-8 byte column as a character column."""
    end = _PY_NEWLINE.search(text, line_start)
    line = text[line_start : end.start() if end else len(text)]
    return len(line.encode("utf-8", "surrogateescape")[:byte_col].decode("utf-8", "surrogateescape"))


def _setup_name(name: str, before: str, after: str, start: int, end: int, edits: _Edits) -> None:
    """A Python name: the builder's CUDA names, and ``nvcc=`` as a keyword of ``extra_compile_args``."""
    if name in MUSA_NAMES and before != ".":
        edits.edit(start, end, MUSA_NAMES[name], "setup-builder-names")
    elif name in MUSA_NAMES:
        edits.flag(QUALIFIED, start, _line_text(edits.text, start))
    elif name in COMPILER_KEYS and after == "=" and before in ("(", ","):
        edits.edit(start, end, COMPILER_KEYS[name], "setup-compiler-key")


_METADATA = frozenset({"name", "version", "description", "long_description", "author", "author_email", "url",
                       "license", "keywords"})


def _names_and_metadata(tree: ast.AST) -> frozenset[tuple[int, int]]:
    """Where the strings are that name the distribution or an extension module, or are package metadata: the
    first argument or a ``name=``/``version=``/``description=``... of ``setup(...)`` and ``*Extension(...)``
    (``setup(name="PTS_CUDA")`` is a package's name, no CUDA setting)."""
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = _callee(node.func)
        if callee != "setup" and not callee.endswith("Extension"):
            continue
        values = [k.value for k in node.keywords if k.arg in _METADATA] + node.args[:1]
        found.update((v.lineno, v.col_offset) for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return frozenset(found)


def _setup_string(token: str, around: tuple[str, str], where: tuple[bool, bool], start: int, end: int, folder: str,
                  paths: Paths, edits: _Edits, label: bool = False) -> None:
    """A Python string: a compiler key, a guard macro, a source path, or an nvcc flag to report.

    ``where``: whether the string is an argument of a path call (``os.path.join``, ``glob``), and whether it
    is a piece of an expression that builds a source path (``extension.sources.source_pieces``). ``label``: the
    string names the package or an extension, or is metadata (no CUDA setting to report).
    """
    in_path_call, in_source = where
    prefix = re.match(r"[A-Za-z]*", token).group(0)  # type: ignore[union-attr]
    rest = token[len(prefix) :]
    quote = rest[:3] if rest.startswith(('"""', "'''")) else rest[0]
    body = token[len(prefix) + len(quote) : len(token) - len(quote)]
    if "b" in prefix.lower() or "\\" in body:
        return
    if "f" in prefix.lower():
        new = port_fstring(body, in_path_call or in_source) if not re.search(r"\s", body) else body
        if new != body:
            edits.edit(start, end, f"{prefix}{quote}{new}{quote}", "build-source-paths")
        return
    for m in NVCC_FLAGS.pattern.finditer(body):
        edits.flag(NVCC_FLAGS, start, m.group(0))
    if NVCC_PROGRAM.pattern.search(body) or (in_path_call and body in ("nvcc", "nvcc.exe")):
        edits.flag(NVCC_PROGRAM, start, body)
    if CUDA_ENV.pattern.match(body) and not _GUARD.fullmatch(body) and not label:
        edits.flag(CUDA_ENV, start, body)
    new, rule = body, ""
    # A key: in a dict, a subscript, or a membership test ("nvcc" in args), which must ask of the key written.
    if body in COMPILER_KEYS and (around[1] in (":", "in", "not") or around == ("[", "]")):
        new, rule = COMPILER_KEYS[body], "setup-compiler-key"
    elif _GUARD.search(body):
        new, rule = _GUARD.sub(r"\1\2_MUSA", body), "build-with-musa"
    elif body and not re.search(r"\s", body) and (in_path_call or "/" in body or _SOURCE.search(body)):
        new, rule = paths.rename(body, folder, loose=in_path_call), "build-source-paths"
        if new == body:
            new = fragment(body)
    elif in_source and body and not re.search(r"\s", body):
        new, rule = _source_piece(body), "build-source-paths"
    if new == body and in_source and body and not re.search(r"\s", body) and rule != "setup-compiler-key":
        new, rule = _source_piece(body), "build-source-paths"
    if new != body:
        edits.edit(start, end, f"{prefix}{quote}{new}{quote}", rule)


_PATH_CALLS = frozenset({"join", "glob", "iglob", "Path", "PurePath", "PurePosixPath"})


def _path_arguments(tree: ast.AST) -> frozenset[tuple[int, int]]:
    """Where the strings are that a script uses as path parts: arguments of ``os.path.join``, ``glob``, ``Path``
    and operands of ``/`` on paths (positions as tokenize gives them, character columns)."""
    found = set()
    for node in ast.walk(tree):
        parts: list[ast.expr] = []
        if isinstance(node, ast.Call) and _callee(node.func) in _PATH_CALLS:
            parts = list(node.args)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            parts = [node.left, node.right]
        found.update((p.lineno, p.col_offset) for p in parts
                     if isinstance(p, ast.Constant) and isinstance(p.value, str))
    return frozenset(found)


def _callee(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _line_text(text: str, pos: int) -> str:
    start = max(text.rfind("\n", 0, pos), text.rfind("\r", 0, pos)) + 1
    end = _PY_NEWLINE.search(text, pos)
    return text[start : end.start() if end else len(text)].strip()


def port_cmake(text: str, folder: str, paths: Paths) -> Ported:
    """CMakeLists.txt with its source lists following the renames; CUDA-only logic reported."""
    code = _cmake_code(text)
    edits = _Edits(text)
    for flag in CMAKE_FLAGS:
        for m in flag.pattern.finditer(code):
            edits.flag(flag, m.start(), _line_text(text, m.start()))
    for m in _CMAKE_ARG.finditer(code):
        quoted = m.group(0).startswith('"')
        value = m.group(0)[1:-1] if quoted else m.group(0)
        # A quoted argument may hold a list ("a.cu;b.cpp"): each element is a value of its own, split at the
        # semicolons CMake splits at (not an escaped \\;).
        done = [_cmake_value(v, folder, paths) for v in _LIST_SEP.split(value)]
        new = ";".join(v for v, _ in done)
        if new != value:
            edits.edit(m.start(), m.end(), f'"{new}"' if quoted else new, next(r for _, r in done if r))
    return edits.result()


def _cmake_code(text: str) -> str:
    """CMake text with comments blanked (quoted and bracket arguments kept), newlines kept.

    Read as CMake's lexer reads it, in one pass: a quoted argument runs to its closing quote (``\\`` escapes),
    ``#[==[`` opens a bracket comment and ``[==[`` a bracket argument that run to the bracket of the same
    level, any other ``#`` a line comment. A bracket that never closes is a line comment (and a bracket
    argument its ``[``): once a closing bracket of a level is missing, it is missing for every later opener
    too, so many unclosed ``#[[`` cost one search, not one each.
    """
    out: list[str] = []
    missing: set[str] = set()  # bracket levels ("", "=", ...) with no closing bracket further on
    pos = 0
    for m in _CMAKE_SPECIAL.finditer(text):
        if m.start() < pos:
            continue
        out.append(text[pos : m.start()])
        start = m.start()
        if m.group(0) == '"':
            end = _quoted_end(text, start)
            out.append(text[start:end])
        else:
            comment = m.group(0) == "#"
            bracket = _CMAKE_BRACKET.match(text, start + 1 if comment else start)
            end = _bracket_end(text, bracket, missing) if bracket else -1
            if end < 0 and comment:  # a line comment
                line_end = text.find("\n", start)
                end = len(text) if line_end < 0 else line_end
            elif end < 0:  # a lone '[': part of an unquoted argument
                end = start + 1
            piece = text[start:end]
            out.append(re.sub(r"[^\n]", " ", piece) if comment else piece)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _quoted_end(text: str, start: int) -> int:
    """The end of the quoted argument at ``start`` (the end of the text when it never closes)."""
    i = start + 1
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        else:
            i += 1
    return len(text)


def _bracket_end(text: str, bracket: re.Match[str], missing: set[str]) -> int:
    """The end of a bracket comment or argument, or -1 when its closing bracket is nowhere further on."""
    level = bracket.group(1)
    if level in missing:
        return -1
    close = text.find(f"]{level}]", bracket.end())
    if close < 0:
        missing.add(level)
        return -1
    return close + len(level) + 2


def _cmake_value(value: str, folder: str, paths: Paths) -> tuple[str, str]:
    """One CMake argument: a guard macro, or a path (behind a source-dir variable or relative to the file)."""
    if _GUARD.search(value):
        return _GUARD.sub(r"\1\2_MUSA", value), "build-with-musa"
    if "${" in value and not _CMAKE_PREFIX.match(value):
        return value, ""
    prefix_m = _CMAKE_PREFIX.match(value)
    prefix = prefix_m.group(0) if prefix_m else ""
    rest = value[len(prefix) :]
    base = "" if prefix_m and prefix_m.group(1) in ("PROJECT_SOURCE_DIR", "CMAKE_SOURCE_DIR") else folder
    pathish = bool(prefix) or "/" in rest or bool(_SOURCE.search(rest)) or "*" in rest or \
        join(base, rest) in paths.folders
    if not pathish or not rest:
        return value, ""
    return prefix + paths.rename(rest, base, loose=False), "build-source-paths"


def declared_include_dirs(root: Path, rel: str) -> list[str]:
    """The project folders a build file puts on the include path (root-relative; "" is the root)."""
    try:
        if (root / rel).stat().st_size > MAX_BUILD_FILE_BYTES:
            return []  # not read: the port of the build file says why
        data = (root / rel).read_bytes()
        text = python_lines(read_python(data)[0]) if rel.endswith(".py") else data.decode("utf-8", "surrogateescape")
    except (OSError, SyntaxError, UnicodeError):
        return []  # the port of the build file says why it cannot be read
    folder = rel.rpartition("/")[0]
    values = _setup_include_dirs(text) if rel.endswith(".py") else _cmake_include_dirs(text, folder)
    found = []
    for base, value in values:
        path = join(base if base is not None else folder, value)
        if path is not None:
            found.append("" if path == "." else path)
    return found


def _setup_include_dirs(text: str) -> list[tuple[str | None, str]]:
    """Paths in setup.py's ``include_dirs`` (keyword, assignment, append/extend), evaluated as the build sees
    them: relative to setup.py's folder (``pyeval``); what cannot be evaluated is left out."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    env = assignments(tree)
    exprs: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "include_dirs":
            exprs.append(node.value)
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id.endswith("include_dirs") for t in targets):
                exprs.append(node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("append", "extend", "insert") and isinstance(node.func.value, ast.Name) and \
                node.func.value.id.endswith("include_dirs"):
            exprs.extend(node.args[1:] if node.func.attr == "insert" else node.args)
    found = [(None, v) for e in exprs for v in _paths(e, env, 0) if v is not None]
    return found + [(None, v) for v in _include_flags(tree, env)]


def _include_flags(tree: ast.AST, env: dict[str, ast.expr]) -> list[str]:
    """The folders of the ``-I`` flags in ``extra_compile_args`` (a dict of per-compiler lists or one list, in the
    keyword or a name bound to it): ``"-I" + os.path.join(here, "third_party/vecmath/")``, ``f"-I{d}/include"``,
    ``"-Iinclude"`` and ``"-I", path`` as two entries, evaluated as the build sees them; the rest is left out."""
    lists: list[ast.expr] = []
    todo = [k.value for node in ast.walk(tree) if isinstance(node, ast.keyword) and node.arg == "extra_compile_args"
            for k in [node]]
    for depth in range(8):
        nxt: list[ast.expr] = []
        for expr in todo:
            if isinstance(expr, ast.Name) and expr.id in env:
                nxt.append(env[expr.id])
            elif isinstance(expr, ast.Dict):
                nxt.extend(v for v in expr.values if v is not None)
            elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "dict":
                nxt.extend(k.value for k in expr.keywords)
            elif isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add) and \
                    not _flag_of(expr, env) and (isinstance(expr.left, (ast.List, ast.Tuple, ast.Name))):
                nxt.extend([expr.left, expr.right])
            elif isinstance(expr, (ast.List, ast.Tuple)):
                lists.append(expr)
        todo = nxt
        if not todo:
            break
    found = []
    for lst in lists:
        elts = lst.elts  # type: ignore[attr-defined]
        for i, elt in enumerate(elts):
            flag = _flag_of(elt, env)
            if flag == "" and i + 1 < len(elts):  # "-I", path
                path = evaluate(elts[i + 1], env)
            else:
                path = flag
            if path:
                found.append(path)
    return found


def _flag_of(expr: ast.expr, env: dict[str, ast.expr]) -> str | None:
    """The folder an ``-I`` flag expression names ('' for a bare "-I"; None: no -I flag, or not evaluable)."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add) and \
            isinstance(expr.left, ast.Constant) and expr.left.value == "-I":
        return evaluate(expr.right, env)
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str) and expr.value.startswith("-I"):
        return posixpath.normpath(expr.value[2:]) if expr.value[2:] else ""
    if isinstance(expr, ast.JoinedStr) and expr.values and isinstance(expr.values[0], ast.Constant) and \
            isinstance(expr.values[0].value, str) and expr.values[0].value.startswith("-I"):
        rest = ast.JoinedStr([ast.Constant(expr.values[0].value[2:]), *expr.values[1:]])
        return evaluate(rest, env)
    return None


def _paths(expr: ast.expr, env: dict[str, ast.expr], depth: int) -> list[str | None]:
    """The paths a list, a tuple, a sum of lists or one path expression stands for."""
    if depth > 8:
        return [None]
    if isinstance(expr, (ast.List, ast.Tuple)):
        return [p for e in expr.elts for p in _paths(e, env, depth + 1)]
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add) and \
            any(isinstance(side, (ast.List, ast.Tuple)) for side in (expr.left, expr.right)):
        return _paths(expr.left, env, depth + 1) + _paths(expr.right, env, depth + 1)
    if isinstance(expr, ast.Name) and isinstance(env.get(expr.id), (ast.List, ast.Tuple)):
        return _paths(env[expr.id], env, depth + 1)
    return [evaluate(expr, env)]


def _cmake_include_dirs(text: str, folder: str) -> list[tuple[str | None, str]]:
    found: list[tuple[str | None, str]] = []
    for m in _CMAKE_INCLUDES.finditer(_cmake_code(text)):
        args = [a.strip('"') for a in _CMAKE_ARG.findall(m.group(2))]
        args = args[1:] if m.group(1) else args
        for arg in args:
            arg = re.sub(r"^\$<BUILD_INTERFACE:(.*)>$", r"\1", arg)
            if arg in _CMAKE_KEYWORDS:
                continue
            prefix = _CMAKE_PREFIX.match(arg)
            if prefix:
                top = prefix.group(1) in ("PROJECT_SOURCE_DIR", "CMAKE_SOURCE_DIR")
                found.append(("" if top else folder, arg[prefix.end() :] or "."))
            elif "$" not in arg:
                found.append((folder, arg))
    return found


# A build file is a few kilobytes; one far larger is no build file a person wrote, and is not read whole.
MAX_BUILD_FILE_BYTES = 1 << 20


class NotPorted(Exception):
    """A build file the port does not read (its message says why)."""


def port_build_file(root: Path, rel: str, out: str, paths: Paths) -> FileResult:
    """One build file as a FileResult like every ported file (provenance line, findings with lines).

    Raises SyntaxError (setup.py that is not Python), OSError (unreadable) and NotPorted (too large).
    """
    size = (root / rel).stat().st_size
    if size > MAX_BUILD_FILE_BYTES:
        raise NotPorted(f"{size:,} bytes, more than the {MAX_BUILD_FILE_BYTES:,} a build file may have")
    data = (root / rel).read_bytes()
    digest = sha256(data)
    folder = rel.rpartition("/")[0]
    if rel.endswith(".py"):
        text, encoding = read_python(data)
        ported = port_setup_py(text, folder, paths)
    else:
        text, encoding = data.decode("utf-8", "surrogateescape"), "utf-8"
        ported = port_cmake(text, folder, paths)
    ported = replace(ported, findings=ported.findings + source_findings(rel, text, ported.text, paths))
    if ported.text == text:
        return FileResult(rel, out, FileStatus.UNCHANGED, digest, digest, {}, ported.findings, data=data)
    new = _with_provenance(ported.text, rel, digest).encode(encoding, "surrogateescape")
    return FileResult(rel, out, FileStatus.PORTED, digest, sha256(new), ported.fired, ported.findings, data=new)


def source_findings(rel: str, before: str, after: str, paths: Paths) -> tuple[Finding, ...]:
    """What ``extension.sources`` finds: each source path of the build file that named project files and names
    others after the port, and each extension source it cannot evaluate."""
    folder = rel.rpartition("/")[0]
    if rel.endswith(".py"):
        old, unevaluable = sources.setup_sites(python_lines(before), folder)
        new, _ = sources.setup_sites(python_lines(after), folder)
    else:
        old = sources.cmake_sites(_cmake_code(before), before, folder, _CMAKE_ARG, _LIST_SEP)
        new = sources.cmake_sites(_cmake_code(after), after, folder, _CMAKE_ARG, _LIST_SEP)
        unevaluable = []
    return tuple(sources.compare(old, new, paths.known, paths.files) + sources.unchecked(unevaluable))


def read_python(data: bytes) -> tuple[str, str]:
    """A Python script's text and the codec that writes it back, as Python reads it (PEP 263): a coding
    cookie on line 1 or 2 (``latin-1``), else UTF-8; ``utf-8-sig`` when it starts with a byte-order mark, so
    the mark is dropped from the text and written again in front of the port. Raises SyntaxError for a bad
    cookie and UnicodeDecodeError for bytes the encoding does not allow, as Python would."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding), encoding


def _with_provenance(text: str, rel: str, digest: str) -> str:
    """The provenance line as a ``#`` comment, after a shebang and an encoding declaration, ended as the
    file's own lines end (a CR-only script stays CR-only)."""
    ending = _PY_NEWLINE.search(text)
    line = "#" + provenance(rel, digest, text)[2:].rstrip("\r\n") + (ending.group(0) if ending else "\n")
    lines = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)
    keep = 0
    while keep < min(2, len(lines)) and re.match(r"#!|#.*coding[:=]", lines[keep]):
        keep += 1
    return "".join(lines[:keep]) + line + "".join(lines[keep:])
