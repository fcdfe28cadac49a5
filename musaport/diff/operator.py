"""``musaport diff OP``: an operator's CUDA files against their MUSA port.

Resolves the operator with the operator model (schemas, kernel, stubs and
the files that define and register them), diffs those files with
``diff.files`` and adds the registration code generated for the operators,
both with the rules and layout of the run that made OUT (``port.request``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from musaport.diff.files import FileDiff, diff_files
from musaport.errors import LoadError
from musaport.ops.emit_registration import registration_source
from musaport.ops.model import REGISTRABLE, Operator, operator_model
from musaport.outdir import OutDir
from musaport.port.layout import Layout
from musaport.resources import user_cache
from musaport.rewrite.rules import RuleSet


class UnknownOperator(LoadError):
    """No operator with a CUDA kernel matches the query; carries close names (bad input: exit 2)."""

    def __init__(self, query: str, suggestions: list[str]) -> None:
        hint = f"; did you mean: {', '.join(suggestions)}?" if suggestions else ""
        super().__init__(f"no operator '{query}' with a CUDA kernel{hint}")
        self.suggestions = suggestions


@dataclass(frozen=True)
class OpDiff:
    """What ``musaport diff`` shows for one query."""

    query: str
    source: str
    operators: tuple[Operator, ...]
    files: tuple[FileDiff, ...]
    registration: str
    note: str = ""  # why there is no registration code, when there is none


def default_source(out: OutDir, fallback: Path) -> Path:
    """The tree OUT was ported from (its request, else its report, says), else ``fallback`` when OUT holds
    no port at all.

    A port whose tree cannot be named (a truncated report and no request) or whose tree is gone is a
    LoadError: diffing the bundled fixture tree instead would answer a question nobody asked.
    """
    from musaport.port.request import Request

    if not out.tree.is_dir() and not out.report_json.exists() and not out.request_file.exists():
        return fallback
    out.require_whole()  # a damaged report or a half-moved tree names no tree
    recorded = Request.load(out) if out.request_file.exists() else None
    source = recorded.source if recorded is not None else out.source()
    if source is None:
        raise LoadError(f"{out.root}: holds a port, but neither its report nor its request names the tree it "
                        "was made from; give --pytorch-src")
    if not source.is_dir():
        raise LoadError(f"{source}: the tree {out.root} was ported from is gone; give --pytorch-src")
    return source


def op_diff(query: str, source: Path, out: OutDir, rules: RuleSet, context: int = 3,
            layout: Layout | None = None) -> OpDiff:
    """Resolve ``query`` and diff every file its operators are defined or registered in, with the
    run's ``rules`` and ``layout`` (``port.request``; None: the bundled layout)."""
    model = operator_model(source, out if out.tree.is_dir() else _scratch(source), layout=layout)
    ops = model.resolve(query)
    if not ops:
        raise UnknownOperator(query, model.suggestions(query))
    files = sorted({f for op in ops for f in op.files})
    diffs = diff_files(source, out, files, rules, context)
    names = [op.name for op in ops if op.kind in REGISTRABLE and op.name in model.wrappers]
    registration = registration_source(model, names, rules) if names else ""
    note = "" if names else _no_registration(ops, model.note)
    return OpDiff(query, str(source), tuple(ops), tuple(diffs), registration, note)


def _scratch(source: Path) -> OutDir:
    """Where the operator model of a tree with no port in OUT keeps its caches: the user cache, never OUT."""
    digest = hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:16]
    return OutDir(user_cache() / "diff" / digest)


def _no_registration(ops: list[Operator], model_note: str) -> str:
    """Why no registration code is shown: the model had no C++ signatures, or no op is registrable."""
    if model_note:
        return model_note
    kinds = ", ".join(sorted({op.kind for op in ops}))
    return f"no registrable operator: {kinds} (the reasons are above)"
