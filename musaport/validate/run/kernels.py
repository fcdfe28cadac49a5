"""``musaport validate --run``: port the fixture kernels, build them for the CPU, run them.

Each fixture in ``fixtures/kernels/`` is CUDA source written for this project
with a host ``main`` that checks its own results against a plain CPU loop.
It is ported with the same rules as PyTorch, its ``<<<...>>>`` launches are
turned into calls (g++ cannot parse them), and it is compiled with g++
against the shim's CPU execution runtime and run.  A fixture that documents
an expected failure (``// expect: error TEXT``) passes when it fails with TEXT.
"""

from __future__ import annotations

import fnmatch
import json
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path

from musaport import children
from musaport.cpp.launches import rewrite_launches
from musaport.cpp.parser import encode, parse
from musaport.outdir import VALIDATE_RUN_JSON, OutDir, write_atomic
from musaport.port.file import port_bytes
from musaport.resources import data_dir, default_packs, parse_vocabulary, shim_include, vocabulary_file
from musaport.rewrite.rules import RuleSet
from musaport.rewrite.packs import load_packs
from musaport.validate.cpu.link import link_flags

CXX = "g++"
_EXPECT = re.compile(r"//\s*expect:\s*error\s+(.+)")


@dataclass(frozen=True)
class KernelOutcome:
    """One fixture kernel: did it build and pass, and what it printed last."""

    name: str
    ok: bool
    stage: str  # port | build | run | expected-failure
    detail: str


def fixture_kernels(patterns: tuple[str, ...] = ()) -> list[Path]:
    """The fixture kernels ``patterns`` select (all without one), each matched by its file name or by its name
    without ``.cu``, as the reports name them (``elementwise`` as well as ``elementwise.cu`` or ``elem*``)."""
    found = sorted((data_dir("fixtures") / "kernels").glob("*.cu"))
    return [k for k in found
            if not patterns or any(fnmatch.fnmatchcase(k.name, p) or fnmatch.fnmatchcase(k.stem, p) for p in patterns)]


def port_fixture(path: Path, rules: RuleSet, vocabulary: frozenset[str]) -> bytes:
    """A fixture file (program or shared header) ported with the bundled rules, as ``.mu``/``.muh`` bytes."""
    rel = f"fixtures/kernels/{path.name}"
    out = rel[: -len(path.suffix)] + {".cu": ".mu", ".cuh": ".muh"}[path.suffix]
    return port_bytes(path.read_bytes(), rel, out, rules, vocabulary).data or path.read_bytes()


def cpu_source(kernel: Path, rules: RuleSet, vocabulary: frozenset[str]) -> tuple[bytes, str]:
    """The fixture as ported (``.mu`` bytes) and as the CPU build sees it (launches turned into calls)."""
    data = port_fixture(kernel, rules, vocabulary)
    return data, rewrite_launches(parse(data))


def port_headers(work: Path, rules: RuleSet, vocabulary: frozenset[str]) -> None:
    """Port the fixtures' shared ``.cuh`` headers next to the programs (their includes are renamed too)."""
    for header in sorted((data_dir("fixtures") / "kernels").glob("*.cuh")):
        write_atomic(work / header.with_suffix(".muh").name, port_fixture(header, rules, vocabulary))


@dataclass(frozen=True)
class Prepared:
    """A fixture ported and written out, ready to build (or the reason it is not)."""

    name: str
    cpp: Path | None
    expect: str | None
    error: str = ""


def prepare(kernel: Path, work: Path, rules: RuleSet, vocabulary: frozenset[str]) -> Prepared:
    """Port one fixture and write its ``.mu`` and CPU copy; libclang runs here, so one at a time.

    The CPU copy starts with a ``#line`` directive naming the ``.mu``, so a
    fault the runtime reports (a partial barrier, say) points at the ported
    source the user reads, not at the generated copy.
    """
    name = kernel.stem
    match = _EXPECT.search(kernel.read_text(encoding="utf-8"))
    expect = match.group(1).strip() if match else None
    try:
        mu, cpu = cpu_source(kernel, rules, vocabulary)
    except ValueError as exc:
        return Prepared(name, None, expect, str(exc))
    mu_path, cpp = work / f"{name}.mu", work / f"{name}.cpp"
    write_atomic(mu_path, mu)
    write_atomic(cpp, encode(f'#line 1 "{mu_path}"\n' + cpu))
    return Prepared(name, cpp, expect)


def build_and_run(job: Prepared) -> KernelOutcome:
    """Compile, link and run one prepared fixture; every failure is an outcome, not an exception."""
    if job.cpp is None:
        return KernelOutcome(job.name, False, "port", job.error)
    exe, obj = job.cpp.with_suffix(""), job.cpp.with_suffix(".o")
    built = children.run(_compile_command(job.cpp, obj), cwd=job.cpp.parent)
    if built.returncode == 0:
        built = children.run([CXX, "-pthread", str(obj), "-o", str(exe), *link_flags([obj])], cwd=job.cpp.parent)
    if built.returncode != 0:
        return KernelOutcome(job.name, False, "build", _first_error(built.stderr))
    try:
        ran = children.run([str(exe)], cwd=job.cpp.parent, timeout=120)
    except subprocess.TimeoutExpired:
        return KernelOutcome(job.name, False, "run", "timed out after 120 s")
    output = (ran.stdout + ran.stderr).strip()
    if job.expect:
        ok = ran.returncode != 0 and job.expect in output
        return KernelOutcome(job.name, ok, "expected-failure", _last(output))
    return KernelOutcome(job.name, ran.returncode == 0 and "PASS" in ran.stdout, "run", _last(output))


def _compile_command(cpp: Path, obj: Path) -> list[str]:
    return [CXX, "-std=c++17", "-O1", "-pthread", f"-I{shim_include()}", "-include", "musa_runtime.h",
            "-x", "c++", "-c", str(cpp), "-o", str(obj)]


def _first_error(stderr: str) -> str:
    return next((ln for ln in stderr.splitlines() if "error" in ln), stderr.strip()[:300])


def _last(output: str) -> str:
    return (output.splitlines() or [""])[-1][:300]


def validate_run(out: OutDir, patterns: tuple[str, ...], jobs: int, progress=None) -> list[KernelOutcome]:
    """Build and run every selected fixture kernel, in parallel (``progress`` is told how far it got)."""
    rules = load_packs(default_packs())
    vocabulary = parse_vocabulary(vocabulary_file().read_bytes())
    work = out.work("validate-run")
    work.mkdir(parents=True, exist_ok=True)
    port_headers(work, rules, vocabulary)
    prepared = [prepare(k, work, rules, vocabulary) for k in fixture_kernels(patterns)]
    if progress is None:
        from musaport.validate.compile.compile import Progress

        progress = Progress()
    with ThreadPoolExecutor(max(1, jobs)) as pool, \
            progress.steps(f"building and running {len(prepared)} fixture kernels with g++", len(prepared)) as count:
        futures = [pool.submit(build_and_run, p) for p in prepared]
        for future in as_completed(futures):
            future.result()
            count.advance()
        return [f.result() for f in futures]


def write_run_report(out: OutDir, outcomes: list[KernelOutcome]) -> Path:
    """validate_run.json: one record per kernel; its path."""
    path = out.top(VALIDATE_RUN_JSON)
    write_atomic(path, (json.dumps([asdict(o) for o in outcomes], indent=2) + "\n").encode())
    return path
