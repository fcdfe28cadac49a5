#!/usr/bin/env python3
"""Benchmark: `musaport validate --compile` on the ports of PyTorch 2.6.0 and 1.13.1.

Measures, in one invocation on this machine, for each tree, on the ported
translation units the patterns select (default: every ported `.mu` file):
  - cold: no cached verdicts and no precompiled prelude (the PCH is built too),
    as a first run, or a run after the shim or the port changed, meets it;
  - warm: the same command again (verdicts cached by content: nothing to compile);
  - the peer, on a systematic sample (every K-th selected file, --peer-every):
    every TU parsed from scratch (`--no-pch`), cold, and the default on the same
    sample, so the ratio compares like with like and the verdicts can be checked
    to agree (the PCH saves parsing; it must not change a verdict).
It prints wall and CPU time (user+sys of validate and every compiler it ran),
files per minute (wall) and CPU seconds per file, the ratios, and per tree the
cost per file, so a reader can see that cost grows with the number of files.
The load average at start and end is printed: on a shared machine compare CPU
figures and the ratios, not wall times across runs.

    python bench/validate_compile.py [--trees 2.6.0,1.13.1] [--pytorch-src DIR] [--jobs N]
                                     [--peer-every K] [PATTERN ...]

PATTERN selects ported files as `validate` does (`aten/src/ATen/native/musa/*.mu`
for the kernels of native/musa). --peer-every 0 skips the peer. Without
--pytorch-src each tree is unpacked from ../shared/pytorch's tarball into the
test cache; --pytorch-src gives one tree instead.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

# One measurement: wall seconds, CPU seconds, each file's verdict.
Figures = tuple[float, float, dict[str, bool]]


def musaport(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "musaport", *args], capture_output=True, text=True)


def timed_validate(out: Path, jobs: int, patterns: list[str], *extra: str) -> Figures:
    """Wall and CPU seconds of one validate run (its compilers included), and each file's verdict."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = musaport("validate", "--compile", "--out", str(out), "-j", str(jobs), *extra, *patterns)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        raise SystemExit(f"validate failed to run:\n{done.stderr}")
    doc = json.loads((out / "validate_report.json").read_text())
    return wall, cpu, {f["file"]: f["ok"] for f in doc["files"]}


def selected(out: Path, patterns: list[str]) -> list[str]:
    """The ported files the patterns select, sorted by path, as exact paths."""
    tree = out / "generated_cuda_compatible"
    rels = sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file())
    return [r for r in rels if any(fnmatch.fnmatchcase(r, p) or fnmatch.fnmatchcase(r.rsplit("/", 1)[-1], p)
                                   for p in patterns)]


def forget_results(out: Path) -> None:
    """Make the next validate cold: no cached verdicts and no precompiled prelude."""
    state = out / ".musaport" / "validate"
    (state / "results.json").unlink(missing_ok=True)
    for pch in state.glob("prelude-*.pch"):
        pch.unlink()


def measure_tree(source: Path, work: Path, jobs: int, patterns: list[str], peer_every: int) -> dict:
    """Port ``source`` and time validate on it: cold, warm, and (on a sample) the peer and the default."""
    out = work / source.name
    if musaport("run", "--pytorch-src", str(source), "--out", str(out), "-q").returncode != 0:
        raise SystemExit(f"musaport run failed on {source}")
    # The generated headers (torchgen's ATen/ops, the configured headers) are made once per tree, as
    # a first validate does; they are not what is measured.
    musaport("validate", "--compile", "--out", str(out), "-j", str(jobs), "--host-only", "NoSuch*")
    files = selected(out, patterns)
    forget_results(out)
    result = {"tree": source.name, "files": len(files), "cold": timed_validate(out, jobs, files)}
    result["warm"] = timed_validate(out, jobs, files)
    if peer_every > 0:
        sample = files[::peer_every]
        forget_results(out)
        result["peer"] = timed_validate(out, jobs, sample, "--no-pch")
        forget_results(out)
        result["sampled"] = timed_validate(out, jobs, sample)
    return result


def report(r: dict, jobs: int, peer_every: int) -> None:
    files = r["files"]
    print(f"\n{r['tree']}: validate --compile on {files} ported files, -j {jobs}")
    print("| run | files | wall | files/min | CPU | CPU s/file | ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    cold, warm = r["cold"], r["warm"]
    _row("cold (prelude PCH)", files, cold, "")
    _row("warm (cached)", files, warm, f"{warm[0] / cold[0]:.1%} of cold wall")
    if "peer" in r:
        peer, sampled = r["peer"], r["sampled"]
        n = len(peer[2])
        _row(f"no PCH, cold (peer; one file in {peer_every})", n, peer, "")
        _row(f"prelude PCH, cold (the same {n})", n, sampled,
             f"{sampled[0] / peer[0]:.2f}x the peer's wall, {sampled[1] / peer[1]:.2f}x its CPU")
    passed = sum(cold[2].values())
    print(f"passed: {passed} of {files}")
    if "peer" in r:
        peer, sampled = r["peer"][2], r["sampled"][2]
        print(f"same verdicts with and without the PCH on the sample: {peer == sampled}")
        for name in sorted(f for f in sampled if sampled[f] != peer.get(f)):
            print(f"  differs: {name}: PCH {sampled[name]}, no PCH {peer.get(name)}")


def _row(label: str, files: int, fig: Figures, ratio: str) -> None:
    wall, cpu, _ = fig
    print(f"| {label} | {files} | {wall:.1f} s | {files / wall * 60:.1f} | {cpu:.1f} s | {cpu / files:.2f} | {ratio} |")


def growth(results: list[dict]) -> None:
    """Cold cost per file in each tree: it stays flat as the tree grows."""
    print("\nHow cost grows (cold, prelude PCH):")
    print("| tree | files | wall | wall s/file | CPU s/file |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for r in results:
        wall, cpu, _ = r["cold"]
        print(f"| {r['tree']} | {r['files']} | {wall:.1f} s | {wall / r['files']:.2f} | {cpu / r['files']:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", default="2.6.0,1.13.1", help="releases to measure (from ../shared/pytorch)")
    parser.add_argument("--pytorch-src", type=Path, default=None, help="one tree instead of --trees")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--peer-every", type=int, default=6, help="the peer runs on every K-th file (0: no peer)")
    parser.add_argument("patterns", nargs="*", default=["*.mu"])
    args = parser.parse_args()
    if args.pytorch_src is not None:
        sources = [args.pytorch_src]
    else:
        from conftest import pytorch_tree

        sources = [pytorch_tree(v) for v in args.trees.split(",")]
    work = Path(tempfile.mkdtemp(prefix="musaport-bench-validate-"))
    try:
        print(f"load average at start: {_load()}; selection: {' '.join(args.patterns)}")
        results = [measure_tree(s, work, args.jobs, args.patterns, args.peer_every) for s in sources]
        print(f"load average at end: {_load()}")
        for r in results:
            report(r, args.jobs, args.peer_every)
        growth(results)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


if __name__ == "__main__":
    main()
