#!/usr/bin/env python3
"""Benchmark: the per-test cost of a fixed slice of PyTorch's test_ops.py on ``musa`` against ``cpu``.

The emulated device's cost is what a suite run pays, so the judge of a kernel
speed-up is a slice of the suite itself, not a micro-benchmark alone. This
runs the same slice of the release's ``test/test_ops.py`` twice through the
runner ``validate --opinfo --pytorch-tests`` uses (its pytest plugin, its
pytest.ini, one test process, ``OMP_NUM_THREADS=1``): once on torch's own
``cpu`` device and once on the ported ``musa`` device. It prints per run the
tests that ran (passed, failed, skipped), the wall and CPU seconds of the
process, the CPU seconds of collecting the same selection alone (measured
first, in a process of its own), the CPU milliseconds per executed test
without that collection, and the ratio musa/cpu of the last.

    python3 bench/test_slice.py --out OUT                     # OUT: a 2.6.0 port with its device built
    python3 bench/test_slice.py --out OUT -k "test_noncontiguous_samples and float32" --json slice.json

The default slice is ``test_noncontiguous_samples`` in float32 over every
OpInfo entry: one test per operator, the samples of each run contiguous and
not. A failed test still counts in the per-test cost (it ran its samples);
the counts say how many there were.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from musaport.outdir import OutDir  # noqa: E402
from musaport.validate.device.build import LOADER, STATE  # noqa: E402
from musaport.validate.opinfo.differential import Device  # noqa: E402
from musaport.validate.opinfo.tests import PLUGIN, PLUGIN_MODULE, PYTEST_INI, device_filter, junit_counts  # noqa: E402
from musaport.validate.torchwheel import libtorch, torchenv  # noqa: E402

LIBRARY = "libmusaport_backend.so"
DEFAULT_SLICE = "test_noncontiguous_samples and float32"


def run_slice(device: Device, test_file: Path, work: Path, select: str) -> dict:
    """One pytest of the slice on ``device``: its counts, wall seconds and CPU seconds (the child's), less
    what collecting the same selection costs alone (importing torch and the test file, making the tests),
    so that the per-test cost is the tests' own."""
    collect = _pytest(device, test_file, work, select, ["--collect-only"])
    ran = _pytest(device, test_file, work, select, [])
    counts = junit_counts(work / f"{device.name}.xml")
    if counts is None:
        raise SystemExit(f"bench/test_slice.py: pytest on {device.name} wrote no report: {ran['tail']}")
    executed = counts["passed"] + counts["failed"] + counts["errors"]
    own = max(ran["cpu"] - collect["cpu"], 0.0)
    return {"device": device.name, **counts, "ran": executed, "wall_s": round(ran["wall"], 1),
            "cpu_s": round(ran["cpu"], 1), "collect_cpu_s": round(collect["cpu"], 1),
            "cpu_per_test_ms": round(1000 * own / executed, 1) if executed else None}


def _pytest(device: Device, test_file: Path, work: Path, select: str, extra: list[str]) -> dict:
    """One pytest process on ``device``: wall and CPU seconds (the child's), and its last lines."""
    work.mkdir(parents=True, exist_ok=True)
    plugin_dir = work / "plugin"
    plugin_dir.mkdir(exist_ok=True)
    (plugin_dir / f"{PLUGIN_MODULE}.py").write_bytes(PLUGIN.read_bytes())
    (work / "pytest.ini").write_text(PYTEST_INI, encoding="utf-8")
    xml = work / f"{device.name}.xml"
    xml.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTORCH_TESTING", "PYTEST_"))}
    env.update(PYTORCH_TESTING_DEVICE_ONLY_FOR=device_filter(device), PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=str(plugin_dir), OMP_NUM_THREADS="1", MUSAPORT_DEVICE_NAME=device.name,
               MUSAPORT_TEST_OUTCOMES=str(work / f"{device.name}.outcomes.jsonl"))
    if device.loader is not None:
        env.update(MUSAPORT_DEVICE_LOADER=str(device.loader), MUSAPORT_DEVICE_LIBRARY=str(device.library))
    cmd = [str(device.python), "-B", "-m", "pytest", str(test_file), "-c", str(work / "pytest.ini"),
           "--rootdir", str(work), "--noconftest", "-p", PLUGIN_MODULE, f"--junitxml={xml}", "-q", "-k", select,
           *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "tail": " | ".join((done.stdout + done.stderr).strip().splitlines()[-3:])}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="a PyTorch port (run --pytorch-src) with its device")
    parser.add_argument("-k", dest="select", default=DEFAULT_SLICE, help=f"pytest's -k (default: {DEFAULT_SLICE!r})")
    parser.add_argument("--json", type=Path, help="write the results here too")
    args = parser.parse_args()
    out = OutDir(args.out)
    source = out.source()
    state = out.work(STATE)
    if source is None or not (state / LIBRARY).is_file():
        raise SystemExit(f"bench/test_slice.py: {args.out} is no port with a built musa device "
                         f"(no {state / LIBRARY}); build it with validate --opinfo first")
    env = torchenv.cached(libtorch.release(source))
    if env is None:
        raise SystemExit("bench/test_slice.py: no torch environment in the user cache; run validate --opinfo first")
    test_file = source / "test" / "test_ops.py"
    work = Path(os.environ.get("TMPDIR", "/tmp")) / f"musaport-test-slice-{os.getpid()}"
    print(f"slice: test_ops.py -k {args.select!r}; load average {os.getloadavg()[0]:.2f}")
    rows = [run_slice(Device(env.python, "cpu"), test_file, work / "cpu", args.select),
            run_slice(Device(env.python, "musa", state / LOADER, state / LIBRARY), test_file, work / "musa",
                      args.select)]
    print(f"{'device':<6} {'ran':>5} {'passed':>6} {'failed':>6} {'skipped':>7} {'wall s':>7} {'CPU s':>7} "
          f"{'collect CPU s':>13} {'CPU ms/test':>11}")
    for r in rows:
        print(f"{r['device']:<6} {r['ran']:>5} {r['passed']:>6} {r['failed'] + r['errors']:>6} {r['skipped']:>7} "
              f"{r['wall_s']:>7} {r['cpu_s']:>7} {r['collect_cpu_s']:>13} {r['cpu_per_test_ms']:>11}")
    cpu, musa = rows
    ratio = (musa["cpu_per_test_ms"] / cpu["cpu_per_test_ms"]) if cpu["cpu_per_test_ms"] and musa["cpu_per_test_ms"] \
        else None
    print(f"musa/cpu, CPU per executed test: {ratio:.1f}×" if ratio else "musa/cpu: no test ran on one side")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    if args.json:
        args.json.write_text(json.dumps({"slice": args.select, "rows": rows, "ratio": ratio}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
