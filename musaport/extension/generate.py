"""``musaport run --src``: an extension project ported with the same engine as PyTorch.

The discovered selection becomes the run's layout, the include rename map
becomes rules appended to the packs (bundled, then ``rules/extension/``),
and :class:`ExtensionFiles` is the run's generation step: it ports the build
files (``setup.py``, ``CMakeLists.txt``) and writes the CMake source lists.
A project is not PyTorch, so there is no ``native_functions.yaml`` and no
registration is generated.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from musaport.extension.buildfiles import NotPorted, Paths, port_build_file
from musaport.extension.discover import Discovery, discover, pyproject_builds
from musaport.extension.includes import follow_rules, include_tables
from musaport.extension.rules import guard_existing_musa, project_rules
from musaport.jsoncache import stamps_digest
from musaport.ops.emit_cmake import sources_cmake
from musaport.ops.emit_registration import header
from musaport.outdir import CMAKE_FILE, OutDir
from musaport.port.file import FileResult, FileStatus
from musaport.port.layout import Layout
from musaport.port.config import Config, Generated, Options, load_config
from musaport.rewrite.rules import Rule
from musaport.rewrite.transforms import rename_dirs
from musaport.pyport.port import PythonPort, of_discovery, with_python
from musaport.port.layout import Found


@dataclass(frozen=True)
class ExtensionFiles:
    """The generation step of an extension run: ported build files and the CMake source lists."""

    discovery: Discovery
    # The project's Python (musaport.pyport): how each .py is ported, and which files.
    python: PythonPort | None = None
    python_files: tuple[Found, ...] = ()

    def porter(self) -> PythonPort | None:
        """The per-file port of the project's .py files (the workers call it before the C++ port)."""
        return self.python

    def extra_rules(self) -> list[Rule]:
        """The include rename map of this tree, as rules in include context, then what the project decides
        for itself (extension.project: its names, its registry macros, the includes found by their trailing
        path, the files with MUSA code of their own), as rules and flags."""
        d = self.discovery
        where = f"{d.root}: computed from the discovered files"
        return follow_rules(include_tables(d.includes, d.renames(), d.roots, d.files), where) + \
            project_rules(d, where)

    def describe(self, source: Path, layout: Layout) -> str:
        """The build files' stamps (``jsoncache.stamp``): a changed setup.py is ported again."""
        return f"extension\0{stamps_digest((rel, source / rel) for rel in self.discovery.build_files)}"

    def observer(self) -> None:
        """The generated files need nothing from the sources' parse."""

    def prepare(self, source: Path, out: OutDir) -> None:
        """Nothing runs in the background for an extension."""

    def files(self, source: Path, results: list[FileResult], out: OutDir, config: Config) -> Generated:
        """The ported build files and musaport_sources.cmake; a build file that cannot be read or parsed is a
        problem (the run exits 1), never a guess."""
        d = self.discovery
        paths = Paths.of(d.renames(), d.files)
        ported, problems = [], []
        for rel in d.build_files:
            try:
                ported.append(port_build_file(source, rel, rename_dirs(rel), paths))
            except SyntaxError as exc:
                problems.append(f"{rel}:{exc.lineno or 0}: not ported: cannot be read as Python ({exc.msg})")
            except (OSError, UnicodeError) as exc:
                problems.append(f"{rel}: not ported: cannot be read ({exc})")
            except NotPorted as exc:
                problems.append(f"{rel}: not ported: {exc}")
        if not d.build_files:  # a build declared only in pyproject.toml names the CUDA sources the port renamed
            problems += [f"{t}: not ported: the build names the CUDA sources here, and musaport ports setup.py and "
                         "CMakeLists.txt; name the ported sources (musaport_sources.cmake lists them) by hand"
                         for t in pyproject_builds(d.files, source)]
        files = {r.out: r.data or b"" for r in ported}
        outs = [r.out for r in results if r.status != FileStatus.FAILED]
        roots = tuple(rename_dirs(f"{r}/x").rpartition("/")[0] if r else "" for r in d.roots)
        lists = sources_cmake(outs, [], header(f"the port of {source.name}"), include_dirs=roots)
        files[CMAKE_FILE] = lists.encode()
        return Generated(dict(sorted(files.items())), tuple(problems),
                         tuple(_without_data(r) for r in ported))


def _without_data(result: FileResult) -> FileResult:
    return replace(result, data=None)


def extension_config(opts: Options, discovery: Discovery) -> Config:
    """``port.config.load_config`` with the discovered layout.

    The layout's digest is the discovery's (selection, renames, include
    roots, each file's includes), so the cache key changes whenever the
    rename map does, and every file is ported again with the new map.
    """
    layout = discovery.layout()
    step = opts.generation
    if isinstance(step, ExtensionFiles) and step.python is not None:
        layout = with_python(layout, step.python_files, step.python)
    config = load_config(opts, layout)
    # A file with a MUSA branch of its own is taken out of the rules that would bypass it; the key already
    # differs (the discovery, and so the layout digest, lists those files).
    return replace(config, rules=guard_existing_musa(config.rules, discovery))


def extension_options(source: Path, out: Path, packs: tuple[Path, ...], jobs: int,
                      collision: str = "error") -> tuple[Options, Config]:
    """Options and config of ``musaport run --src SOURCE``; a bad tree (or a renamed output landing on a
    project file, unless ``collision`` picks which wins) is a LoadError."""
    discovery = discover(source, out, collision)
    python, python_files = of_discovery(source, discovery)
    # The layout is discovered, not read from a file: ``layout`` names the tree it was discovered in.
    opts = Options(source=source, out=out, layout=source, packs=packs, jobs=jobs,
                   generation=ExtensionFiles(discovery, python, python_files))
    return opts, extension_config(opts, discovery)
