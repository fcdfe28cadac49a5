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
from pathlib import Path

from typing import TYPE_CHECKING, Any

from . import __version__
from .writer import write_atomic

if TYPE_CHECKING:
    from .port import FileResult

CACHE_NAME = "cache.json"


class Entry:
    """One cached file: source and output stat, output path and hash, outcome.

    The outcome is decoded from JSON only when asked for: a warm run that
    finds nothing changed never needs it, and decoding is most of its cost.
    """

    __slots__ = ("size", "mtime_ns", "out_size", "out_mtime_ns", "out", "out_hash", "_raw", "_result")

    def __init__(self, size: int, mtime_ns: int, out_size: int, out_mtime_ns: int,
                 raw: dict | None = None, result: "FileResult | None" = None) -> None:
        self.size, self.mtime_ns, self.out_size, self.out_mtime_ns = size, mtime_ns, out_size, out_mtime_ns
        self._raw, self._result = raw, result
        source = result if result is not None else None
        self.out = source.out if source is not None else raw["out"]  # type: ignore[index]
        self.out_hash = source.out_hash if source is not None else raw["out_hash"]  # type: ignore[index]

    @property
    def result(self) -> "FileResult":
        if self._result is None:
            self._result = _decode(self._raw or {})
        return self._result

    def to_json(self) -> dict:
        return {
            "size": self.size,
            "mtime_ns": self.mtime_ns,
            "out_size": self.out_size,
            "out_mtime_ns": self.out_mtime_ns,
            "result": self._raw if self._result is None else _result_json(self._result),
        }


class Cache:
    """The entries plus what the last run reported (to skip re-rendering it)."""

    def __init__(self, entries: dict[str, Entry], digest: str = "", summary: Any = None) -> None:
        self.entries, self.digest, self.summary = entries, digest, summary


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


def load(folder: Path, key: str) -> Cache:
    """The cache written with the same key; a missing, corrupt or foreign one is empty."""
    try:
        raw = json.loads((folder / CACHE_NAME).read_text(encoding="utf-8"))
        if raw.get("key") != key:
            return Cache({})
        entries = {
            src: Entry(e["size"], e["mtime_ns"], e["out_size"], e["out_mtime_ns"], raw=e["result"])
            for src, e in raw["files"].items()
        }
        return Cache(entries, raw.get("digest", ""), raw.get("summary"))
    except (OSError, ValueError, KeyError, TypeError):
        return Cache({})


def _decode(r: dict) -> "FileResult":
    from .port import FileResult
    from .rewrite import Finding
    from .structure import Structure

    return FileResult(
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


def dump(folder: Path, key: str, cache: Cache) -> None:
    """Write the cache atomically, and not at all when nothing in it changed."""
    files = {src: cache.entries[src].to_json() for src in sorted(cache.entries)}
    data = {"key": key, "digest": cache.digest, "summary": cache.summary, "files": files}
    write_atomic(folder / CACHE_NAME, json.dumps(data, sort_keys=True).encode())
