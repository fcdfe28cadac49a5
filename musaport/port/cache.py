"""The incremental cache: what each source was and what its port became.

Keyed like black's cache: the tool version and the digests of everything
that changes output (rule packs, layout) form one key; per file it keeps
size, mtime and content hash of the source and the hash of the output, plus
the outcome facts the report needs.  A corrupt or foreign cache is an empty
cache, and so is one whose commit was interrupted (see ``COMMIT_MARKER``).
Only successful ports are cached.

Size and mtime are trusted, except for "racy" entries (as git calls them):
a source whose mtime lies within ``RACY_NS`` of the cache write may have been
edited again in the same clock tick without changing size or mtime, so its
content hash decides.  Only files touched just before a run pay for hashing.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from musaport import __version__, jsoncache
from musaport.cpp.structure import Structure
from musaport.errors import LoadError
from musaport.jsonfile import check_shape, parse_json
from musaport.outdir import CACHE_INDEX, CACHE_RESULTS, COMMIT_MARKER, write_atomic
from musaport.port.file import FileResult, FileStatus, Task, failed
from musaport.port.layout import Found, Skipped
from musaport.rewrite.apply import Finding

# The outcomes (findings, unmapped names, structure facts) live beside the index:
# a warm run reads only the index (stats and hashes), a fifth of the bytes.
CACHE_NAME, RESULTS_NAME = CACHE_INDEX, CACHE_RESULTS  # their names are outdir's
RACY_NS = jsoncache.RACY_NS  # a source this close to the cache write is compared by content (jsoncache.racy)


class Entry:
    """One cached file: source and output stat, output path and hashes, outcome.

    The outcome comes from the results file, read only when a run has work
    (``Cache.load_results``): a warm run that finds nothing changed never
    needs it, and decoding it was most of a warm run's cache cost.
    """

    __slots__ = ("size", "mtime_ns", "out_size", "out_mtime_ns", "out", "out_hash", "src_hash", "racy",
                 "_raw", "_result")

    def __init__(self, size: int, mtime_ns: int, out_size: int, out_mtime_ns: int,
                 result: FileResult | None = None, racy: bool = False, out: str = "", out_hash: str = "",
                 src_hash: str = "") -> None:
        self.size, self.mtime_ns, self.out_size, self.out_mtime_ns = size, mtime_ns, out_size, out_mtime_ns
        self._raw: dict | None = None
        self._result, self.racy = result, racy
        self.out = result.out if result is not None else out
        self.out_hash = result.out_hash if result is not None else out_hash
        self.src_hash = result.src_hash if result is not None else src_hash

    @property
    def result(self) -> FileResult:
        if self._result is None:
            if self._raw is None:
                raise RuntimeError("cache entry read before Cache.load_results()")
            self._result = _decode(self._raw)
        return self._result

    def index_json(self) -> dict:
        return {
            "size": self.size,
            "mtime_ns": self.mtime_ns,
            "out_size": self.out_size,
            "out_mtime_ns": self.out_mtime_ns,
            "out": self.out,
            "out_hash": self.out_hash,
            "src_hash": self.src_hash,
        }

    def result_json(self) -> dict:
        if self._result is None and self._raw is None:
            raise RuntimeError("cache entry written before Cache.load_results()")
        return self._raw if self._result is None else _result_json(self._result)  # type: ignore[return-value]


class Cache:
    """The entries plus what the last run reported (to skip re-rendering it).

    ``results``: the results file and the sha256 the index recorded for it.
    """

    def __init__(self, entries: dict[str, Entry], digest: str = "", summary: Any = None,
                 results: tuple[Path, str] | None = None) -> None:
        self.entries, self.digest, self.summary, self.results = entries, digest, summary, results

    def load_results(self) -> bool:
        """Give every entry its outcome from the results file; False when that file is not the one
        the index was written with (then no entry may be reused)."""
        pending = [(src, e) for src, e in self.entries.items() if e._result is None and e._raw is None]
        if not pending:
            return True
        if self.results is None:
            return False
        path, sha = self.results
        try:
            data = path.read_bytes()
            if hashlib.sha256(data).hexdigest() != sha:
                return False
            results = parse_json(data, path, {"key": str, "results": {"*": {"*": object}}})["results"]
            for src, e in pending:
                e._raw = results[src]
        except (OSError, LoadError, KeyError):
            return False
        return True


def fits(value: Any, shape: Any) -> bool:
    """True when ``value`` has ``shape`` (``jsonfile.check_shape``)."""
    try:
        check_shape(value, Path(CACHE_INDEX), shape)
    except LoadError:
        return False
    return True


def cache_key(*digests: str) -> str:
    """The key: tool version and code, plus the digest of every output-affecting input.

    The code digest covers every module of the package (all subpackages), so an
    editable install whose porting logic changes under a fixed version still
    re-ports.
    """
    h = hashlib.sha256(__version__.encode())
    for source in package_files():
        h.update(source.relative_to(_PACKAGE).as_posix().encode() + b"\0" + source.read_bytes())
    for d in digests:
        h.update(b"\0" + d.encode())
    return h.hexdigest()


_PACKAGE = Path(__file__).resolve().parent.parent


def package_files() -> list[Path]:
    """The package's modules, which the cache key covers."""
    return sorted(_PACKAGE.rglob("*.py"))


# The index as :func:`dump` writes it (``jsonfile`` shapes): anything else reads as no cache.
SUMMARY_SHAPE = {"counts": {**{k: int for k in ("total", "ported", "unchanged", "copied", "failed", "skipped")},
                            "*": int}, "unmapped_names": int, "unmapped_top": [[(str, int)]], "findings": int,
                 "warnings": int, "problems": [str], "*": object}
INDEX_SHAPE = {"key": str, "digest": str, "summary": ({"*": object}, type(None)), "results_sha256": str,
               "written_ns": int,
               "files": {"*": {"size": int, "mtime_ns": int, "out_size": int, "out_mtime_ns": int, "out": str,
                               "out_hash": str, "src_hash": str}}}


def load(path: Path, key: str) -> Cache:
    """The cache written with the same key (its index; the outcomes wait for ``load_results``);
    a missing, corrupt or foreign one is empty.

    So is the cache of a run killed while moving files into place (its commit
    marker is still there): the tree may mix old and new outputs, so every
    file is ported again and compared with what is there.
    """
    if path.with_name(COMMIT_MARKER).exists():
        return Cache({})
    raw = jsoncache.load(path, INDEX_SHAPE, key=key)
    if not raw:
        return Cache({})
    try:
        written = raw.get("written_ns", 0)
        entries = {
            src: Entry(e["size"], e["mtime_ns"], e["out_size"], e["out_mtime_ns"],
                       racy=jsoncache.racy(e["mtime_ns"], written), out=e["out"], out_hash=e["out_hash"],
                       src_hash=e["src_hash"])
            for src, e in raw["files"].items()
        }
        return Cache(entries, raw.get("digest", ""), raw.get("summary"),
                     (path.with_name(RESULTS_NAME), raw["results_sha256"]))
    except (KeyError, TypeError, AttributeError):
        return Cache({})


def _decode(r: dict) -> FileResult:
    return FileResult(
        src=r["src"],
        out=r["out"],
        status=FileStatus(r["status"]),
        src_hash=r["src_hash"],
        out_hash=r["out_hash"],
        fired=dict(r["fired"]),
        findings=tuple(Finding(**f) for f in r["findings"]),
        unmapped=tuple((n, ln) for n, ln in r["unmapped"]),
        warnings=tuple(r["warnings"]),
        structure=Structure.from_json(r["structure"]),
        kept=tuple((n, ln) for n, ln in r.get("kept", ())),
        declared=tuple(r.get("declared", ())),
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
        "kept": r.kept,
        "declared": r.declared,
    }


def dump(path: Path, key: str, cache: Cache) -> None:
    """Write the results file, then the index that names its sha256, each atomically; the index is
    stamped with the time of writing (racy entries are judged by it).

    A run killed between the two leaves an index whose results file does not
    match: ``load_results`` then refuses it and everything is ported again.
    """
    srcs = sorted(cache.entries)
    results = json.dumps({"key": key, "results": {src: cache.entries[src].result_json() for src in srcs}},
                         sort_keys=True).encode()
    write_atomic(path.with_name(RESULTS_NAME), results)
    files = {src: cache.entries[src].index_json() for src in srcs}
    jsoncache.dump(path, {"key": key, "digest": cache.digest, "summary": cache.summary, "files": files,
                          "results_sha256": hashlib.sha256(results).hexdigest(), "written_ns": time.time_ns()})


@dataclass
class Plan:
    """What the run will do with each discovered file: reuse its cached port, or port it.

    ``collisions``: files that failed before porting (two sources for one
    output, a folder that could not be read).
    """

    reused: dict[str, Entry] = field(default_factory=dict)
    tasks: list[Task] = field(default_factory=list)
    collisions: list[FileResult] = field(default_factory=list)


def plan(found: list[Found], entries: dict[str, Entry], source: Path, tree: Path) -> Plan:
    """Reuse cached results whose source and output are as they were; port the rest.

    One ``stat`` per file: of its output (discovery took the source's).
    """
    result = Plan()
    owners: dict[str, str] = {}
    src_root, out_root = str(source), str(tree)
    for f in found:
        if f.error:
            result.collisions.append(failed(f.rel, f.out, f.error))
            continue
        if f.out in owners:
            result.collisions.append(failed(f.rel, f.out, f"output {f.out} collides with the port of {owners[f.out]}"))
            continue
        owners[f.out] = f.rel
        entry = entries.get(f.rel)
        if entry and entry.out == f.out and _unchanged(entry, f, f"{src_root}/{f.rel}", f"{out_root}/{f.out}"):
            result.reused[f.rel] = entry
        else:
            result.tasks.append(Task(source / f.rel, f.rel, f.out, f.copy_only, f.values))
    return result


def _unchanged(entry: Entry, found: Found, src: str, out: str) -> bool:
    """Size and mtime of source and output match the cache; a racy entry's source
    must also hash the same.  Discovery's stat of the source is used when it took one."""
    try:
        if found.size >= 0:
            size, mtime = found.size, found.mtime_ns
        else:
            s = os.stat(src)
            size, mtime = s.st_size, s.st_mtime_ns
        o = os.stat(out)
        if (size, mtime, o.st_size, o.st_mtime_ns) != (entry.size, entry.mtime_ns, entry.out_size,
                                                       entry.out_mtime_ns):
            return False
        if not entry.racy:
            return True
        with open(src, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest() == entry.src_hash
    except OSError:
        return False


def entry(result: FileResult, src: Path, out: Path) -> Entry:
    """The cache entry of a file ported this run (stat taken after the commit)."""
    s, o = src.stat(), out.stat()
    return Entry(s.st_size, s.st_mtime_ns, o.st_size, o.st_mtime_ns, result=replace(result, data=None, observed=None))


def run_digest(key: str, inputs: str, entries: dict[str, Entry], skipped: list[Skipped]) -> str:
    """Everything the reports and generated files depend on, in one hash.

    ``inputs`` stands for what lies outside the ported files (the source path,
    the generation step's options and inputs).
    """
    h = hashlib.sha256(f"{key}\0{inputs}".encode())
    for src in sorted(entries):
        h.update(f"\0{src}\0{entries[src].out_hash}".encode())
    for s in skipped:
        h.update(f"\0{s.rel}\0{s.reason}".encode())
    return h.hexdigest()


def nothing_changed(cached: Cache, work: Plan, digest: str, reports: tuple[Path, ...]) -> bool:
    """True when every file was reused and the last reports still describe this run (and its summary, which
    the warm run prints, is one)."""
    return (
        bool(cached.summary)
        and fits(cached.summary, SUMMARY_SHAPE)
        and not work.tasks
        and not work.collisions
        and len(cached.entries) == len(work.reused)
        and cached.digest == digest
        and all(p.is_file() for p in reports)
    )
