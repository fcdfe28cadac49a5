"""Every example declared in every rule pack, run through the whole rule set.

The examples are the rules' own documentation; this makes them executable.
Each example's "after" must also be a fixed point (porting is idempotent),
and a rewriting example must actually be produced by the rule that claims it.
"""

from __future__ import annotations

import pytest

from musaport.cpp.parser import parse
from musaport.resources import data_dir, default_packs, extension_packs
from musaport.rewrite.apply import rewrite
from musaport.rewrite.rules import Rule, RuleSet
from musaport.rewrite.packs import load_packs

OPTIONAL = sorted((data_dir("rules") / "optional").glob("*.yaml"))
DEFAULT = load_packs(default_packs())
WITH_OPTIONAL = {p.stem: load_packs([*default_packs(), p]) for p in OPTIONAL}
WITH_OPTIONAL["extension"] = load_packs([*default_packs(), *extension_packs()])  # what 'run --src' applies


def ruleset_for(rule: Rule) -> RuleSet:
    """The rule set a user gets when this rule is active."""
    if rule in DEFAULT.rules:
        return DEFAULT
    return next(rs for rs in WITH_OPTIONAL.values() if rule in rs.rules)


def all_examples():
    rules = list(DEFAULT.rules) + [r for rs in WITH_OPTIONAL.values() for r in rs.rules if r not in DEFAULT.rules]
    for rule in rules:
        for i, ex in enumerate(rule.examples):
            yield pytest.param(rule, ex, id=f"{rule.id}-{i}")


def port_text(text: str, path: str, rules: RuleSet):
    return rewrite(parse(text.encode()), rules.rules, path)


@pytest.mark.parametrize(("rule", "example"), list(all_examples()))
def test_example(rule: Rule, example) -> None:
    rules = ruleset_for(rule)
    result = port_text(example.before, example.path, rules)
    assert result.text == example.after
    if rule.kind == "flag":
        flagged = any(f.rule == rule.id for f in result.findings)
        assert flagged == example.flagged, f"{rule.id} flagged={flagged}, example says {example.flagged}"
    elif example.before != example.after:
        assert rule.id in result.fired, f"{rule.id} did not produce its own example"
    assert port_text(example.after, example.path, rules).text == example.after, "not idempotent"


def test_every_rule_has_an_example_and_a_why() -> None:
    rules = list(DEFAULT.rules) + [r for rs in WITH_OPTIONAL.values() for r in rs.rules]
    missing = [r.id for r in rules if not r.examples]
    assert not missing, f"rules without examples: {missing}"
    assert all(r.why.strip() for r in rules)


def test_flag_rules_report_with_line() -> None:
    result = port_text("int a;\n#if __CUDA_ARCH__ >= 800\n#endif\n", "x.cu", DEFAULT)
    flagged = [(f.rule, f.line) for f in result.findings]
    assert ("arch-version-compare", 2) in flagged
