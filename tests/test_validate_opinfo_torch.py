"""validate --opinfo's runner with the release's own torch: the real child, the real op_db.

The device here is ``cpu`` with a test loader that replaces CPU kernels, so
the runner's isolation is exercised on real crashes and hangs: a kernel
that aborts the process, one that never returns, one that answers wrong on
its first call (the device's turn) and right on the next (the CPU's).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from musaport.validate.opinfo.differential import Device, DeviceError, Job, inventory, run_jobs

LOADER = '''
import math, os, sys, time, torch
_libs = []
_calls = {"n": 0}


def _in_job():
    # only inside the runner's jobs: torch and op_db call these kernels while they import
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "run_job":
            return True
        frame = frame.f_back
    return False


def _sign(x):
    out = torch.empty_like(x)
    return torch.where(x > 0, out.fill_(1), torch.where(x < 0, out.fill_(-1), out.fill_(0)))


def load(library_path):
    lib = torch.library.Library("aten", "IMPL")
    lib.impl("neg", lambda x: os.abort() if _in_job() else 0 - x, "CPU")
    lib.impl("exp", lambda x: time.sleep(3600) if _in_job() else torch.pow(math.e, x), "CPU")
    def sign(x):
        if not _in_job() or x.dtype != torch.float32:  # the double-precision check computes right
            return _sign(x)
        if x.numel() == 0:
            return _sign(x)
        # Each sample: the device's call (wrong), the CPU's, then the CPU's on strided copies (both right).
        _calls["n"] += 1
        return torch.empty_like(x).fill_(7) if _calls["n"] % 3 == 1 else _sign(x)
    lib.impl("sign", sign, "CPU")
    _libs.append(lib)
'''


@pytest.fixture(scope="module")
def python(torch_env) -> Path:
    """The torch environment's python (conftest's torch_env, which skips or, in CI, fetches)."""
    return torch_env.python


@pytest.mark.torch
def test_inventory_lists_op_db_with_common_dtypes_and_traced_operators(python: Path, tmp_path: Path) -> None:
    entries = {e.key: e for e in inventory(Device(python, "cpu"), tmp_path, log=lambda m: None)}
    assert len(entries) == 694  # the release's op_db (630 names; keys add the variant)
    abs_ = entries["abs"]
    assert "float32" in abs_.dtypes and "bool" not in abs_.dtypes  # CPU's set has no bool for abs
    assert abs_.ops == ("aten::abs",)  # the operator's own calls, not the making of its samples
    assert entries["sum"].ops[:1] == ("aten::sum",)
    assert entries["empty"].decorators["float32"][0] == "skip"  # upstream: non-deterministic


@pytest.mark.torch
def test_a_crash_and_a_hang_cost_one_job_each_and_the_run_goes_on(python: Path, tmp_path: Path) -> None:
    loader = tmp_path / "loader.py"
    loader.write_text(LOADER, encoding="utf-8")
    device = Device(python, "cpu", loader, None)
    jobs = [Job("neg", "float32"), Job("exp", "float32"), Job("sign", "float32"), Job("abs", "float32")]
    seen = []
    results = run_jobs(device, jobs, tmp_path / "w", workers=1, timeout=20,
                       progress=lambda done, total, what: seen.append((done, total)))
    neg, exp, sign, abs_ = (results[j] for j in jobs)
    assert neg.status == "crash" and "SIGABRT" in neg.reason
    assert exp.status == "error" and exp.reason.startswith("timeout")
    assert sign.status == "fail" and "not close" in sign.reason and sign.failed >= 1
    assert (abs_.status, abs_.samples, abs_.failed) == ("pass", 35, 0)  # the 35 reference samples of abs
    assert seen[-1] == (4, 4)


@pytest.mark.torch
def test_a_device_that_does_not_load_stops_the_run_with_its_reason(python: Path, tmp_path: Path) -> None:
    loader = tmp_path / "loader.py"
    loader.write_text("def load(library_path):\n    raise OSError('libmusaport_backend.so: cannot open')\n",
                      encoding="utf-8")
    with pytest.raises(DeviceError, match="the device did not load: OSError: libmusaport_backend.so"):
        run_jobs(Device(python, "cpu", loader), [Job("abs", "float32")], tmp_path / "w", workers=1)


REFERENCE_LOADER = LOADER.split("def load(")[0] + '''
import numpy as np


def _numpy(fn, x, shift=0.0):
    return torch.from_numpy(np.asarray(fn(x.numpy()))).to(x.dtype) + shift


def load(library_path):
    lib = torch.library.Library("aten", "IMPL")
    turns = {"acos": 0, "asin": 0}

    def kernel(name, fn, wrong):
        def run(x):
            if not _in_job() or not x.dtype.is_complex:
                return _numpy(fn, x)
            turns[name] += 1
            finite = torch.isfinite(x)
            if turns[name] % 2 == 1:  # the device's turn: NumPy's answers (C99's special values), or wrong ones
                return torch.where(finite, _numpy(fn, x), _numpy(fn, x, 1.0 if wrong else 0.0))
            nan = torch.full_like(x, complex(math.nan, math.nan))
            return torch.where(finite, _numpy(fn, x), nan)  # the CPU's turn: nan+nanj at every non-finite input
        return run

    lib.impl("acos", kernel("acos", np.arccos, wrong=False), "CPU")
    lib.impl("asin", kernel("asin", np.arcsin, wrong=True), "CPU")
    _libs.append(lib)
'''


@pytest.mark.torch
def test_where_the_cpu_strays_from_c99_the_entrys_numpy_reference_judges(python: Path, tmp_path: Path) -> None:
    """The CPU answers nan+nanj for acos(inf+infj); NumPy (the entry's ref) and a GPU's thrust give C99's
    0.785-infj. A device result that differs from the CPU passes when it equals the reference, not otherwise."""
    loader = tmp_path / "loader.py"
    loader.write_text(REFERENCE_LOADER, encoding="utf-8")
    device = Device(python, "cpu", loader, None)
    jobs = [Job("acos", "complex128"), Job("asin", "complex128")]
    results = run_jobs(device, jobs, tmp_path / "w", workers=1, timeout=120)
    acos, asin = (results[j] for j in jobs)
    assert acos.status == "pass" and acos.reference > 0, acos
    assert acos.reason.endswith("differ from the CPU's result but match the entry's reference (NumPy)"), acos.reason
    assert asin.status == "fail" and asin.reference == 0 and asin.failed > 0, asin


@pytest.mark.torch
def test_an_entry_upstream_runs_only_on_the_cpu_is_skipped_with_that_reason(python: Path, tmp_path: Path) -> None:
    """nonzero_static is decorated onlyCPU (its CUDA kernel divides by zero on an empty input): PyTorch never
    runs its tests on CUDA, so neither does the differential, and the reason says so."""
    jobs = [Job("nonzero_static", "float32"), Job("nonzero", "float32")]
    results = run_jobs(Device(python, "cpu"), jobs, tmp_path / "w", workers=1, timeout=120)
    static, plain = (results[j] for j in jobs)
    assert static.status == "skip" and static.samples == 0, static
    assert static.reason == "upstream does not run this entry's tests on CUDA (onlyCPU: Only runs on cpu)", static.reason
    assert plain.status == "pass" and plain.samples > 0, plain


@pytest.mark.torch
def test_a_tensor_the_sample_makes_on_the_cpu_stays_there_as_upstream_has_it(python: Path, tmp_path: Path) -> None:
    """tensor_split's samples pass their indices as ``torch.tensor([1, 2, 3])``, a CPU tensor whatever the
    device, and the operator refuses them anywhere else. Samples made on the CPU and copied whole would put
    them on the device; the meta device (not the CPU) shows it, as ``musa`` does."""
    jobs = [Job("tensor_split", "float32"), Job("abs", "float32")]
    results = run_jobs(Device(python, "meta"), jobs, tmp_path / "w", workers=1, timeout=120)
    split, abs_ = (results[j] for j in jobs)
    assert (split.status, split.samples, split.failed) == ("pass", 10, 0), split  # 4 of its 10 have tensor indices
    assert abs_.status == "pass", abs_


KILLERS = '''
import ctypes, os, time

def test_a(): pass
def test_b(): os.abort()
def test_c(): pass
def test_d(): ctypes.string_at(0)
def test_e(): assert 1 == 2
def test_f(): pass
def test_g(): time.sleep(600)
def test_h_cpu_float32(): os.abort()
def test_h_cpu_float64(): os.abort()
def test_h_cpu_int64(): pass
'''


def _run_killers(python: Path, tmp_path: Path, jobs: int):
    """KILLERS as a tree's test file, run with a 5 s test timeout: its result, work folder and progress ticks."""
    from musaport.validate.opinfo.tests import run_test_files

    tree = tmp_path / "tree"
    (tree / "test").mkdir(parents=True)
    (tree / "test" / "test_killers.py").write_text(KILLERS, encoding="utf-8")
    work = tmp_path / "work"
    ticks: list[tuple[str, int, int]] = []
    [result] = run_test_files(Device(python, "cpu"), tree, work, ("test_killers.py",), timeout=300,
                              log=lambda m: None, jobs=jobs, test_timeout=5,
                              tests_progress=lambda *t: ticks.append(t))
    return result, work, ticks


@pytest.mark.torch
def test_a_test_that_dies_or_hangs_is_one_failure_and_the_file_runs_to_its_end(python: Path, tmp_path: Path) -> None:
    """PyTorch's test files on a new device meet kernels that abort, segfault or never return: each such test
    is one failure, and pytest starts again after it (as PyTorch's own CI resumes a file after a crash).
    The dead test's siblings (the same test in other dtypes) then run forked, so they die alone."""
    result, work, ticks = _run_killers(python, tmp_path, jobs=1)
    assert (result.passed, result.failed, result.skipped, result.errors) == (4, 6, 0, 0), result
    assert ticks[-1] == ("test_killers.py", 10, 10)  # progress in tests, across the restarts
    assert all(total == 10 for _, _, total in ticks if total), ticks
    assert result.died == 5 and not result.timeout
    assert result.note.startswith("1 test died in its own forked process and counted as failed (first: "), result.note
    assert "4 tests killed pytest and counted as failed; it resumed after each" in result.note
    rows = [json.loads(line) for line in (work / "test_killers.outcomes.jsonl").read_text().splitlines()]
    why = {r["test"].split("::")[-1]: r["first"] for r in rows if r.get("outcome") == "failed"}
    assert why["test_b"] == "the process died in this test (SIGABRT)"
    assert why["test_d"] == "the process died in this test (SIGSEGV)"
    assert why["test_g"] == "the test ran past its 5 s timeout"
    assert why["test_h_cpu_float32"] == "the process died in this test (SIGABRT)"  # killed pytest
    assert why["test_h_cpu_float64"] == "the process died in this test (SIGABRT)"  # died forked, alone
    assert [r["test"].split("::")[-1] for r in rows if r.get("died")] == ["test_h_cpu_float64"]
    assert (work / "test_killers.log").read_text().count("resuming after it") == 4


@pytest.mark.torch
def test_with_two_jobs_a_file_runs_as_two_shards_that_share_its_tests(python: Path, tmp_path: Path) -> None:
    """test_ops.py alone takes hours: with -j 2 its tests are split between two pytest processes, each
    test run once, by one of them, and the file's counts are theirs summed, deaths and resumes included."""
    result, work, ticks = _run_killers(python, tmp_path, jobs=2)
    assert (result.passed, result.failed, result.skipped, result.errors) == (4, 6, 0, 0), result
    assert result.died == 5 and result.shards == 2 and result.as_json()["shards"] == 2
    assert ticks[-1] == ("test_killers.py", 10, 10)
    ran = {}
    for k in (1, 2):
        rows = [json.loads(line) for line in (work / f"test_killers.{k}of2.outcomes.jsonl").read_text().splitlines()]
        ran[k] = [r["test"] for r in rows if "outcome" in r]
    assert ran[1] and ran[2], ran  # both processes had tests
    everything = ran[1] + ran[2]
    assert len(everything) == len(set(everything)) == 10  # each test once, in one shard
    assert result.note.startswith("shard 1 of 2: ") and "; shard 2 of 2: " in result.note, result.note
    assert sum(n for _, n, _ in result.causes) == result.failed  # every failure in one group, shards merged


SLOW = "import time\n" + "".join(f"def test_{i}(): time.sleep(1)\n" for i in range(8))


@pytest.mark.torch
def test_a_file_stopped_at_its_timeout_goes_on_in_the_next_run_of_the_same_build(python: Path, tmp_path: Path) -> None:
    """test_ops.py takes hours on the CPU device: running the command again takes each file further."""
    from musaport.validate.opinfo.tests import run_test_files

    tree = tmp_path / "tree"
    (tree / "test").mkdir(parents=True)
    (tree / "test" / "test_slow.py").write_text(SLOW, encoding="utf-8")
    work = tmp_path / "work"

    def run(timeout: float | None):
        [result] = run_test_files(Device(python, "cpu"), tree, work, ("test_slow.py",), timeout=timeout,
                                  log=lambda m: None)
        return result

    first = run(4)
    assert first.timeout and 0 < first.passed < 8, first
    second = run(120)
    assert not second.timeout and (second.passed, second.failed) == (8, 0), second  # the first run's included
    assert second.note.startswith(f"went on after the {first.passed} tests that earlier runs of this build did")
    again = run(120)
    assert again.passed == 8 and again.note == "" and "went on" not in again.note  # a finished file runs afresh
    assert run(4).timeout
    (tree / "test" / "test_slow.py").write_text(SLOW + "def test_new(): pass\n", encoding="utf-8")
    changed = run(120)
    assert changed.passed == 9 and "went on" not in changed.note  # another test file: its own start
    assert run(4).timeout
    unbounded = run(None)  # the default: a file runs to its end, however long it takes
    assert unbounded.passed == 9 and not unbounded.timeout, unbounded



KILLED_RUN = """
import sys
from pathlib import Path
from musaport.validate.opinfo.differential import Device
from musaport.validate.opinfo.tests import run_test_files
run_test_files(Device(Path(sys.argv[1]), "cpu"), Path(sys.argv[2]), Path(sys.argv[3]), ("test_slow.py",),
               log=lambda m: None)
"""


@pytest.mark.torch
def test_a_run_killed_on_the_way_is_carried_over_by_the_next(python: Path, tmp_path: Path) -> None:
    """Ctrl-C or a lost machine an hour into test_ops.py: the next run of the same build goes on after the
    tests the killed one finished, as after a timeout."""
    import signal
    import subprocess
    import sys
    import time

    from musaport.validate.opinfo.tests import run_test_files

    tree, work = tmp_path / "tree", tmp_path / "work"
    (tree / "test").mkdir(parents=True)
    (tree / "test" / "test_slow.py").write_text(SLOW, encoding="utf-8")
    outcomes = work / "test_slow.outcomes.jsonl"
    proc = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(python), str(tree), str(work)],
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if outcomes.is_file() and outcomes.read_text(encoding="utf-8").count('"outcome"') >= 2:
            break
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done = outcomes.read_text(encoding="utf-8").count('"outcome"')
    assert 2 <= done < 8, done
    [result] = run_test_files(Device(python, "cpu"), tree, work, ("test_slow.py",), log=lambda m: None)
    assert (result.passed, result.failed) == (8, 0), result
    assert result.note.startswith(f"went on after the {done} tests that earlier runs of this build did"), result.note


CHAINED = '''
def test_sample():
    try:
        raise RuntimeError("\\"abs_musa\\" not implemented for 'Half'")
    except RuntimeError as e:
        raise Exception("Caused by sample input at index 3: SampleInput(input=Tensor[size=(5,)])") from e
'''


@pytest.mark.torch
def test_a_failure_is_told_by_its_real_error_not_opinfos_wrapper(python: Path, tmp_path: Path) -> None:
    """OpInfo tests re-raise a sample's error as 'Exception: Caused by sample input ...'; the outcome line
    keeps the error that says what went wrong."""
    from musaport.validate.opinfo.tests import run_test_files

    tree = tmp_path / "tree"
    (tree / "test").mkdir(parents=True)
    (tree / "test" / "test_chained.py").write_text(CHAINED, encoding="utf-8")
    [result] = run_test_files(Device(python, "cpu"), tree, tmp_path / "work", ("test_chained.py",),
                              log=lambda m: None)
    assert result.failed == 1
    assert result.first_failures == ("::test_sample: RuntimeError: \"abs_musa\" not implemented for 'Half'",)


# A PrivateUse1 backend without kernels: enough for PyTorch's test framework to instantiate its device tests.
FAKE_PRIVATEUSE1 = '''
import types, torch

def load(library_path):
    torch.utils.rename_privateuse1_backend("musa")
    module = types.ModuleType("torch.musa")
    module.is_available = lambda: True
    module.device_count = lambda: 1
    module.current_device = lambda: 0
    torch._register_device_module("musa", module)
'''

AS_CUDA = '''
import unittest
import torch
from torch.testing._internal.common_device_type import (dtypes, dtypesIfCUDA, instantiate_device_type_tests,
                                                        skipCUDAIf)
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing._internal.common_utils import TestCase


class TestAsCuda(TestCase):
    @dtypes(torch.float32)
    @dtypesIfCUDA(torch.float16)
    def test_dtype_list(self, device, dtype):
        assert dtype == torch.float16, dtype

    def test_opinfo_lists(self, device):
        dot = next(op for op in op_db if op.name == "dot")
        assert dot.supported_dtypes(device) == dot.dtypesIfCUDA != dot.dtypes
        assert dot.supported_dtypes("privateuse1") == dot.dtypesIfCUDA
        assert dot.supported_dtypes("cpu") == dot.dtypes

    def test_cuda_skip(self, device):
        if torch.device(device).type == "cuda":
            raise unittest.SkipTest("uint8 is not implemented for CUDA")
        raise RuntimeError("upsample_bilinear2d_out_frame not implemented for 'Byte'")

    def test_port_failure(self, device):  # fails on the device only: its CPU twin passes
        if torch.device(device).type != "cpu":
            raise RuntimeError("the port's own failure")

    def _shared_body(self, device):
        if torch.device(device).type == 'cuda':
            return
        raise AssertionError("Tensor-likes are not equal!")

    def test_through_a_helper(self, device):
        self._shared_body(device)

    def allows(self, device, op):  # a public helper of the class, as test_torch's scatter_allow_reduce
        return torch.device(device).type != "cuda" or op == "multiply"

    def test_through_a_public_helper(self, device):
        if self.allows(device, "add"):
            raise RuntimeError('"cuda_scatter_gather_base_kernel_func" not implemented for Bool')

    def test_skipped(self, device):
        raise unittest.SkipTest("the shim has no NCCL (rank 3)")

    def test_conv_route(self, device):
        actual, expected = torch._C._ConvBackend.Overrideable, torch._C._ConvBackend.SlowDilated2d
        self.assertEqual(actual, expected)

    @skipCUDAIf(True, "no out-of-bounds check on CUDA for perf.")
    def test_cuda_skip_decorator(self, device):
        raise RuntimeError("Expected idx >= 0 && idx < num_embeddings was not raised")


instantiate_device_type_tests(TestAsCuda, globals())
'''


PLATFORM_LISTS = '''
import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import TestCase


class TestCpuAndCuda(TestCase):
    def test_generic(self, device):
        assert torch.device(device).type in ("cpu", "cuda", "musa"), device


class TestCudaAlone(TestCase):
    def test_cuda_specific(self, device):
        raise RuntimeError(f"a CUDA-only class ran on {device}")


class TestCudaTuple(TestCase):
    def test_cuda_specific(self, device):
        raise RuntimeError(f"a CUDA-only class ran on {device}")


class TestCpuAlone(TestCase):
    def test_cpu_specific(self, device):
        assert device == "cpu", device


instantiate_device_type_tests(TestCpuAndCuda, globals(), only_for=("cpu", "cuda"))
instantiate_device_type_tests(TestCudaAlone, globals(), only_for=("cuda"))
instantiate_device_type_tests(TestCudaTuple, globals(), only_for=("cuda",))
instantiate_device_type_tests(TestCpuAlone, globals(), only_for="cpu")
'''


@pytest.mark.torch
def test_a_class_for_the_cpu_and_cuda_runs_on_the_device_and_a_cuda_only_one_does_not(python: Path,
                                                                                       tmp_path: Path) -> None:
    """only_for=("cpu", "cuda") names the platforms upstream runs device-generic tests on; the device runs
    CUDA's kernels, so such a class is instantiated for it too. A class for CUDA alone, or the CPU alone,
    is not."""
    result = _on_fake_device(python, tmp_path, "test_platforms.py", PLATFORM_LISTS, FAKE_PRIVATEUSE1)
    assert (result.passed, result.failed, result.skipped, result.errors) == (1, 0, 0, 0), result


CUDA_EXPECTED_FAILURES = '''
import unittest
import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests, ops
from torch.testing._internal.common_utils import TestCase
from torch.testing._internal.common_dtype import _dispatch_dtypes
from torch.testing._internal.opinfo.core import DecorateInfo, OpInfo


def no_samples(op, device, dtype, requires_grad, **kwargs):
    yield from ()


fake = OpInfo("fake_op", op=torch.add, dtypes=_dispatch_dtypes((torch.float32,)), sample_inputs_func=no_samples, decorators=(
    DecorateInfo(unittest.expectedFailure, "TestDecorated", "test_fails_on_cuda", device_type="cuda"),
    DecorateInfo(unittest.expectedFailure, "TestDecorated", "test_passes_though_cuda_fails", device_type="cuda"),
    DecorateInfo(unittest.expectedFailure, "TestDecorated", "test_fails_on_the_cpu_only", device_type="cpu"),
))


class TestDecorated(TestCase):
    @ops([fake])
    def test_fails_on_cuda(self, device, dtype, op):
        raise AssertionError("UserWarning not triggered : Resized a non-empty tensor but did not warn about it.")

    @ops([fake])
    def test_passes_though_cuda_fails(self, device, dtype, op):
        pass

    @ops([fake])
    def test_fails_on_the_cpu_only(self, device, dtype, op):
        raise AssertionError("the port's own failure")


instantiate_device_type_tests(TestDecorated, globals())
'''


@pytest.mark.torch
def test_an_expected_failure_on_cuda_is_a_skip_that_says_so_on_the_device(python: Path, tmp_path: Path) -> None:
    """An OpInfo's expected failure for CUDA holds for the device, which runs CUDA's kernels: its failure is
    a skip whose reason says so; a pass stays a pass; an expected failure for another device is not the
    device's, so that test fails."""
    result = _on_fake_device(python, tmp_path, "test_decorated.py", CUDA_EXPECTED_FAILURES, FAKE_PRIVATEUSE1)
    assert (result.passed, result.failed, result.skipped, result.errors) == (1, 1, 1, 0), result
    assert result.cpu_too == 0 and "test_fails_on_the_cpu_only" in result.first_failures[0], result
    [(reason, tests, _)] = result.skip_reasons
    assert reason.startswith("expected failure on CUDA, whose kernels the device runs: AssertionError: "), reason
    assert "did not warn" in reason and tests == 1


def _on_fake_device(python: Path, tmp_path: Path, name: str, text: str, loader_text: str):
    """The result of test file ``name`` (``text``) run on a fake PrivateUse1 device the loader registers."""
    from musaport.validate.opinfo.tests import run_test_files

    tree = tmp_path / "tree"
    (tree / "test").mkdir(parents=True)
    (tree / "test" / name).write_text(text, encoding="utf-8")
    loader = tmp_path / "fake_loader.py"
    loader.write_text(loader_text, encoding="utf-8")
    device = Device(python, "musa", loader, tmp_path / "unused.so")
    [result] = run_test_files(device, tree, tmp_path / "work", (name,), log=lambda m: None)
    return result


# The fake device's generator: a counter that a draw advances.
FAKE_GENERATOR = FAKE_PRIVATEUSE1 + '''
    state = [0]
    module.get_rng_state = lambda device="musa": torch.tensor([state[0]], dtype=torch.uint8)
    module.set_rng_state = lambda new, device="musa": state.__setitem__(0, int(new[0]))
    module.draw = lambda: state.__setitem__(0, state[0] + 1) or state[0]
'''

FROZEN_RNG = '''
import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import TestCase, freeze_rng_state


class TestFrozen(TestCase):
    def test_two_paths_draw_the_same_numbers(self, device):
        module = getattr(torch, torch.device(device).type)
        with freeze_rng_state():
            first = module.draw()
        with freeze_rng_state():
            second = module.draw()
        assert first == second == 1, (first, second)


instantiate_device_type_tests(TestFrozen, globals(), only_for=("musa",))
'''


@pytest.mark.torch
def test_freeze_rng_state_freezes_the_devices_generator(python: Path, tmp_path: Path) -> None:
    """A test that runs two paths under the framework's freeze_rng_state and compares them (dropout in
    test_transformers' attention) needs the device's generator restored, as CUDA's is."""
    result = _on_fake_device(python, tmp_path, "test_frozen.py", FROZEN_RNG, FAKE_GENERATOR)
    assert (result.passed, result.failed, result.errors) == (1, 0, 0), result


@pytest.mark.torch
def test_the_device_takes_cudas_dtype_choices_and_a_tests_cuda_branch_is_counted_apart(python: Path,
                                                                                          tmp_path: Path) -> None:
    """The device runs CUDA's kernels: its tests are instantiated with @dtypesIfCUDA's dtypes and an OpInfo's
    CUDA lists, not the CPU's. A failed test whose own code branches on CUDA (a skip that does not fire for
    a PrivateUse1 device) is counted apart from the port's failures, with that line; a @skipCUDAIf skips it
    too, saying so; skips by reason."""
    from musaport.validate.opinfo.report import render_markdown, report_doc
    from musaport.validate.opinfo.tests import run_test_files

    tree = tmp_path / "tree"
    (tree / "test" / "nn").mkdir(parents=True)
    (tree / "test" / "nn" / "test_as_cuda.py").write_text(AS_CUDA, encoding="utf-8")
    loader = tmp_path / "fake_loader.py"
    loader.write_text(FAKE_PRIVATEUSE1, encoding="utf-8")
    device = Device(python, "musa", loader, tmp_path / "unused.so")
    [result] = run_test_files(device, tree, tmp_path / "work", ("nn/test_as_cuda.py",), log=lambda m: None)
    assert result.name == "nn/test_as_cuda.py"
    assert (result.passed, result.failed, result.cuda_branch, result.skipped, result.errors) == (2, 1, 4, 2, 0), result
    line = next(i for i, text in enumerate(AS_CUDA.splitlines(), 1) if 'op == "multiply"' in text)
    public = [b for b in result.cuda_branches if 'op == "multiply"' in b[0]]
    assert [b for b, _, _ in public] == [
        f'test_as_cuda.py:{line}: return torch.device(device).type != "cuda" or op == "multiply"'], public
    [(route, _, _), (branch, tests, example), (helper, _, _)] = sorted(
        (b for b in result.cuda_branches if b not in public), key=lambda b: ("if" in b[0], "'cuda'" in b[0]))
    line = next(i for i, text in enumerate(AS_CUDA.splitlines(), 1) if "type == 'cuda'" in text)
    assert helper == f"test_as_cuda.py:{line}: if torch.device(device).type == 'cuda':", helper
    line = next(i for i, text in enumerate(AS_CUDA.splitlines(), 1) if '.type == "cuda"' in text)
    assert branch == f'test_as_cuda.py:{line}: if torch.device(device).type == "cuda":' and tests == 1, branch
    line = next(i for i, text in enumerate(AS_CUDA.splitlines(), 1) if "assertEqual(actual, expected)" in text)
    assert route.startswith(f"test_as_cuda.py:{line}: self.assertEqual(actual, expected) (expects CUDA's "
                            "convolution route"), route
    assert example.endswith("test_cuda_skip_musa: RuntimeError: upsample_bilinear2d_out_frame not implemented "
                            "for 'Byte'"), example
    assert result.causes == (("RuntimeError: the port's own failure", 1,
                              "::TestAsCudaPRIVATEUSE1::test_port_failure_musa"),)
    assert sorted(r for r, _, _ in result.skip_reasons) == [
        "as on CUDA, whose kernels the device runs: no out-of-bounds check on CUDA for perf.",
        "the shim has no NCCL (rank N)"]
    doc = report_doc("2.6.0", "musa", [], [], {result.name: result.as_json()}, {})
    md = render_markdown(doc, "musaport validate --opinfo --out OUT --pytorch-tests")
    assert "| nn/test_as_cuda.py | 2 | 1 | 4 | 0 | 2 | 0 |" in md
    assert "### nn/test_as_cuda.py: failed tests that branch on CUDA or expect CUDA's route, by that line" in md
    assert "### nn/test_as_cuda.py: skipped tests by reason" in md


CPU_TOO = '''
import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import TestCase


class Point:
    pass


class TestPlain(TestCase):
    def test_expects_main(self):  # as test_serialization.py does: true only when run as a script
        self.assertEqual(Point.__module__, "__main__")


class TestGeneric(TestCase):
    def test_fails_everywhere(self, device):
        raise RuntimeError(f"nothing on {device} takes 3 dimensions")

    def test_fails_on_the_device(self, device):
        if torch.device(device).type != "cpu":
            raise RuntimeError("the port's own failure")

    def test_fails_otherwise_on_the_cpu(self, device):
        raise RuntimeError("the port's own failure" if torch.device(device).type != "cpu" else "another one")

    def test_passes(self, device):
        pass


instantiate_device_type_tests(TestGeneric, globals())
'''


@pytest.mark.torch
def test_a_failure_that_torchs_own_cpu_has_too_is_counted_apart_from_the_ports(python: Path, tmp_path: Path) -> None:
    """Each failure runs once more as its CPU twin in torch without the device; where the twin fails with
    the same first line (numbers and device names aside), the failure is not the port's."""
    from musaport.validate.opinfo.report import render_markdown, report_doc

    result = _on_fake_device(python, tmp_path, "test_cpu_too.py", CPU_TOO, FAKE_PRIVATEUSE1)
    assert (result.passed, result.failed, result.cpu_too) == (1, 2, 2), result
    twins = {example for _, _, example in result.cpu_too_causes}
    assert twins == {"::TestPlain::test_expects_main (CPU: ::TestPlain::test_expects_main)",
                     "::TestGenericPRIVATEUSE1::test_fails_everywhere_musa "
                     "(CPU: ::TestGenericCPU::test_fails_everywhere_cpu)"}, result.cpu_too_causes
    assert {error for error, _, _ in result.causes} == {"RuntimeError: the port's own failure"}, result.causes
    doc = report_doc("2.6.0", "musa", [], [], {result.name: result.as_json()}, {})
    md = render_markdown(doc, "musaport validate --opinfo --out OUT --pytorch-tests")
    assert "| test_cpu_too.py | 1 | 2 | 0 | 2 | 0 | 0 |" in md
    assert "### test_cpu_too.py: failed tests that fail alike on torch's own CPU, without the device" in md
