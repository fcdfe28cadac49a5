#!/usr/bin/env python3
"""The CUDA operators an extension project's tests reach on the ``musa`` device.

Why: a device built for a few operators builds in minutes where the whole
device takes half an hour, so a test can prove a real project end to end in
CI. Which operators its tests need is a fact of the project's tests, measured
here once, against a device that has them all: each test runs under torch's
profiler (nested calls included: ``allclose`` reaches ``isclose``, ``sub``,
``abs``...), and every ``aten::`` name the profiler saw that the port's
operator model knows as a CUDA operator is printed, one base name per line,
for ``validate --opinfo --ops`` or ``build_device``:

    python scripts/extension_device_ops.py EXT_OUT PT_OUT [validate --extension options...]

EXT_OUT is the extension's port (``run --src``), PT_OUT the PyTorch port whose
``.musaport/device`` has every operator. The validation runs as
``musaport validate --extension`` does, with a recording pytest plugin added
through ``--test-deps``; its report lands in EXT_OUT as usual.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

PLUGIN = '''"""Appends the aten operators each test dispatched to $MUSAPORT_OPS_LOG."""
import os

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    import torch
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        yield
    names = sorted({e.name for e in prof.events() if e.name.startswith("aten::")})
    with open(os.environ["MUSAPORT_OPS_LOG"], "a") as log:
        log.write("\\n".join(names) + "\\n")
'''
PROJECT = '''[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "musaport-ops-log"
version = "0"

[tool.setuptools]
py-modules = ["musaport_ops_log"]
'''


def recorded(ext_out: Path, pt_out: Path, options: list[str]) -> set[str]:
    """Run the extension's validation with the recording plugin; the aten names its tests dispatched."""
    with tempfile.TemporaryDirectory() as tmp:
        package = Path(tmp) / "musaport-ops-log"
        package.mkdir()
        (package / "musaport_ops_log.py").write_text(PLUGIN)
        (package / "pyproject.toml").write_text(PROJECT)
        log = Path(tmp) / "ops.log"
        log.touch()
        env = dict(os.environ, MUSAPORT_OPS_LOG=str(log), PYTEST_ADDOPTS="-p musaport_ops_log")
        subprocess.run([sys.executable, "-m", "musaport", "validate", "--extension", "--out", str(ext_out),
                        "--torch", str(pt_out), "--test-deps", str(package), *options], env=env, check=False,
                       stdout=sys.stderr)  # the validation's own lines; stdout is the operator list
        return {line.strip().removeprefix("aten::") for line in log.read_text().splitlines() if line.strip()}


def cuda_operators(names: set[str], pt_out: Path) -> list[str]:
    """The base names among ``names`` that the port's model knows as CUDA operators."""
    from musaport.ops.model import operator_model
    from musaport.outdir import OutDir
    from musaport.port.request import run_layout

    out = OutDir(pt_out)
    model = operator_model(Path(out.porting_report()["source"]), out, layout=run_layout(out))
    return sorted(n for n in names if model.resolve(n))


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    ext_out, pt_out = Path(argv[0]), Path(argv[1])
    for name in cuda_operators(recorded(ext_out, pt_out, argv[2:]), pt_out):
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
