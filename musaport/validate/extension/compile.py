"""Phase 1 of ``validate --extension``: every ported translation unit against the release's real torch.

Host ``.cpp`` and device ``.mu`` alike are checked by ``validate --compile``'s
clang passes with the headers a MUSA build of the extension sees, in the
order torch_musa puts them: the shim (the toolkit), the project (its port
laid over its own files), the PyTorch port's ported headers (torch_musa's
``generated_cuda_compatible``: ``ATen/musa``, ``c10/musa`` and the headers
the port rewrote in place, such as ``c10/util/Half-inl.h``), then the
release wheel's own ``torch/include``, generated headers included
(``variable_factories.h``, ``ATen/ops``), and Python's.  The wheel's headers
were made for a CUDA build: read without the port's in front, their
``__CUDA__`` branches (clang's CUDA mode) expect CUDA's ``__half``, which a
MUSA build never sees because the port's ``Half-inl.h`` comes first.

Nothing is written outside the extension's OUT: the cache of verdicts and
the precompiled preludes are in ``OUT/.musaport/extension/compile``.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from musaport.outdir import OutDir
from musaport.port.cache import CACHE_NAME
from musaport.validate.compile.compile import Outcome, Progress, validate_compile

PATTERNS = ("*.mu", "*.cpp", "*.cc", "*.cxx")


def torch_headers(pt: OutDir, wheel_include: Path, python_include: Path) -> list[Path]:
    """The PyTorch headers of a MUSA build of an extension, in their order (see the module docstring)."""
    return [pt.tree / "aten/src", pt.tree, wheel_include, wheel_include / "torch/csrc/api/include", python_include]


def python_include(python: Path) -> Path:
    """The C headers of the torch environment's Python (``torch/extension.h`` includes ``Python.h``)."""
    done = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['include'])"],
                          capture_output=True, text=True, check=True)
    return Path(done.stdout.strip())


def compile_phase(out: OutDir, pt: OutDir, wheel_include: Path, python: Path, jobs: int,
                  progress: Progress | None = None) -> list[Outcome]:
    """Every ported TU (``PATTERNS``) checked in both passes against ``pt`` and the wheel."""
    headers = torch_headers(pt, wheel_include, python_include(python))
    digest = hashlib.sha256(" ".join(map(str, headers)).encode())
    port_cache = pt.state_file(CACHE_NAME)
    if port_cache.is_file():  # the PyTorch port's headers decide every verdict: its cache names their contents
        digest.update(port_cache.read_bytes())
    return validate_compile(out, PATTERNS, jobs, ("host", "device"), True, progress=progress,
                            torch_headers=headers, state=out.work("extension") / "compile",
                            extra_env=digest.hexdigest())
