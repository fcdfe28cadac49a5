"""The adapters every PrivateUse1 backend writes (templates/backend), on the ported ``musa`` device.

One small device is built (the operators the adapters route to, not the
whole port) and each adapter runs from Python against the CPU: convolution
routed to the ported native kernels as CUDA routes it without cuDNN, the
operators libtorch's generic code refuses for the device (std/var, mode,
cdist, pdist, index_put with accumulate, log_sigmoid's backward), autocast,
scatter's deterministic route, and sparse and nested tensors.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from musaport.outdir import OutDir
from musaport.validate.device.build import build_device

# The operators the adapters call through the dispatcher, and what their kernels call in turn.
OPS = ("empty", "copy_", "fill_", "zero_", "add", "mul", "sum", "cat", "mm", "addmm", "bmm", "baddbmm",
       "_slow_conv2d_forward", "_slow_conv2d_backward", "slow_conv_dilated2d", "slow_conv_dilated3d",
       "_conv_depthwise2d", "slow_conv_transpose2d", "slow_conv_transpose3d",
       "std", "var", "std_mean", "var_mean", "mode", "_cdist_forward", "_cdist_backward", "_pdist_forward",
       "_pdist_backward", "_index_put_impl_", "index", "sort", "sqrt", "complex", "where", "eq", "ne",
       "masked_fill_", "abs", "pow", "clamp_min", "sub", "div", "neg", "sign", "arange", "nonzero", "view_as_real",
       "max", "min", "lt", "ge", "_assert_async", "remainder",
       "log_sigmoid_forward", "log_sigmoid_backward",
       "scatter", "scatter_add", "scatter_reduce", "aminmax", "_local_scalar_dense", "as_strided", "set_.source_Storage_storage_offset", "set_.source_Tensor", "gather",
       "_nested_from_padded", "native_batch_norm")

PRELUDE = """
import sys, torch, torch.nn.functional as F
sys.path.insert(0, sys.argv[2])
import musaport_loader
musaport_loader.load(sys.argv[1])
torch.manual_seed(0)

def same(fn, *args, atol=1e-4, rtol=1e-4, grad=False):
    cpu = [a.clone().requires_grad_(grad) if a.is_floating_point() else a for a in args]
    dev = [a.detach().to("musa").requires_grad_(grad) if a.is_floating_point() else a.to("musa") for a in args]
    want, got = fn(*cpu), fn(*dev)
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    for w, g in zip(want, got):
        assert g.device.type == "musa", g.device
        torch.testing.assert_close(g.cpu(), w, atol=atol, rtol=rtol, equal_nan=True)
    if grad:
        sum(w.float().sum() for w in want).backward()
        sum(g.float().sum() for g in got).backward()
        for c, d in zip(cpu, dev):
            if c.requires_grad:
                torch.testing.assert_close(d.grad.cpu(), c.grad, atol=atol, rtol=rtol)
"""


@pytest.fixture(scope="module")
def device(ported_260: Path, tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("adapters") / "out"
    shutil.copytree(ported_260, out, symlinks=True)  # the shared port stays as run made it
    build = build_device(OutDir(out), OPS, os.cpu_count() or 2, progress=lambda m: None)
    assert build.library is not None, build.figures
    return build


def _passes(build, statements: str) -> None:
    """``statements`` run in the torch environment with the device loaded, without an error."""
    done = subprocess.run([str(build.python), "-c", PRELUDE + statements + "\nprint('ok')", str(build.library),
                           str(build.loader.parent)], capture_output=True, text=True, timeout=900,
                          cwd=build.loader.parent)
    assert done.returncode == 0 and done.stdout.split()[-1:] == ["ok"], done.stderr[:3000]


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
@pytest.mark.slow
def test_convolution_runs_on_the_ported_native_kernels_forward_and_backward(device) -> None:
    """A musa tensor reaches convolution_overrideable; the adapter routes it as _select_conv_backend routes a
    CUDA tensor without cuDNN: slow_conv2d, dilated, depthwise, transposed, grouped by splitting, 1-D as
    2-D; gradients through convolution_backward_overrideable and the ported backward stubs."""
    _passes(device, """
x, w, b = torch.randn(2, 4, 7, 6), torch.randn(6, 4, 3, 3), torch.randn(6)
same(lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), x, w, b, grad=True)          # slow_conv2d
same(lambda x, w: F.conv2d(x, w, dilation=2), x, w, grad=True)                             # dilated
same(lambda x, w: F.conv2d(x, w, groups=2), x, torch.randn(4, 2, 3, 3), grad=True)         # grouped
same(lambda x, w, b: F.conv2d(x, w, b, groups=4, padding=1), x, torch.randn(8, 1, 3, 3), torch.randn(8),
     grad=True)                                                                            # depthwise
same(lambda x, w: F.conv1d(x, w, padding=2), torch.randn(2, 3, 9), torch.randn(5, 3, 4), grad=True)
same(lambda x, w: F.conv3d(x, w), torch.randn(1, 2, 4, 5, 5), torch.randn(3, 2, 2, 2, 2), grad=True)
same(lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, output_padding=1), x, torch.randn(4, 3, 3, 3),
     torch.randn(3), grad=True)
same(lambda x, w: F.conv_transpose3d(x, w), torch.randn(1, 2, 3, 3, 3), torch.randn(2, 2, 2, 2, 2), grad=True)
""")


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
@pytest.mark.slow
def test_operators_the_generic_code_refuses_run_on_the_ports_kernels(device) -> None:
    """std/var and their _mean forms, mode, cdist, pdist ("supports tensors on a CPU, CUDA, or XPU device
    only") and index_put with accumulate=True ("index_put does not support accumulate=true") run on the
    ported kernels (the dispatch stubs the ported files fill for PrivateUse1); so does log_sigmoid's
    backward, whose generic CUDA kernel called the stub's CUDA slot, and batch norm's statistics of a
    non-contiguous input, which CUDA's kernel took from libtorch's var_mean_out (rule var-mean-out-dispatched)."""
    _passes(device, """
a = torch.randn(5, 7, dtype=torch.float64)
same(lambda a: torch.std(a, 1), a)
same(lambda a: torch.var(a, 0, correction=0, keepdim=True), a)
same(lambda a: torch.var_mean(a, 1), a)
same(lambda a: torch.std_mean(a), a)
same(lambda a: torch.var(a, 1), a.to(torch.complex128) * (1 + 2j))
same(lambda a: torch.std(a), torch.empty(0, dtype=torch.float64))
same(lambda a: torch.mode(a, 1), torch.tensor([[1, 2, 2, 3], [4, 4, 1, 1]]))
same(lambda a: torch.mode(a, 0, out=(torch.empty(0, dtype=a.dtype, device=a.device),
                                     torch.empty(0, dtype=torch.long, device=a.device))), torch.tensor([[1, 2], [1, 3]]))
try:
    torch.mode(torch.ones(3, device="musa"), out=(torch.empty(0, dtype=torch.long, device="musa"),
                                                  torch.empty(0, dtype=torch.long, device="musa")))
    raise AssertionError("mode's out= took a values tensor of another dtype")
except RuntimeError as exc:
    assert "for values output" in str(exc), exc
same(lambda x, y: torch.cdist(x, y, p=1), torch.randn(2, 4, 3), torch.randn(2, 5, 3), grad=True)
same(lambda x, y: torch.cdist(x, y), torch.randn(30, 3), torch.randn(4, 3), grad=True)
same(lambda x: F.pdist(x, p=3), torch.randn(6, 4), grad=True)
same(lambda t, i, v: t.index_put((i,), v, accumulate=True), torch.zeros(5), torch.tensor([0, 1, 1, 4, 1]),
     torch.ones(5))
same(F.logsigmoid, torch.randn(6), grad=True)  # CUDA's generic kernel named the stub's CUDA slot
# A non-contiguous input takes CUDA's general statistics path, which called libtorch's var_mean_out
same(lambda x: F.batch_norm(x, None, None, training=True), torch.randn(2, 3, 4, 5).transpose(2, 3))
""")


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
@pytest.mark.slow
def test_broadcast_indices_read_and_write_the_elements_they_name(device) -> None:
    """libtorch strides the index tensors alike for CUDA, MPS and XPU sources only, and CUDA's index kernel
    reads every index tensor at the first one's offset: on musa, t[rows[:, None], cols] read the wrong
    elements (and past the end, a device-side assert) until the indexing adapter gave them CUDA's strides."""
    _passes(device, """
g, rows, cols = torch.randn(4, 5, 6, dtype=torch.float64), torch.tensor([[0], [2], [3]]), torch.tensor([[1, 4]])
mask = torch.rand(4, 5) > 0.5
on = lambda t, like: t.to(like.device)
same(lambda g: g[on(rows, g), on(cols, g)], g, grad=True)
same(lambda g: g[on(rows, g), :, on(cols, g)], g)                  # not adjacent: moved to the front
same(lambda g: g[on(rows, g).int(), cols], g)                     # int32, and indices left on the CPU
same(lambda g: g[on(mask, g), on(torch.tensor([1]), g)], g)       # a mask is its nonzero positions
same(lambda t, v: t.index_put((on(rows, t), on(cols, t)), v), torch.zeros(4, 5), torch.arange(6.).view(3, 2))
wide = (torch.randint(0, 4, (10, 1, 1)), torch.randint(0, 5, (1, 9, 1)), torch.randint(0, 6, (1, 1, 11)))
same(lambda g: g[tuple(on(i, g) for i in wide)], g)               # 990 elements: more than one block
try:
    g.to("musa")[torch.tensor([0, 1]), torch.tensor([0, 1, 2])]
    raise AssertionError("indices of shapes [2] and [3] were broadcast")
except IndexError as exc:
    assert "could not be broadcast together with shapes [2], [3]" in str(exc), exc
""")


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
@pytest.mark.slow
def test_autocast_on_the_device_lowers_and_keeps_as_cudas_policy(device) -> None:
    """torch.autocast("musa") passes the AutocastPrivateUse1 key: a matrix product runs in float16 (lower
    precision), a float16 pow runs in float32 (an fp32 operator of the policy), and binary_cross_entropy is refused
    as on CUDA."""
    _passes(device, """
a, b = torch.randn(4, 8).to("musa"), torch.randn(8, 3).to("musa")
with torch.autocast("musa"):
    assert torch.mm(a, b).dtype == torch.float16
    assert torch.pow(a.half(), 2).dtype == torch.float32
    try:
        F.binary_cross_entropy(torch.rand(3).to("musa"), torch.rand(3).to("musa"))
        raise AssertionError("binary_cross_entropy ran under autocast")
    except RuntimeError as exc:
        assert "unsafe to autocast" in str(exc)
torch.testing.assert_close(torch.mm(a, b).cpu(), torch.mm(a.cpu(), b.cpu()), atol=1e-4, rtol=1e-4)
""")



@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
@pytest.mark.slow
def test_scatter_in_deterministic_mode_takes_cudas_deterministic_route(device) -> None:
    """Under torch.use_deterministic_algorithms(True), scatter_add, scatter and scatter_reduce (sum, mean) take
    the index_put_ route libtorch takes for CUDA tensors only; the ported atomic kernel raised CUDA's alert
    ("scatter_add_cuda_kernel does not have a deterministic implementation"). Off, the port's kernels run."""
    _passes(device, """
x, src = torch.randn(4, 5, dtype=torch.float64), torch.randn(3, 6, dtype=torch.float64)
index = torch.tensor([[0, 1, 2, 0, 3], [3, 0, 0, 1, 2], [2, 2, 1, 3, 0]])
for deterministic in (True, False):
    torch.use_deterministic_algorithms(deterministic)
    same(lambda x, i, s: x.scatter_add(0, i, s), x, index, src)
    same(lambda x, i, s: x.clone().scatter_add_(1, i[:, :4], s), x, index, src)
    same(lambda x, i, s: torch.scatter_add(x, 0, i, s, out=torch.empty_like(x)), x, index, src)
    same(lambda x, i, s: x.scatter(1, i, s), x, torch.tensor([[0, 1], [2, 3]]), src)
    for reduce in ("sum", "mean", "amax"):
        for include_self in (True, False):
            same(lambda x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self), x, index, src)
    same(lambda x, i, s: x.scatter_add(0, i, s), x, index, src[:, :5].contiguous(), grad=True)
torch.use_deterministic_algorithms(True)
try:
    torch.zeros(3, device="musa").scatter_add_(0, torch.tensor([0, 5]).to("musa"), torch.ones(2, device="musa"))
    raise AssertionError("an index out of bounds was taken")
except IndexError as exc:
    assert "index 5 is out of bounds for dimension 0 with size 3" in str(exc), exc
""")


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
@pytest.mark.slow
def test_sparse_tensors_on_the_device_run_libtorchs_generic_kernels(device) -> None:
    """A musa sparse tensor has the SparsePrivateUse1 key, for which libtorch registers nothing ("Could not run
    'aten::_sparse_coo_tensor_with_dims_and_tensors' with arguments from the 'SparsePrivateUse1' backend"). The
    sparse adapter redispatches the operators whose CPU and CUDA kernels are one function to the CPU's. CUDA's
    own sparse kernels (coalescing) are weak: this device, built for a few dense operators, has no ported
    sparse file, so they stay unregistered rather than pulling those files in (the whole device has them)."""
    _passes(device, """
i, v = torch.tensor([[0, 1, 1, 0], [2, 0, 2, 2]]), torch.tensor([3., 4., 5., 6.])
cpu = torch.sparse_coo_tensor(i, v, (2, 3))
dev = torch.sparse_coo_tensor(i.to("musa"), v.to("musa"), (2, 3))
assert (dev.layout, dev.device.type, dev._nnz(), dev.is_coalesced()) == (torch.sparse_coo, "musa", 4, False)
assert (dev.sparse_dim(), dev.dense_dim(), tuple(dev.shape)) == (2, 0, (2, 3))
torch.testing.assert_close(dev._indices().cpu(), cpu._indices())
torch.testing.assert_close(dev._values().cpu(), cpu._values())
try:
    dev.coalesce()
    raise AssertionError("coalesce ran on a device without the ported sparse kernels")
except NotImplementedError as exc:
    assert "'aten::_coalesce'" in str(exc) and "'Sparsemusa' backend" in str(exc), exc  # the key, as renamed
""")


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
@pytest.mark.slow
def test_nested_tensors_on_the_device_run_libtorchs_generic_kernels(device) -> None:
    """A musa nested tensor has the NestedTensorPrivateUse1 key, for which libtorch registers nothing. The
    adapter redispatches the nested operators whose CPU and CUDA kernels are one function (addition, unbind)
    to the CPU's, and registers CUDA's own to_padded_tensor kernel (in the file of _nested_from_padded, which
    this small device has), whose sizes are int64_t where the schema has SymInt; bmm's CUDA kernel is in a
    ported file this device leaves out, so it stays unregistered."""
    _passes(device, """
parts = [torch.randn(2, 3), torch.randn(4, 3)]
cpu = torch.nested.nested_tensor(parts)
dev = torch.nested.nested_tensor([p.to("musa") for p in parts], device="musa")
assert (dev.is_nested, dev.device.type) == (True, "musa")
for want, got in zip((cpu + cpu).unbind(), (dev + dev).unbind()):
    assert got.device.type == "musa"
    torch.testing.assert_close(got.cpu(), want)
has = torch._C._dispatch_has_kernel_for_dispatch_key
assert has("aten::to_padded_tensor", "NestedTensorPrivateUse1")
assert not has("aten::bmm", "NestedTensorPrivateUse1")
try:
    torch.bmm(dev, dev.transpose(1, 2))
    raise AssertionError("bmm of nested tensors ran on a device without its ported kernel")
except NotImplementedError as exc:
    assert "'aten::bmm'" in str(exc) and "'NestedTensormusa' backend" in str(exc), exc
""")


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
@pytest.mark.slow
def test_memory_statistics_come_from_the_ported_caching_allocator(device) -> None:
    """torch.musa's memory_stats, memory_allocated and their peaks are the ported caching allocator's
    counters, as torch.cuda's are CUDA's: empty before the device is first used, then counting what tensors
    hold and what empty_cache gives back."""
    _passes(device, """
import subprocess
stats = torch.musa.memory_stats()
assert set(stats) >= {"allocation.all.allocated", "allocated_bytes.all.current", "reserved_bytes.all.current"}
assert set(stats.values()) == {0}, stats  # the device not yet initialised
x = torch.empty(1000, device="musa")
after = torch.musa.memory_stats()
assert after["allocation.all.allocated"] == 1, after
assert torch.musa.memory_allocated() >= 4000 and torch.musa.memory_reserved() >= torch.musa.memory_allocated()
y = torch.empty(3000, device="musa")
peak = torch.musa.max_memory_allocated()
assert peak >= 16000 and torch.musa.memory_stats()["allocation.all.allocated"] == 2
del x, y
assert torch.musa.memory_allocated() == 0 and torch.musa.max_memory_allocated() == peak
torch.musa.reset_peak_memory_stats()
assert torch.musa.max_memory_allocated() == 0
torch.musa.empty_cache()
assert torch.musa.memory_reserved() == 0
""")


@pytest.mark.shared
@pytest.mark.torch
@pytest.mark.compiles
@pytest.mark.slow
def test_an_extensions_operator_without_autograd_kernel_runs_on_the_device_as_on_cuda(device) -> None:
    """An operator registered for the device alone (torch-harmonics' attention_kernels::backward, called
    inside an autograd.Function) meets AutogradPrivateUse1, where libtorch registers no fallback; the
    adapter's is the one libtorch gives CPU and CUDA, so the device behaves as they do."""
    _passes(device, """
lib = torch.library.Library("musaport_test", "DEF")
lib.define("twice(Tensor x) -> Tensor")
for key in ("CPU", "PrivateUse1"):
    lib.impl("twice", lambda x: x * 2, key)
import warnings
seen = {}
for dev in ("cpu", "musa"):
    x = torch.arange(4.0, device=dev, requires_grad=True)
    torch.testing.assert_close(torch.ops.musaport_test.twice(x.detach()).cpu(), torch.arange(4.0) * 2)
    with torch.no_grad():
        torch.testing.assert_close(torch.ops.musaport_test.twice(x).cpu(), torch.arange(4.0) * 2)
    with warnings.catch_warnings(record=True) as caught:  # a backward through it: what libtorch does on the CPU
        warnings.simplefilter("always")
        y = torch.ops.musaport_test.twice(x)
        try:
            y.sum().backward()
            outcome = ("ran", x.grad is None)
        except RuntimeError as exc:
            outcome = ("raised", str(exc).split(":")[0])
    seen[dev] = (outcome, y.requires_grad, sorted({str(w.message)[:60] for w in caught}))
assert seen["musa"] == seen["cpu"], seen
""")
