"""Files `musaport run` generates next to the ported sources.

Called once per run with every file's result; returns tree-relative paths
and their bytes, which the run stages and commits with the ported files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .port import FileResult


@dataclass(frozen=True)
class GenerateOptions:
    """What the user asked to generate (operator selection, one file per source)."""

    ops: tuple[str, ...] = ()
    exclude_ops: tuple[str, ...] = ()
    split: bool = False
    extra: dict = field(default_factory=dict)


def generated_files(source: Path, results: list["FileResult"], options: GenerateOptions) -> dict[str, bytes]:
    """Generated outputs by tree-relative path (none yet: filled in by later features)."""
    return {}
