"""Writing the output tree so that it is never half-written.

New and changed files are first written to a staging folder inside
``--out``; only when every file has been ported does :func:`commit` move them
into place with renames, delete outputs whose source is gone, and only then
write the cache.  An interrupted run leaves the previous tree as it was (its
staging folder is swept by the next run).  Files whose content is unchanged
are not touched, so their mtimes stay and a build recompiles nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

from musaport import jsoncache
from musaport.errors import LoadError
from musaport.fstree import make_dirs, remove_tree
from musaport.outdir import OUTPUTS_MANIFEST, STAGING_PREFIX, OutDir


class Stage:
    """A staging folder for one run's new files."""

    def __init__(self, out: OutDir) -> None:
        self.dir = out
        self.out = out.tree
        self.state = out.state
        self.root = out.staging(os.getpid())
        self.files: dict[str, Path] = {}
        self.removals: set[str] = set()

    def sweep(self) -> None:
        """Remove staging folders left by interrupted runs."""
        if self.state.is_dir():
            for old in self.state.glob(f"{STAGING_PREFIX}*"):
                remove_tree(old)

    def put(self, rel: str, data: bytes) -> None:
        """Stage ``data`` to land at ``out/rel``; a second put for ``rel`` is a bug."""
        if rel in self.files:
            raise ValueError(f"two outputs for {rel}")
        path = self.root / rel
        make_dirs(path.parent)
        path.write_bytes(data)
        self.files[rel] = path

    def adopt(self, rel: str) -> None:
        """Take a file a worker already wrote to ``root/rel``."""
        if rel in self.files:
            raise ValueError(f"two outputs for {rel}")
        self.files[rel] = self.root / rel

    def remove(self, rel: str) -> None:
        self.removals.add(rel)

    def refuse_escapes(self) -> None:
        """A LoadError, with nothing changed, when an output would land outside ``--out``.

        Discovery keeps output paths relative and free of ``..``; what is left
        is a symbolic link on the way (the tree itself, or a folder in it),
        which a rename follows: every folder a rename or removal goes to passes
        ``OutDir.guard``.
        """
        folders = {rel.rpartition("/")[0] for rel in set(self.files) | self.removals}
        for folder in sorted(folders):
            try:
                self.dir.guard(self.out / folder if folder else self.out)
            except LoadError:
                self.discard()
                raise

    def recorded_outputs(self) -> set[str] | None:
        """The tree paths the tool wrote, as last recorded (None: no record)."""
        doc = jsoncache.load(self.dir.state_file(OUTPUTS_MANIFEST))
        outputs = doc.get("outputs") if doc else None
        return set(outputs) if isinstance(outputs, list) else None

    def record_outputs(self, outputs: set[str]) -> None:
        """Remember which tree paths are the tool's, so only those are ever removed."""
        jsoncache.dump(self.dir.state_file(OUTPUTS_MANIFEST), {"outputs": sorted(outputs)})

    def commit(self) -> None:
        """Move staged files into place (each an atomic rename) and delete removals.

        A staged folder whose place in the tree does not exist yet (all of it,
        in a cold run) holds only staged files, so it moves with one rename
        instead of one per file, and the staging folder is left with nothing
        to remove file by file.
        """
        missing = _Missing(self.out)
        moved: list[str] = []  # folders moved in whole: their files are in place
        for rel in sorted(self.files):
            if any(not folder or rel.startswith(folder + "/") for folder in moved):
                continue
            folder = missing.topmost(rel)
            if folder is None:
                dest = self.out / rel
                make_dirs(dest.parent)
                os.replace(self.files[rel], dest)
            else:
                dest = self.out / folder if folder else self.out
                make_dirs(dest.parent)
                os.rename(self.root / folder if folder else self.root, dest)
                moved.append(folder)
        for rel in sorted(self.removals - set(self.files)):
            path = self.out / rel
            if path.is_file() or path.is_symlink():
                path.unlink()
                _prune_empty(path.parent, self.out)
        self.discard()

    def discard(self) -> None:
        remove_tree(self.root)


class _Missing:
    """Which folders of the output tree do not exist yet, asked once each."""

    def __init__(self, tree: Path) -> None:
        self.tree = tree
        self.known: dict[str, bool] = {}

    def exists(self, folder: str) -> bool:
        if folder not in self.known:
            self.known[folder] = (self.tree / folder if folder else self.tree).is_dir()
        return self.known[folder]

    def topmost(self, rel: str) -> str | None:
        """The outermost folder of ``rel`` (``""``: the tree itself) that is not there yet, or None."""
        parts = rel.split("/")[:-1]
        for depth in range(len(parts) + 1):
            folder = "/".join(parts[:depth])
            if not self.exists(folder):
                return folder
        return None


def _prune_empty(folder: Path, stop: Path) -> None:
    """Remove folders emptied by deletions, up to (not including) ``stop``."""
    while folder != stop and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
