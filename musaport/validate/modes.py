"""The modes of ``musaport validate``, each one unit: its flag, its options, its work, its result.

A mode is a class (as LibCST's ``CodemodCommand``): ``name`` gives its flag
(``--compile``) and the name ``musaport doctor`` knows it by (``validate
--compile``), ``owns`` the options only it takes, and :meth:`Mode.run` does
the work, prints a line per item, writes the mode's own report and returns a
:class:`Result`, which carries the exit code.  The command line knows modes
only through :data:`MODES`, and makes their flags and :class:`Option` values from
it: adding one (the OpInfo mode is next) is one class and one entry in that
tuple.
"""

from __future__ import annotations

import shlex
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar

from musaport.errors import EXIT_FAILED, EXIT_OK, LoadError, ToolError
from musaport.outdir import OutDir


@dataclass(frozen=True)
class Result:
    """What a mode found: how many items passed of how many, the closing line, the report it wrote.

    ``empty_fails``: no item at all is a failure (``--run`` with patterns that select no kernel).
    """

    passed: int
    total: int
    summary: str
    report: Path | None = None
    empty_fails: bool = False

    @property
    def exit_code(self) -> int:
        if self.passed != self.total or (self.empty_fails and not self.total):
            return EXIT_FAILED
        return EXIT_OK


@dataclass(frozen=True)
class Invocation:
    """One ``validate`` command as every mode sees it: the port, the patterns, the jobs, the options."""

    out: OutDir
    patterns: tuple[str, ...]
    jobs: int
    options: dict[str, Any] = field(default_factory=dict)
    echo: Callable[[str], None] = print  # one line on stdout
    log: Callable[[str], None] = print  # progress on stderr
    console: Any = None  # a rich console, for modes that draw a table
    progress: Any = None  # where long phases are said (validate.compile.Progress; None: nowhere)


@dataclass(frozen=True)
class Option:
    """A command-line option of one mode, as data (the CLI makes the click option of it).

    ``kind``: ``flag``, ``text``, ``path`` (made absolute) or ``folder`` (an existing one, made absolute).
    """

    decls: tuple[str, ...]
    help: str
    kind: str = "flag"
    multiple: bool = False
    metavar: str | None = None
    hidden: bool = False  # an old spelling kept only to say what it is now (see ``renamed``)
    renamed_to: str = ""


class Mode:
    """One validate mode. Subclasses set the class attributes and implement :meth:`run`."""

    name: ClassVar[str]  # the flag, without its dashes
    help: ClassVar[str]
    options: ClassVar[tuple[Option, ...]] = ()  # its own command-line options
    owns: ClassVar[tuple[str, ...]] = ()  # options only this mode takes (their click names)
    owns_why: ClassVar[str] = ""  # said when one of them comes with another mode
    takes_patterns: ClassVar[bool] = True
    no_patterns_why: ClassVar[str] = ""
    default_patterns: ClassVar[tuple[str, ...]] = ()

    @property
    def flag(self) -> str:
        return f"--{self.name}"

    @property
    def command(self) -> str:
        """The name ``musaport doctor`` gives what this mode needs."""
        return f"validate {self.flag}"

    def misuse(self, given: dict[str, Any], patterns: tuple[str, ...], chosen: "Mode") -> str:
        """Why these options cannot go with the ``chosen`` mode ('' when they can)."""
        if chosen is not self and any(given.get(o) and o not in chosen.owns for o in self.owns):
            flags = [f"--{o.replace('_', '-')}" for o in self.owns]
            verb = "goes" if len(flags) == 1 else "go"
            named = flags[0] if len(flags) == 1 else f"{', '.join(flags[:-1])} and {flags[-1]}"
            return f"{named} {verb} with {self.flag}" + (f" ({self.owns_why})" if self.owns_why else "")
        if chosen is self and patterns and not self.takes_patterns:
            return f"{self.flag} takes no file patterns" + (f" ({self.no_patterns_why})" if self.no_patterns_why else "")
        return ""

    def run(self, request: Invocation) -> Result:
        raise NotImplementedError


class CompileMode(Mode):
    name = "compile"
    help = "Syntax-check ported translation units with clang."
    options = (
        Option(("--host-only",), "Skip the device-side pass."),
        Option(("--no-pch",), "Parse every TU from scratch instead of from the precompiled common prelude (slower)."),
        Option(("--torch",), "OUT is an extension's port (run --src): compile it against this PyTorch, the --out "
               "of 'run --pytorch-src' or an installed torch's include folder.", kind="path"),
    )
    owns = ("torch",)
    owns_why = "an extension's port compiled against a PyTorch"
    default_patterns = ("*.mu",)

    def run(self, request: Invocation) -> Result:
        from musaport.outdir import VALIDATE_MD
        from musaport.validate.compile.compile import (build_list_outcomes, missing_headers_note, render_reports,
                                                       validate_compile)

        o = request.options
        out = request.out
        passes = ("host",) if o.get("host_only") else ("host", "device")
        outcomes = validate_compile(out, request.patterns or self.default_patterns, request.jobs, passes,
                                    not o.get("no_pch"), o.get("torch"), request.progress)
        for c in outcomes:
            request.echo(f"{'PASS' if c.ok else 'FAIL'} {c.file}" + ("" if c.ok else f" [{c.failed_pass}] {c.error}"))
        render_reports(out, outcomes)
        passed = sum(c.ok for c in outcomes)
        built = build_list_outcomes(out, outcomes)
        report = out.top(VALIDATE_MD)
        note = missing_headers_note(out, outcomes)  # the bundled fixture tree has no ATen headers, say so
        return Result(passed, len(outcomes), f"{passed} of {len(outcomes)} passed; in the default build list "
                      f"{sum(c.ok for c in built)} of {len(built)}; report: {report}"
                      + (f"\nnote: {note}" if note else ""), report)


class RunMode(Mode):
    name = "run"
    help = "Port, build and run the fixture kernels on the CPU."

    def run(self, request: Invocation) -> Result:
        from musaport.validate.run.kernels import validate_run, write_run_report

        outcomes = validate_run(request.out, request.patterns, request.jobs, request.progress)
        for k in outcomes:
            request.echo(f"{'PASS' if k.ok else 'FAIL'} {k.name} ({k.stage}) {k.detail}")
        report = write_run_report(request.out, outcomes)
        passed = sum(k.ok for k in outcomes)
        return Result(passed, len(outcomes), f"{passed} of {len(outcomes)} kernels passed", report, empty_fails=True)


class BackendMode(Mode):
    name = "backend"
    help = ("Build the port into a PrivateUse1 backend against the real libtorch of the tree's release "
            "and run PyTorch operators on it (CPU), compared with PyTorch's own CPU results.")
    options = (
        Option(("--samples", "samples"), "--backend: the samples to run, by name (default: every sample in "
               "rules/backend/ops.yaml).", kind="text", multiple=True, metavar="NAME[,NAME...]"),
        Option(("--libtorch",), "--backend: use this torch package (its folder, with include/ and lib/) instead of "
               "fetching the wheel of the tree's release into the user cache.", kind="folder"),
    )
    owns = ("samples", "libtorch")
    takes_patterns = False
    no_patterns_why = "select samples with --samples"

    def run(self, request: Invocation) -> Result:
        from musaport.validate.backend.backend import Status, validate_backend, write_report
        from musaport.validate.backend.render import backend_table
        from musaport.validate.backend.samples import load_catalog
        from musaport.validate.torchwheel import libtorch as lt

        out, o = request.out, request.options
        out.require_port()
        names = tuple(n.strip() for item in o.get("samples") or () for n in item.split(",") if n.strip())
        catalog = load_catalog()
        chosen = catalog.select(names)
        version = lt.release(Path(out.porting_report()["source"]))
        given = o.get("libtorch")
        torch = lt.given(given, version) if given else lt.fetch(version, log=request.log)
        results, figures = validate_backend(out, catalog, chosen, torch, request.jobs, log=request.log)
        report = write_report(out, version, results, figures)
        backend_table(results, request.console)
        passed = sum(r.status == Status.PASS for r in results)
        return Result(passed, len(results), f"{passed} of {len(results)} operators pass on PrivateUse1 with libtorch "
                      f"{version} (build {figures['seconds']} s); report: {report}", report)


class OpinfoMode(Mode):
    """PyTorch's OpInfo samples (and with --pytorch-tests its device-generic test files) on the port loaded
    into the release's torch as the ``musa`` device; the work is in ``opinfo.run``.

    Exit code: 0 when everything that ran passed (every entry that ran, in every dtype it ran; every test
    file ran with no failure, error or timeout), 1 otherwise and when nothing ran."""

    name = "opinfo"
    help = ("Load the port into the release's torch as the 'musa' device and run PyTorch's OpInfo samples on it "
            "against the CPU (test_compare_cpu's comparison).")
    options = (
        Option(("--ops", "ops"), "--opinfo: the OpInfo entries to run (default: every entry whose operators the "
               "port registers).", kind="text", multiple=True, metavar="OP[,OP...]"),
        Option(("--pytorch-tests",), "--opinfo: also run PyTorch's device-generic test files (test_ops.py, ...) "
               "on the device."),
        Option(("--test-files", "test_files"), "--opinfo --pytorch-tests: the files of the tree's test/ folder "
               "to run, or a named list: 'core' (the 30 core files the README lists), 'default' (test_ops.py and "
               "the eight device-generic files; what runs without this option).", kind="text",
               multiple=True, metavar="FILE[,FILE...]"),
        Option(("--test-timeout",), "--opinfo --pytorch-tests: stop a test file after this many seconds; "
               "running the command again goes on where it stopped (default: none, each file runs to its "
               "end; a single test stops after 300 s).", kind="text", metavar="SECONDS"),
        Option(("--shard",), "--opinfo: run shard I of N (1-based): a hash-chosen Nth of the OpInfo entries and, "
               "with --pytorch-tests, of the test files balanced by the previous run's times (files over 600 s "
               "split), as PyTorch's CI shards; merge the N reports with --merge-reports.", kind="text",
               metavar="I/N"),
        Option(("--shard-timings", "shard_timings"), "--opinfo --shard: the validate_opinfo_report.json whose file times "
               "balance the shards (default: the one in --out, if any).", kind="path", metavar="FILE"),
    )
    owns = ("ops", "pytorch_tests", "test_files", "test_timeout", "shard", "shard_timings")
    owns_why = "--backend picks its samples with --samples"
    takes_patterns = False
    no_patterns_why = "select OpInfo entries with --ops"

    def run(self, request: Invocation) -> Result:
        from musaport.validate.opinfo.tests import FILE_TIMEOUT, TEST_FILES, expand_file_lists

        out, o = request.out, request.options
        timeout = _seconds(o.get("test_timeout"), FILE_TIMEOUT)
        for given in ("test_timeout", "test_files"):
            if o.get(given) and not o.get("pytorch_tests"):
                raise LoadError(f"--{given.replace('_', '-')} goes with --pytorch-tests")
        given_files = tuple(n.strip() for item in o.get("test_files") or () for n in item.split(",") if n.strip())
        test_files = expand_file_lists(given_files)
        shard, timings = _shard(out, o)
        out.require_port()

        from rich.console import Console

        from musaport.validate.device.build import build_device
        from musaport.validate.opinfo.render import progress_display, summary
        from musaport.validate.opinfo.run import from_device_build, validate_opinfo
        from musaport.validate.opinfo.verdict import RUN
        from musaport.validate.torchwheel import libtorch as lt
        from musaport.validate.torchwheel import torchenv

        names = tuple(n.strip() for item in o.get("ops") or () for n in item.split(",") if n.strip())
        source = Path(out.porting_report()["source"])
        tests = source / "test"
        missing = [n for n in test_files if not (tests / n).is_file()]
        if missing:
            raise LoadError(f"{tests / missing[0]}: no such test file (--test-files)")
        release = lt.release(source)
        try:
            env = torchenv.fetch(release, log=request.log)
        except torchenv.FetchError as exc:
            raise ToolError(str(exc)) from None
        command = ("musaport validate --opinfo --out OUT" + (f" --ops {','.join(names)}" if names else "")
                   + (" --pytorch-tests" if o.get("pytorch_tests") else "")
                   + (f" --test-files {','.join(given_files)}" if given_files else "")
                   + (f" --shard {shard[0] + 1}/{shard[1]}" if shard else ""))
        err = Console(stderr=True)
        with progress_display(err, request.log) as progress:
            outcome = validate_opinfo(
                out, env.python, lambda ops: from_device_build(build_device(out, ops, request.jobs, request.log)),
                names, request.jobs, bool(o.get("pytorch_tests")), test_files=test_files or TEST_FILES,
                file_timeout=timeout, progress=progress,
                log=request.log, command=command, shard=shard, timings=timings)
        summary(outcome.doc, request.console or Console())
        s, files = outcome.doc["summary"], outcome.doc["test_files"]
        ok_files = sum(1 for f in files.values() if f.get("ran", True) and not f.get("failed")
                       and not f.get("cuda_branch") and not f.get("cpu_too") and not f.get("errors")
                       and not f.get("timeout"))
        passed, total = s["pass"] + ok_files, sum(s[k] for k in RUN) + len(files)
        line = (f"{s['pass']} of {s['ran']} OpInfo entries that ran pass on musa with torch {outcome.doc['torch_version']}"
                + (f"; test files without a failure: {ok_files} of {len(files)}" if files else "")
                + f"; report: {outcome.md_path}")
        # The same rule as opinfo.verdict.exit_code: every entry that ran passed, every file ran clean.
        return Result(passed, total, line, outcome.json_path, empty_fails=True)


def _shard(out: OutDir, o: dict[str, Any]) -> tuple[tuple[int, int] | None, dict[str, float]]:
    """``--shard`` as (index, count) (None: not given) and the file times that balance it."""
    import json

    from musaport.outdir import VALIDATE_OPINFO_JSON
    from musaport.validate.opinfo.shards import file_seconds, parse_shard

    if o.get("shard_timings") and not o.get("shard"):
        raise LoadError("--shard-timings goes with --shard")
    if not o.get("shard"):
        return None, {}
    shard = parse_shard(o["shard"])
    given = o.get("shard_timings")
    path = Path(given) if given else out.top(VALIDATE_OPINFO_JSON)
    if not path.is_file():
        if given:
            raise LoadError(f"{path}: no such file (--shard-timings)")
        return shard, {}
    try:
        return shard, file_seconds(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, AttributeError) as exc:
        raise LoadError(f"{path}: not a validate_opinfo_report.json report ({exc})") from None


class MergeReportsMode(Mode):
    """``--merge-reports``: the reports of ``--opinfo --shard I/N`` runs (one per machine) as one report."""

    name = "merge-reports"
    help = ("Merge the validate_opinfo_report.json reports of 'validate --opinfo --shard I/N' runs (PATTERNS: their "
            "--out folders or report files) into one report in --out.")
    no_patterns_why = ""

    @property
    def command(self) -> str:
        return ""  # reads JSON and writes it: nothing for musaport doctor to check

    def run(self, request: Invocation) -> Result:
        import json

        from musaport.outdir import VALIDATE_OPINFO_JSON, VALIDATE_OPINFO_MD, write_atomic
        from musaport.validate.opinfo.report import render_markdown
        from musaport.validate.opinfo.shards import merge
        from musaport.validate.opinfo.verdict import RUN

        if not request.patterns:
            raise LoadError("--merge-reports: give the shards' --out folders (or their validate_opinfo_report.json)")
        docs, seen = [], {}
        for given in request.patterns:
            path = Path(given)
            path = path / VALIDATE_OPINFO_JSON if path.is_dir() else path
            try:
                doc = json.loads(path.read_text(encoding="utf-8"))
            except OSError:
                raise LoadError(f"{path}: no such report (run 'musaport validate --opinfo --shard I/N' there)") from None
            except ValueError as exc:
                raise LoadError(f"{path}: not a validate_opinfo_report.json report ({exc})") from None
            if not isinstance(doc, dict) or "ops" not in doc:
                raise LoadError(f"{path}: not a validate_opinfo_report.json report")
            shard = str((doc.get("figures") or {}).get("shard", ""))
            if not shard:
                raise LoadError(f"{path}: not the report of a --shard run")
            if shard in seen:
                raise LoadError(f"{path}: shard {shard} is also {seen[shard]}")
            seen[shard] = path
            docs.append(doc)
        counts = {s.split("/")[1] for s in seen}
        count = int(next(iter(counts)))
        missing = [f"{i}/{count}" for i in range(1, count + 1) if f"{i}/{count}" not in seen]
        if len(counts) > 1 or missing:
            raise LoadError("--merge-reports: the shards do not make one run: "
                            + (f"missing {', '.join(missing)}" if missing else f"shards of {' and '.join(sorted(counts))}"))
        merged = merge(docs)
        request.out.root.mkdir(parents=True, exist_ok=True)
        json_path, md_path = request.out.top(VALIDATE_OPINFO_JSON), request.out.top(VALIDATE_OPINFO_MD)
        write_atomic(json_path, (json.dumps(merged, indent=2) + "\n").encode())
        command = "musaport validate --merge-reports --out OUT " + " ".join(str(p) for p in request.patterns)
        write_atomic(md_path, render_markdown(merged, command).encode())
        s, files = merged["summary"], merged["test_files"]
        ok_files = sum(1 for f in files.values() if f.get("ran", True) and not f.get("failed")
                       and not f.get("errors") and not f.get("timeout"))
        passed, total = s["pass"] + ok_files, sum(s[k] for k in RUN) + len(files)
        line = (f"{count} shards merged: {s['pass']} of {s['ran']} OpInfo entries that ran pass"
                + (f"; test files without a failure: {ok_files} of {len(files)}" if files else "")
                + f"; report: {md_path}")
        return Result(passed, total, line, json_path, empty_fails=True)


class ExtensionMode(Mode):
    """An extension's port (OUT, of ``run --src``) compiled against the real torch, built by its ported
    setup.py into a module that loads with the ``musa`` device of ``--torch``, and tested there with the
    project's own tests; the work is in ``validate.extension``. Exit code 0 only when every file compiles,
    the build passes, every module loads, every ported kernel is in a module and every test file ran clean."""

    name = "extension"
    help = ("OUT is an extension's port (run --src): compile it against the real torch, build it with its "
            "ported setup.py against the musa device of --torch, load its modules and run its own tests on musa.")
    options = (
        Option(("--build-env", "build_env"), "--extension: a variable for the project's build and tests, "
               "NAME=VALUE (FORCE_CUDA=1 where setup.py asks for it).", kind="text", multiple=True,
               metavar="NAME=VALUE"),
        Option(("--tests", "tests"), "--extension: the project's test files, as patterns (default: test_*.py "
               "and *_test.py anywhere in the project).", kind="text", multiple=True, metavar="PATTERN"),
        Option(("--test-deps", "test_deps"), "--extension: a package the project's tests import that the torch "
               "environment lacks, as a pip requirement (einops, torchvision==0.21.0); installed with what it needs "
               "that the environment lacks (never the environment's own), under OUT/.musaport/extension/deps.",
               kind="text", multiple=True, metavar="REQUIREMENT"),
        Option(("--with-extension", "with_extension"), "--extension: another extension's OUT that 'validate "
               "--extension' built against the same --torch, whose package the project's tests import (mamba's tests "
               "import causal-conv1d); its build tree goes on the tests' path after the project's own.", kind="folder",
               multiple=True, metavar="EXT_OUT"),
        Option(("--test-select", "test_select"), "--extension: run only the tests this pytest -k expression "
               "selects (for parametrized suites too large for the emulated device); the report gives it.",
               kind="text", metavar="EXPRESSION"),
        Option(("--src", "src"), "--extension: port this extension project into OUT first, as 'musaport run "
               "--src PROJECT --out OUT' does, so that one command is the whole proof (port, compile, build, "
               "tests).", kind="folder", metavar="PROJECT"),
        Option(("--patch", "patch"), "--extension: a hand edit of the port (a unified diff against "
               "OUT/generated_cuda_compatible, as git diff writes it) laid over it for the build and tests, in "
               "the order given; the port itself is left as it is.", kind="path", multiple=True, metavar="FILE"),
    )
    owns = ("torch", "build_env", "tests", "test_deps", "with_extension", "test_select", "patch", "src")
    owns_why = "an extension's port proven against a PyTorch port's musa device"
    takes_patterns = False
    no_patterns_why = "select its test files with --tests"

    def run(self, request: Invocation) -> Result:
        from musaport.validate.extension.port import port_project
        from musaport.validate.extension.run import check_companions, pytorch_port, summary_line, validate_extension

        o = request.options
        env = {}
        for item in o.get("build_env") or ():
            name, eq, value = item.partition("=")
            if not eq or not name.isidentifier():
                raise LoadError(f"--build-env {item!r}: expected NAME=VALUE")
            env[name] = value
        tests = tuple(p.strip() for item in o.get("tests") or () for p in item.split(",") if p.strip())
        deps = tuple(d.strip() for d in o.get("test_deps") or () if d.strip())
        patches = tuple(Path(p) for p in o.get("patch") or ())
        select = (o.get("test_select") or "").strip()
        for dep in deps:
            if dep.startswith("-"):
                raise LoadError(f"--test-deps {dep!r}: expected a requirement (a package name, maybe with a "
                                "version), not a pip option")
        src = o.get("src")
        mates = tuple(Path(p) for p in o.get("with_extension") or ())
        command = ("musaport validate --extension" + (" --src PROJECT" if src else "") + " --out EXT_OUT --torch PT_OUT"
                   + "".join(f" --build-env {k}={v}" for k, v in env.items())
                   + "".join(f" --tests {t}" for t in tests) + "".join(f" --test-deps {d}" for d in deps)
                   + "".join(f" --with-extension {p.name}" for p in mates)
                   + (f" --test-select {shlex.quote(select)}" if select else "")
                   + "".join(f" --patch {Path(p).name}" for p in patches))
        ported = None
        if src:
            # a wrong --torch or --with-extension is said before anything is written
            check_companions(mates, pytorch_port(o.get("torch")), request.out)
            request.log(f"musaport: phase 1 of 4: port {src} into {request.out.root} (as musaport run --src)")
            done = port_project(Path(src), request.out, request.jobs)
            request.echo(done.line())
            ported = asdict(done)
        outcome = validate_extension(request.out, o.get("torch"), request.jobs, env, tests, request.log,
                                     request.echo, request.progress, command, deps, patches, select, ported, mates)
        return Result(outcome.passed, outcome.total, summary_line(outcome), outcome.md_path, empty_fails=True)


def _seconds(text: Any, default: float | None) -> float | None:
    if text in (None, ""):
        return default
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if value < 1:
        raise LoadError(f"--test-timeout: {text!r} is not a number of seconds (at least 1)")
    return value


MODES: tuple[Mode, ...] = (CompileMode(), RunMode(), BackendMode(), OpinfoMode(), MergeReportsMode(),
                           ExtensionMode())


def renamed(options: dict[str, Any]) -> list[tuple[str, str]]:
    """(old spelling, what it is now) for each renamed option given; each is removed from ``options``."""
    found = []
    for mode in MODES:
        for o in mode.options:
            dest = o.decls[-1]
            if o.renamed_to and dest in options:
                if options.pop(dest):
                    found.append((o.decls[0], o.renamed_to))
    return found


def choose(flags: dict[str, bool], options: dict[str, Any], patterns: tuple[str, ...]) -> Mode:
    """The one mode the flags name; a LoadError when there is not exactly one, or an option or pattern
    goes with another mode."""
    chosen = [m for m in MODES if flags.get(m.name.replace("-", "_"))]
    if len(chosen) != 1:
        names = [m.flag for m in MODES]
        raise LoadError(f"give exactly one of {', '.join(names[:-1])} or {names[-1]}")
    for mode in MODES:
        problem = mode.misuse(options, patterns, chosen[0])
        if problem:
            raise LoadError(problem)
    return chosen[0]
