"""The generation step of ``musaport run``: files made beside the ported sources.

:class:`OperatorFiles` implements the port's ``GenerationStep`` hook: called
once per run with every file's result, it returns tree-relative paths and
their bytes, which the run stages and commits with the ported files:
RegisterMUSA.cpp (or one per source with ``split``), musa_functions.yaml and
musaport_sources.cmake.  Everything here is a function of the source tree,
the results and the options, so a second run produces the same bytes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from musaport.errors import LoadError
from musaport.ops.buildlist import left_out
from musaport.ops.emit_cmake import sources_cmake
from musaport.ops.emit_registration import functions_yaml, header, registration_files, registration_of
from musaport.ops.exclusions import rule_id
from musaport.ops.inputs import NATIVE_FUNCTIONS, GenerateOptions, OperatorInputs
from musaport.ops.model import Operator, OperatorModel, operator_model, resolve_names, suggest_names
from musaport.ops.records import load_records, start_records
from musaport.ops.scan import observed_facts
from musaport.outdir import CMAKE_FILE, FUNCTIONS_YAML, REGISTRATION, OutDir
from musaport.port.config import Config, Generated
from musaport.port.file import FileResult, FileStatus, Observer, port_bytes
from musaport.port.layout import Layout
from musaport.rewrite.rules import Rule
from musaport.rewrite.transforms import rename_path


@dataclass(frozen=True)
class OperatorFiles(OperatorInputs):
    """The run's generation step: registration stubs, musa_functions.yaml, CMake lists."""

    jobs: int = 1  # worker processes for the operator scan (not in the digest: output is the same for any)

    def observer(self) -> Observer | None:
        """The operator scan's facts of each ported kernel file, taken from the port's parse."""
        return observed_facts if self.options.registration else None

    def prepare(self, source: Path, out: OutDir) -> None:
        check_selection(source, out, self.options)

    def files(self, source: Path, results: list[FileResult], out: OutDir, config: Config) -> Generated:
        return generated_files(source, results, self.options, out, config, self.jobs)


def generated_files(source: Path, results: list[FileResult], options: GenerateOptions,
                    out: OutDir | None = None, config: Config | None = None, jobs: int = 1) -> Generated:
    """Generated outputs by tree-relative path; ``out`` holds the operator model's cache.

    A tree whose own torchgen cannot run still gets musa_functions.yaml (from
    the plain YAML) and the CMake lists, but no registration file: that is a
    problem, named in the summary, and the run exits 1.
    """
    ok = [r for r in results if r.status != FileStatus.FAILED]
    what = _yaml_label(source)
    files: dict[str, str] = {}
    problems: tuple[str, ...] = ()
    ported: list[FileResult] = []
    rules = config.rules if config else None
    if options.registration and out is not None and not (source / NATIVE_FUNCTIONS).is_file():
        # As when the tree's torchgen fails: the sources are ported, the run says in one line what it
        # could not make and exits 1, rather than exit 0 with no registration at all.
        problems = (f"{REGISTRATION} and {FUNCTIONS_YAML} not generated: the tree has no {NATIVE_FUNCTIONS} "
                    "(port with --no-registration to port the sources only)",)
    if options.registration and (source / NATIVE_FUNCTIONS).is_file() and out is not None:
        known = {r.src: r.observed for r in ok if r.observed is not None}
        model = operator_model(source, out, [r.src for r in ok], config.layout if config else None, jobs, known)
        if model.problem:
            problems = (f"{REGISTRATION} not generated: {model.problem}",)
        ported = build_time_sources(model, config) if config else []
        chosen = select(model, options)
        files = registration_files(model, chosen, options.split, what, rules) if model.origin == "torchgen" else {}
        registered = {op.name: registration_of(op, options.split) for op in chosen if files}
        files[FUNCTIONS_YAML] = functions_yaml(model, registered, _excluded(ok, options), what)
    done = {rel: text.encode() for rel, text in files.items()} | {r.out: r.data for r in ported if r.data}
    done[CMAKE_FILE] = sources_cmake([*(r.out for r in ok), *(r.out for r in ported)],
                                     [f for f in files if f.endswith(".cpp")],
                                     header(f"the port of {source.name}"), left_out(ok)).encode()
    return Generated(dict(sorted(done.items())), problems, tuple(ported))


def build_time_sources(model: OperatorModel, config: Config) -> list[FileResult]:
    """The CUDA sources torchgen writes at build time (``UfuncCUDA_add.cu``), ported like any file:
    a MUSA build needs their kernels, and no file of the tree holds them."""
    sources = sorted({r.generated for r in model.wrappers.values() if r.generated})
    return [port_bytes(text.encode(), path, rename_path(path), config.rules, config.vocabulary)
            for path, text in sources]


def _yaml_label(source: Path) -> str:
    path = source / NATIVE_FUNCTIONS
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.is_file() else "missing"
    return f"{NATIVE_FUNCTIONS} (sha256 {digest})"


def _excluded(results: list[FileResult], options: GenerateOptions) -> dict[str, list[str]]:
    """Excluded stub → the source files whose registration of it the port removed (its findings)."""
    return {e.stub: sorted({r.src for r in results for f in r.findings if f.rule == rule_id(e.stub)})
            for e in options.exclude_stubs}


def select(model: OperatorModel, options: GenerateOptions) -> list[Operator]:
    """The registrable operators ``--ops`` picks (all by default) minus ``--exclude-ops``."""
    wanted = _names(model.operators, options.ops, "--ops") if options.ops else None
    dropped = _names(model.operators, options.exclude_ops, "--exclude-ops")
    return [op for op in model.registrable()
            if (wanted is None or op.name in wanted) and op.name not in dropped]


def check_selection(source: Path, out: OutDir, options: GenerateOptions) -> None:
    """Start torchgen in the background; fail before porting when ``--ops``/``--exclude-ops``
    name an unknown operator."""
    if not options.registration:
        return
    start_records(source, out.state)
    if not (options.ops or options.exclude_ops):
        return
    out.state.mkdir(parents=True, exist_ok=True)
    names = {r.name for r in load_records(source, out.state).items}
    _names(names, options.ops, "--ops")
    _names(names, options.exclude_ops, "--exclude-ops")


def _names(known: Iterable[str], queries: Iterable[str], option: str) -> set[str]:
    """Every operator the queries select; an unknown one is an error with suggestions."""
    known = list(known)
    chosen: set[str] = set()
    for query in queries:
        hits = resolve_names(known, query)
        if not hits:
            close = suggest_names(known, query)
            hint = f"; did you mean: {', '.join(close)}?" if close else ""
            raise LoadError(f"{option}: no operator '{query}' with a CUDA kernel in {NATIVE_FUNCTIONS}{hint}")
        chosen.update(hits)
    return chosen
