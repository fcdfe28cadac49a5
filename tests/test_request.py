"""The run's request kept beside its output: later commands use the run's rules without being told again.

A port made with ``--pack torch-musa --rules extra.yaml`` is diffed and its
backend registration generated with those same packs; before the request was
kept in OUT, ``diff`` loaded none and ``validate --backend`` the bundled ones.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import musaport
from musaport.outdir import OutDir
from musaport.port.request import Request, run_layout, run_rules

EXTRA = """\
pack: extra
why: ours
rules:
  - id: extra-assert-name
    why: our backend names its assert kernel itself
    names:
      _assert_async_cuda: _assert_async_ours
    contexts: [code]
"""


@pytest.fixture(scope="module")
def custom_port(pytorch_260: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("request")
    extra = base / "extra.yaml"
    extra.write_text(EXTRA)
    out = base / "out"
    done = musaport("run", "--pytorch-src", str(pytorch_260), "--out", str(out), "-q", "--pack", "torch-musa",
                    "--rules", str(extra))
    assert done.returncode == 0, done.stderr
    return out, extra


@pytest.mark.shared
def test_the_request_is_written_beside_the_port(custom_port: tuple[Path, Path], pytorch_260: Path) -> None:
    out, extra = custom_port
    recorded = Request.load(OutDir(out))
    assert recorded is not None and recorded.source == pytorch_260
    assert recorded.packs[-2:] == (recorded.packs[-2].parent / "torch-musa.yaml", extra)
    assert recorded.flags() == f"--pack torch-musa --rules {extra}"
    assert json.loads(recorded.generation)["registration"] is True
    registration = (out / "generated_cuda_compatible/aten/src/ATen/RegisterMUSA.cpp").read_text()
    assert "at::native::_assert_async_ours(" in registration


@pytest.mark.shared
def test_diff_uses_the_runs_rules_without_repeating_them(custom_port: tuple[Path, Path]) -> None:
    out, extra = custom_port
    done = musaport("diff", "_assert_async", "--out", str(out), "--json")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no note: the run's own options
    doc = json.loads(done.stdout)
    assert "at::native::_assert_async_ours(" in doc["registration"]
    fired = {rule for f in doc["files"] for rule in f["fired"]}
    assert {"extra-assert-name", "torch-musa-prelude"} <= fired, fired
    assert all(f["attributed"] for f in doc["files"])  # every changed line explained by the run's rules


@pytest.mark.shared
def test_diff_given_other_packs_says_so_in_one_line(custom_port: tuple[Path, Path]) -> None:
    out, extra = custom_port
    done = musaport("diff", "_assert_async", "--out", str(out), "--stat", "--pack", "torch-musa")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"musaport: note: the port in this --out was made with --pack torch-musa --rules {extra}; "
        "using --pack torch-musa as given here"]


@pytest.mark.shared
def test_validate_backend_registers_with_the_runs_rules(custom_port: tuple[Path, Path], pytorch_260: Path) -> None:
    """The backend's registration text (``BuildEnv.rules``) calls the kernel by the port's name."""
    from musaport.ops.emit_registration import registration_source
    from musaport.ops.model import operator_model
    from musaport.validate.backend.backend import BuildEnv

    out, _ = custom_port
    out_dir = OutDir(out)
    env = BuildEnv(out_dir, pytorch_260, out_dir.work("backend"), None, 1)  # type: ignore[arg-type]
    assert [r.id for r in env.rules.rules] == [r.id for r in run_rules(out_dir, compile=False).rules]
    assert "extra-assert-name" in {r.id for r in env.rules.rules}
    model = operator_model(pytorch_260, out_dir, layout=run_layout(out_dir))
    assert "at::native::_assert_async_ours(" in registration_source(model, ["_assert_async"], env.rules)


@pytest.mark.shared
def test_whereis_given_another_tree_says_so_in_one_line(custom_port: tuple[Path, Path], pytorch_260: Path) -> None:
    from conftest import FIXTURE_TREE

    out, _ = custom_port
    same = musaport("whereis", "at::native::_assert_async_ours", "--out", str(out), "--pytorch-src", str(pytorch_260))
    assert same.returncode == 0 and same.stderr == "", same.stderr
    other = musaport("whereis", "at::native::_assert_async_ours", "--out", str(out), "--pytorch-src", str(FIXTURE_TREE))
    assert other.returncode == 0
    assert other.stderr.splitlines() == [f"musaport: note: the port in this --out was made from {pytorch_260}; "
                                         f"using {FIXTURE_TREE} as given here"]
