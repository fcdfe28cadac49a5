"""Load built extension modules with the ``musa`` device loaded: run by path in the torch environment.

``python import_child.py LIBRARY LOADER_DIR MODULE.so...`` loads the device
(``musaport_loader.load``), then each module as torch loads an operator
library (``torch.ops.load_library``: ``dlopen`` with every symbol bound now,
so one that nothing defines fails here), then, when the module is a Python
extension (it exports ``PyInit_<name>``), imports it.  One JSON line per
module on stdout: ``{"file", "ok", "error"}``.  musaport is not installed
here: this file imports only torch and the standard library.
"""

import ctypes
import importlib.machinery
import importlib.util
import json
import os
import sys


def _load(path):
    torch.ops.load_library(path)
    name = os.path.basename(path).split(".")[0]
    try:
        ctypes.CDLL(path).__getattr__("PyInit_" + name)
    except AttributeError:
        return  # an operator library, not a Python module
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)


if __name__ == "__main__":
    library, loader_dir, *modules = sys.argv[1:]
    sys.path.insert(0, loader_dir)
    import torch  # noqa: E402

    import musaport_loader  # noqa: E402

    musaport_loader.load(library)
    for path in modules:
        try:
            _load(path)
            answer = {"file": path, "ok": True}
        except Exception as exc:  # noqa: BLE001 - every failure is the answer
            answer = {"file": path, "ok": False, "error": f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"}
        print(json.dumps(answer), flush=True)
