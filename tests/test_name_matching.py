"""Names rules find whole words through a word set; the answer must be the identifier scan's.

``_reference`` is how a names rule matched before: scan every identifier the
rule's pattern finds and keep those the table knows.  The word-set search
must give the very same spans on text with the awkward cases: keys inside
longer words, next to digits, non-ASCII letters and punctuation, the mask
character, and windows that cut words.
"""

from __future__ import annotations

import random

import pytest

from musaport.cpp.parser import MASK
from musaport.rewrite.apply import _identifiers, matches
from musaport.rewrite.rules import _names_pattern, make_rule

KEYS = ["cudaMalloc", "cudaFree", "CUDAGuard", "cuda", "cu", "__nv_bfloat16", "CUresult", "x2", "getCUDAHooks"]
FILLER = [f"name{i}" for i in range(300)]  # over the small-table limit: the prefix scan


def _rules():
    names = tuple(sorted((k, k.replace("cuda", "musa").replace("CUDA", "MUSA")) for k in KEYS))
    big = frozenset(KEYS + FILLER)
    yield make_rule(id="vocab", why="w", kind="names", pack="t", where="t:1", vocabulary=big, transform="systematic",
                    pattern=_names_pattern((), big))
    yield make_rule(id="explicit", why="w", kind="names", pack="t", where="t:1", names=names,
                    pattern=r"(?<![\w])[A-Za-z_]\w*")


def _reference(rule, view, windows):
    return [m.span() for s, e in windows for m in _identifiers(rule.scan, view, s, e)
            if rule.lookup(m.group(0)) is not None]


TEXT = ("cudaMalloc(&p); xcudaMalloc cudaMallocX 2cuda cu_ cu cu2 x2 ax2 __nv_bfloat16 _cuda "
        "écuda cudaé cuda·x (cuda) \x01cuda cuda\x01 CUresult::cudaFree;getCUDAHooks() name7 name70")


@pytest.mark.parametrize("rule", list(_rules()), ids=lambda r: r.id)
def test_word_search_equals_the_identifier_scan(rule) -> None:
    assert rule.words is not None, "the rule should take the word-set path"
    windows = [(0, len(TEXT))]
    got = [m.span() for m in matches(rule, TEXT, windows)]
    assert got == _reference(rule, TEXT, windows)
    assert TEXT[slice(*got[0])] == "cudaMalloc"
    for start in range(0, 40, 3):  # windows that cut words in two
        for end in (start + 7, start + 20, len(TEXT)):
            w = [(start, min(end, len(TEXT)))]
            assert [m.span() for m in matches(rule, TEXT, w)] == _reference(rule, TEXT, w), w


@pytest.mark.parametrize("rule", list(_rules()), ids=lambda r: r.id)
def test_word_search_on_random_text(rule) -> None:
    rng = random.Random(14)
    alphabet = KEYS + FILLER[:5] + [" ", "::", "(", "_", "é", "9", MASK, "\n", "a", "ß"]
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        windows = [(0, len(text))]
        assert [m.span() for m in matches(rule, text, windows)] == _reference(rule, text, windows), repr(text)


def test_a_rule_the_word_search_cannot_answer_keeps_the_scan() -> None:
    odd = make_rule(id="odd", why="w", kind="names", pack="t", where="t:1", names=(("é_cuda", "é_musa"),),
                    pattern=r"(?<![\w])[A-Za-z_é]\w*")
    assert odd.words is None
    non_ascii = make_rule(id="na", why="w", kind="names", pack="t", where="t:1", names=(("écuda", "émusa"),),
                          pattern=r"(?<![\w])[A-Za-z_]\w*")
    assert non_ascii.words is None
    regex = make_rule(id="re", why="w", kind="regex", pack="t", where="t:1", pattern=r"\bcuda\w*", replace="x")
    assert regex.words is None


def test_a_leading_word_run_is_not_scanned_without_its_boundary() -> None:
    """``\\b(\\w+)::cuda\\b`` scans with finditer (the stripped scan retried inside every word)."""
    rule = make_rule(id="ns", why="w", kind="regex", pack="t", where="t:1", pattern=r"\b(\w+)::cuda\b",
                     replace=r"\1::musa")
    assert rule.scan is None
    text = "at::cuda::x c10::cuda ::cuda a::cudax"
    assert [m.group(0) for m in matches(rule, text, [(0, len(text))])] == ["at::cuda", "c10::cuda"]
