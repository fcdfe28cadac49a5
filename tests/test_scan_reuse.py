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
    src = tmp_path / "pytorch"
    shutil.copytree(FIXTURE_TREE, src)
    lexed: list[str] = []
    real = scan.file_facts

    def counting(path, data, tokens=None):
        lexed.append(path)
        return real(path, data, tokens)

    monkeypatch.setattr(scan, "file_facts", counting)
    out = tmp_path / "out"
    opts = Options(src, out, default_layout(), tuple(default_packs()), jobs=1, generation=OperatorFiles())
    assert run(opts, load_config(opts)).return_code == 0
    ported = set(json.loads((out / "porting_report.json").read_text())["files"])
    assert lexed and not ported.intersection(lexed)
    facts = json.loads((out / ".musaport" / scan.CACHE_NAME).read_text())["files"]
    assert ported.intersection(facts), "ported kernel files are in the scan"
