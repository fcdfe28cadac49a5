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
Triton backend.

Each test also records how many allocations it asked of the device's
caching allocator (``torch.musa.memory_stats``), as the JUnit property
``musa_allocations``: a test that made none ran its tensors elsewhere (a
project's tests parametrized over ``cpu`` and ``cuda`` run their ``cpu``
half too), and its outcome says nothing of the port.
"""

import importlib.util
import os

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
    module.load(os.environ["MUSAPORT_DEVICE_LIBRARY"])
    _triton_stand_in()


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
