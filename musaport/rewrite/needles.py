"""Literal strings a regex cannot match without: a cheap pre-test per file.

Python's regex engine scans at tens of MB/s when a pattern starts with a
lookbehind or an optional group, and most rules match nothing in most files.
If a pattern needs one of a few literal strings, a plain ``in`` test (C speed)
skips the scan.  Derived from the parsed pattern, so rule authors write only
the regex; when nothing can be derived safely the answer is "no needles" and
the rule always runs.
"""

from __future__ import annotations

try:  # Python 3.11+
    from re import _constants as _c
    from re import _parser as _p
except ImportError:  # Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

_ZERO_WIDTH = {_c.AT, _c.ASSERT, _c.ASSERT_NOT}


def needles(pattern: str) -> tuple[str, ...]:
    """Literals of which at least one occurs in any text the pattern matches."""
    try:
        parsed = _p.parse(pattern)
    except Exception:  # noqa: BLE001 - an unparsable pattern fails elsewhere
        return ()
    found = _alternatives(list(parsed))
    return tuple(sorted(set(found))) if found else ()


def _alternatives(items: list) -> list[str] | None:
    """For a sequence: the best single literal, or a branch's per-arm literals."""
    if len(items) == 1 and items[0][0] is _c.BRANCH:
        arms = [_alternatives(list(arm)) for arm in items[0][1][1]]
        if all(arms):
            return [lit for arm in arms for lit in arm]  # type: ignore[union-attr]
        return None
    runs = _literal_runs(items)
    best = max(runs, key=len, default="")
    if len(best) >= 2:
        return [best]
    for op, arg in items:  # a mandatory group of alternatives: any arm's literal
        found = None
        if op is _c.BRANCH:
            found = _alternatives([(op, arg)])
        elif op is _c.SUBPATTERN and len(arg[-1]) == 1 and arg[-1][0][0] is _c.BRANCH:
            found = _alternatives(list(arg[-1]))
        if found:  # a group whose arms lack literals (operators, say) does not end the search
            return found
    return None


def _literal_runs(items: list) -> list[str]:
    """Runs of consecutive mandatory literal characters in a sequence."""
    runs, current = [], ""
    for op, arg in items:
        if op is _c.LITERAL:
            current += chr(arg)
            continue
        if op is _c.SUBPATTERN and _is_plain(arg[-1]):
            inner = _literal_runs(list(arg[-1]))
            if len(inner) == 1 and _all_literal(arg[-1]):
                current += inner[0]
                continue
            runs.append(current)
            runs.extend(inner)
            current = ""
            continue
        if op in _ZERO_WIDTH:
            continue
        runs.append(current)
        current = ""
    runs.append(current)
    return [r for r in runs if r]


def _is_plain(seq) -> bool:
    return not any(op is _c.BRANCH for op, _ in seq)


def _all_literal(seq) -> bool:
    return all(op is _c.LITERAL for op, _ in seq)


_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT)}
# ``\A`` and ``\Z`` ask where the whole text starts or ends, which a line does not know.
_LINE_SAFE_AT = {_c.AT_BEGINNING, _c.AT_END, _c.AT_BOUNDARY, _c.AT_NON_BOUNDARY}


def one_line(pattern: str) -> bool:
    """True when no match of ``pattern`` (nor any lookaround of it) can hold a newline.

    Such a rule's matches lie each within one line, so only the lines that
    hold one of its needles need searching (``rewrite.apply``): a file of
    thousands of lines is then searched in the few where the rule can match.
    Anything this cannot tell for certain (a flag group, ``\\s``, a negated
    class, a back-reference, ``\\A``) answers False: the whole text is searched.
    """
    try:
        parsed = _p.parse(pattern)
    except Exception:  # noqa: BLE001 - an unparsable pattern fails elsewhere
        return False
    if parsed.state.flags & ~(_c.SRE_FLAG_UNICODE | _c.SRE_FLAG_MULTILINE):  # (?s), (?i), (?x) ...
        return False
    return _no_newline(list(parsed))


def _no_newline(items: list) -> bool:
    """Whether a parsed sequence can match no newline anywhere (conservative: unknown ops say no)."""
    for op, arg in items:
        if op is _c.LITERAL:
            if arg == 10:
                return False
        elif op is _c.ANY or op is _c.AT and arg in _LINE_SAFE_AT:
            continue
        elif op is _c.IN:
            if not all(_class_item(o, a) for o, a in arg):
                return False
        elif op in _REPEATS:
            if not _no_newline(list(arg[2])):
                return False
        elif op is _c.SUBPATTERN:
            if arg[1] or arg[2] or not _no_newline(list(arg[3])):  # a flag group may add DOTALL, IGNORECASE
                return False
        elif op is _c.BRANCH:
            if not all(_no_newline(list(arm)) for arm in arg[1]):
                return False
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            if not _no_newline(list(arg[1])):
                return False
        else:
            return False
    return True


def _class_item(op, arg) -> bool:
    """One member of a ``[...]`` class that holds no newline (a negated class may: never safe)."""
    if op is _c.LITERAL:
        return arg != 10
    if op is _c.RANGE:
        return not arg[0] <= 10 <= arg[1]
    return op is _c.CATEGORY and arg in (_c.CATEGORY_WORD, _c.CATEGORY_DIGIT)


def starts(pattern: str) -> tuple[str, ...]:
    """Literals one of which every match of ``pattern`` starts with (after its zero-width assertions).

    ``(?:\\bcase\\s+)?\\b((?:c10::|at::)?)kCUDA\\b`` starts with ``case``, ``c10::``,
    ``at::`` or ``kCUDA``. The regex engine skips ahead only to a pattern's own
    leading literal, so a pattern that starts with an optional group or an
    assertion is tried at every character; searching for these literals and
    trying the pattern where one is found gives the same matches several
    times faster. Empty when they cannot be told (a class, a flag group, a
    part that can match empty text).
    """
    try:
        parsed = _p.parse(pattern)
    except Exception:  # noqa: BLE001 - an unparsable pattern fails elsewhere
        return ()
    if parsed.state.flags & ~(_c.SRE_FLAG_UNICODE | _c.SRE_FLAG_MULTILINE):
        return ()
    found = _starts(list(parsed))
    return tuple(sorted(set(found), key=lambda s: (-len(s), s))) if found else ()


def _starts(items: list) -> list[str] | None:
    """The literal starts of a parsed sequence (None: not known)."""
    for k, (op, arg) in enumerate(items):
        rest = items[k + 1 :]
        if op in _ZERO_WIDTH:
            continue
        if op is _c.LITERAL:
            run = ""
            for op2, arg2 in items[k:]:
                if op2 is not _c.LITERAL:
                    break
                run += chr(arg2)
            return [run]
        if op is _c.SUBPATTERN:
            return None if arg[1] or arg[2] else _starts(list(arg[3]) + rest)
        if op is _c.BRANCH:
            arms = [_starts(list(arm) + rest) for arm in arg[1]]
            return None if any(a is None for a in arms) else [s for a in arms for s in a]  # type: ignore[union-attr]
        if op in _REPEATS:
            low, _, sub = arg
            if sub.getwidth()[0] == 0:
                return None  # a repeat that can match empty text consumes nothing for certain
            first = _starts(list(sub))
            if first is None:
                return None
            if low:
                return first
            after = _starts(rest)
            return None if after is None else first + after
        return None
    return None  # only assertions: the pattern can match empty text
