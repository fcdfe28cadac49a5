"""M1 on the real 2.6.0 port: ``musaport validate --opinfo --ops <M1>`` passes from Python on ``musa``.

The port is built into the release's own torch wheel as the ``musa`` device
and each M1 operator's OpInfo entry runs every reference sample of every
dtype its CPU and CUDA sets share, on ``musa`` and on the CPU.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import musaport

M1 = ("empty", "copy_", "fill_", "abs", "neg", "add", "mul", "tril", "triu", "sum", "mean")
# The OpInfo entries M1 names: fill_ is op_db's "fill" (torch.fill).
RUN = ("abs", "add", "fill", "mean", "mul", "neg", "sum", "tril", "triu")


def test_m1_passes_on_the_musa_device(ported_260: Path) -> None:
    result = musaport("validate", "--opinfo", "--out", str(ported_260), "--ops", ",".join(M1), "-j", "2")
    report = ported_260 / "validate_opinfo_report.json"
    assert report.is_file(), result.stderr[-3000:]
    doc = json.loads(report.read_text(encoding="utf-8"))
    assert doc["torch_version"] == "2.6.0" and doc["device"] == "musa"
    ops = doc["ops"]
    not_passing = {k: (v["status"], v["reason"]) for k, v in ops.items() if k in RUN and v["status"] != "pass"}
    assert not not_passing, not_passing
    for key in RUN:
        dtypes = ops[key]["dtypes"]
        ran = [d for d in dtypes.values() if d["status"] != "skip"]
        assert ran and all(d["status"] == "pass" and d["samples"] > 0 and d["failed"] == 0 for d in ran), key
        assert "float32" in dtypes and dtypes["float32"]["status"] == "pass", key
    assert ops["abs"]["dtypes"]["float32"]["samples"] == 35  # every reference sample of abs
    assert any(f.endswith("AbsKernel.mu") for f in ops["abs"]["files"])
    # Not run, each with its reason: upstream skips empty (its values are undefined), and op_db has no
    # copy_ entry (every sample above reached the device through it).
    assert ops["empty"]["status"] == "skip" and "non-deterministic" in ops["empty"]["reason"]
    assert ops["copy_"]["status"] == "skip" and "no OpInfo entry" in ops["copy_"]["reason"]
    assert result.returncode == 0, result.stderr[-3000:]
    assert "9 of 9 OpInfo entries that ran pass" in result.stdout
