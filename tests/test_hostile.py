"""Hostile trees, hostile configs, killed runs (the hostile-input probe's findings).

Every test here builds its own hostile tree in ``tmp_path`` (a copy of the
bundled fixture tree plus the hostile parts) and asks the harness's
questions: one clear line and the documented exit code, no traceback,
nothing written outside ``--out``, the previous output kept where promised.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURE_TREE
from harness import assert_one_clear_line, musaport

TREE = "generated_cuda_compatible"
CUDA = "aten/src/ATen/native/cuda"
MUSA = "aten/src/ATen/native/musa"


@pytest.fixture()
def src(tmp_path: Path) -> Path:
    """A private copy of the fixture tree, below ``tmp_path/trees`` so that ``../../`` leaves it."""
    copy = tmp_path / "trees" / "pytorch"
    shutil.copytree(FIXTURE_TREE, copy)
    return copy


def port(src: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return musaport("run", "--pytorch-src", str(src), "--out", str(out), "-q", *extra)


# 7. Config checks

def pack_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "my.yaml"
    path.write_text("pack: mine\nwhy: test\nrules:\n" + body)
    return path


@pytest.mark.parametrize(
    ("body", "needles"),
    [
        ("  - id: empty\n    why: w\n    pattern: 'x*'\n    replace: 'y'\n",
         ("my.yaml:4", "rule 'empty'", "can match empty text")),
        ("  - id: ahead\n    why: w\n    pattern: '(?=cudaFree)'\n    replace: 'musaFoo'\n",
         ("my.yaml:4", "rule 'ahead'", "can match empty text")),
        ("  - id: both\n    why: w\n    pattern: 'cudaFree'\n    flag: careful\n    replace: 'musaFree'\n",
         ("my.yaml:4", "rule 'both'", "'replace' cannot go with 'flag'")),
        ("  - id: both\n    why: w\n    names: {cudaFree: musaFree}\n    replace: 'x'\n",
         ("my.yaml:4", "rule 'both'", "'replace' cannot go with 'names'")),
        ("  - id: wrong\n    why: w\n    pattern: '\\bcudaFoo\\b'\n    replace: 'musaFoo'\n    examples:\n"
         "      - {before: 'int a;', after: 'int a;'}\n      - {before: 'cudaFoo(1);', after: 'musaBar(1);'}\n",
         ("my.yaml:10", "rule 'wrong'", "expected 'musaBar(1);', got 'musaFoo(1);'")),
        ("  - id: quiet\n    why: w\n    pattern: 'cudaFoo'\n    flag: careful\n    examples:\n"
         "      - {before: 'int a;', after: 'int a;'}\n",
         ("my.yaml:9", "rule 'quiet'", "expected flagged=True")),
    ],
    ids=["star", "lookahead", "flag-and-replace", "names-and-replace", "wrong-example", "flag-example"],
)
def test_bad_user_pack_is_one_line(src: Path, tmp_path: Path, body: str, needles: tuple[str, ...]) -> None:
    result = port(src, tmp_path / "out", "--rules", str(pack_file(tmp_path, body)))
    assert_one_clear_line(result, 2, *needles)
    assert not (tmp_path / "out" / TREE).exists()


def test_user_pack_with_right_examples_loads(src: Path, tmp_path: Path) -> None:
    body = ("  - id: fine\n    why: w\n    pattern: '\\bcudaFoo\\b'\n    replace: 'musaFoo'\n    examples:\n"
            "      - {before: 'cudaFoo(1); // cudaFoo', after: 'musaFoo(1); // cudaFoo'}\n")
    result = port(src, tmp_path / "out", "--rules", str(pack_file(tmp_path, body)))
    assert result.returncode == 0, result.stderr
