"""A failure that the release's own libtorch raised by a check admitting CUDA is counted as a CUDA branch.

test_masked.py on the whole 2.6.0 device failed 104 tests on one line of
libtorch that no port reaches (``SparseCsrTensor.cpp``: "device type of
values (musa) must be CPU or CUDA or Meta"); the check is found in the
release's own sources by its message, never from a list of ours.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from musaport.validate.opinfo.libtorch_checks import check_of, checks_in, release_checks
from musaport.validate.opinfo.tests import libtorch_branches

SOURCE = """\
void f(const Tensor& v, const Tensor& x) {
  TORCH_CHECK(
      v.device().type() == kCPU || v.device().type() == kCUDA,
      "device type of values (", v.device().type(), ") must be CPU or CUDA");
  TORCH_CHECK(!x.is_cuda() || x.get_device() == v.get_device(), "device of x (", x.get_device(),
              ") must match device of values (", v.get_device(), ")");
  TORCH_CHECK(x.is_cuda(), "needs CUDA");
  TORCH_CHECK(x.dim() == 2, "x must be a matrix in this function, but got ", x.dim(), " dimensions");
}
"""


def test_a_check_that_asks_for_cuda_is_found_with_its_line_and_message() -> None:
    (check,) = checks_in(SOURCE, "aten/src/ATen/native/F.cpp")
    assert check.where == "aten/src/ATen/native/F.cpp:2"
    assert check.literals == ("device type of values (", ") must be CPU or CUDA")
    assert check.matches("RuntimeError: device type of values (musa) must be CPU or CUDA")
    assert not check.matches(") must be CPU or CUDA device type of values (musa)")  # in order, or not at all
    # Left out: a check strict only on CUDA (it never refuses musa), one whose message is too short to tell
    # apart, and one that does not ask for CUDA.


@pytest.mark.shared
def test_the_releases_check_is_found_in_its_own_sources(pytorch_260: Path) -> None:
    message = "RuntimeError: device type of values (musa) must be CPU or CUDA or Meta"
    check = check_of(message, pytorch_260)
    assert check is not None
    file, line = check.where.rsplit(":", 1)
    assert file == "aten/src/ATen/native/sparse/SparseCsrTensor.cpp"
    text = (pytorch_260 / file).read_text().splitlines()
    assert text[int(line) - 1].strip().startswith("TORCH_CHECK(") and "kCUDA" in check.condition
    assert check_of("RuntimeError: Expected all tensors to be on the same device, but found at least two "
                    "devices, musa:0 and cpu!", pytorch_260) is None
    assert check_of("RuntimeError: std and var supports tensors on a CPU, CUDA, or XPU device only, but got: "
                    "PrivateUse1", pytorch_260) is not None
    assert all("/cuda/" not in c.where for c in release_checks(pytorch_260))


@pytest.mark.shared
def test_failed_tests_the_release_refused_are_marked_and_no_others(pytorch_260: Path) -> None:
    refused = "RuntimeError: device type of values (musa) must be CPU or CUDA or Meta"
    rows = [{"test": "a", "outcome": "failed", "first": refused},
            {"test": "b", "outcome": "failed", "first": "AssertionError: Tensor-likes are not close!"},
            {"test": "c", "outcome": "errors", "first": refused},
            {"test": "d", "outcome": "failed", "first": refused, "cuda_branch": "test_x.py:3: if cuda"},
            {"test": "e", "outcome": "passed"}]
    marked = {r["test"]: r.get("cuda_branch", "") for r in libtorch_branches(rows, pytorch_260)}
    assert marked["a"].startswith("libtorch aten/src/ATen/native/sparse/SparseCsrTensor.cpp:")
    assert marked["a"].split(": ", 1)[1].startswith("TORCH_CHECK(values.device().type() == kCPU")
    assert (marked["b"], marked["c"], marked["e"]) == ("", "", "")
    assert marked["d"] == "test_x.py:3: if cuda"  # the test's own branch is kept
    assert libtorch_branches(rows, None) == rows  # no release tree: nothing marked
