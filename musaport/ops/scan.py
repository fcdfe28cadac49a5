"""Per-file facts the operator model links through: definitions, registrations, impls.

An operator reaches the GPU along code: its kernel function is *defined* in
some file, its body names helpers and DispatchStubs, and a ported file
*registers* the stub.  These facts come from the code context of libclang's
lexing (``parser.masked``), so a name in a comment or a string never makes a
link.  Facts are cached per file by size and mtime, so a run after editing
one file rescans that file only.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from musaport import jsoncache
from musaport.children import tied_to_this_process
from musaport.cpp.parser import Parsed, masked, parse
from musaport.cpp.structure import Structure, structure
from musaport.cpp.text import CODE_ONLY, LineIndex, from_heads, matching
from musaport.cpp.tokens import Tokens, lex_many
from musaport.outdir import OPERATOR_SCAN, scan_facts
from musaport.resources import user_cache

_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_IDENT = re.compile(r"\b[A-Za-z_]\w*")
# Names a body can reach: any but ``std::`` ones (``std::max`` is not ``at::native::max``).
_REACHABLE = re.compile(r"(?<![\w])(?<!std::)[A-Za-z_]\w*")
# A reachable name that is called: ``f(``, ``f<T>(``; not ``Backend::cudnn_attention`` or ``cudnn_seed.data_ptr()``,
# nor an operator called through the dispatcher, ``at::cudnn_batch_norm(``: that call links against libtorch
# and runs the kernel of the tensors' own device (``at::native::cudnn_convolution(`` stays a call).
_CALLED = re.compile(r"(?<![\w])(?<!std::)(?<!\bat::)([A-Za-z_]\w*)\s*(?:<[^;{}()<>]*>\s*)?\(")
_AFTER_PARAMS = re.compile(r"(?:\s|\bconst\b|\bnoexcept\b|\boverride\b|\bfinal\b|&)*")
_NOT_FUNCTIONS = frozenset("if for while switch return catch sizeof decltype alignof static_assert defined "
                           "TORCH_CHECK TORCH_INTERNAL_ASSERT AT_DISPATCH_SWITCH".split())
_IMPL_MACROS = frozenset({"TORCH_IMPL_FUNC"})
_MACRO = re.compile(r"[A-Z][A-Z0-9_]*")
_PASTED = re.compile(r"\b\w+(?:\s*##\s*\w+)+")
_DISPATCH_DECL = re.compile(r"\b(?:DEFINE|DECLARE)_DISPATCH\s*\(")
_LAST_WORD = re.compile(r"(\w+)\s*$")
# ``struct UniformStub {``, ``class Foo final : public Bar {``: a type whose body the model may follow.
_TYPE_HEAD = re.compile(r"(?<!enum )\b(?:struct|class)\s+([A-Za-z_]\w*)\s*(?:final\s*)?(?::(?!:)[^{};()]*)?\{")
# Where a match of _TYPE_HEAD or _DISPATCH_DECL can start: their leading assertions keep the regex engine from
# skipping ahead to a literal, so the literal is found first and the whole pattern tried there (see cpp.text.from_heads).
_TYPE_WORD = re.compile(r"struct|class")
_DISPATCH_WORD = re.compile(r"(?:DEFINE|DECLARE)_DISPATCH")
SCAN_VERSION = 10


@dataclass(frozen=True)
class Definition:
    """A function defined in a file: its name, first line and the identifiers its body names.

    ``calls``: those of ``names`` the body calls, so that a check for a
    library's functions is not set off by an enumerator or a variable that
    merely shares the library's prefix.
    """

    name: str
    line: int
    end: int
    names: frozenset[str]
    calls: frozenset[str] = frozenset()


@dataclass(frozen=True)
class FileFacts:
    """What one file contributes to the operator model."""

    path: str
    definitions: tuple[Definition, ...]
    structure: Structure
    stubs: tuple[str, ...]  # DECLARE_/DEFINE_DISPATCH names
    invocations: tuple[Definition, ...] = ()  # top-level MACRO(args): name, line, identifiers in args
    templates: tuple[str, ...] = ()  # token-pasted names (``foreach_tensor_##OP##_cuda``)
    types: tuple[Definition, ...] = ()  # struct and class bodies: name, lines, identifiers in the body

    def to_json(self) -> dict:
        return {"definitions": _defs_json(self.definitions), "structure": self.structure.to_json(),
                "stubs": list(self.stubs), "invocations": _defs_json(self.invocations),
                "templates": list(self.templates), "types": _defs_json(self.types)}

    @classmethod
    def from_json(cls, path: str, data: dict) -> "FileFacts":
        return cls(path, _defs(data["definitions"]), Structure.from_json(data["structure"]), tuple(data["stubs"]),
                   _defs(data["invocations"]), tuple(data["templates"]), _defs(data["types"]))


def _defs_json(defs: tuple[Definition, ...]) -> list:
    return [[d.name, d.line, d.end, " ".join(sorted(d.names)), " ".join(sorted(d.calls))] for d in defs]


def _defs(rows: list) -> tuple[Definition, ...]:
    return tuple(Definition(n, a, b, frozenset(s.split()), frozenset(c.split())) for n, a, b, s, c in rows)


def _body_names(code: str, brace: int, end: int) -> tuple[frozenset[str], frozenset[str]]:
    """The identifiers a body names, and those it calls."""
    return frozenset(_REACHABLE.findall(code, brace, end)), frozenset(_CALLED.findall(code, brace, end))


def file_facts(path: str, data: bytes, tokens: Tokens | None = None) -> FileFacts:
    """Lex ``data`` (unless its ``tokens`` are given) and collect its definitions, structure facts
    and dispatch declarations."""
    parsed = parse(data, tokens)
    code = masked(parsed.text, parsed.spans, CODE_ONLY)
    return parsed_facts(path, code, structure(parsed, code))


# The ported files the model scans (headers and the rest are not where kernels are defined).
SCANNED_PORTED = (".cu", ".cpp", ".cuh")
# What the port observes: those, and the headers (the model scans the device-generic folders' headers,
# which a run ports in place, such as ComplexHelper.h).
OBSERVED = (*SCANNED_PORTED, ".h")


def observed_facts(path: str, parsed: Parsed, code: str, facts: Structure) -> dict | None:
    """The port's observer (``port.file.Observer``): a scanned file's facts, as JSON, from the
    parse the port made of it anyway, so the scan does not lex it again."""
    return parsed_facts(path, code, facts).to_json() if path.endswith(OBSERVED) else None


def parsed_facts(path: str, code: str, facts: Structure) -> FileFacts:
    """The facts of a file from its code view and structure facts."""
    found, invocations = definitions(code)
    # The needles first: both patterns start with \b, which keeps the regex engine from
    # skipping ahead, and most files hold neither.
    stubs = dispatch_declarations(code) if "_DISPATCH" in code else ()
    pasted = {'##'.join(p for p, _ in pasted_parts(m.group(0))) for m in _PASTED.finditer(code)} if "##" in code else ()
    types = type_bodies(code) if "struct" in code or "class" in code else ()
    return FileFacts(path, tuple(found), facts, stubs, tuple(invocations), tuple(sorted(pasted)), types)


def type_bodies(code: str) -> tuple[Definition, ...]:
    """Every ``struct``/``class`` with a body, nested ones included, with the identifiers its body names.

    Device-generic code hands its DispatchStub to a template as a functor:
    ``uniform_`` calls ``uniform_impl_<UniformStub, Generator>``, and only the
    body of ``struct UniformStub`` calls ``uniform_stub``.  A function body
    names the type; the type's body names the stub.
    """
    lines = LineIndex(code)
    found = []
    for m in from_heads(_TYPE_WORD, _TYPE_HEAD, code):
        brace = m.end() - 1
        end = matching(code, brace)
        if end > 0:
            found.append(Definition(m.group(1), lines(m.start()), lines(end), *_body_names(code, brace, end)))
    return tuple(found)


def dispatch_declarations(code: str) -> tuple[str, ...]:
    """The stubs of ``DECLARE_DISPATCH(void (*)(TensorIterator&, int64_t), name)`` and
    ``DEFINE_DISPATCH(name)``: the last word inside the parentheses (the function type has commas)."""
    found = []
    for m in from_heads(_DISPATCH_WORD, _DISPATCH_DECL, code):
        if "#" in code[code.rfind("\n", 0, m.start()) + 1 : m.start()]:  # the macro's own #define
            continue
        close = matching(code, m.end() - 1)
        word = _LAST_WORD.search(code, m.end(), close) if close > 0 else None
        if word:
            found.append(word.group(1))
    return tuple(found)


def pasted_parts(text: str) -> list[tuple[str, bool]]:
    """``foreach_tensor_##OP##_cuda`` → its parts, each with True when it is a macro parameter.

    A pasted part that starts or ends with ``_`` is literal text; any other
    part is taken for a macro parameter.
    """
    return [(p, not (p.startswith("_") or p.endswith("_"))) for p in (q.strip() for q in text.split("##"))]


def pasted_regex(text: str) -> str:
    """The names a pasted template can produce: ``foreach_tensor_\\w+_cuda``."""
    return "".join(r"\w+" if param else re.escape(p) for p, param in pasted_parts(text))


def pasted_with(text: str, arg: str) -> str:
    """The template with every parameter replaced by ``arg`` (``func##_stub`` → ``eq_stub``)."""
    return "".join(arg if param else p for p, param in pasted_parts(text))


def definitions(code: str) -> tuple[list[Definition], list[Definition]]:
    """Functions with a body, ``name(params) [const|noexcept...] {``, and top-level macro invocations.

    ``TORCH_IMPL_FUNC(name)(params) {`` defines ``name``.  Scanning resumes
    after each body, so calls inside a body are never taken for definitions.
    A macro invocation outside any body (``CREATE_UNARY_TORCH_IMPL_FUNC(tanh_out,
    tanh_stub)``) is kept with the identifiers of its arguments: macros define
    kernels too.
    """
    found: list[Definition] = []
    invocations: list[Definition] = []
    pos = 0
    lines = LineIndex(code)
    while (m := _CALL.search(code, pos)) is not None:
        name, params = m.group(1), m.end() - 1
        pos = m.end()
        close = matching(code, params) if name not in _NOT_FUNCTIONS else -1
        if close < 0:
            continue
        if _MACRO.fullmatch(name) and name not in _IMPL_MACROS and not _opens_body(code, close):
            args = frozenset(_IDENT.findall(code, params, close))
            invocations.append(Definition(name, lines(m.start()), lines(close), args))
            pos = close + 1
            continue
        body = _body(code, name, params, close)
        if body is not None:
            name, brace, end = body
            found.append(Definition(name, lines(m.start()), lines(end), *_body_names(code, brace, end)))
            pos = end
    return found, invocations


_SECOND_PARAMS = re.compile(r"\s*\(")


def _body(code: str, name: str, params: int, close: int) -> tuple[str, int, int] | None:
    """The defined name and the offsets of the body's braces, when a body follows ``name(...)``."""
    if name in _IMPL_MACROS:  # TORCH_IMPL_FUNC(name)(params) {
        name = code[params + 1 : close].strip()
        second = _SECOND_PARAMS.match(code, close + 1)
        close = matching(code, second.end() - 1) if second else -1
        if close < 0:
            return None
    brace = _AFTER_PARAMS.match(code, close + 1).end()
    if brace >= len(code) or code[brace] != "{":
        return None
    end = matching(code, brace)
    return (name, brace, end) if end >= 0 else None


def _opens_body(code: str, close: int) -> bool:
    brace = _AFTER_PARAMS.match(code, close + 1).end()
    return brace < len(code) and code[brace] in "{("


CACHE_NAME = OPERATOR_SCAN  # in the state folder; the name is outdir's


def scan(source: Path, paths: Iterable[str], state: Path, jobs: int = 1,
         known: dict[str, dict] | None = None) -> dict[str, FileFacts]:
    """Facts of every path (tree-relative), reusing the cache for files whose size and mtime held.

    ``known``: facts (as JSON) this run already has, from the port's parse of
    the files it ported (``observed_facts``); those are not lexed again.
    """
    known = known or {}
    cache_file = state / CACHE_NAME
    old = _load(cache_file)
    fresh: dict[str, dict] = {}
    todo: list[tuple[str, list[int]]] = []
    for rel in sorted(set(paths)):
        taken = jsoncache.stamp(source / rel)
        if taken is None:
            continue
        stamp = list(taken)
        entry = old.get(rel)
        if entry is not None and entry["stamp"] == stamp:
            fresh[rel] = entry
        else:
            todo.append((rel, stamp))
    lexed = iter(_facts_by_content(source, [rel for rel, _ in todo if rel not in known], jobs))
    for rel, stamp in todo:
        fresh[rel] = {"stamp": stamp, "facts": known[rel] if rel in known else next(lexed)}
    fresh = dict(sorted(fresh.items()))
    if fresh != old:
        jsoncache.dump(cache_file, {"version": SCAN_VERSION, "files": fresh})
    return {rel: FileFacts.from_json(rel, e["facts"]) for rel, e in fresh.items()}


# The files whose facts the user cache keeps at most (about 5 KB each), the latest kept: the
# device-generic files of a few releases.
SHARED_FILES = 2000
# What the facts of a file's bytes depend on besides them: this scanner and the lexing it reads.
_SCANNER = ("ops/scan.py", "cpp/parser.py", "cpp/tokens.py", "cpp/structure.py", "cpp/text.py")


def _facts_by_content(source: Path, rels: list[str], jobs: int) -> list[dict]:
    """Facts as JSON for ``rels``: from the user cache for a file whose bytes it has seen (a new
    ``--out`` of a tree read before: the device-generic files the run does not port), else lexed,
    and then kept there by the digest of the bytes that were lexed."""
    if not rels:
        return []
    path = shared_facts_file()
    shared = _load_shared(path)
    seen = {rel: shared.get(_content_digest(source / rel)) for rel in rels}
    missing = [rel for rel in rels if seen[rel] is None]
    made = dict(zip(missing, _facts_of(source, missing, jobs)))
    if made:
        fresh = dict(made.values())
        merged = {d: f for d, f in shared.items() if d not in fresh} | fresh  # over the bound, these stay
        _store_shared(path, dict(list(merged.items())[-SHARED_FILES:]))
    return [made[rel][1] if rel in made else seen[rel] for rel in rels]  # type: ignore[misc]


def shared_facts_file() -> Path:
    """The user cache's facts by content for this scanner (its modules and the libclang it lexes with)."""
    h = hashlib.sha256(f"{SCAN_VERSION}\0".encode())
    package = Path(__file__).resolve().parent.parent
    for rel in _SCANNER:
        h.update((package / rel).read_bytes())
    spec = importlib.util.find_spec("clang")
    native = Path(spec.origin).parent / "native" if spec is not None and spec.origin else None
    for lib in sorted(native.iterdir()) if native is not None and native.is_dir() else []:
        h.update(f"\0{lib.name}\0{jsoncache.stamp(lib)}".encode())
    return user_cache() / "scan" / scan_facts(h.hexdigest()[:24])


def _content_digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""  # lexed (and failing there, as before)


def _load_shared(path: Path) -> dict[str, dict]:
    """The facts the user cache keeps, by content digest; a missing, corrupt or older file is none."""
    data = jsoncache.load(path, {"version": object, "files": {"*": object}}, version=SCAN_VERSION)
    files = data["files"] if data else {}
    try:
        for digest, facts in files.items():
            FileFacts.from_json(digest, facts)
    except (KeyError, TypeError, ValueError, AttributeError):
        return {}
    return files


def _store_shared(path: Path, files: dict[str, dict]) -> None:
    """Keep ``files`` in the user cache; one that cannot be written (a read-only home) only costs the
    next new ``--out`` the lexing."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        jsoncache.dump(path, {"version": SCAN_VERSION, "files": files})
    except OSError:
        pass


def _facts_of(source: Path, rels: list[str], jobs: int) -> list[tuple[str, dict]]:
    """(digest of the bytes lexed, facts as JSON) for ``rels``, lexed in batches (one libclang reparse
    each), in up to ``jobs`` worker processes when there are many (a cold scan)."""
    batches = [rels[i : i + _BATCH] for i in range(0, len(rels), _BATCH)]
    if len(rels) < _PARALLEL_FROM or jobs < 2:
        return [facts for batch in batches for facts in _batch(source, batch)]
    with ProcessPoolExecutor(jobs, initializer=tied_to_this_process()) as pool:
        return [facts for done in pool.map(_batch, [source] * len(batches), batches) for facts in done]


_PARALLEL_FROM = 64
_BATCH = 32


def _batch(source: Path, rels: list[str]) -> list[tuple[str, dict]]:
    datas = [(source / rel).read_bytes() for rel in rels]
    try:
        tokens: list[Tokens | None] = list(lex_many(datas))
    except Exception:  # noqa: BLE001 - each file is lexed on its own instead
        tokens = [None] * len(datas)
    return [(hashlib.sha256(data).hexdigest(), file_facts(rel, data, toks).to_json())
            for rel, data, toks in zip(rels, datas, tokens)]


def _load(path: Path) -> dict[str, dict]:
    """The cached facts; a missing, corrupt or older cache is an empty one."""
    data = jsoncache.load(path, {"version": object, "files": {"*": {"stamp": [(int, str)], "facts": object}}},
                          version=SCAN_VERSION)
    files = data["files"] if data else {}
    try:  # facts of another shape than FileFacts reads: no cache
        for rel, entry in files.items():
            FileFacts.from_json(rel, entry["facts"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return {}
    return files
