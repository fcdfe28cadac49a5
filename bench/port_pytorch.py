#!/usr/bin/env python3
"""Benchmark: `musaport run` on PyTorch 2.6.0 against PyTorch's own hipify.

Measures, in one invocation on this machine:
  - musaport cold (empty --out), warm (nothing changed), and after touching one file,
    once porting only (--no-registration: what hipify does too) and once with the
    registration stubs (which runs the tree's torchgen and scans the operators' code);
  - hipify_python (torch/utils/hipify from the same tree) on the very files musaport ports;
and prints wall times, peak memory and the ratios the targets are stated in:
cold port <= 1.0x hipify, warm <= 15% of cold with 0 files written, peak <= 300 MB.

    python bench/port_pytorch.py [--pytorch-src DIR] [--jobs N] [--repeat N]

Without --pytorch-src it unpacks ../shared/pytorch's 2.6.0 tarball into the
test cache (the same one the test suite uses).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

MEASURE = """
import resource, subprocess, sys, time
t = time.perf_counter()
p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
wall = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"{wall:.4f} {peak:.1f} {p.returncode}")
sys.stderr.write(p.stdout[-2000:] + p.stderr[-2000:])
"""


def measure(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Wall seconds and peak RSS (MB, largest single process) of one command."""
    p = subprocess.run([sys.executable, "-c", MEASURE, *cmd], capture_output=True, text=True, env=env)
    wall, peak, rc = p.stdout.split()
    if rc != "0":
        raise SystemExit(f"command failed ({rc}): {' '.join(cmd)}\n{p.stderr}")
    return float(wall), float(peak), p.stderr


def written(stdout: str) -> int:
    """The 'written' column of musaport's summary table."""
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        if len(cells) == 9 and cells[0].isdigit():
            return int(cells[6])
    raise SystemExit("could not read the summary table:\n" + stdout)


def scratch_copy(src: Path, dest: Path) -> Path:
    """The folders both tools read, copied so the benchmark may edit a file."""
    shutil.rmtree(dest, ignore_errors=True)
    for top in ("aten/src/ATen", "c10", "torch/csrc", "torch/utils/hipify"):
        shutil.copytree(src / top, dest / top, symlinks=True)
    return dest


def musaport_runs(src: Path, out: Path, jobs: int, extra: tuple[str, ...] = ()) -> dict[str, tuple[float, float, int]]:
    """Cold (empty ``out``), warm (nothing changed) and after editing one source file."""
    shutil.rmtree(out, ignore_errors=True)
    base = ["musaport", "run", "--pytorch-src", str(src), "--out", str(out), "--jobs", str(jobs), *extra]
    env = dict(os.environ, COLUMNS="200")
    results = {}
    for name in ("cold", "warm"):
        wall, peak, log = measure(base, env)
        results[name] = (wall, peak, written(log))
    touched = src / "aten/src/ATen/native/cuda/AbsKernel.cu"
    touched.write_bytes(touched.read_bytes() + f"\n// edited by the benchmark ({out.name})\n".encode())
    wall, peak, log = measure(base, env)
    results["edit 1"] = (wall, peak, written(log))
    return results


def ported_files(out: Path) -> list[str]:
    """The source paths musaport selected (from its report), so hipify gets the very same files."""
    return sorted(json.loads((out / "porting_report.json").read_text())["files"])


def hipify_run(src: Path, work: Path, files: list[str]) -> tuple[float, float]:
    """hipify_python on a scratch copy of exactly the files musaport ports (it rewrites in place).

    Copying just those files makes the two tools read the same input; hipify's
    include globs would otherwise select a different set (its globs see only
    the cuda/ folders, not the ATen and c10 headers musaport also ports).
    """
    project = work / "hipify"
    shutil.rmtree(project, ignore_errors=True)
    for rel in files:
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / rel, project / rel)
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from hipify import hipify_python as h;"
        "h.hipify(project_directory=sys.argv[2], output_directory=sys.argv[2], includes=['*'],"
        "show_detailed=False, is_pytorch_extension=False, show_progress=False)"
    )
    wall, peak, _ = measure([sys.executable, "-c", script, str(src / "torch/utils"), str(project)])
    return wall, peak


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pytorch-src", type=Path)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--repeat", type=int, default=3, help="take the best of N rounds")
    args = ap.parse_args()
    if args.pytorch_src is None:
        from conftest import pytorch_tree

        args.pytorch_src = pytorch_tree("2.6.0")
    src = args.pytorch_src
    rounds = []
    with tempfile.TemporaryDirectory(prefix="musaport-bench-") as tmp:
        for _ in range(args.repeat):
            copy = scratch_copy(src, Path(tmp) / "pytorch")
            port = musaport_runs(copy, Path(tmp) / "port", args.jobs, ("--no-registration",))
            files = ported_files(Path(tmp) / "port")
            hip = hipify_run(copy, Path(tmp), files)
            full = musaport_runs(copy, Path(tmp) / "full", args.jobs)
            rounds.append((port, full, hip))
    port, full = (_best([r[i] for r in rounds]) for i in (0, 1))
    hip = min((r[2] for r in rounds), key=lambda v: v[0])
    print(f"PyTorch tree: {src}   files: {len(files)}   jobs: {args.jobs}   best of {args.repeat}")
    print(f"{'run':<34}{'wall s':>9}{'peak MB':>10}{'written':>9}{'ratio':>18}")
    print(f"{'hipify_python (peer)':<34}{hip[0]:>9.3f}{hip[1]:>10.1f}{'-':>9}{'':>18}")
    _table("musaport --no-registration", port, hip[0])
    _table("musaport (with registration)", full, hip[0])
    cold = port["cold"][0]
    verdict = {
        "cold port <= 1.0x hipify": cold <= hip[0],
        "warm <= 15% of cold": port["warm"][0] <= 0.15 * cold and full["warm"][0] <= 0.15 * full["cold"][0],
        "warm writes 0 files": port["warm"][2] == 0 and full["warm"][2] == 0,
        "peak <= 300 MB": max(v[1] for series in (port, full) for v in series.values()) <= 300,
    }
    print(json.dumps(verdict))
    return 0


def _best(series: list[dict[str, tuple[float, float, int]]]) -> dict[str, tuple[float, float, int]]:
    """Per run kind, the round with the shortest wall time."""
    return {k: min((s[k] for s in series), key=lambda v: v[0]) for k in series[0]}


def _table(label: str, runs: dict[str, tuple[float, float, int]], peer: float) -> None:
    cold = runs["cold"][0]
    for name, (wall, peak, n) in runs.items():
        ratio = f"{wall / peer:.2f}x hipify" if name == "cold" else f"{wall / cold:.1%} of cold"
        print(f"{label + ' ' + name:<34}{wall:>9.3f}{peak:>10.1f}{n:>9}{ratio:>18}")


if __name__ == "__main__":
    raise SystemExit(main())
