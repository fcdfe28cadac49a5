#!/usr/bin/env python3
"""Benchmark: building the musa device (``validate.device.build_device``) with CMake, Ninja and ccache.

Measures, in one invocation, on a port of PyTorch 2.6.0 (``--out`` of a
``musaport run``, copied so that it stays as it is):
  - cold: a fresh build folder and an empty ccache (``CCACHE_DIR`` in a
    temporary folder): every file compiled;
  - warm in another folder: a second copy of the port, the same ccache: what a
    CI run or a second ``--out`` pays (CMake's configure, ccache answering);
  - one ported file changed: a line of code appended to ``--touch`` (a ported
    kernel, default ``AbsKernel.mu``; a comment would not do, ccache's
    preprocessor mode sees through it) in the first copy, then the build
    again: Ninja recompiles that file only and links.
It prints wall and CPU seconds (this process and every compiler it ran), the
objects, the compiler runs and the load average at start and end; on a shared
machine compare CPU seconds, not wall times across runs.

    python bench/device_build.py --out build260 [--ops empty,abs,...|--whole] [--jobs N] [--touch REL]

Without --ops or --whole it builds the M1 operators. --whole builds every
registered operator from the port's default build lists (targeted at 20
minutes cold on 2 idle cores).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from musaport.outdir import OutDir
from musaport.validate.device.build import build_device

M1 = "empty,copy_,fill_,abs,neg,add,mul,tril,triu,sum,mean"


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure(label: str, out: Path, ops, jobs: int) -> None:
    wall, cpu = time.monotonic(), _cpu()
    build = build_device(OutDir(out), ops, jobs, progress=lambda m: None)
    wall, cpu = time.monotonic() - wall, _cpu() - cpu
    states = {}
    for o in build.operators.values():
        states[o.status] = states.get(o.status, 0) + 1
    print(f"{label:<28} wall {wall:8.1f} s  cpu {cpu:8.1f} s  objects {build.figures['objects']:4}  "
          f"compiler runs {build.figures['compiled']:4}  library {'yes' if build.library else 'NO'}  {states}",
          flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="the --out of 'musaport run' on PyTorch 2.6.0")
    parser.add_argument("--ops", default=M1)
    parser.add_argument("--whole", action="store_true", help="every registered operator, the whole build lists")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--touch", default="aten/src/ATen/native/musa/AbsKernel.mu")
    parser.add_argument("--keep-ccache", action="store_true",
                        help="skip the cold build: use the user's ccache as it is (warm and one-file figures only)")
    args = parser.parse_args()
    ops = None if args.whole else tuple(args.ops.split(","))
    print(f"load average at start: {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="musaport-bench-") as tmp:
        if not args.keep_ccache:
            os.environ["CCACHE_DIR"] = str(Path(tmp) / "ccache")  # an empty compiler cache: cold
        first, second = Path(tmp) / "a", Path(tmp) / "b"
        for copy in (first, second):
            shutil.copytree(args.out, copy, symlinks=True, ignore=shutil.ignore_patterns("device"))
        measure("warm, a fresh --out" if args.keep_ccache else "cold", first, ops, args.jobs)
        measure("warm, another --out", second, ops, args.jobs)
        touched = OutDir(first).tree / args.touch
        with touched.open("a", encoding="utf-8") as f:  # code, not a comment: ccache would see through that
            f.write(f"\nnamespace {{ [[maybe_unused]] int musaport_bench_touch = {time.time_ns()}; }}\n")
        measure(f"one file changed ({touched.name})", first, ops, args.jobs)
    print(f"load average at end: {os.getloadavg()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
