"""The shared harness for bad-input, hostile-tree and killed-run tests.

Each such test runs the installed command line as a user would, then asks
the same questions: did it fail with one clear line and the documented exit
code, no traceback; is the source tree as it was; is the previous output
intact; did anything appear outside ``--out``?
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from conftest import musaport  # noqa: F401 - re-exported: tests import the harness only


def error_lines(result: subprocess.CompletedProcess[str]) -> list[str]:
    """The non-empty lines the command wrote to stderr."""
    return [ln for ln in result.stderr.splitlines() if ln.strip()]


def assert_one_clear_line(result: subprocess.CompletedProcess[str], code: int, *needles: str) -> str:
    """Exit ``code``, no traceback, and one ``musaport: error:`` line naming every needle."""
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    errors = [ln for ln in error_lines(result) if ln.startswith("musaport: error:")]
    assert len(errors) == 1, result.stderr
    for needle in needles:
        assert needle in errors[0], (needle, errors[0])
    return errors[0]


def fingerprint(root: Path) -> dict[str, tuple[int, int, str]]:
    """Size, mtime and content hash of every file below ``root`` (symlinks not followed)."""
    found = {}
    for folder, dirs, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            if path.is_symlink():
                found[path.relative_to(root).as_posix()] = (0, 0, os.readlink(path))
                continue
            st = path.stat()
            found[path.relative_to(root).as_posix()] = (st.st_size, st.st_mtime_ns,
                                                        hashlib.sha256(path.read_bytes()).hexdigest())
    return found


def stat_fingerprint(root: Path) -> dict[str, tuple[int, int]]:
    """Size and mtime of every file and folder below ``root``: cheap enough for a whole PyTorch tree."""
    found = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            st = path.lstat()
            found[path.relative_to(root).as_posix()] = (st.st_size, st.st_mtime_ns if name in files else 0)
    return found


def new_files(before: dict[str, object], after: dict[str, object]) -> list[str]:
    """Paths in ``after`` that ``before`` did not have."""
    return sorted(set(after) - set(before))
