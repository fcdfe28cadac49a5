"""Phase 2 of ``validate --extension``: the ported project built as its ported ``setup.py`` says, then imported.

The build tree (``OUT/.musaport/extension/src``) is the project's own files
with the port laid over them (each ported file at its ported path, the file
it replaced left out), in the CPU view the ``musa`` device is built from:
launches turned into calls, device branches that only assert on the host
taken (``validate.cpu_view``).  The ported ``setup.py`` runs there with the
torch environment's Python (``build_ext --inplace``), a stand-in
``torch_musa`` package on its path (``templates/extension``):
``MUSAExtension`` and ``BuildExtension`` are torch's own ``CppExtension`` and
``BuildExtension`` with ``.mu`` compiled by the device build's flags through
its compiler cache, and the device's library linked.  Then every module the
build made is loaded with the device in the same torch: a kernel the build
files dropped is an undefined symbol here, never a silent pass.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from musaport import children
from musaport.errors import LoadError
from musaport.extension.buildfiles import JIT_BUILD  # the finding a run leaves where code builds on import
from musaport.ops.emit_registration import header
from musaport.outdir import (EXTENSION_BUILD_LOG, EXTENSION_DEPS, EXTENSION_DEPS_RECORD, EXTENSION_JIT,
                             EXTENSION_JIT_RECORD, OutDir, write_atomic)
from musaport.resources import render_template, user_cache
from musaport.validate.backend.backend import ALIASING_FLAGS, FMA_FLAGS, MU_FLAGS, SHIM, host_has_fma
from musaport.validate.cpu import shared_alias
from musaport.validate.cpu import view as cpu_view
from musaport.validate.device.build import DEVICE_FLAGS, LOADER
from musaport.validate.device.cmake_build import tool
from musaport.validate.extension.patches import Patched, apply_patches, deleted_by

DEVICE_SOURCES = (".mu", ".muh")  # what a MUSA compiler reads with a device pass

SKIPPED_DIRS = {".git", "build", "dist", "__pycache__", ".eggs"}
BUILD_SECONDS = 3600.0
# Flags every MUSA source of the device is compiled with besides the language and optimisation (backend's
# BASE_FLAGS less what a project's own build sets).
COMMON_FLAGS = ("-DAT_PER_OPERATOR_HEADERS", "-DC10_MUSA_NO_CMAKE_CONFIGURE_FILE")
_ERROR = re.compile(r"(?:^|\s)(?:fatal )?error:|^\w*Error\b|^error\b", re.IGNORECASE)
_BUILDING = re.compile(r"^building '([\w.]+)' extension")
_SOURCE = re.compile(r"\s(\S+\.(?:mu|cu|cpp|cc|cxx|c))\s+-o\s")  # a compiler call: SOURCE -o OBJECT


@dataclass(frozen=True)
class Device:
    """The ``musa`` device an extension builds against: its library, loader folder and CPU view."""

    library: Path
    loader_dir: Path
    view: Path
    python: Path
    torch_include: Path  # the release wheel's torch/include
    release: str

    @property
    def shim(self) -> Path:
        """The shim the device was compiled with, mirrored beside its library: the extension compiles
        with the same headers, under the same compiler-cache base folder."""
        return self.loader_dir / SHIM


@dataclass
class Module:
    """One module the build made: its file, the sources compiled into it, whether it loads with the device."""

    name: str
    file: str = ""
    sources: list[str] = field(default_factory=list)
    loaded: bool = False
    error: str = ""
    missing: list[str] = field(default_factory=list)
    defined_in: dict[str, list[str]] = field(default_factory=dict)  # missing symbol → ported files defining it
    jit: bool = False  # built by the project's code as it ran (torch_musa's load), not by setup.py
    inline: bool = False  # a JIT build of code in Python strings (load_inline): no source of the tree


@dataclass
class BuildResult:
    ok: bool
    command: str
    error: str = ""
    log: str = ""
    modules: list[Module] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # ported MUSA sources no module compiled
    patches: list[dict] = field(default_factory=list)  # the hand edits laid over the port: patch, files
    left_out_flags: list[str] = field(default_factory=list)
    seconds: float = 0.0


def build_tree(out: OutDir, state: Path, patches: tuple[Path, ...] = ()) -> tuple[Path, Patched]:
    """The project with its port laid over it, and ``patches`` (a team's hand edits, see ``patches``) over
    both, in the CPU view; refreshed in place (unchanged files keep their mtime); every file not wanted any
    more is removed, the modules of an earlier build with them."""
    source = out.source()
    if source is None or not source.is_dir():
        raise LoadError(f"{out.report_json}: the project it was ported from is gone ({source})")
    dest = state / "src"
    ported = out.out_paths()
    outputs = set(ported.values())
    project = {p.relative_to(source).as_posix(): p for p in _project_files(source, out.root)}
    shown = {rel: p for rel, p in project.items() if rel not in ported and rel not in outputs}
    shown.update({rel: out.tree / rel for rel in outputs})

    def current(rel: str) -> bytes | None:
        return shown[rel].read_bytes() if rel in shown else None

    patched = apply_patches(patches, current, state / "patch-work")
    gone = deleted_by(patched)
    wanted: set[str] = set()
    for rel, path in sorted(shown.items()):
        if rel in gone:
            continue
        data = patched.files[rel] if rel in patched.files else path.read_bytes()
        if rel in outputs:
            try:  # a device source's architecture branches as the emulated device takes them
                data = cpu_view.cpu_bytes(data, cpu_view.EMULATED_ARCH if rel.endswith(DEVICE_SOURCES) else None)
            except Exception:  # noqa: BLE001 - a launch not delimited: the file stays as ported, its compile says why
                pass
        wanted.add(rel)
        _put(dest / rel, data, path)
    for rel in sorted(set(patched.files) - set(shown)):  # new files a patch adds
        wanted.add(rel)
        _put(dest / rel, patched.files[rel], None)
    for path in sorted(p for p in dest.rglob("*") if p.is_file() or p.is_symlink()):
        if path.relative_to(dest).as_posix() not in wanted:
            path.unlink()
    return dest, patched


def _project_files(source: Path, out_root: Path) -> list[Path]:
    found = []
    out_root = out_root.resolve()
    for folder, dirs, names in os.walk(source):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(".")
                         and not d.endswith(".egg-info") and (here / d).resolve() != out_root)
        found += [here / n for n in sorted(names) if not n.startswith(".") and (here / n).is_file()
                  and not n.endswith((".so", ".pyc"))]
    return found


def _put(path: Path, data: bytes, origin: Path | None) -> None:
    """Write ``data`` unless the file already holds it; keep the origin's executable bit."""
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    write_atomic(path, data)
    if origin is not None and origin.stat().st_mode & stat.S_IXUSR:
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


# GCC enforces a rule the GPU compilers (nvcc, and mcc, which is clang-based) do not: a member alias that
# reuses the name of the template it names (mamba's reverse_scan.cuh: `using WarpReverseScan =
# WarpReverseScan<T, RAKING_THREADS>;`) is ill-formed with no diagnostic required, and GCC 12 makes it an
# error that only -fpermissive lowers to a warning (GCC 13 adds -Wno-changes-meaning). A project's kernels
# are written for those compilers and compiled here by g++, so its .mu files get what they accept.
# PyTorch's own kernels compile without it, and the device build leaves it out.
GPU_COMPILER_LENIENCY = ["-fpermissive"]


def stand_in(state: Path, device: Device) -> Path:
    """The stand-in ``torch_musa`` package, a compiler wrapper through the compiler cache, and the pytest
    plugin, written into ``state/site`` (the folder to put on ``PYTHONPATH``)."""
    site = state / "site"
    text = header("templates/extension").replace("//", "#", 1)
    write_atomic(site / "torch_musa/__init__.py", render_template(
        "extension/torch_musa_init.py.j2", header=text, library=str(device.library),
        loader=str(device.loader_dir)).encode())
    write_atomic(site / "torch_musa/utils/__init__.py", (text + "\n").encode())
    mu_after = [*(FMA_FLAGS if host_has_fma() else []), *ALIASING_FLAGS, *GPU_COMPILER_LENIENCY, *DEVICE_FLAGS]
    write_atomic(site / "torch_musa/utils/musa_extension.py", render_template(
        "extension/musa_extension.py.j2", header=text, musa_home=str(site),
        include_dirs=[str(device.shim / "include"), str(device.view / "aten/src"), str(device.view)],
        after_dirs=[str(device.shim / "third_party")], library_dir=str(device.library.parent),
        common_flags=list(COMMON_FLAGS), mu_flags=list(MU_FLAGS), mu_after=mu_after,
        jit_record=EXTENSION_JIT_RECORD, view_command=[sys.executable, "-m", "musaport.validate.cpu.view"]).encode())
    plugin = Path(__file__).with_name("pytest_plugin.py")
    write_atomic(site / "musaport_extension_plugin.py", plugin.read_bytes())
    write_atomic(site / "musaport_shared_alias.py", Path(shared_alias.__file__).read_bytes())
    ccache = tool("ccache")
    wrapper = site / "bin/c++"
    write_atomic(wrapper, (f"#!/bin/sh\nexec {ccache + ' ' if ccache else ''}g++ \"$@\"\n").encode())
    wrapper.chmod(0o755)
    mcc = site / MCC
    write_atomic(mcc, MCC_STAND_IN.encode())
    mcc.chmod(0o755)
    return site


# MUSA_HOME/bin/mcc, first on the build's PATH: a build script may probe for the toolkit's compiler before it
# adds its MUSA extension (a sorting library's setup.py runs ``call(["nvcc"])``, ported to ``mcc``, and drops
# its kernels on FileNotFoundError). The emulated toolkit has no compiler of its own: MUSAExtension compiles
# .mu sources for the CPU, so the stand-in answers a version query and refuses to compile anything itself.
MCC = "bin/mcc"
MCC_STAND_IN = """#!/bin/sh
# musaport: stand-in for the MUSA compiler of the emulated toolkit (validate --extension)
case "$1" in
  --version|-V|-v) echo "mcc: musaport stand-in of the emulated MUSA toolkit; torch_musa.utils.musa_extension compiles .mu sources for the CPU"; exit 0 ;;
esac
echo "mcc: musaport stand-in: it compiles nothing itself; build .mu sources with torch_musa.utils.musa_extension" >&2
exit 1
"""


def install_deps(state: Path, device: Device, requirements: tuple[str, ...], log) -> str:
    """The packages the project's tests import (``--test-deps``), with what they need that the torch
    environment lacks, in ``state/deps``. '' when they are there, else pip's last error line.

    pip resolves them against the environment first (``--dry-run --report``), so a package's own
    dependencies come too (transformers needs tokenizers, safetensors, ...), and only what the environment
    lacks: a distribution it has is never installed again, nor upgraded, so the release's torch is never
    replaced and the environment itself is never changed. What pip resolved is then installed as resolved,
    without resolving again. Should the resolution fail (a requirement the release's torch does not meet),
    the requirements alone are installed, as given, and the log says why. A package built from source
    builds with the environment's own setuptools (no build isolation: an sdist that imports torch to build
    finds it)."""
    deps = state / EXTENSION_DEPS
    record = deps / EXTENSION_DEPS_RECORD
    # The requirements, and how they were installed: a folder that an older musaport filled without their
    # dependencies is filled again.
    wanted = "# with what they need that the environment lacks\n" + "".join(f"{r}\n" for r in requirements)
    if not requirements or (record.is_file() and record.read_text(encoding="utf-8") == wanted):
        return ""
    shutil.rmtree(deps, ignore_errors=True)
    resolved, why = resolve_deps(device, requirements)
    if not resolved:
        log(f"musaport: --test-deps: pip could not resolve their dependencies ({why}); installing them alone")
        resolved = list(requirements)
    log(f"musaport: installing the tests' packages into {deps}: {' '.join(resolved)}")
    done = _pip(device, ["install", "--no-deps", "--target", str(deps), *resolved])
    if done.returncode != 0:
        return f"--test-deps: pip could not install them: {_last_line(done)}"
    write_atomic(record, wanted.encode())
    return ""


# The environment's distributions that --test-deps never shadows, even when it names them: the release's torch.
ENVIRONMENT_KEEPS = frozenset({"torch"})


def resolve_deps(device: Device, requirements: tuple[str, ...]) -> tuple[list[str], str]:
    """What installing ``requirements`` into the torch environment would add, as pip resolves it: each
    distribution the environment lacks, pinned (``name==version``), or as given when it is a path or URL;
    ``([], why)`` when pip cannot resolve them.

    A distribution the environment has in another version is left out (pip would upgrade it: a
    requirement's own needs never replace what torch runs with), unless a requirement names it itself:
    ``setuptools==80.9.0`` asks for the ``pkg_resources`` that setuptools 81 dropped, and a build script
    that imports it needs that version first on its path. The release's torch is never shadowed."""
    done = _pip(device, ["install", "--dry-run", "--report", "-", *requirements])
    if done.returncode != 0:
        return [], _last_line(done)
    try:
        items = json.loads(done.stdout)["install"]
    except (ValueError, KeyError, TypeError):
        return [], "pip wrote no installation report"
    have = _installed(device)
    named = {_canonical(n) for n in map(_requirement_name, requirements) if n} - ENVIRONMENT_KEEPS
    resolved = []
    for item in items:
        name, version = item["metadata"]["name"], item["metadata"]["version"]
        if _canonical(name) in have and _canonical(name) not in named:
            continue  # the environment's own (pip would upgrade it): kept as it is
        url = (item.get("download_info") or {}).get("url", "")
        resolved.append(url if item.get("is_direct") and url else f"{name}=={version}")
    return resolved, ""


def _requirement_name(requirement: str) -> str:
    """The distribution a requirement names (``setuptools==80.9.0`` → ``setuptools``); '' for a path or URL."""
    if "/" in requirement or requirement.startswith("."):
        return ""
    m = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement.strip())
    return m.group(0) if m else ""


def _installed(device: Device) -> set[str]:
    """The distributions the torch environment has, by canonical name."""
    done = subprocess.run([str(device.python), "-c", "import importlib.metadata as m; "
                           "print('\\n'.join(d.metadata['Name'] or '' for d in m.distributions()))"],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)
    return {_canonical(n) for n in done.stdout.split()}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()  # PEP 503


def _pip(device: Device, args: list[str]) -> subprocess.CompletedProcess:
    """pip for the torch environment, which has no pip of its own (torchenv): this interpreter's, aimed at it."""
    cmd = [sys.executable, "-m", "pip", "--python", str(device.python), args[0], "--quiet", "--no-input",
           "--disable-pip-version-check", "--no-build-isolation", *args[1:]]
    return subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          preexec_fn=children.tied_to_this_process())


def _last_line(done: subprocess.CompletedProcess) -> str:
    lines = [ln for ln in (done.stderr or done.stdout).splitlines() if ln.strip()]
    return lines[-1] if lines else f"exit {done.returncode}"


def environment(out: OutDir, site: Path, device: Device, extra: dict[str, str], jobs: int = 1) -> dict[str, str]:
    """The build's variables: the stand-in first on the path, the compiler through the cache (its base
    folder the one above OUT and PT_OUT, ``cache_base``), ``MAX_JOBS`` (torch's name for how many sources
    an extension compiles at once; the stand-in honours it) from ``-j``, the user's ``--build-env`` last.
    The tests' packages (``install_deps``) come after the loader, when there are any."""
    cxx = str(site / "bin/c++")
    env = dict(os.environ)
    deps = site.parent / EXTENSION_DEPS
    path = [str(site), str(device.loader_dir)] + ([str(deps)] if (deps / EXTENSION_DEPS_RECORD).is_file() else [])
    env["PATH"] = os.pathsep.join([str((site / MCC).parent), env.get("PATH", os.defpath)])
    env.update(PYTHONPATH=os.pathsep.join(path), CC=cxx, CXX=cxx,
               LDSHARED=f"{cxx} -pthread -shared", MUSAPORT_DEVICE_LIBRARY=str(device.library),
               MUSAPORT_DEVICE_LOADER=str(device.loader_dir / LOADER), MAX_JOBS=str(max(1, jobs)),
               TORCH_EXTENSIONS_DIR=str(site.parent / EXTENSION_JIT))
    env.setdefault("CCACHE_DIR", str(user_cache() / "ccache"))
    env.update(CCACHE_BASEDIR=str(cache_base(out.root, device.view)), CCACHE_NOHASHDIR="1")
    env.setdefault("CCACHE_MAXSIZE", "5G")
    env.update(extra)
    return env


def cache_base(out_root: Path, view: Path) -> Path:
    """The compiler cache's base folder: the nearest folder holding both OUT and the device's CPU view
    (PT_OUT), so that the paths of both are relative in what ccache keys on, and a new pair of folders laid
    out alike (a new work folder, a test's new temporary folders) reuses the objects; OUT alone when the
    two share only the file system's root, which ccache would rewrite every system header against."""
    out_root, view = out_root.resolve(), view.resolve()
    common = Path(os.path.commonpath([out_root, view]))
    return out_root if common == Path(common.anchor) else common


def setup_script(tree: Path, out: OutDir) -> Path | None:
    """The ported ``setup.py`` nearest the project's root; None for a project with none whose code builds
    its extensions when it runs (``load``/``load_inline``: its tests then build them, from the tree's root)."""
    ported = sorted((p for p in out.out_paths().values() if p.rsplit("/", 1)[-1] == "setup.py"),
                    key=lambda p: (p.count("/"), p))
    if ported:
        return tree / ported[0]
    if builds_on_import(out):
        return None
    cmake = sorted(p for p in out.out_paths().values() if p.rsplit("/", 1)[-1] == "CMakeLists.txt")
    raise LoadError(f"{out.tree}: the port has no setup.py to build the project with, and none of its Python "
                    "builds an extension when it runs (torch_musa's load or load_inline)"
                    + (f"; its {cmake[0]} is ported, but validate --extension builds with setup.py only" if cmake else ""))


def builds_on_import(out: OutDir) -> list[str]:
    """Where the port's Python builds an extension when it runs (``file:line``), from the run's findings."""
    return [f["site"] for f in out.porting_report().get("findings", []) if f.get("rule") == JIT_BUILD.id]


def tests_folder(tree: Path, out: OutDir) -> Path:
    """Where the project's tests run: the folder of its ported setup.py, else the project's root."""
    setup = setup_script(tree, out)
    return setup.parent if setup is not None else tree


def run_build(out: OutDir, state: Path, device: Device, extra_env: dict[str, str], log,
              patches: tuple[Path, ...] = (), jobs: int = 1) -> BuildResult:
    """``python setup.py build_ext --inplace`` in the build tree; the modules it made, each loaded."""
    import time

    started = time.monotonic()
    tree, patched = build_tree(out, state, patches)
    for a in patched.applied:
        log(f"musaport: patch {a.patch}: {', '.join(a.files)}")
    site = stand_in(state, device)
    setup = setup_script(tree, out)
    if setup is None:  # nothing to run before the tests: their imports build the extensions (run.py counts them)
        where = builds_on_import(out)
        log(f"musaport: no setup.py; the project builds its extensions when its code runs ({', '.join(where)})")
        result = BuildResult(True, "no setup.py: built on import by " + ", ".join(where))
        result.dropped = sorted(rel for rel in set(out.out_paths().values()) if rel.endswith(".mu"))
        result.seconds = round(time.monotonic() - started, 1)
        return result
    temp = state / "build-temp"
    cmd = [str(device.python), "setup.py", "build_ext", "--inplace", "--build-temp", str(temp)]
    command = f"cd {setup.parent.relative_to(tree).as_posix() or '.'} && python setup.py build_ext --inplace"
    log(f"musaport: building {setup.relative_to(tree)} ({command})")
    env = environment(out, site, device, extra_env, jobs)
    try:
        done = subprocess.run(cmd, cwd=setup.parent, env=env, capture_output=True, text=True, timeout=BUILD_SECONDS,
                              stdin=subprocess.DEVNULL, preexec_fn=children.tied_to_this_process())
        text, code = done.stdout + done.stderr, done.returncode
    except subprocess.TimeoutExpired as exc:
        text, code = f"{exc.stdout or ''}{exc.stderr or ''}\nerror: the build took more than {BUILD_SECONDS:.0f} s", -1
    write_atomic(state / EXTENSION_BUILD_LOG, text.encode())
    modules = _modules(text, tree)
    result = BuildResult(code == 0, command, "" if code == 0 else first_error(text), str(state / EXTENSION_BUILD_LOG),
                         modules, left_out_flags=_left_out_flags(text),
                         patches=[{"patch": a.patch, "files": list(a.files)} for a in patched.applied])
    compiled = {s for m in modules for s in m.sources}
    result.dropped = sorted(rel for rel in set(out.out_paths().values()) if rel.endswith(".mu") and rel not in compiled)
    if result.ok:
        _locate(modules, tree)
        load_modules(modules, tree, device, env, state)
        ported = sorted(set(out.out_paths().values()))
        for m in modules:
            m.defined_in = {sym: files for sym in m.missing if (files := defined_in(sym, tree, ported))}
    result.seconds = round(time.monotonic() - started, 1)
    return result


def first_error(text: str) -> str:
    """The compiler's first error, else the last line of a Python traceback, else the last line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for line in lines:
        if re.search(r"(?:fatal )?error:", line) and not line.startswith(("error: command", "error: Command")):
            return line
    for line in reversed(lines):
        if re.match(r"^[\w.]*(Error|Exception)\b", line):
            return line
    return lines[-1] if lines else "the build failed without a message"


def _left_out_flags(text: str) -> list[str]:
    marker = "torch_musa stand-in: mcc flags the CPU build leaves out: "
    found: list[str] = []
    for line in text.splitlines():
        if line.startswith(marker):
            found += [f for f in line[len(marker):].split() if f not in found]
    return found


def _modules(text: str, tree: Path) -> list[Module]:
    """The modules setuptools built, in order, each with the tree-relative sources compiled into it
    (from its ``building 'X' extension`` line and the compiler calls after it)."""
    modules: list[Module] = []
    for line in text.splitlines():
        opened = _BUILDING.match(line.strip())
        if opened:
            modules.append(Module(opened.group(1)))
            continue
        if modules and " -c " in line:
            for src in _SOURCE.findall(line):
                path = Path(src) if os.path.isabs(src) else None
                rel = _tree_relative(src, tree, path)
                if rel and rel not in modules[-1].sources:
                    modules[-1].sources.append(rel)
    return modules


def _tree_relative(src: str, tree: Path, path: Path | None) -> str:
    candidates = [path] if path is not None else [p for p in tree.rglob(Path(src).name) if p.as_posix().endswith(src.lstrip("./"))]
    for c in candidates:
        try:
            return c.resolve().relative_to(tree.resolve()).as_posix()
        except ValueError:
            continue
    return ""


def _locate(modules: list[Module], tree: Path) -> None:
    """Each module's built file in the tree (``pkg.mod`` → ``pkg/mod*.so``)."""
    for m in modules:
        parts = m.name.split(".")
        folder = tree.joinpath(*parts[:-1]) if len(parts) > 1 else None
        found = []
        for base in ([folder] if folder else []) + [p.parent for p in tree.rglob(parts[-1] + "*.so")]:
            found += sorted(base.glob(parts[-1] + ".so")) + sorted(base.glob(parts[-1] + ".*.so"))
        if found:
            m.file = found[0].relative_to(tree).as_posix()
        else:
            m.error = "the build made no file for it"


def clear_jit_records(state: Path) -> None:
    """Forget the JIT builds of earlier runs (their objects stay, for setuptools to reuse): only the builds
    this run's code makes are reported."""
    for record in (state / EXTENSION_JIT).glob(f"*/{EXTENSION_JIT_RECORD}"):
        record.unlink()


def jit_modules(state: Path, tree: Path) -> list[Module]:
    """The modules the project's code built as it ran (``torch_musa.utils.musa_extension.load``), each with
    its tree-relative sources and whether it imported, as the stand-in recorded them."""
    modules = []
    for record in sorted((state / EXTENSION_JIT).glob(f"*/{EXTENSION_JIT_RECORD}")):
        try:
            doc = json.loads(record.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        sources = [rel for src in doc.get("sources", []) if (rel := _tree_relative(src, tree, Path(src)))]
        modules.append(Module(str(doc.get("name", record.parent.name)), file=str(doc.get("file", "")),
                              sources=sources, loaded=bool(doc.get("loaded")), error=str(doc.get("error", "")),
                              jit=True, inline=bool(doc.get("inline"))))
    return modules


def load_modules(modules: list[Module], tree: Path, device: Device, env: dict[str, str], state: Path) -> None:
    """Load every built module in the torch environment with the device loaded (``import_child.py``); a
    module that does not load gets the loader's error and every symbol it needs that nothing defines."""
    child = Path(__file__).with_name("import_child.py")
    for m in modules:
        if not m.file:
            continue
        # One process per module: a project may build two modules that register the same operators (a CPU
        # and a MUSA variant, one loaded or the other), which one process cannot hold.
        path = str(tree / m.file)
        done = subprocess.run([str(device.python), str(child), str(device.library), str(device.loader_dir), path],
                              cwd=tree, env=env, capture_output=True, text=True, timeout=600,
                              stdin=subprocess.DEVNULL, preexec_fn=children.tied_to_this_process())
        item = next((json.loads(ln) for ln in done.stdout.splitlines() if ln.startswith("{")), None)
        if item is None:
            what = [ln.strip() for ln in done.stderr.splitlines() if "what():" in ln]
            m.error = "the import check died: " + (what[0] if what else first_error(done.stderr) if done.stderr.strip()
                                                   else f"exit {done.returncode}")
            continue
        m.loaded, m.error = item["ok"], item.get("error", "")
        if not m.loaded:
            m.missing = unresolved(tree / m.file, device)


def unresolved(library: Path, device: Device) -> list[str]:
    """Every symbol ``library`` needs that none of the libraries it is loaded with defines (demangled):
    the device's library, torch's, and the system's versioned symbols (``@GLIBC``...) aside."""
    nm = shutil.which("nm")
    if nm is None:
        return []
    needed = _symbols(nm, library, "--undefined-only")
    defined: set[str] = set()
    torch_lib = device.python.parent.parent
    libs = [device.library, *sorted(torch_lib.glob("lib/python3*/site-packages/torch/lib/*.so*"))]
    for lib in libs:
        defined |= _symbols(nm, lib, "--defined-only")
    missing = sorted(s for s in needed - defined if "@" not in s and not s.startswith(("Py", "_Py", "__gmon")))
    return _demangle(missing)


def _symbols(nm: str, library: Path, which: str) -> set[str]:
    """The dynamic symbols ``nm`` lists; of the undefined ones only the strong (``U``): a weak one
    (``w``: ``__gmon_start__``, ``_ITM_*``) may stay unresolved."""
    done = subprocess.run([nm, "-D", which, str(library)], capture_output=True, text=True)
    rows = [line.split() for line in done.stdout.splitlines() if line.split()]
    if which == "--undefined-only":
        return {r[-1] for r in rows if len(r) >= 2 and r[-2] == "U"}
    return {r[-1] for r in rows}


def defined_in(symbol: str, tree: Path, candidates: list[str]) -> list[str]:
    """The files among ``candidates`` (tree-relative) that define a function of the symbol's name: where a
    missing symbol would have come from (``shift_musa(at::Tensor const&, double)`` → ``shift_musa.mu``)."""
    name = symbol.split("(", 1)[0].rsplit("::", 1)[-1].strip()
    if not name.isidentifier():
        return []
    pattern = re.compile(rf"\b{re.escape(name)}\s*\([^;{{]*\)\s*(?:const\s*)?\{{", re.S)
    found = []
    for rel in candidates:
        try:
            if pattern.search((tree / rel).read_text(encoding="utf-8", errors="replace")):
                found.append(rel)
        except OSError:
            continue
    return found


def _demangle(symbols: list[str]) -> list[str]:
    filt = shutil.which("c++filt")
    if not filt or not symbols:
        return symbols
    done = subprocess.run([filt], input="\n".join(symbols), capture_output=True, text=True)
    lines = done.stdout.splitlines()
    return lines if len(lines) == len(symbols) else symbols
