"""An installed wheel finds its rule packs, templates and fixtures (no checkout)."""

from __future__ import annotations

import pytest
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

# Runs the installed package from `target` first on sys.path, from a folder
# that is not the checkout, so only the wheel's own data can be found.
RUNNER = """
import sys
sys.path.insert(0, sys.argv[1])
import musaport.resources as r
assert r.__file__.startswith(sys.argv[1]), r.__file__
print(r.data_dir("rules"))
from musaport.cli import main
sys.argv = ["musaport", "run", "--out", sys.argv[2], "-q"]
main()
"""


@pytest.mark.slow
def test_wheel_runs_without_the_checkout(tmp_path: Path) -> None:
    dist, target = tmp_path / "dist", tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(dist)],
                   check=True, capture_output=True)
    wheel = next(dist.glob("musaport-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True)
    shown = subprocess.run([sys.executable, "-c", RUNNER, str(target), str(tmp_path / "b")],
                           capture_output=True, text=True, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(str(target / "musaport" / "_data" / "rules"))
    assert (tmp_path / "b/generated_cuda_compatible/aten/src/ATen/native/musa/AbsKernel.mu").is_file()
    assert (tmp_path / "b/porting_report.md").read_text().startswith("# Porting report")
