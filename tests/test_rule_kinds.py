"""Rule kinds are units (rewrite.rules.KINDS): each decides its own checks, matches, explanation."""

from __future__ import annotations

import re
from typing import Callable

import pytest

from musaport.cpp.parser import parse
from musaport.errors import LoadError
from musaport.resources import default_packs
from musaport.rewrite.apply import rewrite
from musaport.rewrite.explain import explain_rule
from musaport.rewrite.packs import load_packs
from musaport.rewrite.rules import KINDS, Kind, RegexKind, Rule, make_rule


def test_every_bundled_rule_has_a_kind_unit() -> None:
    rules = load_packs(default_packs(), compile=False).rules
    assert {r.kind for r in rules} == {"regex", "names", "flag"} == set(KINDS)
    assert all(r.unit is KINDS[r.kind] for r in rules)


def test_an_unknown_kind_is_refused_naming_the_rule() -> None:
    # Before kinds were units, a rule of an unknown kind loaded and silently acted as a regex rule.
    with pytest.raises(LoadError, match=r"t\.py:3: rule 'odd': unknown kind 'bogus' \(known: names, flag, regex\)"):
        make_rule(id="odd", why="w", kind="bogus", pack="t", where="t.py:3", pattern="cuda", replace="musa")


class _Shout(RegexKind):
    """A kind for the test: upper-cases what its pattern matches."""

    name = "shout"

    def check(self, rule: Rule, where: str) -> None:
        if rule.replace is not None:
            raise LoadError(f"{where}: a shout writes its own text")

    def replacement(self, rule: Rule) -> Callable[[re.Match[str]], str | None]:
        return lambda m: m.group(0).upper()

    def describe(self, rule: Rule) -> list[str]:
        return [f"Shouts: {rule.pattern}"]


def test_a_new_kind_is_one_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(KINDS, "shout", _Shout())
    rule = make_rule(id="loud", why="w", kind="shout", pack="t", where="t:1", pattern=r"\bcuda\w*")
    out = rewrite(parse(b"cudaFree(p); // cudaFree\n"), [rule], "a.cu")
    assert out.text == "CUDAFREE(p); // cudaFree\n"  # the unit's replacement, in code only
    assert out.fired == {"loud": 1}
    assert explain_rule(rule).splitlines()[0] == "loud (t pack, shout rule)"
    assert "Shouts: \\bcuda\\w*" in explain_rule(rule)
    with pytest.raises(LoadError, match="a shout writes its own text"):
        make_rule(id="bad", why="w", kind="shout", pack="t", where="t:1", pattern="x", replace="y")


@pytest.mark.parametrize("kind", ["regex", "names", "flag"])
def test_each_kind_describes_itself(kind: str) -> None:
    rule = next(r for r in load_packs(default_packs()).rules if r.kind == kind)
    assert KINDS[kind].describe(rule)[0] in explain_rule(rule)
    assert isinstance(KINDS[kind], Kind)
