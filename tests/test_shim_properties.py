"""The multiprocessors the emulated device reports: fixed by default, overridable for a measurement.

PyTorch's kernels size grids by ``multiProcessorCount`` (a split reduction's blocks per output, grid-stride
loops, the random generators). The count must not follow the host's cores, or a reduction's rounding would
differ from machine to machine; ``MUSAPORT_MULTIPROCESSORS`` sets it for one process, as
``bench/emulation.py --multiprocessors`` does.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from musaport.resources import shim_include

PROGRAM = r"""
#include <musa_runtime.h>
#include <musa_occupancy.h>
#include <cstdio>
__global__ void k() {}
int main() {
  musaDeviceProp prop;
  int attr = 0, min_grid = 0, block = 0;
  musaGetDeviceProperties(&prop, 0);
  musaDeviceGetAttribute(&attr, musaDevAttrMultiProcessorCount, 0);
  musaOccupancyMaxPotentialBlockSize(&min_grid, &block, k, 0, 256);
  musaOccDeviceProp occ(prop);
  std::printf("props=%d attr=%d occupancy=%d min_grid=%d\n", prop.multiProcessorCount, attr, occ.numSms, min_grid);
}
"""

DEFAULT = int(re.search(r"constexpr int kMultiProcessors = (\d+);",
                        (shim_include() / "musa_runtime_api.h").read_text()).group(1))


@pytest.fixture(scope="module")
def program(gxx: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from musaport.validate.run.kernels import link_flags

    work = tmp_path_factory.mktemp("props")
    cpp, obj, exe = work / "props.cpp", work / "props.o", work / "props"
    cpp.write_text(PROGRAM)
    subprocess.run([gxx, "-std=c++17", "-O1", "-pthread", f"-I{shim_include()}", "-include", "musa_runtime.h",
                    "-x", "c++", "-c", str(cpp), "-o", str(obj)], check=True)
    subprocess.run([gxx, "-pthread", str(obj), "-o", str(exe), *link_flags([obj])], check=True)
    return exe


def reported(program: Path, value: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "MUSAPORT_MULTIPROCESSORS"}
    if value is not None:
        env["MUSAPORT_MULTIPROCESSORS"] = value
    return subprocess.run([str(program)], capture_output=True, text=True, env=env, check=True, timeout=60).stdout.strip()


def line(n: int) -> str:
    return f"props={n} attr={n} occupancy={n} min_grid={n * (2048 // 256)}"


@pytest.mark.compiles
def test_every_query_reports_the_fixed_count_by_default(program: Path):
    assert reported(program, None) == line(DEFAULT)
    assert reported(program, "") == line(DEFAULT)


@pytest.mark.compiles
def test_the_variable_sets_the_count_for_one_process(program: Path):
    assert reported(program, "2") == line(2)
    assert reported(program, "1024") == line(1024)


@pytest.mark.compiles
@pytest.mark.parametrize("value", ["0", "-3", "1025", "two", "2x"])
def test_a_value_out_of_range_or_not_a_number_keeps_the_default(program: Path, value: str):
    assert reported(program, value) == line(DEFAULT)
