"""The output folder (``--out``): every path and file name under it, in one place.

Each command that reads or writes ``--out`` asks an :class:`OutDir` instead of
spelling names itself, so the layout of the output has one owner:

- ``generated_cuda_compatible/``: the ported tree, plus the generated
  ``musa_functions.yaml``, ``musaport_sources.cmake`` and registration files;
- ``porting_report.json`` / ``.md``: what the last run did;
- ``.musaport/``: the tool's own state (caches, staging, validate's work).

Writes go through :func:`write_atomic`, so a reader never sees half a file.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from musaport.errors import LoadError
from musaport.fstree import make_dirs
from musaport.jsonfile import load_json

TREE = "generated_cuda_compatible"
STATE_DIR = ".musaport"
REPORT_JSON = "porting_report.json"
REPORT_MD = "porting_report.md"
FUNCTIONS_YAML = "musa_functions.yaml"
CMAKE_FILE = "musaport_sources.cmake"
REGISTRATION = "aten/src/ATen/RegisterMUSA.cpp"
# The reports of validate, beside porting_report.* at the top of --out.
VALIDATE_JSON = "validate_report.json"
VALIDATE_MD = "validate_report.md"
VALIDATE_RUN_JSON = "validate_run.json"
VALIDATE_BACKEND_JSON = "validate_backend_report.json"
VALIDATE_OPINFO_JSON = "validate_opinfo_report.json"
VALIDATE_OPINFO_MD = "validate_opinfo_report.md"
VALIDATE_EXTENSION_JSON = "validate_extension_report.json"
VALIDATE_EXTENSION_MD = "validate_extension_report.md"
TOP_FILES = (REPORT_JSON, REPORT_MD, VALIDATE_JSON, VALIDATE_MD, VALIDATE_RUN_JSON, VALIDATE_BACKEND_JSON,
             VALIDATE_OPINFO_JSON, VALIDATE_OPINFO_MD, VALIDATE_EXTENSION_JSON, VALIDATE_EXTENSION_MD)
# The reports of ``musaport check``, one per --format, at the top of check's own --out (whose new/ and
# old/ hold the two ports).
CHECK_REPORTS = {"text": "musaport-check.txt", "md": "musaport-check.md", "json": "musaport-check.json",
                 "sarif": "musaport-check.sarif", "junit": "musaport-check.junit.xml"}
# The state folder's files: the port's cache (an index of stats and hashes, and the outcomes in a
# file of their own), the warm run's configuration snapshot, the operator scan's cache.
CACHE_INDEX = "cache.json"
CACHE_RESULTS = "cache-results.json"
CONFIG_SNAPSHOT = "config-snapshot.json"
OPERATOR_SCAN = "operator-scan.json"
LOCK = "lock"
STAGING_PREFIX = "staging-"  # + the pid of the run that stages
# Work folders in the state folder, one per validate mode (and their caches).
WORK_DIRS = ("validate", "validate-run", "backend", "device", "opinfo", "extension")
VALIDATE_RESULTS = "results.json"  # in the work folder "validate": clang's outcomes by TU and environment
OVERLAY_JSON = "overlay.json"  # in the work folder "validate": an extension's port over its own files
# In the work folder "opinfo": per test file (and shard) of PyTorch's, ``<stem><suffix>``: pytest's JUnit,
# one line per outcome, the log, the tests done and died in (to resume after them), and the resume state.
TEST_JUNIT, TEST_OUTCOMES, TEST_LOG = ".xml", ".outcomes.jsonl", ".log"
TEST_DONE, TEST_DIED, TEST_STATE = ".done.txt", ".died.txt", ".state.json"
# In the work folder "extension": the ported setup.py's build log, and per test file of the project
# (``tests/<nnn><suffix>``) pytest's JUnit and its output.
EXTENSION_BUILD_LOG = "build.log"
# In the work folder "extension": the packages the project's tests import (--test-deps), and the list that
# was installed there (a changed list installs again).
EXTENSION_DEPS, EXTENSION_DEPS_RECORD = "deps", "requirements.txt"
# Where the project's JIT builds (torch_musa.utils.musa_extension.load) go when its code runs: torch's
# TORCH_EXTENSIONS_DIR, inside OUT, never the user's ~/.cache/torch_extensions.
EXTENSION_JIT = "torch_extensions"
# Beside each JIT build there: the stand-in's record of what it compiled and whether it imported.
EXTENSION_JIT_RECORD = "musaport_jit.json"
# In the device's CMake build folder: CMake's cache, which names the folder it was configured at.
CMAKE_CACHE = "CMakeCache.txt"
EXTENSION_TEST_JUNIT, EXTENSION_TEST_LOG = ".xml", ".log"
# In the state folder while a run moves its outputs into place: a run killed
# then leaves it, and the next run re-ports everything while validate refuses.
COMMIT_MARKER = "commit-in-progress"
# In the state folder: every tree path the tool wrote, so files a user put in
# the tree are never taken for stale outputs (see port.run._commit).
OUTPUTS_MANIFEST = "outputs.json"
# In the state folder: the run's request (tree, layout, packs, generation options; see port.request),
# which diff, whereis, validate and check read instead of reloading defaults.
REQUEST_NAME = "request.json"
# In the state folder: the sha256 of each report musaport wrote at the top of --out, so a
# report someone else put there is refused instead of overwritten.
REPORTS_RECORD = "reports.json"
# What of porting_report.json other commands read (``jsonfile`` shape): a report that does not fit is damaged.
REPORT_SHAPE = {"source": str, "files": {"*": {"out": str, "*": object}}, "generated?": [str], "*": object}
STATE_FILES = frozenset({CACHE_INDEX, CACHE_RESULTS, CONFIG_SNAPSHOT, OPERATOR_SCAN, OUTPUTS_MANIFEST, REQUEST_NAME,
                         REPORTS_RECORD, COMMIT_MARKER, LOCK})


def operator_records(digest: str) -> str:
    """In the state folder: the operator records torchgen gave for a ``native_functions.yaml`` digest."""
    return f"operators-{digest}.json"


def scan_facts(digest: str) -> str:
    """In the user cache: the operator scan's facts of files by their content, for a scanner digest."""
    return f"scan-facts-{digest}.json"


def opinfo_inventory(key: str) -> str:
    """In the work folder "opinfo": ``op_db``'s inventory for one torch environment and child."""
    return f"inventory-{key}.json"


def worker_log(index: int) -> str:
    """In the work folder "opinfo": the stderr of OpInfo worker ``index``."""
    return f"worker-{index}.log"


# The ported trees this process has begun to change and not finished (a commit between its marker and its
# reports): an error or an interruption then must not say the previous output was left as it was.
_CHANGING: list[Path] = []


# The --out folders this process holds the lock of (resolved), with how many holders inside it.
_HELD: dict[Path, int] = {}


def changing() -> list[Path]:
    """The ``--out`` folders whose output this process left part-way changed, if it stops now."""
    return list(_CHANGING)


class OutDir:
    """Paths under one ``--out``, and the porting report read at most once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._report: dict[str, Any] | None = None

    @property
    def tree(self) -> Path:
        return self.root / TREE

    @property
    def state(self) -> Path:
        """The tool's own folder: caches, staging, validate's generated headers."""
        return self.root / STATE_DIR

    @property
    def report_json(self) -> Path:
        return self.root / REPORT_JSON

    @property
    def report_md(self) -> Path:
        return self.root / REPORT_MD

    def reports(self) -> tuple[Path, Path]:
        return self.report_json, self.report_md

    def state_file(self, name: str) -> Path:
        """A file of the tool's state (``cache.json``, ``operator-scan.json``, ...): only names this
        module declares, so every name under ``--out`` has its one owner here."""
        if name not in STATE_FILES:
            raise ValueError(f"{name}: not a state file OutDir knows (declare it in musaport/outdir.py)")
        return self.guard(self.state / name)

    def work(self, name: str) -> Path:
        """A work folder under the state folder (``validate``, ``validate-run``, ``backend``, ``device``, ``opinfo``)."""
        if name not in WORK_DIRS:
            raise ValueError(f"{name}: not a work folder OutDir knows (declare it in musaport/outdir.py)")
        return self.guard(self.state / name)

    def top(self, name: str) -> Path:
        """A report at the top of ``--out`` (``validate_report.md``, ...)."""
        if name not in TOP_FILES:
            raise ValueError(f"{name}: not a report OutDir knows (declare it in musaport/outdir.py)")
        return self.guard(self.root / name)

    def staging(self, pid: int) -> Path:
        """The staging folder of the run with process id ``pid``."""
        return self.guard(self.state / f"{STAGING_PREFIX}{pid}")

    def guard(self, path: Path) -> Path:
        """``path``, when it lands inside ``--out`` with every symbolic link on its way resolved; else a
        LoadError (exit 2) naming it.

        The one check of every place musaport writes under ``--out``: the
        accessors that hand out a place to write (``state_file``, ``work``,
        ``top``, ``staging``) and :meth:`write` pass through it, and so do
        :meth:`prepare` (the tree, the state folder, the reports, the lock,
        before anything is written) and the staged commit (every folder it
        renames into).  A link that stays inside ``--out`` is harmless; one
        that leaves it (``generated_cuda_compatible -> ../src``) would write
        over files that are not musaport's.
        """
        root = self.root.resolve()
        try:
            target = path.resolve()
        except (OSError, RuntimeError):  # RuntimeError: a symlink loop, before Python 3.13
            target = None
        if target is None or not target.is_relative_to(root):
            where = "a symbolic link loop" if target is None else f"it leads to {target}"
            raise LoadError(f"{path}: outside --out {self.root} once symbolic links are followed ({where}); "
                            "musaport writes only inside --out: remove the link; nothing was changed")
        return path

    def write(self, path: Path, data: bytes) -> bool:
        """:func:`write_atomic` of a file under ``--out``, checked by :meth:`guard` first."""
        return write_atomic(self.guard(path), data)

    def porting_report(self) -> dict[str, Any]:
        """The last run's ``porting_report.json`` (empty when there is none, or it is damaged: see
        :meth:`report_damaged`)."""
        if self._report is None:
            self._report = load_json(self.report_json, REPORT_SHAPE) or {}
        return self._report

    def report_damaged(self) -> bool:
        """True when ``porting_report.json`` is there but not a report (truncated, hand-edited, too deep)."""
        return self.report_json.is_file() and not self.porting_report()

    def source(self) -> Path | None:
        """The tree the port was made from, as the report names it."""
        source = self.porting_report().get("source")
        return Path(source) if isinstance(source, str) else None

    def out_paths(self) -> dict[str, str]:
        """Source path → ported path, from the report (empty without one)."""
        files = self.porting_report().get("files") or {}
        return {src: entry["out"] for src, entry in files.items() if isinstance(entry, dict) and "out" in entry}

    def prepare(self) -> None:
        """Create ``--out`` and its state folder, or refuse it in one line (a file, unwritable, a state
        folder that is a symbolic link: caches, lock and staging would land outside ``--out``; a tree, a
        report or the lock that leads outside it, see :meth:`guard`)."""
        if self.root.exists() and not self.root.is_dir():
            raise LoadError(f"{self.root}: --out exists and is not a folder")
        self.refuse_linked_state()
        for path in (self.tree, self.state, self.staging(os.getpid()), *(self.state / name for name in STATE_FILES),
                     *(self.state / name for name in WORK_DIRS), *(self.root / name for name in TOP_FILES)):
            self.guard(path)  # every name this module owns, before anything is written
        try:
            self.state.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LoadError(f"{self.root}: cannot create --out: {exc.strerror or exc}") from None
        if not os.access(self.state, os.W_OK):
            raise LoadError(f"{self.root}: --out is not writable")

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Hold ``--out`` for one command: a second one on it fails in one line instead of racing the first.

        Every command that reads or writes a port takes it (``run``, ``validate``, ``diff``, ``whereis``,
        and ``check`` for its two ports), one holder at a time: a reader never answers from a tree a run
        is replacing, nor a run replaces one a reader is using.  The lock is an ``flock`` on a file in the
        state folder, so it is released when its holder dies, however it dies; within one process it is
        taken again freely (``check`` holds its ports while its runs take them).
        """
        key = self.root.resolve()
        if key in _HELD:
            _HELD[key] += 1
            try:
                yield
            finally:
                _HELD[key] -= 1
            return
        self.prepare()
        fd = os.open(self.state / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise LoadError(f"{self.root}: another musaport run is writing to this --out, or another command "
                            "(validate, diff, whereis, check) is reading it; wait for it to finish or use another "
                            "--out") from None
        _HELD[key] = 1
        try:
            yield
        finally:
            del _HELD[key]
            os.close(fd)

    @contextmanager
    def held(self) -> Iterator[None]:
        """:meth:`lock` when ``--out`` holds musaport's state, else nothing to hold (a reader of a folder
        with no port, such as ``diff`` of the bundled tree, creates nothing in it)."""
        if self.state.is_dir():
            with self.lock():
                yield
        else:
            yield

    @property
    def request_file(self) -> Path:
        return self.state / REQUEST_NAME

    @property
    def commit_marker(self) -> Path:
        return self.state / COMMIT_MARKER

    def begin_commit(self) -> None:
        """Write the commit marker: from here until :meth:`end_commit` the tree may mix two ports."""
        _CHANGING.append(self.root)
        self.write(self.commit_marker, b"")

    def end_commit(self) -> None:
        """The commit is whole (its reports written): remove the marker."""
        self.commit_marker.unlink(missing_ok=True)
        while self.root in _CHANGING:
            _CHANGING.remove(self.root)

    def refuse_linked_state(self) -> None:
        """Refuse a state folder that is a symbolic link (it would be followed out of ``--out``)."""
        if self.state.is_symlink():
            raise LoadError(f"{self.state}: is a symbolic link; musaport keeps its state inside --out "
                            "and does not follow it (remove the link)")

    def require_port(self) -> None:
        """Refuse an ``--out`` that holds no port, or one a killed run left half moved into place."""
        if not self.tree.is_dir() or not self.report_json.is_file():
            raise LoadError(f"{self.root}: no ported tree here; run 'musaport run --out {self.root}' first")
        self.require_whole()

    def require_whole(self) -> None:
        """Refuse a tree a killed run left half moved into place, a damaged report, or state behind a
        symbolic link."""
        self.refuse_linked_state()
        if self.report_damaged():
            raise LoadError(f"{self.report_json}: damaged (truncated?), so what this port holds is unknown; "
                            f"run '{self._rerun()}' again (a run that changes nothing writes it again)")
        if self.commit_marker.exists():
            raise LoadError(f"{self.root}: a run was stopped while moving its outputs into place "
                            f"({self.commit_marker} exists), so the tree mixes two ports; "
                            f"run '{self._rerun()}' again first")

    def _rerun(self) -> str:
        """The command that ports this ``--out`` again (naming its tree, when the request or the report says
        which)."""
        request = load_json(self.request_file, {"source": str, "discovered": bool, "*": object}) or {}
        source = request.get("source") or self.source()
        if source is None:
            return f"musaport run --out {self.root}"
        return f"musaport run --{'src' if request.get('discovered') else 'pytorch-src'} {source} --out {self.root}"


    def record_reports(self) -> None:
        """Remember the reports just written (their sha256), so the next run knows them for its own."""
        record = {p.name: _sha256(p) for p in self.reports() if p.is_file()}
        self.write(self.state / REPORTS_RECORD, json.dumps(record, sort_keys=True).encode())

    def reports_intact(self) -> bool:
        """True when both reports are the ones the last run recorded writing (a truncated or edited one is
        not: a run that changes nothing then writes them again, or refuses an edited one)."""
        record = load_json(self.state / REPORTS_RECORD, {"*": str})
        if record is None:
            return all(p.is_file() for p in self.reports())  # an --out from before the record
        try:
            return all(record.get(p.name) == _sha256(p) for p in self.reports())
        except OSError:
            return False

    def foreign_report(self) -> Path | None:
        """A report at the top of ``--out`` that musaport did not write (a run would overwrite it).

        A report is musaport's when its hash is the recorded one; an ``--out``
        from before the record (no record, but the outputs manifest of a
        commit) counts its reports as musaport's.  A ``porting_report.json``
        that is no report at all (truncated) where musaport recorded one is
        musaport's, damaged: the run writes it again.
        """
        record = load_json(self.state / REPORTS_RECORD, {"*": str})
        for path in self.reports():
            if not path.exists() and not path.is_symlink():
                continue
            if path.is_symlink() or not path.is_file():
                return path
            if isinstance(record, dict) and path == self.report_json and self.report_damaged():
                continue  # musaport wrote a report here and this one is damaged (truncated): written again
            if isinstance(record, dict):
                if record.get(path.name) != _sha256(path):
                    return path
            elif not (self.state / OUTPUTS_MANIFEST).is_file():
                return path
        return None


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_atomic(path: Path, data: bytes) -> bool:
    """Write ``data`` unless the file already holds it; True when written.

    The bytes go to a temporary sibling first and are renamed into place, so
    a reader (or a killed run) never sees half a file; a failed write leaves
    no temporary behind.
    """
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    make_dirs(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return True
