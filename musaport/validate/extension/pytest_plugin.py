"""A pytest plugin for a ported project's own tests on the ``musa`` device: run by path, never imported by
musaport (``validate --extension`` copies it beside the stand-in ``torch_musa``).

Loaded with ``-p musaport_extension_plugin`` before any test module, it
loads the device library of the PyTorch port (``MUSAPORT_DEVICE_LOADER``,
``MUSAPORT_DEVICE_LIBRARY``), so ``torch.musa``, ``Tensor.musa()`` and
``device="musa"`` work in every test, as importing torch_musa makes them work
on a MUSA machine.  The tests run under pytest-forked: a test that kills its
process fails alone.
"""

import importlib.util
import os


def pytest_configure(config):
    loader = os.environ.get("MUSAPORT_DEVICE_LOADER")
    if not loader:
        return
    spec = importlib.util.spec_from_file_location("musaport_loader", loader)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.load(os.environ["MUSAPORT_DEVICE_LIBRARY"])
