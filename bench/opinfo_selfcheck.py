#!/usr/bin/env python3
"""The OpInfo runner against itself: the CPU as the "device", with the same samples and comparison.

Why: before judging a port by ``validate --opinfo``, know what the harness
reports when the device is exactly the CPU. Every entry that does not pass
here is noise of the CPU itself (a vector path that rounds differently, a
dtype the CPU does not implement), not a porting error.

    python bench/opinfo_selfcheck.py OUT TORCH_PYTHON [-j N] [--ops a,b]

OUT is a ``musaport run --pytorch-src`` output; TORCH_PYTHON the python of a
torch environment of the tree's release (``<user cache>/torch/<release>/bin/python``).
Prints the counts by status and each entry that does not pass.
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

from musaport.outdir import OutDir
from musaport.validate.opinfo.differential import Device, plan_opinfo, registered_ops, run_opinfo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("python", type=Path)
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("--ops", default="")
    args = parser.parse_args()
    out = OutDir(args.out.resolve())
    registered = registered_ops(out)
    wanted = tuple(n for n in args.ops.split(",") if n)
    plan = plan_opinfo(args.python, out, registered, wanted, log=lambda m: print(m, file=sys.stderr))
    run = run_opinfo(Device(args.python, "cpu"), out, registered, plan, args.jobs,
                     log=lambda m: print(m, file=sys.stderr))
    counts = collections.Counter(r.status for r in run.results)
    print(f"{len(run.results)} entries: " + ", ".join(f"{s} {counts[s]}" for s in ("pass", "fail", "error",
                                                                                   "crash", "skip"))
          + f"; {run.seconds} s with {args.jobs} worker(s)")
    for r in run.results:
        if r.status not in ("pass", "skip"):
            print(f"  {r.key}: {r.status}: {r.reason[:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
