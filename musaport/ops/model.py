"""The operator model: how the MUSA backend gets each operator that has a CUDA kernel.

torchgen (run from the tree, see ``operators_records``) says which kernel the
CUDA key names; the code facts of ``operators_scan`` say where that kernel
lives and what it reaches.  Each operator then falls in one kind:

- ``stub``: the kernel is a device-generic ``at::native`` function whose work
  goes through DispatchStubs that a ported file registers (abs.out);
- ``structured``: a structured kernel whose impl is a ``TORCH_IMPL_FUNC`` in a
  ported file, or a shared impl that reaches ported stubs (tril.out, and its
  delegates tril and tril_);
- ``cuda-function``: a CUDA-only function defined in a ported file (with the ported files
  registering the stubs that the device-generic helpers it calls call);
- ``generic``: the CUDA key names libtorch's device-generic code, the CPU's too
  (view, view_as_real, relu); its body reaches no DispatchStub and no ported
  function, so its work re-dispatches through ``at::`` calls, and the backend
  registers libtorch's own definition, as every PrivateUse1 backend does;
- ``not-portable``: the kernel needs a library MUSA has no counterpart for;
- ``unresolved``: none of the above could be shown; the reason says why.

No operator is dropped: every one the CUDA key names gets a kind.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from musaport.errors import Outcome
from musaport.ops.inputs import generic_files
from musaport.ops.records import Record, Records, load_records
from musaport.ops.scan import SCANNED_PORTED, Definition, FileFacts, pasted_regex, pasted_with, scan
from musaport.outdir import OutDir
from musaport.port.layout import Found, Layout, OperatorFolders, discover, load_layout
from musaport.resources import default_layout


class OpKind(Outcome):
    """How the MUSA backend gets an operator (see the module's docstring); the value is what reports say."""

    STUB = "stub"
    STRUCTURED = "structured"
    CUDA_FUNCTION = "cuda-function"
    GENERIC = "generic"
    NOT_PORTABLE = "not-portable"
    UNRESOLVED = "unresolved"


KINDS = tuple(OpKind)
# The kinds whose operators the backend can register: the ported ones, and libtorch's device-generic code.
REGISTRABLE = (OpKind.STUB, OpKind.STRUCTURED, OpKind.CUDA_FUNCTION, OpKind.GENERIC)

# Name prefixes in a kernel's body that mark such a library.
VENDOR_NAMES = {"cudnn": "cuDNN", "miopen": "MIOpen", "cusparseLt": "cuSPARSELt", "cublasLt": "cuBLASLt"}
MAX_DEPTH = 3


@dataclass(frozen=True)
class Operator:
    """One operator overload with a CUDA kernel and how the MUSA backend gets it."""

    name: str
    schema: str
    line: int
    kind: OpKind
    kernel: str
    stubs: tuple[str, ...]
    files: tuple[str, ...]
    delegate: str = ""
    reason: str = ""


@dataclass(frozen=True)
class OperatorModel:
    """Every CUDA operator by name, plus the C++ facts registration code needs."""

    operators: dict[str, Operator]
    wrappers: dict[str, Record] = field(default_factory=dict)  # the records torchgen gave a C++ wrapper
    origin: str = "torchgen"
    note: str = ""
    problem: str = ""  # set when the tree has a torchgen that could not be run

    def resolve(self, query: str) -> list[Operator]:
        """``abs`` → abs, abs.out, abs_ (whichever exist); ``abs.out`` or ``tril_`` → that one."""
        return [self.operators[n] for n in resolve_names(self.operators, query)]

    def suggestions(self, query: str) -> list[str]:
        """Up to five known names close to an unknown ``query``."""
        return suggest_names(self.operators, query)

    def registrable(self) -> list[Operator]:
        """Operators the backend can register: the ported ones, in yaml order."""
        return sorted((op for op in self.operators.values() if op.kind in REGISTRABLE and op.name in self.wrappers),
                      key=lambda op: (op.line, op.name))


def resolve_names(names: Iterable[str], query: str) -> list[str]:
    """The operator names ``query`` selects: an exact overload, or every overload of a base name.

    A base name also selects its in-place twin (``abs`` → ``abs_``); a name with
    an overload or a trailing ``_`` selects only itself.
    """
    known = set(names)
    if "." in query or query.endswith("_"):
        return [query] if query in known else sorted(n for n in known if n.split(".", 1)[0] == query)
    return sorted(n for n in known if n.split(".", 1)[0] in (query, query + "_"))


def suggest_names(names: Iterable[str], query: str) -> list[str]:
    """Up to five names (or base names) close to ``query``."""
    known = sorted(set(names))
    candidates = known + sorted({n.split(".", 1)[0] for n in known} - set(known))
    return difflib.get_close_matches(query, candidates, n=5, cutoff=0.6)


def operator_model(source: Path, out: OutDir, ported: Iterable[str] | None = None,
                   layout: Layout | None = None, jobs: int = 1, known: dict[str, dict] | None = None) -> OperatorModel:
    """The model of ``source``; caches torchgen's records and the scan in ``out``'s state folder.

    ``ported``: the tree-relative sources the run ported (default: the layout's selection);
    ``layout``: the run's layout (default: the bundled one), which names the folders read besides;
    ``jobs``: worker processes for a cold scan; ``known``: facts the port observed (``scan.observed_facts``).
    """
    layout = layout or load_layout(default_layout())
    state = out.state
    state.mkdir(parents=True, exist_ok=True)
    records = load_records(source, state)
    ported_set = set(ported if ported is not None else _layout_selection(source, layout))
    scanned = [p for p in ported_set if p.endswith(SCANNED_PORTED)]
    generic = generic_files(source, ported_set, layout.operators)
    facts = scan(source, sorted(set(scanned + generic)), state, jobs, known)
    return build_model(records, facts, ported_set, layout.operators, frozenset(generic))


def _layout_selection(source: Path, layout: Layout) -> list[str]:
    return [f.rel for f in discover(layout, source) if isinstance(f, Found)]


@dataclass
class _Index:
    """Lookups over all scanned files: definitions, impls and registrations by name."""

    ported: set[str]
    folders: OperatorFolders = OperatorFolders()
    generic: frozenset[str] = frozenset()  # device-generic code, headers ported in place included
    declared: set[str] = field(default_factory=set)  # DispatchStubs declared or defined anywhere
    defs: dict[str, list[tuple[str, Definition]]] = field(default_factory=dict)
    types: dict[str, list[tuple[str, Definition]]] = field(default_factory=dict)  # struct and class bodies
    impls: dict[str, list[str]] = field(default_factory=dict)
    registered: dict[str, list[str]] = field(default_factory=dict)
    macro_defs: dict[str, list[tuple[str, Definition]]] = field(default_factory=dict)
    templates: list[tuple[str, str, re.Pattern[str]]] = field(default_factory=list)
    invocations: dict[str, list[Definition]] = field(default_factory=dict)
    found: dict[str, list[tuple[str, Definition]]] = field(default_factory=dict)

    @classmethod
    def of(cls, facts: dict[str, FileFacts], ported: set[str], folders: OperatorFolders,
           generic: frozenset[str] = frozenset()) -> "_Index":
        idx = cls(ported, folders, generic)
        for path, f in sorted(facts.items()):
            idx.declared.update(f.stubs)
            for d in f.definitions:
                idx.defs.setdefault(d.name, []).append((path, d))
            for d in f.types:
                idx.types.setdefault(d.name, []).append((path, d))
            idx.invocations[path] = [d for d in f.invocations if not d.name.startswith(_NOT_DEFINING)]
            for d in idx.invocations[path]:
                for arg in d.names:
                    idx.macro_defs.setdefault(arg, []).append((path, d))
            idx.templates += [(path, t, re.compile(pasted_regex(t))) for t in f.templates]
            for site in f.structure.impl_funcs:
                idx.impls.setdefault(site.name, []).append(path)
            if path in ported:
                for site in f.structure.registrations:
                    idx.registered.setdefault(site.name, []).append(path)
        return idx

    def is_generic(self, path: str) -> bool:
        """Device-generic code: libtorch's own, not a ported translation unit."""
        return path in self.generic or path not in self.ported


_NOT_DEFINING = ("REGISTER_", "DEFINE_", "DECLARE_", "C10_", "TORCH_LIBRARY")


def _definitions(idx: _Index, kernel: str) -> list[tuple[str, Definition]]:
    """Where ``kernel`` is defined: by a function body, a macro argument, or a pasted name.

    A pasted name (``foreach_tensor_##OP##_cuda``) defines ``kernel`` in a file
    when it matches and the file invokes a macro with a word of ``kernel``
    (``FOREACH_BINARY_OP_LIST(add, ...)`` for ``foreach_tensor_add_list_kernel_cuda``).
    """
    if kernel not in idx.found:
        direct = idx.defs.get(kernel, []) + idx.macro_defs.get(kernel, [])
        idx.found[kernel] = direct or _pasted_definitions(idx, kernel)
    return idx.found[kernel]


def _pasted_definitions(idx: _Index, kernel: str) -> list[tuple[str, Definition]]:
    words = set(kernel.split("_"))
    found = []
    by_path: dict[str, list[str]] = {}
    for p, t, _ in idx.templates:
        by_path.setdefault(p, []).append(t)
    for path in dict.fromkeys(p for p, _, t in idx.templates if t.fullmatch(kernel)):
        pasted = by_path[path]
        for d in idx.invocations.get(path, []):
            args = [a for a in d.names if _word_of(a, kernel, words)]
            names = d.names | {pasted_with(t, a) for t in pasted for a in args}
            found += [(path, Definition(d.name, d.line, d.end, frozenset(names), d.calls))] if args else []
    return found


def _word_of(arg: str, kernel: str, words: set[str]) -> bool:
    """True when ``arg`` is a whole ``_``-separated run of words of ``kernel``."""
    return arg in words or (f"_{arg}_" in f"_{kernel}_" and len(arg) > 2)


def build_model(records: Records, facts: dict[str, FileFacts], ported: set[str],
                folders: OperatorFolders = OperatorFolders(), generic: frozenset[str] = frozenset()) -> OperatorModel:
    """Classify every record (pure: records and facts in, model out); ``generic``: scanned paths of
    device-generic code (any other path not in ``ported`` is too)."""
    idx = _Index.of(facts, ported, folders, generic)
    ops: dict[str, Operator] = {}
    own = [r for r in records.items if not r.delegate]
    for r in own:
        ops[r.name] = _classify(r, idx)
    for r in records.items:
        if r.delegate:
            ops[r.name] = _delegated(r, ops.get(r.delegate))
    wrappers = {r.name: r for r in records.items if r.wrapper is not None and not r.manual}
    return OperatorModel(dict(sorted(ops.items())), wrappers, records.origin, records.note, records.problem)


def _op(r: Record, kind: OpKind, stubs: Iterable[str] = (), files: Iterable[str] = (), reason: str = "") -> Operator:
    return Operator(r.name, r.schema, r.line, kind, r.kernel, tuple(sorted(set(stubs))),
                    tuple(sorted(set(files))), r.delegate, reason)


def _delegated(r: Record, target: Operator | None) -> Operator:
    """A structured delegate is reached exactly as the out variant it delegates to."""
    if target is None:
        return _op(r, OpKind.UNRESOLVED, reason=f"delegates to {r.delegate}, which has no CUDA kernel")
    return _op(r, target.kind, target.stubs, target.files, target.reason)


def _classify(r: Record, idx: _Index) -> Operator:
    kernel = r.kernel
    if r.generated:  # torchgen writes its kernel at build time; the generation step ports that source
        return _op(r, OpKind.STRUCTURED, files=[r.generated[0]])
    if r.structured:
        ported_impls = [p for p in idx.impls.get(kernel, []) if p in idx.ported]
        if ported_impls:
            return _vendor_check(r, idx, kernel) or _op(r, OpKind.STRUCTURED, files=ported_impls)
        return _through_generic(r, idx, OpKind.STRUCTURED, f"TORCH_IMPL_FUNC({kernel})")
    ported_defs = [p for p, _ in _definitions(idx, kernel) if p in idx.ported and p.endswith(_KERNEL_FILES)]
    namesakes = [p for p, _ in idx.defs.get(kernel, []) + idx.macro_defs.get(kernel, []) if idx.is_generic(p)]
    if ported_defs and not namesakes:
        return _vendor_check(r, idx, kernel) or _cuda_function(r, idx, ported_defs)
    through = _through_generic(r, idx, OpKind.STUB, kernel)
    if through.kind == OpKind.UNRESOLVED and ported_defs:  # the device-generic namesake is not it
        return _vendor_check(r, idx, kernel) or _op(r, OpKind.CUDA_FUNCTION, files=ported_defs)
    return through


def _cuda_function(r: Record, idx: _Index, ported_defs: list[str]) -> Operator:
    """A CUDA-only kernel, with the stubs its device-generic helpers name (and the files registering them).

    ``_fft_r2c_cufft`` finishes its work with ``at::native::_fft_fill_with_conjugate_symmetry_``,
    a libtorch function whose body calls ``fft_fill_with_conjugate_symmetry_stub``, registered by
    the ported SpectralOps.cu: without that file the device has no kernel for the stub.  Only
    helpers the kernel calls itself count (one level), so a far-away ``copy_`` adds nothing.
    """
    stubs: set[str] = set()
    for path, d in _definitions(idx, r.kernel):
        if path not in ported_defs:
            continue
        for name in sorted(d.names - {r.kernel}):
            for p, helper in idx.defs.get(name, []):
                if idx.is_generic(p):
                    stubs |= {n for n in helper.names if n in idx.registered}
    own = sorted(set(ported_defs))  # first: a split registration is named after files[0]
    files = own + sorted({f for s in stubs for f in idx.registered[s]} - set(own))
    return Operator(r.name, r.schema, r.line, OpKind.CUDA_FUNCTION, r.kernel, tuple(sorted(stubs)), tuple(files),
                    r.delegate)


# Registered kernels are defined in translation units, not in headers (where a namesake
# like a device ``max`` helper lives).
_KERNEL_FILES = (".cu", ".cpp")


def _through_generic(r: Record, idx: _Index, kind: OpKind, what: str) -> Operator:
    """A kernel defined outside the ported set: follow its body to stubs and ported functions."""
    kernel = r.kernel
    generic = [(p, d) for p, d in _definitions(idx, kernel) if idx.is_generic(p)]
    vendor = [p for p, _ in generic if idx.folders.vendor_reason(p)]
    if vendor:
        return _op(r, OpKind.NOT_PORTABLE, reason=f"{what} is defined in {vendor[0]}: {idx.folders.vendor_reason(vendor[0])}, "
                                              "which is not ported")
    if not generic:
        return _op(r, OpKind.UNRESOLVED, reason=_missing(kernel, what))
    stubs, files, reached = _reach(idx, [d for _, d in generic])
    where = generic[0][0]
    if stubs:
        return _op(r, kind, stubs, [f for s in stubs for f in idx.registered[s]])
    if files:
        return _op(r, OpKind.STRUCTURED if kind == OpKind.STRUCTURED else OpKind.CUDA_FUNCTION, files=files)
    unregistered = sorted(reached & idx.declared)
    if unregistered:
        return _op(r, OpKind.UNRESOLVED, reason=f"{what} in {where} reaches DispatchStub {unregistered[0]}, "
                                           "which no ported file registers")
    return _op(r, OpKind.GENERIC, reason=f"{what} in {where}: device-generic code, no DispatchStub; "
                                     "its at:: calls re-dispatch to the device")


def _missing(kernel: str, what: str) -> str:
    if kernel.startswith("ufunc_"):
        return f"{what} is generated at build time by torchgen's ufunc codegen; it is not a source file"
    return f"{what} is not defined in any scanned file"


def _reach(idx: _Index, start: list[Definition]) -> tuple[set[str], list[str], set[str]]:
    """Stubs named by ``start``'s bodies (nearest level first), else the ported functions they call.

    Helpers defined in device-generic files are followed up to MAX_DEPTH
    levels; the first level that names a registered stub wins, so a far-away
    ``copy_`` does not add its stub to every op.  Only without any stub do
    the kernel's own calls of CUDA-only functions count.  The third value is
    every name the levels named (to tell device-generic code from code that
    reaches a stub no ported file registers).
    A device-generic type a body names is followed as a helper is: its body
    is where a functor handed to a template calls its stub (``UniformStub``).
    A macro invocation's arguments may name stubs (``CREATE_..._FUNC(tanh_out,
    tanh_stub)``) but are not calls, so they never link to ported functions.
    """
    seen = {d.name for d in start}
    level = start
    files: list[str] = []
    for _ in range(MAX_DEPTH):
        names = set().union(*(d.names for d in level)) if level else set()
        stubs = {n for n in names if n in idx.registered}
        if stubs:
            return stubs, [], seen | names
        called = set().union(*(d.names for d in level if not _MACRO_NAME.fullmatch(d.name))) if level else set()
        if level is start:  # only the kernel's own calls: deeper, a namesake is likelier than a link
            files = [p for n in sorted(called - seen) if _cuda_only(idx, n) for p, _ in idx.defs[n]]
        level = [d for n in sorted(names - seen) for p, d in idx.defs.get(n, []) + idx.types.get(n, [])
                 if idx.is_generic(p)]
        seen |= names
    return set(), files, seen


def _cuda_only(idx: _Index, name: str) -> bool:
    """A function only ported translation units define, in one or two of them (so not ``max``)."""
    where = {p for p, _ in idx.defs.get(name, [])}
    return 0 < len(where) <= 2 and all(p in idx.ported and p.endswith(_KERNEL_FILES) for p in where)


_MACRO_NAME = re.compile(r"[A-Z][A-Z0-9_]*")  # a macro invocation's arguments are words, not calls


def _vendor_check(r: Record, idx: _Index, kernel: str) -> Operator | None:
    """Not portable when the kernel's own body calls a library MUSA lacks (a call: an enumerator
    ``SDPBackend::cudnn_attention`` or a variable ``cudnn_seed`` says nothing of what the body runs)."""
    for path, d in _definitions(idx, kernel):
        if path not in idx.ported:
            continue
        for name in sorted(d.calls):
            lib = next((lib for prefix, lib in VENDOR_NAMES.items() if name.startswith(prefix)), None)
            if lib:
                return _op(r, OpKind.NOT_PORTABLE, files=[path],
                           reason=f"{kernel} in {path}:{d.line} calls {name} ({lib}: no MUSA counterpart)")
    return None
