"""Text for ``musaport rules explain ID``: what a rule does and why, with examples."""

from __future__ import annotations

from typing import Iterable

from musaport.rewrite.registry import find
from musaport.rewrite.rules import Rule, RuleSet


def explain_id(rule_id: str, ruleset: RuleSet, makers: Iterable[str]) -> str | None:
    """The explanation of any rule id a report can show: a pack's rule, or one made by code (None: unknown)."""
    rule = ruleset.by_id(rule_id)
    if rule is not None:
        return explain_rule(rule)
    made = find(rule_id, makers)
    return made.explain(rule_id) if made is not None else None


def explain_rule(rule: Rule) -> str:
    """A ruff-style explanation: what it does, why, where declared, examples."""
    lines = [f"{rule.id} ({rule.pack} pack, {rule.kind} rule)", "", f"Why: {rule.why}", ""]
    lines += rule.unit.describe(rule)
    lines += [f"Touches: {', '.join(sorted(rule.contexts))}"]
    if rule.files:
        lines.append(f"Only in files matching: {', '.join(rule.files)}")
    if rule.keep_if:
        lines.append(f"Leaves alone matches that match: {rule.keep_if}")
    if rule.unless_code:
        lines.append(f"Leaves alone files whose code matches: {rule.unless_code}")
    if rule.tree_has:
        lines.append(f"Only in trees whose {rule.tree_has[0]} matches {rule.tree_has[1]} (or that have no such file)")
    if rule.lossy:
        lines.append("Lossy: every rewrite is recorded in the porting report.")
    lines.append(f"Declared at: {rule.where}")
    for ex in rule.examples:
        lines += ["", "Example:" if ex.before != ex.after else "Left unchanged:", f"  - {ex.before}"]
        if ex.before != ex.after:
            lines.append(f"  + {ex.after}")
    return "\n".join(lines)
