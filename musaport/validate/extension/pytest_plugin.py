"""A pytest plugin for a ported project's own tests on the ``musa`` device: run by path, never imported by
musaport (``validate --extension`` copies it beside the stand-in ``torch_musa``).

Loaded with ``-p musaport_extension_plugin`` before any test module, it
loads the device library of the PyTorch port (``MUSAPORT_DEVICE_LOADER``,
``MUSAPORT_DEVICE_LIBRARY``), so ``torch.musa``, ``Tensor.musa()`` and
``device="musa"`` work in every test, as importing torch_musa makes them work
on a MUSA machine.  The tests run under pytest-forked: a test that kills its
process fails alone.

A project whose package defines Triton kernels (mamba's layer norm) asks
Triton for a GPU driver when it is imported: ``@triton.autotune`` takes the
active driver's benchmarker, and with no GPU Triton has none ("0 active
drivers"), so no test of the project could even be collected. The plugin
makes a stand-in the active driver (Triton's own ``driver.set_active``) when
Triton has no driver of its own: importing works, and a test that launches
a Triton kernel fails with an error that says the emulated device has no
Triton backend. Where the installed Triton predates ``triton.set_allocator``
(Triton 3.5's hook for the global scratch memory some kernels ask for;
mamba's Mamba-3 modules call it when they are imported, and torch 2.6.0's
environment has Triton 3.2), the stand-in adds one that keeps the allocator
and nothing more: no Triton kernel runs on the emulated device to ask it.

Each test also records how many allocations it asked of the device's
caching allocator (``torch.musa.memory_stats``), as the JUnit property
``musa_allocations``: a test that made none held no tensor data on the
device (its tensors were elsewhere, or empty: a project's tests
parametrized over ``cpu`` and ``cuda`` run their ``cpu`` half too), and its
outcome says little of the port.

``torch.library.opcheck`` runs for the device's tensors: its autograd
registration test refuses any device but the CPU and CUDA, and the plugin
asks the same question of the device's autograd key (below).
"""

import importlib.util
import os
import sys

import pytest

ALLOCATIONS = "allocation.all.allocated"  # torch.cuda.memory_stats's key, which torch.musa's keeps
PROPERTY = "musa_allocations"
_BEFORE = pytest.StashKey()  # a test's count at its setup


def pytest_configure(config):
    loader = os.environ.get("MUSAPORT_DEVICE_LOADER")
    if not loader:
        return
    spec = importlib.util.spec_from_file_location("musaport_loader", loader)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # The module by its name: the stand-in torch_musa that the project's code imports (a JIT build's
    # torch_musa.utils.musa_extension) imports the same loader, which then knows the device is loaded.
    sys.modules["musaport_loader"] = module
    module.load(os.environ["MUSAPORT_DEVICE_LIBRARY"])
    _triton_stand_in()
    _autograd_registration_for_the_device()


def _allocations():
    """The device's allocation requests so far, or None without a device that counts them."""
    try:
        import torch

        return torch.musa.memory_stats()[ALLOCATIONS]
    except Exception:  # noqa: BLE001 - no device loaded, or a device library without the statistics
        return None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    item.stash[_BEFORE] = _allocations()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """At teardown, before its report is made (JUnit writes a test's properties from that report)."""
    if call.when == "teardown":
        before, after = item.stash.get(_BEFORE, None), _allocations()
        if before is not None and after is not None:
            item.user_properties.append((PROPERTY, after - before))
    yield


def _autograd_registration_for_the_device():
    """``torch.library.opcheck``'s autograd registration test for the device's tensors.

    PyTorch's check (``optests.autograd_registration_check``) stops at any tensor that is neither on the
    CPU nor on CUDA ("NYI devices other than CPU/CUDA"), yet what it asks does not depend on the device
    but on its autograd key: does the operator have a kernel at that key, at ``Autograd`` or at
    ``CompositeImplicitAutograd``; if not, does it, run with the autograd fallback off, return a tensor
    that requires grad? For a backend's tensors the key is ``AutogradPrivateUse1``, as it is
    ``AutogradCUDA`` for CUDA's. Other inputs go to PyTorch's own check unchanged.
    """
    try:
        import torch
        import torch.utils._pytree as pytree
        from torch.testing._internal import optests
        from torch.testing._internal.optests import autograd_registration, generate_tests
    except ImportError:
        return
    original = autograd_registration.autograd_registration_check
    device = torch._C._get_privateuse1_backend_name()
    has_kernel = torch._C._dispatch_has_kernel_for_dispatch_key

    def autograd_registration_check(op, args, kwargs):
        leaves = pytree.arg_tree_leaves(*args, **kwargs)
        tensors = [x for x in leaves if isinstance(x, torch.Tensor)]
        devices = {x.device.type for x in tensors}
        if device not in devices or not devices <= {device, "cpu"} or not any(x.requires_grad for x in tensors):
            return original(op, args, kwargs)  # its own answer, or its own error
        if any(has_kernel(op.name(), key) for key in ("AutogradPrivateUse1", "Autograd", "CompositeImplicitAutograd")):
            return None
        with autograd_registration.set_autograd_fallback_mode("nothing"):
            outputs = op(*args, **kwargs)
        inputs = {id(x) for x in leaves}
        if pytree.tree_any_only(torch.Tensor, lambda x: x.requires_grad and id(x) not in inputs, outputs):
            raise AssertionError(f"{op.name()}: an output requires grad on {device}, but the operator has no "
                                 "kernel at an autograd key (AutogradPrivateUse1, Autograd or "
                                 "CompositeImplicitAutograd): its autograd is registered at a backend key")
        return None

    for module in (autograd_registration, optests, generate_tests):
        module.autograd_registration_check = autograd_registration_check


_NO_TRITON = "musaport: the emulated musa device has no Triton backend, so Triton kernels do not run on it"


def _triton_stand_in():
    """Triton's active driver, when Triton is installed and has none of its own: one that lets a module
    define and autotune kernels at import, and refuses to run them."""
    try:
        from triton.backends.driver import DriverBase
        from triton.runtime.driver import driver
    except ImportError:
        return
    try:
        driver.active.get_current_target()  # Triton's own driver, if it finds one
        return
    except Exception:  # noqa: BLE001 - "0 active drivers" (RuntimeError), or a driver that cannot start
        pass

    def refuse(*args, **kwargs):
        raise RuntimeError(_NO_TRITON)

    class EmulatedDevice(DriverBase):
        @classmethod
        def is_active(cls):
            return True

        def get_current_target(self):
            refuse()

        def get_benchmarker(self):
            return refuse

        def __getattr__(self, name):  # launching needs the device, its stream, its launcher: none here
            raise RuntimeError(f"{_NO_TRITON} (Triton asked its driver for {name})")

    driver.set_active(EmulatedDevice())
    _allocator_hook_stand_in()


def _allocator_hook_stand_in():
    """``triton.set_allocator`` where Triton has none: it keeps the allocator (``triton.musaport_allocator``),
    which no kernel calls, since none runs here."""
    import triton

    if hasattr(triton, "set_allocator"):
        return

    def set_allocator(allocator):
        triton.musaport_allocator = allocator

    triton.set_allocator = set_allocator
