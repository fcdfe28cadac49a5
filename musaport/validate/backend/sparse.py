"""Sparse tensors on the ``musa`` device: libtorch's device-generic sparse kernels, on the device's sparse keys.

A sparse COO tensor on the device has the ``SparsePrivateUse1`` key (a CSR,
CSC, BSR or BSC one ``SparseCsrPrivateUse1``), and libtorch registers nothing
for those keys: ``torch.sparse_coo_tensor(i, v, device="musa")`` fails with
"Could not run 'aten::_sparse_coo_tensor_with_dims_and_tensors' with
arguments from the 'SparsePrivateUse1' backend", and so does every test that
makes a sparse tensor on the device. Most sparse kernels are device-generic:
the yaml names one function for the CPU's and CUDA's sparse keys
(``SparseCPU, SparseCUDA: new_with_dims_and_tensor_sparse_symint``), which
works on the indices and values through ``at::`` calls, and those re-dispatch
to the device's dense kernels. The adapter (``templates/backend/sparse.cpp.j2``)
registers those operators for the device's sparse keys, each a boxed kernel
that redispatches to the CPU sparse key's kernel: the same function.

The others have a kernel of CUDA's own (``_coalesce``: ``_coalesce_sparse_cuda``;
``add.out``, through which a sparse tensor becomes dense), which the port has
under the same name in a ported file. The adapter registers each for the
device's key when its C++ type is the operator's (``at::_ops::X::schema``;
checked by the compiler, so a kernel that takes ``int64_t`` where the
dispatcher passes ``SymInt`` is left out rather than misregistered). The
device build compiles the ported file that defines it as it does for any
symbol the link misses; a kernel whose file does not compile becomes a stub
that raises, so only the operators that reach it fail.
"""

from __future__ import annotations

from pathlib import Path

from musaport.ops.records import native_entries

# The device's sparse key → the CPU key whose kernel it redispatches to, and the CUDA key that must name
# the same function.
SPARSE_KEYS = {
    "SparsePrivateUse1": ("SparseCPU", "SparseCUDA"),
    "SparseCsrPrivateUse1": ("SparseCsrCPU", "SparseCsrCUDA"),
}


def dispatch_table(entry: dict) -> dict[str, str]:
    """An entry's ``dispatch`` with each comma-separated key on its own: ``{"SparseCPU": kernel, ...}``."""
    table = {}
    for keys, kernel in (entry.get("dispatch") or {}).items():
        if keys == "__line__":
            continue
        for key in str(keys).split(","):
            table[key.strip()] = str(kernel)
    return table


def shared_sparse_operators(entries: list[dict]) -> dict[str, tuple[str, ...]]:
    """Per device sparse key, the operators (``name.overload``, in yaml order) whose CPU and CUDA kernels
    for that layout are one function (pure: the yaml's entries in)."""
    found: dict[str, list[str]] = {key: [] for key in SPARSE_KEYS}
    for entry in entries:
        table = dispatch_table(entry)
        name = " ".join(str(entry["func"]).split()).split("(", 1)[0]
        for key, (cpu, cuda) in SPARSE_KEYS.items():
            if cpu in table and table.get(cuda) == table[cpu]:
                found[key].append(name)
    return {key: tuple(names) for key, names in found.items()}


def cuda_sparse_kernels(entries: list[dict]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Per device sparse key, ``(operator, kernel)`` for the operators whose CUDA kernel for that layout is
    CUDA's own (not the CPU's function), in yaml order (pure)."""
    found: dict[str, list[tuple[str, str]]] = {key: [] for key in SPARSE_KEYS}
    for entry in entries:
        table = dispatch_table(entry)
        name = " ".join(str(entry["func"]).split()).split("(", 1)[0]
        for key, (cpu, cuda) in SPARSE_KEYS.items():
            if cuda in table and table.get(cpu) != table[cuda]:
                found[key].append((name, table[cuda]))
    return {key: tuple(pairs) for key, pairs in found.items()}


def ops_struct(name: str) -> str:
    """The ``at::_ops`` struct torchgen names an operator by: ``add.out`` → ``add_out``."""
    return name.replace(".", "_")


def adapter_values(tree: Path) -> dict[str, object]:
    """The sparse adapter's template values for ``tree``: per device key, the CPU key it redispatches to,
    the shared operators, and the CUDA-only ones as ``(operator, at::_ops struct, kernel)``."""
    entries = native_entries(tree)
    shared = shared_sparse_operators(entries)
    own = cuda_sparse_kernels(entries)
    return {"sparse_keys": [(key, SPARSE_KEYS[key][0], shared[key],
                             [(name, ops_struct(name), kernel) for name, kernel in own[key]]) for key in SPARSE_KEYS]}
