"""The README's table of the core files: one row per file of ``--test-files core``, each row's
figures those of a run that docs/results.md describes, in the section the row links to.

The core list takes hours on the emulated device, so no test reruns it; what this checks is that
the README quotes no figure that the measured results do not hold, and leaves no core file out.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ROOT
from musaport.validate.opinfo.tests import CORE_FILES

README = ROOT / "README.md"
RESULTS = ROOT / "docs" / "results.md"
MARKER = "<!-- core files: each row's figures are those of the run its link names in docs/results.md -->"
ROW = re.compile(r"^\| `(?P<file>[\w/.]+)` \| (?P<cells>.*) \| \[(?P<label>[^\]]+)\]\(docs/results\.md#(?P<anchor>[\w-]+)\) \|$")


def slug(heading: str) -> str:
    """The anchor Python-Markdown's toc gives a heading (MkDocs builds docs/ with it)."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).strip().replace(" ", "-")


def sections(text: str) -> dict[str, str]:
    """Each ``## `` section of a page by its anchor."""
    parts = re.split(r"^## (.*)$", text, flags=re.M)
    return {slug(parts[i]): parts[i + 1] for i in range(1, len(parts), 2)}


def table_rows(text: str) -> list[re.Match]:
    lines = text.splitlines()
    start = lines.index(MARKER)
    rows = []
    for line in lines[start + 3:]:  # the marker, the header and its rule
        if not line.startswith("|"):
            break
        if not line.startswith("| **"):  # the totals row
            m = ROW.match(line)
            assert m, f"README.md: a row of the core table is not `| `file` | figures | [run](docs/results.md#anchor) |`: {line}"
            rows.append(m)
    return rows


def figures(cells: str) -> list[str]:
    return [c.strip() for c in cells.split("|")]


def spelled(figure: str) -> re.Pattern:
    """A figure as the results page may write it: with or without thousands separators."""
    digits = figure.replace(",", "")
    grouped = f"{int(digits):,}"
    edge_before, edge_after = r"(?<![\d.])(?<!\d,)", r"(?!\d|[,.]\d)"  # not part of a longer figure
    return re.compile(rf"{edge_before}(?:{re.escape(grouped)}|{re.escape(digits)}){edge_after}")


ROWS = table_rows(README.read_text(encoding="utf-8"))


def test_every_core_file_has_a_row():
    assert [m["file"] for m in ROWS] == list(CORE_FILES)


@pytest.mark.parametrize("row", ROWS, ids=lambda m: m["file"])
def test_a_rows_figures_are_in_the_section_it_links_to(row: re.Match):
    known = sections(RESULTS.read_text(encoding="utf-8"))
    assert row["anchor"] in known, f"README.md: {row['file']} links to #{row['anchor']}, no section of docs/results.md"
    section = known[row["anchor"]]
    name = Path(row["file"]).name
    assert name in section, f"docs/results.md#{row['anchor']} does not name {name}"
    missing = [f for f in figures(row["cells"]) if f != "—" and not spelled(f).search(section)]
    assert not missing, f"README.md: {row['file']}: {missing} are not in docs/results.md#{row['anchor']}"


def test_a_figure_the_section_lacks_is_caught():
    """The check can fail: a passed count one higher than the run's is not in the section."""
    row = ROWS[0]
    section = sections(RESULTS.read_text(encoding="utf-8"))[row["anchor"]]
    passed = figures(row["cells"])[0].replace(",", "")
    assert spelled(passed).search(section)
    assert not spelled(str(int(passed) * 10 + 7)).search(section)
