"""Folder trees of any depth: walked, made and removed without recursion.

Python 3.11's ``os.walk``, ``Path.rglob``, ``Path.mkdir(parents=True)``,
``os.makedirs`` and ``shutil.rmtree`` each recurse once per folder level, so
a source tree 1,000 folders deep (legal on every file system) ended a run in
a ``RecursionError``.  Every walk, ``mkdir -p`` and ``rm -rf`` musaport does
on the trees it ports or writes goes through these instead; none of them
follows a symbolic link to a folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator


def walk(root: Path | str) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(root)`` top-down (pruning by editing the yielded folder list works as there), with a
    stack instead of recursion; a folder that cannot be listed is left out, as ``os.walk`` does."""
    pending = [os.fspath(root)]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            continue
        dirs = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
        files = [e.name for e in entries if not e.is_dir(follow_symlinks=False)]
        yield folder, dirs, files
        pending.extend(os.path.join(folder, d) for d in reversed(dirs))


def make_dirs(folder: Path) -> None:
    """``mkdir -p``: the missing folders from the top down."""
    missing = []
    while not folder.is_dir() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for each in reversed(missing):
        each.mkdir(exist_ok=True)


def remove_tree(root: Path) -> None:
    """``rm -rf root``, best effort (errors are ignored, as ``shutil.rmtree(ignore_errors=True)``).

    A symbolic link in place of ``root`` or of any folder below it is
    removed itself, never followed, so nothing outside ``root`` is touched.
    Each step works on names relative to an open folder (climbing back by
    ``..``), so a deep tree costs time linear in its depth and two open files.
    """
    if root.is_symlink() or not root.is_dir():
        _quietly(os.unlink, root)
        return
    try:
        fd = os.open(root, _FOLDER)
    except OSError:
        return
    names: list[str] = []  # the path from root down to the open folder
    stuck: set[tuple[int, int]] = set()  # folders that could not be emptied: not entered again
    while True:
        sub = _empty_but_folders(fd, stuck)
        if sub is not None:
            try:
                child = os.open(sub, _FOLDER, dir_fd=fd)
            except OSError:
                stuck.add(_inode(sub, fd))
                continue
            os.close(fd)
            fd, names = child, names + [sub]
            continue
        if not names:
            os.close(fd)
            _quietly(os.rmdir, root)
            return
        parent = os.open("..", _FOLDER, dir_fd=fd)
        os.close(fd)
        fd, name = parent, names.pop()
        try:
            os.rmdir(name, dir_fd=fd)
        except OSError:
            stuck.add(_inode(name, fd))


_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


def _empty_but_folders(fd: int, stuck: set[tuple[int, int]]) -> str | None:
    """Unlink every file and link in the open folder ``fd``; the name of a subfolder left to empty."""
    with os.scandir(fd) as it:
        entries = list(it)
    sub = None
    for entry in entries:
        if not entry.is_dir(follow_symlinks=False):
            _quietly(lambda name: os.unlink(name, dir_fd=fd), entry.name)
        elif sub is None and _inode(entry.name, fd) not in stuck:
            sub = entry.name
    return sub


def _inode(name: str, fd: int) -> tuple[int, int]:
    try:
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
    except OSError:
        return (-1, -1)
    return st.st_dev, st.st_ino


def _quietly(action, path: Path | str) -> None:
    try:
        action(path)
    except OSError:
        pass
