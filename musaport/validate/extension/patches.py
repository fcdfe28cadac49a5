"""Hand edits laid over an extension's port for its build and tests: ``validate --extension --patch FILE``.

Some findings ask for a decision no rule can make (``setup-nvcc-program``: a
``setup.py`` that parses nvcc's version output; a flag with no MUSA
equivalent). A backend team makes those edits by hand and keeps them as
patches beside its CI, to apply again after every port. Here each patch is a
unified diff against the port (paths as in ``OUT/generated_cuda_compatible``,
with or without git's ``a/`` and ``b/``), applied in the order given to the
files the build tree is made from, so the build and the tests see port plus
edits while the port and the project stay as they are.

``git apply`` applies them: it reads the format ``git diff`` and ``diff -u``
write, needs exact context (no fuzz: an edit that no longer fits the port
fails instead of landing elsewhere), and names the file and line of a hunk
that does not apply. It runs in a scratch folder under ``OUT/.musaport``,
never inside a repository (``GIT_CEILING_DIRECTORIES``), on copies of the
files the patches name.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from musaport.errors import LoadError


@dataclass(frozen=True)
class Applied:
    """One patch as the report gives it: the file, and the tree paths it changed."""

    patch: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class Patched:
    """The bytes of every file the patches touched (tree-relative path → content after all of them)."""

    files: dict[str, bytes] = field(default_factory=dict)
    applied: tuple[Applied, ...] = ()


def apply_patches(patches: tuple[Path, ...], current: Callable[[str], bytes | None], work: Path) -> Patched:
    """Apply ``patches`` in order to the files ``current`` gives (None: not in the tree; a patch may create
    it); ``work`` is a scratch folder, emptied first. A patch that cannot be read, names a path outside the
    tree or does not apply raises :class:`LoadError` with one line naming it."""
    if not patches:
        return Patched()
    git = shutil.which("git")
    if git is None:
        raise LoadError(f"{patches[0]}: applying a patch needs git (git apply), which is not on PATH")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    files: dict[str, bytes] = {}
    applied = []
    for patch in patches:
        paths = _paths(git, patch, work)
        for rel in paths:
            if rel in files:
                continue
            data = current(rel)
            if data is not None:
                files[rel] = data
                _write(work / rel, data)
        _git(git, ["apply", "--whitespace=nowarn", str(patch)], work, patch, "does not apply")
        for rel in paths:
            path = work / rel
            if path.is_file():
                files[rel] = path.read_bytes()
            else:
                files.pop(rel, None)  # deleted by the patch: not in the build tree
        applied.append(Applied(str(patch), tuple(paths)))
    return Patched(files, tuple(applied))


def deleted_by(patched: Patched) -> set[str]:
    """Paths a patch removed: the build tree leaves them out."""
    return {rel for a in patched.applied for rel in a.files if rel not in patched.files}


def _paths(git: str, patch: Path, work: Path) -> list[str]:
    """The tree paths ``patch`` changes, from ``git apply --numstat`` (which also checks it parses)."""
    if not patch.is_file():
        raise LoadError(f"{patch}: no such patch file")
    text = patch.read_bytes()
    if not any(line.startswith((b"--- ", b"diff ")) for line in text.splitlines()):
        raise LoadError(f"{patch}: holds no diff (a unified diff against the port, as git diff writes it)")
    text = _git(git, ["apply", "--numstat", str(patch)], work, patch, "is not a patch git can read")
    paths = []
    for line in text.splitlines():
        parts = line.split("\t", 2)
        if len(parts) != 3:
            continue
        rel = _renamed_target(parts[2])
        if rel.startswith("/") or ".." in Path(rel).parts:
            raise LoadError(f"{patch}: names {rel}, outside the ported tree")
        paths.append(rel)
    if not paths:
        raise LoadError(f"{patch}: changes no file")  # only mode changes or empty hunks
    return sorted(set(paths))


def _renamed_target(text: str) -> str:
    """numstat spells a rename ``old => new`` or ``dir/{old => new}/f``: the path after the patch."""
    if " => " not in text:
        return text
    if "{" in text and "}" in text:
        head, _, rest = text.partition("{")
        inner, _, tail = rest.partition("}")
        return (head + inner.split(" => ", 1)[1] + tail).replace("//", "/")
    return text.split(" => ", 1)[1]


def _git(git: str, args: list[str], work: Path, patch: Path, what: str) -> str:
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=str(work.parent), LC_ALL="C")
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    done = subprocess.run([git, *args], cwd=work, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        lines = [ln.strip() for ln in (done.stderr or done.stdout).splitlines() if ln.strip()]
        first = next((ln for ln in lines if ln.startswith("error:")), lines[0] if lines else "")
        raise LoadError(f"{patch}: {what}: {first.removeprefix('error: ')}")
    return done.stdout


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
