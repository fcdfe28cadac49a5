"""Compile translation units to objects, cached by content and flags.

An object is reused when its source, its flags and every header the
compiler read for it (the ``-MD`` dependency list) still have the bytes they
had: a second ``validate --backend`` after a port that changed one header
rebuilds only the objects that include it.  Headers are hashed once per
build, however many objects list them.
"""

from __future__ import annotations

import hashlib
import shlex
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from musaport import children, jsoncache
from musaport.outdir import OBJECTS_INDEX


@dataclass(frozen=True)
class Built:
    """One translation unit's object, or the compiler's first error."""

    source: Path
    obj: Path | None
    error: str = ""
    reused: bool = False


class Hashes:
    """sha256 of files, each read once (the many objects of one build share their headers)."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    def __call__(self, path: str) -> str:
        if path not in self._seen:
            try:
                self._seen[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
            except OSError:
                self._seen[path] = "missing"
        return self._seen[path]


def object_name(source: Path, flags: list[str]) -> str:
    """The object's file name: readable stem, digest of path and flags (two flag sets never collide)."""
    key = hashlib.sha256(("\0".join([str(source), *flags])).encode()).hexdigest()[:16]
    return f"{source.stem}-{key}.o"


def parse_depfile(text: str) -> list[str]:
    """The prerequisites of a make-style ``-MD`` file (``obj: a.h b.h \\`` continued lines)."""
    body = text.replace("\\\n", " ")
    _, _, deps = body.partition(": ")
    return [d for d in shlex.split(deps.replace("\\ ", "\0")) if d] if deps else []


def build_all(compiler: list[str], sources: list[Path], flags_of, objdir: Path, jobs: int) -> list[Built]:
    """Compile ``sources`` (``flags_of(source)`` → its flags) into ``objdir``, reusing what still holds."""
    objdir.mkdir(parents=True, exist_ok=True)
    index_path = objdir / OBJECTS_INDEX
    index = (jsoncache.load(index_path, {"objects": {"*": {"*": str}}}) or {}).get("objects", {})
    hashes = Hashes()
    todo = sorted(sources, key=lambda s: -s.stat().st_size)  # the slowest first
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        built = list(pool.map(lambda s: _one(compiler, s, flags_of(s), objdir, index, hashes), todo))
    for b in built:
        if b.obj is not None:
            index[b.obj.name] = _record(b.obj, hashes)
    jsoncache.dump(index_path, {"objects": index})
    order = {s: i for i, s in enumerate(sources)}
    return sorted(built, key=lambda b: order[b.source])


def _one(compiler: list[str], source: Path, flags: list[str], objdir: Path, index: dict, hashes: Hashes) -> Built:
    obj = objdir / object_name(source, flags)
    entry = index.get(obj.name)
    if obj.is_file() and entry and all(hashes(p) == h for p, h in entry.items()):
        return Built(source, obj, reused=True)
    tmp = obj.with_name(f".{obj.name}.tmp")
    dep = obj.with_suffix(".d")
    done = children.run([*compiler, *flags, "-MD", "-MF", str(dep), "-c", str(source), "-o", str(tmp)],
                        cwd=objdir)
    if done.returncode != 0:
        tmp.unlink(missing_ok=True)
        index.pop(obj.name, None)
        return Built(source, None, first_error(done.stderr))
    tmp.replace(obj)
    return Built(source, obj)


def _record(obj: Path, hashes: Hashes) -> dict[str, str]:
    """Dependency → digest for a fresh object (read from its depfile)."""
    dep = obj.with_suffix(".d")
    try:
        deps = parse_depfile(dep.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return {}
    return {d: hashes(d) for d in deps}


def first_error(stderr: str) -> str:
    """The compiler's first ``error:`` line (the rest usually follows from it)."""
    for line in stderr.splitlines():
        if "error:" in line:
            return line.strip()
    return (stderr.strip().splitlines() or ["the compiler failed without a message"])[0]
