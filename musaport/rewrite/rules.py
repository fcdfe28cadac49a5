"""Rule packs: the model (frozen dataclasses that remember file:line) and loading.

A pack is a YAML file with an ordered list of rules.  Each rule is one small
declaration: an id, a one-line why, what it matches (a regex ``pattern`` or a
``names`` map / ``vocabulary``), what it writes (``replace`` or a named
``transform``, or nothing for a ``flag``), the contexts it may touch, optional
file globs, and before/after examples that the test suite runs.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from musaport.cpp.parser import CODE, CONTEXTS, INCLUDE
from musaport.resources import parse_vocabulary
from musaport.rewrite.needles import needles, one_line, starts
from musaport.rewrite.transforms import TRANSFORMS, rename_path
from musaport.yamlload import Fields, load_yaml
from musaport.errors import LoadError

try:  # the regex parser, for a pattern's minimum match width (its module moved in Python 3.11)
    from re import _parser as _sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre_parse  # type: ignore[no-redef]

DEFAULT_CONTEXTS = frozenset({CODE, INCLUDE})
_IDENT = r"[A-Za-z_]\w*"


@dataclass(frozen=True)
class Example:
    """One before/after pair; ``path`` lets file-scoped rules be exercised."""

    before: str
    after: str
    path: str = "aten/src/ATen/native/cuda/Example.cu"
    flagged: bool = True  # for flag rules: whether this example must be reported
    where: str = field(default="", compare=False)  # file:line of the example


@dataclass(frozen=True)
class Rule:
    """One rewrite (or flag), as declared in a pack."""

    id: str
    why: str
    kind: str  # the name of a unit in KINDS: "regex" | "names" | "flag"
    pack: str
    where: str  # file:line of the declaration
    pattern: str = ""
    replace: str | None = None
    transform: str | None = None
    names: tuple[tuple[str, str], ...] = ()
    vocabulary: frozenset[str] = frozenset()
    vocabulary_file: str = field(default="", compare=False)  # where ``vocabulary`` was read from
    message: str = ""
    contexts: frozenset[str] = DEFAULT_CONTEXTS
    files: tuple[str, ...] = ()
    keep_if: str | None = None
    # The rule leaves alone a file whose code (not its comments, strings or includes) matches this: an
    # include of a library is dead, and can go, only in a file that names nothing of the library.
    unless_code: str | None = None
    tree_has: tuple[str, str] | None = None  # (tree-relative file, regex): see for_tree
    lossy: bool = False
    # False: not in a file of PyTorch's own tree that the port re-emits at its own path (a header
    # "ported in place", such as ATen/Context.h). The backend compiles that header instead of
    # libtorch's copy, so its inline code must do what libtorch's compiled code does.
    in_place: bool = True
    examples: tuple[Example, ...] = ()
    regex: re.Pattern[str] = field(default=re.compile(""), compare=False, repr=False)
    keep: re.Pattern[str] | None = field(default=None, compare=False, repr=False)
    unless: re.Pattern[str] | None = field(default=None, compare=False, repr=False)
    needles: tuple[str, ...] = field(default=(), compare=False, repr=False)
    table: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    scan: re.Pattern[str] | None = field(default=None, compare=False, repr=False)
    # A names rule whose matches are whole words: its keys as ASCII bytes (see rewrite.apply.matches).
    words: frozenset[bytes] | None = field(default=None, compare=False, repr=False)
    # No match can hold a newline and there are a few needles: only the lines holding one are searched.
    by_line: bool = field(default=False, compare=False, repr=False)
    compiled: bool = field(default=False, compare=False, repr=False)

    @property
    def unit(self) -> "Kind":
        """What this rule's kind means: how it is checked, applies and is explained (see KINDS)."""
        return KINDS[self.kind]

    def applies_to(self, path: str) -> bool:
        """True when the rule's file globs (if any) match ``path``, and ``path`` is not a file ported in
        place (its port keeps its path) if the rule keeps out of those."""
        if not self.in_place and rename_path(path) == path:
            return False
        return not self.files or any(fnmatch.fnmatchcase(path, g) for g in self.files)

    def lookup(self, name: str) -> str | None:
        """New spelling of ``name``: the explicit map first, then the vocabulary's
        transform (computed on first use, so loading 9,000 names costs nothing)."""
        new = self.table.get(name)
        if new is None and name in self.vocabulary:
            new = TRANSFORMS[self.transform or "systematic"](name)
            self.table[name] = new
        return new

    def keys(self) -> list[str]:
        """Every identifier a names rule knows."""
        return sorted(set(self.vocabulary) | {k for k, _ in self.names})

    def replacement(self) -> Callable[[re.Match[str]], str | None] | None:
        """A function from a match to its new text (None from it: leave the match alone); None for a
        rule that reports its matches instead."""
        return self.unit.replacement(self)


@dataclass(frozen=True)
class RuleSet:
    """The ordered rules of every loaded pack, plus a digest for the cache key."""

    rules: tuple[Rule, ...]
    digest: str
    sources: tuple[str, ...]
    # Every file the rules were read or chosen from: packs, vocabularies, the tree files tree_has read.
    inputs: tuple[str, ...] = ()

    def by_id(self, rule_id: str) -> Rule | None:
        return next((r for r in self.rules if r.id == rule_id), None)

    def identifier(self, name: str, path: str) -> str:
        """What the names rules that apply to ``path`` make of the identifier ``name`` (first match wins,
        as in a rewrite): generated code that calls into the port uses the port's spelling."""
        for rule in self.rules:
            if rule.applies_to(path):
                new = rule.unit.identifier(rule, name)
                if new is not None:
                    return new
        return name

    def compile(self) -> "RuleSet":
        """This rule set with every regex compiled (rules loaded with ``compile=False``);
        an invalid one is a LoadError.

        A run whose cache still holds needs no regex at all, so ``musaport
        run`` loads packs uncompiled and compiles only when there is work.
        """
        if all(rule.compiled for rule in self.rules):
            return self
        return replace(self, rules=tuple(rule if rule.compiled else _compiled(rule) for rule in self.rules))


# A PyTorch tree (not an extension project): its files ported in place are libtorch's own headers.
PYTORCH_MARKER = "aten/src/ATen/native/native_functions.yaml"


def for_tree(ruleset: RuleSet, source: Path) -> RuleSet:
    """The rules that apply to the tree at ``source``.

    A rule with ``tree_has: {file, pattern}`` targets an API that a release
    introduced (``Device::is_privateuseone``, PyTorch 2.0): a tree whose
    ``file`` does not match ``pattern`` predates it, and the rule is left
    out.  A tree without the file (an extension project, built against some
    torch) keeps the rule.  The digest names what was left out, so the
    cache key follows the tree.  Rules with ``in_place: false`` keep out of
    the files PyTorch's tree ports in place; in any other tree they apply
    everywhere.
    """
    read = tuple(sorted({str(source / r.tree_has[0]) for r in ruleset.rules if r.tree_has}))
    dropped = [rule.id for rule in ruleset.rules if rule.tree_has and not _tree_matches(source, *rule.tree_has)]
    inputs = ruleset.inputs + read
    if not (source / PYTORCH_MARKER).is_file():
        ruleset = in_place_everywhere(ruleset)
    if not dropped:
        return replace(ruleset, inputs=inputs)
    digest = hashlib.sha256(f"{ruleset.digest}\0without\0{' '.join(dropped)}".encode()).hexdigest()
    return replace(ruleset, rules=tuple(r for r in ruleset.rules if r.id not in dropped), digest=digest,
                   inputs=inputs)


def in_place_everywhere(ruleset: RuleSet) -> RuleSet:
    """The rules for a tree that is not PyTorch itself (an extension project): its files ported in
    place are its own code, not libtorch's headers, so ``in_place: false`` rules apply to them too."""
    if all(r.in_place for r in ruleset.rules):
        return ruleset
    return replace(ruleset, rules=tuple(replace(r, in_place=True) for r in ruleset.rules),
                   digest=hashlib.sha256(f"{ruleset.digest}\0in-place-everywhere".encode()).hexdigest())


def _tree_matches(source: Path, rel: str, pattern: str) -> bool:
    try:
        text = (source / rel).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    return re.search(pattern, text, re.MULTILINE) is not None


def make_rule(**fields: object) -> Rule:
    """A rule made by code (not read from a pack), checked and compiled like a loaded one."""
    rule = Rule(**fields)  # type: ignore[arg-type]
    return _compiled(_checked(rule, f"{rule.where}: rule '{rule.id}'"))


def extend(ruleset: RuleSet, extra: list[Rule]) -> RuleSet:
    """``ruleset`` with ``extra`` applied after it; the digest covers the extra rules."""
    digest = hashlib.sha256(ruleset.digest.encode())
    for rule in extra:
        digest.update(f"\0{rule.id}\0{rule.pattern}\0{rule.replace}\0{rule.why}".encode())
    return RuleSet(ruleset.rules + tuple(extra), digest.hexdigest(), ruleset.sources, ruleset.inputs)


def load_pack(path: Path, digest: "hashlib._Hash | None" = None, compile: bool = True) -> list[Rule]:
    """Parse one pack file into rules."""
    data = Fields(load_yaml(path), f"{path}:1", "rule pack")
    pack = data.pop("pack", kind=str)
    data.pop("why", "", kind=str)
    entries = data.pop("rules", kind=list)
    data.done()
    return [_rule(entry, path, pack, digest, compile) for entry in entries]


def _rule(entry: object, path: Path, pack: str, digest: "hashlib._Hash | None", compile: bool = True) -> Rule:
    line = entry.get("__line__", 0) if isinstance(entry, dict) else 0
    f = Fields(entry, f"{path}:{line}", "rule")
    rule_id = f.pop("id", kind=str)
    f.where = f"{path}:{line}: rule '{rule_id}'"
    names, vocabulary, vocab_transform, vocab_file = _names(f, path, digest)
    pattern = f.pop("pattern", "", kind=str)
    message = f.pop("flag", "", kind=str)
    kind = next(k for k in KINDS.values() if k.declared(names, vocabulary, message))
    rule = Rule(
        id=rule_id,
        why=f.pop("why", kind=str),
        kind=kind.name,
        pack=pack,
        where=f"{path}:{line}",
        pattern=kind.pattern(pattern, names, vocabulary),
        replace=f.pop("replace", None, kind=str),
        transform=kind.transform(f, vocab_transform),
        names=names,
        vocabulary=vocabulary,
        vocabulary_file=vocab_file,
        message=message,
        contexts=_contexts(f),
        files=tuple(f.pop("files", [], kind=list, items=str)),
        keep_if=f.pop("keep_if", None, kind=str),
        unless_code=f.pop("unless_code", None, kind=str),
        tree_has=_tree_has(f),
        lossy=f.pop("lossy", False, kind=bool),
        in_place=f.pop("in_place", True, kind=bool),
        examples=_examples(f, path),
    )
    f.done()
    checked = _checked(rule, f.where)
    return _compiled(checked) if compile else checked


def _names(f: Fields, path: Path, digest: "hashlib._Hash | None"
           ) -> tuple[tuple[tuple[str, str], ...], frozenset[str], str | None, str]:
    """The identifier map: explicit ``names``, plus a ``vocabulary`` renamed by ``transform``
    (and the vocabulary's file)."""
    explicit = f.pop("names", {}, kind=dict)
    explicit.pop("__line__", None)
    vocab_file = f.pop("vocabulary", None, kind=str)
    if not vocab_file:
        return tuple(sorted((str(k), str(v)) for k, v in explicit.items())), frozenset(), None, ""
    transform = f.pop("transform", "systematic", kind=str)
    if transform not in TRANSFORMS:
        raise LoadError(f"{f.where}: unknown transform '{transform}' (known: {', '.join(TRANSFORMS)})")
    vocabulary = _vocabulary(path.parent / vocab_file, f.where, digest)
    return (tuple(sorted((str(k), str(v)) for k, v in explicit.items())), vocabulary, transform,
            str(path.parent / vocab_file))


def _vocabulary(path: Path, where: str, digest: "hashlib._Hash | None") -> frozenset[str]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise LoadError(f"{where}: cannot read vocabulary {path}: {exc.strerror}") from None
    if digest is not None:
        digest.update(raw)
    return parse_vocabulary(raw)


def _prefix(name: str) -> str:
    """The short literal every key of a names rule is found by.

    Two characters keep the candidate regex small (a few alternatives instead
    of thousands); names starting with underscores take four, so that
    ``__global__`` and friends are not all candidates.
    """
    return name[:4] if name.startswith("_") else name[:2]


_SMALL_TABLE = 200


def _names_pattern(names: tuple[tuple[str, str], ...], vocabulary: frozenset[str]) -> str:
    """The regex a names rule scans with.

    A small table is one alternation of its whole names; a large one (the
    toolkit vocabulary) scans identifiers by their short prefixes and looks
    each candidate up, which keeps the regex small.
    """
    keys = {k for k, _ in names} | vocabulary
    if len(keys) <= _SMALL_TABLE:
        escaped = sorted((re.escape(k) for k in keys), key=lambda k: (-len(k), k))
        return rf"(?<![\w])(?:{'|'.join(escaped)})(?![\w])"
    prefixes = sorted({re.escape(p) for p in {_prefix(k) for k in keys}}, key=lambda p: (-len(p), p))
    return rf"(?<![\w])(?:{'|'.join(prefixes)})\w*"


def _tree_has(f: Fields) -> tuple[str, str] | None:
    """``tree_has: {file: c10/core/Device.h, pattern: 'is_privateuseone'}`` as (file, pattern)."""
    raw = f.pop("tree_has", None, kind=dict)
    if raw is None:
        return None
    t = Fields(raw, f.where, "tree_has")
    found = (t.pop("file", kind=str), t.pop("pattern", kind=str))
    t.done()
    try:
        re.compile(found[1])
    except re.error as exc:
        raise LoadError(f"{f.where}: tree_has: invalid regex: {exc}") from None
    return found


def _contexts(f: Fields) -> frozenset[str]:
    raw = f.pop("contexts", None, kind=list, items=str)
    if raw is None:
        return DEFAULT_CONTEXTS
    unknown = [c for c in raw if c not in CONTEXTS]
    if unknown:
        raise LoadError(f"{f.where}: unknown context(s) {unknown}; known: {', '.join(CONTEXTS)}")
    return frozenset(raw)


def _examples(f: Fields, path: Path) -> tuple[Example, ...]:
    out = []
    for entry in f.pop("examples", [], kind=list):
        e = Fields(entry, f.where, "example")
        out.append(
            Example(
                e.pop("before", kind=str),
                e.pop("after", kind=str),
                e.pop("path", Example.path, kind=str),
                e.pop("flagged", True, kind=bool),
                f"{path}:{e.line or f.line}",
            )
        )
        e.done()
    return tuple(out)


def _checked(rule: Rule, where: str) -> Rule:
    """Reject rules that cannot work, naming the declaration."""
    if not rule.why.strip():
        raise LoadError(f"{where}: 'why' must say why the rule exists")
    if rule.kind not in KINDS:
        raise LoadError(f"{where}: unknown kind '{rule.kind}' (known: {', '.join(KINDS)})")
    rule.unit.check(rule, where)
    if rule.unit.declares_pattern and rule.contexts != frozenset(CONTEXTS) and _matches_empty(rule.pattern):
        raise LoadError(f"{where}: pattern {rule.pattern!r} can match empty text, which has no context of its "
                        "own, so the rule would act inside comments and strings too; make it match at least one "
                        "character (a deliberate insertion, like a prelude at \\A, must list every context)")
    return rule


def _matches_empty(pattern: str) -> bool:
    """True when ``pattern`` can match the empty string somewhere (``x*``, ``(?=a)``, ``^``).

    An empty match has no context of its own: at the edge of a code span that
    borders a comment, its insertion lands inside the comment, so only a rule
    that touches every context may match empty text.  An invalid pattern is
    left to compiling, which names the error.
    """
    try:
        return _sre_parse.parse(pattern).getwidth()[0] == 0
    except (re.error, OverflowError, RecursionError):
        return False


def _compiled(rule: Rule) -> Rule:
    """Compile the regexes once; an invalid one is a load error with file:line."""
    try:
        regex = re.compile(rule.pattern, re.MULTILINE)
        keep = re.compile(rule.keep_if) if rule.keep_if else None
        unless = re.compile(rule.unless_code, re.MULTILINE) if rule.unless_code else None
        if rule.replace is not None:
            regex.sub(rule.replace, "")  # validates group references
    except (re.error, IndexError) as exc:
        raise LoadError(f"{rule.where}: rule '{rule.id}': invalid regex: {exc}") from None
    # The literals a match starts with, else the pattern without its leading assertions; a names rule's
    # scan is its identifier search.
    scan = (_start_scan(rule.pattern) if rule.unit.declares_pattern else None) or _scan_regex(rule.pattern)
    found = rule.unit.needles(rule)
    return replace(rule, regex=regex, keep=keep, unless=unless, needles=found, table=dict(rule.names),
                   scan=scan, words=rule.unit.word_keys(rule, scan), by_line=0 < len(found) <= _LINE_NEEDLES and one_line(rule.pattern),
                   compiled=True)


# Up to this many needles, finding the lines that hold one costs less than searching the whole text.
_LINE_NEEDLES = 8


# A names rule's scan whose every match, at a word start, runs to the end of that word: a head of
# word characters only (a class of them, or literal alternatives), then ``\w*``.
_WORD_SCAN = re.compile(r"(?:\[A-Za-z_\]|\(\?:\w+(?:\|\w+)*\))\\w\*")


def _word_keys(rule: Rule, scan: re.Pattern[str] | None) -> frozenset[bytes] | None:
    """The keys of a names rule that matches whole words, as bytes, for the word-set search; None
    when the rule is not one (then it scans identifier by identifier).

    Such a rule replaces exactly the maximal words that are keys and that its
    scan matches whole; a key that is not ASCII, or is not a word, turns the
    shortcut off rather than risk a different answer.
    """
    if scan is None or not rule.pattern.endswith("\\w*"):
        return None
    if not _WORD_SCAN.fullmatch(scan.pattern):
        return None
    keys = set(rule.vocabulary) | {k for k, _ in rule.names}
    if not all(k.isascii() and re.fullmatch(r"\w+", k) and scan.fullmatch(k) for k in keys):
        return None
    return frozenset(k.encode() for k in keys)


_LEADING_ASSERTIONS = re.compile(r"^(?:\\b|\(\?<[=!](?:[^()\\\[]|\\.|\[(?:[^\]\\]|\\.)*\])*\))+")


_WORD_RUNS = ("\\w+", "(\\w+)", "\\w*", "(\\w*)")


def _scan_regex(pattern: str) -> re.Pattern[str] | None:
    """The pattern without its leading lookbehinds/``\\b``, or None.

    Python's regex engine cannot use its fast literal/charset search when a
    pattern starts with an assertion; scanning with the stripped pattern and
    checking the full one at each candidate is equivalent and several times
    faster (see rewrite.matches).
    """
    m = _LEADING_ASSERTIONS.match(pattern)
    if not m or m.end() == len(pattern):
        return None
    if pattern.startswith(_WORD_RUNS, m.end()):
        return None  # without its \b, ``(\w+)::x`` retries inside every word: quadratic, 3x slower
    try:
        return re.compile(pattern[m.end() :], re.MULTILINE)
    except re.error:
        return None


def _start_scan(pattern: str) -> re.Pattern[str] | None:
    """A regex of the literals every match starts with (``needles.starts``), or None: for a pattern that
    starts with an optional group, such as ``(?:\\bcase\\s+)?``, which the engine tries at every character."""
    found = starts(pattern)
    return re.compile("|".join(map(re.escape, found))) if found else None


def _name_needles(rule: Rule) -> tuple[str, ...]:
    """Literal strings one of which must occur for a names rule to match at all: its keys, or their
    prefixes (a cheap ``in`` test then skips most rules for most files)."""
    keys = rule.keys()
    if len(keys) <= _SMALL_TABLE and not rule.pattern.endswith("\\w*"):
        return tuple(keys)
    return tuple(sorted({_prefix(k) for k in keys}))


# Rule kinds.  A rule's kind is one unit: which declaration makes a rule of it, how such a rule is
# checked at load, what a match becomes, how ``rules explain`` describes it and what its examples
# must show.  Adding a kind is one more class here and its entry in KINDS.


class Kind:
    """What every kind shares; each kind overrides what makes it different."""

    name = ""
    keys = ""  # the declaration key(s) that make a rule this kind, as error messages name them
    declares_pattern = True  # False: the pattern is made from the rule's names and never matches empty text
    reports = False  # True: a match is a finding in the report, never an edit

    def declared(self, names: tuple[tuple[str, str], ...], vocabulary: frozenset[str], message: str) -> bool:
        """Whether a pack entry with these keys is a rule of this kind (KINDS are asked in order)."""
        return True

    def pattern(self, pattern: str, names: tuple[tuple[str, str], ...], vocabulary: frozenset[str]) -> str:
        """The regex the rule matches with, from the entry's ``pattern``."""
        return pattern

    def transform(self, f: Fields, vocab_transform: str | None) -> str | None:
        """The entry's named transform."""
        return f.pop("transform", None, kind=str)

    def check(self, rule: Rule, where: str) -> None:
        """Raise a LoadError when the rule cannot work as this kind."""
        _known_transform(rule, where)

    def replacement(self, rule: Rule) -> Callable[[re.Match[str]], str | None] | None:
        """A function from a match to its new text (None from it: leave the match alone); None: report."""
        return None

    def identifier(self, rule: Rule, name: str) -> str | None:
        """The rule's new spelling of the identifier ``name`` (None: not one it renames)."""
        return None

    def needles(self, rule: Rule) -> tuple[str, ...]:
        """Literal strings one of which must occur for the rule to match at all.

        A cheap ``in`` test then skips most rules for most files.
        """
        return needles(rule.pattern)

    def word_keys(self, rule: Rule, scan: re.Pattern[str] | None) -> frozenset[bytes] | None:
        """The words the rule matches, for the word-set search (None: search by regex)."""
        return None

    def scans_identifiers(self, rule: Rule) -> bool:
        """True when the rule's scan regex finds identifier candidates to look up (see rewrite.apply)."""
        return False

    def describe(self, rule: Rule) -> list[str]:
        """What ``rules explain`` says the rule does."""
        target = f"transform {rule.transform}" if rule.transform else repr(rule.replace)
        return [f"Pattern: {rule.pattern}", f"Replacement: {target}"]

    def example_problem(self, rule: Rule, ex: Example, flagged: set[str], fired: dict[str, int]) -> str:
        """What is wrong with an example whose text came out right ('' when it holds)."""
        if ex.before != ex.after and rule.id not in fired:
            return "other rules produce 'after'; this rule does not fire on 'before'"
        return ""


class RegexKind(Kind):
    """A ``pattern`` whose matches become ``replace`` (a template) or a named ``transform`` of them."""

    name = "regex"

    def check(self, rule: Rule, where: str) -> None:
        if not rule.pattern:
            raise LoadError(f"{where}: needs 'pattern', 'names', 'vocabulary' or 'flag'")
        if (rule.replace is None) == (rule.transform is None):
            raise LoadError(f"{where}: needs exactly one of 'replace' or 'transform'")
        _known_transform(rule, where)

    def replacement(self, rule: Rule) -> Callable[[re.Match[str]], str | None]:
        if rule.transform:
            fn = TRANSFORMS[rule.transform]
            return lambda m: fn(m.group(0))
        template = rule.replace or ""
        return lambda m: m.expand(template)


class NamesKind(Kind):
    """Identifiers renamed by a ``names`` map and/or a ``vocabulary`` renamed by its ``transform``."""

    name = "names"
    keys = "names'/'vocabulary"
    declares_pattern = False

    def declared(self, names: tuple[tuple[str, str], ...], vocabulary: frozenset[str], message: str) -> bool:
        return bool(names or vocabulary)

    def pattern(self, pattern: str, names: tuple[tuple[str, str], ...], vocabulary: frozenset[str]) -> str:
        return pattern or _names_pattern(names, vocabulary)

    def transform(self, f: Fields, vocab_transform: str | None) -> str | None:
        return vocab_transform  # read with the vocabulary

    def check(self, rule: Rule, where: str) -> None:
        _known_transform(rule, where)
        _no_replace(rule, where, self.keys)

    def replacement(self, rule: Rule) -> Callable[[re.Match[str]], str | None]:
        return lambda m: rule.lookup(m.group(0))

    def identifier(self, rule: Rule, name: str) -> str | None:
        return dict(rule.names).get(name) or (rule.lookup(name) if rule.vocabulary else None)

    def needles(self, rule: Rule) -> tuple[str, ...]:
        return _name_needles(rule)

    def word_keys(self, rule: Rule, scan: re.Pattern[str] | None) -> frozenset[bytes] | None:
        return _word_keys(rule, scan)

    def scans_identifiers(self, rule: Rule) -> bool:
        return rule.scan is not None and rule.pattern.endswith("\\w*")

    def describe(self, rule: Rule) -> list[str]:
        keys = rule.keys()
        sample = ", ".join(f"{k} → {rule.lookup(k)}" for k in keys[:6])
        more = f" (and {len(keys) - 6} more)" if len(keys) > 6 else ""
        via = f", the vocabulary by transform '{rule.transform}'" if rule.vocabulary else ""
        return [f"Renames {len(keys)} identifiers{via}: {sample}{more}"]


class FlagKind(Kind):
    """A ``pattern`` whose matches are reported with the ``flag`` message and never rewritten."""

    name = "flag"
    keys = "flag"
    reports = True

    def declared(self, names: tuple[tuple[str, str], ...], vocabulary: frozenset[str], message: str) -> bool:
        return bool(message)

    def check(self, rule: Rule, where: str) -> None:
        _known_transform(rule, where)
        if not rule.pattern:
            raise LoadError(f"{where}: a flag needs a 'pattern'")
        _no_replace(rule, where, self.keys)
        if rule.transform:
            raise LoadError(f"{where}: 'transform' cannot go with 'flag': a flag changes nothing; remove one")

    def describe(self, rule: Rule) -> list[str]:
        return [f"Reports (does not rewrite): {rule.message}", f"Pattern: {rule.pattern}"]

    def example_problem(self, rule: Rule, ex: Example, flagged: set[str], fired: dict[str, int]) -> str:
        if (rule.id in flagged) != ex.flagged:
            return f"expected flagged={ex.flagged}, got flagged={not ex.flagged}"
        return ""


# In the order a pack entry's kind is decided: names, then flag, else regex.
KINDS: dict[str, Kind] = {k.name: k for k in (NamesKind(), FlagKind(), RegexKind())}


def _known_transform(rule: Rule, where: str) -> None:
    if rule.transform and rule.transform not in TRANSFORMS:
        raise LoadError(f"{where}: unknown transform '{rule.transform}' (known: {', '.join(TRANSFORMS)})")


def _no_replace(rule: Rule, where: str, keys: str) -> None:
    if rule.replace is not None:
        raise LoadError(f"{where}: 'replace' cannot go with '{keys}', which decides the new "
                        "text (or, for a flag, changes nothing); remove one")
