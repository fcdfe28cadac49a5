"""The shim's sequential sorts (cub's radix sorts, thrust's stable sorts) on the CPU: right, stable, and not
quadratic; checked against Python's own stable sort of the same keys."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from musaport.resources import shim_include

PROGRAM = r"""
#include <musa_runtime.h>
#include <cub/cub.cuh>
#include <thrust/sort.h>
#include <cstdio>
#include <vector>

int main() {
  long long n;
  std::scanf("%lld", &n);
  std::vector<int> keys(n), values(n);
  for (long long i = 0; i < n; ++i) { std::scanf("%d", &keys[i]); values[i] = static_cast<int>(i); }
  std::vector<int> kout(n), vout(n);
  size_t bytes = 0;
  cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys.data(), kout.data(), values.data(), vout.data(), n);
  std::vector<char> temp(bytes);
  cub::DeviceRadixSort::SortPairs(temp.data(), bytes, keys.data(), kout.data(), values.data(), vout.data(), n);
  std::vector<int> desc_k(n), desc_v(n);
  cub::DeviceRadixSort::SortPairsDescending(temp.data(), bytes, keys.data(), desc_k.data(), values.data(),
                                            desc_v.data(), n);
  std::vector<int> tk(keys), tv(values);
  thrust::stable_sort_by_key(thrust::host, tk.data(), tk.data() + n, tv.data());
  for (long long i = 0; i < n; ++i) std::printf("%d %d %d %d %d\n", vout[i], desc_v[i], tv[i], kout[i], tk[i]);
  return 0;
}
"""


@pytest.fixture(scope="module")
def sorter(tmp_path_factory: pytest.TempPathFactory, gxx: str) -> Path:
    work = tmp_path_factory.mktemp("shim-sort")
    (work / "sort.cpp").write_text(PROGRAM)
    binary = work / "sort"
    subprocess.run([gxx, "-std=c++17", "-O1", "-pthread", f"-I{shim_include()}", str(work / "sort.cpp"), "-o",
                    str(binary)], check=True)
    return binary


@pytest.mark.compiles
@pytest.mark.parametrize("n, distinct", [(0, 1), (1, 1), (17, 3), (1000, 7), (200_000, 50)])
def test_sorts_are_stable_and_right(sorter: Path, n: int, distinct: int) -> None:
    """Few distinct keys, so stability shows in the order of equal keys' values; 200,000 keys took minutes
    with an insertion sort and take well under the timeout now."""
    rng = random.Random(n)
    keys = [rng.randrange(-distinct, distinct) for _ in range(n)]
    ran = subprocess.run([str(sorter)], input=f"{n}\n" + " ".join(map(str, keys)), capture_output=True, text=True,
                         check=True, timeout=60)
    rows = [tuple(map(int, line.split())) for line in ran.stdout.splitlines()]
    ascending = sorted(range(n), key=lambda i: keys[i])
    descending = sorted(range(n), key=lambda i: -keys[i])
    assert [r[0] for r in rows] == ascending
    assert [r[1] for r in rows] == descending
    assert [r[2] for r in rows] == ascending
    assert [r[3] for r in rows] == [r[4] for r in rows] == sorted(keys)


@pytest.mark.compiles
def test_cubs_umbrella_brings_floats_limits(gxx: str, tmp_path: Path) -> None:
    """nvcc's <cub/cub.cuh> includes <cfloat> (libcu++'s cuda/std/cfloat): a kernel that uses FLT_MAX after
    including only cub compiles with nvcc, and so must its port."""
    (tmp_path / "k.cpp").write_text("#include <musa_runtime.h>\n#include <cub/cub.cuh>\n"
                                    "float lowest() { return -FLT_MAX; }\n")
    done = subprocess.run([gxx, "-std=c++17", "-fsyntax-only", f"-I{shim_include()}", str(tmp_path / "k.cpp")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
