"""Where the suite keeps what it unpacks: the tool's own user cache, so one variable moves both."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _suite_cache(**env: str) -> str:
    """conftest's CACHE as a fresh interpreter computes it under ``env`` (the import is what decides)."""
    base = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "MUSAPORT_PYTORCH_CACHE")}
    code = "import sys; sys.path.insert(0, 'tests'); import conftest; print(conftest.CACHE)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**base, **env}, capture_output=True,
                          text=True, check=True)
    return done.stdout.strip()


def test_the_unpacked_pytorch_trees_follow_xdg_cache_home(tmp_path: Path) -> None:
    """A CI job or a newcomer that points XDG_CACHE_HOME at a clean folder gets the trees there too,
    beside the torch environment, not in a ~/.cache that the job meant to leave alone."""
    assert _suite_cache(XDG_CACHE_HOME=str(tmp_path)) == str(tmp_path / "musaport" / "pytorch")


def test_musaport_pytorch_cache_still_wins(tmp_path: Path) -> None:
    assert _suite_cache(XDG_CACHE_HOME=str(tmp_path), MUSAPORT_PYTORCH_CACHE=str(tmp_path / "trees")) == \
        str(tmp_path / "trees")
