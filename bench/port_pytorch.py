#!/usr/bin/env python3
"""Benchmark: `musaport run` on PyTorch 2.6.0 and 1.13.1 against PyTorch's own hipify.

Measures, in one invocation on this machine, for each tree:
  - musaport cold (empty --out, new user cache), warm (nothing changed; with the
    summary table, and with -q), after editing one file and cold again into a new
    --out with that user cache (a tree seen before), once porting only
    (--no-registration: what hipify does too) and once with the registration
    stubs (which runs the tree's torchgen and scans the operators' code);
  - hipify_python (torch/utils/hipify from the same tree) on the very files musaport ports;
and prints wall time, CPU time (user+sys of the command and every child it
waited for: port workers, torchgen), peak memory and the ratios the targets
are stated in: cold port <= 1.0x hipify, warm <= 15% of cold with 0 files
written, peak <= 300 MB. Then "how cost grows": per tree, the files and the
cost per file, so a reader can see it scales with the tree.

On a shared machine wall times are noisy; CPU times and the ratios to the
peer measured in the same round are the figures to compare. Each figure is
the best of --repeat rounds; the load average at start and end is printed.

    python bench/port_pytorch.py [--trees 2.6.0,1.13.1] [--pytorch-src DIR] [--jobs N] [--repeat N]

Without --pytorch-src each tree is unpacked from ../shared/pytorch's tarball
into the test cache (the same one the test suite uses); --pytorch-src gives one
tree instead. Both tools' modules are byte-compiled first, as an installed
package is (PYTHONDONTWRITEBYTECODE would otherwise make every run compile them).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

MEASURE = """
import resource, subprocess, sys, time
t = time.perf_counter()
p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
wall = time.perf_counter() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{wall:.4f} {r.ru_utime + r.ru_stime:.4f} {r.ru_maxrss / 1024:.1f} {p.returncode}")
sys.stderr.write(p.stdout[-2000:] + p.stderr[-2000:])
"""

# One measurement: wall seconds, CPU seconds, peak RSS (MB, largest single process), files written.
Figures = tuple[float, float, float, int]


def measure(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds (the command and its waited-for children) and peak RSS of one command."""
    p = subprocess.run([sys.executable, "-c", MEASURE, *cmd], capture_output=True, text=True, env=env)
    wall, cpu, peak, rc = p.stdout.split()
    if rc != "0":
        raise SystemExit(f"command failed ({rc}): {' '.join(cmd)}\n{p.stderr}")
    return float(wall), float(cpu), float(peak), p.stderr


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
    for top in ("aten/src/ATen", "c10", "torch/csrc", "torch/utils/hipify", "torchgen"):
        if (src / top).is_dir():
            shutil.copytree(src / top, dest / top, symlinks=True)
    compileall.compile_dir(dest / "torch/utils/hipify", quiet=1)
    return dest


def musaport_runs(src: Path, out: Path, jobs: int, extra: tuple[str, ...] = ()) -> dict[str, Figures]:
    """Cold (empty ``out``, new user cache), warm (nothing changed), after editing one source file, and cold
    again into an empty ``out`` with the user cache of those runs (a tree seen before)."""
    shutil.rmtree(out, ignore_errors=True)
    cache = Path(tempfile.mkdtemp(prefix="musaport-bench-cache-"))
    base = ["musaport", "run", "--pytorch-src", str(src), "--out", str(out), "--jobs", str(jobs), *extra]
    env = dict(os.environ, COLUMNS="200", XDG_CACHE_HOME=str(cache))
    results = {}
    try:
        for name in ("cold", "warm"):
            wall, cpu, peak, log = measure(base, env)
            results[name] = (wall, cpu, peak, written(log))
        wall, cpu, peak, _ = measure([*base, "-q"], env)
        results["warm -q"] = (wall, cpu, peak, 0)
        touched = src / "aten/src/ATen/native/cuda/AbsKernel.cu"
        touched.write_bytes(touched.read_bytes() + f"\n// edited by the benchmark ({out.name})\n".encode())
        wall, cpu, peak, log = measure(base, env)
        results["edit 1"] = (wall, cpu, peak, written(log))
        shutil.rmtree(out)  # a new --out of the same tree: the user cache already holds its torchgen records
        wall, cpu, peak, log = measure(base, env)
        results["cold, tree seen"] = (wall, cpu, peak, written(log))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return results


def ported_files(out: Path) -> list[str]:
    """The source paths musaport selected (from its report), so hipify gets the very same files."""
    return sorted(json.loads((out / "porting_report.json").read_text())["files"])


def hipify_run(src: Path, work: Path, files: list[str]) -> Figures:
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
    wall, cpu, peak, _ = measure([sys.executable, "-c", script, str(src / "torch/utils"), str(project)])
    return wall, cpu, peak, len(files)


def bench_tree(src: Path, jobs: int, repeat: int) -> dict:
    """Every measurement of one tree, best of ``repeat`` rounds per run kind."""
    rounds = []
    with tempfile.TemporaryDirectory(prefix="musaport-bench-") as tmp:
        for _ in range(repeat):
            copy = scratch_copy(src, Path(tmp) / "pytorch")
            port = musaport_runs(copy, Path(tmp) / "port", jobs, ("--no-registration",))
            files = ported_files(Path(tmp) / "port")
            hip = hipify_run(copy, Path(tmp), files)
            full = musaport_runs(copy, Path(tmp) / "full", jobs)
            rounds.append((port, full, hip))
    return {
        "src": src,
        "files": len(files),
        "port": _best([r[0] for r in rounds]),
        "full": _best([r[1] for r in rounds]),
        "hipify": min((r[2] for r in rounds), key=lambda v: v[1]),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trees", default="2.6.0,1.13.1", help="PyTorch versions to measure (test-cache tarballs)")
    ap.add_argument("--pytorch-src", type=Path, help="one tree to measure instead of --trees")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--repeat", type=int, default=3, help="take the best of N rounds")
    args = ap.parse_args()
    if args.pytorch_src is not None:
        trees = {args.pytorch_src.name: args.pytorch_src}
    else:
        from conftest import pytorch_tree

        trees = {v: pytorch_tree(v) for v in args.trees.split(",")}
    import musaport

    compileall.compile_dir(Path(musaport.__file__).parent, quiet=1)
    print(f"load average at start: {_load()}   jobs: {args.jobs}   best of {args.repeat} (by CPU time)")
    results = {name: bench_tree(src, args.jobs, args.repeat) for name, src in trees.items()}
    print(f"load average at end: {_load()}")
    verdicts = {}
    for name, r in results.items():
        print(f"\nPyTorch {name} ({r['src']}): {r['files']} files ported")
        print(f"{'run':<36}{'wall s':>8}{'CPU s':>8}{'peak MB':>9}{'written':>9}   ratio")
        hip = r["hipify"]
        print(f"{'hipify_python (peer)':<36}{hip[0]:>8.2f}{hip[1]:>8.2f}{hip[2]:>9.1f}{'-':>9}")
        _table("musaport --no-registration", r["port"], hip)
        _table("musaport (with registration)", r["full"], hip)
        verdicts[name] = _verdicts(r)
    print("\nHow cost grows (CPU ms per ported file; the same runs as above)")
    print(f"{'tree':<10}{'files':>7}{'hipify':>9}{'--no-reg cold':>15}{'full cold':>11}{'warm':>7}{'edit 1':>8}")
    for name, r in results.items():
        per = lambda v: 1000 * v[1] / r["files"]  # noqa: E731
        print(f"{name:<10}{r['files']:>7}{per(r['hipify']):>9.2f}{per(r['port']['cold']):>15.2f}"
              f"{per(r['full']['cold']):>11.2f}{per(r['full']['warm']):>7.2f}{per(r['full']['edit 1']):>8.2f}")
    print(json.dumps(verdicts))
    return 0


def _verdicts(r: dict) -> dict[str, bool]:
    port, full, hip = r["port"], r["full"], r["hipify"]
    return {
        "cold port <= 1.0x hipify (wall)": port["cold"][0] <= hip[0],
        "cold full run <= 1.0x hipify (wall)": full["cold"][0] <= hip[0],
        "cold full run of a tree seen before <= 1.0x hipify (wall)": full["cold, tree seen"][0] <= hip[0],
        "warm <= 15% of cold (wall)": port["warm"][0] <= 0.15 * port["cold"][0]
        and full["warm"][0] <= 0.15 * full["cold"][0],
        "warm writes 0 files": port["warm"][3] == 0 and full["warm"][3] == 0,
        "peak <= 300 MB": max(v[2] for series in (port, full) for v in series.values()) <= 300,
    }


def _best(series: list[dict[str, Figures]]) -> dict[str, Figures]:
    """Per run kind, the round with the least CPU time (the figure least disturbed by other load)."""
    return {k: min((s[k] for s in series), key=lambda v: v[1]) for k in series[0]}


def _table(label: str, runs: dict[str, Figures], peer: Figures) -> None:
    cold = runs["cold"]
    for name, (wall, cpu, peak, n) in runs.items():
        if name.startswith("cold"):
            ratio = f"{wall / peer[0]:.2f}x hipify wall, {cpu / peer[1]:.2f}x CPU"
        else:
            ratio = f"{wall / cold[0]:.1%} of cold wall, {cpu / cold[1]:.1%} CPU"
        shown = "-" if name == "warm -q" else str(n)
        print(f"{label + ' ' + name:<36}{wall:>8.2f}{cpu:>8.2f}{peak:>9.1f}{shown:>9}   {ratio}")


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


if __name__ == "__main__":
    raise SystemExit(main())
