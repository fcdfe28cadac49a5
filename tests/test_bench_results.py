"""The benchmark figures the README and docs quote, read again from the runs checked in under
``bench/results/``: each block marked ``<!-- bench: AFTER compared with BEFORE -->`` holds the table
``bench/emulation.py`` prints for those two runs (docs), or only ratios and times that table holds
(the README's prose). A rerun of the benchmark rewrites the files; this test then names every figure
a page still quotes from the old run."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from conftest import ROOT

RESULTS = ROOT / "bench" / "results"
MARKER = re.compile(r"^<!-- bench: ([\w.-]+) compared with ([\w.-]+) -->$")
FIGURE = re.compile(r"\d[\d,.]*\s?(?:×|µs|ms|s)(?!\w)")


def emulation():
    spec = importlib.util.spec_from_file_location("emulation", ROOT / "bench" / "emulation.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def marked(page: Path) -> list[tuple[int, str, str, str]]:
    """(line, after, before, the text up to the next blank line after the block) for each marker."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found = []
    for i, line in enumerate(lines):
        m = MARKER.match(line)
        if m:
            found.append((i + 1, m.group(1), m.group(2), "\n".join(lines[i + 1:])))
    return found


def rendered(after: str, before: str) -> str:
    load = lambda name: json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))  # noqa: E731
    return emulation().table(load(after), load(before))


PAGES = [ROOT / "README.md", ROOT / "docs" / "benchmarks.md"]
BLOCKS = [(page, *block) for page in PAGES for block in marked(page)]


def test_every_page_that_quotes_the_runs_is_marked():
    assert {page.name for page, *_ in BLOCKS} == {"README.md", "benchmarks.md"}


@pytest.mark.parametrize("page,line,after,before,text", BLOCKS, ids=lambda v: getattr(v, "name", None))
def test_the_quoted_figures_are_the_runs(page: Path, line: int, after: str, before: str, text: str):
    table = rendered(after, before)
    if page.parent.name == "docs":  # the page shows the table itself, right after the commands
        assert table in text, f"{page.name}:{line}: the table is not the one bench/emulation.py prints for the runs"
        return
    paragraph = text.split("\n\n", 1)[0]
    quoted = FIGURE.findall(paragraph)
    assert quoted, f"{page.name}:{line}: no figure after the marker"
    cells = {c.strip() for row in table.splitlines() for c in row.split("|")}
    stale = [f for f in quoted if f not in cells]
    assert not stale, f"{page.name}:{line}: {stale} are not in the runs' table:\n{table}"


def test_a_changed_run_is_caught(tmp_path: Path):
    """The check can fail: one ratio changed in the run is no longer in the table the README quotes."""
    after = json.loads((RESULTS / "emulation-2-multiprocessors.json").read_text(encoding="utf-8"))
    after["cases"]["sum_1m"]["musa"][1] *= 2
    before = json.loads((RESULTS / "emulation-8-multiprocessors.json").read_text(encoding="utf-8"))
    assert "14.6×" in rendered("emulation-2-multiprocessors", "emulation-8-multiprocessors")
    assert "14.6×" not in emulation().table(after, before)


@pytest.mark.parametrize("run", ["extension-proof-spline-conv", "extension-proof-spline-conv-idle",
                                 "extension-proof-spline-conv-idle-serial"])
def test_the_extension_proof_table_is_the_run(run: str):
    """docs/benchmarks.md quotes bench/extension_proof.py's table of each run kept in bench/results/."""
    spec = importlib.util.spec_from_file_location("extension_proof", ROOT / "bench" / "extension_proof.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = json.loads((RESULTS / f"{run}.json").read_text(encoding="utf-8"))
    assert module.table(result) in (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
