"""The command line: wiring only; each command's work lives in its own package.

Commands import their package when they run (this module imports only click
and musaport's small helpers at its top), so a command pays for nothing
another one needs.  ``run``
first asks ``port.reuse`` whether anything changed, which needs only the
configuration, discovery and the cache; the porting machinery and the
operator model are imported when there is work.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from musaport import __version__
from musaport.errors import EXIT_FAILED, EXIT_TERMINATED, EXIT_USAGE, LoadError, Terminated, ToolError, handle_sigterm
from musaport.outdir import OutDir
from musaport.resources import (default_fixture_tree, default_layout, extension_packs, optional_pack, optional_packs,
                                run_packs)

if TYPE_CHECKING:
    from musaport.ops.inputs import GenerateOptions
    from musaport.port.config import Options
    from musaport.port.report import Report


# Off a terminal a console is this wide: rich sizes a table to its content, so nothing is cut.
UNLIMITED = 1 << 16
# Table columns holding what a user copies (rule ids, paths, install commands) fold, never end in "…".
COPYABLE = {"overflow": "fold"}


def console(stderr: bool = False):
    """The one maker of rich consoles, created on first use (rich costs a noticeable part of startup).

    On a terminal rich draws to its width. Anywhere else (a CI log, ``| less``, ``> file``) rich would
    assume 80 columns and cut table cells with "…", so there the console is as wide as what it prints
    and never wraps a line; ``COLUMNS``, when set, still wins.
    """
    from rich.console import Console

    if _is_terminal(stderr) or os.environ.get("COLUMNS"):
        return Console(stderr=stderr)
    return Console(stderr=stderr, width=UNLIMITED, soft_wrap=True)


def _is_terminal(stderr: bool = False) -> bool:
    stream = sys.stderr if stderr else sys.stdout
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class PhaseLines:
    """Progress off a terminal: one ``musaport: ...`` line per phase on stderr, and for a loop of
    steps a count at each tenth (at most 10 lines)."""

    @staticmethod
    def say(text: str) -> None:
        click.echo(f"musaport: {text}", err=True)

    @contextmanager
    def phase(self, text: str):
        self.say(f"{text} ...")
        yield

    @contextmanager
    def steps(self, text: str, total: int):
        self.say(f"{text} ...")
        yield _Tenths(total, lambda done: self.say(f"{done} of {total} done"))


class _Tenths:
    """Counts steps and reports at each tenth of the total."""

    def __init__(self, total: int, report) -> None:
        self.total, self.done, self.report = total, 0, report
        self.step = max(1, -(-total // 10))  # a tenth, rounded up: at most 9 lines before the end
        self.next = self.step

    def advance(self, n: int = 1) -> None:
        self.done += n
        if self.next <= self.done < self.total:
            self.report(self.done)
            self.next = self.done + self.step


class PhaseBar:
    """Progress on a terminal: a transient spinner per phase, a bar for a loop of steps (on stderr)."""

    def __init__(self) -> None:
        self.err = console(stderr=True)

    @contextmanager
    def phase(self, text: str):
        with self.err.status(text):
            yield

    @contextmanager
    def steps(self, text: str, total: int):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn(text), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=self.err,
                      transient=True) as bar:
            task = bar.add_task(text, total=total)
            yield _BarAdvance(bar, task)


class _BarAdvance:
    def __init__(self, bar, task) -> None:
        self.bar, self.task = bar, task

    def advance(self, n: int = 1) -> None:
        self.bar.advance(self.task, n)


def phase_reporter(quiet: bool):
    """Where long phases are said: nowhere with -q, a bar on a terminal, phase lines elsewhere."""
    if quiet:
        from musaport.validate.compile.compile import Progress

        return Progress()
    return PhaseBar() if _is_terminal(stderr=True) else PhaseLines()


def Table(*args, **kwargs):  # noqa: N802 - stands in for rich.table.Table
    from rich.table import Table as RichTable

    return RichTable(*args, **kwargs)


class AbsPath(click.Path):
    """A path option made absolute against the working directory as soon as it is read.

    Every later step (a child process, a cache key, a report) then sees the
    path the user meant, whatever its own working directory is.
    """

    def convert(self, value, param, ctx):  # type: ignore[override]
        return Path(os.path.abspath(super().convert(value, param, ctx)))


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """One clear line on stderr and a non-zero exit."""
    click.echo(f"musaport: error: {message}", err=True)
    sys.exit(code)


class _Commands(click.Group):
    """The command group: whatever escapes a command is still one line and an exit code.

    Bad input (``LoadError``) exits 2; a tool that failed (``ToolError``) exits 1; a failing file system (disk full, no
    permission) exits 1; Ctrl-C exits 130. Commands leave the previous output
    intact in each case, so the line says so.
    """

    def invoke(self, ctx: click.Context):
        handle_sigterm()
        try:
            return super().invoke(ctx)
        except LoadError as exc:
            fail(str(exc))
        except ToolError as exc:
            fail(str(exc), EXIT_FAILED)
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            fail(f"{where}{exc.strerror or exc}; {_previous_output()}", EXIT_FAILED)
        except Terminated:
            fail(f"terminated (SIGTERM); {_previous_output()}", EXIT_TERMINATED)
        except KeyboardInterrupt:
            fail(f"interrupted; {_previous_output()}", 130)


def _previous_output() -> str:
    """What a command stopped by an error or a signal did to the output: nothing, unless it was moving a port
    into place (``OutDir.begin_commit``), which the next run finishes."""
    from musaport.outdir import changing

    part = changing()
    if not part:
        return "the previous output was left as it was"
    return (f"the output in {part[0]} was partly replaced (the commit did not finish); "
            "run the same command again to complete it")


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="musaport")
def main() -> None:
    """Port PyTorch's CUDA sources to Moore Threads' MUSA."""


def _packs(rules: tuple[Path, ...], packs: tuple[str, ...], extension: bool = False) -> tuple[Path, ...]:
    """Bundled packs, optional ones, the extension packs (``run --src`` only), then the user's; each once."""
    for path in rules:
        if not path.exists() or path.is_dir():  # a FIFO or <(...) is a pack too (read by yamlload.read_config)
            fail(f"{path}: --rules {'is a folder, not a rule pack' if path.is_dir() else 'file not found'}")
    try:
        optional = tuple(optional_pack(p) for p in packs)
    except FileNotFoundError as exc:
        fail(str(exc))
    return run_packs(optional, extension, rules)


class PackChoice(click.Choice):
    """``--pack``: the bundled optional packs, listed in --help; an unknown one is one musaport error line."""

    def convert(self, value, param, ctx):  # type: ignore[override]
        if value in self.choices:
            return value
        fail(f"--pack: no optional pack '{value}' (known: {', '.join(self.choices)})")


pack_options = [
    click.option("--rules", "rules", multiple=True, type=AbsPath(path_type=Path),
                 help="Extra rule pack (YAML), applied after the bundled ones. Repeatable."),
    click.option("--pack", "packs", multiple=True, type=PackChoice(optional_packs()),
                 help="Enable an optional bundled pack. Repeatable."),
]

quiet_option = click.option("-q", "--quiet", is_flag=True, help="No progress on stderr (bar or phase lines).")


def with_packs(fn):
    for option in reversed(pack_options):
        fn = option(fn)
    return fn


@main.command("run", short_help="Port a PyTorch tree (or an extension) into OUT.")
@click.option("--pytorch-src", type=AbsPath(path_type=Path), default=None,
              help="PyTorch source tree to port (default: the bundled fixture tree).")
@click.option("--src", type=AbsPath(path_type=Path), default=None,
              help="An extension project to port instead (CUDA sources found without a layout; setup.py, CMake).")
@click.option("--out", type=AbsPath(path_type=Path), default=Path("build"), show_default=True,
              help="Output folder; the ported tree goes to OUT/generated_cuda_compatible.")
@click.option("--layout", type=AbsPath(path_type=Path), default=None, help="Layout file selecting what to port.")
@with_packs
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Worker processes (default: all cores).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar or summary table.")
@click.option("--ops", multiple=True, help="Register only these operators (abs, abs.out, tril_; comma-separated, repeatable).")
@click.option("--exclude-ops", multiple=True, help="Do not register these operators (same syntax as --ops).")
@click.option("--split", is_flag=True, help="One RegisterMUSA_<source>.cpp per CUDA source instead of one file.")
@click.option("--exclude-stubs", multiple=True,
              help="DispatchStubs the backend implements itself: their REGISTER_DISPATCH lines are removed.")
@click.option("--exclude-stubs-file", type=AbsPath(path_type=Path), default=None,
              help="YAML file with a 'stubs:' list, added to --exclude-stubs.")
@click.option("--no-registration", is_flag=True,
              help="Port and list sources only: no operator model, RegisterMUSA.cpp or musa_functions.yaml.")
@click.option("--on-collision", type=click.Choice(["error", "port", "project"]), default="error", show_default=True,
              help="--src: a renamed output that is a file the project already has: stop, write the port over it, "
                   "or keep the project's file (includes of the CUDA one then name it).")
def run_cmd(pytorch_src, src, out, layout, rules, packs, jobs, quiet, ops, exclude_ops, split, exclude_stubs,
            exclude_stubs_file, no_registration, on_collision) -> None:
    """Port the CUDA parts of a PyTorch tree (or, with --src, of an extension project) into
    OUT/generated_cuda_compatible."""
    jobs = jobs or default_jobs()
    if src is not None:
        opts, config = _extension_run(pytorch_src, src, out, layout, rules, packs, jobs,
                                      ops or exclude_ops or split or exclude_stubs or exclude_stubs_file,
                                      on_collision)
        report = _run_with_progress(opts, config, quiet)
    else:
        if on_collision != "error":
            fail("--on-collision goes with --src (an extension project's renamed files)")
        options = _generate_options(ops, exclude_ops, split, exclude_stubs, exclude_stubs_file, not no_registration)
        opts, report = _pytorch_run(pytorch_src, out, layout, _packs(rules, packs), jobs, options, quiet)
    if not quiet:
        _summary(report, opts)
    for f in report.failed:
        click.echo(f"musaport: error: {f.src}: {'; '.join(f.warnings)}", err=True)
    if report.failed:
        click.echo(f"musaport: {len(report.failed)} file(s) failed; the output tree was left as it was", err=True)
    for problem in report.summary().get("problems", []):
        click.echo(f"musaport: error: {problem}", err=True)
    sys.exit(report.return_code)


def _pytorch_run(pytorch_src: Path | None, out: Path, layout: Path | None, packs: tuple[Path, ...], jobs: int,
                 options: GenerateOptions, quiet: bool) -> tuple[Options, Report]:
    """``run --pytorch-src``: ``port.reuse.port`` with the generation step's two halves.

    The warm check needs only the step's inputs (``OperatorInputs``); the step
    itself (``OperatorFiles``: the operator model, torchgen, the scan's process
    pool) is made only when there is work.
    """
    from musaport.ops.inputs import OperatorInputs
    from musaport.port.config import Options
    from musaport.port.reuse import port

    if pytorch_src is None:
        _refuse_other_tree(OutDir(out), default_fixture_tree())
    opts = Options(source=pytorch_src or default_fixture_tree(), out=out, layout=layout or default_layout(),
                   packs=packs, jobs=jobs, generation=OperatorInputs(options))

    def working_step():
        from musaport.ops.generate import OperatorFiles

        return OperatorFiles(options, jobs)

    with _progress(quiet) as (progress, on_plan):
        return port(opts, working_step, progress, on_plan)


def _refuse_other_tree(out: OutDir, bundled: Path) -> None:
    """``run`` without ``--pytorch-src`` ports the bundled tree: refuse when ``out`` holds a port of another
    tree, which the run would replace without a word."""
    from musaport.port.request import Request

    recorded = Request.load(out) if out.state.is_dir() and not out.state.is_symlink() else None
    source = recorded.source if recorded is not None else out.source()
    if source is not None and source != bundled:
        fail(f"{out.root}: holds a port of {source}; give --pytorch-src {source} to update it "
             "(without --pytorch-src, run ports the bundled fixture tree)")


def _extension_run(pytorch_src, src, out, layout, rules, packs, jobs, registration_options, collision="error"):
    """Options and config of ``run --src``: the selection is discovered, the extension packs are added."""
    from musaport.extension.generate import extension_options

    if pytorch_src is not None:
        fail("give --pytorch-src (PyTorch itself) or --src (an extension project), not both")
    if layout is not None:
        fail("--layout selects PyTorch folders; --src discovers the extension's CUDA sources itself")
    if registration_options:
        fail("--ops, --exclude-ops, --split and --exclude-stubs choose PyTorch's registration; --src generates none")
    return extension_options(src, out, _packs(rules, packs, extension=True), jobs, collision)


def _generate_options(ops, exclude_ops, split, exclude_stubs, exclude_stubs_file, registration=True):
    """The generate options of ``run``; a malformed exclusion file fails with its file:line."""
    from musaport.ops.exclusions import from_file, from_option
    from musaport.ops.inputs import GenerateOptions

    def names(values: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(n.strip() for v in values for n in v.split(",") if n.strip()))

    stubs = from_option(exclude_stubs) + (from_file(exclude_stubs_file) if exclude_stubs_file else [])
    if not registration and (ops or exclude_ops or split):
        fail("--ops, --exclude-ops and --split choose what to register; they cannot go with --no-registration")
    return GenerateOptions(ops=names(ops), exclude_ops=names(exclude_ops), split=split, exclude_stubs=tuple(stubs),
                           registration=registration)


def default_jobs() -> int:
    """All the cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _run_with_progress(opts: Options, config, quiet: bool) -> Report:
    from musaport.port.run import run

    with _progress(quiet) as (progress, on_plan):
        return run(opts, config, progress, on_plan)


@contextmanager
def _progress(quiet: bool):
    """The callbacks of a progress bar on a terminal (None, None otherwise)."""
    if quiet:  # rich is not even imported: a warm run is mostly start-up
        yield None, None
        return
    err = console(stderr=True)
    if not err.is_terminal:
        yield None, None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("porting"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("port", total=None)
        yield (lambda _r: bar.advance(task)), (lambda n: bar.update(task, total=n))


def _summary(report: Report, opts: Options) -> None:
    summary = report.summary()
    c = summary["counts"]
    out = console()
    table = Table(title=f"musaport {__version__}: {opts.source}", title_justify="left")
    for col in ("files", "ported", "unchanged", "copied", "failed", "skipped", "written", "removed", "reused"):
        table.add_column(col, justify="right", min_width=len(col))  # a header is never cut
    table.add_row(*(str(v) for v in (c["total"], c["ported"], c["unchanged"], c["copied"], c["failed"],
                                     c["skipped"], report.written, report.removed, report.reused)))
    out.print(table)
    from musaport.port.file import UNSCANNED_INLINE

    unscanned = summary.get("unscanned", 0)
    unread = (f"; {unscanned} load_inline sources that only running the code makes were not scanned "
              f"({UNSCANNED_INLINE} in the report)") if unscanned else ""
    if summary["unmapped_top"]:
        top = ", ".join(f"{name} ({count})" for name, count in summary["unmapped_top"])
        out.print(f"unmapped CUDA APIs: {summary['unmapped_names']} names; most used: {top}{unread}",
                  highlight=False)
    elif unscanned:
        out.print(f"unmapped CUDA APIs: none found in the code scanned{unread}", highlight=False)
    elif "kept_names" in summary:  # the scan ran (a summary of an older run may not say)
        kept = summary["kept_names"]
        more = f"; {kept} kept on purpose, each with its reason in the report" if kept else ""
        out.print(f"unmapped CUDA APIs: none (no CUDA name left in code or includes{more})", highlight=False)
    if summary.get("python"):
        py = summary["python"]
        out.print(f"the project's Python: {py['files']} files, {py['ported']} ported, {py['rewrites']} rewrites, "
                  f"{py['findings']} findings", highlight=False)
    out.print(f"findings to review: {summary['findings']}; warnings: {summary['warnings']}")
    out_dir = OutDir(opts.out)
    out.print(f"output: {out_dir.tree}; report: {out_dir.report_md}")


@main.group("rules", short_help="List and explain the rewrite rules.")
def rules_group() -> None:
    """List and explain the rewrite rules."""


def _ruleset(rules: tuple[Path, ...], packs: tuple[str, ...], extension: bool = False):
    from musaport.rewrite.packs import load_packs

    return load_packs(_packs(rules, packs, extension))


# The modules that make rules by code (each declares its ids in CODE_RULES; see rewrite.registry).
RULE_MAKERS = ("musaport.ops.exclusions", "musaport.extension.rule_ids", "musaport.pyport.pack")

_extension_option = click.option("--extension", is_flag=True,
                                  help="The rules of 'run --src' (adds the extension packs, rules/extension).")


@rules_group.command("list", short_help="Every rule in application order.")
@with_packs
@_extension_option
def rules_list(rules, packs, extension) -> None:
    """Every rule in application order: id, pack, kind and why."""
    out = console()
    table = Table()
    table.add_column("id", **COPYABLE)
    for name in ("pack", "kind", "why"):
        table.add_column(name)
    for rule in _ruleset(rules, packs, extension).rules:
        table.add_row(rule.id, rule.pack, rule.kind, rule.why)
    if extension:  # run --src also ports the project's Python (rules/python, musaport.pyport)
        from musaport.pyport.pack import load

        for py in load().rules:
            table.add_row(py.id, "python", py.kind, py.why)
    out.print(table)


@rules_group.command("explain", short_help="What one rule does, why, and its examples.")
@click.argument("rule_id")
@with_packs
@_extension_option
def rules_explain(rule_id, rules, packs, extension) -> None:
    """What one rule does, why, where it is declared, and its examples."""
    from musaport.rewrite.explain import explain_id

    ruleset = _ruleset(rules, packs, extension)
    text = explain_id(rule_id, ruleset, RULE_MAKERS)
    if text is None:
        from difflib import get_close_matches

        held = _pack_holding(rule_id, packs, extension)
        if held:
            fail(f"no rule '{rule_id}' in the packs given; it is in {held}")
        close = get_close_matches(rule_id, [r.id for r in ruleset.rules], n=3)
        fail(f"no rule '{rule_id}'" + (f"; did you mean: {', '.join(close)}?" if close else ""))
    console().print(text, markup=False, highlight=False)


def _pack_holding(rule_id: str, packs: tuple[str, ...], extension: bool) -> str:
    """Which bundled pack not given holds ``rule_id``, with the option that adds it ('' when none does):
    a report of a ``--pack torch-musa`` run names rules a plain ``rules explain`` does not load."""
    from musaport.rewrite.rules import load_pack

    offered = [(optional_pack(name), f"the optional pack '{name}'; add --pack {name}")
               for name in optional_packs() if name not in packs]
    if not extension:
        offered += [(path, f"the extension pack {path.stem}; add --extension") for path in extension_packs()]
    for path, where in offered:
        if any(rule.id == rule_id for rule in load_pack(path, compile=False)):
            return where
    return ""


@main.command("parse", short_help="How the parser sees a file (JSON).")
@click.argument("file", type=AbsPath(path_type=Path, exists=True, dir_okay=False))
def parse_cmd(file: Path) -> None:
    """Show how the parser sees FILE: context spans and structure facts (JSON)."""
    import json

    from musaport.cpp.parser import parse
    from musaport.cpp.structure import structure

    from musaport.port.layout import MAX_SOURCE_BYTES
    from musaport.yamlload import read_config

    # Bounded, and never blocked on a FIFO without a writer (/dev/zero would fill the memory).
    parsed = parse(read_config(file, MAX_SOURCE_BYTES, "a source file (a run skips a source this size)"))
    spans = [{"context": s.context, "start": s.start, "end": s.end, "text": parsed.text[s.start:s.end]}
             for s in parsed.spans]
    click.echo(json.dumps({"spans": spans, "structure": structure(parsed).to_json()}, indent=2))


@main.command("check", short_help="What a PyTorch bump breaks for the port.")
@click.option("--pytorch-src", "new", required=True, type=AbsPath(path_type=Path),
              help="The new PyTorch tree (after the bump).")
@click.option("--baseline", type=AbsPath(path_type=Path), default=None, help="The old PyTorch tree.")
@click.option("--baseline-report", type=AbsPath(path_type=Path), default=None,
              help="A previous 'check --format json' report or a porting_report.json, instead of --baseline.")
@click.option("--out", type=AbsPath(path_type=Path), default=Path("build/check"), show_default=True,
              help="Work folder: ports go to OUT/new and OUT/old, reports to OUT/musaport-check.*")
@click.option("--format", "formats", multiple=True, default=("text",), show_default=True,
              type=click.Choice(["text", "md", "json", "sarif", "junit"]),
              help="Report formats, each written to its own file in OUT. Repeatable.")
@click.option("--fail-on", default="new-unmapped,schema-drift,removed-files,compile-regression,dead-rules",
              show_default=True, help="Comma-separated finding categories that make the check fail.")
@click.option("--validate", is_flag=True, help="Also compare which files compile against the MUSA shim.")
@click.option("--layout", type=AbsPath(path_type=Path), default=None, help="Layout file selecting what to port.")
@with_packs
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Worker processes (default: all cores).")
@quiet_option
def check_cmd(new, baseline, baseline_report, out, formats, fail_on, validate, layout, rules, packs, jobs,
              quiet) -> None:
    """What a PyTorch bump breaks for the MUSA port (exit 0 clean, 1 findings, 2 usage)."""
    from musaport.check.compare import CATEGORIES
    from musaport.check.gate import CheckOptions, check
    from musaport.check.render import render_text

    if (baseline is None) == (baseline_report is None):
        fail("give exactly one of --baseline TREE or --baseline-report FILE")
    selected = tuple(c.strip() for c in fail_on.split(",") if c.strip())
    unknown = [c for c in selected if c not in CATEGORIES]
    if unknown:
        fail(f"--fail-on: unknown categories {', '.join(unknown)} (known: {', '.join(CATEGORIES)})")
    opts = CheckOptions(new, baseline, baseline_report, out, layout or default_layout(), _packs(rules, packs),
                        jobs or default_jobs(), tuple(dict.fromkeys(formats)), selected, validate,
                        progress=phase_reporter(quiet))
    doc, code = check(opts)
    click.echo(render_text(doc), nl=False)
    sys.exit(code)


def _mode_options(fn):
    """One flag per validate mode (``validate.modes.MODES``), in their order, then each mode's options."""
    from musaport.validate.modes import MODES

    types = {"text": None, "path": AbsPath(path_type=Path),
             "folder": AbsPath(path_type=Path, exists=True, file_okay=False)}
    for mode in reversed(MODES):
        for o in reversed(mode.options):
            extra = {"is_flag": True} if o.kind == "flag" else {"type": types[o.kind], "default": None}
            fn = click.option(*o.decls, multiple=o.multiple, metavar=o.metavar, help=o.help, hidden=o.hidden,
                              **extra)(fn)
    for mode in reversed(MODES):
        fn = click.option(mode.flag, f"mode_{mode.name.replace('-', '_')}", is_flag=True, help=mode.help)(fn)
    return fn


@main.command("validate", short_help="Prove the port compiles, runs, and works as a backend.")
@_mode_options
@click.option("--out", type=AbsPath(path_type=Path), default=Path("build"), show_default=True,
              help="The --out of a previous 'musaport run'.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Parallel compiler processes.")
@quiet_option
@click.argument("patterns", nargs=-1)
def validate_cmd(out, jobs, quiet, patterns, **options) -> None:
    """Prove the port is real MUSA code: it compiles against the shim, kernels run on the CPU, and the
    ported backend runs PyTorch operators through the real libtorch.

    Give exactly one of --compile, --run, --backend, --opinfo or --merge-reports. PATTERNS select ported
    files to compile (--compile; default: *.mu), fixture kernels to run (--run; default: all of them) or
    the --out folders of the shards to merge (--merge-reports).
    """
    from musaport.validate.modes import Invocation, choose, renamed

    for old, new in renamed(options):
        fail(f"validate {old} is now {new}")
    flags = {name[len("mode_"):]: options.pop(name) for name in list(options) if name.startswith("mode_")}
    mode = choose(flags, options, patterns)
    if mode.command:
        _require(mode.command)
    log = (lambda m: None) if quiet else (lambda m: click.echo(m, err=True))
    with OutDir(out).held():  # no run replaces the tree while it is validated
        result = mode.run(Invocation(OutDir(out), patterns, jobs or default_jobs(), options, echo=click.echo,
                                     log=log, console=console(), progress=phase_reporter(quiet)))
    click.echo(result.summary)
    sys.exit(result.exit_code)


@main.command("whereis", short_help="Which ported file defines a symbol.")
@click.argument("symbol")
@click.option("--out", type=AbsPath(path_type=Path), default=Path("build"), show_default=True,
              help="The --out of a previous 'musaport run' (the ported tree is searched).")
@click.option("--pytorch-src", type=AbsPath(path_type=Path, exists=True, file_okay=False), default=None,
              help="PyTorch tree: when the port does not define the symbol, look for its CUDA spelling here.")
@click.option("--cmake-list", type=AbsPath(path_type=Path, exists=True, dir_okay=False), default=None,
              help="The backend's own CMake source list: say whether it already names the file.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def whereis_cmd(symbol, out, pytorch_src, cmake_list, as_json) -> None:
    """Which ported file defines SYMBOL (mangled or not), and which .mu to add (exit 0 found, 1 not defined)."""
    import json

    from musaport.cpp.symbols import demangle, parse_symbol
    from musaport.whereis.render import render_text, to_json
    from musaport.whereis.search import whereis

    out_dir = OutDir(out)
    if not out_dir.tree.is_dir():
        fail(f"{out_dir.tree}: no ported tree here; run 'musaport run --out {out}' first or pass --out")
    out_dir.require_whole()  # a tree a killed run left half moved into place answers nothing
    _note_other_tree(out_dir, pytorch_src)
    parsed = parse_symbol(symbol, demangle(symbol))
    with out_dir.held():  # no run replaces the tree while it is searched
        answer = whereis(parsed, out_dir, pytorch_src, cmake_list)
    click.echo(json.dumps(to_json(answer), indent=2) if as_json else render_text(answer, str(out)), nl=as_json)
    sys.exit(answer.exit_code)


def _note_other_tree(out: OutDir, pytorch_src: Path | None) -> None:
    """One line when ``--pytorch-src`` names another tree than the one the port in ``out`` was made from."""
    from musaport.port.request import Request

    recorded = Request.load(out) if pytorch_src is not None else None
    if recorded is not None and recorded.source != pytorch_src:
        click.echo(f"musaport: note: the port in this --out was made from {recorded.source}; "
                   f"using {pytorch_src} as given here", err=True)


@main.command("diff", short_help="The CUDA to MUSA diff of an operator's files.")
@click.argument("op")
@click.option("--out", type=AbsPath(path_type=Path), default=Path("build"), show_default=True,
              help="The --out of a previous 'musaport run'; files it holds no port of are ported in memory.")
@click.option("--pytorch-src", type=AbsPath(path_type=Path, exists=True, file_okay=False), default=None,
              help="PyTorch tree (default: the one OUT was ported from, else the bundled fixture tree).")
@click.option("--stat", is_flag=True, help="Per file: lines added and removed, and the rules that fired.")
@click.option("--no-color", is_flag=True, help="Plain text, rule ids in a column.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("-U", "--unified", "context", type=click.IntRange(min=0), default=3, show_default=True,
              help="Lines of context around each change.")
@with_packs
def diff_cmd(op, out, pytorch_src, stat, no_color, as_json, context, rules, packs) -> None:
    """The CUDA → MUSA diff of OP's files, each changed line with its rule ids, then its registration."""
    import json

    from musaport.diff.operator import default_source, op_diff
    from musaport.diff.render import render_plain, render_rich, render_stat, to_json

    out_dir = OutDir(out)
    given = click.get_current_context().get_parameter_source("out") is not click.core.ParameterSource.DEFAULT
    if given and pytorch_src is None:  # else a typo in --out would silently diff the bundled fixture tree
        out_dir.require_port()
    source = pytorch_src or default_source(out_dir, default_fixture_tree())
    if out_dir.state.is_dir():
        _note_other_tree(out_dir, pytorch_src)
    ruleset, layout = _run_rules(out_dir, rules, packs)
    with out_dir.held():  # no run replaces the tree while it is diffed
        diff = op_diff(op, source, out_dir, ruleset, context, layout)
    if as_json:
        click.echo(json.dumps(to_json(diff), indent=2))
    elif stat:
        click.echo(render_stat(diff), nl=False)
    elif no_color or not console().is_terminal:
        click.echo(render_plain(diff), nl=False)
    else:
        render_rich(diff, console())


def _run_rules(out: OutDir, rules: tuple[Path, ...], packs: tuple[str, ...]):
    """The rules and layout of the run that made ``out`` (``port.request``); ``--rules``/``--pack``
    given here replace its packs, with one line saying so. A port no request was recorded for
    (an older musaport) gets the bundled packs and layout, as before."""
    from dataclasses import replace

    from musaport.port.request import Request, differs
    from musaport.rewrite.packs import load_packs

    recorded = Request.load(out) if out.state.is_dir() else None
    given = _packs(rules, packs) if (rules or packs or recorded is None) else None
    note = differs(recorded, given)
    if note:
        click.echo(f"musaport: note: {note}", err=True)
    if recorded is None:
        return load_packs(given), None
    request = replace(recorded, packs=given) if given is not None else recorded
    return request.load_rules(), request.load_layout()


@main.command("doctor", short_help="What each command needs and what is missing.")
@click.option("--pytorch-src", type=AbsPath(path_type=Path, exists=True, file_okay=False), default=None,
              help="Also check that this PyTorch tree's own torchgen imports here (run and check need it).")
def doctor_cmd(pytorch_src) -> None:
    """What each command needs, what is missing, and the command that installs it (exit 1 if anything is)."""
    from musaport.doctor import diagnose, exit_code, install_commands, render_rows

    statuses = diagnose(pytorch_src)
    table = Table(title="musaport doctor", title_justify="left")
    table.add_column("what (needed by)")
    table.add_column("status", no_wrap=True)
    table.add_column("detail", **COPYABLE)
    table.add_column("install", **COPYABLE)
    for what, status, detail, install in render_rows(statuses):
        style = {"MISSING": "bold red", "ok": "green"}.get(status, "yellow")
        table.add_row(what, f"[{style}]{status}[/]", detail, install)
    console().print(table)
    commands = install_commands(statuses)
    if commands:
        click.echo("to install what is missing:\n" + "\n".join(f"  {c}" for c in commands))
    sys.exit(exit_code(statuses))


def _require(command: str, pytorch_src: Path | None = None) -> None:
    """Fail with one line when ``command`` lacks a tool it needs (naming ``musaport doctor``)."""
    from musaport.doctor import require

    missing = require(command, pytorch_src)
    if missing:
        fail(missing)
