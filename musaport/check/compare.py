"""``musaport check``: what an upstream PyTorch bump breaks for the MUSA port.

A check compares two *snapshots*: what the port of a tree looks like (its
ported files, unmapped names, rule totals, operator schemas and, optionally,
which files compile against the shim).  The old snapshot comes from a second
tree or from a report an earlier run wrote; the new one from porting NEW.
The comparison is a pure function from two snapshots to findings.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from musaport.ops.records import NATIVE_FUNCTIONS, cuda_operators
from musaport.errors import LoadError
from musaport.jsonfile import check_shape, read_json

CATEGORIES = {
    "added-files": "files added to the ported set",
    "removed-files": "files removed from the ported set",
    "renamed-files": "files moved within the ported set",
    "new-unmapped": "CUDA API names unmapped in NEW that were not unmapped before",
    "dead-rules": "rules that matched before and match nothing now",
    "schema-drift": "registered operators whose schema changed (their registrations break)",
    "new-operators": "new operators with a CUDA kernel the port does not cover yet",
    "compile-regression": "files that compiled against the shim before and no longer do",
}
DEFAULT_FAIL_ON = ("new-unmapped", "schema-drift", "removed-files", "compile-regression", "dead-rules")


@dataclass(frozen=True)
class Finding:
    """One thing the bump changed, pointing at a file and line where there is one."""

    category: str
    message: str
    file: str = ""
    line: int = 0
    subject: str = ""


@dataclass
class Snapshot:
    """What the port of one tree looks like; JSON-serialisable, stored in check reports."""

    source: str
    files: dict[str, dict[str, str]] = field(default_factory=dict)  # src -> {out, src_hash}
    unmapped: dict[str, list[str]] = field(default_factory=dict)  # name -> sites
    rules: dict[str, int] = field(default_factory=dict)  # rule id -> matches
    operators: dict[str, dict[str, Any]] | None = None  # name -> {schema, line, kernel}
    validation: dict[str, bool] | None = None  # file -> compiled

    @classmethod
    def from_report(cls, report: dict[str, Any]) -> "Snapshot":
        """From a porting report (``porting_report.json``): no operators, no validation."""
        return cls(
            source=report.get("source", ""),
            files={src: {"out": f["out"], "src_hash": f.get("src_hash", "")} for src, f in report["files"].items()},
            unmapped={u["name"]: list(u["sites"]) for u in report["unmapped"]},
            rules={rule: t["matches"] for rule, t in report["rules"].items()},
        )

    def with_operators(self, tree: Path, registered: set[str] | None = None) -> "Snapshot":
        """The tree's CUDA operators; ``registered`` (when known) marks those the generated stubs cover."""
        self.operators = {}
        for name, o in sorted(cuda_operators(tree).items()):
            self.operators[name] = {"schema": o.schema, "line": o.line, "kernel": o.kernel}
            if registered is not None:
                self.operators[name]["registered"] = name in registered
        return self


def load_baseline(path: Path) -> Snapshot:
    """A baseline from a previous check's JSON (its NEW side) or from a porting report.

    Every value is checked against the snapshot's shape, so a hand-edited or
    foreign report fails in one line that names the bad entry, not later in
    the comparison.
    """
    data = read_json(path, what="JSON report")
    if isinstance(data, dict) and "snapshot" in data:
        check_shape(data["snapshot"], path, _SHAPE, "snapshot")
        return Snapshot(**data["snapshot"])
    if isinstance(data, dict) and {"files", "unmapped", "rules"} <= set(data):
        check_shape({k: data[k] for k in ("files", "unmapped", "rules")}, path, _REPORT_SHAPE)
        snap = Snapshot.from_report(data)
        if not isinstance(snap.source, str):
            raise LoadError(f"{path}: 'source' must be a string")
        return snap
    raise LoadError(f"{path}: neither a 'musaport check --format json' report nor a porting_report.json")


# The JSON shape of a snapshot and of the parts of a porting report a baseline reads: a type, a
# {"*": shape} for a mapping with any keys, a {key: shape} for fixed keys (a key ending in "?" may
# be missing), a [shape] for a list; a tuple of shapes: either.
_SHAPE: dict[str, Any] = {
    "source": str,
    "files?": {"*": {"out": str, "src_hash": str}},
    "unmapped?": {"*": [str]},
    "rules?": {"*": int},
    "operators?": (type(None), {"*": {"schema": str, "line": int, "kernel": str, "registered?": bool}}),
    "validation?": (type(None), {"*": bool}),
}
_REPORT_SHAPE: dict[str, Any] = {
    "files": {"*": {"out": str, "src_hash?": str, "*": object}},
    "unmapped": [{"name": str, "sites": [str], "*": object}],
    "rules": {"*": {"matches": int, "*": object}},
}


def compare(old: Snapshot, new: Snapshot) -> list[Finding]:
    """Every finding, in a stable order (category, then file, line, subject)."""
    findings = _files(old, new) + _unmapped(old, new) + _dead_rules(old, new)
    findings += _schemas(old, new) + _validation(old, new)
    return sorted(findings, key=lambda f: (list(CATEGORIES).index(f.category), f.file, f.line, f.subject))


def _files(old: Snapshot, new: Snapshot) -> list[Finding]:
    added = set(new.files) - set(old.files)
    removed = set(old.files) - set(new.files)
    out = []
    for src, dest in _renames(old, new, added, removed):
        added.discard(dest)
        removed.discard(src)
        out.append(Finding("renamed-files", f"moved here from {src}", dest, 0, src))
    out += [Finding("added-files", f"new; ported to {new.files[s]['out']}", s, 0, s) for s in added]
    out += [Finding("removed-files", f"gone; {old.files[s]['out']} is no longer produced", s, 0, s) for s in removed]
    return out


def _renames(old: Snapshot, new: Snapshot, added: set[str], removed: set[str]) -> list[tuple[str, str]]:
    """Removed/added pairs with the same content, or else the same unique file name."""
    pairs = []
    by_hash = {new.files[a]["src_hash"]: a for a in added if new.files[a].get("src_hash")}
    by_name = defaultdict(list)
    for a in added:
        by_name[PurePosixPath(a).name].append(a)
    for r in sorted(removed):
        digest = old.files[r].get("src_hash")
        match = by_hash.get(digest) if digest else None
        if match is None and len(by_name[PurePosixPath(r).name]) == 1:
            match = by_name[PurePosixPath(r).name][0]
        if match is not None and match in added:
            pairs.append((r, match))
            added = added - {match}
    return pairs


def _unmapped(old: Snapshot, new: Snapshot) -> list[Finding]:
    out = []
    for name in sorted(set(new.unmapped) - set(old.unmapped)):
        sites = new.unmapped[name]
        file, _, line = sites[0].rpartition(":")
        more = f" (and {len(sites) - 1} more sites)" if len(sites) > 1 else ""
        out.append(Finding("new-unmapped", f"{name} is used but no rule maps it{more}", file, int(line or 0), name))
    return out


def _dead_rules(old: Snapshot, new: Snapshot) -> list[Finding]:
    return [
        Finding("dead-rules", f"rule {rule} matched {count} times before and matches nothing now", "", 0, rule)
        for rule, count in sorted(old.rules.items())
        if count and not new.rules.get(rule)
    ]


def _schemas(old: Snapshot, new: Snapshot) -> list[Finding]:
    if old.operators is None or new.operators is None:
        return []
    out = []
    for name, op in sorted(new.operators.items()):
        before = old.operators.get(name)
        if before is None:
            if not op.get("registered", False):  # a new operator the generated stubs register is covered
                out.append(Finding("new-operators", f"{name} has a CUDA kernel ({op['kernel']}) the port does not cover yet",
                                   NATIVE_FUNCTIONS, op["line"], name))
        elif before["schema"] != op["schema"] and before.get("registered", True):  # unknown: assume registered
            out.append(Finding("schema-drift", f"{name} changed: `{before['schema']}` → `{op['schema']}`",
                               NATIVE_FUNCTIONS, op["line"], name))
    return out


def _validation(old: Snapshot, new: Snapshot) -> list[Finding]:
    if not old.validation or new.validation is None:
        return []
    return [
        Finding("compile-regression", f"{f} compiled against the shim before and fails now", f, 0, f)
        for f, ok in sorted(new.validation.items())
        if not ok and old.validation.get(f)
    ]


def selected(findings: list[Finding], fail_on: tuple[str, ...]) -> list[Finding]:
    """The findings that make the check fail."""
    return [f for f in findings if f.category in fail_on]


def to_json(old: Snapshot, new: Snapshot, findings: list[Finding], fail_on: tuple[str, ...]) -> dict[str, Any]:
    """The JSON report; its ``snapshot`` is a baseline for the next check."""
    counts = {c: sum(1 for f in findings if f.category == c) for c in CATEGORIES}
    return {
        "tool": "musaport check",
        "old": old.source,
        "new": new.source,
        "fail_on": list(fail_on),
        "failed": bool(selected(findings, fail_on)),
        "summary": counts,
        "findings": [asdict(f) for f in findings],
        "snapshot": asdict(new),
    }
