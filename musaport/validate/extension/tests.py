"""Phase 3 of ``validate --extension``: the project's own tests, through pytest, on the ``musa`` device.

They run in the build tree (the project, its port laid over it, the modules
phase 2 built in place), so they import the ported Python as the port left
it.  One pytest per test file, in the torch environment, with our plugin
loading the device before any test module (``-p musaport_extension_plugin``)
and pytest-forked running each test in a process of its own: a test that
kills its process fails alone.  ``MUSAPORT_TEST_DEVICE=musa`` is set for
tests that take their device from the environment.  The project's own
``addopts`` are dropped (``--cov`` and the like need plugins the environment
does not have).  Each failure keeps its first error line and is traced to
the ported files its traceback names, else to the ported sources of the
modules the build made, and the rules that changed them (``trace``).

A test file with no test function or class (``is_script``), or in which
pytest collects nothing (exit code 5), is a script (Deformable-DETR's
``test.py`` checks in ``if __name__ == "__main__"``): it runs as its project
runs it, ``python FILE`` in its own folder, with the device loaded first,
and counts as one test, passed when it exits 0.

Each test process may use three quarters of the machine's memory (its
address space is bounded by RAM and swap, ``memory_limit``): a test that asks
for more (a dense Jacobian of a large gradient check) fails with its allocator's
own out-of-memory error, which the report counts apart as a lack of memory,
instead of driving the machine into the kernel's OOM killer, which ends a
process without a word, and not always the test's.
"""

from __future__ import annotations

import ast
import fnmatch
import os
import re
import subprocess
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from musaport import children
from musaport.errors import LoadError
from musaport.outdir import EXTENSION_DEPS, EXTENSION_TEST_JUNIT, EXTENSION_TEST_LOG, write_atomic
from musaport.validate.extension.build import SKIPPED_DIRS, Device
from musaport.validate.extension.trace import Tracer

DEFAULT_PATTERNS = ("test_*.py", "*_test.py")
NO_TESTS_COLLECTED = 5  # pytest's exit code
# A script run with the device loaded first, as the pytest plugin loads it.
_SCRIPT = ("import runpy, sys; import musaport_extension_plugin as p; p.pytest_configure(None); "
           "sys.argv = [sys.argv[1]]; runpy.run_path(sys.argv[0], run_name='__main__')")
TEST_SECONDS = 300  # one test (pytest-timeout)
# The first error lines of an allocation that failed: the device's caching allocator ("MUSA out of memory"),
# torch's CPU allocator ("DefaultCPUAllocator: can't allocate memory"), Python's and C++'s own.
OUT_OF_MEMORY = re.compile(r"out of memory|not enough memory|can't allocate memory|\bMemoryError\b|std::bad_alloc",
                           re.IGNORECASE)
FILE_SECONDS = 3600.0  # one file


@dataclass
class TestFile:
    """One test file's counts, and its failures (test id, first error line, trace)."""

    file: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    errors: int = 0
    seconds: float = 0.0
    error: str = ""  # the file did not run (collection error, pytest died): why
    failures: list[dict] = field(default_factory=list)
    skip_reasons: dict[str, int] = field(default_factory=dict)
    # Of the passes and of the failures and errors, those that allocated nothing on the device (the plugin's
    # musa_allocations property): their tensors were elsewhere, or empty, so they say little of the port.
    passed_off_device: int = 0
    failed_off_device: int = 0
    # Of the failures and errors, those whose error is an allocation that failed: the test needs more memory
    # than a test process may use here (memory_limit), which says nothing of the port.
    failed_memory: int = 0


def find_tests(tree: Path, patterns: tuple[str, ...]) -> list[Path]:
    """The test files under the build tree: a pattern with a ``/`` is matched against the tree-relative
    path, one without against the file name (pytest's own ``python_files`` by default)."""
    found = []
    for folder, dirs, names in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(".") and d != "site")
        for n in sorted(names):
            rel = (Path(folder) / n).relative_to(tree).as_posix()
            if n.endswith(".py") and any(fnmatch.fnmatchcase(rel if "/" in p else n, p) for p in patterns):
                found.append(Path(folder) / n)
    return found


def memory_limit() -> int:
    """Bytes of address space one test process may use: three quarters of this machine's RAM and swap
    (``/proc/meminfo``). The rest stays with the machine: a test that fills all of it evicts every other
    process's pages, and the harness, a build beside it, and the test itself then crawl."""
    sizes = {}
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            name, _, value = line.partition(":")
            if name in ("MemTotal", "SwapTotal") and value.split():
                sizes[name] = int(value.split()[0]) * 1024
    except (OSError, ValueError):
        pass
    total = sizes.get("MemTotal", os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")) + sizes.get("SwapTotal", 0)
    return total // 4 * 3


def lacks_memory(error: str) -> bool:
    """Whether a failure's first error line is an allocation that failed."""
    return bool(OUT_OF_MEMORY.search(error))


def run_tests(tree: Path, root: Path, files: list[Path], device: Device, env: dict[str, str], state: Path,
              tracer: Tracer, built_sources: list[str], log, select: str = "",
              companions: list[Path] | None = None) -> list[TestFile]:
    """Each file through pytest in ``root`` (the folder of the ported setup.py); counts and traced failures.
    ``companions``: the build trees of other ported extensions the tests import, on the path after ``root``.

    ``select``: a pytest ``-k`` expression (``--test-select``), for projects whose parametrized suites are
    too large for the emulated device; a file in which it selects nothing, and a script (which has no
    test names to match), is left out and said so."""
    if not files:
        return []
    results = []
    path = tests_path(env["PYTHONPATH"], root, companions or [], state / EXTENSION_DEPS)
    env = dict(env, MUSAPORT_TEST_DEVICE="musa", PYTHONPATH=path)
    for i, path in enumerate(files, 1):
        rel = path.relative_to(tree).as_posix()
        log(f"musaport: tests {i} of {len(files)}: {rel}")
        xml = state / "tests" / f"{i:03d}{EXTENSION_TEST_JUNIT}"
        xml.unlink(missing_ok=True)
        xml.parent.mkdir(parents=True, exist_ok=True)
        cmd = [str(device.python), "-m", "pytest", str(path), "-p", "musaport_extension_plugin", "--forked",
               f"--timeout={TEST_SECONDS}", "-o", "addopts=", "-q", "-rN", f"--junitxml={xml}", "-p", "no:cacheprovider",
               *(["-k", select] if select else [])]
        script = is_script(path)
        if select and script:
            log(f"musaport: tests {rel}: a script, left out by --test-select")
            continue
        code, output = (NO_TESTS_COLLECTED, "") if script else _run(cmd, root, env)[:2]
        if select and code == NO_TESTS_COLLECTED:
            log(f"musaport: tests {rel}: --test-select {select!r} selects none of its tests")
            continue
        if code == NO_TESTS_COLLECTED:
            code, script_output, seconds = _run([str(device.python), "-c", _SCRIPT, path.name], path.parent, env)
            output += f"\n--- no pytest test; run as a script: python {path.name} ---\n{script_output}"
            write_atomic(state / "tests" / f"{i:03d}{EXTENSION_TEST_LOG}", output.encode())
            results.append(_script_result(rel, code, script_output, seconds, tracer, built_sources))
            continue
        write_atomic(state / "tests" / f"{i:03d}{EXTENSION_TEST_LOG}", output.encode())
        results.append(_read(rel, xml, output, tracer, built_sources))
    return results


def tests_path(build_path: str, root: Path, companions: list[Path], deps: Path) -> str:
    """The tests' ``PYTHONPATH``: the build's (the stand-in, the device's loader), the project's folder, the
    other ported extensions (``--with-extension``), and only then the packages ``--test-deps`` installed.

    A companion comes before those packages: a requirement (or one of its own, as pip resolved them) may
    be the PyPI distribution of the very project the companion ports (``torchvision``, whose wheel's
    operators have no ``musa`` kernels), and the tests must import the port."""
    parts = [p for p in build_path.split(os.pathsep) if p]
    installed = [p for p in parts if Path(p) == deps]
    rest = [p for p in parts if Path(p) != deps]
    return os.pathsep.join([*rest, str(root), *(str(c) for c in companions), *installed])


def is_script(path: Path) -> bool:
    """Whether a test file is a script: Python with no function or class pytest would collect (``test*``
    functions, ``Test*`` classes) anywhere in it. Collecting it would run its top-level code as an import."""
    try:
        tree = ast.parse(path.read_bytes())
    except (SyntaxError, ValueError, OSError):
        return False  # pytest reports what is wrong with it
    return not any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test")
                   or isinstance(n, ast.ClassDef) and n.name.startswith("Test") for n in ast.walk(tree))


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[int | None, str, float]:
    """A test process: its exit code (None when it took more than FILE_SECONDS), output and seconds."""
    started = time.monotonic()
    try:
        done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=FILE_SECONDS,
                              stdin=subprocess.DEVNULL, preexec_fn=children.tied_and_bounded(memory_limit()))
        return done.returncode, done.stdout + done.stderr, time.monotonic() - started
    except subprocess.TimeoutExpired as exc:
        output = f"{exc.stdout or ''}{exc.stderr or ''}\nthe file took more than {FILE_SECONDS:.0f} s"
        return None, output, time.monotonic() - started


def _script_result(rel: str, code: int | None, output: str, seconds: float, tracer: Tracer,
                   built_sources: list[str]) -> TestFile:
    """A test script as one test: passed when it exits 0, else failed with its last error line, traced."""
    result = TestFile(rel, seconds=round(seconds, 1))
    if code == 0:
        result.passed = 1
        return result
    result.failed = 1
    if code is None:
        error = f"the script ran past {FILE_SECONDS:.0f} s"
    elif code < 0:  # killed: the last line it printed is no error of its own
        error = f"the script's process died ({children.signal_name(-code)})"
    else:
        error = _script_error(output) or f"exit code {code}"
    result.failed_memory = int(lacks_memory(error))
    result.failures.append({"test": f"{rel} (script)", "kind": "failure", "error": error,
                            "musa_allocations": None,  # the plugin counts per pytest test; a script is not one
                            "lacks_memory": lacks_memory(error), **tracer.trace(output, built_sources).as_dict()})
    return result


def _script_error(output: str) -> str:
    """A script's exception line (the last line of its traceback), else its last line."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    for line in reversed(lines):
        if re.match(r"^\w+(?:\.\w+)*(?:Error|Exception|Exit)\b", line):
            return line[:300]
    return lines[-1][:300] if lines else ""


def _read(rel: str, xml: Path, output: str, tracer: Tracer, built_sources: list[str]) -> TestFile:
    result = TestFile(rel)
    try:
        root = ET.parse(xml).getroot()
    except (OSError, ET.ParseError):
        result.error = _last_error(output) or "pytest wrote no report"
        return result
    for case in root.iter("testcase"):
        result.seconds += float(case.get("time") or 0)
        test_id = f"{case.get('classname', '')}::{case.get('name', '')}"
        outcome = next((c for c in case if c.tag in ("failure", "error", "skipped")), None)
        allocations = _allocations(case)
        if outcome is None:
            result.passed += 1
            result.passed_off_device += allocations == 0
        elif outcome.tag == "skipped":
            result.skipped += 1
            reason = (outcome.get("message") or "").splitlines()[0][:200] if outcome.get("message") else "skipped"
            result.skip_reasons[reason] = result.skip_reasons.get(reason, 0) + 1
        else:
            if outcome.tag == "failure":
                result.failed += 1
            else:
                result.errors += 1
            text = (outcome.text or "") + "\n" + (outcome.get("message") or "")
            trace = tracer.trace(text, built_sources)
            result.failed_off_device += allocations == 0
            error = _first_line(outcome)
            result.failed_memory += lacks_memory(error)
            result.failures.append({"test": test_id, "kind": outcome.tag, "error": error,
                                    "musa_allocations": allocations, "lacks_memory": lacks_memory(error),
                                    **trace.as_dict()})
    result.seconds = round(result.seconds, 1)
    if not any((result.passed, result.failed, result.skipped, result.errors)):
        result.error = _last_error(output) or "no test was collected"
    return result


def _allocations(case: ET.Element) -> int | None:
    """The allocations a test made on the device (the plugin's JUnit property), None where not measured."""
    for prop in case.iter("property"):
        if prop.get("name") == "musa_allocations":
            try:
                return int(prop.get("value") or "")
            except ValueError:
                return None
    return None


_EXC = re.compile(r"^E\s+(\w+(?:\.\w+)*(?:Error|Exception|Exit)\b.*)$")


def _first_line(outcome: ET.Element) -> str:
    """The exception line pytest marks with ``E``, else the report's message."""
    for line in (outcome.text or "").splitlines():
        m = _EXC.match(line)
        if m:
            return m.group(1)[:300]
    return ((outcome.get("message") or "").splitlines() or [outcome.tag])[0][:300]


def _last_error(output: str) -> str:
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    for line in lines:
        m = re.match(r"^E\s+(.*(?:Error|Exception).*)$", line)
        if m:
            return m.group(1)[:300]
    return lines[-1][:300] if lines else ""


def check_patterns(patterns: tuple[str, ...]) -> tuple[str, ...]:
    for p in patterns:
        if p.startswith("/") or ".." in p.split("/"):
            raise LoadError(f"--tests {p}: a pattern is relative to the project")
    return patterns or DEFAULT_PATTERNS
