"""Loading an ordered list of rule packs into one rule set.

Beside the rule model (``rules``) and its application (``apply``): loading
checks a user pack's examples by applying the whole rule set to them, so it
needs both, and neither needs it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterable

from musaport.cpp.parser import parse
from musaport.errors import LoadError
from musaport.resources import data_dir
from musaport.rewrite.apply import rewrite
from musaport.rewrite.rules import Example, Rule, RuleSet, _matches_empty, load_pack
from musaport.yamlload import read_config


def load_packs(paths: Iterable[Path], compile: bool = True) -> RuleSet:
    """Load packs in order; ids must be unique across all of them."""
    rules: list[Rule] = []
    digest = hashlib.sha256()
    sources = []
    seen: dict[str, str] = {}
    users: list[Rule] = []
    for path in paths:
        digest.update(read_config(path))
        sources.append(str(path))
        bundled = _bundled(path)
        for rule in load_pack(path, digest, compile):
            if rule.id in seen:
                raise LoadError(f"{rule.where}: rule id '{rule.id}' already declared at {seen[rule.id]}")
            seen[rule.id] = rule.where
            rules.append(rule)
            if not bundled:
                users.append(rule)
    vocabularies = sorted({r.vocabulary_file for r in rules if r.vocabulary_file})
    ruleset = RuleSet(tuple(rules), digest.hexdigest(), tuple(sources), tuple(sources) + tuple(vocabularies))
    if users:
        check_examples(ruleset, users)
    return ruleset


def _bundled(path: Path) -> bool:
    """A pack shipped with musaport (its examples are run by the test suite, not at every load)."""
    return path.resolve().is_relative_to(data_dir("rules").resolve())


def check_examples(ruleset: RuleSet, rules: Iterable[Rule]) -> None:
    """Run each example of ``rules`` through the whole rule set; a wrong one is a LoadError.

    A user pack's examples are its documentation: one that no longer holds
    means the rule does something else than its author thinks.  This costs
    compiling the rule set and lexing each example, so it runs for user packs
    only; the bundled ones are checked by the test suite.

    Whole-file insertions of other rules (rules whose pattern matches empty
    text, like ``torch-musa``'s prelude at ``\\A``) are left out: they add the
    same text to every file, so with them no example of another pack could
    hold, and they say nothing about the rule the example documents.
    """
    compiled = ruleset.compile()
    insertions = {r.id for r in compiled.rules if r.unit.declares_pattern and _matches_empty(r.pattern)}
    for rule in rules:
        active = tuple(r for r in compiled.rules if r.id == rule.id or r.id not in insertions)
        for ex in rule.examples:
            result = rewrite(parse(ex.before.encode()), active, ex.path)
            problem = _example_problem(rule, ex, result.text, {f.rule for f in result.findings}, result.fired)
            if problem:
                raise LoadError(f"{ex.where}: example of rule '{rule.id}' does not hold: {problem}")


def _example_problem(rule: Rule, ex: Example, got: str, flagged: set[str], fired: dict[str, int]) -> str:
    """What is wrong with one example's outcome ('' when it holds), as the test suite checks it."""
    if got != ex.after:
        return f"expected {ex.after!r}, got {got!r}"
    return rule.unit.example_problem(rule, ex, flagged, fired)
