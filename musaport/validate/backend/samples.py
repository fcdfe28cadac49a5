"""The operators ``validate --backend`` runs, read from ``rules/backend/ops.yaml``.

Each sample is one C++ expression over inputs ``a`` (and ``b``), evaluated by
the driver on CPU tensors and on PrivateUse1 tensors; it names the operator
model's operators it needs registered.  Parsed into frozen values that
remember ``file:line``, so a bad entry is reported where it is written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from musaport.errors import LoadError
from musaport.resources import data_dir
from musaport.yamlload import Fields, load_yaml

DTYPES = {"float": "at::kFloat", "double": "at::kDouble", "int": "at::kInt", "long": "at::kLong",
          "half": "at::kHalf", "bfloat16": "at::kBFloat16", "bool": "at::kBool"}
DEFAULT_DTYPES = ("float", "double", "int", "long")
_NAME = re.compile(r"^[A-Za-z_]\w*$")


@dataclass(frozen=True)
class Sample:
    """One operator as the driver calls it."""

    name: str
    call: str
    inputs: int
    dtypes: tuple[str, ...]
    register: tuple[str, ...] | None  # None: every overload of ``name``
    why: str
    where: str


@dataclass(frozen=True)
class Catalog:
    """The base registrations every build needs, and the samples by name."""

    base: tuple[str, ...]
    samples: dict[str, Sample]
    where: str
    runtime: tuple[str, ...] = ()  # ported sources that only register themselves (nothing references them)

    def select(self, names: tuple[str, ...]) -> list[Sample]:
        """The samples ``--samples`` names (all without), in catalog order; an unknown one is an error."""
        unknown = [n for n in names if n not in self.samples]
        if unknown:
            raise LoadError(f"{self.where}: no sample for {', '.join(unknown)}; "
                            f"known: {', '.join(self.samples)}")
        return [s for n, s in self.samples.items() if not names or n in names]


def catalog_file() -> Path:
    return data_dir("rules") / "backend" / "ops.yaml"


def load_catalog(path: Path | None = None) -> Catalog:
    """Parse the catalog; every error names the file and line."""
    path = path or catalog_file()
    f = Fields(load_yaml(path), f"{path}:1", "backend catalog")
    base = tuple(str(b) for b in f.pop("base", [], kind=list))
    runtime = tuple(str(r) for r in f.pop("runtime", [], kind=list))
    samples = [_sample(entry, path) for entry in f.pop("ops", kind=list)]
    f.pop("why", "", kind=str)
    f.done()
    by_name: dict[str, Sample] = {}
    for s in samples:
        if s.name in by_name:
            raise LoadError(f"{s.where}: sample {s.name!r} is already declared at {by_name[s.name].where}")
        by_name[s.name] = s
    return Catalog(base, by_name, str(path), runtime)


def _sample(entry: object, path: Path) -> Sample:
    line = entry.get("__line__", 0) if isinstance(entry, dict) else 0
    where = f"{path}:{line}"
    f = Fields(entry, where, "sample")
    name = f.pop("name", kind=str)
    if not _NAME.match(name):
        raise LoadError(f"{where}: sample name {name!r} is not an identifier")
    inputs = f.pop("inputs", 1, kind=int)
    if inputs not in (1, 2):
        raise LoadError(f"{where}: 'inputs' must be 1 or 2")
    dtypes = tuple(f.pop("dtypes", list(DEFAULT_DTYPES), kind=list))
    bad = [d for d in dtypes if d not in DTYPES]
    if bad:
        raise LoadError(f"{where}: unknown dtype(s) {', '.join(map(str, bad))}; known: {', '.join(DTYPES)}")
    register = f.pop("register", None, kind=(list, type(None)))
    sample = Sample(name, f.pop("call", kind=str), inputs, dtypes,
                    tuple(map(str, register)) if register is not None else None, f.pop("why", "", kind=str), where)
    f.done()
    return sample
