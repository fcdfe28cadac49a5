#!/usr/bin/env python3
"""Benchmark: operators on the emulated ``musa`` device against torch's own CPU backend, in one process.

Each case builds its inputs once on the CPU (fixed seed), copies them to the
device, runs the operation on both, checks that the ``musa`` result matches
the CPU's (a benchmark of wrong numbers measures nothing), then times it:
per device, one warm-up call, a number of calls chosen so that a round lasts
at least ``--min-time``, best of ``--rounds`` rounds, the CPU backend's and
the device's rounds taken in turn (a slow spell of the machine falls on
both alike). It prints wall time and
CPU time (user+sys of the whole process, so the CPU backend's worker threads
count) per call, and the ratios musa/CPU.

    python3 bench/emulation.py --device OUT/.musaport/device/libmusaport_backend.so
    python3 bench/emulation.py --device LIB --cases add_1m,sum_1m --json after.json --compare before.json

It runs inside the release's torch environment (``<user cache>/torch/<release>``,
made by ``validate --opinfo``): started from any other Python, it starts itself
again there, with the loader's folder (beside the library) on ``PYTHONPATH``.
A case whose operator the device lacks (not built, or failing) is reported as
``unavailable`` with the error's first line; the others still run.
``--compare`` reads the ``--json`` of an earlier run (the build before a change)
and adds its musa time and ratio beside the new ones.

torch's CPU backend runs on ``--threads`` threads (default 2, this project's
cores); the device runs blocks on ``MUSAPORT_CPU_WORKERS`` OS threads (unset: 1,
the way ``validate --opinfo`` runs it), reporting ``--multiprocessors`` multiprocessors
(unset: the shim's fixed count), which PyTorch's kernels size their grids by. The load average is printed at start
and end: on a shared machine compare CPU times, not wall times across runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

RELEASE = "2.6.0"


def _cases(torch):
    """name -> (label, make, tolerance): make(device) returns (inputs on that device, a function of them
    giving the result to compare). Inputs come from one CPU generator, so both devices see the same data."""
    F = torch.nn.functional

    def rand(*shape, dtype=torch.float32):
        return torch.randn(*shape, generator=torch.Generator().manual_seed(0), dtype=dtype)

    def binary(n):
        a, b = rand(n), rand(n) + 1
        return lambda d: ((a.to(d), b.to(d)), lambda x, y: torch.add(x, y))

    def unary(shape, fn):
        x = rand(*shape)
        return lambda d: ((x.to(d),), fn)

    def index_select(d):
        x = rand(1 << 20)
        idx = torch.randint(0, 1 << 20, (150_000,), generator=torch.Generator().manual_seed(1))
        return (x.to(d), idx.to(d)), lambda x, i: torch.index_select(x, 0, i)

    def scatter_add(d):
        src = rand(1 << 18)
        idx = torch.randint(0, 1024, (1 << 18,), generator=torch.Generator().manual_seed(2))
        return (src.to(d), idx.to(d)), lambda s, i: torch.zeros(1024, device=s.device).scatter_add_(0, i, s)

    def matmul(n):
        a, b = rand(n, n), rand(n, n)
        return lambda d: ((a.to(d), b.to(d)), torch.matmul)

    def bmm(d):
        a, b = rand(32, 64, 64), rand(32, 64, 64)
        return (a.to(d), b.to(d)), torch.bmm

    def mlp(d):
        """A two-layer perceptron's forward and backward: the loss and the first layer's weight gradient."""
        gen = torch.Generator().manual_seed(3)
        w1, b1 = rand(512, 256) / 16, torch.zeros(512)
        w2, b2 = torch.randn(10, 512, generator=gen) / 22, torch.zeros(10)
        x, y = rand(64, 256), torch.randint(0, 10, (64,), generator=gen)

        def step(x, y, w1, b1, w2, b2):
            w1 = w1.detach().requires_grad_()
            loss = F.cross_entropy(F.linear(F.relu(F.linear(x, w1, b1)), w2, b2), y)
            loss.backward()
            return torch.cat([loss.detach().reshape(1), w1.grad.reshape(-1)])

        return tuple(t.to(d) for t in (x, y, w1, b1, w2, b2)), step

    return {
        "add_16": ("add, 16 elements (latency)", binary(16), 1e-6),
        "add_1m": ("add, 1M elements", binary(1 << 20), 1e-6),
        "sum_1m": ("sum, 1M elements", unary((1 << 20,), torch.sum), 1e-4),
        "sum_dim": ("sum along dim 1, 1024×1024", unary((1024, 1024), lambda x: x.sum(1)), 1e-4),
        "cumsum": ("cumsum along dim 1, 256×4096", unary((256, 4096), lambda x: x.cumsum(1)), 1e-3),
        "sort": ("sort, 100k elements", unary((100_000,), lambda x: torch.sort(x).values), 0.0),
        "softmax": ("softmax, 64×1000", unary((64, 1000), lambda x: torch.softmax(x, 1)), 1e-5),
        "matmul": ("matmul, 256×256", matmul(256), 1e-4),
        "bmm": ("bmm, 32×64×64", bmm, 1e-4),
        "index_select": ("index_select, 150k of 1M", index_select, 0.0),
        "scatter_add": ("scatter_add, 256k into 1024", scatter_add, 1e-4),
        "mlp": ("MLP 256-512-10, batch 64, forward+backward", mlp, 1e-4),
    }


def _calls(fn, args, min_time: float) -> int:
    """Calls per round: enough for a round to last ``min_time`` (one untimed warm-up call measures it)."""
    start = time.perf_counter()
    fn(*args)
    once = max(time.perf_counter() - start, 1e-7)
    return max(1, min(20_000, int(min_time / once)))


def _time_pair(cpu: tuple, musa: tuple | None, min_time: float, rounds: int) -> list[list[float]]:
    """Best-of-rounds [wall, CPU] seconds per call of each (fn, args) given, their rounds interleaved: a
    slow spell of the machine (a new process's first second, a neighbour's job) then falls on both
    devices' rounds alike, and the best of each comes from the quiet rounds."""
    timed = [(fn, args, _calls(fn, args, min_time)) for fn, args in [cpu] + ([musa] if musa else [])]
    best = [[float("inf"), float("inf")] for _ in timed]
    for _ in range(rounds):
        for (fn, args, calls), b in zip(timed, best):
            wall, cpu_time = time.perf_counter(), time.process_time()
            for _ in range(calls):
                fn(*args)
            b[0] = min(b[0], (time.perf_counter() - wall) / calls)
            b[1] = min(b[1], (time.process_time() - cpu_time) / calls)
    return best


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:160]


def run_cases(library: str, names: list[str], threads: int, min_time: float, rounds: int) -> dict:
    """In the torch environment: load the device, run and time every case on cpu and musa."""
    import torch
    import musaport_loader

    torch.set_num_threads(threads)
    musaport_loader.load(library)
    cases = _cases(torch)
    results = {"torch": torch.__version__, "threads": threads, "workers": os.environ.get("MUSAPORT_CPU_WORKERS", "1"),
               "multiprocessors": os.environ.get("MUSAPORT_MULTIPROCESSORS", "default"),
               "load_start": os.getloadavg()[0], "cases": {}}
    for name in names:
        label, make, tol = cases[name]
        row = {"label": label}
        results["cases"][name] = row
        cpu_args, fn = make("cpu")
        try:
            musa_args, musa_fn = make("musa")
            got = musa_fn(*musa_args).cpu()
            torch.testing.assert_close(got, fn(*cpu_args), rtol=tol, atol=tol)
        except Exception as error:  # the device lacks the operator, or computes it wrong: say which
            row["unavailable"] = _first_line(error)
            print(f"{name}: unavailable: {row['unavailable']}", file=sys.stderr, flush=True)
            row["cpu"] = _time_pair((fn, cpu_args), None, min_time, rounds)[0]
            continue
        row["cpu"], row["musa"] = _time_pair((fn, cpu_args), (musa_fn, musa_args), min_time, rounds)
        print(f"{name}: cpu {row['cpu'][0]:.3g} s  musa {row['musa'][0]:.3g} s", file=sys.stderr, flush=True)
    results["load_end"] = os.getloadavg()[0]
    return results


def _seconds(s: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale or unit == "µs":
            v = s / scale
            return f"{v:.3g} {unit}" if v < 100 else f"{v:.0f} {unit}"
    return ""


def table(results: dict, before: dict | None) -> str:
    """The Markdown table: per case, the CPU time per call (user+sys of the process: what a loaded machine
    still measures) on torch's CPU backend and on musa, their ratio and the wall-time ratio; with
    ``before``, the earlier build's musa time and ratio and the speed-up."""
    head = "| operation | CPU backend | musa | ratio | wall ratio |"
    rule = "| --- | ---: | ---: | ---: | ---: |"
    if before:
        head = "| operation | CPU backend | musa before | ratio before | musa | ratio | speed-up |"
        rule = "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    lines = [head, rule]
    for name, row in results["cases"].items():
        cpu_wall, cpu_cpu = row["cpu"]
        old = (before or {}).get("cases", {}).get(name, {})
        cells = [row["label"], _seconds(cpu_cpu)]
        if before:
            cells += ([_seconds(old["musa"][1]), f"{old['musa'][1] / old['cpu'][1]:.1f}×"] if "musa" in old
                      else ["unavailable", ""])
        if "musa" not in row:
            cells += ["unavailable", "", ""]
        else:
            wall, cpu = row["musa"]
            cells += [_seconds(cpu), f"{cpu / cpu_cpu:.1f}×"]
            if before:
                cells.append(f"{old['musa'][1] / cpu:.1f}×" if "musa" in old else "")
            else:
                cells.append(f"{wall / cpu_wall:.1f}×")
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(f"CPU time per call, best of the rounds; torch {results['torch']}, CPU backend on "
                 f"{results['threads']} thread(s), musa on {results['workers']} worker(s); load average "
                 f"{results['load_start']:.2f} at start, {results['load_end']:.2f} at end")
    return "\n".join(lines)


def _torch_python(release: str) -> Path:
    """The release's torch environment's interpreter (made by validate --opinfo, never fetched here)."""
    from musaport.validate.torchwheel import torchenv

    env = torchenv.cached(release)
    if env is None:
        sys.exit(f"musaport: error: no torch {release} environment in the user cache; "
                 "'musaport validate --opinfo' makes it")
    return env.python


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", type=Path, required=True, help="libmusaport_backend.so of a device build")
    parser.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    parser.add_argument("--threads", type=int, default=2, help="torch's CPU threads (torch.set_num_threads)")
    parser.add_argument("--min-time", type=float, default=0.2, help="seconds per timed round, at least")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, help="write the measurements here")
    parser.add_argument("--compare", type=Path, help="the --json of an earlier run: its musa times beside")
    parser.add_argument("--release", default=RELEASE)
    parser.add_argument("--multiprocessors", type=int, help="the multiprocessors the device reports "
                        "(MUSAPORT_MULTIPROCESSORS; default: the shim's fixed count), which PyTorch's kernels size "
                        "their grids by")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    library = args.device.resolve()
    if args.multiprocessors is not None:  # read by the device at its first query, in this process or the child
        os.environ["MUSAPORT_MULTIPROCESSORS"] = str(args.multiprocessors)
    if not library.is_file():
        sys.exit(f"musaport: error: {args.device}: no such library (build the device first)")
    try:
        import torch  # noqa: F401
        import musaport_loader  # noqa: F401
        inside = True
    except ImportError:
        inside = False
    if not inside:
        if args.child:
            sys.exit("musaport: error: torch or the loader is not importable in the torch environment")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(library.parent),
                                                                        os.environ.get("PYTHONPATH", "")])))
        cmd = [str(_torch_python(args.release)), str(Path(__file__).resolve()), *sys.argv[1:], "--child"]
        return subprocess.run(cmd, env=env, check=False).returncode
    import torch

    known = list(_cases(torch))
    names = [n for n in args.cases.split(",") if n] or known
    unknown = [n for n in names if n not in known]
    if unknown:
        sys.exit(f"musaport: error: unknown case(s) {', '.join(unknown)}; known: {', '.join(known)}")
    before = json.loads(args.compare.read_text(encoding="utf-8")) if args.compare else None
    results = run_cases(str(library), names, args.threads, args.min_time, args.rounds)
    results["library"] = str(library)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(table(results, before))
    return 0


if __name__ == "__main__":
    sys.exit(main())
