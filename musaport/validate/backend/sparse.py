"""Sparse and nested tensors on the ``musa`` device: libtorch's device-generic kernels for those layouts, on
the device's layout keys.

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
under the same name in a ported file (``native/sparse/musa/``). The adapter
declares each such kernel weak and registers it for the device's key when the
library has it and its C++ type is the operator's (``at::_ops::X::schema``,
checked by the compiler; a kernel that takes ``int64_t`` where the schema
has ``SymInt``, as ``NestedTensor_to_padded_tensor_cuda`` does, is the
operator's too: the dispatcher passes it concrete sizes as torchgen's
wrappers do; any other kernel is left out rather than misregistered). So the
whole device, which compiles every ported file, has them; a device built for
a few operators does not pull the sparse files in for them, and a sparse
file that does not compile leaves its operators unregistered, not the build
broken. The weak declaration is the release's own (its ``*_native.h`` line,
without default arguments), made before the headers: a kernel the headers
overload is left out.

A nested tensor is the same case: one made on the device (``_nested_from_padded``,
the transformer encoder's fast path) has the ``NestedTensorPrivateUse1`` key,
and the yaml names one function for ``NestedTensorCPU`` and ``NestedTensorCUDA``
for most nested operators, CUDA's own kernel (``NestedTensor_to_padded_tensor_cuda``)
for a few.
"""

from __future__ import annotations

import re
from pathlib import Path

from musaport.ops.records import native_entries

# The device's sparse key → the CPU key whose kernel it redispatches to, and the CUDA key that must name
# the same function.
SPARSE_KEYS = {
    "SparsePrivateUse1": ("SparseCPU", "SparseCUDA"),
    "SparseCsrPrivateUse1": ("SparseCsrCPU", "SparseCsrCUDA"),
    "NestedTensorPrivateUse1": ("NestedTensorCPU", "NestedTensorCUDA"),
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


def native_declarations(kernels: set[str], native_headers: Path) -> dict[str, str]:
    """The one declaration each of ``kernels`` has in the release's ``ATen/ops/*_native.h`` headers (torchgen
    writes each on one line: ``TORCH_API at::Tensor _coalesce_sparse_cuda(const at::Tensor & self);``),
    without ``TORCH_API`` and default arguments; a kernel declared more than once (overloaded) or not at all
    is left out."""
    found: dict[str, list[str]] = {k: [] for k in kernels}
    for header in sorted(native_headers.glob("*_native.h")):
        for line in header.read_text(encoding="utf-8", errors="replace").splitlines():
            m = _DECLARATION.match(line)
            if m and m.group(2) in found:
                found[m.group(2)].append(f"{m.group(1)}{m.group(2)}({without_defaults(m.group(3))});")
    return {k: lines[0] for k, lines in found.items() if len(lines) == 1}


_DECLARATION = re.compile(r"^TORCH_API (.+?\W)(\w+)\((.*)\);\s*$")


def without_defaults(params: str) -> str:
    """``const at::Scalar & beta=1, at::IntArrayRef dims={}`` → ``const at::Scalar & beta, at::IntArrayRef dims``:
    each parameter cut at its first ``=`` outside brackets (a redeclaration may not repeat defaults)."""
    kept, depth, cut, current = [], 0, False, ""
    for ch in params + ",":
        if ch in "<({[":
            depth += 1
        elif ch in ">)}]":
            depth -= 1
        if ch == "," and depth == 0:
            kept.append(current.strip())
            current, cut = "", False
            continue
        if ch == "=" and depth == 0:
            cut = True
        if not cut:
            current += ch
    return ", ".join(p for p in kept if p)


def adapter_values(tree: Path, native_headers: Path) -> dict[str, object]:
    """The sparse adapter's template values for ``tree``: per device key, the CPU key it redispatches to,
    the shared operators, and CUDA's own ones as ``(operator, at::_ops struct, kernel)``; and the weak
    declarations of those kernels, from ``native_headers`` (the release's ``ATen/ops`` folder)."""
    entries = native_entries(tree)
    shared = shared_sparse_operators(entries)
    own = cuda_sparse_kernels(entries)
    declarations = native_declarations({k for pairs in own.values() for _, k in pairs}, native_headers)
    return {"sparse_keys": [(key, SPARSE_KEYS[key][0], shared[key],
                             [(name, ops_struct(name), kernel) for name, kernel in own[key] if kernel in declarations])
                            for key in SPARSE_KEYS],
            "weak_declarations": [declarations[k] for k in sorted(declarations)]}
