"""The incremental cache: what each source was and what its port became.

Keyed like black's cache: the tool version and the digests of everything
that changes output (rule packs, layout) form one key; per file it keeps
size, mtime and content hash of the source and the hash of the output, plus
the outcome facts the report needs.  A corrupt or foreign cache is an empty
cache.  Only successful ports are cached.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from . import __version__
from .port import FileResult
from .rewrite import Finding
from .structure import Structure
from .writer import write_atomic

CACHE_NAME = "cache.json"


@dataclass(frozen=True)
class Entry:
    """One cached file: source stat and hash, output path and hash, outcome."""

    size: int
    mtime_ns: int
    out_size: int
    out_mtime_ns: int
    result: FileResult


def cache_key(*digests: str) -> str:
    """The key: tool version and code, plus the digest of every output-affecting input.

    The code digest matters for editable installs, where the version stays put
    while the porting logic changes under it.
    """
    h = hashlib.sha256(__version__.encode())
    for source in sorted(Path(__file__).parent.glob("*.py")):
        h.update(source.read_bytes())
    for d in digests:
        h.update(b"\0" + d.encode())
    return h.hexdigest()


def load(folder: Path, key: str) -> dict[str, Entry]:
    """Entries of a cache written with the same key; anything else is empty."""
    try:
        raw = json.loads((folder / CACHE_NAME).read_text(encoding="utf-8"))
        if raw.get("key") != key:
            return {}
        return {src: _entry(e) for src, e in raw["files"].items()}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _entry(e: dict) -> Entry:
    r = e["result"]
    result = FileResult(
        src=r["src"],
        out=r["out"],
        status=r["status"],
        src_hash=r["src_hash"],
        out_hash=r["out_hash"],
        fired=dict(r["fired"]),
        findings=tuple(Finding(**f) for f in r["findings"]),
        unmapped=tuple((n, ln) for n, ln in r["unmapped"]),
        warnings=tuple(r["warnings"]),
        structure=Structure.from_json(r["structure"]),
    )
    return Entry(e["size"], e["mtime_ns"], e["out_size"], e["out_mtime_ns"], result)


def _result_json(r: FileResult) -> dict:
    """A FileResult as JSON-ready data (hand-written: dataclasses.asdict is slow)."""
    return {
        "src": r.src,
        "out": r.out,
        "status": r.status,
        "src_hash": r.src_hash,
        "out_hash": r.out_hash,
        "fired": r.fired,
        "findings": [{"rule": f.rule, "line": f.line, "text": f.text, "message": f.message} for f in r.findings],
        "unmapped": r.unmapped,
        "warnings": r.warnings,
        "structure": r.structure.to_json(),
    }


def dump(folder: Path, key: str, entries: dict[str, Entry]) -> None:
    """Write the cache atomically, and not at all when nothing in it changed."""
    files = {}
    for src in sorted(entries):
        e = entries[src]
        r = _result_json(e.result)
        files[src] = {
            "size": e.size,
            "mtime_ns": e.mtime_ns,
            "out_size": e.out_size,
            "out_mtime_ns": e.out_mtime_ns,
            "result": r,
        }
    write_atomic(folder / CACHE_NAME, json.dumps({"key": key, "files": files}, sort_keys=True).encode())
