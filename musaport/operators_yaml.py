"""Operator schemas straight from native_functions.yaml (no torchgen needed).

``musaport check`` compares schemas across two PyTorch versions: a changed
signature breaks the backend's registrations even when every kernel still
ports.  Plain YAML is enough for that comparison, and keeps the line numbers
that let a finding point at the schema.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .yamlload import load_yaml

NATIVE_FUNCTIONS = "aten/src/ATen/native/native_functions.yaml"


@dataclass(frozen=True)
class OperatorSchema:
    """One operator overload with a CUDA kernel: its full name, schema and line."""

    name: str
    schema: str
    line: int
    kernel: str


def cuda_operators(tree: Path) -> dict[str, OperatorSchema]:
    """Operators whose ``dispatch`` names a CUDA kernel, by ``name.overload``."""
    path = tree / NATIVE_FUNCTIONS
    if not path.is_file():
        return {}
    found = {}
    for entry in load_yaml(path) or []:
        kernel = cuda_kernel(entry.get("dispatch") or {})
        if kernel is None:
            continue
        schema = " ".join(str(entry["func"]).split())
        name = schema.split("(", 1)[0]
        found[name] = OperatorSchema(name, schema, entry.get("__line__", 0), kernel)
    return found


def cuda_kernel(dispatch: dict) -> str | None:
    """The kernel a dispatch table names for the CUDA key, if any."""
    for keys, kernel in dispatch.items():
        if keys != "__line__" and "CUDA" in (k.strip() for k in str(keys).split(",")):
            return str(kernel)
    return None
