"""``musaport doctor``: what each command needs, what is missing, and how to install it.

A missing tool otherwise shows up deep inside a command (a failed subprocess,
an ImportError in torchgen's child process) with no hint of the fix.  This
module probes every requirement up front, says which commands need it and
gives the exact install command.  It is pure data plus probes: the CLI
renders the table, and other commands call ``require`` before they start.

Only the standard library is imported here; ``clang.cindex`` is imported
inside its probe, so a broken libclang is reported rather than raised.
"""

from __future__ import annotations

import ctypes.util
import importlib.metadata
import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from musaport import children

COMMANDS: tuple[str, ...] = ("run", "diff", "whereis", "validate --compile", "validate --run", "check",
                             "check --validate", "parse", "rules", "validate --backend", "validate --opinfo",
                             "validate --extension")
ALL = COMMANDS
APT = "apt-get install -y "
PIP = "python3 -m pip install "
NOT_CHECKED = "not checked (give --pytorch-src)"
TOOL_TIMEOUT = 10
TORCHGEN_TIMEOUT = 60
# What validate --backend downloads once into the user cache: torch with its pinned NVIDIA wheels.
TORCH_DOWNLOAD = "~3 GB"
# Import names whose pip distribution is spelled differently.
PIP_NAMES = {"yaml": "pyyaml", "clang": "libclang"}


@dataclass(frozen=True)
class Requirement:
    """One thing a command needs; ``target`` is the module or executable probed (default: name)."""

    name: str
    kind: str  # "python" | "library" | "tool" | "torchgen"
    needed_by: tuple[str, ...]
    install: str
    optional: bool = False
    target: str = ""

    @property
    def probe_target(self) -> str:
        """The module to import or the executable to find."""
        return self.target or self.name


@dataclass(frozen=True)
class Status:
    """A probed requirement: ``detail`` is the version or path, or why it failed.

    ``install`` overrides the requirement's install command when the probe
    found a more precise one (torchgen: the module it could not import), and
    is "" when no install command would help; ``checked`` is False when the
    probe could not run (no --pytorch-src).
    """

    requirement: Requirement
    ok: bool
    detail: str
    install: str | None = None
    checked: bool = True

    @property
    def fix(self) -> str:
        """The command that installs what is missing ("" when none would help)."""
        return self.requirement.install if self.install is None else self.install


REQUIREMENTS: tuple[Requirement, ...] = (
    Requirement("click", "python", ALL, PIP + "click"),
    Requirement("rich", "python", ALL, PIP + "rich"),
    Requirement("pyyaml", "python", ALL, PIP + "pyyaml", target="yaml"),
    Requirement("jinja2", "python", ALL, PIP + "jinja2"),
    Requirement("libclang", "library", ALL, PIP + "libclang", target="clang.cindex"),
    Requirement("torchgen", "torchgen", ("run", "check", "check --validate", "validate --compile"),
                ""),  # the probe names the module torchgen could not import
    # The ziglang wheel's clang (the dev extra installs it), or the one MUSAPORT_CLANG names; it reads
    # the system's C++ headers, which come with g++.
    Requirement("clang", "clang", ("validate --compile", "check --validate", "validate --extension"), PIP + "ziglang"),
    Requirement("g++", "tool", ("validate --compile", "check --validate", "validate --run", "validate --backend",
                                "validate --opinfo", "validate --extension"), APT + "g++"),
    Requirement("readelf", "tool", ("validate --run", "validate --backend", "validate --opinfo"), APT + "binutils"),
    Requirement("nm", "tool", ("validate --extension",), APT + "binutils"),
    Requirement("c++filt", "tool", ("whereis",), APT + "binutils"),
    Requirement("cmake", "tool", ("whereis",), PIP + "cmake", optional=True),
    Requirement("libtorch", "library", ("validate --backend",),
                "musaport validate --backend --out OUT  # fetches torch==<the tree's release> into the user cache",
                optional=True, target="torch"),
)


def probe(req: Requirement, pytorch_src: Path | None = None) -> Status:
    """Probe one requirement; never raises, a failure is a Status with ``ok=False``."""
    if req.kind == "python":
        return probe_python(req)
    if req.kind == "tool":
        return probe_tool(req)
    if req.kind == "torchgen":
        return probe_torchgen(req, pytorch_src)
    if req.kind == "clang":
        return probe_clang(req)
    if req.kind == "library" and req.name == "libclang":
        return probe_libclang(req)
    if req.kind == "library" and req.name == "libtorch":
        return probe_libtorch(req)
    raise ValueError(f"no probe for {req.kind} requirement {req.name!r}")


def probe_python(req: Requirement) -> Status:
    """Importable (found on sys.path) and its installed version, without importing it."""
    try:
        spec = importlib.util.find_spec(req.probe_target)
    except (ImportError, ValueError) as err:
        return Status(req, False, f"not importable: {err}")
    if spec is None:
        return Status(req, False, "not installed")
    try:
        return Status(req, True, importlib.metadata.version(req.name))
    except importlib.metadata.PackageNotFoundError:
        return Status(req, True, f"found at {spec.origin} (version unknown)")


def probe_tool(req: Requirement) -> Status:
    """On PATH, with the first line of ``--version`` (a tool that fails it is still found)."""
    path = shutil.which(req.probe_target)
    if path is None:
        return Status(req, False, "not on PATH")
    try:
        done = children.run([path, "--version"], children.scratch(), timeout=TOOL_TIMEOUT)
    except (OSError, subprocess.SubprocessError) as err:
        return Status(req, True, f"{path} (--version failed: {type(err).__name__})")
    lines = (done.stdout or done.stderr).strip().splitlines()
    return Status(req, True, f"{lines[0].strip()} ({path})" if lines else path)


def probe_clang(req: Requirement) -> Status:
    """The clang ``validate --compile`` runs: the ziglang wheel's, or the one ``MUSAPORT_CLANG`` names."""
    from musaport.errors import LoadError
    from musaport.validate.clang import toolchain

    name = toolchain.requested()
    if name == toolchain.DEFAULT:
        zig = toolchain.zig_executable()
        if zig is None:
            return Status(req, False, "the ziglang wheel is not installed")
        argv, where = [str(zig), "clang"], f"ziglang wheel, {zig} clang"
    else:
        path = shutil.which(name)
        if path is None:
            return Status(req, False, f"{toolchain.ENV}={name}: not on PATH", install=f"unset {toolchain.ENV}")
        argv, where = [path], f"{toolchain.ENV}={name}, {path}"
    try:
        version = toolchain.version(argv)
    except LoadError as err:
        return Status(req, False, str(err), install="" if name != toolchain.DEFAULT else None)
    return Status(req, True, f"{version} ({where})")


def probe_libclang(req: Requirement) -> Status:
    """``clang.cindex`` imports *and* its shared library loads: the wheel can be present but unloadable."""
    try:
        from clang import cindex

        lib = cindex.conf.lib  # loads libclang.so, raising LibclangError when it cannot
        cindex.Index.create()
    except Exception as err:  # noqa: BLE001 - any failure here means "libclang is unusable"
        return Status(req, False, f"cannot load: {_first_line(str(err)) or type(err).__name__}")
    path = getattr(lib, "_name", None) or cindex.Config.library_file or "loaded"
    try:
        return Status(req, True, f"{importlib.metadata.version('libclang')} ({path})")
    except importlib.metadata.PackageNotFoundError:
        return Status(req, True, str(path))


def probe_libtorch(req: Requirement) -> Status:
    """A libtorch ``validate --backend`` fetched into the user cache, else an installed torch's, found
    without importing torch (slow)."""
    from musaport.validate.torchwheel.libtorch import fetched as fetched_releases

    fetched = fetched_releases()
    if fetched:
        return Status(req, True, ", ".join(f"{p.name} in {p}" for p in fetched))
    try:
        spec = importlib.util.find_spec(req.probe_target)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.origin:
        lib = Path(spec.origin).parent / "lib" / "libtorch.so"
        if lib.is_file():
            return Status(req, True, str(lib))
    found = ctypes.util.find_library("torch")
    if found:
        return Status(req, True, found)
    return Status(req, False, f"not fetched yet (validate --backend downloads the tree's release once, {TORCH_DOWNLOAD})")


def probe_torchgen(req: Requirement, pytorch_src: Path | None) -> Status:
    """Import the tree's own torchgen in a child process of this Python.

    ``-I`` keeps PYTHONPATH and the user's site out, ``-B`` and a temporary
    working directory keep ``__pycache__`` and any stray file out of the tree.
    """
    if pytorch_src is None:
        return Status(req, True, NOT_CHECKED, checked=False)
    src = Path(pytorch_src).expanduser().resolve()
    if not (src / "torchgen" / "__init__.py").is_file():
        return Status(req, False, f"{src} has no torchgen/ (not a PyTorch source tree?)", install="")
    code = f"import sys; sys.path.insert(0, {str(src)!r}); import torchgen.model, torchgen.gen"
    try:
        with tempfile.TemporaryDirectory(prefix="musaport-doctor-") as cwd:
            done = children.run(children.python("-c", code), Path(cwd), timeout=TORCHGEN_TIMEOUT)
    except subprocess.TimeoutExpired:
        return Status(req, False, f"importing torchgen timed out after {TORCHGEN_TIMEOUT} s", install="")
    except (OSError, subprocess.SubprocessError) as err:
        return Status(req, False, f"cannot run {sys.executable}: {err}", install="")
    if done.returncode == 0:
        return Status(req, True, f"imports from {src}")
    return torchgen_failure(req, done.stderr)


def torchgen_failure(req: Requirement, stderr: str) -> Status:
    """The missing module named by a ModuleNotFoundError, with its pip command; else the last error line."""
    missing = re.findall(r"ModuleNotFoundError: No module named '([^']+)'", stderr)
    if missing:
        module = missing[-1].split(".")[0]
        return Status(req, False, f"cannot import module {module}", install=PIP + PIP_NAMES.get(module, module))
    lines = stderr.strip().splitlines()
    return Status(req, False, f"import failed: {lines[-1] if lines else 'no output'}", install="")


def diagnose(pytorch_src: Path | None = None) -> list[Status]:
    """Every requirement, probed, in REQUIREMENTS order."""
    return [probe(req, pytorch_src) for req in REQUIREMENTS]


def is_failure(status: Status) -> bool:
    """Missing and not optional: this is what makes doctor exit 1."""
    return not status.ok and not status.requirement.optional


def exit_code(statuses: Iterable[Status]) -> int:
    """1 when any non-optional requirement is missing, else 0."""
    return 1 if any(is_failure(s) for s in statuses) else 0


def check_command(command: str) -> None:
    """A misspelt command name is a bug in the caller, not a missing requirement."""
    if command not in COMMANDS:
        raise ValueError(f"unknown command {command!r}; known: {', '.join(COMMANDS)}")


def missing_for(command: str, statuses: Iterable[Status]) -> list[Status]:
    """The non-optional requirements of ``command`` that are missing."""
    check_command(command)
    return [s for s in statuses if command in s.requirement.needed_by and is_failure(s)]


def require(command: str, pytorch_src: Path | None = None) -> str | None:
    """One line saying what ``command`` lacks and how to install it, or None when it has everything.

    Only the command's own requirements are probed, so calling this before a
    command costs a few ``--version`` runs, not a full diagnosis.
    """
    check_command(command)
    statuses = [probe(req, pytorch_src) for req in REQUIREMENTS if command in req.needed_by]
    missing = missing_for(command, statuses)
    return shortfall_line(command, missing) if missing else None


def shortfall_line(command: str, missing: list[Status]) -> str:
    """``validate --run needs g++ and readelf, which are not installed (apt-get install -y g++ binutils); ...``."""
    parts = []
    plain = [s for s in missing if s.requirement.kind not in ("torchgen", "clang")]
    if plain:
        names = _and([s.requirement.name for s in plain])
        verb = "is" if len(plain) == 1 else "are"
        parts.append(f"{names}, which {verb} not installed ({'; '.join(install_commands(plain))})")
    for s in missing:
        if s.requirement.kind == "clang":
            fix = f" ({s.fix})" if s.fix else ""
            parts.append(f"a clang: {s.detail}{fix}")
        if s.requirement.kind == "torchgen":
            fix = f" ({s.fix})" if s.fix else ""
            parts.append(f"the PyTorch tree's torchgen, which fails: {s.detail}{fix}")
    return f"{command} needs {'; and '.join(parts)}; run 'musaport doctor' for everything"


def status_word(status: Status) -> str:
    """The table's status column: ok, not checked, MISSING, or optional (missing but not needed yet)."""
    if not status.checked:
        return "not checked"
    if status.ok:
        return "ok"
    return "optional" if status.requirement.optional else "MISSING"


def needed_by_label(req: Requirement) -> str:
    """``all commands`` or the commands that need ``req``."""
    return "all commands" if req.needed_by == ALL else ", ".join(req.needed_by)


def render_rows(statuses: Iterable[Status]) -> list[tuple[str, str, str, str]]:
    """(what, status, detail, install command) per requirement; install is empty when nothing is missing."""
    rows = []
    for s in statuses:
        what = f"{s.requirement.name} ({needed_by_label(s.requirement)})"
        install = "" if s.ok else s.fix
        rows.append((what, status_word(s), s.detail, install))
    return rows


def install_commands(statuses: Iterable[Status], include_optional: bool = False) -> list[str]:
    """The commands that install everything missing: one apt-get line, one pip line, then any others.

    Packages are deduplicated (readelf and c++filt are both binutils); an
    install with options (``--index-url``) stays a line of its own.
    """
    merged: dict[str, list[str]] = {APT: [], PIP: []}
    other: list[str] = []
    for s in statuses:
        if s.ok or not s.fix or (s.requirement.optional and not include_optional):
            continue
        prefix, packages = _split_install(s.fix)
        target = merged[prefix] if prefix else other
        target.extend(p for p in packages if p not in target)
    return [prefix + " ".join(packages) for prefix, packages in merged.items() if packages] + other


def _split_install(command: str) -> tuple[str, list[str]]:
    """(APT or PIP, its packages) for a plain install; ("", [command]) for anything with options."""
    for prefix in (APT, PIP):
        packages = command[len(prefix):].split()
        if command.startswith(prefix) and not any(p.startswith("-") for p in packages):
            return prefix, packages
    return "", [command]


def _and(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _first_line(text: str) -> str:
    """The first non-empty line of an error message."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")
