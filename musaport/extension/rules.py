"""What the project decides for itself (``extension.project``), as rules of the run.

Everything here is data computed from the discovered tree and applied by
the ordinary engine, so the report lists each site with its ``file:line``:

- ``project-cuda-names``: the project's CUDA-named identifiers, renamed in
  every ported file (declarations and uses alike);
- ``project-registry-*``: ``CUDA`` → ``PrivateUse1`` at the call sites of each
  device-registry macro; ``project-registry-undecided`` reports the sites the
  port cannot decide;
- ``include-found-by-path`` and ``include-unresolved``: includes that no
  declared include root finds;
- ``existing-musa-branch``: in a file that already has MUSA code of its own,
  the device checks, guards and registrations stay CUDA and each is reported
  (``guard_existing_musa`` takes those files out of the rules that would
  rewrite them).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace

from musaport.cpp.parser import CODE, DIRECTIVE, INCLUDE
from musaport.extension.discover import Discovery
from musaport.extension.includes import _glob_escape
from musaport.extension.project import registry_pattern
from musaport.rewrite.rules import Rule, RuleSet, make_rule
from musaport.rewrite.transforms import rename_path

# Rules that would turn a CUDA branch into one MUSA tensors take: not in a file with a MUSA branch of its own.
BRANCH_RULES = frozenset({
    "is-cuda", "extension-type-device-check", "device-type-cuda", "extension-device-type-alias", "k-cuda-constant",
    "extension-build-guards", "extension-library-impl-keys",
    "extension-legacy-autocast-key", "extension-dispatch-key-names", "extension-legacy-autocast-name"})
_BRANCH_SITE = (r"(?:\.|->)is_cuda\(\)|\b(?:(?:c10|at|torch)::)?(?:DeviceType::CUDA|Device::Type::CUDA|kCUDA)\b"
                r"|\b(?:\w+_)?(?:WITH|USE)_CUDA\b|\bDispatchKey::\w*CUDA\b|\bDispatchKey::Autocast\b"
                r"|\bTORCH_LIBRARY_IMPL\s*\(\s*\w+\s*,\s*\w*(?:CUDA|Autocast)\s*,")
_NOTHING = ("\n",)  # a file glob no path matches


def guard_existing_musa(rules: RuleSet, d: Discovery) -> RuleSet:
    """``rules`` with the files that have MUSA code of their own taken out of the branch-changing rules."""
    aware = {rel for rel, _, _ in d.musa_aware}
    if not aware:
        return rules
    others = [p.rel for p in d.picked if p.rel not in aware]
    out = []
    for rule in rules.rules:
        if rule.id in BRANCH_RULES:
            keep = tuple(_glob_escape(r) for r in others if rule.applies_to(r))
            rule = replace(rule, files=keep or _NOTHING)
        out.append(rule)
    digest = hashlib.sha256(f"{rules.digest}\0musa-aware\0{' '.join(sorted(aware))}".encode()).hexdigest()
    return replace(rules, rules=tuple(out), digest=digest)


def project_rules(d: Discovery, where: str) -> list[Rule]:
    """The flags (first: they must see the includes as written) and rewrites of what the project decides."""
    aware = {rel for rel, _, _ in d.musa_aware}
    ported = {p.rel for p in d.picked}
    others = tuple(sorted(ported - aware))
    rules = _include_flags(d, where) + _aware_flags(d, where) + _undecided_flags(d, where, ported) + \
        _clash_flags(d, where, ported) + _build_macro_flags(d, where, ported)
    if d.names:
        keys = sorted((re.escape(k) for k, _ in d.names), key=lambda k: (-len(k), k))
        rules.append(make_rule(
            id="project-cuda-names", kind="names", pack="extension", where=where,
            why="Identifiers the project declares with 'cuda' in them are the project's, not libtorch's: they are "
                "renamed like the project's files, declaration and use alike, in every ported file, so that "
                "nothing is called by a name nothing defines (a hand-written MUSA branch already calls "
                "rotated_nms_musa).",
            pattern=rf"(?<![\w])(?:{'|'.join(keys)})(?![\w])", names=d.names, contexts=frozenset({CODE})))
    for reg in d.registries:
        if not reg.decided:
            continue
        files = tuple(_glob_escape(r) for r in others)
        rules.append(make_rule(
            id=f"project-registry-{reg.name.lower().replace('_', '-')}", kind="regex", pack="extension",
            where=where, pattern=registry_pattern(reg), replace=r"\1PrivateUse1", contexts=frozenset({CODE}),
            files=files or _NOTHING,
            why=f"{reg.name} ({reg.where}) makes {reg.how} from its device argument: a project device registry. "
                "Its CUDA registrations must name the PrivateUse1 device that MUSA tensors carry, or a MUSA "
                "tensor finds no implementation."))
    return rules


def _group(items: list[tuple[str, str, str]]) -> dict[str, tuple[set[str], set[str]]]:
    """(message, file, pattern) → message: (files, patterns)."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    for message, rel, pattern in items:
        files, patterns = out.setdefault(message, (set(), set()))
        files.add(rel)
        patterns.add(pattern)
    return out


def _flags(rule_id: str, why: str, items: list[tuple[str, str, str]], contexts: frozenset[str],
           where: str) -> list[Rule]:
    rules = []
    for n, (message, (files, patterns)) in enumerate(sorted(_group(items).items())):
        keys = sorted(patterns, key=lambda k: (-len(k), k))
        rules.append(make_rule(id=rule_id if n == 0 else f"{rule_id}-{n + 1}", kind="flag", pack="extension",
                               where=where, why=why, message=message, pattern=f"(?:{'|'.join(keys)})",
                               contexts=contexts, files=tuple(sorted(_glob_escape(f) for f in files))))
    return rules


def _spellings(spelling: str) -> str:
    """The include as written, and as an earlier rule may already have renamed it."""
    forms = {spelling, spelling[0] + rename_path(spelling[1:-1]) + spelling[-1]}
    return "|".join(sorted(re.escape(f) for f in forms))


def _include_flags(d: Discovery, where: str) -> list[Rule]:
    ported = {p.rel for p in d.picked}
    found, unresolved = [], []
    for inc in d.inferred:
        if inc.includer not in ported:
            continue
        if inc.target:
            message = (f"no declared include root finds this; it names {inc.target} by its trailing path, so "
                       f"{inc.root or 'the project root'} is added to the port's include roots "
                       "(MUSAPORT_INCLUDE_DIRS, validate)")
            found.append((message, inc.includer, _spellings(inc.spelling)))
        else:
            unresolved.append((f"include not followed: it {inc.note}", inc.includer,
                               _spellings(inc.spelling)))
    return _flags("include-found-by-path", "An include the build finds only through an include root the project "
                  "never declares (a bare name of a header in a sibling folder): followed, and said so.",
                  found, frozenset({INCLUDE}), where) + \
        _flags("include-unresolved", "An include that names a file the port renames but resolves nowhere in the "
               "project cannot be followed; it would go stale without a word.", unresolved, frozenset({INCLUDE}),
               where)


def _aware_flags(d: Discovery, where: str) -> list[Rule]:
    items = []
    regs = "|".join(registry_pattern(r).replace("(", "(?:", 1) for r in d.registries)
    pattern = _BRANCH_SITE + (f"|{regs}" if regs else "")
    for rel, line, what in d.musa_aware:
        items.append((f"left as CUDA: this file has MUSA code of its own (line {line}: {what}); rewriting this "
                      "check, guard or registration would send MUSA tensors past it", rel, pattern))
    return _flags("existing-musa-branch", "A file that already routes MUSA tensors (a MUSA guard, a PrivateUse1 "
                  "check, a torch_musa include) keeps its CUDA branch as it is: turned into a MUSA path it would "
                  "run before the project's own MUSA branch.", items, frozenset({CODE}), where)


def _undecided_flags(d: Discovery, where: str, ported: set[str]) -> list[Rule]:
    items = [(why, rel, re.escape(call).replace("\\ ", r"\s*")) for rel, _, call, why in d.undecided if rel in ported]
    return _flags("project-registry-undecided", "A device-registry call the port cannot decide is reported, "
                  "never guessed.", items, frozenset({CODE}), where)


def _clash_flags(d: Discovery, where: str, ported: set[str]) -> list[Rule]:
    items = [(f"kept as {old}: the project already defines {new} ({at}); renaming this one would define it "
              "twice", rel, rf"(?<![\w]){re.escape(old)}(?![\w])")
             for old, new, at in d.name_clashes for rel in sorted(ported)]
    return _flags("project-name-kept", "A project name whose MUSA spelling the project already defines (a "
                  "hand-written MUSA implementation) keeps its CUDA spelling, and every use says so.", items,
                  frozenset({CODE}), where)


def _build_macro_flags(d: Discovery, where: str, ported: set[str]) -> list[Rule]:
    items = [(f"kept as {name}: {at} sets it for the compiler, and the ported build sets it so too; renamed "
              "in the code alone it would stay at this default", rel,
              rf"(?<![^\n])[ \t]*#[ \t]*define[ \t]+{re.escape(name)}(?![\w])")
             for name, at in d.build_macros for rel in sorted(ported)]
    return _flags("project-build-macro-kept", "A project macro with 'cuda' in its name that a build file sets "
                  "(-DBUILD_CUDA=1, define_macros, CMake's compile definitions) keeps its name in the code, as "
                  "the build keeps it; its default #define says so.", items, frozenset({CODE, DIRECTIVE}), where)
