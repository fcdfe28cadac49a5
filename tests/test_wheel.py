"""An installed wheel finds its rule packs, templates and fixtures (no checkout)."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

from conftest import ROOT


def test_wheel_runs_without_the_checkout(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(tmp_path / "dist")],
                   check=True, capture_output=True)
    wheel = next((tmp_path / "dist").glob("musaport-*.whl"))
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(wheel)],
                   check=True, capture_output=True)
    # run from an empty folder with the checkout out of sys.path
    script = (
        "import sys, musaport.resources as r;"
        f"assert not r.__file__.startswith({str(ROOT)!r}), r.__file__;"
        "print(r.data_dir('rules'), r.data_dir('templates'))"
    )
    shown = subprocess.run([python, "-I", "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "_data/rules" in shown.stdout
    ported = subprocess.run([python, "-I", "-m", "musaport", "run", "--out", str(tmp_path / "b"), "-q"],
                            capture_output=True, text=True, cwd=tmp_path)
    assert ported.returncode == 0, ported.stderr
    assert (tmp_path / "b/generated_cuda_compatible/aten/src/ATen/native/musa/AbsKernel.mu").is_file()
    assert (tmp_path / "b/porting_report.md").read_text().startswith("# Porting report")
