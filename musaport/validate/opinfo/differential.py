"""``musaport validate --opinfo``: PyTorch's own OpInfo samples on the ported device, against the CPU.

The evidence is PyTorch's: the ``op_db`` of the release's own
``common_methods_invocations.py`` and ``test_compare_cpu``'s comparison. The
parent (here) never imports torch. It asks the torch environment's python to
run :mod:`musaport.validate.opinfo.child` (shipped beside this module, run by path), once for
the inventory of ``op_db`` and then as worker processes that answer one job
(an entry in one dtype) at a time. A worker that crashes (segfault, abort) or
does not answer within the timeout is killed and replaced; the job is
recorded as ``crash`` or ``error`` and the run goes on.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import signal
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import yaml

from musaport import children
from musaport.errors import LoadError, ToolError
from musaport.outdir import FUNCTIONS_YAML, OutDir, opinfo_inventory, worker_log, write_atomic
from musaport.validate.opinfo.verdict import DtypeResult, OpResult, from_child

CHILD = Path(__file__).with_name("child.py")
JOB_TIMEOUT = 180.0  # seconds for one entry in one dtype
START_TIMEOUT = 300.0  # seconds for a worker to import torch, op_db and load the device
INVENTORY_TIMEOUT = 900.0
Progress = Callable[[int, int, str], None]


class DeviceError(ToolError):
    """The torch environment or the device cannot run the differential (the run stops, exit 1)."""


@dataclass(frozen=True)
class Device:
    """Where the differential runs: the torch env's python, the device's name, how it is registered.

    ``loader`` is a Python file with ``load(library_path)``; without one the
    device must exist in torch already (``cpu`` stands in for a backend in
    the tests of the runner itself).
    """

    python: Path
    name: str = "musa"
    loader: Path | None = None
    library: Path | None = None

    def child_args(self) -> list[str]:
        args = ["--device", self.name]
        if self.loader is not None:
            args += ["--loader", str(self.loader)]
        if self.library is not None:
            args += ["--library", str(self.library)]
        return args


@dataclass(frozen=True)
class PortedOp:
    """One operator ``musa_functions.yaml`` registers, and how its build went (when the build says)."""

    name: str
    kind: str
    kernel: str
    files: tuple[str, ...]  # the CUDA sources, as the yaml names them
    built: bool | None = None  # None: the build did not say
    error: str = ""  # the build's first error when it did not build


@dataclass(frozen=True)
class Entry:
    """One OpInfo entry of the inventory."""

    key: str
    name: str
    aten_name: str
    dtypes: tuple[str, ...]
    ops: tuple[str, ...]  # aten operators its samples dispatch on the CPU (``aten::add.Tensor``)
    decorators: dict = field(default_factory=dict, compare=False)  # dtype -> [skip|xfail, why]
    trace_error: str = ""


def packet(name: str) -> str:
    """``aten::add.Tensor`` or ``add.Tensor`` → ``add``: the operator without its overload."""
    return name.split("::", 1)[-1].split(".", 1)[0]


def registered_ops(out: OutDir, built: dict[str, tuple[bool, str]] | None = None) -> dict[str, PortedOp]:
    """The operators the port registers (``musa_functions.yaml``), with the build's status when given."""
    path = out.tree / FUNCTIONS_YAML
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LoadError(f"{path}: cannot read the registered operators ({exc.strerror}); "
                        f"run 'musaport run --out {out.root}' first") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise LoadError(f"{path}{where}: not valid YAML") from None
    rows = doc.get("registered") if isinstance(doc, dict) else None
    if not isinstance(rows, list):
        raise LoadError(f"{path}: no 'registered' list of operators")
    result = {}
    for row in rows:
        if not isinstance(row, dict) or not isinstance(row.get("name"), str):
            raise LoadError(f"{path}: a registered operator without a name: {str(row)[:80]}")
        name = row["name"]
        status = (built or {}).get(name)
        result[name] = PortedOp(name, str(row.get("kind", "")), str(row.get("kernel", "")),
                                tuple(str(f) for f in row.get("files") or ()),
                                None if status is None else status[0], "" if status is None else status[1])
    return result


def unregistered_reasons(out: OutDir) -> dict[str, str]:
    """Operators with a CUDA kernel that the port does not register, with why (``not_registered``)."""
    try:
        doc = yaml.safe_load((out.tree / FUNCTIONS_YAML).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return {}
    rows = doc.get("not_registered") if isinstance(doc, dict) else None
    return {str(r["name"]): f"{r.get('kind', '')}: {r.get('reason', '')}" for r in rows or ()
            if isinstance(r, dict) and "name" in r}


def by_packet(registered: dict[str, PortedOp]) -> dict[str, list[PortedOp]]:
    found: dict[str, list[PortedOp]] = {}
    for op in registered.values():
        found.setdefault(packet(op.name), []).append(op)
    return found


def operators_of(aten: Iterable[str], registered: dict[str, PortedOp]) -> list[PortedOp]:
    """The registered operators behind aten operator names: the same overload, else the whole packet
    (``aten::abs`` is composite and reaches ``abs.out``)."""
    packets = by_packet(registered)
    found: list[PortedOp] = []
    for name in aten:
        short = name.split("::", 1)[-1]
        short = short[:-len(".default")] if short.endswith(".default") else short
        exact = registered.get(short)
        for op in [exact] if exact else packets.get(packet(short), []):
            if op not in found:
                found.append(op)
    return found


# -- the inventory ---------------------------------------------------------------------------------------------

def child_digest() -> str:
    return hashlib.sha256(CHILD.read_bytes()).hexdigest()[:16]


def inventory_path(device: Device, work: Path) -> Path:
    """The cached inventory of one torch environment and this child. The venv's python is not resolved:
    every venv's python links to the same interpreter, and the environment is what differs."""
    key = hashlib.sha256(f"{os.path.abspath(device.python)}|{child_digest()}".encode()).hexdigest()[:16]
    return work / opinfo_inventory(key)


def inventory(device: Device, work: Path, log=print) -> list[Entry]:
    """Every OpInfo entry of the torch env's ``op_db`` (cached in ``work`` by the python and this child)."""
    work.mkdir(parents=True, exist_ok=True)
    path = inventory_path(device, work)
    if not path.is_file():
        log("opinfo: listing op_db and tracing each entry's operators on the CPU")
        cmd = [str(device.python), "-I", "-B", str(CHILD), "--device", "cpu", "inventory", str(path)]
        try:
            done = children.run(cmd, cwd=work, timeout=INVENTORY_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise DeviceError(f"{device.python}: listing op_db took over {INVENTORY_TIMEOUT:.0f} s") from None
        except OSError as exc:
            raise DeviceError(f"{device.python}: cannot run the torch environment's python ({exc})") from None
        if done.returncode != 0 or not path.is_file():
            tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise DeviceError(f"{device.python}: listing op_db failed (exit {done.returncode}): {tail}")
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [Entry(e["key"], e["name"], e["aten_name"], tuple(e["dtypes"]), tuple(e["ops"]),
                  dict(e.get("decorators") or {}), e.get("trace_error", "")) for e in doc["entries"]]


def torch_version_of(entries_doc_path: Path) -> str:
    doc = json.loads(entries_doc_path.read_text(encoding="utf-8"))
    return str(doc.get("torch", "")).split("+")[0]


@dataclass(frozen=True)
class Selection:
    """What runs: entries, and the names asked for that no entry answers (``--ops copy_``)."""

    entries: tuple[Entry, ...]
    unmatched: tuple[str, ...] = ()


def select(entries: list[Entry], registered: dict[str, PortedOp], wanted: tuple[str, ...] = ()) -> Selection:
    """The entries to run.

    Without ``wanted``: every entry one of whose traced aten operators the
    port registers. With it: the entries named so (key, OpInfo name, aten
    name; ``fill_`` also finds ``fill``), whether registered or not (the run
    then says what is missing).
    """
    if wanted:
        chosen, unmatched = [], []
        for w in wanted:
            hits = [e for e in entries if w in (e.key, e.name, e.aten_name) or w.rstrip("_") in (e.key, e.name)]
            if not hits:
                unmatched.append(w)
            chosen += [e for e in hits if e not in chosen]
        return Selection(tuple(sorted(chosen, key=lambda e: e.key)), tuple(unmatched))
    packets = by_packet(registered)
    chosen = [e for e in entries if any(packet(o) in packets for o in e.ops)
              or (not e.ops and e.aten_name and packet(e.aten_name) in packets)]
    return Selection(tuple(sorted(chosen, key=lambda e: e.key)))


# -- the workers -----------------------------------------------------------------------------------------------

@dataclass
class _Worker:
    """One child process serving jobs; replaced when it dies or hangs."""

    device: Device
    work: Path
    index: int
    proc: subprocess.Popen | None = None
    lines: queue.Queue | None = None
    log_path: Path | None = None
    started: int = 0

    def start(self) -> None:
        self.started += 1
        self.log_path = self.work / worker_log(self.index)
        log = open(self.log_path, "w", encoding="utf-8")  # noqa: SIM115 - the child holds it
        cmd = [str(self.device.python), "-I", "-B", str(CHILD), *self.device.child_args(), "serve"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTORCH_TESTING")}
        env["OMP_NUM_THREADS"] = "1"
        try:
            self.proc = children.popen(cmd, cwd=self.work, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=log, env=env, start_new_session=True, bufsize=1)
        finally:
            log.close()
        self.lines = queue.Queue()
        threading.Thread(target=_pump, args=(self.proc.stdout, self.lines), daemon=True).start()
        ready = self._answer(START_TIMEOUT)
        if ready is not None and ready.get("timeout"):
            self.stop()
            raise DeviceError(f"{self.device.python}: the worker did not start within {START_TIMEOUT:.0f} s "
                              f"(log: {self.log_path})")
        if ready is None or not ready.get("ready"):
            why = (ready or {}).get("fatal") or self._death("the worker did not start")
            self.stop()
            raise DeviceError(f"{self.device.python}: {why} (log: {self.log_path})")

    def _answer(self, timeout: float) -> dict | None:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            return {"timeout": True}
        if line is None:
            return None
        try:
            return json.loads(line)
        except ValueError:
            return {"fatal": f"the worker wrote {line[:80]!r}"}

    def _death(self, what: str) -> str:
        try:
            code = self.proc.wait(timeout=10) if self.proc else None
        except subprocess.TimeoutExpired:  # its stdout closed but it lives on: end it
            self.stop()
            code = None
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            cause = f"{what}: {name}"
        else:
            cause = f"{what}: exit {code}"
        tail = self._log_tail()
        return f"{cause}; {tail}" if tail else cause

    def _log_tail(self) -> str:
        try:
            lines = [ln.strip() for ln in self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()]
        except OSError:
            return ""
        useful = [ln for ln in lines if ln and not ln.startswith("job ") and "Warning" not in ln]
        return useful[-1][:300] if useful else ""

    def run(self, key: str, dtype: str, timeout: float) -> DtypeResult:
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        try:
            self.proc.stdin.write(json.dumps({"key": key, "dtype": dtype}) + "\n")
            self.proc.stdin.flush()
        except OSError:
            pass  # it died: the answer says how
        answer = self._answer(timeout)
        if answer is None:
            why = self._death("worker died")
            self.proc = None
            return DtypeResult(dtype, "crash", reason=why)
        if answer.get("timeout"):
            self.stop()
            return DtypeResult(dtype, "error", reason=f"timeout: no answer in {timeout:.0f} s (worker killed)")
        if "fatal" in answer:
            self.stop()
            return DtypeResult(dtype, "error", reason=str(answer["fatal"]))
        return from_child(answer)

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        self.proc = None


def _pump(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


@dataclass(frozen=True)
class Job:
    key: str
    dtype: str


def run_jobs(device: Device, jobs: list[Job], work: Path, workers: int, timeout: float = JOB_TIMEOUT,
             progress: Progress | None = None) -> dict[Job, DtypeResult]:
    """Every job on ``workers`` child processes; a crash or a hang costs that job only."""
    work.mkdir(parents=True, exist_ok=True)
    pending: queue.Queue = queue.Queue()
    for job in jobs:
        pending.put(job)
    results: dict[Job, DtypeResult] = {}
    lock = threading.Lock()
    failure: list[BaseException] = []

    def serve(index: int) -> None:
        worker = _Worker(device, work, index)
        try:
            while not failure:
                try:
                    job = pending.get_nowait()
                except queue.Empty:
                    return
                result = worker.run(job.key, job.dtype, timeout)
                with lock:
                    results[job] = result
                    if progress:
                        progress(len(results), len(jobs), f"{job.key} {job.dtype}: {result.status}")
        except BaseException as exc:  # noqa: BLE001 - a worker that cannot start stops the run
            failure.append(exc)
        finally:
            worker.stop()

    count = max(1, min(workers, len(jobs)))
    with ThreadPoolExecutor(count) as pool:
        list(pool.map(serve, range(count)))
    if failure:
        raise failure[0]
    return results


# -- the differential ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class OpinfoRun:
    """What ``validate --opinfo`` found: per entry its results, and the figures of the run."""

    torch_version: str
    results: tuple[OpResult, ...]
    entries_total: int
    seconds: float
    plan_entries: tuple[Entry, ...] = ()  # the entries the plan chose (to run some again)


@dataclass(frozen=True)
class Plan:
    """What a run will do: the release's op_db (its size and torch version) and the entries chosen."""

    torch_version: str
    entries_total: int
    selection: Selection

    def operators(self, registered: dict[str, PortedOp]) -> list[str]:
        """The registered operators the chosen entries dispatch (what the device must build)."""
        return [op.name for op in operators_of([o for e in self.selection.entries for o in e.ops], registered)]


def plan_opinfo(python: Path, out: OutDir, registered: dict[str, PortedOp], wanted: tuple[str, ...] = (),
                log=print) -> Plan:
    """List op_db with the torch env's python (no device needed) and choose the entries to run."""
    device = Device(python, "cpu")
    work = out.work("opinfo")
    entries = inventory(device, work, log)
    return Plan(_inventory_version(work, device), len(entries), select(entries, registered, wanted))


def run_opinfo(device: Device, out: OutDir, registered: dict[str, PortedOp], plan: Plan, workers: int = 1,
               timeout: float = JOB_TIMEOUT, progress: Progress | None = None, log=print) -> OpinfoRun:
    """Run each chosen entry in each common dtype, and attach the port's operators to each."""
    started = time.monotonic()
    work = out.work("opinfo")
    chosen = plan.selection
    jobs, skipped = [], {}
    for e in chosen.entries:
        for dt in e.dtypes:
            verdict = e.decorators.get(dt)
            if verdict and verdict[0] == "skip":
                skipped[Job(e.key, dt)] = DtypeResult(dt, "skip", reason=verdict[1])
            else:
                jobs.append(Job(e.key, dt))
    log(f"opinfo: {len(chosen.entries)} of {plan.entries_total} OpInfo entries, {len(jobs)} entry-dtype runs "
        f"on '{device.name}' with {workers} worker{'s' * (workers != 1)}")
    answers = run_jobs(device, jobs, work / "workers", workers, timeout, progress) if jobs else {}
    answers.update(skipped)
    results = []
    for e in chosen.entries:
        dtypes = tuple(answers[Job(e.key, dt)] for dt in e.dtypes)
        seen = list(e.ops) + [o for d in dtypes for o in d.ops]
        ported = operators_of(seen, registered)
        files = sorted({f for op in ported for f in op.files})
        note = "" if e.dtypes else "no dtype common to its CPU and CUDA sets"
        results.append(OpResult(e.key, dtypes, note, tuple(_ported_paths(out, files)),
                                tuple(op.name for op in ported)))
    for name in chosen.unmatched:
        results.append(OpResult(name, (), f"no OpInfo entry is named {name!r} in op_db"))
    results.sort(key=lambda r: r.key)
    return OpinfoRun(plan.torch_version, tuple(results), plan.entries_total, round(time.monotonic() - started, 1),
                     chosen.entries)


def _inventory_version(work: Path, device: Device) -> str:
    return torch_version_of(inventory_path(device, work))


def _ported_paths(out: OutDir, sources: list[str]) -> list[str]:
    mapping = out.out_paths()
    return [mapping.get(s, s) for s in sources]


def write_json(path: Path, doc: dict) -> Path:
    write_atomic(path, (json.dumps(doc, indent=2, sort_keys=False) + "\n").encode())
    return path
