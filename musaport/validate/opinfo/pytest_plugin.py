"""A pytest plugin for PyTorch's own test files on the ported device: run by path, never imported by musaport.

``validate --opinfo --pytorch-tests`` copies it into its work folder and
starts ``python -m pytest -p musaport_device_plugin`` in the torch
environment (where musaport is not installed). Imported before any test
module, it registers the device, so ``common_device_type`` finds
``PrivateUse1TestBase`` available when the test module instantiates its
device-generic tests. It also writes one line per test outcome, so a file
stopped at its timeout still has counts.

Each test's start is written too, so a test that kills the process (a
segfault, an abort in a kernel, its own timeout under pytest-timeout) is
known, and the file can resume after it: ``MUSAPORT_TEST_DONE`` names a file
of test ids (one per line) to deselect, those a previous attempt finished or
died in.  ``MUSAPORT_TEST_DIED`` names the tests that died: their siblings,
the same test instantiated for another dtype, run forked (pytest-forked's
``forked`` marker), where a crash costs that test alone, not a new start.

The device runs CUDA's kernels, so its tests take CUDA's dtype choices where
PyTorch's test framework has them (``dtypesIfCUDA``, an OpInfo's CUDA dtype
lists), as an out-of-tree backend that runs CUDA's kernels would declare;
a PrivateUse1 test base would otherwise hold it to the CPU's lists.  Where a
test itself branches on ``"cuda"`` (``if device_type == "cuda": raise
SkipTest``), which no framework hook reaches, a failed test's outcome line
names that branch (``cuda_branch``: file, line and text), and the report counts
such tests apart from the port's failures; so does a failed assertion that
expects a route libtorch takes for CUDA tensors only (``cuda_route``: the
convolution backend it selects). ``freeze_rng_state`` freezes the device's
generator as it freezes CUDA's. A test's ``@skipCUDAIf`` skips it on the
device too, its reason marked as CUDA's; an OpInfo's expected failure on CUDA
that fails on the device is a skip saying so; and a test class instantiated only
for the CPU and CUDA (``only_for=("cpu", "cuda")``) is instantiated for the
device as well.  A skipped test's line carries its reason.

Environment: ``MUSAPORT_DEVICE_LOADER`` (a file with ``load(library_path)``)
and ``MUSAPORT_DEVICE_LIBRARY``; ``MUSAPORT_DEVICE_NAME`` (the device's name in
test names); ``MUSAPORT_TEST_OUTCOMES`` (where outcomes go);
``MUSAPORT_TEST_DONE`` (tests not to run again); ``MUSAPORT_TEST_DIED``
(tests that killed an earlier attempt); ``MUSAPORT_TEST_SHARD`` (``k/n``:
run only the tests whose id hashes to shard k of n).
"""

import importlib.util
import inspect
import json
import os
import re
import zlib

import pytest


def _load_device():
    loader = os.environ.get("MUSAPORT_DEVICE_LOADER")
    if not loader:
        return
    spec = importlib.util.spec_from_file_location("musaport_device_loader", loader)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.load(os.environ.get("MUSAPORT_DEVICE_LIBRARY"))


_load_device()  # at plugin import: before pytest imports any test module


def _cuda_dtype_choices():
    """PrivateUse1 tests instantiated with CUDA's dtypes: ``@dtypesIfCUDA`` (unless the test names the
    device's own), and OpInfo's ``dtypesIfCUDA``/``backward_dtypesIfCUDA``.  Patched before any test
    module instantiates its device-generic tests."""
    import torch
    from torch.testing._internal import common_device_type
    from torch.testing._internal.opinfo import core

    own = torch._C._get_privateuse1_backend_name()
    base = common_device_type.PrivateUse1TestBase

    def get_dtypes(cls, test):
        if not hasattr(test, "dtypes"):
            return None
        for key in (own, "privateuse1", "cuda"):
            if key in test.dtypes:
                return test.dtypes[key]
        return base.__mro__[1]._get_dtypes.__func__(cls, test)

    base._get_dtypes = classmethod(get_dtypes)
    for name in ("supported_dtypes", "supported_backward_dtypes"):
        original = getattr(core.OpInfo, name)

        def as_cuda(self, device_type, _original=original):
            kind = own if device_type == "privateuse1" else device_type
            return _original(self, "cuda" if torch.device(kind).type == own else device_type)

        setattr(core.OpInfo, name, as_cuda)


def _privateuse1_loaded() -> bool:
    """Whether the loader registered a PrivateUse1 backend under a name of its own (``cpu`` standing in
    for a device in musaport's tests registers none)."""
    if not os.environ.get("MUSAPORT_DEVICE_LOADER"):
        return False
    import torch

    return torch._C._get_privateuse1_backend_name() != "privateuseone"


def _cuda_skips():
    """``@skipCUDAIf(cond, reason)`` skips the device's test too, its reason marked as CUDA's: the test's
    author says CUDA's kernels, which the device runs, do not do what the test asks ("no out-of-bounds
    check on CUDA for perf."). Patched before any test module applies it."""
    import torch
    from torch.testing._internal import common_device_type

    own = torch._C._get_privateuse1_backend_name()

    def __init__(self, dep, reason):
        common_device_type.skipIf.__init__(self, dep, f"as on CUDA, whose kernels the device runs: {reason}",
                                           device_type=("cuda", own))

    common_device_type.skipCUDAIf.__init__ = __init__


def _cuda_platform_lists():
    """A test class instantiated for the CPU and CUDA alike (``only_for=("cpu", "cuda")``: test_transformers'
    classes, test_autograd's multiple-dispatch tests) is instantiated for the device too: the list names the
    platforms upstream's CI runs device-generic code on, and the device runs CUDA's kernels. A class for CUDA
    alone (``only_for="cuda"``: streams, cuDNN, flash attention) stays CUDA's, and so does one for the CPU."""
    import torch
    from torch.testing._internal import common_device_type

    own = torch._C._get_privateuse1_backend_name()
    original = common_device_type.filter_desired_device_types

    def filter_desired_device_types(device_type_test_bases, except_for=None, only_for=None):
        if only_for is not None and not isinstance(only_for, str):
            listed = list(only_for)
            if "cuda" in listed and len(set(listed)) > 1 and not {"privateuse1", own} & set(listed):
                only_for = [*listed, "privateuse1"]
        return original(device_type_test_bases, except_for, only_for)

    common_device_type.filter_desired_device_types = filter_desired_device_types


def _cuda_expected_failures():
    """An OpInfo's or ModuleInfo's expected failure declared for CUDA (``DecorateInfo(unittest.expectedFailure,
    ..., device_type="cuda")``: upstream knows CUDA's kernels fail that test, e.g. ``logcumsumexp``'s
    ``test_out_warning``, whose CUDA kernel resizes without the warning) holds for the device, which runs those
    kernels. Its failure there is reported as a skip whose reason says so, counted apart from the port's
    failures; its pass stays a pass (no unexpected-success failure: the port may do better than CUDA)."""
    import functools
    import unittest

    import torch
    from torch.testing._internal import common_modules
    from torch.testing._internal.opinfo import core

    own = torch._C._get_privateuse1_backend_name()

    def fails_as_on_cuda(test):
        @functools.wraps(test)
        def run(*args, **kwargs):
            try:
                return test(*args, **kwargs)
            except unittest.SkipTest:
                raise
            except Exception as error:  # noqa: BLE001 - any failure is the one upstream expects on CUDA
                while error.__cause__ is not None:  # OpInfo tests wrap the real error ("Caused by sample input")
                    error = error.__cause__
                first = (str(error).strip().splitlines() or [""])[0][:120]
                raise unittest.SkipTest(f"expected failure on CUDA, whose kernels the device runs: "
                                        f"{type(error).__name__}: {first}") from None
        return run

    for holder in (core.OpInfo, common_modules.ModuleInfo):
        def get_decorators(self, test_class, test_name, device, dtype, param_kwargs, _original=holder.get_decorators):
            found = _original(self, test_class, test_name, device, dtype, param_kwargs)
            if device not in ("privateuse1", own):
                return found
            for info in self.decorators:
                if (isinstance(info, core.DecorateInfo) and info.device_type == "cuda"
                        and unittest.expectedFailure in info.decorators
                        and info.is_active(test_class, test_name, "cuda", dtype, param_kwargs)):
                    return [*found, fails_as_on_cuda]
            return found

        holder.get_decorators = get_decorators


def _device_rng_frozen():
    """``freeze_rng_state`` (the framework's: a test runs two paths under it and compares them, as
    test_transformers does the math and Python attention with dropout) saves and restores the CPU's
    generator and CUDA's, not a PrivateUse1 device's; so the device's second path drew other random
    numbers. It now saves and restores the device's generator as it does CUDA's."""
    import contextlib

    import torch
    from torch.testing import _utils

    module = getattr(torch, torch._C._get_privateuse1_backend_name(), None)
    if not (hasattr(module, "get_rng_state") and hasattr(module, "set_rng_state")):
        return
    original = _utils.freeze_rng_state

    @contextlib.contextmanager
    def freeze_rng_state(*args, **kwargs):
        with torch.utils._mode_utils.no_dispatch(), torch._C._DisableFuncTorch():
            state = module.get_rng_state()
        try:
            with original(*args, **kwargs):
                yield
        finally:
            with torch.utils._mode_utils.no_dispatch(), torch._C._DisableFuncTorch():
                module.set_rng_state(state)

    _utils.freeze_rng_state = freeze_rng_state


if _privateuse1_loaded():
    _cuda_dtype_choices()
    _cuda_skips()
    _cuda_platform_lists()
    _cuda_expected_failures()
    _device_rng_frozen()
_OUTCOMES = os.environ.get("MUSAPORT_TEST_OUTCOMES")
_stream = open(_OUTCOMES, "a", buffering=1, encoding="utf-8") if _OUTCOMES else None  # noqa: SIM115


def _ids(variable: str) -> set:
    path = os.environ.get(variable)
    if not path:
        return set()
    with open(path, encoding="utf-8") as f:
        return {line.rstrip("\n") for line in f}


def family(nodeid: str, device: str) -> str:
    """A device-generic test's name without its device and dtype: ``..test_flip_musa_float32`` is
    ``..test_flip``, the family every dtype of that test belongs to."""
    return re.sub(rf"_{re.escape(device)}(?:_\w+)?$", "", nodeid) if device else nodeid


def in_shard(spec: str):
    """``k/n``: whether a test id belongs to shard k of n, by a hash of the id (the same in every process,
    whatever order the tests were collected in); empty: every test."""
    if not spec:
        return lambda nodeid: True
    index, count = (int(part) for part in spec.split("/"))
    return lambda nodeid: zlib.crc32(nodeid.encode()) % count == index


def pytest_collection_modifyitems(config, items):
    """Deselect the tests of other shards and those an earlier attempt at this file finished or died
    in; fork the siblings of the tests that died."""
    done = _ids("MUSAPORT_TEST_DONE")
    mine = in_shard(os.environ.get("MUSAPORT_TEST_SHARD", ""))
    keep = [item for item in items if item.nodeid not in done and mine(item.nodeid)]
    if len(keep) != len(items):
        kept = {id(item) for item in keep}
        config.hook.pytest_deselected(items=[item for item in items if id(item) not in kept])
        items[:] = keep
    device = os.environ.get("MUSAPORT_DEVICE_NAME", "")
    dead = {family(test, device) for test in _ids("MUSAPORT_TEST_DIED")}
    for item in items:
        if dead and family(item.nodeid, device) in dead:
            item.add_marker(pytest.mark.forked)


def pytest_collection_finish(session):
    """How many tests this attempt runs (after the deselection above): the file's progress."""
    if _stream is not None:
        _stream.write(json.dumps({"collected": len(session.items)}) + "\n")


def pytest_runtest_logstart(nodeid, location):
    if _stream is not None:
        _stream.write(json.dumps({"test": nodeid, "start": True}) + "\n")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report):
    """passed/failed on the call; skipped in any phase (xfail too, as junit counts it); errors in setup or
    teardown: the counts a junit xml gives, kept line by line.  A test whose process died is a failure of
    its call (pytest-forked names no phase: junit would count an error); this runs before junit's hook."""
    died = _death(report)
    if died and report.when not in ("setup", "call", "teardown"):
        report.when = "call"
    if _stream is None:
        return
    outcome = None
    if report.when == "call":
        outcome = "skipped" if report.skipped else "failed" if report.failed else "passed"
        if hasattr(report, "wasxfail"):
            outcome = "skipped" if report.skipped else "failed"
    elif report.skipped:
        outcome = "skipped"
    elif report.failed:
        outcome = "errors"
    if outcome:
        first = ""
        if died:
            first = died
        elif outcome in ("failed", "errors"):
            text = [ln.strip() for ln in str(report.longrepr or "").strip().splitlines() if ln.strip()]
            # the exception line, not PyTorch's trailing repro hints, nor the wrapper OpInfo tests raise
            # from the real error ("Exception: Caused by sample input at index 3: SampleInput(...)")
            raised = [ln for ln in text if re.match(r"^[\w.]*(Error|Exception|Failure)\b", ln)
                      and not ln.startswith("Exception: Caused by ")]
            plain = [ln for ln in text if "PYTORCH_PRINT_REPRO" not in ln and not ln.startswith("To execute this")]
            first = (raised or plain or [""])[-1][:300]
        row = {"test": report.nodeid, "outcome": outcome, "first": first, "seconds": round(report.duration, 3)}
        if died:
            row["died"] = True
        if outcome == "failed" and getattr(report, "cuda_branch", ""):
            row["cuda_branch"] = report.cuda_branch
        if outcome == "skipped":
            row["reason"] = _skip_reason(report)
        _stream.write(json.dumps(row) + "\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed call's report names the test's own branch on CUDA (see the module docstring)."""
    made = yield
    report = made.get_result()
    if report.when == "call" and report.failed:
        report.cuda_branch = (cuda_branch(getattr(item, "obj", None), getattr(item, "cls", None))
                              or cuda_route(str(report.longrepr or "")))


# A test body's own check for CUDA: `device_type == "cuda"`, `torch.device(device).type != 'cuda'`,
# `self.device_type in ("cuda", ...)`, `x.is_cuda`, `device.startswith("cuda")`.
_CUDA_CHECK = re.compile(r"""(?:type|device)\s*[!=]=\s*['"]cuda['"]|['"]cuda['"]\s*[!=]=|\bis_cuda\b"""
                         r"""|(?:type|device)\s+(?:not\s+)?in\s*[\[(][^\])]*['"]cuda['"]|startswith\(\s*['"]cuda""")


_HELPER_CALL = re.compile(r"\bself\.(\w+)\s*\(")


def cuda_branch(function, cls=None, depth: int = 1) -> str:
    """``file:line: text`` of the first line of ``function``'s own source (its decorators' wrappers
    unwrapped) that checks for a CUDA device, else of the helpers it calls that its own test file
    defines (``self._test_...(device)``, ``self.scatter_allow_reduce(device, ...)``, one level down:
    test_torch's shared bodies; never the framework's ``assertEqual`` and the like); '' when none has one
    or the source cannot be read."""
    try:
        function = inspect.unwrap(function)
        lines, start = inspect.getsourcelines(function)
        path = os.path.basename(inspect.getsourcefile(function) or "")
    except (TypeError, OSError, ValueError):
        return ""
    for offset, line in enumerate(lines):
        code = line.split("#", 1)[0]
        if _CUDA_CHECK.search(code):
            return f"{path}:{start + offset}: {line.strip()[:200]}"
    if cls is None or depth <= 0:
        return ""
    for name in dict.fromkeys(_HELPER_CALL.findall("".join(lines))):
        helper = getattr(cls, name, None)
        found = cuda_branch(helper, cls, depth - 1) if callable(helper) and _defined_in(helper, path) else ""
        if found:
            return found
    return ""


def _defined_in(function, name: str) -> bool:
    """Whether ``function`` is defined in the file named ``name`` (the test's own file)."""
    try:
        return os.path.basename(inspect.getsourcefile(inspect.unwrap(function)) or "") == name
    except (TypeError, OSError, ValueError):
        return False


# Failures that assert which of libtorch's routes a CUDA tensor takes, where libtorch sends every PrivateUse1
# tensor another way by design: (what the assertion says, why the device cannot meet it).
_CUDA_ROUTES = (
    (re.compile(r"<_ConvBackend\.Overrideable: \d+> != <_ConvBackend\.\w+"),
     "expects CUDA's convolution route; libtorch sends every PrivateUse1 convolution to "
     "convolution_overrideable (the device's adapter runs the same CUDA kernels from there)"),
)
_FRAME = re.compile(r'File "[^"]*?([^"/]+\.py)", line (\d+), in \w+\n\s*(.*)')


def cuda_route(text: str) -> str:
    """``file:line: text (why)`` of the test line whose assertion expects CUDA's route through libtorch
    (``_CUDA_ROUTES``); '' for any other failure."""
    why = next((why for pattern, why in _CUDA_ROUTES if pattern.search(text)), "")
    frames = [m for m in _FRAME.finditer(text) if m.group(1).startswith("test_")]
    if not why or not frames:
        return ""
    name, line, code = frames[-1].groups()
    return f"{name}:{line}: {code.strip()[:120]} ({why})"


def _skip_reason(report) -> str:
    """Why a test was skipped: the reason pytest keeps as (file, line, reason), its 'Skipped: ' cut."""
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr or "")
    if hasattr(report, "wasxfail"):
        text = "expected failure" + (f": {report.wasxfail}" if report.wasxfail else "")
    return str(text).removeprefix("Skipped: ").strip().splitlines()[0][:200] if str(text).strip() else ""


# pytest-forked's report of a forked test whose process ended before it answered
_CRASHED = re.compile(r"running the test (?:CRASHED with signal \d+ \((\w+)\)|EXITED with status (\d+))")


def _death(report) -> str:
    """Why the test's own process died ('' when it did not): a signal, its timeout, or an exit status."""
    found = _CRASHED.search(str(report.longrepr or ""))
    if found is None:
        return ""
    if found.group(1):
        return f"the process died in this test ({found.group(1)})"
    if any("Timeout" in text for _, text in getattr(report, "sections", ())):
        return "the test ran past its timeout; its process was ended"
    return f"the process died in this test (exit {found.group(2)})"
