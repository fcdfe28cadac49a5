"""RegisterMUSA.cpp and musa_functions.yaml: the operator model, emitted.

The C++ lives in ``templates/RegisterMUSA.cpp.j2`` (and the structured
wrapper it includes); this module only turns each operator into the plain
values those templates need: wrapper names, class names, the calls torchgen
translated, and the result each variant returns.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from typing import Iterable

from musaport import __version__
from musaport.ops.model import Operator, OperatorModel
from musaport.ops.records import Record, Wrapper
from musaport.outdir import REGISTRATION
from musaport.rewrite.rules import RuleSet
from musaport.resources import render_template

NATIVE_ROOT = "aten/src/ATen/native/"


def header(what: str) -> str:
    """The first line of every generated file: tool version and what it was made from."""
    return f"// musaport {__version__}: generated from {what}"


def wrapper_name(name: str) -> str:
    """``abs.out`` → ``wrapper_MUSA_abs__out`` (``__`` marks the overload, so no two names meet)."""
    base, _, overload = name.partition(".")
    return f"wrapper_MUSA_{base}__{overload}" if overload else f"wrapper_MUSA_{base}"


@dataclass(frozen=True)
class Registered:
    """One operator as the registration templates print it: the model's facts, the C++ names
    made here, and (through attribute access) every field of torchgen's :class:`Wrapper`."""

    name: str
    kind: str
    stubs: tuple[str, ...]
    files: tuple[str, ...]
    wrapper: str
    class_name: str
    signature: Wrapper
    cpp_api: str = ""  # the at::musa:: functions that call ``wrapper``

    def __getattr__(self, field: str):
        return getattr(self.signature, field)


# The at::native names a wrapper calls: its kernel function, or the structured class of its impl.
_NATIVE_NAME = re.compile(r"\b(at::native::)(\w+)")


def ported_calls(w: Wrapper, rules: RuleSet | None) -> Wrapper:
    """``w`` calling kernels by the names the port gives them (``empty_cuda`` is defined as
    ``empty_musa`` in the ported TensorFactories.mu, so the registration must call that)."""
    if rules is None:
        return w
    def rename(m: re.Match) -> str:
        return m.group(1) + rules.identifier(m.group(2), REGISTRATION)
    return replace(w, call=_NATIVE_NAME.sub(rename, w.call), parent=_NATIVE_NAME.sub(rename, w.parent))


def registered(op: Operator, record: Record, rules: RuleSet | None = None) -> Registered:
    """Everything the templates print for one operator."""
    w = record.wrapper
    assert w is not None, op.name
    w = ported_calls(w, rules)
    class_name = f"musa_{w.parent.rsplit('::', 1)[-1]}_{w.variant}" if w.structured else ""
    wrapper = wrapper_name(op.name)
    return Registered(op.name, op.kind, op.stubs, op.files, wrapper, class_name, w,
                      record.cpp_api.replace("@WRAPPER@", f"at::{wrapper}"))


def _helpers(ops: list[Registered]) -> set[str]:
    """The static helpers the structured variants in ``ops`` call."""
    variants = {o.variant for o in ops if o.structured}
    used = {"create"} if "functional" in variants else set()
    used |= {"resize"} if "out" in variants else set()
    used |= {"inplace"} if "inplace" in variants else set()
    return used | ({"proxy"} if variants & {"out", "inplace"} else set())


def render_registration(model: OperatorModel, ops: Iterable[Operator], what: str = "native_functions.yaml",
                        rules: RuleSet | None = None, unregistered: frozenset[str] = frozenset()) -> str:
    """One RegisterMUSA.cpp for ``ops`` (in yaml order), calling kernels as ``rules`` name them.
    ``unregistered``: operators whose wrappers and ``at::musa::`` functions are emitted, but not their
    ``m.impl``: an adapter registers its own kernel for them and calls these for the cases it leaves alone."""
    chosen = sorted(ops, key=lambda op: (op.line, op.name))
    values = [registered(op, model.wrappers[op.name], rules) for op in chosen]
    roots = sorted({model.wrappers[op.name].root for op in chosen})
    return render_template("RegisterMUSA.cpp.j2", header=header(what), ops=values, roots=roots,
                           helpers=_helpers(values), unregistered=sorted({op.name for op in chosen} & unregistered))


def split_name(op: Operator) -> str:
    """The per-source registration file of ``op``: named after the first file that defines it."""
    home = op.files[0] if op.files else "misc"
    rel = home[len(NATIVE_ROOT):] if home.startswith(NATIVE_ROOT) else home
    stem = str(PurePosixPath(rel).with_suffix("")).replace("/", "_")
    return f"aten/src/ATen/RegisterMUSA_{stem}.cpp"


def registration_of(op: Operator, split: bool) -> str:
    """The generated file that registers ``op``."""
    return split_name(op) if split else REGISTRATION


def registration_files(model: OperatorModel, ops: list[Operator], split: bool, what: str,
                       rules: RuleSet | None = None) -> dict[str, str]:
    """Tree-relative path → text: one file, or one per defining source with ``split``."""
    if not ops:
        return {}
    if not split:
        return {REGISTRATION: render_registration(model, ops, what, rules)}
    groups: dict[str, list[Operator]] = {}
    for op in ops:
        groups.setdefault(split_name(op), []).append(op)
    return {rel: render_registration(model, group, what, rules) for rel, group in sorted(groups.items())}


def functions_yaml(model: OperatorModel, registered: dict[str, str], excluded: dict[str, list[str]],
                   what: str) -> str:
    """musa_functions.yaml: what was registered and how, what was not and why."""
    q = json.dumps
    done = [_entry(op, q) | {"registration": q(registered[op.name])}
            for op in sorted(model.operators.values(), key=lambda o: (o.line, o.name)) if op.name in registered]
    left = [_entry(op, q) | {"reason": q(op.reason or _why_not(op, model))}
            for op in sorted(model.operators.values(), key=lambda o: (o.line, o.name)) if op.name not in registered]
    stubs = [{"stub": q(s), "files": [q(f) for f in files]} for s, files in sorted(excluded.items())]
    return render_template("musa_functions.yaml.j2", header=header(what).replace("//", "#", 1),
                           origin=model.origin, note=q(model.note), registered=done, left=left, excluded=stubs)


def _entry(op: Operator, q) -> dict:
    return {"name": q(op.name), "kind": op.kind, "kernel": q(op.kernel), "line": op.line,
            "delegate": q(op.delegate), "stubs": [q(s) for s in op.stubs], "files": [q(f) for f in op.files]}


def _why_not(op: Operator, model: OperatorModel) -> str:
    if op.name not in model.wrappers:
        return "no C++ signature (operators read from plain YAML: see note)" if model.origin == "yaml" \
            else "manual registration"
    return "not selected (--ops / --exclude-ops)"


def registration_source(model: OperatorModel, names: Iterable[str], rules: RuleSet | None = None,
                        unregistered: frozenset[str] = frozenset()) -> str:
    """The RegisterMUSA.cpp text registering ``names`` (each must have a C++ signature), but for those in
    ``unregistered`` (see ``render_registration``)."""
    names = list(names)
    missing = [n for n in names if n not in model.operators or n not in model.wrappers]
    if missing:
        raise ValueError(f"cannot register {', '.join(missing)}: unknown, or no C++ signature ({model.origin})")
    return render_registration(model, [model.operators[n] for n in names], rules=rules, unregistered=unregistered)
