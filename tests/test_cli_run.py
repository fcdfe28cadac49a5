"""`musaport run` on the bundled fixture tree: output, report, cache, safety."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURE_TREE, musaport, tree_digest
from musaport.port import concurrency
from musaport.resources import default_layout, default_packs
from musaport.ops.generate import OperatorFiles
from musaport.port.config import Options, load_config
from musaport.port.run import run

TREE = "generated_cuda_compatible"


@pytest.fixture()
def src(tmp_path: Path) -> Path:
    """A private copy of the fixture tree, so tests may change it."""
    copy = tmp_path / "pytorch"
    shutil.copytree(FIXTURE_TREE, copy)
    return copy


def port(src: Path, out: Path, *extra: str):
    return musaport("run", "--pytorch-src", str(src), "--out", str(out), "-q", *extra)


def test_ports_the_fixture_tree(src: Path, tmp_path: Path) -> None:
    before = tree_digest(src)
    result = port(src, tmp_path / "out")
    assert result.returncode == 0, result.stderr
    tree = tmp_path / "out" / TREE
    abs_mu = (tree / "aten/src/ATen/native/musa/AbsKernel.mu").read_text()
    assert "#include <ATen/native/musa/Loops.muh>" in abs_mu
    assert "REGISTER_DISPATCH(abs_stub" in abs_mu
    stub = (tree / "aten/src/ATen/native/DispatchStub.h").read_text()
    assert "stub.set_privateuse1_dispatch_ptr(value)" in stub and "REGISTER_MUSA_DISPATCH" in stub
    assert (tree / "aten/src/ATen/native/musa/HandWritten.mu").read_bytes() == (
        src / "aten/src/ATen/native/cuda/HandWritten.mu"
    ).read_bytes()
    assert not (tree / "aten/src/ATen/native/cpu").exists()
    assert tree_digest(src) == before, "the source tree must not change"


def test_report_names_unmapped_apis_with_file_and_line(src: Path, tmp_path: Path) -> None:
    assert port(src, tmp_path / "out").returncode == 0
    report = json.loads((tmp_path / "out" / "porting_report.json").read_text())
    unmapped = {u["name"]: u["sites"] for u in report["unmapped"]}
    assert "aten/src/ATen/native/cuda/CudnnStub.cpp:15" in unmapped["cudnnCreate"]
    assert "ncclAllReduce" in unmapped
    assert report["summary"]["failed"] == 0
    assert any(f["rule"] == "arch-version-compare" for f in report["findings"])
    md = (tmp_path / "out" / "porting_report.md").read_text()
    assert "## CUDA APIs left unmapped" in md and "`cudnnCreate`" in md


def test_second_run_writes_nothing(src: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert port(src, out).returncode == 0
    before = tree_digest(out)
    assert port(src, out).returncode == 0
    assert tree_digest(out) == before


def test_changed_source_reports_only_that_file(src: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert port(src, out).returncode == 0
    before = tree_digest(out / TREE)
    target = src / "aten/src/ATen/native/cuda/ReduceSum.cu"
    target.write_text(target.read_text() + "\n// touched\n")
    assert port(src, out).returncode == 0
    after = tree_digest(out / TREE)
    changed = {k for k in after if after[k] != before.get(k)}
    assert changed == {"aten/src/ATen/native/musa/ReduceSum.mu"}


def test_removed_source_removes_its_output(src: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert port(src, out).returncode == 0
    (src / "aten/src/ATen/native/cuda/Blas.cpp").unlink()
    assert port(src, out).returncode == 0
    assert not (out / TREE / "aten/src/ATen/native/musa/Blas.cpp").exists()


def test_symlink_outside_the_tree_is_not_followed(src: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.cu"
    secret.write_text("cudaMalloc(&p, 1);\n")
    (src / "aten/src/ATen/native/cuda/Link.cu").symlink_to(secret)
    out = tmp_path / "out"
    assert port(src, out).returncode == 0
    assert not (out / TREE / "aten/src/ATen/native/musa/Link.mu").exists()
    report = json.loads((out / "porting_report.json").read_text())
    assert any("Link.cu" in w and "outside the source tree" in w for w in report["warnings"])


def test_unreadable_file_fails_the_run_and_keeps_the_old_output(src: Path, tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "out"
    opts = Options(src, out, default_layout(), tuple(default_packs()), jobs=1, generation=OperatorFiles())
    assert run(opts, load_config(opts)).return_code == 0
    before = tree_digest(out / TREE)
    target = src / "aten/src/ATen/native/cuda/AbsKernel.cu"
    target.write_text(target.read_text() + "// changed\n")
    real = Path.read_bytes

    def unreadable(self: Path) -> bytes:
        if self.name == "TriangularOps.cu":
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", unreadable)
    os.utime(src / "aten/src/ATen/native/cuda/TriangularOps.cu")
    report = run(opts, load_config(opts))
    assert report.return_code == 1
    assert [r.src for r in report.failed] == ["aten/src/ATen/native/cuda/TriangularOps.cu"]
    assert "Permission denied" in report.failed[0].warnings[0]
    assert tree_digest(out / TREE) == before, "a failed run must not update the tree"


def test_interrupted_run_leaves_the_previous_output(src: Path, tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "out"
    opts = Options(src, out, default_layout(), tuple(default_packs()), jobs=1, generation=OperatorFiles())
    assert run(opts, load_config(opts)).return_code == 0
    before = tree_digest(out / TREE)
    for f in (src / "aten/src/ATen/native/cuda").iterdir():
        f.write_bytes(f.read_bytes() + b"\n")
    calls = {"n": 0}
    real = concurrency._port_one

    def interrupt_midway(*a, **k):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(concurrency, "_port_one", interrupt_midway)
    with pytest.raises(KeyboardInterrupt):
        run(opts, load_config(opts))
    assert tree_digest(out / TREE) == before
    assert not list((out / ".musaport").glob("staging-*"))


def test_output_is_identical_for_any_jobs(src: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(concurrency, "_MIN_PER_WORKER", 1)
    reports = []
    for jobs in (1, 2):
        out = tmp_path / f"out{jobs}"
        opts = Options(src, out, default_layout(), tuple(default_packs()), jobs=jobs, generation=OperatorFiles())
        assert run(opts, load_config(opts)).return_code == 0
        reports.append(tree_digest(out / TREE))
    strip = [{k: v[1] for k, v in r.items()} for r in reports]
    assert strip[0] == strip[1]


def test_torch_musa_pack(src: Path, tmp_path: Path) -> None:
    assert port(src, tmp_path / "out", "--pack", "torch-musa").returncode == 0
    mu = (tmp_path / "out" / TREE / "aten/src/ATen/native/musa/TriangularOps.mu").read_text().splitlines()
    assert mu[1] == '#include "torch_musa/csrc/aten/musa/MUSAMacros.muh"'
    assert '#include "torch_musa/csrc/core/MUSAGuard.h"' in mu


def test_rules_list_and_explain() -> None:
    listed = musaport("rules", "list")
    assert listed.returncode == 0 and "toolkit-names" in listed.stdout
    explained = musaport("rules", "explain", "register-cuda-dispatch")
    assert explained.returncode == 0
    assert "REGISTER_CUDA_DISPATCH(abs_stub, &abs_kernel_cuda);" in explained.stdout
    assert "20-pytorch.yaml" in explained.stdout
    unknown = musaport("rules", "explain", "register-cuda-dispach")
    assert unknown.returncode == 2 and "did you mean: register-cuda-dispatch" in unknown.stderr


def test_version_and_default_tree(tmp_path: Path) -> None:
    assert musaport("--version").stdout.startswith("musaport, version")
    result = musaport("run", "--out", str(tmp_path / "b"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "b" / TREE / "aten/src/ATen/native/musa/AbsKernel.mu").is_file()
    assert "unmapped CUDA APIs" in result.stdout


def test_no_registration_ports_and_lists_sources_only(src: Path, tmp_path: Path) -> None:
    with_model = port(src, tmp_path / "full")
    assert with_model.returncode == 0, with_model.stderr
    assert (tmp_path / "full" / TREE / "musa_functions.yaml").is_file()
    bare = port(src, tmp_path / "bare", "--no-registration")
    assert bare.returncode == 0, bare.stderr
    tree = tmp_path / "bare" / TREE
    assert not (tree / "musa_functions.yaml").exists()
    assert (tree / "musaport_sources.cmake").is_file()
    assert (tree / "aten/src/ATen/native/musa/AbsKernel.mu").read_bytes() == \
        (tmp_path / "full" / TREE / "aten/src/ATen/native/musa/AbsKernel.mu").read_bytes()


def test_no_registration_rejects_registration_options(src: Path, tmp_path: Path) -> None:
    result = port(src, tmp_path / "out", "--no-registration", "--ops", "abs")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "cannot go with --no-registration" in result.stderr
    assert not (tmp_path / "out").exists()
