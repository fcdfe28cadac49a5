"""What a large ops library decides for itself, read from its own sources.

Four facts of a project change how its files must be ported, and none is in
a list of PyTorch names:

- **Include roots it never declares.** A tree without build files (or with
  roots the port cannot read) still names its headers bare:
  ``#include "box_iou_cuda_kernel.cuh"``. When a written include path matches
  exactly one project file by its trailing components, the folder it resolves
  in is an include root (:func:`infer_roots`); several or none are reported.
- **Its own device registry.** A macro that pastes an argument into a device
  type or a dispatch key (``at::k##DEV``, ``c10::DeviceType::DEV``,
  ``c10::DispatchKey::Autograd##DEV``) registers per device; its ``CUDA``
  call sites must name ``PrivateUse1`` (:func:`registry_macros`).
- **Its own names with ``cuda`` in them.** What the project declares
  (``rotated_nms_cuda``, ``XCUDALauncher``, ``CUDA_1D_KERNEL_LOOP``) is
  renamed with the toolkit's word rules in every file, declaration and use
  alike (:func:`project_names`); libtorch's names are not the project's.
- **MUSA code it already has.** A file with a MUSA guard, a PrivateUse1 check
  or a torch_musa include already routes MUSA tensors somewhere; its CUDA
  device checks and guards are left alone so that the port does not send
  MUSA tensors past that branch (:func:`musa_evidence`).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, replace

from musaport.cpp.parser import MASK
from musaport.extension.includes import Include, blank, resolve
from musaport.cpp.declarations import declared_names
from musaport.resources import data_dir, parse_vocabulary, vocabulary_file
from musaport.rewrite.transforms import rename_path, systematic


# ---------------------------------------------------------------- include roots

@dataclass(frozen=True)
class Inferred:
    """An include the compiler would not find from the declared roots, matched by its trailing components."""

    includer: str
    line: int
    spelling: str
    target: str  # the project file it names ('' when unresolved)
    root: str  # the include root it adds ('' when unresolved)
    note: str  # for an unresolved one: why


def infer_roots(includes: dict[str, tuple[Include, ...]], roots: tuple[str, ...], files: frozenset[str],
                renamed: frozenset[str]) -> tuple[tuple[str, ...], tuple[Inferred, ...]]:
    """Include roots implied by includes that resolve nowhere, and every such include (followed or not).

    An include whose written path (``a/b.h``) is the tail of exactly one
    project file (``lib/x/a/b.h``) resolves in ``lib/x``, which becomes a
    root. One that matches several files, or none while its file name is that
    of a file the port renames, is listed unresolved.
    """
    by_name: dict[str, list[str]] = {}
    for f in files:
        by_name.setdefault(f.rpartition("/")[2], []).append(f)
    renamed_names = {r.rpartition("/")[2] for r in renamed}
    added: list[str] = []
    found: list[Inferred] = []
    for rel in sorted(includes):
        for inc in includes[rel]:
            name = inc.name
            if name.startswith("/") or resolve(inc, rel, roots, files) is not None:
                continue
            parts = name.split("/")
            if any(p in ("", ".", "..") for p in parts):
                continue
            matches = sorted(f for f in by_name.get(parts[-1], ()) if f == name or f.endswith("/" + name))
            if len(matches) == 1:
                root = matches[0][: -len(name)].rstrip("/")
                if root not in roots and root not in added:
                    added.append(root)
                found.append(Inferred(rel, inc.line, inc.spelling, matches[0], root, ""))
            elif len(matches) > 1 and any(m in renamed for m in matches):
                found.append(Inferred(rel, inc.line, inc.spelling, "", "",
                                      f"matches {len(matches)} project files ({', '.join(matches[:3])}); "
                                      "the port cannot tell which one the build finds"))
            elif not matches and parts[-1] in renamed_names:
                found.append(Inferred(rel, inc.line, inc.spelling, "", "",
                                      f"names no project file, but the port renames files called {parts[-1]}"))
            elif not matches and inc.quoted and name.endswith(".cuh") and parts[0] not in _LIBRARY_HEADERS:
                found.append(Inferred(rel, inc.line, inc.spelling, "", "",
                                      f"names no project file, yet the port renames it to {rename_path(name)} "
                                      "(relative-cuh-includes); check that a file of that name exists"))
    return tuple(added), tuple(found)


_LIBRARY_HEADERS = frozenset({"cub", "thrust", "cutlass", "cute"})  # header-only libraries, spelled .cuh


# ---------------------------------------------------------------- registries

# What a device registry macro's body does with a parameter P: a DeviceType or a DispatchKey made from it.
_DEVICE_SLOT = (
    r"(?<![\w])(?:(?:c10|at|torch)\s*::\s*)?k\s*##\s*{p}(?![\w])(?!\s*##)",
    r"\bDeviceType\s*::\s*{p}(?![\w])(?!\s*##)",
    r"\bDispatchKey\s*::\s*(?:(?P<pre>\w+)\s*##\s*)?{p}(?![\w])(?P<post>\s*##\s*\w+)?",
)
# Per-backend dispatch key prefixes that have a PrivateUse1 form (c10/core/DispatchKey.h).
_KEY_PREFIXES = frozenset({"Autograd", "Autocast", "Quantized", "Sparse", "SparseCsr", "NestedTensor"})
# DeviceType enumerators (c10/core/DeviceType.h): a call site naming one of them is decided.
DEVICE_TYPES = frozenset({
    "CPU", "CUDA", "MKLDNN", "OPENGL", "OPENCL", "IDEEP", "HIP", "FPGA", "MAIA", "XLA", "Vulkan", "Metal", "XPU",
    "MPS", "Meta", "HPU", "VE", "Lazy", "IPU", "MTIA", "PrivateUse1"})
_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)((?:[^\n\\]|\\\n|\\.)*)", re.M)
_ARG = r"(?:[^(),]|\((?:[^()]|\([^()]*\))*\))*"


@dataclass(frozen=True)
class Registry:
    """A project macro whose argument ``index`` becomes a device type or a dispatch key."""

    name: str
    index: int
    where: str  # file:line of its #define
    how: str  # the body text that makes the key
    decided: bool  # False: the pasted key has no known PrivateUse1 form; call sites are reported
    # First arguments (the operator) the project already registers for PrivateUse1: (key, file:line).
    registered: tuple[tuple[str, str], ...] = ()


def registry_macros(texts: dict[str, str | None]) -> tuple[Registry, ...]:
    """The project's device-registry macros, found from their definitions; forwarding macros follow."""
    macros: dict[str, tuple[list[str], str, str]] = {}
    for rel, text in sorted(texts.items()):
        if text is None or "define" not in text:
            continue
        code = blank(text)
        for m in _MACRO.finditer(code):
            params = [p.strip() for p in m.group(2).split(",")]
            macros.setdefault(m.group(1), (params, m.group(3), f"{rel}:{code.count(chr(10), 0, m.start()) + 1}"))
    found: dict[str, Registry] = {}
    for name, (params, body, where) in sorted(macros.items()):
        for i, p in enumerate(params):
            if not re.fullmatch(r"\w+", p):
                continue
            for slot in _DEVICE_SLOT:
                m = re.search(slot.format(p=re.escape(p)), body)
                if m:
                    pre = m.groupdict().get("pre")
                    post = m.groupdict().get("post")
                    decided = not post and (pre is None or pre in _KEY_PREFIXES)
                    found[name] = Registry(name, i, where, " ".join(m.group(0).split()), decided)
                    break
            if name in found:
                break
    # libtorch's own macros that make a key from an argument: a project macro forwarding to one is a registry
    # (the seeds themselves are the packs' business, so they are not returned).
    seeds = {name: Registry(name, index, "libtorch", how, True) for name, index, how in _LIBTORCH_REGISTRIES
             if name not in found}
    found.update(seeds)
    changed = True
    while changed:  # a macro that passes its parameter on to a registry's device slot is one too
        changed = False
        for name, (params, body, where) in sorted(macros.items()):
            if name in found:
                continue
            for reg in list(found.values()):
                for call in re.finditer(rf"\b{re.escape(reg.name)}\s*\(", body):
                    args = _call_args(body, call.end())
                    if args is None or len(args) <= reg.index:
                        continue
                    arg = args[reg.index].strip()
                    if arg in params:
                        found[name] = Registry(name, params.index(arg), where, f"{reg.name}(... {arg} ...)",
                                               reg.decided)
                        changed = True
                        break
                if name in found:
                    break
    return tuple(found[n] for n in sorted(found) if n not in seeds)


_LIBTORCH_REGISTRIES = (("TORCH_LIBRARY_IMPL", 1, "c10::DispatchKey::k"), ("C10_REGISTER_GUARD_IMPL", 0,
                                                                          "c10::DeviceType::d"))


def _call_args(text: str, start: int) -> list[str] | None:
    """The comma-separated arguments of a call whose '(' ends at ``start`` (None: unbalanced)."""
    depth, args, cur = 0, [], []
    for ch in text[start:]:
        if ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                args.append("".join(cur))
                return args
            depth -= 1
        elif ch == "," and depth == 0:
            args.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    return None


def _calls(texts: dict[str, str | None], registries: tuple[Registry, ...]):
    """Every call of a registry outside a #define: (file, line, registry, args, text as written)."""
    if not registries:
        return
    by_name = {r.name: r for r in registries}
    call = re.compile(r"(?<![\w])(" + "|".join(map(re.escape, sorted(by_name))) + r")\s*\(")
    for rel, text in sorted(texts.items()):
        if text is None:
            continue
        code = blank(text)
        defines = [(m.start(), m.end()) for m in _MACRO.finditer(code)]
        for m in call.finditer(code):
            if any(a <= m.start() < b for a, b in defines):
                continue
            reg = by_name[m.group(1)]
            args = _call_args(code, m.end())
            if args is None or len(args) <= reg.index:
                continue
            shown = " ".join(text[m.start() : m.end() + sum(len(a) + 1 for a in args)].split())
            yield rel, code.count("\n", 0, m.start()) + 1, reg, [" ".join(a.split()) for a in args], shown


def with_existing(texts: dict[str, str | None], registries: tuple[Registry, ...]) -> tuple[Registry, ...]:
    """``registries`` knowing which operators the project already registers for PrivateUse1 by hand: their
    CUDA registrations stay (converted, they would register the same key twice)."""
    found: dict[str, dict[str, str]] = {}
    for rel, line, reg, args, _ in _calls(texts, registries):
        if reg.index > 0 and args[reg.index] == "PrivateUse1" and re.fullmatch(r"[\w:]+", args[0]):
            found.setdefault(reg.name, {}).setdefault(args[0], f"{rel}:{line}")
    return tuple(replace(r, registered=tuple(sorted(found.get(r.name, {}).items()))) for r in registries)


def registry_sites(texts: dict[str, str | None],
                   registries: tuple[Registry, ...]) -> tuple[tuple[str, int, str, str], ...]:
    """Call sites the port cannot decide: (file, line, call text, why). A device argument that is no device
    type name (a variable, another macro) and, for a registry whose pasted key has no PrivateUse1 form,
    every CUDA site. Calls inside a #define (a forwarding macro passing its parameter on) are not sites."""
    found = []
    for rel, line, reg, args, shown in _calls(texts, registries):
        arg = args[reg.index]
        existing = dict(reg.registered).get(args[0]) if reg.index > 0 else None
        if arg == "CUDA" and existing:
            found.append((rel, line, shown, f"kept as CUDA: the project already registers {args[0]} for "
                                            f"PrivateUse1 ({existing}); converted, it would register it twice"))
        elif arg not in DEVICE_TYPES:
            found.append((rel, line, shown, f"device argument '{arg}' of {reg.name} is no device type name; "
                                            f"the port cannot tell whether it is CUDA ({reg.where} makes "
                                            f"{reg.how} from it)"))
        elif arg == "CUDA" and not reg.decided:
            found.append((rel, line, shown, f"{reg.name} pastes its device into {reg.how} ({reg.where}); "
                                            "that key has no known PrivateUse1 form, so CUDA is kept"))
    return tuple(found)


def registry_use(text: str, registries: tuple[Registry, ...]) -> str:
    """The first registry call in ``text`` whose device argument is CUDA, as 'NAME(..., CUDA' ('' when none)."""
    code = blank(text)
    for reg in registries:
        if reg.name in code and re.search(registry_pattern(reg), code):
            return f"{reg.name}(..., CUDA, ...)"
    return ""


def registry_pattern(reg: Registry) -> str:
    """A call site of ``reg`` whose device argument is CUDA: group 1 is everything before the argument."""
    skip = ""
    if reg.registered and reg.index > 0:
        keys = "|".join(sorted(re.escape(k) for k, _ in reg.registered))
        skip = rf"(?!\s*(?:{keys})\s*,)"
    return rf"(\b{re.escape(reg.name)}\s*\({skip}(?:{_ARG},){{{reg.index}}}\s*)CUDA(?=\s*[,)])"


def undecided_pattern(reg: Registry) -> str:
    """A call site of ``reg`` whose device argument is not a device type name (a variable, an expression)."""
    names = "|".join(sorted(DEVICE_TYPES))
    return rf"\b{re.escape(reg.name)}\s*\((?:{_ARG},){{{reg.index}}}\s*(?!(?:{names})\s*[,)])(?=[^\s,)])"


# ---------------------------------------------------------------- names

_CUDA_IN_NAME = re.compile(r"(?<![\w])[A-Za-z_]\w*", re.A)
_COMMENT_OR_STRING = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)


def code_view(text: str) -> str:
    """``text`` with comments and literals masked the way the parser masks other contexts."""
    return _COMMENT_OR_STRING.sub(lambda m: re.sub(r"[^\n]", MASK, m.group(0)), text)


def _kept_globs() -> tuple[str, ...]:
    """libtorch's CUDA-spelled names the policy keeps (rules/data/keep_cuda_names.txt)."""
    path = data_dir("rules") / "data" / "keep_cuda_names.txt"
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        name = line.split("#", 1)[0].strip()
        if name:
            out.append(name)
    return tuple(out)


# libtorch's own names that a project may re-declare (an enumerator CUDA of its own enum, a method is_cuda):
# renaming them would also rename libtorch's DeviceType::CUDA, Tensor::is_cuda() and Tensor::cuda().
_LIBTORCH_API = frozenset({"cuda", "CUDA", "Cuda", "is_cuda", "kCUDA", "has_cuda", "hasCUDA", "cuda_device"})


def project_names(texts: dict[str, str | None]) -> dict[str, str]:
    """Identifiers with ``cuda`` (any case) that the project declares → their MUSA spelling.

    Declarations are found as for PyTorch (``cpp.declarations.declared_names``:
    macros, types, functions, variables, parameters). Toolkit names and the
    names libtorch keeps (the keep-list) are not the project's, whatever the
    project re-declares.
    """
    toolkit = parse_vocabulary(vocabulary_file().read_bytes()) | _LIBTORCH_API
    kept = _kept_globs()
    declared: set[str] = set()
    for text in texts.values():
        if text is None or not re.search("cuda", text, re.I):
            continue
        code = code_view(text)
        names = {n for n in _CUDA_IN_NAME.findall(code) if "cuda" in n.lower()}
        if names:
            declared |= declared_names(text, code, names)
    table = {}
    for name in sorted(declared):
        if name in toolkit or any(fnmatch.fnmatchcase(name, g) for g in kept) or name.startswith("__"):
            continue
        new = systematic(name)
        if new != name:
            table[name] = new
    return table


# A macro a build file sets for the compiler: a -DNAME flag (setup.py's strings, CMake), a define_macros entry,
# or CMake's add_compile_definitions / target_compile_definitions.
_BUILD_FLAG = re.compile(r"-D(\w+)")
_DEFINE_MACROS = re.compile(r"\bdefine_macros\b[^\[\n]*\[([^\]]*)\]")
_CMAKE_DEFINITIONS = re.compile(r"\b(?:add_compile_definitions|target_compile_definitions)\s*\(([^)]*)\)", re.I)


def build_macros(builds: dict[str, str | None]) -> dict[str, str]:
    """The macros the project's build files (``rel`` → text) set for the compiler → where (file:line).

    The build owns such a name: ``-DBUILD_CUDA=1`` in setup.py is what a ``#ifndef BUILD_CUDA`` default in
    the code gives way to, so renaming it in the code alone would leave the renamed macro at its default.
    """
    found: dict[str, str] = {}
    for rel, text in sorted(builds.items()):
        if text is None:
            continue
        hits = [(m.start(), m.group(1)) for m in _BUILD_FLAG.finditer(text)]
        for m in _DEFINE_MACROS.finditer(text):
            hits += [(m.start(1) + n.start(), n.group(1)) for n in re.finditer(r"[\"'](\w+)[\"']", m.group(1))]
        for m in _CMAKE_DEFINITIONS.finditer(text):
            hits += [(m.start(1) + n.start(), n.group(1)) for n in re.finditer(r"\b([A-Za-z_]\w*)", m.group(1))]
        for at, name in sorted(hits):
            found.setdefault(name, f"{rel}:{text.count(chr(10), 0, at) + 1}")
    return found


def defined_elsewhere(texts: dict[str, str | None], names: dict[str, str]) -> dict[str, str]:
    """Of ``names`` (old → new), those whose new spelling the project already defines (a hand-written MUSA
    implementation): old → where. Renaming them would define the MUSA name twice."""
    if not names:
        return {}
    wanted = {new: old for old, new in names.items()}
    alternatives = "|".join(sorted(map(re.escape, wanted), key=lambda k: (-len(k), k)))
    definition = re.compile(
        rf"^[ \t]*#[ \t]*define[ \t]+({alternatives})(?![\w])"
        rf"|(?<![\w.>:])({alternatives})\s*\([^;{{}}()]*(?:\([^;{{}}()]*\)[^;{{}}()]*)*\)\s*(?:const\s*)?\{{"
        rf"|\b(?:class|struct)\s+({alternatives})\s*(?:final\s*)?[:{{]", re.M)
    found: dict[str, str] = {}
    for rel, text in sorted(texts.items()):
        if text is None:
            continue
        for m in definition.finditer(code_view(text)):
            new = m.group(1) or m.group(2) or m.group(3)
            found.setdefault(wanted[new], f"{rel}:{text.count(chr(10), 0, m.start()) + 1}")
    return found


def uses(text: str, names: dict[str, str]) -> str:
    """The first renamed project name used in ``text``'s code ('' when none)."""
    if not names:
        return ""
    code = blank(text)
    for m in _CUDA_IN_NAME.finditer(code):
        if m.group(0) in names:
            return m.group(0)
    return ""


# ---------------------------------------------------------------- files

_WORD = re.compile(r"cuda|CUDA|Cuda")


def project_rename(rel: str) -> str:
    """A project file's ported path: as PyTorch's files are renamed, and ``cuda`` inside a word of the
    file name too (``cudaops.cpp`` → ``musaops.cpp``): a project has no libtorch name to keep."""
    out = rename_path(rel)
    folder, sep, name = out.rpartition("/")
    name = _WORD.sub(lambda m: {"cuda": "musa", "CUDA": "MUSA", "Cuda": "Musa"}[m.group(0)], name)
    return f"{folder}{sep}{name}"


# ---------------------------------------------------------------- existing MUSA support

_MUSA_EVIDENCE = re.compile(
    r"(?<![\w])(?:\w+_)?(?:WITH|USE)_MUSA\b|__MUSA\w*__|\bis_privateuseone\s*\(|\bkPrivateUse1\b"
    r"|\bDeviceType::PrivateUse1\b|\bc10::musa::|\bat::musa::")
_MUSA_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*[<\"](?:torch_musa/|musa_runtime|musa\.h)", re.M)


def musa_evidence(text: str) -> tuple[int, str] | None:
    """(line, what) of the first sign that a file already has its own MUSA code, or None."""
    code = blank(text)
    hits = [m for m in (_MUSA_EVIDENCE.search(code), _MUSA_INCLUDE.search(blank(text, strings=False))) if m]
    if not hits:
        return None
    m = min(hits, key=lambda m: m.start())
    return text.count("\n", 0, m.start()) + 1, " ".join(m.group(0).split()).lstrip("#")
