"""Committing a staged port: every staged file lands at its place, whole folders moving with one rename."""

from __future__ import annotations

from pathlib import Path

from musaport.outdir import OutDir
from musaport.port.stage import Stage


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _stage(out: OutDir, files: dict[str, bytes]) -> Stage:
    stage = Stage(out)
    for rel, data in files.items():
        stage.put(rel, data)
    return stage


STAGED = {"a/x.h": b"x", "a/new/y.mu": b"y", "a/new/deeper/z.mu": b"z", "b/w.cpp": b"w", "top.txt": b"t"}


def test_a_cold_commit_moves_the_staged_tree_in(tmp_path: Path) -> None:
    out = OutDir(tmp_path / "out")
    out.state.mkdir(parents=True)
    stage = _stage(out, STAGED)
    stage.commit()
    assert _files(out.tree) == STAGED
    assert not stage.root.exists()


def test_a_commit_into_a_tree_moves_new_folders_whole_and_files_one_by_one(tmp_path: Path) -> None:
    out = OutDir(tmp_path / "out")
    out.state.mkdir(parents=True)
    (out.tree / "a").mkdir(parents=True)
    (out.tree / "a" / "x.h").write_bytes(b"old x")
    (out.tree / "a" / "kept.h").write_bytes(b"kept")
    stage = _stage(out, STAGED)
    stage.commit()
    assert _files(out.tree) == {**STAGED, "a/kept.h": b"kept"}
    assert not stage.root.exists()
