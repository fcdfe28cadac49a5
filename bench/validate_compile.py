#!/usr/bin/env python3
"""Benchmark: `musaport validate --compile` on the PyTorch 2.6.0 port, with and without the prelude PCH.

Measures, in one invocation on this machine, on the same selection of ported
translation units:
  - the peer: every TU parsed from scratch (``--no-pch``), cold (no cached results);
  - the default: TUs start from the precompiled common prelude, cold (the PCH is built too);
  - warm: the same command again (results cached by content: nothing to compile);
and prints, for each, wall and CPU time (user+sys of validate and every
compiler it ran), files per minute (wall) and CPU seconds per file, the ratio
to the peer, and whether both modes passed and failed the same files (they
must: the PCH saves parsing, it must not change a verdict). The load average
at start and end is printed: on a shared machine compare CPU figures and the
ratios, not wall times across runs.

    python bench/validate_compile.py [--pytorch-src DIR] [--jobs N] [--every K] [PATTERN ...]

PATTERN selects ported files as `validate` does (default: the 2.6.0 `native/musa` kernels).
--every K keeps every K-th of them (sorted by path) for all three runs: a
systematic sample when the whole selection costs too many CPU minutes.
Without --pytorch-src it unpacks ../shared/pytorch's 2.6.0 tarball into the test cache.
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


def musaport(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "musaport", *args], capture_output=True, text=True)


def timed_validate(out: Path, jobs: int, patterns: list[str], *extra: str) -> tuple[float, float, dict[str, bool]]:
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


def sample(out: Path, patterns: list[str], every: int) -> list[str]:
    """Every ``every``-th ported file the patterns select (sorted by path), as exact paths."""
    tree = out / "generated_cuda_compatible"
    rels = sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file())
    chosen = [r for r in rels if any(fnmatch.fnmatchcase(r, p) or fnmatch.fnmatchcase(r.rsplit("/", 1)[-1], p)
                                     for p in patterns)]
    return chosen[::every]


def forget_results(out: Path) -> None:
    """Make the next validate cold: no cached verdicts and no precompiled prelude."""
    state = out / ".musaport" / "validate"
    (state / "results.json").unlink(missing_ok=True)
    for pch in state.glob("prelude-*.pch"):
        pch.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pytorch-src", type=Path, default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--every", type=int, default=1, help="keep every K-th selected file (a sample)")
    parser.add_argument("patterns", nargs="*", default=["aten/src/ATen/native/musa/*.mu"])
    args = parser.parse_args()
    if args.pytorch_src is None:
        from conftest import pytorch_tree

        args.pytorch_src = pytorch_tree("2.6.0")
    work = Path(tempfile.mkdtemp(prefix="musaport-bench-validate-"))
    try:
        out = work / "out"
        if musaport("run", "--pytorch-src", str(args.pytorch_src), "--out", str(out), "-q").returncode != 0:
            raise SystemExit("musaport run failed")
        musaport("validate", "--compile", "--out", str(out), "-j", str(args.jobs), "--host-only", "NoSuch*")
        patterns = sample(out, args.patterns, args.every) if args.every > 1 else args.patterns
        print(f"load average at start: {_load()}; selection: {' '.join(args.patterns)}"
              + (f", one file in {args.every}" if args.every > 1 else ""))
        forget_results(out)
        peer = timed_validate(out, args.jobs, patterns, "--no-pch")
        forget_results(out)
        cold = timed_validate(out, args.jobs, patterns)
        warm = timed_validate(out, args.jobs, patterns)
        print(f"load average at end: {_load()}")
        report(len(cold[2]), args.jobs, peer, cold, warm)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(files: int, jobs: int, peer: tuple, cold: tuple, warm: tuple) -> None:
    rate = lambda seconds: files / seconds * 60  # noqa: E731 - files per minute
    print(f"validate --compile on {files} ported files, -j {jobs}")
    print("| run | wall | files/min | CPU | CPU s/file | ratio |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for label, (wall, cpu, _), ratio in (
        ("no PCH, cold (peer)", peer, ""),
        ("prelude PCH, cold", cold, f"{cold[0] / peer[0]:.2f}x the peer's wall, {cold[1] / peer[1]:.2f}x its CPU"),
        ("warm (cached)", warm, f"{warm[0] / cold[0]:.1%} of cold wall"),
    ):
        print(f"| {label} | {wall:.1f} s | {rate(wall):.1f} | {cpu:.1f} s | {cpu / files:.2f} | {ratio} |")
    peer_verdicts, verdicts = peer[2], cold[2]
    passed = sum(verdicts.values())
    print(f"passed: {passed} of {files}; same verdicts with and without the PCH: {peer_verdicts == verdicts}")
    for name in sorted(f for f in verdicts if verdicts[f] != peer_verdicts.get(f)):
        print(f"  differs: {name}: PCH {verdicts[name]}, no PCH {peer_verdicts.get(name)}")


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


if __name__ == "__main__":
    main()
