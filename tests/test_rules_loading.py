"""Bad rule packs and layouts: one clear error naming file, line and rule."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from musaport.port.layout import load_layout
from musaport.rewrite.apply import matches
from musaport.rewrite.needles import needles, one_line, starts
from musaport.rewrite.packs import load_packs
from musaport.rewrite.rules import Rule, RuleSet, for_tree
from musaport.errors import LoadError

GOOD_RULE = """  - id: ok
    why: fine
    pattern: 'foo'
    replace: 'bar'
"""


def pack(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "my.yaml"
    path.write_text("pack: mine\nrules:\n" + body)
    return path


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("  - id: bad\n    why: w\n    pattern: '(unclosed'\n    replace: x\n", "my.yaml:3: rule 'bad': invalid regex"),
        ("  - id: bad\n    why: w\n    pattern: 'a'\n    replace: x\n    contexts: [code, nowhere]\n", "my.yaml:3: rule 'bad': unknown context"),
        ("  - id: bad\n    why: w\n    pattern: 'a'\n    replace: x\n    replace: y\n", "my.yaml:7: duplicate key 'replace'"),
        ("  - id: bad\n    why: w\n    pattern: 'a'\n    replce: x\n", "my.yaml:3: rule 'bad': unknown key(s) in rule: replce"),
        ("  - id: bad\n    why: ''\n    pattern: 'a'\n    replace: x\n", "'why' must say why"),
        ("  - id: bad\n    why: w\n    pattern: 'a'\n", "needs exactly one of 'replace' or 'transform'"),
        ("  - id: bad\n    why: w\n    pattern: 'a'\n    transform: nope\n", "unknown transform 'nope'"),
        ("  - id: bad\n    why: w\n    pattern: '(a)'\n    replace: '\\2'\n", "invalid regex"),
        (GOOD_RULE + GOOD_RULE, "rule id 'ok' already declared"),
        ("  - id: bad\n    why: w\n    pattern: [x\n", "invalid YAML"),
        (GOOD_RULE + "    tree_has: {file: a.h}\n", "my.yaml:3: rule 'ok': tree_has is missing 'pattern'"),
        (GOOD_RULE + "    tree_has: {file: a.h, pattern: '(x'}\n", "my.yaml:3: rule 'ok': tree_has: invalid regex"),
        (GOOD_RULE + "    unless_code: '(x'\n", "my.yaml:3: rule 'ok': invalid regex"),
    ],
)
def test_malformed_pack(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(LoadError) as err:
        load_packs([pack(tmp_path, body)])
    assert message in str(err.value)
    assert "\n" not in str(err.value)


TREE_RULE = GOOD_RULE + "    tree_has: {file: c10/core/Device.h, pattern: 'is_privateuseone\\('}\n"


@pytest.mark.parametrize(("device_h", "kept"), [
    ("bool is_privateuseone() const noexcept;", True),  # PyTorch 2.x
    ("bool is_cuda() const noexcept;", False),  # 1.13: the API is not there yet
    (None, True),  # no such file (an extension project): the rule applies
])
def test_a_rule_that_needs_an_api_applies_only_to_trees_that_have_it(tmp_path: Path, device_h: str | None,
                                                                      kept: bool) -> None:
    if device_h is not None:
        (tmp_path / "c10/core").mkdir(parents=True)
        (tmp_path / "c10/core/Device.h").write_text(device_h)
    rules = load_packs([pack(tmp_path, TREE_RULE)])
    chosen = for_tree(rules, tmp_path)
    assert [r.id for r in chosen.rules] == (["ok"] if kept else [])
    assert (chosen.digest == rules.digest) == kept


def test_malformed_layout(tmp_path: Path) -> None:
    path = tmp_path / "layout.yaml"
    path.write_text("layout: x\nsuffixes: [.cu]\nfolders:\n  - {path: a, recursiv: true}\n")
    with pytest.raises(LoadError, match=r"layout.yaml:4: unknown key\(s\) in folder: recursiv"):
        load_layout(path)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"\bREGISTER_CUDA_DISPATCH\b", ("REGISTER_CUDA_DISPATCH",)),
        (r"(?<![\w])(?:cublas|CUFFT)\w*", ("CUFFT", "cublas")),
        (r"(?:\bcase\s+)?\b((?:c10::|at::)?DeviceType::)CUDA\b", ("DeviceType::",)),
        # the operator group has no literal; the macro group after it does
        (r"\b\d+\s*(?:[<>]=?|[!=]=)\s*(?:__CUDA_ARCH__|CUDA_VERSION)\b", ("CUDA_VERSION", "__CUDA_ARCH__")),
        (r"(?:<|>)(?:x|y)", ()),
        (r"a?b", ()),
        (r"\A(?!x)", ()),
    ],
)
def test_needles(pattern: str, expected: tuple[str, ...]) -> None:
    assert needles(pattern) == expected


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"\b(\w+)::cuda\b", True),
        (r"(?<=[<\"])cuda_(\w+)\.h(?=[>\"])", True),
        (r"^#include x.h$", True),
        (r"a.b", True),  # without DOTALL a dot is no newline
        (r"[a-z_]+\d", True),
        (r"\bcase\s+x", False),  # \s holds a newline
        (r"[^a]x", False),  # so does a negated class
        (r"\Wx", False),
        (r"(?s)a.b", False),
        (r"(?i:cuda)x", False),  # a flag group: not told apart, so never
        (r"a[\n]", False),
        (r"x(?=\s)", False),  # a lookahead counts too
        (r"\Ax", False),  # the start of the text is not the start of a line
        (r"(a)\1", False),
    ],
)
def test_one_line(pattern: str, expected: bool) -> None:
    assert one_line(pattern) is expected


TEXT = "at::cuda::x();\n  c10::cuda::y at::cuda\nnamespace cuda {}\nfoo::cuda\x01::cuda ::cuda\n\nthrust::cuda"


@pytest.mark.parametrize("pattern", [r"\b(\w+)::cuda\b", r"(?<![\w:])cuda::\w+", r"::cuda$", r"(\.|->)x\(\)"])
@pytest.mark.parametrize(("start", "end"), [(0, len(TEXT)), (5, len(TEXT) - 3), (20, 21)])
def test_line_windows_find_what_the_whole_text_does(pattern: str, start: int, end: int) -> None:
    """A rule searched only in the lines that hold its needles finds the matches of a search of the
    whole window, at the same places and with the same groups (a masked character included)."""
    rule = RuleSet((Rule("r", "why", "regex", "test", "test:1", pattern=pattern, replace="x"),), "", ()).compile()
    compiled = rule.rules[0]
    assert compiled.by_line
    whole = [(m.span(), m.groups()) for m in re.compile(pattern, re.M).finditer(TEXT, start, end)]
    found = [(m.span(), m.groups()) for m in matches(compiled, TEXT, [(start, end)])]
    assert found == whole


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"(?:\bcase\s+)?\b((?:c10::|at::)?)kCUDA\b", ("c10::", "kCUDA", "at::", "case")),
        (r"(?:\b|(?<=\\[nt]))CUDA( error| driver error)", ("CUDA",)),
        (r"(\.|->)cuda\(\s*\)", ("->cuda(", ".cuda(")),  # an arm's literal runs on into what follows
        (r"(?:ab)*c", ("ab", "c")),
        (r"(?:ab)+c", ("ab",)),
        (r"\b(\w+)::cuda\b", ()),  # a class: not told
        (r"(?:a*)?b", ()),  # a part that can match empty text starts nothing for certain
        (r"(?i)x", ()),
        (r"\A(?!x)", ()),
    ],
)
def test_starts(pattern: str, expected: tuple[str, ...]) -> None:
    assert starts(pattern) == expected


STARTS_TEXT = """case DeviceType::CUDA: x = c10::DeviceType::CUDA; at::kCUDA; case
  at::kCUDA; kCUDAx; t.cuda(); p->cuda( ); "CUDA error" CUDA driver error; \\nCUDA error"""


@pytest.mark.parametrize("pattern", [r"(?:\bcase\s+)?\b((?:c10::|at::)?DeviceType::)CUDA\b",
                                     r"(?:\bcase\s+)?\b((?:c10::|at::)?)kCUDA\b", r"(\.|->)cuda\(\s*\)",
                                     r"(?:\b|(?<=\\[nt]))CUDA( error| driver error)"])
def test_a_scan_by_the_starting_literals_finds_what_finditer_does(pattern: str) -> None:
    rule = RuleSet((Rule("r", "why", "regex", "test", "test:1", pattern=pattern, replace="x"),), "", ()).compile()
    compiled = rule.rules[0]
    assert compiled.scan is not None and compiled.scan.pattern != pattern
    whole = [(m.span(), m.groups()) for m in re.compile(pattern, re.M).finditer(STARTS_TEXT)]
    assert whole
    assert [(m.span(), m.groups()) for m in matches(compiled, STARTS_TEXT, [(0, len(STARTS_TEXT))])] == whole
