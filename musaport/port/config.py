"""What a run depends on: the options, the loaded configuration, the generation hook.

Apart from ``port.run`` (which imports the workers, the stage and the
rewrite engine) so that a warm run can load its configuration (or take it
from ``port.snapshot``) and find nothing to do (``port.reuse``) without
importing the porting machinery.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from musaport.outdir import OutDir
from musaport.port.file import FileResult, Observer
from musaport.port.layout import Layout, load_layout
from musaport.port.request import Request
from musaport.resources import parse_vocabulary, vocabulary_file
from musaport.rewrite.rules import Rule, RuleSet, extend


@dataclass(frozen=True)
class Generated:
    """What the generation step made: files by tree-relative path, and what it could not make, and why.

    ``results``: files the step ported itself (an extension's setup.py and
    CMakeLists.txt); the report counts them and lists their findings.
    """

    files: dict[str, bytes]
    problems: tuple[str, ...] = ()
    results: tuple[FileResult, ...] = ()


class GenerationStep(Protocol):
    """Files made beside the port from the whole run's results (see ``ops.generate``)."""

    def extra_rules(self) -> list[Rule]:
        """Rules appended to the packs (the stub exclusions)."""

    def describe(self, source: Path, layout: Layout) -> str:
        """Everything outside the ported files that the generated files depend on."""

    def observer(self) -> Observer | None:
        """What to take from each source while the port has it parsed (see ``port.file.Observer``)."""

    def prepare(self, source: Path, out: OutDir) -> None:
        """Before porting: validate the selection, start slow work in the background."""

    # Optional: ``porter()`` → a callable ``(Task, bytes, cpp) -> FileResult | None`` that ports the files it
    # knows (an extension's .py files, ``pyport.port.PythonPort``) in the workers; None: the C++ port.

    def files(self, source: Path, results: list[FileResult], out: OutDir, config: "Config") -> Generated:
        """Every generated file; an output it cannot make is a problem, which fails the run (exit 1).
        ``config``: the run's layout, compiled rules and vocabulary, so generated sources are ported
        like any other and generated code names what the port renamed as the port does."""


@dataclass(frozen=True)
class Options:
    """Everything a run depends on, as given on the command line."""

    source: Path
    out: Path
    layout: Path
    packs: tuple[Path, ...]
    jobs: int = 1
    generation: GenerationStep | None = None

    def request(self) -> Request:
        """These options as the value written beside the output (``port.request``)."""
        return Request.of(self.source, self.layout, self.packs, self.generation)


@dataclass(frozen=True)
class Config:
    """The loaded, validated inputs of a run."""

    layout: Layout
    rules: RuleSet
    vocabulary: frozenset[str]
    key: str


def load_config(opts: Options, discovered: Layout | None = None) -> Config:
    """Load layout, packs and vocabulary; any problem raises LoadError.

    ``discovered``: the layout of a selection made by code (``run --src``);
    such a tree is not PyTorch, so no rule is left out for lacking its API.
    Rules are loaded uncompiled: ``port.run`` compiles them when there is work.
    """
    request = opts.request()
    rules = request.load_rules(compile=False)
    layout = discovered if discovered is not None else load_layout(opts.layout)
    extra = opts.generation.extra_rules() if opts.generation else []
    if extra:
        rules = extend(rules, extra)
    raw = vocabulary_file().read_bytes()
    return Config(layout, rules, parse_vocabulary(raw), request.cache_key(rules, layout, raw))


