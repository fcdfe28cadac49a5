"""The operator scan reuses the port's parse of the files it ported; the facts must not change."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import FIXTURE_TREE
from musaport.cpp.parser import masked, parse
from musaport.cpp.structure import structure
from musaport.cpp.text import CODE_ONLY
from musaport.ops import scan
from musaport.ops.generate import OperatorFiles
from musaport.port.config import Options, load_config
from musaport.port.file import port_bytes
from musaport.port.run import run
from musaport.resources import default_layout, default_packs, parse_vocabulary, vocabulary_file
from musaport.rewrite.packs import load_packs

KERNELS = sorted(p.relative_to(FIXTURE_TREE).as_posix() for p in FIXTURE_TREE.rglob("*")
                 if p.is_file() and p.name.endswith(scan.SCANNED_PORTED))


def test_observed_facts_are_the_scanned_facts() -> None:
    rules = load_packs(default_packs())
    vocabulary = parse_vocabulary(vocabulary_file().read_bytes())
    assert KERNELS
    for rel in KERNELS:
        data = (FIXTURE_TREE / rel).read_bytes()
        result = port_bytes(data, rel, rel, rules, vocabulary, observe=scan.observed_facts)
        assert result.observed == scan.file_facts(rel, data).to_json(), rel
    parsed = parse(b"int x;")
    code = masked(parsed.text, parsed.spans, CODE_ONLY)
    assert scan.observed_facts("a/b.h", parsed, code, structure(parsed, code)) is not None  # generic headers
    assert scan.observed_facts("a/b.txt", parsed, code, structure(parsed, code)) is None


def test_scan_with_known_facts_writes_the_same_cache(tmp_path: Path) -> None:
    lexed, given = tmp_path / "lexed", tmp_path / "given"
    for state in (lexed, given):
        state.mkdir()
    plain = scan.scan(FIXTURE_TREE, KERNELS, lexed)
    known = {rel: scan.file_facts(rel, (FIXTURE_TREE / rel).read_bytes()).to_json() for rel in KERNELS[::2]}
    assert scan.scan(FIXTURE_TREE, KERNELS, given, known=known) == plain
    assert (lexed / scan.CACHE_NAME).read_bytes() == (given / scan.CACHE_NAME).read_bytes()


def test_a_run_scans_what_it_ported_from_the_port(tmp_path: Path, monkeypatch) -> None:
    """A cold run lexes only the files it did not port (the generic ones) for the scan."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # a user cache that never saw them
    src = tmp_path / "pytorch"
    shutil.copytree(FIXTURE_TREE, src)
    lexed = _lexing(monkeypatch)
    out = tmp_path / "out"
    opts = Options(src, out, default_layout(), tuple(default_packs()), jobs=1, generation=OperatorFiles())
    assert run(opts, load_config(opts)).return_code == 0
    ported = set(json.loads((out / "porting_report.json").read_text())["files"])
    assert lexed and not ported.intersection(lexed)
    facts = json.loads((out / ".musaport" / scan.CACHE_NAME).read_text())["files"]
    assert ported.intersection(facts), "ported kernel files are in the scan"


def _lexing(monkeypatch) -> list[str]:
    """The paths the scan lexes itself from now on."""
    lexed: list[str] = []
    real = scan.file_facts

    def counting(path, data, tokens=None):
        lexed.append(path)
        return real(path, data, tokens)

    monkeypatch.setattr(scan, "file_facts", counting)
    return lexed


def test_a_new_out_of_a_tree_seen_before_takes_the_generic_facts_from_the_user_cache(tmp_path: Path,
                                                                                      monkeypatch) -> None:
    """The device-generic files' facts are kept in the user cache by content: a second --out of the same
    tree lexes none of them and writes the very scan cache and port the first one did; a file whose bytes
    changed is lexed again."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    src = tmp_path / "pytorch"
    shutil.copytree(FIXTURE_TREE, src)
    lexed = _lexing(monkeypatch)

    def port(out: Path) -> bytes:
        opts = Options(src, out, default_layout(), tuple(default_packs()), jobs=1, generation=OperatorFiles())
        assert run(opts, load_config(opts)).return_code == 0
        return (out / ".musaport" / scan.CACHE_NAME).read_bytes()

    first = port(tmp_path / "one")
    generic = list(lexed)
    assert generic and scan.shared_facts_file().is_file()
    lexed.clear()
    assert port(tmp_path / "two") == first
    assert lexed == []
    assert _tree_bytes(tmp_path / "two") == _tree_bytes(tmp_path / "one")
    edited = src / generic[0]
    edited.write_text(edited.read_text() + "\nvoid added_by_the_test() {}\n")
    port(tmp_path / "three")
    assert lexed == [generic[0]]
    facts = json.loads((tmp_path / "three" / ".musaport" / scan.CACHE_NAME).read_text())["files"][generic[0]]
    assert "added_by_the_test" in [d[0] for d in facts["facts"]["definitions"]]


def test_a_corrupt_user_cache_of_facts_is_lexed_past(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shared = scan.shared_facts_file()
    shared.parent.mkdir(parents=True)
    shared.write_text('{"version": %d, "files": {"x": {"definitions": 3}}}' % scan.SCAN_VERSION)
    lexed = _lexing(monkeypatch)
    rels = [r for r in KERNELS[:2]]
    assert scan.scan(FIXTURE_TREE, rels, tmp_path) and lexed == rels
    assert set(json.loads(shared.read_text())["files"]) != {"x"}


def _tree_bytes(out: Path) -> dict[str, bytes]:
    tree = out / "generated_cuda_compatible"
    return {p.relative_to(tree).as_posix(): p.read_bytes() for p in sorted(tree.rglob("*")) if p.is_file()}
