"""The CUDA operators of a tree, read by the tree's own torchgen (in a child process).

torchgen knows every rule of native_functions.yaml for its release (structured
groups, ufunc kernels, C++ signatures), so it runs in a child with the tree
on ``sys.path``: no torch install is needed and the tool's process never
imports another release's modules.  The result is cached under ``--out/.musaport``
by the digest of the yaml files, so it runs once per release, and in the user
cache (``<user cache>/torchgen/``) by that digest and the tree's ``torchgen/``
sources, so a first run into a new ``--out`` of a tree already read elsewhere
(another output folder, another unpacked copy, CI's second job) skips the
child: on 2.6.0 that is about 1.5 s of CPU of a cold run's 5.5.  A tree without
``torchgen/`` (the bundled fixture) falls back to the plain YAML, which gives
names, kernels and structure but no C++ signatures, so no registration code.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

from musaport import children, jsoncache
from musaport.errors import LoadError, ToolError
from musaport.ops.inputs import NATIVE_FUNCTIONS, TAGS
from musaport.outdir import operator_records
from musaport.resources import user_cache
from musaport.yamlload import load_yaml

CHILD = Path(__file__).with_name("torchgen_child.py")
FORMAT = 1


@dataclass(frozen=True)
class Guard:
    """Which argument decides the device a wrapper switches to: ``tensor``, ``options`` or ``none``."""

    kind: str
    arg: str


@dataclass(frozen=True)
class Wrapper:
    """The C++ facts torchgen gives for one registered wrapper (see ``torchgen_child``).

    Every wrapper has the dispatcher signature and its guard; an unstructured
    one calls ``call``, a structured one runs ``meta`` and ``impl`` of its
    ``parent`` class for its ``variant`` (functional, inplace, out).
    """

    returns: str
    params: str
    args: tuple[str, ...]
    guard: Guard
    structured: bool
    call: str = ""
    variant: str = ""
    parent: str = ""
    outputs: int = 0
    out_names: tuple[str, ...] = ()
    self: str = ""
    meta: str = ""
    impl: str = ""
    precomputed: bool = False
    inherits: bool = False
    device_check: tuple[str, ...] = ()  # unstructured: tensors that must share a device, checked before the guard

    @classmethod
    def from_json(cls, data: dict) -> "Wrapper":
        return cls(**{**data, "args": tuple(data["args"]), "out_names": tuple(data.get("out_names", ())),
                      "device_check": tuple(data.get("device_check", ())),
                      "guard": Guard(**data["guard"])})


@dataclass(frozen=True)
class Record:
    """One operator overload the CUDA key has a kernel for, as torchgen (or the plain YAML) reads it."""

    name: str
    schema: str
    line: int
    kernel: str
    root: str
    structured: bool
    delegate: str
    explicit: bool
    manual: bool
    wrapper: Wrapper | None
    # A source torchgen generates for this kernel at build time (ufunc: UfuncCUDA_add.cu): path, text.
    generated: tuple[str, str] | None = None
    # Its part of the dispatch-key C++ API (at::cuda::sort, sort_out, sort_outf) as torchgen writes it,
    # calling "@WRAPPER@": the registration defines it as at::musa::... around its own wrapper.
    cpp_api: str = ""

    @classmethod
    def from_json(cls, data: dict) -> "Record":
        wrapper, generated = data.get("wrapper"), data.get("generated")
        return cls(**{**data, "wrapper": Wrapper.from_json(wrapper) if wrapper else None,
                      "generated": _pair(generated)})


def _pair(generated: dict | list | None) -> tuple[str, str] | None:
    """(path, text) from the child's ``{"path", "text"}`` or a cached ``[path, text]``."""
    if not generated:
        return None
    return (generated["path"], generated["text"]) if isinstance(generated, dict) else (generated[0], generated[1])


@dataclass(frozen=True)
class Records:
    """Per-function records and where they came from."""

    items: tuple[Record, ...]
    origin: str  # "torchgen" | "yaml"
    note: str = ""
    problem: str = ""  # why the tree's torchgen could not be used (never cached: a rerun tries again)

    def to_json(self) -> dict:
        return {"items": [_record_json(r) for r in self.items], "origin": self.origin, "note": self.note}

    @classmethod
    def from_json(cls, data: dict) -> "Records":
        return cls(tuple(Record.from_json(r) for r in data["items"]), data["origin"], data["note"])


def _record_json(r: Record) -> dict:
    """``dataclasses.asdict(r)``, written out: asdict deep-copies every value (0.1 s for 2.6.0's records)."""
    data = dict(vars(r))
    if r.wrapper is not None:
        data["wrapper"] = {**vars(r.wrapper), "guard": dict(vars(r.wrapper.guard))}
    return data


def yaml_digest(source: Path) -> str:
    """Digest of what the operator list depends on: the two yaml files and the loader."""
    h = hashlib.sha256(f"{FORMAT}\0{CHILD.read_bytes().hex()}\0".encode())
    for rel in (NATIVE_FUNCTIONS, TAGS):
        path = source / rel
        h.update(path.read_bytes() if path.is_file() else b"")
    h.update(b"torchgen" if (source / "torchgen").is_dir() else b"yaml")
    return h.hexdigest()[:16]


def shared_records(source: Path) -> Path:
    """Where the user cache keeps the torchgen records of a tree: by the yaml digest (which covers this
    tool's child and record format) and a digest of the tree's ``torchgen/`` sources, which make them."""
    h = hashlib.sha256(yaml_digest(source).encode())
    gen = source / "torchgen"
    for path in sorted(gen.rglob("*.py")):
        h.update(f"\0{path.relative_to(gen).as_posix()}\0".encode())
        h.update(path.read_bytes())
    return user_cache() / "torchgen" / operator_records(h.hexdigest()[:24])


_PENDING: dict[Path, subprocess.Popen[str]] = {}  # torchgen children started before the port


def start_records(source: Path, state: Path) -> None:
    """Start torchgen in the background when its records are cached neither in ``state`` nor in the user
    cache (the port runs meanwhile)."""
    if source in _PENDING or not (source / "torchgen").is_dir() or not (source / NATIVE_FUNCTIONS).is_file():
        return
    if _cached(state / operator_records(yaml_digest(source))) is None and _cached(shared_records(source)) is None:
        _PENDING[source] = _child(source, state)


def _child(source: Path, state: Path) -> subprocess.Popen[str]:
    """The tree's torchgen in a child that runs in the state folder and dies with musaport."""
    state.mkdir(parents=True, exist_ok=True)
    return children.popen(children.python(str(CHILD), str(source.resolve())), cwd=state,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)


def _cached(path: Path) -> Records | None:
    data = jsoncache.load(path, {"items": [{"*": object}], "origin": str, "note": str})
    try:
        return Records.from_json(data) if data else None
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def load_records(source: Path, state: Path) -> Records:
    """The cached records for this yaml digest, made now if missing."""
    if not (source / NATIVE_FUNCTIONS).is_file():
        raise LoadError(f"{source / NATIVE_FUNCTIONS}: missing; cannot build the operator model")
    cache = state / operator_records(yaml_digest(source))
    records = _cached(cache)
    if records is not None:
        return records
    shared = shared_records(source) if (source / "torchgen").is_dir() else None
    records = _cached(shared) if shared is not None else None
    if records is not None:
        _store(state, cache, records)
        return records
    if shared is not None:
        try:
            records = _from_torchgen(source, state)
        except ToolError as exc:  # a torchgen this tool cannot drive: say so, keep the model (not cached)
            fallback = _from_yaml(source, f"the tree's torchgen failed ({exc}); operators read from plain YAML, "
                                          "no registration code")
            return replace(fallback, problem=str(exc))
        _store_shared(shared, records)
    else:
        records = _from_yaml(source)
    _store(state, cache, records)
    return records


def _store(state: Path, cache: Path, records: Records) -> None:
    """The records as the one operator-records file of ``state``."""
    for old in state.glob("operators-*.json"):
        old.unlink(missing_ok=True)
    jsoncache.dump(cache, records.to_json())


def _store_shared(path: Path, records: Records) -> None:
    """The records in the user cache; a cache that cannot be written (read-only home) only costs the
    next new ``--out`` its torchgen run."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        jsoncache.dump(path, records.to_json())
    except OSError:
        pass


def _from_torchgen(source: Path, state: Path) -> Records:
    """Run the tree's torchgen in a child; its stderr's last line is the error."""
    child = _PENDING.pop(source, None) or _child(source, state)
    stdout, stderr = child.communicate()
    if child.returncode != 0:
        last = (stderr.strip().splitlines() or ["no output"])[-1]
        raise ToolError(f"the tree's torchgen failed: {last} (see 'musaport doctor --pytorch-src {source}')")
    return Records(tuple(Record.from_json(r) for r in json.loads(stdout)), "torchgen")


_NO_TORCHGEN = "the tree has no torchgen/: operators read from plain YAML; no registration code (no C++ signatures)"


def _from_yaml(source: Path, note: str = _NO_TORCHGEN) -> Records:
    """Names, kernels and delegates from the plain YAML (no C++ signatures)."""
    entries = native_entries(source)
    own = {}
    for e in entries:
        kernel = cuda_kernel(e.get("dispatch") or {})
        if kernel is not None:
            own[_name(e)] = (e, kernel)
    items = [_yaml_record(e, kernel, "") for e, kernel in own.values()]
    for e in entries:
        delegate = str(e.get("structured_delegate") or "")
        if delegate in own:
            items.append(_yaml_record(e, own[delegate][1], delegate))
    return Records(tuple(items), "yaml", note)


def _name(entry: dict) -> str:
    return " ".join(str(entry["func"]).split()).split("(", 1)[0]


def _yaml_record(entry: dict, kernel: str, delegate: str) -> Record:
    schema = " ".join(str(entry["func"]).split())
    name = schema.split("(", 1)[0]
    return Record(name=name, schema=schema, line=entry.get("__line__", 0), kernel=kernel,
                  root=name.split(".", 1)[0].rstrip("_") or name, structured=bool(entry.get("structured") or delegate),
                  delegate=delegate, explicit=not delegate, manual=False, wrapper=None)


@dataclass(frozen=True)
class OperatorSchema:
    """One operator overload with a CUDA kernel: its full name, schema and line (for ``check``)."""

    name: str
    schema: str
    line: int
    kernel: str


def native_entries(tree: Path) -> list[dict]:
    """The entries of the tree's native_functions.yaml, each with its ``__line__`` (empty if missing).

    The one reader of the plain YAML: ``check`` compares schemas with it, and
    a tree without torchgen gets its operator records from it.
    """
    path = tree / NATIVE_FUNCTIONS
    if not path.is_file():
        return []
    return [e for e in load_yaml(path) or [] if isinstance(e, dict)]


def cuda_operators(tree: Path) -> dict[str, OperatorSchema]:
    """Operators whose ``dispatch`` names a CUDA kernel, by ``name.overload``."""
    found = {}
    for entry in native_entries(tree):
        kernel = cuda_kernel(entry.get("dispatch") or {})
        if kernel is not None:
            schema = " ".join(str(entry["func"]).split())
            found[_name(entry)] = OperatorSchema(_name(entry), schema, entry.get("__line__", 0), kernel)
    return found


def cuda_kernel(dispatch: dict) -> str | None:
    """The kernel a dispatch table names for the CUDA key, if any."""
    for keys, kernel in dispatch.items():
        if keys != "__line__" and "CUDA" in (k.strip() for k in str(keys).split(",")):
            return str(kernel)
    return None
