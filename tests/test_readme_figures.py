"""Every figure the README and the docs/ pages quote from a command's output, rerun and compared.

A block of README.md or of a page under docs/ that shows what a command
prints is preceded by a marker, ``<!-- figures: NAME -->``; NAME is a row of
``COMMANDS`` below, which reruns that command: on the bundled mini tree
(cheap: in the fast selection), or on the real PyTorch trees (the session's
ports and bump check, shared with the other tests).  The block's words are aligned with the
command's output (wrapping, table borders and elided ``...`` lines do not
matter), and every word of the block that holds a figure (a number, a hash)
must be in the output as it is.  A failure names the page and line, the figure
quoted and the figure measured, so a rule change that moves a count says
exactly which figure to update.
"""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from conftest import PORT_OUTPUT, ROOT, musaport

README = ROOT / "README.md"
DOCS = ROOT / "docs"
MARKER = re.compile(r"^<!-- figures: ([\w.-]+) -->$")
FIGURE = re.compile(r"\d")
BOX = re.compile(r"[\u2500-\u257f]")  # the table borders rich draws


@dataclass(frozen=True)
class Block:
    """One marked block: its name, the line it starts on, its lines, and the page it is on."""

    name: str
    line: int
    lines: tuple[str, ...]
    page: str = "README.md"

    def __str__(self) -> str:
        return f"{self.page}:{self.line}:{self.name}"


def pages() -> list[Path]:
    """README.md and every page of the docs site."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def all_blocks() -> list[Block]:
    return [b for page in pages() for b in marked_blocks(page.read_text(encoding="utf-8"),
                                                          page.relative_to(ROOT).as_posix())]


def marked_blocks(text: str, page: str = "README.md") -> list[Block]:
    """Each marker with the fenced block (or the paragraph) that follows it."""
    lines = text.splitlines()
    blocks = []
    for i, line in enumerate(lines):
        m = MARKER.match(line.strip())
        if not m:
            continue
        start = i + 1
        if lines[start].startswith("```"):
            end = next(j for j in range(start + 1, len(lines)) if lines[j].startswith("```"))
            blocks.append(Block(m.group(1), start + 2, tuple(lines[start + 1 : end]), page))
        else:
            end = next((j for j in range(start, len(lines)) if not lines[j].strip()), len(lines))
            blocks.append(Block(m.group(1), start + 1, tuple(lines[start:end]), page))
    return blocks


def words(text: str) -> list[str]:
    return BOX.sub(" ", text).split()


def drift(block: Block, output: str, command: str) -> list[str]:
    """The figures of ``block`` that ``output`` does not give, each with its README line."""
    quoted = [(w, block.line + n) for n, line in enumerate(block.lines) if not line.startswith("$ ")
              for w in words(line) if w not in ("...", "…")]
    measured = words(output)
    problems = []
    matcher = difflib.SequenceMatcher(None, [w for w, _ in quoted], measured, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "delete") and any(FIGURE.search(w) for w, _ in quoted[i1:i2]):
            was = " ".join(w for w, _ in quoted[i1:i2] if FIGURE.search(w))
            near = measured[j1:j2]
            now = (" ".join(w for w in near if FIGURE.search(w)) or " ".join(near)) if tag == "replace" \
                else "(nothing there)"
            problems.append(f"{block.page}:{quoted[i1][1]}: quotes {was!r}; `{command}` gives {now!r}")
    return problems


@dataclass(frozen=True)
class Trees:
    """What the commands run on, and the paths the README writes instead of them."""

    new: Path  # PyTorch 2.6.0
    old: Path  # PyTorch 1.13.1
    out: Path  # the session's port of 2.6.0
    check: subprocess.CompletedProcess[str]  # the session's check of the bump

    def as_readme(self, text: str) -> str:
        """The output with the README's paths: ./pytorch, build/, pytorch-old and pytorch-new."""
        for path, name in ((self.out, "build"), (self.new, "pytorch"), (ROOT, "")):
            text = text.replace(f"{path}/", f"{name}/" if name else "").replace(str(path), name)
        return text


def _cli(*args: str) -> Callable[[Trees], str]:
    def run(t: Trees) -> str:
        argv = [a.format(new=t.new, out=t.out) for a in args]
        result = musaport(*argv)
        assert result.returncode == 0, (args, result.stderr)
        return t.as_readme(result.stdout)
    return run


def _check(t: Trees) -> str:
    text = t.check.stdout.replace(str(t.old), "pytorch-old").replace(str(t.new), "pytorch-new")
    return t.as_readme(text)


def _port_counts(t: Trees) -> str:
    """The sentence under the run's summary: files in all and how many of them are .mu."""
    import json

    report = json.loads((t.out / "porting_report.json").read_text())
    mu = sum(1 for f in report["files"].values() if f["out"].endswith(".mu"))
    return f"That is PyTorch 2.6.0: {report['summary']['total']} files, {mu} of them `.mu`"


# name -> (the command as the page shows it, how to rerun it): on the real trees
COMMANDS: dict[str, tuple[str, Callable[[Trees], str]]] = {
    "run-260": ("musaport run --pytorch-src ./pytorch --out build/", lambda t: t.as_readme(PORT_OUTPUT[t.out])),
    "run-260-counts": ("porting_report.json of that run", _port_counts),
    "rules-explain": ("musaport rules explain device-type-cuda", _cli("rules", "explain", "device-type-cuda")),
    "diff-abs": ("musaport diff abs --pytorch-src ./pytorch --out build/",
                 _cli("diff", "abs", "--pytorch-src", "{new}", "--out", "{out}", "--no-color")),
    "diff-tril-stat": ("musaport diff tril --pytorch-src ./pytorch --stat",
                       _cli("diff", "tril", "--pytorch-src", "{new}", "--out", "{out}", "--stat")),
    "whereis-faq": ("musaport whereis _ZN2at4musa3cub28exclusive_sum_in_common_typeIiiEEvPKT_PT0_l --out build/",
                    _cli("whereis", "_ZN2at4musa3cub28exclusive_sum_in_common_typeIiiEEvPKT_PT0_l", "--out", "{out}")),
    "check-bump": ("musaport check --pytorch-src ./pytorch-new --baseline ./pytorch-old", _check),
}

# The tour's commands, on the bundled mini tree ported into build/ (the README's first command): argv, and
# whether the command compiles (validate --run builds every fixture kernel with g++).
TOUR: dict[str, tuple[tuple[str, ...], bool]] = {
    "tour-run": (("run", "--out", "build"), False),
    "tour-report": (("run", "--out", "build", "-q"), False),  # the report's table, read from the file below
    "tour-diff": (("diff", "abs", "--out", "build", "--stat"), False),
    "tour-validate": (("validate", "--run", "--out", "build"), True),
}


def test_every_marker_names_a_command_and_every_command_is_quoted() -> None:
    names = [b.name for b in all_blocks()]
    assert sorted(names) == sorted([*COMMANDS, *TOUR]), "a marker without a command here, or a command never quoted"


def test_drift_names_the_figure_and_the_line() -> None:
    block = Block("x", 10, ("$ cmd", "│ 983 │ 629 │", "...", "findings to review: 567; warnings: 0"))
    output = "┃ files ┃\n│   984 │    629 │\nunmapped: 3\nfindings to review: 613; warnings: 0\n"
    assert drift(block, output, "cmd") == ["README.md:11: quotes '983'; `cmd` gives '984'",
                                           "README.md:13: quotes '567;'; `cmd` gives '613;'"]
    assert drift(block, output.replace("984", "983").replace("613", "567"), "cmd") == []


def test_a_docs_page_is_read_like_the_readme() -> None:
    [block] = marked_blocks("text\n<!-- figures: x -->\n```\n1 of 2\n```\n", "docs/page.md")
    assert (block.page, block.line, block.lines) == ("docs/page.md", 4, ("1 of 2",))
    assert drift(block, "2 of 2", "cmd") == ["docs/page.md:4: quotes '1'; `cmd` gives '2'"]


@pytest.fixture(scope="module")
def trees(pytorch_260: Path, pytorch_1131: Path, ported_260: Path, bump_check) -> Trees:
    return Trees(pytorch_260, pytorch_1131, ported_260, bump_check[1])


@pytest.mark.shared
@pytest.mark.parametrize("block", [b for b in all_blocks() if b.name in COMMANDS], ids=str)
def test_figure_matches_its_command_on_the_real_trees(block: Block, trees: Trees) -> None:
    command, measure = COMMANDS[block.name]
    problems = drift(block, measure(trees), command)
    assert not problems, "the figures drifted (update them):\n" + "\n".join(problems)


def _tour(block: Block, tmp_path: Path) -> None:
    """Rerun the tour up to ``block`` in a fresh folder, as a newcomer would (the bundled tree into build/)."""
    argv, _ = TOUR[block.name]
    env = dict(os.environ, COLUMNS="100")
    if argv[0] != "run":
        ported = subprocess.run(["musaport", "run", "--out", "build", "-q"], cwd=tmp_path, capture_output=True,
                                text=True, env=env)
        assert ported.returncode == 0, ported.stderr
    done = subprocess.run(["musaport", *argv], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert done.returncode == 0, (argv, done.stderr)
    shown = done.stdout
    if block.name == "tour-report":
        shown = (tmp_path / "build" / "porting_report.md").read_text(encoding="utf-8")
    shown = shown.replace(f"{tmp_path}/", "").replace(f"{ROOT}/", "")
    problems = drift(block, shown, "musaport " + " ".join(argv))
    assert not problems, "the figures drifted (update them):\n" + "\n".join(problems)


@pytest.mark.parametrize("block", [b for b in all_blocks() if b.name in TOUR and not TOUR[b.name][1]], ids=str)
def test_figure_of_the_tour_matches_its_command(block: Block, tmp_path: Path) -> None:
    _tour(block, tmp_path)


@pytest.mark.compiles
@pytest.mark.parametrize("block", [b for b in all_blocks() if b.name in TOUR and TOUR[b.name][1]], ids=str)
def test_figure_of_the_tour_that_compiles_matches_its_command(block: Block, tmp_path: Path, gxx: str) -> None:
    _tour(block, tmp_path)


# Figures quoted in prose, each read from what owns it: name -> (what it reads, the value, where it is quoted:
# (page, the phrase around it)). A phrase that no longer holds the value fails, naming the page.
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _torch_download() -> str:
    from musaport.doctor import TORCH_DOWNLOAD

    return TORCH_DOWNLOAD.removeprefix("~")


def _names_spelled_back() -> str:
    lines = (ROOT / "rules/optional/torch-musa-cuda-names.txt").read_text(encoding="utf-8").splitlines()
    return str(sum(1 for line in lines if line.strip() and not line.startswith("#")))


def _extension_fixtures() -> str:
    return NUMBER_WORDS[sum(1 for p in (ROOT / "fixtures/extensions").iterdir() if p.is_dir())]


def _fast_selection() -> str:
    """How many tests ``--fast`` selects, as pytest collects them (a few seconds; nothing runs)."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "--fast", "-p", "no:cacheprovider"],
                          cwd=ROOT, capture_output=True, text=True)
    found = re.search(r"^(\d+)(?:/\d+)? tests? collected", done.stdout, re.M)
    assert found, done.stdout[-2000:] + done.stderr[-2000:]
    return f"{int(found.group(1)):,}"


PROSE: dict[str, tuple[str, Callable[[], str], tuple[tuple[str, str], ...]]] = {
    "fast-selection": ("the tests pytest --fast selects", _fast_selection, (("README.md", "it ran {} tests in"),)),
    "torch-download": ("musaport.doctor.TORCH_DOWNLOAD (what musaport doctor says validate --backend downloads)",
                       _torch_download, (("README.md", "(about {} downloaded, once"),
                                         ("docs/contributing.md", "about {} downloaded, 5.3 GB on disk"),
                                         ("docs/validate-backend.md", "(about {} downloaded, 5.3 GB on"))),
    "torch-musa-names": ("the names in rules/optional/torch-musa-cuda-names.txt", _names_spelled_back,
                         (("docs/run.md", "spelled back ({} for 2.6.0)"),)),
    "extension-fixtures": ("the projects under fixtures/extensions/", _extension_fixtures,
                           (("docs/contributing.md", "{} extension projects for `run --src`"),)),
}


@pytest.mark.parametrize("name", PROSE)
def test_a_figure_in_prose_is_what_its_owner_says(name: str) -> None:
    _, value, places = PROSE[name]
    figure = value()
    missing = [f"{page}: no '{phrase.format(figure)}'" for page, phrase in places
               if phrase.format(figure) not in " ".join((ROOT / page).read_text(encoding="utf-8").split())]
    assert not missing, f"{name} is {figure!r} now:\n" + "\n".join(missing)
