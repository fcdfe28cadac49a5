#!/usr/bin/env python3
"""Benchmark: one extension project proven on the ``musa`` device from scratch, against the same project
built for torch's CPU and tested there, in the same run.

What a backend team waits for when it takes up a project is the whole proof: the port, the compile
against the real torch headers, the build by the project's own ported ``setup.py``, and the project's
own tests on ``musa`` (``musaport validate --extension --src``). The goal is at most 10 minutes on
2 cores with the device's build cached. The peer is what the project costs a user without a GPU: its
own ``setup.py`` building the CPU kernels, then the same test files on torch's CPU backend, in the
same torch environment. Both compile cold: each side gets an empty compiler cache of its own (the
device is already built and is only loaded), so neither is helped by an earlier run.

    python3 bench/extension_proof.py --torch PT_OUT          # pytorch_spline_conv from ../shared/extensions
    python3 bench/extension_proof.py --torch PT_OUT --project DIR_OR_TARBALL --build-env NAME=VALUE \\
        --json bench/results/extension-proof.json

PT_OUT is the ``--out`` of ``musaport run --pytorch-src`` of the 2.6.0 tree, its whole device built
(``validate --extension`` builds it first when it has none: that build is not what this measures, so
it stops instead). It prints each phase's wall seconds (from the moment its progress line appeared),
the wall and CPU seconds of both sides, their ratio, and the test counts of both.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from musaport.validate.torchwheel import torchenv  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PROJECT = ROOT.parent / "shared" / "extensions" / "pytorch_spline_conv-050f58a430e4.tar.xz"
DEFAULT_BUILD_ENV = ("FORCE_CUDA=1",)
GOAL_S = 600.0
PHASE = re.compile(r"^musaport: phase (\d+) of (\d+): (.*)$")
COUNTS = re.compile(r"(\d+) (passed|failed|skipped|errors?)\b")


def unpack(project: Path, into: Path) -> Path:
    """The project's tree under ``into``: a folder copied, or a ``.tar.xz`` unpacked (its one top folder)."""
    if project.is_dir():
        return Path(shutil.copytree(project, into / project.name, symlinks=True))
    with tarfile.open(project) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(into, filter="data")
        else:  # Python without extraction filters
            tar.extractall(into)
    (top,) = [p for p in into.iterdir() if p.is_dir()]
    return top


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str], cwd: Path, env: dict[str, str], on_line=None) -> tuple[int, str, float, float]:
    """Run ``cmd``; its exit code, output, wall and CPU seconds (every child it waited for). ``on_line(t,
    line)`` sees each output line as it comes, ``t`` seconds after the start."""
    cpu, started = children_cpu(), time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if on_line:
            on_line(time.monotonic() - started, line.rstrip("\n"))
    code = proc.wait()
    return code, "".join(lines), time.monotonic() - started, children_cpu() - cpu


def phase_name(line: str) -> str:
    """A phase's progress line with its paths cut to their last component (the run's folders are temporary)."""
    return " ".join(Path(w).name if w.startswith("/") else w for w in line.split(" "))


def prove(project: Path, pt_out: Path, work: Path, build_env: list[str], cache: Path) -> dict:
    """``musaport validate --extension --src``: phase times, totals, and the report's test counts."""
    marks: list[tuple[float, str]] = []

    def on_line(t: float, line: str) -> None:
        m = PHASE.match(line)
        if m:
            marks.append((t, m.group(3)))

    out = work / "ext"
    cmd = [sys.executable, "-m", "musaport", "validate", "--extension", "--src", str(project), "--out", str(out),
           "--torch", str(pt_out), "-j", str(os.cpu_count() or 2), *[a for e in build_env for a in ("--build-env", e)]]
    env = dict(os.environ, CCACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    code, output, wall, cpu = timed(cmd, work, env, on_line)
    report_path = out / "validate_extension_report.json"
    if not report_path.is_file():
        raise SystemExit(f"bench/extension_proof.py: validate --extension wrote no report (exit {code}):\n"
                         + output[-3000:])
    report = json.loads(report_path.read_text(encoding="utf-8"))
    ends = [t for t, _ in marks[1:]] + [wall]
    phases = [{"phase": phase_name(name), "wall_s": round(end - start, 1)} for (start, name), end in zip(marks, ends)]
    tests = report["summary"]["tests"]
    return {"exit": code, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "phases": phases,
            "compile": report["summary"]["compile"], "build": report["summary"]["build"],
            "modules": report["summary"]["modules"],
            "tests": {k: tests[k] for k in ("passed", "failed", "skipped", "errors")},
            "test_files": [f["file"] for f in report["tests"]["files"]]}


def peer(project: Path, python: Path, test_files: list[str], cache: Path) -> dict:
    """The unported project built by its own ``setup.py`` for the CPU, then the same test files on torch's
    CPU backend, in the same torch environment."""
    env = dict(os.environ, CCACHE_DIR=str(cache), PYTHONPATH=str(project), MAX_JOBS=str(os.cpu_count() or 2))
    env.pop("CI", None)
    code, output, build_wall, build_cpu = timed([str(python), "setup.py", "build_ext", "--inplace"], project, env)
    if code != 0:
        raise SystemExit(f"bench/extension_proof.py: the CPU build of {project.name} failed:\n{output[-3000:]}")
    code, output, test_wall, test_cpu = timed([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                               "-o", "addopts=", *test_files], project, env)
    summary = output.strip().splitlines()[-1] if output.strip() else ""
    counts = {k: 0 for k in ("passed", "failed", "skipped", "errors")}
    for number, kind in COUNTS.findall(summary):
        counts["errors" if kind.startswith("error") else kind] = int(number)
    return {"build_wall_s": round(build_wall, 1), "tests_wall_s": round(test_wall, 1),
            "wall_s": round(build_wall + test_wall, 1), "cpu_s": round(build_cpu + test_cpu, 1), "tests": counts}


def counts(t: dict) -> str:
    return f"{t['passed']} passed, {t['failed']} failed, {t['skipped']} skipped, {t['errors']} errors"


def table(result: dict) -> str:
    """The Markdown the docs quote: the proof's phases, both sides, the ratio and the goal."""
    proof, cpu = result["proof"], result["peer"]
    rows = ["| step | wall s |", "| --- | ---: |"]
    rows += [f"| musa: {p['phase']} | {p['wall_s']} |" for p in proof["phases"]]
    rows += [f"| **musa: the whole proof** ({counts(proof['tests'])}) | **{proof['wall_s']}** |",
             f"| CPU peer: its own `setup.py`, CPU kernels | {cpu['build_wall_s']} |",
             f"| CPU peer: the same test files on `cpu` ({counts(cpu['tests'])}) | {cpu['tests_wall_s']} |",
             f"| **CPU peer: in all** | **{cpu['wall_s']}** |"]
    ratio = proof["wall_s"] / cpu["wall_s"] if cpu["wall_s"] else float("inf")
    cpu_ratio = proof["cpu_s"] / cpu["cpu_s"] if cpu["cpu_s"] else float("inf")
    goal = "met" if proof["wall_s"] <= GOAL_S else "not met"
    return ("\n".join(rows) + "\n\n"
            f"{result['project']}: the proof on musa took {proof['wall_s']} s of wall and {proof['cpu_s']} s of CPU, "
            f"{ratio:.1f}× the CPU peer's wall ({cpu['wall_s']} s, {cpu['cpu_s']} s of CPU), {cpu_ratio:.1f}× its CPU; "
            f"the goal, "
            f"{GOAL_S:.0f} s with the device built, is {goal}. {result['cores']} cores, load average "
            f"{result['load'][0]:.2f} at start, {result['load'][1]:.2f} at end")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--torch", type=Path, required=True, help="PT_OUT: the 2.6.0 port with its whole device built")
    ap.add_argument("--project", type=Path, default=DEFAULT_PROJECT, help="a project folder or .tar.xz")
    ap.add_argument("--build-env", action="append", help="NAME=VALUE for the musa build (default FORCE_CUDA=1)")
    ap.add_argument("--json", type=Path, help="keep the figures in this file")
    args = ap.parse_args(argv)
    library = args.torch / ".musaport" / "device" / "libmusaport_backend.so"
    if not library.is_file():
        raise SystemExit(f"bench/extension_proof.py: {library}: no device (build PT_OUT's device first)")
    env = torchenv.cached("2.6.0")
    if env is None:
        raise SystemExit("bench/extension_proof.py: needs the torch 2.6.0 environment in the user cache")
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="extension-proof-") as tmp:
        work = Path(tmp)
        (work / "musa").mkdir()
        (work / "cpu").mkdir()
        proof = prove(unpack(args.project, work / "musa"), args.torch.resolve(), work / "musa",
                      args.build_env or list(DEFAULT_BUILD_ENV), work / "ccache-musa")
        cpu = peer(unpack(args.project, work / "cpu"), env.python, proof["test_files"], work / "ccache-cpu")
    load.append(os.getloadavg()[0])
    name = args.project.name.split("-")[0] if args.project.suffix == ".xz" else args.project.name
    result = {"project": name, "proof": proof, "peer": cpu, "cores": os.cpu_count(), "load": load}
    print(table(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0 if proof["exit"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
