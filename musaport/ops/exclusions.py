"""DispatchStubs the backend implements itself: listed, then unregistered from the port.

A backend with its own ``index_stub`` kernel must not also get the ported
CUDA one: two registrations for one stub slot fail at load time.  Each
excluded stub becomes a lossy rule that replaces its ``REGISTER_DISPATCH``
line with a comment, so every removal is a finding with file and line, and
changing the list changes the rule digest (and so re-ports the tree).

The list comes from ``--exclude-stubs a,b`` or a YAML file::

    stubs:
      - index_stub
      - {stub: index_put_stub, why: our muDNN kernel}
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from musaport.rewrite.registry import CodeRule
from musaport.rewrite.rules import Rule, make_rule
from musaport.yamlload import Fields, load_yaml
from musaport.errors import LoadError

_NAME = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class Exclusion:
    """One stub to leave to the backend, and where it was asked for."""

    stub: str
    where: str
    why: str = "the backend registers its own kernel for this stub"


def from_option(values: Iterable[str]) -> list[Exclusion]:
    """``--exclude-stubs a,b --exclude-stubs c`` → exclusions; a bad name is an error."""
    found = []
    for value in values:
        for name in (v.strip() for v in value.split(",")):
            if name:
                found.append(_checked(Exclusion(name, "--exclude-stubs"), "--exclude-stubs"))
    return found


def from_file(path: Path) -> list[Exclusion]:
    """The ``stubs:`` list of a YAML file; errors name the file and line."""
    f = Fields(load_yaml(path), f"{path}:1", "stub exclusion file")
    entries = f.pop("stubs", kind=list)
    f.pop("why", "", kind=str)
    f.done()
    return [_entry(e, path) for e in entries]


def _entry(entry: object, path: Path) -> Exclusion:
    if isinstance(entry, str):
        return _checked(Exclusion(entry, f"{path}"), f"{path}")
    line = entry.get("__line__", 0) if isinstance(entry, dict) else 0
    f = Fields(entry, f"{path}:{line}", "stub entry")
    stub = f.pop("stub", kind=str)
    why = f.pop("why", "the backend registers its own kernel for this stub", kind=str)
    f.done()
    return _checked(Exclusion(stub, f"{path}:{line}", why), f"{path}:{line}")


def _checked(e: Exclusion, where: str) -> Exclusion:
    if not _NAME.fullmatch(e.stub):
        raise LoadError(f"{where}: '{e.stub}' is not a DispatchStub name (a C++ identifier)")
    return e


def rule_for(e: Exclusion) -> Rule:
    """The lossy rule that comments out ``REGISTER_*DISPATCH(stub, ...)``."""
    pattern = (rf"\bREGISTER_(?:CUDA_|MUSA_|PRIVATEUSE1_)?DISPATCH\(\s*({re.escape(e.stub)})\s*,"
               r"(?:[^;()]|\([^;()]*\))*\)(?:[ \t]*;)?")
    return make_rule(id=rule_id(e.stub), why=f"{e.stub} is excluded: {e.why}", kind="regex",
                     pack="exclude-stubs", where=e.where, pattern=pattern,
                     replace=r"/* musaport: REGISTER_DISPATCH(\1, ...) removed (--exclude-stubs) */", lossy=True)


def rule_id(stub: str) -> str:
    return f"exclude-stub-{stub}"


# The ids this module makes, for ``musaport rules explain`` (``rewrite.registry``).
CODE_RULES = (CodeRule(
    rule_id("*"), "regex", "The backend implements this DispatchStub itself, so the ported CUDA kernel's "
    "REGISTER_DISPATCH line is removed (two registrations for one stub fail at load time); every removal is "
    "a finding.", "musaport/ops/exclusions.py (run --exclude-stubs NAME or --exclude-stubs-file FILE)",
    "REGISTER_DISPATCH(index_stub, &index_kernel);",
    "/* musaport: REGISTER_DISPATCH(index_stub, ...) removed (--exclude-stubs) */"),)
