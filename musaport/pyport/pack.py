"""The Python rule pack: ``rules/python/*.yaml``, loaded into :class:`PyRule` values.

Like the C++ packs, each rule is data (an id, why, what it matches, what it
writes) with examples that the test suite runs. The *kinds* are code
(``codemod``): a kind knows where in the syntax tree its names or strings
are device uses; the pack says which names and strings. A rule with a
``flag`` message reports each site (``file:line``) with it, rewritten or not.

``CODE_RULES`` makes the rules answerable by ``musaport rules explain``
(``rewrite.registry`` asks every rule maker for it).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from musaport.errors import LoadError
from musaport.resources import data_dir
from musaport.yamlload import Fields, load_yaml, read_config

# Every kind and the keys its rules take (besides id, kind, why, flag, examples).
KINDS: dict[str, tuple[str, ...]] = {
    "method": ("from", "to"),  # x.cuda(...) -> x.musa(...)
    "attribute": ("from", "to"),  # x.is_cuda -> x.is_musa
    "module": ("from", "to", "names"),  # torch.cuda.NAME -> torch.musa.NAME, and `from torch.cuda import NAME`
    # torch.cuda.amp.autocast(...) -> torch.autocast("musa", ...); bare: only a call with no argument
    "call": ("from", "to", "device", "also", "bare"),
    # "cuda" in a device position; parametrize: calls whose 'device' parameter's values are devices; wrappers:
    # calls that wrap one such value (pytest.param); beside: other devices' names that make a sequence a device list
    "device-string": ("from", "to", "keywords", "calls", "methods", "word", "parametrize", "wrappers", "beside"),
    "dispatch-key": ("calls", "keys"),  # torch.library.impl(op, "CUDA") -> "PrivateUse1"
    "key-template": ("calls", "unsure"),  # a dispatch key built from a device name: PrivateUse1's for musa
    "modules": (),  # imports of extension modules the build-file port renamed (the map is the run's)
    "flag": ("names",),  # a dotted name (or a prefix of one) that is reported
    "cuda-string": (),  # any other "cuda" string (reported)
    "cuda-name": (),  # any other 'cuda' name or attribute (reported)
}
# Kinds whose every match is a finding: they must carry a message.
FLAG_KINDS = frozenset({"flag", "cuda-string", "cuda-name"})


@dataclass(frozen=True)
class PyExample:
    """A rule's example: ``before`` ported with the whole pack is ``after``; ``modules``: the run's
    extension module renames it assumes."""

    before: str
    after: str
    where: str
    modules: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class PyRule:
    """One rule of the Python pack."""

    id: str
    kind: str
    why: str
    where: str
    flag: str = ""
    params: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    examples: tuple[PyExample, ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        return self.params.get(key, default)

    # The rule registry's interface (``rewrite.registry.CodeRule``): ``rules explain`` finds and explains it.
    def matches(self, rule_id: str) -> bool:
        return rule_id == self.id

    def explain(self, rule_id: str) -> str:
        """What the rule does, why, where it is declared, and its examples (ruff-style, as the C++ packs')."""
        lines = [f"{self.id} (python pack, {self.kind} rule)", "", f"Why: {self.why}", ""]
        lines += _describe(self)
        if self.flag:
            lines.append(f"Reported at each site: {self.flag}")
        lines += ["Applies to: every .py file of a 'run --src' project except its build files (setup.py)",
                  f"Declared at: {self.where}"]
        for ex in self.examples:
            lines += ["", "Example:" if ex.before != ex.after else "Left unchanged:"]
            if ex.modules:
                lines.append("  (with the extension modules " +
                             ", ".join(f"{a} -> {b}" for a, b in ex.modules) + ")")
            lines += [f"  - {line}" for line in ex.before.rstrip("\n").splitlines()]
            if ex.before != ex.after:
                lines += [f"  + {line}" for line in ex.after.rstrip("\n").splitlines()]
        return "\n".join(lines)


def _describe(rule: PyRule) -> list[str]:
    """One or two lines on what the rule matches."""
    p = rule.params
    if rule.kind in ("method", "attribute"):
        return [f"Rewrites: .{p['from']} -> .{p['to']}"]
    if rule.kind == "module":
        return [f"Rewrites: {p['from']}.NAME -> {p['to']}.NAME for NAME in: {', '.join(p['names'])}"]
    if rule.kind == "call":
        pairs = {p["from"]: p["to"], **p.get("also", {})}
        return [f"Rewrites: {a}{'()' if p.get('bare') and a == p['from'] else '(...)'} -> {b}(...) with the musa "
                f"device ({p['device']})" for a, b in pairs.items()]
    if rule.kind == "device-string":
        return [f"Rewrites: \"{p['from']}\"/\"{p['from']}:N\" -> \"{p['to']}\"/\"{p['to']}:N\" as keyword "
                f"{', '.join(p['keywords'])}, first argument of {', '.join(p['calls'])}, of .{', .'.join(p['methods'])}"
                f"(), and values of names with '{p['word']}' in them"] + \
            ([f"  and of a '{p['word']}' parameter of {', '.join(p['parametrize'])}() (through "
              f"{', '.join(p.get('wrappers', ()))}), and in a sequence beside " + ", ".join(f'"{b}"' for b in p["beside"])]
             if p.get("parametrize") and p.get("beside") else [])
    if rule.kind == "dispatch-key":
        return [f"Rewrites, as arguments of .{', .'.join(p['calls'])}(): " +
                ", ".join(f"\"{a}\" -> \"{b}\"" for a, b in p["keys"].items())]
    if rule.kind == "flag":
        return [f"Matches: {', '.join(p['names'])} (and what is under them)"]
    if rule.kind == "key-template":
        return [f"Rewrites, as arguments of .{', .'.join(p['calls'])}(): f\"PREFIX{{d.upper()}}\" -> "
                f"(\"PREFIXPrivateUse1\" if d == \"musa\" else f\"PREFIX{{d.upper()}}\")",
                f"Reported where the key is built otherwise: {p['unsure']}"]
    return []


@dataclass(frozen=True)
class Pack:
    """The ordered rules of the Python pack files, and their digest (part of the run's cache key)."""

    rules: tuple[PyRule, ...]
    digest: str

    def of_kind(self, kind: str) -> tuple[PyRule, ...]:
        return tuple(r for r in self.rules if r.kind == kind)

    def first(self, kind: str) -> PyRule | None:
        return next((r for r in self.rules if r.kind == kind), None)

    def mirrored(self, module: str) -> dict[str, tuple[str, str]]:
        """The names of ``module`` that another module offers with the same meaning (a ``module`` rule with no
        review flag): name → (that module, the rule's id). setup.py's device checks are ported by them too."""
        return {name: (r.get("to"), r.id) for r in self.of_kind("module")
                if r.get("from") == module and not r.flag for name in r.get("names", ())}


def pack_files() -> list[Path]:
    """The bundled Python packs, in the order their names sort."""
    return sorted((data_dir("rules") / "python").glob("*.yaml"))


@lru_cache(maxsize=4)
def load(paths: tuple[Path, ...] | None = None) -> Pack:
    """Load the packs (the bundled ones by default); a malformed rule is a LoadError naming file:line."""
    paths = tuple(pack_files()) if paths is None else paths
    digest = hashlib.sha256()
    rules: list[PyRule] = []
    seen: dict[str, str] = {}
    for path in paths:
        digest.update(read_config(path))
        data = Fields(load_yaml(path), f"{path}:1", "python rule pack")
        data.pop("pack", kind=str)
        data.pop("why", "", kind=str)
        for entry in data.pop("rules", kind=list):
            rule = _rule(entry, path)
            if rule.id in seen:
                raise LoadError(f"{rule.where}: rule id '{rule.id}' already declared at {seen[rule.id]}")
            seen[rule.id] = rule.where
            rules.append(rule)
        data.done()
    return Pack(tuple(rules), digest.hexdigest())


def _rule(entry: object, path: Path) -> PyRule:
    line = entry.get("__line__", 0) if isinstance(entry, dict) else 0
    f = Fields(entry, f"{path}:{line}", "python rule")
    rule_id = f.pop("id", kind=str)
    f.where = f"{path}:{line}: rule '{rule_id}'"
    kind = f.pop("kind", kind=str)
    if kind not in KINDS:
        raise LoadError(f"{f.where}: unknown kind '{kind}'; known: {', '.join(KINDS)}")
    why = f.pop("why", kind=str)
    flag = f.pop("flag", "", kind=str)
    if kind in FLAG_KINDS and not flag:
        raise LoadError(f"{f.where}: a {kind} rule reports every site: give it a 'flag' message")
    params = {key: _plain(value) for key in KINDS[kind] if (value := f.pop(key, None)) is not None}
    examples = tuple(_example(e, path, f.where) for e in f.pop("examples", kind=list))
    f.done()
    if not examples:
        raise LoadError(f"{f.where}: a rule needs at least one example")
    return PyRule(rule_id, kind, why.strip(), f"{path}:{line}", flag, params, examples)


def _plain(value: Any) -> Any:
    """A parameter without the loader's line marks (``__line__`` in every mapping)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items() if k != "__line__"}
    return value


def _example(entry: object, path: Path, where: str) -> PyExample:
    e = Fields(entry, where, "example")
    modules = e.pop("modules", {}, kind=dict)
    ex = PyExample(e.pop("before", kind=str), e.pop("after", kind=str), f"{path}:{e.line}",
                   tuple(sorted((str(k), str(v)) for k, v in modules.items() if k != "__line__")))
    e.done()
    return ex


def __getattr__(name: str) -> Any:
    """``CODE_RULES``, loaded on first use (``rules explain`` asks for it; a run never does)."""
    if name == "CODE_RULES":
        return load().rules
    raise AttributeError(name)
