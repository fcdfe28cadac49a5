"""The OpInfo differential inside the torch environment: run by path, never imported by musaport.

This file runs with the python of the release's own torch wheel, where
musaport is not installed, so it imports only the standard library and torch.

    python child.py [--loader FILE --library LIB] --device musa inventory OUT.json
    python child.py [--loader FILE --library LIB] --device musa serve

``inventory`` writes every OpInfo entry of ``op_db``: its key (``name`` or
``name.variant``), the dtypes both its CPU and its CUDA sets hold, the aten
operators a few of its samples dispatch on the CPU (after the
CompositeImplicitAutograd decompositions: what a backend sees) and what the
entry's own ``DecorateInfo``s say about ``TestCommon.test_compare_cpu``.

``serve`` loads the device, then reads one job per line on stdin
(``{"key": "abs", "dtype": "float32"}``) and answers one JSON line per job on
the original stdout (the process's own fd 1 goes to stderr, so a kernel that
prints cannot corrupt the protocol). Each job is ``test_compare_cpu``'s logic:
every reference sample (``reference_inputs``, which falls back to
``sample_inputs``) on the device and on the CPU, compared with
``assertEqual(..., atol=1e-3, rtol=1e-3)``. The samples are made on the CPU
with the seed OpInfo sets and moved to the device with their strides, so an
operator's verdict does not depend on the device's random-number kernels.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
import traceback

TEST_CLASS, TEST_NAME, DECORATOR_DEVICE = "TestCommon", "test_compare_cpu", "cuda"
ATOL = RTOL = 1e-3
TRACE_SAMPLES = 3
ANY_ORDER = ("float32", "float64", "complex64", "complex128", "float16", "bfloat16", "int64", "int32", "int16",
             "int8", "uint8", "bool", "complex32")


def load_device(loader: str | None, library: str | None) -> None:
    """Import the loader file by path and call its ``load(library_path)``."""
    if not loader:
        return
    spec = importlib.util.spec_from_file_location("musaport_device_loader", loader)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.load(library)


def entries():
    sys.argv = sys.argv[:1]  # common_utils parses the command line when imported
    from torch.testing._internal.common_methods_invocations import op_db

    return {key_of(op): op for op in op_db}


def key_of(op) -> str:
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def dtype_name(dtype) -> str:
    return str(dtype).replace("torch.", "")


def common_dtypes(op) -> list[str]:
    names = {dtype_name(d) for d in set(op.dtypes) & set(op.dtypesIfCUDA)}
    return sorted(names, key=lambda n: (ANY_ORDER.index(n) if n in ANY_ORDER else len(ANY_ORDER), n))


def verdict_of_decorators(op, dtype) -> tuple[str, str]:
    """("skip"|"xfail"|"", why) from the entry's DecorateInfos active for test_compare_cpu on CUDA, and
    from its plain decorators, which apply to every test of the entry (``onlyCPU``: never run on CUDA)."""
    for info in getattr(op, "decorators", ()) or ():
        if not hasattr(info, "is_active"):
            why = _device_restriction(info)
            if why:
                return "skip", f"upstream does not run this entry's tests on CUDA ({why})"
            continue
        try:
            active = info.is_active(TEST_CLASS, TEST_NAME, DECORATOR_DEVICE, dtype, {})
        except Exception:  # noqa: BLE001 - a malformed entry decorates nothing here
            continue
        if not active:
            continue
        for decorator in getattr(info, "decorators", ()) or ():
            def probe():
                return None
            try:
                marked = decorator(probe)
            except Exception:  # noqa: BLE001
                continue
            if getattr(marked, "__unittest_skip__", False):
                return "skip", "upstream skips test_compare_cpu: " + str(getattr(marked, "__unittest_skip_why__", ""))
            if getattr(marked, "__unittest_expecting_failure__", False):
                return "xfail", "upstream expects test_compare_cpu to fail"
    return "", ""


def _device_restriction(decorator) -> str:
    """Why a plain test decorator skips a test on CUDA ('' when it does not): only the device-type
    restrictions of ``common_device_type`` (``onlyCPU``, ``onlyOn(...)``) count, not those that depend on
    the machine (slow tests, MAGMA), and they check the test's device when called, so the decorated
    probe is called as a CUDA test would be."""
    import unittest

    name = getattr(decorator, "__name__", None) or type(decorator).__name__
    module = getattr(decorator, "__module__", None) or type(decorator).__module__
    if not (str(module).endswith("common_device_type") and name.startswith("only")):
        return ""

    class CudaTest:
        device_type = DECORATOR_DEVICE

    def probe(*args, **kwargs):
        return None

    try:
        decorator(probe)(CudaTest(), DECORATOR_DEVICE)
    except unittest.SkipTest as skip:
        return f"{name}: {skip}"
    except Exception:  # noqa: BLE001 - a decorator that needs a real test: it restricts nothing we can see
        return ""
    return ""


class Recorder:
    """A dispatch mode that records every aten operator dispatched and the one an exception left."""

    def __new__(cls):
        from torch.utils._python_dispatch import TorchDispatchMode

        class _Mode(TorchDispatchMode):
            def __init__(self):
                super().__init__()
                self.ops: list[str] = []
                self.raised: str = ""

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                name = func.name()
                if name not in self.ops:
                    self.ops.append(name)
                try:
                    return func(*args, **(kwargs or {}))
                except Exception:
                    if not self.raised:
                        self.raised = name
                    raise

        return _Mode()


def inventory(path: str) -> None:
    import torch

    torch.set_num_threads(1)
    out = []
    for key, op in entries().items():
        dtypes = common_dtypes(op)
        record = {"key": key, "name": op.name, "variant": op.variant_test_name, "aten_name": op.aten_name or "",
                  "dtypes": dtypes, "ops": [], "decorators": {}, "trace_error": ""}
        for name in dtypes:
            verdict, why = verdict_of_decorators(op, getattr(torch, name))
            if verdict:
                record["decorators"][name] = [verdict, why]
        if dtypes:
            mode = Recorder()
            try:
                for i, sample in enumerate(op.sample_inputs("cpu", getattr(torch, dtypes[0]))):
                    if i >= TRACE_SAMPLES:
                        break
                    with mode:  # only the operator's own calls, not the making of its samples
                        op(sample.input, *sample.args, **sample.kwargs)
            except Exception as exc:  # noqa: BLE001 - the trace is best effort; the run will say
                record["trace_error"] = first_line(exc)
            record["ops"] = mode.ops
        out.append(record)
    with open(path + ".tmp", "w", encoding="utf-8") as fh:
        json.dump({"torch": torch.__version__, "entries": out}, fh, indent=0, sort_keys=True)
    os.replace(path + ".tmp", path)


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:500]


def to_device(device: str):
    """Copy a CPU tensor to ``device`` keeping its strides, conjugate and negative bits, requires_grad."""
    import torch

    def move(t):
        if not isinstance(t, torch.Tensor):
            return t
        if t.layout != torch.strided:
            out = t.to(device)
        else:
            conj, neg = t.is_conj(), t.is_neg()
            base = t.conj() if conj else t
            base = base._neg_view() if neg else base
            try:  # a non-contiguous sample stays non-contiguous on the device
                out = torch.empty_strided(base.size(), base.stride(), dtype=base.dtype, device=device)
                out.copy_(base)
            except Exception:  # noqa: BLE001 - overlapping strides (expand): as .to() makes it
                out = base.to(device, copy=True)
            out = out._neg_view() if neg else out
            out = out.conj() if conj else out
        out = out.detach()
        return out.requires_grad_(t.requires_grad) if t.requires_grad else out

    return move


def cpu_bound(op, dtype) -> list[list[bool]]:
    """Per sample of the entry, which of its tensors the sample function makes on the CPU whatever device it
    is asked for (``tensor_split``'s indices: ``torch.tensor([1, 2, 3])``), in the order ``transform`` visits
    them. One pass, taken once per job and only when a sample errors.

    Upstream makes samples on the device, so such a tensor stays on the CPU there; ours are made on the CPU
    and every tensor looks alike. The sample function, asked again for the meta device, tells them apart.
    The random-number states are put back afterwards, so the CPU's samples are unchanged. The list stops
    where the meta device cannot make a sample (a sample function that computes with real values)."""
    import random

    import torch

    try:
        import numpy
    except ImportError:  # pragma: no cover - the torch environment has NumPy
        numpy = None
    states = (torch.random.get_rng_state(), random.getstate(), numpy.random.get_state() if numpy else None)
    found: list[list[bool]] = []
    try:
        for sample in op.reference_inputs("meta", dtype):
            flags: list[bool] = []
            sample.transform(lambda t: flags.append(t.device.type != "meta") if isinstance(t, torch.Tensor)
                             else None)
            found.append(flags)
    except Exception:  # noqa: BLE001 - best effort: past this point every tensor goes to the device
        pass
    finally:
        torch.random.set_rng_state(states[0])
        random.setstate(states[1])
        if numpy is not None:
            numpy.random.set_state(states[2])
    return found


def to_device_keeping(device: str, keep: list[bool]):
    """``to_device``, but the tensors ``keep`` flags (in ``transform``'s order) stay on the CPU."""
    import torch

    move, order = to_device(device), iter(keep)

    def place(t):
        if not isinstance(t, torch.Tensor):
            return t
        return t if next(order, False) else move(t)

    return place


def tensor_count(sample) -> int:
    import torch

    seen: list[None] = []
    sample.transform(lambda t: seen.append(None) if isinstance(t, torch.Tensor) else None)
    return len(seen)


NARROW = ("float32", "float16", "bfloat16", "complex64", "complex32")


def widen(t):
    """A sample's tensor in double precision (float64, complex128); others as they are."""
    import torch

    if not isinstance(t, torch.Tensor):
        return t
    if t.is_complex():
        wide = t.detach().to(torch.complex128)
    elif t.is_floating_point():
        wide = t.detach().to(torch.float64)
    else:
        wide = t.detach().clone()
    return wide.requires_grad_(t.requires_grad) if t.requires_grad else wide


def _matches_wide(checker, op, wide, dev_out) -> bool:
    """The device's result equals the CPU's result computed in double precision and rounded to the
    device's dtypes: the CPU's own rounding (double rounding, FMA) then explains the difference.
    Complex results are compared part by part (real, imaginary), so an infinite part equal on both
    sides is equal rather than a nan difference."""
    import torch
    from torch.utils._pytree import tree_flatten

    try:
        ref = wide.output_process_fn_grad(op(wide.input, *wide.args, **wide.kwargs))
        got, _ = tree_flatten(dev_out)
        exp, _ = tree_flatten(ref)
        if len(got) != len(exp):
            return False
        for g, e in zip(got, exp):
            if isinstance(g, torch.Tensor) and isinstance(e, torch.Tensor):
                if not (g.is_floating_point() or g.is_complex()) or e.dtype == g.dtype:
                    return False  # only a floating result computed wider can explain a rounding difference
                e = e.to(g.dtype)
                if g.is_complex():  # part by part: an infinite part makes a complex difference nan
                    g, e = torch.view_as_real(g.cpu().resolve_conj()), torch.view_as_real(e.resolve_conj())
            checker.assertEqual(g, e, atol=ATOL, rtol=RTOL)
        return True
    except Exception:  # noqa: BLE001 - no wider result to judge by: the difference stands
        return False


def strided(t):
    """A sample's tensor as a strided (non-contiguous) copy of itself, so the CPU runs its element-by-element
    path rather than its vectorized one; others (and 0-d tensors) as they are."""
    import torch

    if not isinstance(t, torch.Tensor) or t.dim() == 0 or t.layout != torch.strided:
        return t
    wide = torch.empty((*t.shape, 2), dtype=t.dtype, device=t.device)[..., 0]
    with torch.no_grad():
        wide.copy_(t)
    return wide.requires_grad_(t.requires_grad) if t.requires_grad else wide


def _matches_other_path(checker, op, other, dev_out) -> bool:
    """The device's result equals the CPU's own result on its other path (the same values, strided):
    the CPU disagrees with itself, as its vectorized path rounds without the fused multiply-add its
    element path (and a GPU compiler) uses, so the difference is not the device's."""
    try:
        ref = other.output_process_fn_grad(op(other.input, *other.args, **other.kwargs))
        checker.assertEqual(dev_out, ref, atol=ATOL, rtol=RTOL)
        return True
    except Exception:  # noqa: BLE001 - no second path to judge by: the difference stands
        return False


def _matches_reference(checker, op, numpy_sample, dev_out) -> bool:
    """The device's result equals the entry's own reference (``op.ref``, NumPy's function), which PyTorch's
    tests judge the CPU by too: where the CPU deviates from C99's special values (``acos(inf+infj)`` is
    nan+nanj on the CPU, 0.785-infj as NumPy and a GPU's thrust give it), the CPU is not the judge."""
    try:
        expected = op.ref(numpy_sample.input, *numpy_sample.args, **numpy_sample.kwargs)
        checker.assertEqual(dev_out, expected, atol=ATOL, rtol=RTOL, exact_dtype=False)
        return True
    except Exception:  # noqa: BLE001 - no reference, or one that cannot take this sample: the difference stands
        return False


def as_numpy(sample):
    """The sample with its tensors as NumPy arrays, as PyTorch's reference tests pass them to ``op.ref``
    (None when a tensor has no NumPy dtype, such as bfloat16)."""
    try:
        return sample.numpy()
    except Exception:  # noqa: BLE001
        return None


class _Checker:
    _case = None

    @classmethod
    def get(cls):
        if cls._case is None:
            from torch.testing._internal.common_utils import TestCase

            class Case(TestCase):
                def runTest(self):  # noqa: N802 - unittest's name
                    pass

            cls._case = Case()
        return cls._case


def run_job(ops, device: str, key: str, dtype_name_: str) -> dict:
    import torch

    op = ops.get(key)
    result = {"key": key, "dtype": dtype_name_, "status": "error", "samples": 0, "failed": 0, "reason": "",
              "ops": [], "failing_op": "", "seconds": 0.0}
    if op is None:
        result["reason"] = f"no OpInfo entry {key!r} in this torch"
        return result
    dtype = getattr(torch, dtype_name_)
    verdict, why = verdict_of_decorators(op, dtype)
    if verdict == "skip":
        result.update(status="skip", reason=why)
        return result
    started = time.monotonic()
    checker = _Checker.get()
    move = to_device(device)
    errors, fails = [], []
    rounding = 0  # samples that differ from the CPU but match its result in float64, rounded to the dtype
    paths = 0  # samples that differ from the CPU but match its result on strided copies of the inputs
    reference = 0  # samples that differ from the CPU but match the entry's NumPy reference
    has_ref = getattr(op, "ref", None) is not None
    seen: list[str] = []
    failing_op = ""
    count = 0
    placements = None  # cpu_bound's answer, asked for at the first sample that errors on the device
    try:
        samples = op.reference_inputs("cpu", dtype)
        for sample in samples:
            count += 1
            dev = sample.transform(move)
            cpu = sample  # the CPU runs the sample as made, after the device ran its copy
            wide = sample.transform(widen) if dtype_name_ in NARROW else None  # before anything mutates it
            other = sample.transform(strided) if dtype_name_ in NARROW else None
            numpy_sample = as_numpy(sample) if has_ref else None  # before anything mutates it
            dev_out, exc, mode = on_device(op, dev)
            _merge(seen, mode.ops)
            if exc is not None:  # as upstream's device-made sample has it: its CPU-made tensors stay there
                placements = cpu_bound(op, dtype) if placements is None else placements
                keep = placements[count - 1] if count <= len(placements) else []
                if any(keep) and len(keep) == tensor_count(sample):
                    dev_out, exc, mode = on_device(op, sample.transform(to_device_keeping(device, keep)))
                    _merge(seen, mode.ops)
            if exc is not None:  # the sample errors on the device
                errors.append(f"sample {count}: {first_line(exc)}")
                failing_op = failing_op or mode.raised
                continue
            try:
                cpu_out = cpu.output_process_fn_grad(op(cpu.input, *cpu.args, **cpu.kwargs))
            except Exception as exc:  # noqa: BLE001
                fails.append(f"sample {count}: the CPU raised {first_line(exc)} and the device did not")
                continue
            try:
                checker.assertEqual(dev_out, cpu_out, atol=ATOL, rtol=RTOL)
            except AssertionError as exc:
                if wide is not None and _matches_wide(checker, op, wide, dev_out):
                    rounding += 1
                elif other is not None and _matches_other_path(checker, op, other, dev_out):
                    paths += 1
                elif numpy_sample is not None and _matches_reference(checker, op, numpy_sample, dev_out):
                    reference += 1
                else:
                    fails.append(f"sample {count}: {_mismatch(exc)}")
    except Exception as exc:  # noqa: BLE001 - making the samples failed on the CPU: nothing to compare
        result.update(status="error", reason=f"making sample {count + 1} failed: {first_line(exc)}",
                      samples=count, failed=len(errors) + len(fails) + 1, ops=seen, failing_op=failing_op)
        result["seconds"] = round(time.monotonic() - started, 3)
        return result
    status = "error" if errors else "fail" if fails else "pass" if count else "skip"
    reason = (errors or fails or [""])[0] if count else "no samples for this dtype"
    if rounding and status == "pass":
        reason = (f"{rounding} sample{'s' * (rounding != 1)} differ from the CPU's {dtype_name_} result but match "
                  f"its {'complex128' if dtype.is_complex else 'float64'} result rounded to {dtype_name_}")
    if paths and status == "pass":
        reason = "; ".join(r for r in (reason, (
            f"{paths} sample{'s' * (paths != 1)} differ from the CPU's vectorized result but match its result "
            f"on strided copies of the inputs (its element path)")) if r)
    if reference and status == "pass":
        reason = "; ".join(r for r in (reason, (
            f"{reference} sample{'s' * (reference != 1)} differ from the CPU's result but match the entry's "
            f"reference (NumPy)")) if r)
    result["rounding"] = rounding
    result["paths"] = paths
    result["reference"] = reference
    if verdict == "xfail":
        if status in ("fail", "error"):
            status, reason = "skip", f"{why}; it does here too ({reason})"
        else:
            reason = f"{why}, but it passes here"
    result.update(status=status, reason=reason, samples=count, failed=len(errors) + len(fails), ops=seen,
                  failing_op=failing_op, seconds=round(time.monotonic() - started, 3))
    return result


def on_device(op, dev):
    """Run the entry on the device's copy of a sample: (its output, None, the recorder) or (None, the
    exception, the recorder), the recorder holding the operators it dispatched and the one that raised."""
    mode = Recorder()
    try:
        with mode:
            out = op(dev.input, *dev.args, **dev.kwargs)
        return dev.output_process_fn_grad(out), None, mode
    except Exception as exc:  # noqa: BLE001 - the sample errors on the device: the caller records it
        return None, exc, mode


def _merge(seen: list[str], names: list[str]) -> None:
    for n in names:
        if n not in seen:
            seen.append(n)


def _mismatch(exc: AssertionError) -> str:
    lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
    return "; ".join(lines[:3])[:500]


def serve(device: str, proto) -> None:
    import torch

    torch.set_num_threads(1)
    ops = entries()
    torch.empty(1, device=device)  # the device allocates, or the run stops here with the reason
    proto.write(json.dumps({"ready": True, "torch": torch.__version__.split("+")[0]}) + "\n")
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        job = json.loads(line)
        print(f"job {job['key']} {job['dtype']}", file=sys.stderr, flush=True)
        result = run_job(ops, device, job["key"], job["dtype"])
        proto.write(json.dumps(result, sort_keys=True) + "\n")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="child.py")
    parser.add_argument("--device", default="musa")
    parser.add_argument("--loader")
    parser.add_argument("--library")
    sub = parser.add_subparsers(dest="command", required=True)
    inv = sub.add_parser("inventory")
    inv.add_argument("path")
    sub.add_parser("serve")
    args = parser.parse_args(argv)
    try:
        load_device(args.loader, args.library)
    except Exception as exc:  # noqa: BLE001 - one line the parent shows
        sys.stderr.write(traceback.format_exc())
        print(json.dumps({"fatal": "the device did not load: " + first_line(exc)}), flush=True)
        return 3
    if args.command == "inventory":
        inventory(args.path)
        return 0
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # anything else written to stdout (kernels, warnings) goes to stderr
    sys.stdout = sys.stderr
    try:
        serve(args.device, proto)
    except Exception as exc:  # noqa: BLE001 - one line the parent shows
        sys.stderr.write(traceback.format_exc())
        proto.write(json.dumps({"fatal": "the device did not start: " + first_line(exc)}) + "\n")
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
