"""The project's Python in ``run --src`` (musaport.pyport): the pack's examples, the per-file outcomes,
a fixture project written for it (fixtures/extensions/pyops), and the six real projects of ../shared."""

from __future__ import annotations

import ast
import io
import json
import os
import re
import subprocess
import tarfile
import tokenize
from pathlib import Path

import pytest

from conftest import ROOT, musaport, need, tree_digest
from musaport.errors import LoadError
from musaport.port.file import FileStatus
from musaport.pyport.codemod import port_text
from musaport.pyport.pack import PyRule, load
from musaport.pyport.port import (PROVENANCE, extension_names, module_renames, port_python, python_files,
                                  with_provenance)

PACK = load()
FIXTURE = ROOT / "fixtures" / "extensions" / "pyops"


def all_examples():
    for rule in PACK.rules:
        for i, ex in enumerate(rule.examples):
            yield pytest.param(rule, ex, id=f"{rule.id}-{i}")


@pytest.mark.parametrize(("rule", "example"), list(all_examples()))
def test_example(rule: PyRule, example) -> None:
    """Each example, ported with the whole pack, is its 'after'; the rule itself fires (or reports); a
    second port changes nothing."""
    modules = dict(example.modules)
    got = port_text(example.before, PACK, modules)
    assert got.text == example.after
    if rule.flag or example.before == example.after and rule.get("unsure"):  # reported, rewritten or not
        assert any(f.rule == rule.id for f in got.findings), f"{rule.id} did not report its own example"
    elif example.before != example.after:
        assert got.fired.get(rule.id), f"{rule.id} did not produce its own example"
    else:
        assert rule.id not in got.fired
    assert port_text(example.after, PACK, modules).text == example.after, "not idempotent"


def test_every_kind_has_a_rule_and_every_rule_an_example_and_a_why() -> None:
    from musaport.pyport.pack import KINDS

    assert {r.kind for r in PACK.rules} == set(KINDS)
    assert all(r.examples and r.why for r in PACK.rules)


def test_a_bad_rule_names_its_file_and_line(tmp_path: Path) -> None:
    pack = tmp_path / "p.yaml"
    pack.write_text("pack: p\nrules:\n  - id: x\n    kind: flag\n    names: [a]\n    why: w\n"
                    "    examples: [{before: a, after: a}]\n")
    with pytest.raises(LoadError, match=r"p\.yaml:3: rule 'x': a flag rule reports every site"):
        load((pack,))
    pack.write_text("pack: p\nrules:\n  - id: y\n    kind: nope\n    why: w\n")
    with pytest.raises(LoadError, match=r"p\.yaml:3: rule 'y': unknown kind 'nope'"):
        load((pack,))


def test_rules_explain_answers_a_python_rule() -> None:
    result = musaport("rules", "explain", "py-device-strings")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("py-device-strings (python pack, device-string rule)")
    assert '  + x = torch.ones(3, device="musa")' in result.stdout
    assert "rules/python/50-python.yaml:" in result.stdout


def test_rules_list_extension_lists_the_python_rules() -> None:
    wide = {**os.environ, "COLUMNS": "500"}  # one row per rule, ids unwrapped
    result = subprocess.run(["musaport", "rules", "list", "--extension"], capture_output=True, text=True, env=wide)
    assert result.returncode == 0, result.stderr
    assert [r.id for r in PACK.rules if f" {r.id} " not in result.stdout] == []
    plain = subprocess.run(["musaport", "rules", "list"], capture_output=True, text=True, env=wide)
    assert "py-device-strings" not in plain.stdout


def test_one_finding_per_site() -> None:
    got = port_text("import cuda.bindings.driver as cuda\n", PACK)
    assert [(f.rule, f.line) for f in got.findings] == [("py-cuda-name", 1)]


def test_comments_docstrings_and_other_strings_are_left_alone() -> None:
    text = ('"""Runs on cuda when torch.cuda is there."""\n'
            "# x.cuda() is called below\n"
            'msg = "CUDA is not available"\n'
            "y = x.cuda()  # to the GPU\n")
    got = port_text(text, PACK)
    assert got.text == text.replace("y = x.cuda()", "y = x.musa()")
    assert got.findings == ()


def test_module_renames_follow_the_ported_setup() -> None:
    before = 'setup(ext_modules=[CUDAExtension("foo_cuda", srcs), CppExtension(name="foo_cpu", sources=s)])\n'
    after = 'setup(ext_modules=[MUSAExtension("foo_musa", srcs), CppExtension(name="foo_cpu", sources=s)])\n'
    assert extension_names(before) == ["foo_cuda", "foo_cpu"]
    assert module_renames(before, after) == (("foo_cuda", "foo_musa"),)
    assert module_renames(before, before) == ()
    assert module_renames(before, "setup()\n") == ()  # not the same extensions: nothing is guessed
    got = port_text("import foo_cuda\nfrom pkg import foo_cuda as f\nfoo_cuda.fwd(x)\n", PACK,
                    {"foo_cuda": "foo_musa", "pkg.foo_cuda": "pkg.foo_musa"})
    assert got.text == "import foo_musa as foo_cuda\nfrom pkg import foo_musa as f\nfoo_cuda.fwd(x)\n"


def test_a_file_libcst_cannot_parse_is_copied_with_its_line() -> None:
    data = b"import torch\n\nprint 'n:', torch.cuda.device_count()\n"
    result = port_python(data, "tests/old.py", "tests/old.py", PACK)
    assert (result.status, result.data) == (FileStatus.UNCHANGED, data)
    assert result.warnings == ("line 3: not Python 3 (Missing parentheses in call to 'print'. Did you mean "
                               "print(...)?); copied unchanged (not ported)",)


def test_a_file_that_is_not_utf8_is_copied_with_its_line() -> None:
    data = b"x = 1\ns = '\xff'  # cuda\n"
    result = port_python(data, "a.py", "a.py", PACK)
    assert (result.status, result.data) == (FileStatus.UNCHANGED, data)
    assert result.warnings == ("line 2: not valid utf-8; copied unchanged (not ported)",)
    latin = "# coding: latin-1\nx = 'café'.cuda()\n".encode("latin-1")  # PEP 263: its cookie decides
    result = port_python(latin, "b.py", "b.py", PACK)
    assert result.status == FileStatus.PORTED and result.data.endswith("x = 'café'.musa()\n".encode("latin-1"))
    bom = b"\xef\xbb\xbfx.cuda()\n"
    assert port_python(bom, "c.py", "c.py", PACK).data.startswith(b"\xef\xbb\xbf# musaport ")


def test_provenance_goes_after_the_shebang_and_the_coding_line() -> None:
    text = "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nx.cuda()\n"
    result = port_python(text.encode(), "run.py", "run.py", PACK)
    lines = result.data.decode().splitlines()
    assert lines[:2] == text.splitlines()[:2] and lines[2].startswith(PROVENANCE + " ")
    assert lines[3] == "x.musa()"
    again = port_python(result.data, "run.py", "run.py", PACK)
    assert (again.status, again.data) == (FileStatus.COPIED, result.data)  # a port is not ported twice
    assert with_provenance("a\n", "a.py", "0" * 64).startswith(PROVENANCE)


def test_the_selection_is_every_py_but_the_build_files() -> None:
    files = frozenset({"setup.py", "pkg/__init__.py", "pkg/sub/setup.py", "tests/test_a.py", "csrc/a.cu", "x.pyi"})
    assert [f.rel for f in python_files(files, ("setup.py", "pkg/sub/setup.py"))] == ["pkg/__init__.py",
                                                                                     "tests/test_a.py"]


# ---------------------------------------------------------------- a project of our own


@pytest.fixture(scope="module")
def pyops(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("pyops") / "out"
    result = musaport("run", "--src", str(FIXTURE), "--out", str(out), "-q")
    assert result.returncode == 0, result.stderr
    return out, json.loads((out / "porting_report.json").read_text())


def test_fixture_python_outcomes(pyops: tuple[Path, dict]) -> None:
    out, report = pyops
    files = report["files"]
    assert {k: (v["status"], v["rules"]) for k, v in files.items() if k.endswith(".py") and k != "setup.py"} == {
        "pyops/__init__.py": ("ported", {"py-torch-cuda-api": 1}),
        "pyops/ops.py": ("ported", {"py-cuda-amp-custom-fwd": 2, "py-device-strings": 2, "py-dispatch-key-built": 1,
                                    "py-dispatch-key-strings": 2, "py-is-cuda": 1}),
        "tests/legacy_script.py": ("unchanged", {}),
        "tests/test_scale.py": ("ported", {"py-cuda-amp-autocast": 1, "py-cuda-method": 2,
                                           "py-device-strings": 4, "py-is-cuda": 1, "py-torch-cuda-api": 6,
                                           "py-torch-cuda-capability": 1}),
    }
    assert report["python"] == {"files": 4, "ported": 3, "unchanged": 1, "copied": 0, "failed": 0,
                                "rewrites": 24, "findings": 4, "not_parsed": 1}
    assert not any(r.startswith("py-") for r in files["setup.py"]["rules"])  # setup.py is the build files' port
    python = [(f["rule"], f["site"]) for f in report["findings"] if f["rule"].startswith("py-")]
    assert python == [("py-cuda-home", "pyops/__init__.py:2"), ("py-cuda-home", "pyops/__init__.py:11"),
                      ("py-cuda-string", "tests/test_scale.py:7"), ("py-torch-cuda-capability", "tests/test_scale.py:40")]
    assert [w for w in report["warnings"] if "legacy_script" in w] == [
        "tests/legacy_script.py: line 4: not Python 3 (Missing parentheses in call to 'print'. Did you mean "
        "print(...)?); copied unchanged (not ported)"]
    assert "The project's Python: 4 `.py` files (3 ported" in (out / "porting_report.md").read_text()


def test_fixture_python_text(pyops: tuple[Path, dict]) -> None:
    tree = pyops[0] / "generated_cuda_compatible"
    legacy = "tests/legacy_script.py"
    assert (tree / legacy).read_bytes() == (FIXTURE / legacy).read_bytes()
    test = (tree / "tests/test_scale.py").read_text()
    for line in ('DEVICES = ["cpu"] + (["musa"] if torch.musa.is_available() else [])',
                 'THRESHOLDS = {"cpu": 10, "cuda": 1}', '    x = torch.randn(1000, device="musa")',
                 '    if x.device.type == "musa":', "        assert y.is_musa", '    with torch.autocast("musa"):',
                 '    assert y.device == torch.device("musa:0")', "    x = torch.randn(2, 4).musa(0)",
                 '@pytest.mark.skipif(not torch.musa.is_available(), reason="needs CUDA")'):
        assert line in test.splitlines()
    ops = (tree / "pyops/ops.py").read_text().splitlines()
    for line in ('lib.impl("scale", lambda x, factor: pyops_cuda.scale(x, factor), "PrivateUse1")',
                 'lib.impl("scale", scale_ref, "CPU")', '@torch.library.impl("pyops::clip", "AutocastPrivateUse1")',
                 '    @torch.library.impl("pyops::scale", ("AutocastPrivateUse1" if device_type == "musa" else '
                 'f"Autocast{device_type.upper()}"), lib=lib)',
                 '_register_autocast("musa")', '_register_autocast("cpu")',
                 '    @torch.amp.custom_fwd(device_type="musa")', "import pyops_cuda"):
        assert line in ops
    source = (FIXTURE / "pyops/ops.py").read_text().splitlines()
    assert len(ops) == len(source) + 1  # the provenance line; every other line stays where it was


def test_fixture_second_run_changes_nothing(pyops: tuple[Path, dict]) -> None:
    out = pyops[0]
    before = tree_digest(out / "generated_cuda_compatible")
    report = (out / "porting_report.json").read_bytes()
    result = musaport("run", "--src", str(FIXTURE), "--out", str(out), "-q")
    assert result.returncode == 0, result.stderr
    assert tree_digest(out / "generated_cuda_compatible") == before
    assert (out / "porting_report.json").read_bytes() == report


# ---------------------------------------------------------------- the six real projects

SIX = ("Deformable-DETR", "causal-conv1d", "detectron2", "mamba", "pytorch_spline_conv", "torch-harmonics")
# A device use of CUDA in Python: the name cuda (torch.cuda, .cuda(), import cuda...), is_cuda, CUDA_HOME,
# and a string that is a CUDA device or dispatch key.
_DEVICE_NAMES = frozenset({"cuda", "is_cuda", "CUDA_HOME"})
_DEVICE_STRING = re.compile(r"cuda(?::\d+)?|(?:Autocast|Autograd|Sparse|SparseCsr|Quantized|NestedTensor)?CUDA")


def unpacked(folder: Path, tmp: Path) -> Path:
    """The six projects of ``folder`` (../shared/extensions: conftest's shared_extensions), unpacked into ``tmp``."""
    tarballs = sorted(folder.glob("*.tar.xz"))
    if len(tarballs) != len(SIX):
        need(f"needs the six extension tarballs in {folder}")
    for tarball in tarballs:
        with tarfile.open(tarball) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(tmp, filter="data")
            else:  # Python without extraction filters
                tar.extractall(tmp)
    return tmp


def device_uses(text: str) -> list[tuple[int, str]]:
    """(line, token) of every device use of CUDA in Python source, by its tokens (comments and
    docstrings are not code; a message like "CUDA is not available" is not a device)."""
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME and tok.string in _DEVICE_NAMES:
            found.append((tok.start[0], tok.string))
        elif tok.type == tokenize.STRING:
            m = re.match(r"([rRbBuUfF]*)('''|\"\"\"|'|\")", tok.string)
            assert m is not None, tok.string
            prefix, quote = m.group(1).lower(), m.group(2)
            body = tok.string[m.end(): len(tok.string) - len(quote)]
            if _DEVICE_STRING.fullmatch(body) or "f" in prefix and re.match(r"cuda(:|$)", body):
                found.append((tok.start[0], tok.string))
        elif getattr(tokenize, "FSTRING_MIDDLE", None) == tok.type and re.match(r"cuda(:|$)", tok.string):
            found.append((tok.start[0], tok.string))
    return found


def without_provenance(text: str) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(line for i, line in enumerate(lines) if not (i < 3 and line.startswith(PROVENANCE + " ")))


@pytest.mark.shared
@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::SyntaxWarning")  # the projects' own escapes
def test_no_device_use_of_cuda_survives_unreported_in_the_six(shared_extensions: Path, tmp_path: Path) -> None:
    """Every .py of the six (but setup.py) through the Python port: each device use of CUDA left in the
    port is on a line with a finding, and the port did rewrite (a port that changed nothing would pass)."""
    root = unpacked(shared_extensions, tmp_path)
    silent, totals = [], {}
    for name in SIX:
        project = root / name
        rels = sorted(p.relative_to(project).as_posix() for p in project.rglob("*.py"))
        found = python_files(frozenset(rels), tuple(r for r in rels if r.rpartition("/")[2] == "setup.py"))
        before = after = rewrites = 0
        for f in found:
            data = (project / f.rel).read_bytes()
            result = port_python(data, f.rel, f.out, PACK)
            assert not result.warnings, (name, f.rel, result.warnings)
            text = without_provenance(result.data.decode())
            if result.status == FileStatus.PORTED:
                ast.parse(text, f"{name}/{f.rel}")  # the port is Python
            flagged = {x.line for x in result.findings}
            uses = device_uses(text)
            before += len(device_uses(data.decode()))
            after += len(uses)
            rewrites += sum(result.fired.values())
            silent += [f"{name}/{f.rel}:{line}: {tok}" for line, tok in uses if line not in flagged]
        totals[name] = (len(found), before, after, rewrites)
    assert not silent, "device uses of CUDA left unreported:\n" + "\n".join(silent)
    for name, (files, before, after, rewrites) in totals.items():
        assert files and rewrites >= before - after > 0, (name, totals[name])


def test_the_device_use_scan_sees_names_strings_and_fstrings() -> None:
    """The six projects' check is only as good as this scan: it must see each kind of device use."""
    text = 'x.cuda()\nd = f"cuda:{rank}"\nk = "AutocastCUDA"\nif t.is_cuda: pass\n# cuda in a comment\nm = "no cuda"\n'
    assert [line for line, _ in device_uses(text)] == [1, 2, 3, 4]


def test_a_deeply_nested_or_huge_file_is_copied_with_a_warning() -> None:
    for deep in ("x = " + "(" * 5000 + "y.cuda()" + ")" * 5000 + "\n", "x = " + "-" * 1000 + "y.cuda()\n",
                 "x = " + "-" * 50_000 + "y.cuda()\n"):  # LibCST's native parser crashes on the first and last
        result = port_python(deep.encode(), "deep.py", "deep.py", PACK)
        assert (result.status, result.data) == (FileStatus.UNCHANGED, deep.encode())
        assert "copied unchanged" in result.warnings[0]
    big = b"T = [\n" + b"    'cuda',\n" * 250_000 + b"]\n"
    result = port_python(big, "table.py", "table.py", PACK)
    assert (result.status, result.data) == (FileStatus.UNCHANGED, big) and "over 2 MB" in result.warnings[0]
