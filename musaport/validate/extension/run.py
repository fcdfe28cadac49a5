"""``musaport validate --extension``: a ported extension project proven as the PyTorch port is.

Three phases on the ``--out`` of ``musaport run --src PROJECT`` (EXT_OUT; with ``--src PROJECT`` the
port is made first, as a fourth phase before them: ``extension.port``),
against the ``--out`` of ``musaport run --pytorch-src`` of the release the
project builds with (PT_OUT, ``--torch``), whose ``musa`` device is built
first if it is not (``validate.device``):

1. compile: every ported TU against the real torch (``extension.compile``);
2. build: the ported ``setup.py`` run with a stand-in ``torch_musa``, every
   module it made loaded with the device (``extension.build``);
3. tests: the project's own tests through pytest on ``musa``
   (``extension.tests``).

Everything it writes is under EXT_OUT: ``validate_extension_report.json``
and ``.md`` at its top, the work in ``.musaport/extension/``.  PT_OUT is
only read (but for building its device when it has none, as
``validate --opinfo`` does).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from musaport.errors import LoadError, ToolError
from musaport.outdir import EXTENSION_DEPS, VALIDATE_EXTENSION_JSON, VALIDATE_EXTENSION_MD, OutDir, write_atomic
from musaport.resources import render_template
from musaport.validate.backend.backend import LIBRARY, SHIM
from musaport.validate.device.build import LOADER, STATE
from musaport.validate.extension import build as phase_build
from musaport.validate.extension import compile as phase_compile
from musaport.validate.extension.companions import Companion, companions, replaced
from musaport.validate.extension import tests as phase_tests
from musaport.validate.extension.trace import Tracer
from musaport.validate.torchwheel import libtorch, torchenv

@dataclass(frozen=True)
class Outcome:
    """The report as written, and the counts the exit code is made of."""

    doc: dict
    passed: int
    total: int
    json_path: Path
    md_path: Path


def pytorch_port(torch: Path | None) -> OutDir:
    """``--torch``: the OUT of ``run --pytorch-src`` (a LoadError naming it otherwise)."""
    if torch is None:
        raise LoadError("--extension needs --torch PT_OUT, the --out of 'musaport run --pytorch-src' of the "
                        "release the project builds with")
    pt = OutDir(torch)
    source = pt.source()
    if not pt.report_json.is_file() or source is None:
        raise LoadError(f"{torch}: --torch is not the --out of 'musaport run --pytorch-src' (no {pt.report_json.name})")
    if not (source / "aten/src/ATen").is_dir():
        raise LoadError(f"{torch}: --torch is a port of {source}, which is not a PyTorch tree")
    return pt


def device_of(pt: OutDir, jobs: int, log) -> phase_build.Device:
    """PT_OUT's ``musa`` device, built (every operator) when it has none yet, or none with its shim
    beside it (a device built before the shim was mirrored there)."""
    state = pt.work(STATE)
    library = state / LIBRARY
    release = libtorch.release(pt.source())
    try:
        env = torchenv.fetch(release, log=log)
    except torchenv.FetchError as exc:
        raise ToolError(str(exc)) from None
    if not all(f.is_file() for f in (library, state / LOADER, state / SHIM / "include/musa_runtime.h")):
        from musaport.validate.device.build import build_device

        log(f"musaport: {pt.root} has no musa device yet: building it")
        built = build_device(pt, None, jobs, log)
        if built.library is None:
            raise ToolError(f"{pt.root}: the musa device did not build: {built.figures.get('error', '')}")
    return phase_build.Device(library, state, state / "cpu", env.python, env.site_packages / "torch/include", release)


def validate_extension(out: OutDir, torch: Path | None, jobs: int, build_env: dict[str, str],
                       test_patterns: tuple[str, ...], log, echo, progress=None, command: str = "",
                       test_deps: tuple[str, ...] = (), patches: tuple[Path, ...] = (), select: str = "",
                       ported: dict | None = None, with_extensions: tuple[Path, ...] = ()) -> Outcome:
    """The three phases; the report written; see the module docstring. ``ported``: what the port phase of
    ``--src`` did (``validate.extension.port``), which came first and is counted as phase 1 of 4.
    ``with_extensions``: other extensions' OUTs, validated against the same PT_OUT, whose built packages the
    tests import (``companions``)."""
    started = time.monotonic()
    first, phases = (2, 4) if ported else (1, 3)
    out.require_port()
    pt = pytorch_port(torch)
    mates = check_companions(with_extensions, pt, out)
    patterns = phase_tests.check_patterns(test_patterns)
    device = device_of(pt, jobs, log)
    tracer = Tracer(out)
    state = out.work("extension")

    log(f"musaport: phase {first} of {phases}: compile every ported file against the real torch")
    try:
        outcomes = phase_compile.compile_phase(out, pt, device.torch_include, device.python, jobs, progress)
    except LoadError:
        outcomes = []  # no translation unit in the port: nothing to compile
    files = []
    for c in outcomes:
        echo(f"{'PASS' if c.ok else 'FAIL'} {c.file}" + ("" if c.ok else f" [{c.failed_pass}] {c.error}"))
        entry = asdict(c)
        if not c.ok:
            entry.update(tracer.trace(c.error, [c.file]).as_dict())
        files.append(entry)
    compiled = {"passed": sum(c.ok for c in outcomes), "total": len(outcomes), "files": files}

    log(f"musaport: phase {first + 1} of {phases}: build with the ported setup.py and load each module with the device")
    deps_error = phase_build.install_deps(state, device, test_deps, log)
    if deps_error:
        echo(f"FAIL {deps_error}")
    built = phase_build.run_build(out, state, device, build_env, log, patches, jobs)
    for applied in built.patches:
        echo(f"NOTE patch {applied['patch']} laid over the port: {', '.join(applied['files'])}")
    echo(f"{'PASS' if built.ok else 'FAIL'} build ({built.command})" + ("" if built.ok else f": {built.error}"))
    for m in built.modules:
        echo(f"{'PASS' if m.loaded else 'FAIL'} import {m.name}" + ("" if m.loaded else f": {m.error}")
             + (f" (missing: {', '.join(m.missing[:4])}{' ...' if len(m.missing) > 4 else ''})" if m.missing else ""))
        for symbol, where in m.defined_in.items():
            echo(f"NOTE {symbol} is defined in {', '.join(where)}"
                 + (", which no module of the build compiles" if set(where) <= set(built.dropped) else ""))
    build_doc = asdict(built)
    if not built.ok:
        # A build stops in setup.py's Python as often as in a compiler: every finding of the files it names.
        build_doc["trace"] = tracer.trace(built.error + "\n" + _log_tail(built.log), [], near=None).as_dict()
    for m in build_doc["modules"]:  # a missing symbol leads to the ported file that defines it, else the module's
        where = sorted({f for files in m["defined_in"].values() for f in files})
        m["trace"] = tracer.trace("", where or m["sources"], near=None).as_dict() if not m["loaded"] else {}

    log(f"musaport: phase {first + 2} of {phases}: the project's own tests on musa")
    mates_doc = []
    for m in mates:
        echo(f"NOTE the tests import the port of {m.project or m.out} too ({', '.join(m.modules)}, from {m.out})")
        shadowed = replaced(m, state / EXTENSION_DEPS)
        if shadowed:
            echo(f"NOTE --test-deps installed {', '.join(shadowed)} too; the tests import the port's, from {m.out}")
        mates_doc.append(dict(asdict(m), replaces=shadowed))
    tree = state / "src"
    test_files: list[phase_tests.TestFile] = []
    if built.ok:
        root = phase_build.tests_folder(tree, out)
        env = phase_build.environment(out, state / "site", device, build_env, jobs)
        sources = sorted({s for m in built.modules for s in m.sources})
        phase_build.clear_jit_records(state)
        test_files = phase_tests.run_tests(tree, root, phase_tests.find_tests(tree, patterns), device, env, state,
                                           tracer, sources, log, select, [Path(m.path) for m in mates])
        _account_jit_builds(built, build_doc, phase_build.jit_modules(state, tree), tracer, echo)
    for rel in built.dropped:
        echo(f"NOTE {rel}: ported, but no module of the build compiles it"
             + (", nor any JIT build of the tests' run" if built.ok else ""))
    for t in test_files:
        echo(f"{'PASS' if _clean(t) else 'FAIL'} tests {t.file}: {t.passed} passed, {t.failed} failed, "
             f"{t.skipped} skipped, {t.errors} errors" + (f" ({t.error})" if t.error else ""))
    totals = {k: sum(getattr(t, k) for t in test_files)
              for k in ("passed", "failed", "skipped", "errors", "passed_off_device", "failed_off_device",
                        "failed_memory")}
    tests_doc = {"ran": built.ok, "patterns": list(patterns), "select": select, "deps": list(test_deps),
                 "memory_limit_bytes": phase_tests.memory_limit(),
                 "deps_error": deps_error, "with_extensions": mates_doc,
                 **totals, "files": [asdict(t) for t in test_files]}

    loaded = sum(m.loaded for m in built.modules)
    doc = {"command": command, "project": str(out.source()), "torch": str(pt.root), "release": device.release,
           **({"port": ported} if ported else {}),
           "device": str(device.library), "compile": compiled, "build": build_doc, "tests": tests_doc,
           "summary": {"compile": [compiled["passed"], compiled["total"]], "build": built.ok,
                       "modules": [loaded, len(built.modules)], "dropped_kernels": len(built.dropped),
                       "tests": totals, "seconds": round(time.monotonic() - started, 1)}}
    json_path, md_path = out.top(VALIDATE_EXTENSION_JSON), out.top(VALIDATE_EXTENSION_MD)
    write_atomic(json_path, (json.dumps(doc, indent=2) + "\n").encode())
    write_atomic(md_path, render_template("validate_extension_report.md.j2", doc=doc).encode())
    passed = compiled["passed"] + int(built.ok) + loaded + sum(_clean(t) for t in test_files)
    total = compiled["total"] + 1 + len(built.modules) + len(test_files) + len(built.dropped) + bool(deps_error)
    return Outcome(doc, passed, total, json_path, md_path)


def _account_jit_builds(built: phase_build.BuildResult, build_doc: dict, jit: list[phase_build.Module], tracer,
                        echo) -> None:
    """The modules the project's code built while its tests ran join the build's: counted among the modules
    (loaded or not), and their sources are no longer dropped kernels."""
    for m in jit:
        what = "from sources in Python strings" if m.inline else f"{len(m.sources)} sources"
        echo(f"{'PASS' if m.loaded else 'FAIL'} JIT build {m.name} when the tests ran ({what})"
             + ("" if m.loaded else f": {m.error}"))
        built.modules.append(m)
        doc = asdict(m)
        doc["trace"] = tracer.trace("", m.sources, near=None).as_dict() if not m.loaded else {}
        build_doc["modules"].append(doc)
    compiled = {s for m in jit for s in m.sources}
    built.dropped = [rel for rel in built.dropped if rel not in compiled]
    build_doc["dropped"] = list(built.dropped)


def check_companions(roots: tuple[Path, ...], pt: OutDir, out: OutDir) -> list[Companion]:
    """``--with-extension``: each checked against PT_OUT's device (where it is, built or not yet)."""
    return companions(roots, pt.root, pt.work(STATE) / LIBRARY, out.root)


def _clean(t: phase_tests.TestFile) -> bool:
    return not (t.failed or t.errors or t.error) and bool(t.passed + t.skipped)


def _log_tail(path: str, lines: int = 60) -> str:
    try:
        return "\n".join(Path(path).read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def summary_line(o: Outcome) -> str:
    s = o.doc["summary"]
    t = s["tests"]
    tests = (f"tests {t['passed']} passed, {t['failed']} failed, {t['skipped']} skipped, {t['errors']} errors"
             + off_device(t) + lacking_memory(t, o.doc["tests"].get("memory_limit_bytes", 0))
             + (f" (only those -k {o.doc['tests']['select']!r} selects)" if o.doc["tests"].get("select") else "")
             if o.doc["tests"]["ran"] else "tests not run (the build failed)")
    return (f"compile {s['compile'][0]} of {s['compile'][1]} passed; build {'passed' if s['build'] else 'failed'}; "
            f"modules loaded {s['modules'][0]} of {s['modules'][1]}"
            + (f"; {s['dropped_kernels']} ported kernel file(s) in no module" if s["dropped_kernels"] else "")
            + f"; {tests}; report: {o.md_path}")


def lacking_memory(totals: dict, limit: int) -> str:
    """The failures that were allocations refused for lack of memory, said apart, with the bound they met."""
    lacking = totals.get("failed_memory", 0)
    if not lacking:
        return ""
    return (f" ({lacking} failed for lack of memory: a test process may use {limit / 2**30:.1f} GiB here, "
            "three quarters of this machine's RAM and swap)")


def off_device(totals: dict) -> str:
    """The passes and failures that never allocated on musa, said apart: their tensors were elsewhere."""
    passed, failed = totals.get("passed_off_device", 0), totals.get("failed_off_device", 0)
    if not (passed or failed):
        return ""
    return f" ({passed} passed and {failed} failed or errors without allocating on musa)"
