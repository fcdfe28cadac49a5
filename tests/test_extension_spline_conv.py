"""A real project proven end to end on ``musa``: pytorch_spline_conv, ported, compiled, built and tested.

The project comes from ../shared/extensions as released; nothing of it is
changed. The PyTorch port is 2.6.0's, with a device built for the operators
the project's tests reach (``SPLINE_CONV_OPS``, measured on the whole device
by ``scripts/extension_device_ops.py``), so the device builds in minutes, not
the whole device's half hour. The same commands with the whole device are the
README's "Proving an extension on the musa device".
"""

from __future__ import annotations

import json
import os
import shutil
import tarfile
from pathlib import Path

import pytest

from conftest import musaport, need, tree_digest
from musaport.outdir import OutDir
from musaport.validate.device.build import build_device

pytestmark = [pytest.mark.shared, pytest.mark.torch, pytest.mark.compiles]

# The CUDA operators pytorch_spline_conv's tests dispatch on the musa device (nested calls included), as
# `python scripts/extension_device_ops.py EXT_OUT PT_OUT --build-env FORCE_CUDA=1` printed them against the
# whole device of the 2.6.0 port.
SPLINE_CONV_OPS = ("_index_put_impl_", "_local_scalar_dense", "abs", "add", "add_", "all", "arange", "as_strided",
                   "bitwise_and_", "bitwise_or_", "clamp_", "div", "div_", "empty", "empty_strided", "eq", "fill_",
                   "gather", "gt", "index", "le", "max", "mm", "mul", "ne", "remainder", "resize_", "scatter_add_",
                   "sub", "sum", "uniform_", "view", "zero_")


@pytest.fixture(scope="module")
def spline_conv(shared_extensions: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project as released, unpacked."""
    found = sorted(shared_extensions.glob("pytorch_spline_conv-*.tar.xz"))
    if not found:
        need(f"needs {shared_extensions}/pytorch_spline_conv-*.tar.xz (the extension projects in ../shared)")
    base = tmp_path_factory.mktemp("spline-src")
    with tarfile.open(found[0]) as tar:
        tar.extractall(base, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    return base / "pytorch_spline_conv"


@pytest.fixture(scope="module")
def pt_out(ported_260: Path, torch_env, cmake: str, gxx: str, clang, tmp_path_factory: pytest.TempPathFactory
           ) -> Path:
    """A copy of the 2.6.0 port with a musa device of the operators the project's tests reach."""
    out = tmp_path_factory.mktemp("spline-device") / "pt"
    shutil.copytree(ported_260, out, symlinks=True)
    build = build_device(OutDir(out), SPLINE_CONV_OPS, os.cpu_count() or 2, progress=lambda m: None)
    assert build.library is not None, build.figures
    unbuilt = {n: op.error for n, op in build.operators.items() if op.status != "built"}
    assert not unbuilt
    return out


def test_pytorch_spline_conv_passes_its_own_tests_on_musa(spline_conv: Path, pt_out: Path, tmp_path: Path) -> None:
    before = tree_digest(spline_conv)
    ext = tmp_path / "ext"
    done = musaport("validate", "--extension", "--src", str(spline_conv), "--out", str(ext), "--torch", str(pt_out),
                    "--build-env", "FORCE_CUDA=1", "-j", "2")  # the README's one command: port, then the proof
    report = json.loads((ext / "validate_extension_report.json").read_text())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert report["port"]["source"] == str(spline_conv) and report["port"]["unmapped"] == 0
    assert report["compile"]["passed"] == report["compile"]["total"] == 5
    assert report["build"]["ok"] and report["build"]["dropped"] == []
    assert [m["loaded"] for m in report["build"]["modules"]] == [True] * 6
    tests = report["tests"]
    assert (tests["passed"], tests["failed"], tests["skipped"], tests["errors"]) == (38, 0, 0, 0)
    assert sorted(f["file"] for f in tests["files"]) == ["test/test_basis.py", "test/test_conv.py",
                                                        "test/test_weighting.py"]
    assert tree_digest(spline_conv) == before  # the project is only read
