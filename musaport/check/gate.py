"""Running ``musaport check``: port both sides, snapshot them, compare, emit."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from musaport.check.compare import Snapshot, compare, load_baseline, selected, to_json
from musaport.check.render import FORMATS
from musaport.errors import EXIT_FAILED, EXIT_OK, ToolError
from musaport.ops.generate import OperatorFiles
from musaport.outdir import FUNCTIONS_YAML, OutDir, write_atomic
from musaport.port.config import Options, load_config
from musaport.port.layout import check_out, load_layout
from musaport.port.run import run
from musaport.validate.compile.compile import Progress, compile_status
from musaport.yamlload import load_yaml


@dataclass(frozen=True)
class CheckOptions:
    """A check: the new tree, one baseline, where to work, and what fails it."""

    new: Path
    baseline_tree: Path | None
    baseline_report: Path | None
    out: Path
    layout: Path
    packs: tuple[Path, ...]
    jobs: int
    formats: tuple[str, ...]
    fail_on: tuple[str, ...]
    validate: bool = False
    progress: Progress = field(default_factory=Progress, compare=False)  # long phases are said here


def snapshot_of(tree: Path, out: Path, opts: CheckOptions) -> Snapshot:
    """Port ``tree`` into ``out`` (incrementally) and describe the result."""
    run_opts = Options(tree, out, opts.layout, opts.packs, opts.jobs, OperatorFiles())
    with opts.progress.phase(f"porting {tree} into {out}"):
        report = run(run_opts, load_config(run_opts))
    if report.return_code != EXIT_OK:
        raise ToolError(f"musaport run: {tree}: porting failed; see {OutDir(out).report_md}")
    snap = Snapshot.from_report(OutDir(out).porting_report())
    snap.source = str(tree)
    with opts.progress.phase(f"reading the operators of {tree}"):
        snap.with_operators(tree, registered_operators(out))
    if opts.validate:
        snap.validation = _validation(out, opts.jobs, opts.progress)
    return snap


def registered_operators(out: Path) -> set[str] | None:
    """The operators the run's registration stubs cover, from its musa_functions.yaml (None: no stubs)."""
    path = OutDir(out).tree / FUNCTIONS_YAML
    if not path.is_file():
        return None
    doc = load_yaml(path) or {}
    if doc.get("operators_from") != "torchgen":  # without torchgen no RegisterMUSA.cpp is written
        return None
    return {str(entry["name"]) for entry in doc.get("registered") or []}


def _validation(out: Path, jobs: int, progress: Progress | None = None) -> dict[str, bool]:
    """Which ported translation units compile against the shim."""
    return compile_status(OutDir(out), jobs, progress=progress)


def refuse_out_in_trees(opts: CheckOptions) -> None:
    """Refuse, before either side is ported, an ``--out`` (whose ``new``/``old`` ports and reports the check
    writes) inside either tree: the port of NEW would otherwise land in OLD before OLD's own run refused it."""
    layout = load_layout(opts.layout)
    for tree in (opts.new, opts.baseline_tree):
        if tree is not None:
            check_out(layout, tree, opts.out)


def check(opts: CheckOptions) -> tuple[dict, int]:
    """Run the check; return its JSON document and the exit code."""
    refuse_out_in_trees(opts)
    baseline = load_baseline(opts.baseline_report) if opts.baseline_report is not None else None  # first: a bad
    with ExitStack() as held:  # report fails before the port of NEW; each port is held from its run to its read
        for side in ("new",) if baseline is not None else ("new", "old"):
            held.enter_context(OutDir(opts.out / side).lock())
        new = snapshot_of(opts.new, opts.out / "new", opts)
        if baseline is not None:
            old = baseline
        else:
            assert opts.baseline_tree is not None
            old = snapshot_of(opts.baseline_tree, opts.out / "old", opts)
    findings = compare(old, new)
    doc = to_json(old, new, findings, opts.fail_on)
    for fmt in opts.formats:
        name, render = FORMATS[fmt]
        write_atomic(opts.out / name, render(doc).encode())
    return doc, EXIT_FAILED if selected(findings, opts.fail_on) else EXIT_OK
