"""Load-or-empty and atomic dump for the tool's JSON caches.

Four caches live under ``--out/.musaport`` (the port's per-file cache, the
torchgen records, the operator scan, validate's results).  Each is only an
optimisation: a missing, corrupt or foreign file must read as "no cache",
never as an error, and a write must never leave half a file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from musaport.outdir import write_atomic


def load(path: Path, **expected: Any) -> dict[str, Any] | None:
    """The JSON object at ``path`` when it parses and holds every ``expected`` key with that value."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or any(data.get(k) != v for k, v in expected.items()):
        return None
    return data


def dump(path: Path, doc: dict[str, Any]) -> bool:
    """Write ``doc`` (keys sorted, so equal content gives equal bytes); True when the file changed."""
    return write_atomic(path, json.dumps(doc, sort_keys=True).encode())
