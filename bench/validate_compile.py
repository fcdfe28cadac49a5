#!/usr/bin/env python3
"""Benchmark: `musaport validate --compile` on the PyTorch 2.6.0 port, with and without the prelude PCH.

Measures, in one invocation on this machine, on the same selection of ported
translation units:
  - the peer: every TU parsed from scratch (``--no-pch``), cold (no cached results);
  - the default: TUs start from the precompiled common prelude, cold (the PCH is built too);
  - warm: the same command again (results cached by content: nothing to compile);
and prints files per minute, the ratio to the peer, and whether both modes
passed and failed the same files (they must: the PCH saves parsing, it must
not change a verdict).

    python bench/validate_compile.py [--pytorch-src DIR] [--jobs N] [PATTERN ...]

PATTERN selects ported files as `validate` does (default: the 2.6.0 `native/musa` kernels).
Without --pytorch-src it unpacks ../shared/pytorch's 2.6.0 tarball into the test cache.
"""

from __future__ import annotations

import argparse
import json
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


def timed_validate(out: Path, jobs: int, patterns: list[str], *extra: str) -> tuple[float, dict[str, bool]]:
    """Wall seconds of one validate run, and each file's verdict from its report."""
    start = time.perf_counter()
    done = musaport("validate", "--compile", "--out", str(out), "-j", str(jobs), *extra, *patterns)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"validate failed to run:\n{done.stderr}")
    doc = json.loads((out / "validate_report.json").read_text())
    return wall, {f["file"]: f["ok"] for f in doc["files"]}


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
        forget_results(out)
        peer, peer_verdicts = timed_validate(out, args.jobs, args.patterns, "--no-pch")
        forget_results(out)
        cold, verdicts = timed_validate(out, args.jobs, args.patterns)
        warm, _ = timed_validate(out, args.jobs, args.patterns)
        report(len(verdicts), args.jobs, peer, cold, warm, peer_verdicts, verdicts)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(files: int, jobs: int, peer: float, cold: float, warm: float,
           peer_verdicts: dict[str, bool], verdicts: dict[str, bool]) -> None:
    rate = lambda seconds: files / seconds * 60  # noqa: E731 - files per minute
    print(f"validate --compile on {files} ported files, -j {jobs}")
    print("| run | wall | files/min | ratio |")
    print("| --- | ---: | ---: | --- |")
    print(f"| no PCH, cold (peer) | {peer:.1f} s | {rate(peer):.1f} | |")
    print(f"| prelude PCH, cold | {cold:.1f} s | {rate(cold):.1f} | {cold / peer:.2f}x the peer's time |")
    print(f"| warm (cached) | {warm:.1f} s | {rate(warm):.1f} | {warm / cold:.1%} of cold |")
    passed = sum(verdicts.values())
    print(f"passed: {passed} of {files}; same verdicts with and without the PCH: {peer_verdicts == verdicts}")
    for name in sorted(f for f in verdicts if verdicts[f] != peer_verdicts.get(f)):
        print(f"  differs: {name}: PCH {verdicts[name]}, no PCH {peer_verdicts.get(name)}")


if __name__ == "__main__":
    main()
