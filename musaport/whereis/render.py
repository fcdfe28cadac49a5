"""What ``musaport whereis`` prints: the answer as text for people and as JSON.

Kept apart from the search so the wording of the advice (the manual's FAQ
recipe) can change without touching how definitions are found.
"""

from __future__ import annotations

import shlex

from musaport.outdir import CMAKE_FILE, TREE
from musaport.whereis.search import Answer, Place

_WIDTH = 120


def render_text(answer: Answer, out: str) -> str:
    """The symbol, every place that names it, and what to do next."""
    sym = answer.symbol
    lines = [sym.given] + ([f"  = {sym.demangled}"] if sym.demangled != sym.given else [])
    for label, places in (("defined", answer.definitions), ("instantiated", answer.instantiations),
                          ("declared", answer.declarations), ("internal", answer.internal)):
        lines += [_place(label, p) for p in places]
    sources = sorted({p.source for p in answer.definitions + answer.instantiations if p.source})
    lines += [f"{'ported from':<13}{s}" for s in sources]
    lines += [f"{'upstream':<13}{p.file}:{p.line}  {_clip(p.text)}" for p in answer.upstream]
    return "\n".join(lines + advice(answer, out)) + "\n"


def _place(label: str, p: Place) -> str:
    return f"{label:<13}{p.file}:{p.line}  {_clip(p.text)}"


def _clip(text: str) -> str:
    return text if len(text) <= _WIDTH else text[: _WIDTH - 3] + "..."


def advice(answer: Answer, out: str) -> list[str]:
    """The FAQ's next step for the verdict, with the CMake variable to use."""
    cmake = f"{out}/{TREE}/{CMAKE_FILE}"
    if answer.verdict == "add-source":
        return [_add_line(f, answer, cmake) for f in answer.add]
    if answer.verdict == "cpp-defines":
        files = ", ".join(answer.add)
        return [f"=> defined in a .cpp, not a .mu: {files}. Device code in a .cpp is a porting bug "
                f"(report it to torch_musa); host code there must be built: "
                + "; ".join(_add_line(f, answer, cmake, arrow=False) for f in answer.add)]
    if answer.verdict == "header-only":
        return ["=> defined only in headers (inline, or a template no source file instantiates explicitly): "
                "no source file to add; the file that uses it must include the header and instantiate it"]
    lines = [f"=> the ported tree does not define {answer.symbol.qualified}. Look in the MUSA libraries: "
             f"grep -rl {shlex.quote(answer.symbol.name)} /usr/local/musa/lib, and check with ldd that the backend links "
             "the library that defines it"]
    if answer.internal:
        lines.append("   a definition of that name sits in an anonymous namespace (see 'internal'): internal "
                     "linkage, usable only inside its own file")
    if answer.upstream:
        lines.append("   PyTorch defines it (CUDA spelling) outside the ported folders (see 'upstream'): host code "
                     "there comes from libtorch itself (link the matching libtorch); CUDA code there needs its "
                     "folder in the layout (--layout)")
    return lines


def _add_line(rel: str, answer: Answer, cmake: str, arrow: bool = True) -> str:
    """Where the file goes: the generated variable that lists it, and the backend's own list."""
    var = answer.variables.get(rel, "")
    if answer.generated.get(rel):
        text = f"add {rel}: it is in {var} of {cmake}; build ${{{var}}} into the backend"
    elif answer.cmake_found:
        text = f"add {rel} to the backend sources ({cmake} does not list it; expected in {var})"
    else:
        text = f"add {rel} to the backend sources ({var} in {cmake}, once generated)"
    listed = answer.listed.get(rel)
    if listed:
        text += f"; your list already names it at {listed}"
    elif rel in answer.listed:
        text += "; your CMake list does not name it yet"
    return ("=> " if arrow else "") + text


def to_json(answer: Answer) -> dict:
    """The same answer for machines."""
    sym = answer.symbol
    return {
        "symbol": sym.given,
        "demangled": sym.demangled,
        "qualified": sym.qualified,
        "template_args": sym.template_args,
        "verdict": answer.verdict,
        "definitions": [_place_json(p) for p in answer.definitions],
        "instantiations": [_place_json(p) for p in answer.instantiations],
        "declarations": [_place_json(p) for p in answer.declarations],
        "add": [{"file": f, "variable": answer.variables.get(f, ""), "in_generated_cmake": answer.generated.get(f, False),
                 "listed": answer.listed.get(f)} for f in answer.add],
        "upstream": [_place_json(p) for p in answer.upstream],
        "internal": [_place_json(p) for p in answer.internal],
        "exit_code": answer.exit_code,
    }


def _place_json(p: Place) -> dict:
    return {"file": p.file, "line": p.line, "kind": p.kind, "text": p.text, "template": p.template,
            "source": p.source}
