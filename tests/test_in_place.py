"""Headers ported in place keep libtorch's inline code.

A header the port re-emits at its own path (``aten/src/ATen/Context.h``) is
compiled into the backend instead of the copy libtorch was built from.  When
its inline code differs, the backend and libtorch disagree about the same
function: 2.6.0's port made ``getAcceleratorHooksInterface`` answer
``kPrivateUse1`` with the CUDA hooks, so the first allocation on the ``musa``
device in the real torch started CUDA.  Every difference between such a
header and its source must be one of the edits listed, with their reasons, in
``tests/data/in_place_edits.yaml``.
"""

from __future__ import annotations

import difflib
import fnmatch
import re
from pathlib import Path

import pytest
import yaml

from musaport.rewrite.rules import load_pack
from musaport.rewrite.apply import rewrite
from musaport.cpp.parser import parse
from musaport.resources import default_packs

EDITS = Path(__file__).parent / "data" / "in_place_edits.yaml"
_TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|\w+|::|->|\S')
_COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)


def tokens(text: str) -> list[str]:
    """The code's tokens: comments (and so the provenance line) left out, string literals kept whole."""
    return _TOKEN.findall(_COMMENT.sub(lambda m: m.group(0) if m.group(0).startswith('"') else " ", text))


def allowed_edits() -> list[dict]:
    edits = yaml.safe_load(EDITS.read_text(encoding="utf-8"))["edits"]
    assert all(e.get("why") for e in edits), "every allowed edit says why"
    return edits


def explained_by(before: str, after: str, path: str, edits: list[dict]) -> tuple[int, str] | None:
    """The listed edit (its index) and the glob of its ``files`` that allow ``before -> after`` in ``path``."""
    for index, edit in enumerate(edits):
        if edit["before"] == before and edit["after"] == after:
            for glob in edit.get("files", ["*"]):
                if fnmatch.fnmatchcase(path, glob):
                    return index, glob
    return None


def unexplained(source: str, ported: str, path: str, edits: list[dict],
                used: set[tuple[int, str]] | None = None) -> list[str]:
    """The differences between two versions of a header that no listed edit explains; each edit and glob
    that did explain one is added to ``used``."""
    a, b = tokens(source), tokens(ported)
    if a == b:
        return []
    found = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        before, after = " ".join(a[i1:i2]), " ".join(b[j1:j2])
        why = explained_by(before, after, path, edits)
        if why is None:
            found.append(f"{path}: {before!r} -> {after!r}")
        elif used is not None:
            used.add(why)
    return found


def stale(edits: list[dict], used: set[tuple[int, str]]) -> list[str]:
    """Each listed edit, and each of its ``files``, that explained no difference."""
    return [f"{e['before']} -> {e['after']} in {glob}" for index, e in enumerate(edits)
            for glob in e.get("files", ["*"]) if (index, glob) not in used]


def in_place_differences(port: Path, source: Path, used: set[tuple[int, str]] | None = None) -> tuple[int, list[str]]:
    tree = port / "generated_cuda_compatible"
    edits = allowed_edits()
    count, problems = 0, []
    for path in sorted(tree.rglob("*")):
        rel = path.relative_to(tree).as_posix()
        original = source / rel
        if not path.is_file() or not original.is_file():
            continue
        count += 1
        problems += unexplained(original.read_text(encoding="utf-8", errors="replace"),
                                path.read_text(encoding="utf-8", errors="replace"), rel, edits, used)
    return count, problems


def test_the_token_comparison_sees_the_context_h_error() -> None:
    """The comparison itself: comments do not count, the 2.6.0 Context.h rewrite does."""
    source = "// c\nif (opt_device_type == at::kCUDA) { /* x */ return at::detail::getCUDAHooks(); }\n"
    ported = "// musaport 0.1.0: ported from a\nif (opt_device_type == at::kPrivateUse1) { return at::detail::getCUDAHooks(); }"
    assert unexplained(source, source.replace("// c", "// other"), "aten/src/ATen/Context.h", allowed_edits()) == []
    assert unexplained(source, ported, "aten/src/ATen/Context.h", allowed_edits()) == [
        "aten/src/ATen/Context.h: 'kCUDA' -> 'kPrivateUse1'"]
    # an allowed edit only where its files say
    assert unexplained("return true;", "return false;", "aten/src/ATen/jit_macros.h", allowed_edits()) == []
    assert unexplained("return true;", "return false;", "aten/src/ATen/Context.h", allowed_edits()) != []
    # cuda -> musa (a namespace, an include path) only in the headers that have one: a header the list does
    # not name must not rename cuda, whatever the token stands for there
    assert unexplained("at::cuda::NVRTC x;", "at::musa::NVRTC x;", "aten/src/ATen/Context.h", allowed_edits()) == []
    assert unexplained("at::cuda::NVRTC x;", "at::musa::NVRTC x;", "aten/src/ATen/TensorIterator.h",
                       allowed_edits()) == ["aten/src/ATen/TensorIterator.h: 'cuda' -> 'musa'"]


def test_an_edit_that_explains_nothing_is_stale() -> None:
    edits = [{"before": "a", "after": "b", "why": "x"}, {"before": "c", "after": "d", "why": "y", "files": ["p.h", "q.h"]}]
    used: set[tuple[int, str]] = set()
    assert unexplained("a = c;", "b = d;", "p.h", edits, used) == []
    assert stale(edits, used) == ["c -> d in q.h"]


def test_device_rules_keep_out_of_headers_ported_in_place() -> None:
    """The rules that found the error: kCUDA, DeviceType::CUDA and is_cuda() stay in a header ported in
    place, and are still rewritten in the CUDA backend's own files."""
    rules = tuple(r for pack in default_packs() for r in load_pack(pack))
    code = "bool f(at::Tensor t, c10::DeviceType d) { return t.is_cuda() || d == at::kCUDA || d == c10::DeviceType::CUDA; }"
    kept = rewrite(parse(code.encode()), rules, "aten/src/ATen/Context.h").text
    assert "is_cuda()" in kept and "at::kCUDA" in kept and "DeviceType::CUDA" in kept
    moved = rewrite(parse(code.encode()), rules, "aten/src/ATen/native/cuda/Example.cu").text
    assert "is_privateuseone()" in moved and "at::kPrivateUse1" in moved and "DeviceType::PrivateUse1" in moved


@pytest.mark.shared
def test_headers_ported_in_place_keep_libtorchs_code(ported_260: Path, pytorch_260: Path, ported_1131: Path,
                                                     pytorch_1131: Path) -> None:
    """Both releases; and every listed edit, in every header it names, is still needed by one of them."""
    used: set[tuple[int, str]] = set()
    for port, source in ((ported_260, pytorch_260), (ported_1131, pytorch_1131)):
        count, problems = in_place_differences(port, source, used)
        assert count > 250, f"only {count} headers ported in place: the comparison looked at the wrong folder"
        assert problems == [], "\n".join(problems[:40])
    assert stale(allowed_edits(), used) == [], "edits in tests/data/in_place_edits.yaml that match nothing now"
