"""Outcomes are enums (FileStatus, OpKind, the backend's Status) whose values are the reports' words."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path

import pytest

from musaport.ops.model import REGISTRABLE, OpKind, OperatorModel, operator_model
from musaport.outdir import OutDir
from musaport.port import cache
from musaport.port.file import FileResult, FileStatus
from musaport.validate.backend.backend import STATUSES, OpResult, Status, parse_rows
from musaport.validate.backend.render import rows

# The words reports, caches and the driver have always used: changing one changes every report's bytes.
WORDS = {
    FileStatus: ["ported", "unchanged", "copied", "failed"],
    OpKind: ["stub", "structured", "cuda-function", "generic", "not-portable", "unresolved"],
    Status: ["pass", "fail", "build-error", "skipped", "pending"],
}


@pytest.mark.parametrize("enum", list(WORDS), ids=lambda e: e.__name__)
def test_each_outcome_is_written_as_its_word(enum: type[Enum]) -> None:
    assert [m.value for m in enum] == WORDS[enum]
    for member in enum:
        word = member.value
        assert member == word and hash(member) == hash(word)
        assert (str(member), f"{member}", f"{member:<14}", "%s" % member) == (word, word, f"{word:<14}", word)
        assert json.dumps({member: [member]}) == json.dumps({word: [word]})


def test_a_cached_file_result_comes_back_as_its_status(tmp_path: Path) -> None:
    result = FileResult(src="d/a.cu", out="d/a.mu", status=FileStatus.UNCHANGED, src_hash="s", out_hash="s")
    path = tmp_path / cache.CACHE_NAME
    cache.dump(path, "k", cache.Cache({"d/a.cu": cache.Entry(1, 2, 3, 4, result=result)}))
    loaded = cache.load(path, "k")
    assert loaded.load_results()
    assert loaded.entries["d/a.cu"].result.status is FileStatus.UNCHANGED
    assert b'"status": "unchanged"' in (tmp_path / cache.RESULTS_NAME).read_bytes()


def test_the_driver_rows_are_statuses_and_the_table_shows_their_words() -> None:
    out = '{"op": "abs", "dtype": "int", "status": "fail", "max_error": 2, "cases": 1, "detail": "5x7"}\n'
    parsed = parse_rows(out)
    assert parsed[0].status is Status.FAIL
    assert Status.PENDING not in STATUSES  # never reported: the driver decides it
    table = rows([OpResult("abs", Status.FAIL, "int: 5x7", tuple(parsed))])
    assert [type(r[3]) for r in table] == [Status] and table[0][3] == "fail"


def test_every_operator_of_the_fixture_tree_has_an_op_kind(tmp_path: Path) -> None:
    from conftest import FIXTURE_TREE

    model: OperatorModel = operator_model(FIXTURE_TREE, OutDir(tmp_path))
    assert model.operators
    assert all(isinstance(op.kind, OpKind) for op in model.operators.values())
    assert all(op.kind in REGISTRABLE for op in model.registrable())


@pytest.mark.shared
def test_the_2_6_0_operators_have_op_kinds(pytorch_260: Path, ported_260: Path) -> None:
    model = operator_model(pytorch_260, OutDir(ported_260))
    kinds = {op.kind for op in model.operators.values()}
    assert all(isinstance(k, OpKind) for k in kinds) and kinds <= set(OpKind)
    assert {OpKind.STUB, OpKind.STRUCTURED, OpKind.CUDA_FUNCTION, OpKind.NOT_PORTABLE} <= kinds
