"""Every rule id a report can show, in one registry: the packs' rules and the rules made by code.

Most rules are data (``rules/packs``, ``rules/optional``, ``rules/extension``)
and ``musaport rules explain`` reads them from the loaded packs.  A few are
made by code: the build-file edits and findings of ``run --src``
(``extension.buildfiles``), its include renames (``extension.includes``),
the stub exclusions (``ops.exclusions``).  Their ids appear in reports too,
so each maker declares them here as :class:`CodeRule` values (an exact id,
or a family of ids by prefix), with why and an example, and ``rules
explain`` answers them like any other.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Iterable

@dataclass(frozen=True)
class CodeRule:
    """A rule id made by code: ``id`` is exact, or a family when it ends with ``*``."""

    id: str
    kind: str  # "regex", "names", "edit" (a build-file rewrite), "flag" (reported, never rewritten)
    why: str
    where: str  # the module that makes it, and the option or input that asks for it
    before: str = ""
    after: str = ""

    def matches(self, rule_id: str) -> bool:
        return rule_id.startswith(self.id[:-1]) if self.id.endswith("*") else rule_id == self.id

    def explain(self, rule_id: str) -> str:
        lines = [f"{rule_id} (made by code, {self.kind} rule)", "", f"Why: {self.why}", "",
                 f"Made by: {self.where}"]
        if self.kind == "flag":  # reported, never rewritten: ``before`` is what it looks for
            lines += ["", f"Reported (not rewritten) where this matches: {self.before}"]
        elif self.before:
            lines += ["", "Example:", f"  - {self.before}", f"  + {self.after}"]
        return "\n".join(lines)


def code_rules(makers: Iterable[str]) -> tuple[CodeRule, ...]:
    """Every rule declared by ``makers``, the modules that make rules by code (each has ``CODE_RULES``;
    the CLI names them, since they sit above the rule engine)."""
    return tuple(rule for name in makers for rule in importlib.import_module(name).CODE_RULES)


def find(rule_id: str, makers: Iterable[str]) -> CodeRule | None:
    """The code rule that makes ``rule_id`` (an exact id before a family)."""
    rules = code_rules(makers)
    return next((r for r in rules if r.id == rule_id), None) or next((r for r in rules if r.matches(rule_id)), None)
