"""The caches' two shared rules: load-or-empty with atomic dump, and "has this file changed".

The caches under ``--out/.musaport`` (the port's per-file cache, the config
snapshot, the torchgen records, the operator scan, validate's results) are
each only an optimisation: a missing, corrupt or foreign file must read as
"no cache", never as an error, and a write must never leave half a file.

Whether a file changed is judged one way for all of them (:func:`stamp`, as
black's ``is_changed``): by size and mtime, except for a file modified within
``RACY_NS`` of the moment its stamp is taken ("racy", as git calls it): it
may be edited again in the same clock tick without changing either, so its
stamp also carries its content hash.  Only files touched just before a run
pay for hashing.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any, Iterable

from musaport.jsonfile import load_json
from musaport.outdir import write_atomic


def load(path: Path, shape: Any = None, **expected: Any) -> dict[str, Any] | None:
    """The JSON object at ``path`` when it parses, fits ``shape`` (``jsonfile``; default: any object) and
    holds every ``expected`` key with that value; None for anything else (missing, truncated, too deep)."""
    data = load_json(path, {"*": object} if shape is None else shape)
    if not isinstance(data, dict) or any(data.get(k) != v for k, v in expected.items()):
        return None
    return data


# A file whose mtime is this close to the moment its stamp is taken is compared by content too.
RACY_NS = 2_000_000_000


def racy(mtime_ns: int, taken_ns: int) -> bool:
    """True when a file of this mtime, stamped at ``taken_ns``, may still change unseen."""
    return taken_ns > 0 and mtime_ns + RACY_NS > taken_ns


def stamp(path: Path | str) -> tuple[int, int, str] | None:
    """Size, mtime and, for a racy file, its sha256 (else ``""``); None when the file cannot be read.

    Two stamps are equal only when the file is unchanged; a racy stamp
    differs from a later calm one, so the file counts as changed once more
    (a safe miss) instead of a change going unseen.
    """
    try:
        st = os.stat(path)
        if not racy(st.st_mtime_ns, time.time_ns()):
            return st.st_size, st.st_mtime_ns, ""
        with open(path, "rb") as f:
            return st.st_size, st.st_mtime_ns, hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def stamps_digest(files: Iterable[tuple[str, Path]]) -> str:
    """One digest of ``(label, path)`` pairs and each file's stamp (a missing file is left out)."""
    h = hashlib.sha256()
    for label, path in files:
        s = stamp(path)
        if s is not None:
            h.update(f"{label}\0{s[0]}\0{s[1]}\0{s[2]}\0".encode())
    return h.hexdigest()


def dump(path: Path, doc: dict[str, Any]) -> bool:
    """Write ``doc`` (keys sorted, so equal content gives equal bytes); True when the file changed."""
    return write_atomic(path, json.dumps(doc, sort_keys=True).encode())
