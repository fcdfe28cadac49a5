"""The release's torch environment in the user cache: made once, atomically; pip failing is one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from musaport.validate.torchwheel import libtorch as lt
from musaport.validate.torchwheel import torchenv


def _offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """pip with nothing to install from: it fails at once, as it does without a network."""
    empty = tmp_path / "no-wheels"
    empty.mkdir()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(empty))
    monkeypatch.delenv("PIP_EXTRA_INDEX_URL", raising=False)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)


def test_a_failed_pip_leaves_no_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _offline(monkeypatch, tmp_path)
    cache = tmp_path / "cache"
    stale = cache / "torch" / ".2.6.0.interrupted"
    stale.mkdir(parents=True)  # what a killed fetch leaves
    with pytest.raises(torchenv.FetchError, match=r"^pip install torch==2\.6\.0 failed \(exit \d+\): .*torch==2\.6\.0"):
        torchenv.fetch("2.6.0", cache, log=lambda m: None)
    assert list((cache / "torch").iterdir()) == []  # neither the new staging folder nor the stale one
    assert torchenv.cached("2.6.0", cache) is None and lt.cached("2.6.0", cache) is None


@pytest.mark.slow
def test_validate_backend_says_pip_failed_in_one_line_exit_1(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _offline(monkeypatch, tmp_path)
    root = Path(__file__).resolve().parent.parent
    out = tmp_path / "out"
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    ported = subprocess.run(["musaport", "run", "--pytorch-src", str(root / "fixtures" / "pytorch"), "--out", str(out),
                             "-q"], capture_output=True, text=True, env=env)
    assert ported.returncode == 0, ported.stderr
    done = subprocess.run(["musaport", "validate", "--backend", "--out", str(out), "--samples", "abs"],
                          capture_output=True, text=True, env=env)
    errors = [line for line in done.stderr.splitlines() if line.startswith("musaport: error:")]
    assert done.returncode == 1 and len(errors) == 1 and "pip install torch==" in errors[0], done.stderr
    assert "Traceback" not in done.stderr
    assert not any(p.name != "." for p in (tmp_path / "xdg" / "musaport" / "torch").iterdir())


def test_a_completed_environment_is_reused_and_serves_the_link(tmp_path: Path) -> None:
    root = tmp_path / "torch" / "2.6.0"
    site = root / "lib" / "python3.11" / "site-packages"
    (site / "torch" / "lib").mkdir(parents=True)
    (root / ".complete").write_text("2.6.0\nlib/python3.11/site-packages\n" + " ".join(torchenv.TEST_PACKAGES) + "\n")
    env = torchenv.fetch("2.6.0", tmp_path, log=lambda m: pytest.fail(f"fetched again: {m}"))
    assert env.python == root / "bin" / "python" and env.site_packages == site
    assert lt.fetch("2.6.0", tmp_path).lib == site / "torch" / "lib"
    assert torchenv.fetched(tmp_path) == [root]


def test_an_environment_made_without_a_test_package_gets_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A marker of an older musaport (no package line) makes fetch install the test packages into it."""
    _offline(monkeypatch, tmp_path)
    root = tmp_path / "torch" / "2.6.0"
    (root / "bin").mkdir(parents=True)
    (root / ".complete").write_text("2.6.0\nlib/python3.11/site-packages\n")
    said: list[str] = []
    with pytest.raises(torchenv.FetchError, match=r"^pip install .*setuptools.* failed"):
        torchenv.fetch("2.6.0", tmp_path, log=said.append)
    assert said and "setuptools" in said[0]
    assert (root / ".complete").read_text() == "2.6.0\nlib/python3.11/site-packages\n"  # still not topped up


@pytest.mark.torch
def test_the_real_environment_imports_torch_and_the_test_packages(torch_env) -> None:
    """Where validate --backend or --opinfo fetched 2.6.0 (CI does), its python imports all it needs."""
    done = subprocess.run([str(torch_env.python), "-c", "import torch, expecttest, hypothesis, numpy, pytest; "
                           "import torch.testing._internal.common_utils; "
                           "print(torch.__version__, torch.cuda.is_available())"],
                          capture_output=True, text=True, cwd=torch_env.root)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["2.6.0+cu124", "False"], done.stdout  # the CUDA wheel, no GPU touched
    assert sys.executable != str(torch_env.python)
