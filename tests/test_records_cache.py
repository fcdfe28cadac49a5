"""The torchgen records are kept in the user cache by content: a new --out of a tree already read skips torchgen."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from musaport.ops import records
from musaport.ops.inputs import NATIVE_FUNCTIONS, TAGS
from musaport.ops.records import Record, Records, load_records, shared_records

YAML = "- func: abs(Tensor self) -> Tensor\n  dispatch:\n    CUDA: abs_cuda\n"


def _tree(root: Path) -> Path:
    (root / NATIVE_FUNCTIONS).parent.mkdir(parents=True)
    (root / NATIVE_FUNCTIONS).write_text(YAML)
    (root / TAGS).write_text("- tag: core\n  desc: x\n")
    (root / "torchgen").mkdir()
    (root / "torchgen" / "model.py").write_text("# the tree's torchgen\n")
    return root


@pytest.fixture
def torchgen_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[Path]:
    """The user cache in tmp_path; each torchgen run (the child, replaced) recorded by its tree."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    runs: list[Path] = []

    def fake(source: Path, state: Path) -> Records:
        runs.append(source)
        text = (source / "torchgen" / "model.py").read_text()
        return Records((Record("abs", "abs(Tensor self) -> Tensor", 1, "abs_cuda", "abs", False, "", True, False,
                               None, cpp_api=text),), "torchgen")

    monkeypatch.setattr(records, "_from_torchgen", fake)
    return runs


def test_a_new_out_of_a_tree_read_before_reuses_its_records(tmp_path: Path, torchgen_runs: list[Path]) -> None:
    tree, copy = _tree(tmp_path / "a"), tmp_path / "b"
    first = load_records(tree, tmp_path / "out1" / ".musaport")
    shutil.copytree(tree, copy)  # the same release unpacked elsewhere
    again = load_records(copy, tmp_path / "out2" / ".musaport")
    assert torchgen_runs == [tree]
    assert again.to_json() == first.to_json()
    assert shared_records(tree) == shared_records(copy) and shared_records(tree).is_file()
    assert list((tmp_path / "out2" / ".musaport").glob("operators-*.json"))  # the --out's own cache, too


def test_records_are_made_again_when_torchgen_or_the_yaml_differ(tmp_path: Path, torchgen_runs: list[Path]) -> None:
    tree = _tree(tmp_path / "a")
    load_records(tree, tmp_path / "out1")
    (tree / "torchgen" / "model.py").write_text("# a patched torchgen\n")
    patched = load_records(tree, tmp_path / "out2")
    (tree / NATIVE_FUNCTIONS).write_text(YAML + "\n")
    load_records(tree, tmp_path / "out3")
    assert len(torchgen_runs) == 3
    assert patched.items[0].cpp_api == "# a patched torchgen\n"


def test_an_unwritable_user_cache_only_costs_the_reuse(tmp_path: Path, torchgen_runs: list[Path]) -> None:
    (tmp_path / "cache").write_text("a file where the cache folder should be")
    tree = _tree(tmp_path / "a")
    assert load_records(tree, tmp_path / "out1").items[0].name == "abs"
    assert load_records(tree, tmp_path / "out2").items[0].name == "abs"
    assert len(torchgen_runs) == 2
