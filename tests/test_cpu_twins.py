"""A failed test's CPU twin: its id in torch without the device, and when the two fail alike."""

from __future__ import annotations

from musaport.validate.opinfo.cpu_twins import MAX_TWINS, candidates, mark, same_failure, twin


def test_a_device_generic_test_is_renamed_for_the_cpu_and_any_other_test_keeps_its_id() -> None:
    assert twin("::TestTorchDeviceTypePRIVATEUSE1::test_where_musa_float32", "musa") == \
        "::TestTorchDeviceTypeCPU::test_where_cpu_float32"
    assert twin("::TestCommonPRIVATEUSE1::test_out_musa", "musa") == "::TestCommonCPU::test_out_cpu"
    # only the device word that the framework appended, not one in the test's own name
    assert twin("::TestMusaPRIVATEUSE1::test_musa_copy_musa_int8", "musa") == "::TestMusaCPU::test_musa_copy_cpu_int8"
    assert twin("::TestSerialization::test_weights_only_musa_like", "musa") == \
        "::TestSerialization::test_weights_only_musa_like"


def test_two_lines_fail_alike_when_they_differ_only_in_numbers_and_device_names() -> None:
    assert same_failure("RuntimeError: nothing on musa:0 takes 3 dims", "RuntimeError: nothing on cpu takes 4 dims",
                        "musa")
    assert not same_failure("RuntimeError: the port's own failure", "RuntimeError: another one", "musa")
    assert not same_failure("", "", "musa")


def test_deaths_and_cuda_branches_get_no_twin_and_a_twin_must_fail_alike_to_mark() -> None:
    rows = [{"test": "::T::test_a", "outcome": "failed", "first": "AssertionError: x"},
            {"test": "::T::test_b", "outcome": "failed", "first": "the process died in this test (SIGABRT)"},
            {"test": "::T::test_c", "outcome": "failed", "first": "E", "cuda_branch": "t.py:3: if cuda"},
            {"test": "::T::test_d", "outcome": "failed", "first": "AssertionError: y"},
            {"test": "::T::test_e", "outcome": "passed", "first": ""}]
    assert [r["test"] for r in candidates(rows)] == ["::T::test_a", "::T::test_d"]
    twins = {"::T::test_a": {"outcome": "failed", "first": "AssertionError: x"},
             "::T::test_d": {"outcome": "passed", "first": ""}}
    marked = mark(rows, twins, "musa")
    assert [r.get("cpu_too") for r in marked] == ["::T::test_a", None, None, None, None]


def test_at_most_a_fixed_number_of_failures_are_rerun() -> None:
    rows = [{"test": f"::T::test_{i:04d}", "outcome": "failed", "first": "E"} for i in range(MAX_TWINS + 5)]
    assert len(candidates(rows)) == MAX_TWINS
