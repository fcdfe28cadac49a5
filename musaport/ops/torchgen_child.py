"""Run in a child process: dump the CUDA operators of a tree, as its own torchgen sees them.

Usage: ``python torchgen_child.py TREE`` prints JSON on stdout (``ops.records`` starts it through
``children``).  The tree's
``torchgen`` goes first on ``sys.path``, so the schema rules, C++ types and
argument translation are those of that PyTorch release, whatever (if any)
torch the tool's own interpreter has.  This file imports nothing from
musaport: it runs with the tree on the path, not the tool.
"""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path

YAML = "aten/src/ATen/native/native_functions.yaml"
TAGS = "aten/src/ATen/native/tags.yaml"


def main(tree: Path) -> None:
    sys.path.insert(0, str(tree))
    import yaml
    from torchgen.gen import LineLoader, get_grouped_native_functions, parse_native_yaml
    from torchgen.model import DispatchKey

    with open(tree / YAML, encoding="utf-8") as f:
        entries = yaml.load(f, Loader=LineLoader)
    # What the records need of each entry as written, taken before torchgen (which may edit the
    # entries it is handed) reads them.
    raw = {e["__line__"]: {k: list(v) if k == "dispatch" and v else v for k, v in e.items() if k in _RAW_KEYS}
           for e in entries}
    raw["__tree__"] = tree
    # A torchgen that takes the loaded YAML (2.x) is spared parsing the 14,000 lines again.
    given = {"loaded_yaml": entries} if "loaded_yaml" in inspect.signature(parse_native_yaml).parameters else {}
    parsed = parse_native_yaml(str(tree / YAML), str(tree / TAGS), **given)
    cuda = parsed.backend_indices[DispatchKey.CUDA]
    out = []
    for g in get_grouped_native_functions(parsed.native_functions):
        out.extend(_group_records(g, cuda, raw))
    sys.stdout.write(json.dumps(out))  # dumps: json.dump encodes in pure Python, chunk by chunk


_RAW_KEYS = ("func", "dispatch")


def _group_records(g, cuda, raw) -> list[dict]:
    """One record per function of ``g`` that CUDA has a kernel for (delegates included)."""
    from torchgen.model import NativeFunctionsGroup

    from torchgen.context import native_function_manager

    records = []
    if isinstance(g, NativeFunctionsGroup) and g.structured and cuda.has_kernel(g):
        meta = cuda.get_kernel(g)
        for f in g.functions():
            if f is g.out or f.structured_delegate is not None:
                with native_function_manager(f):
                    records.append(_record(f, meta.kernel, raw, _structured(g, f, meta)))
                if f is g.out and g.out.ufunc_inner_loop:
                    records[-1]["generated"] = _ufunc_cuda(g, cuda, raw)
        return _with_cpp_api(g, cuda, records)
    for f in g.functions() if isinstance(g, NativeFunctionsGroup) else [g]:
        if cuda.get_kernel(f) is not None:
            with native_function_manager(f):
                records.append(_record(f, cuda.get_kernel(f).kernel, raw, _unstructured(f, cuda)))
    return _with_cpp_api(g, cuda, records)


WRAPPER = "@WRAPPER@"


def _with_cpp_api(g, cuda, records: list[dict]) -> list[dict]:
    """Each record's part of the dispatch-key C++ API that torchgen's RegisterCUDA.cpp defines and ported
    code calls (``at::cuda::sort``; ``abs_out`` and ``abs_outf``; the ``_symint`` forms): every C++
    signature of the function, calling ``@WRAPPER@`` (the registration's wrapper, which has the
    dispatcher's signature) with the arguments translated as torchgen translates them."""
    from torchgen.api.translate import translate
    from torchgen.api.types import CppSignatureGroup, DispatcherSignature
    from torchgen.context import native_function_manager
    from torchgen.model import NativeFunctionsGroup

    functions = {str(f.func.name): f for f in (g.functions() if isinstance(g, NativeFunctionsGroup) else [g])}
    for r in records:
        f = functions[r["name"]]
        with native_function_manager(f):
            sig = DispatcherSignature.from_schema(f.func, symint=True)
            group = CppSignatureGroup.from_native_function(f, method=False, fallback_binding=False)
            r["cpp_api"] = "\n\n".join(
                f"{cpp.defn()} {{\n  return {WRAPPER}({', '.join(e.expr for e in translate(cpp.arguments(), sig.arguments()))});\n}}"
                for cpp in group.signatures(symint=True))
    return records


def _record(f, kernel: str, raw: dict, wrapper: dict) -> dict:
    entry = raw.get(f.loc.line, {})
    keys = [k.strip() for key in (entry.get("dispatch") or {}) if key != "__line__" for k in str(key).split(",")]
    return {
        "name": str(f.func.name),
        "schema": " ".join(str(entry.get("func", f.func)).split()),
        "line": f.loc.line,
        "kernel": kernel,
        "root": f.root_name,
        "structured": bool(f.structured or f.structured_delegate),
        "delegate": str(f.structured_delegate or ""),
        "explicit": "CUDA" in keys,
        "manual": f.manual_kernel_registration,
        "wrapper": wrapper,
    }


def _signature(f) -> dict:
    """The dispatcher-facing C++ signature every registered wrapper must have."""
    from torchgen.api.types import DispatcherSignature

    sig = DispatcherSignature.from_schema(f.func)
    return {"returns": sig.returns_type().cpp_type(), "params": ", ".join(a.decl() for a in sig.arguments()),
            "args": [a.name for a in sig.arguments()]}


def _guard(f) -> dict:
    """Which argument decides the device the wrapper switches to, if any."""
    from torchgen.model import TensorOptionsArguments

    if not f.device_guard:
        return {"kind": "none", "arg": ""}
    if any(isinstance(a, TensorOptionsArguments) for a in f.func.arguments.non_out):
        return {"kind": "options", "arg": "device"}
    first = [f.func.arguments.self_arg.argument] if f.func.arguments.self_arg is not None else []
    for a in [*first, *f.func.arguments.out, *f.func.arguments.flat_positional]:
        if a.type.is_tensor_like():
            return {"kind": "tensor", "arg": a.name}
    return {"kind": "none", "arg": ""}


def _device_check(f) -> list:
    """The tensor arguments whose devices must agree (out= first, then the positional ones), as torchgen
    checks them in a backend's unstructured wrappers; none where the yaml says ``device_check: NoCheck``
    (TensorIterator operators, which check themselves) or the operator takes no device guard."""
    from torchgen.model import DeviceCheckType

    if not f.device_guard or f.device_check == DeviceCheckType.NoCheck:
        return []
    return [a.name for a in [*f.func.arguments.out, *f.func.arguments.flat_positional] if a.type.is_tensor_like()]


def _unstructured(f, cuda) -> dict:
    """The call of the native kernel, with dispatcher arguments translated to its types."""
    from torchgen.api.translate import translate
    from torchgen.api.types import DispatcherSignature, kernel_signature

    sig = DispatcherSignature.from_schema(f.func)
    meta = cuda.get_kernel(f)
    exprs = translate(sig.arguments(), kernel_signature(f, cuda).arguments(), method=False)
    return {**_signature(f), "guard": _guard(f), "structured": False, "device_check": _device_check(f),
            "call": f"{meta.cpp_namespace}::{meta.kernel}({', '.join(e.expr for e in exprs)})"}


def _structured(g, f, meta) -> dict:
    """What a structured wrapper needs: its variant, outputs, and the meta/impl calls."""
    from torchgen.api import structured
    from torchgen.api.translate import translate
    from torchgen.api.types import DispatcherSignature, Expr, NamedCType, MutRefCType, BaseCType, tensorT
    from torchgen.model import SchemaKind

    kind = f.func.kind()
    context: list = list(DispatcherSignature.from_schema(f.func).arguments())
    meta_exprs = ", ".join(e.expr for e in translate(context, structured.meta_arguments(g), method=False))
    pre = g.out.precomputed
    if pre:
        for args in [*pre.replace.values(), pre.add]:
            context.extend(Expr(f"precompute.{a.name}", structured.argument_type(a, binds=a.name)) for a in args)
    source = "op.maybe_get_output({})" if kind is SchemaKind.out else "op.outputs_[{}]"
    for i, o in enumerate(structured.out_arguments(g)):
        context.append(Expr(source.format(i), NamedCType(o.nctype.name, MutRefCType(BaseCType(tensorT)))))
    impl_exprs = ", ".join(e.expr for e in translate(context, structured.impl_arguments(g), method=False))
    return {**_signature(f), "guard": _guard(f), "structured": True, "variant": kind.name,
            "parent": f"{meta.cpp_namespace}::structured_{meta.kernel}", "outputs": len(f.func.returns),
            "out_names": [a.name for a in f.func.arguments.out], "self": _self_name(f),
            "meta": meta_exprs, "impl": impl_exprs, "precomputed": bool(pre),
            "inherits": g.out.structured_inherits is not None}


def _ufunc_cuda(g, cuda, raw) -> dict:
    """The ``UfuncCUDA_<name>.cu`` a CUDA build generates for a ufunc operator, as the tree's own
    gen.py writes it: its template, filled by the same torchgen functions."""
    from torchgen import dest
    from torchgen.code_template import CodeTemplate
    from torchgen.context import native_function_manager
    from torchgen.gen import compute_meta_function_declaration

    name = g.functional.func.name.name
    template = CodeTemplate.from_file(str(raw["__tree__"] / "aten/src/ATen/templates/UfuncCUDA.cu"))
    with native_function_manager(g.out):
        text = template.substitute(
            name=name, cuda_headers="#include <ATen/native/cuda/Loops.cuh>",
            meta_declaration=compute_meta_function_declaration(g),
            native_declaration=dest.compute_native_function_declaration(g, cuda),
            native_definitions=dest.compute_ufunc_cuda(g))
    return {"path": f"aten/src/ATen/UfuncCUDA_{name}.cu", "text": text}


def _self_name(f) -> str:
    arg = f.func.arguments.self_arg
    return arg.argument.name if arg is not None else ""


if __name__ == "__main__":
    main(Path(sys.argv[1]))
