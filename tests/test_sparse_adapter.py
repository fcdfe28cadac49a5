"""The sparse adapter (templates/backend/sparse.cpp.j2): which operators it registers for the device's sparse and
nested-tensor keys.

An operator whose yaml names one function for the CPU's and CUDA's sparse
keys runs device-generic code, so a musa sparse tensor is redispatched to the
CPU sparse key's kernel, that same function. One whose CUDA kernel is CUDA's
own gets the port's kernel of that name. On the device itself the adapter is
proven by ``tests/test_device_adapters.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from musaport.ops.records import native_entries
from musaport.resources import render_template
from musaport.validate.backend.sparse import (adapter_values, cuda_sparse_kernels, shared_sparse_operators,
                                              without_defaults)

YAML = """\
- func: _sparse_coo_tensor_with_dims_and_tensors(int sparse_dim, int dense_dim, SymInt[] size, Tensor indices, Tensor values, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=False, bool? is_coalesced=None) -> Tensor
  dispatch:
    SparseCPU, SparseCUDA, SparseMeta, Meta: new_with_dims_and_tensor_sparse_symint
- func: _coalesce(Tensor self) -> Tensor
  dispatch:
    SparseCPU: _coalesce_sparse_cpu
    SparseCUDA: _coalesce_sparse_cuda
- func: abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU, CUDA: abs_out
    SparseCPU, SparseCUDA: abs_sparse_out
    SparseCsrCPU, SparseCsrCUDA: abs_sparse_csr_out
- func: values(Tensor(a) self) -> Tensor(a)
  variants: method
  dispatch:
    SparseCPU: values_sparse
    SparseCUDA: values_sparse
- func: cpu_only(Tensor self) -> Tensor
  dispatch:
    SparseCPU: cpu_only_sparse
- func: _nested_tensor_size(Tensor self) -> Tensor
  variants: method
  dispatch:
    NestedTensorCPU, NestedTensorCUDA: _nested_tensor_size
- func: to_padded_tensor(Tensor self, float padding, SymInt[]? output_size=None) -> Tensor
  dispatch:
    NestedTensorCPU: NestedTensor_to_padded_tensor_generic
    NestedTensorCUDA: NestedTensor_to_padded_tensor_cuda
"""


def test_kernels_the_cpu_and_cuda_sparse_keys_share_redispatch_and_cudas_own_are_named() -> None:
    shared = shared_sparse_operators(yaml.safe_load(YAML))
    assert shared == {
        # one function for both keys, spelled on one line or on two
        "SparsePrivateUse1": ("_sparse_coo_tensor_with_dims_and_tensors", "abs.out", "values"),
        "SparseCsrPrivateUse1": ("abs.out",),
        "NestedTensorPrivateUse1": ("_nested_tensor_size",),
    }  # _coalesce and to_padded_tensor have CUDA's own kernels; cpu_only none for CUDA
    assert cuda_sparse_kernels(yaml.safe_load(YAML)) == {
        "SparsePrivateUse1": (("_coalesce", "_coalesce_sparse_cuda"),), "SparseCsrPrivateUse1": (),
        "NestedTensorPrivateUse1": (("to_padded_tensor", "NestedTensor_to_padded_tensor_cuda"),)}


def test_the_adapter_registers_each_operator_on_its_key_redispatching_to_the_cpu_key(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "aten/src/ATen/native").mkdir(parents=True)
    (tree / "aten/src/ATen/native/native_functions.yaml").write_text(YAML)
    ops = tmp_path / "ATen/ops"
    ops.mkdir(parents=True)
    (ops / "_coalesce_native.h").write_text("TORCH_API at::Tensor _coalesce_sparse_cuda(const at::Tensor & self);\n")
    text = render_template("backend/sparse.cpp.j2", header="// test", **adapter_values(tree, ops))
    blocks = text.split("TORCH_LIBRARY_IMPL(aten, ")[1:]
    assert [b.split(",", 1)[0] for b in blocks] == ["SparsePrivateUse1", "SparseCsrPrivateUse1",
                                                     "NestedTensorPrivateUse1"]
    assert ('m.impl("abs.out", torch::CppFunction::makeFromBoxedFunction<&redispatch_to_SparseCsrCPU>());'
            in blocks[1])
    assert "cpu_only" not in text and "_coalesce_sparse_cpu" not in text
    # CUDA's own kernel, by the ported file's definition of the same name, when its type is the operator's
    assert 'MUSAPORT_SPARSE_KERNEL(m, "_coalesce", _coalesce, _coalesce_sparse_cuda);' in blocks[0]
    assert "op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::SparseCPU), stack);" in text
    assert "__attribute__((weak)) at::Tensor _coalesce_sparse_cuda(const at::Tensor & self);" in text
    # A kernel the release's headers overload (or do not declare) cannot be declared weak: left out.
    (ops / "_coalesce_native.h").write_text("TORCH_API at::Tensor _coalesce_sparse_cuda(const at::Tensor & self);\n"
                                           "TORCH_API at::Tensor _coalesce_sparse_cuda(const at::Tensor & a, bool x);\n")
    assert "_coalesce_sparse_cuda" not in render_template("backend/sparse.cpp.j2", header="",
                                                          **adapter_values(tree, ops))


@pytest.mark.shared
def test_on_260_the_shared_sparse_kernels_are_most_of_cudas(pytorch_260: Path) -> None:
    """2.6.0's yaml names a SparseCUDA kernel for 171 operators and a SparseCsrCUDA one for 139; all but 18
    and 11 are the CPU's too. Those left out are CUDA's own (cuSPARSE products, _coalesce's sort)."""
    shared = shared_sparse_operators(native_entries(pytorch_260))
    assert (len(shared["SparsePrivateUse1"]), len(shared["SparseCsrPrivateUse1"])) == (153, 128)
    assert {"_sparse_coo_tensor_with_dims_and_tensors", "_to_dense", "_indices", "_values", "sparse_dim",
            "dense_dim", "_nnz", "is_coalesced", "_to_sparse_csr"} <= set(shared["SparsePrivateUse1"])
    assert {"_coalesce", "add.out", "mul.out", "index_select"}.isdisjoint(shared["SparsePrivateUse1"])


@pytest.mark.shared
def test_on_260_most_nested_tensor_kernels_are_shared_and_to_padded_tensor_is_cudas_own(pytorch_260: Path) -> None:
    """A nested tensor made on the device (_nested_from_padded, the transformer encoder's fast path) has the
    NestedTensorPrivateUse1 key: most of 2.6.0's nested kernels are one function for the CPU and CUDA."""
    entries = native_entries(pytorch_260)
    shared = shared_sparse_operators(entries)["NestedTensorPrivateUse1"]
    own = dict(cuda_sparse_kernels(entries)["NestedTensorPrivateUse1"])
    assert {"_nested_tensor_size", "add.Tensor", "linear", "_transformer_encoder_layer_fwd"} <= set(shared)
    assert own["to_padded_tensor"] == "NestedTensor_to_padded_tensor_cuda" and own["bmm"] == "bmm_nested_cuda"


@pytest.mark.parametrize(("params", "bare"), [
    ("const at::Tensor & self", "const at::Tensor & self"),
    ("const at::Scalar & beta=1, const at::Scalar & alpha=1", "const at::Scalar & beta, const at::Scalar & alpha"),
    ("at::IntArrayRef dims={}, ::std::optional<at::ScalarType> dtype=::std::nullopt, bool keepdim=false",
     "at::IntArrayRef dims, ::std::optional<at::ScalarType> dtype, bool keepdim"),
    ("::std::tuple<int64_t, int64_t> t=std::make_tuple(1, 2), int x", "::std::tuple<int64_t, int64_t> t, int x"),
    ("", ""),
])
def test_a_weak_redeclaration_drops_default_arguments(params: str, bare: str) -> None:
    """GCC refuses a redeclaration that repeats a default argument, so the weak declaration drops them."""
    assert without_defaults(params) == bare
