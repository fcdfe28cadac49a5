"""What the generated files depend on besides the ported ones, and the options that choose them.

Kept apart from the operator model (``model``, ``scan``, ``records``: a
process pool, torchgen in a child process) so that a warm ``run`` can tell
that nothing changed without importing any of it: :class:`OperatorInputs`
is the part of the generation step the cache key and the run digest need,
and ``generate.OperatorFiles`` adds the work on top.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from musaport.jsoncache import stamps_digest
from musaport.ops.exclusions import Exclusion, rule_for
from musaport.port.layout import Layout, OperatorFolders
from musaport.rewrite.rules import Rule

NATIVE_FUNCTIONS = "aten/src/ATen/native/native_functions.yaml"
TAGS = "aten/src/ATen/native/tags.yaml"


@dataclass(frozen=True)
class GenerateOptions:
    """What the user asked to generate (operator selection, one file per source, stubs left to the backend)."""

    ops: tuple[str, ...] = ()
    exclude_ops: tuple[str, ...] = ()
    split: bool = False
    extra: dict = field(default_factory=dict)
    exclude_stubs: tuple[Exclusion, ...] = ()
    registration: bool = True  # False: no operator model (the tree's torchgen is not run)


@dataclass(frozen=True)
class OperatorInputs:
    """The inputs half of the generation step: its extra rules and the digest of what it reads."""

    options: GenerateOptions = GenerateOptions()

    def extra_rules(self) -> list[Rule]:
        """One removal rule per excluded stub, applied after the packs."""
        unique = {e.stub: e for e in self.options.exclude_stubs}
        return [rule_for(e) for _, e in sorted(unique.items())]

    def describe(self, source: Path, layout: Layout) -> str:
        return f"{self.options!r}\0{inputs_digest(source, layout)}"


def generic_files(source: Path, ported: set[str], folders: OperatorFolders) -> list[str]:
    """The ``.cpp`` files of the device-generic folders that the run did not port, and their headers
    (ported in place or not: libtorch compiles its own copy of what they define, such as
    ``view_as_real`` in ``ComplexHelper.h``)."""
    found = []
    for folder in folders.generic:
        path = source / folder
        if path.is_dir():
            found += [f"{folder}/{p.name}" for p in path.iterdir()
                      if p.is_file() and (p.suffix == ".h" or p.suffix == ".cpp" and f"{folder}/{p.name}" not in ported)]
    return sorted(found)


def inputs(source: Path, layout: Layout) -> list[Path]:
    """Files outside the ported set whose change changes the model (for the run's digest)."""
    paths = [source / NATIVE_FUNCTIONS, source / TAGS]
    return paths + [source / rel for rel in generic_files(source, set(), layout.operators)]


def inputs_digest(source: Path, layout: Layout) -> str:
    """The stamps (``jsoncache.stamp``) of the files outside the port that the generated files depend on."""
    return stamps_digest((str(path), path) for path in inputs(source, layout))
