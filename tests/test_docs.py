"""The documentation: the MkDocs site builds in strict mode (links and anchors checked, every page in the
nav), and every relative link of the README reaches a file of the checkout."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, need

LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_site_builds_in_strict_mode(tmp_path: Path) -> None:
    if importlib.util.find_spec("mkdocs") is None:
        need("needs mkdocs (the dev extra installs it)")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(tmp_path / "site")], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-4000:]
    assert "WARNING" not in done.stderr, done.stderr[-4000:]
    assert (tmp_path / "site" / "index.html").is_file()


def readme_links(text: str) -> list[str]:
    """The README's relative links, without their #anchor (links to the web and to its own headings left out)."""
    return [target.split("#")[0] for target in LINK.findall(text)
            if not target.startswith(("http://", "https://", "#", "mailto:"))]


def test_every_relative_link_of_the_readme_reaches_a_file() -> None:
    links = readme_links((ROOT / "README.md").read_text(encoding="utf-8"))
    assert links, "the README links to no page of docs/"
    assert [link for link in links if not (ROOT / link).exists()] == []


def test_links_are_read_as_written() -> None:
    assert readme_links("see [a](docs/a.md#x), [b](https://x.org), [c](#here) and [d](docs/d.md)") == \
        ["docs/a.md", "docs/d.md"]
