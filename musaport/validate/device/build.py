"""The ported backend as torch's ``musa`` device, in the release's own torch wheel.

This is the interface ``validate --opinfo`` (and anything else that runs
PyTorch on the port) builds on::

    build = build_device(out, ops, jobs, progress)

- ``out``: the :class:`~musaport.outdir.OutDir` of a ``musaport run --pytorch-src``.
- ``ops``: operator model names or base names to register (``("abs", "add.Tensor")``;
  a base name selects every overload, as ``--ops`` does elsewhere), or ``None``
  for every operator the port's ``RegisterMUSA.cpp`` registers.  The base
  operators every tensor needs (``rules/backend/ops.yaml``'s ``base``) are
  always registered.
- ``jobs``: parallel compiler processes.
- ``progress``: called with one line of text per step (``print``-like).

It returns a :class:`DeviceBuild`:

- ``library``: the shared library (``OUT/.musaport/device/libmusaport_backend.so``),
  or ``None`` when nothing could be linked (``figures["error"]`` says why);
- ``python``: the torch environment's interpreter (``<user cache>/torch/<release>/bin/python``),
  where torch, expecttest, hypothesis, numpy and pytest are installed;
- ``release``: the tree's release (``"2.6.0"``);
- ``loader``: ``OUT/.musaport/device/musaport_loader.py``, standalone Python (it
  imports only torch): put its folder on ``sys.path`` (or ``PYTHONPATH``) of
  ``python`` and call ``musaport_loader.load(str(library))``.  That loads the
  library with ``torch.ops.load_library``, renames PrivateUse1 to ``musa``,
  registers the device module ``torch.musa`` (``is_available``,
  ``device_count``, ``current_device``, ``set_device``, ``synchronize``,
  ``device``, ``manual_seed[_all]``, ``seed``, ``initial_seed``,
  ``get_rng_state[_all]``, ``set_rng_state[_all]``, ``get_amp_supported_dtype``,
  ``is_initialized``, ``_lazy_init``, ``_is_in_bad_fork``, ``current_stream``) and
  calls ``torch.utils.generate_methods_for_privateuse1_backend()``;
  ``environment()`` gives the variables a child process needs besides
  (``PYTHONPATH``);
- ``operators``: every operator asked for, by operator model name, as an
  :class:`OperatorBuild`: ``status`` is ``built`` (registered in the library),
  ``build-error`` (a ported file it needs does not compile: ``error`` is the
  compiler's first error, ``file`` that file), ``missing-symbol`` (its code
  calls a symbol no ported file defines: ``error`` names it) or
  ``not-registered`` (the operator model has no C++ signature for it);
  ``files`` are the ported files (port-relative) holding its kernels;
- ``figures``: seconds, objects compiled and reused, failed sources.

A build is cached in ``OUT/.musaport/device/``: a second call recompiles only
what changed.  A failure to fetch the torch environment raises
:class:`~musaport.validate.torchwheel.torchenv.FetchError`; bad input raises
:class:`~musaport.errors.LoadError`.

How the library binds: it is linked with ``-Wl,-Bsymbolic-functions``, so a
call inside it to a function it defines runs its own (ported) definition.
The wheel's ``libtorch_cuda.so`` is loaded in the same process and exports
some 2,100 of the same names (``at::native::index_select_cuda``, template
instances); without the flag the dynamic linker would bind those calls to
CUDA's code.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from musaport.ops.emit_cmake import cmake_variables
from musaport.ops.emit_registration import header
from musaport.ops.model import operator_model
from musaport.outdir import CMAKE_FILE, OutDir, write_atomic
from musaport.port.request import run_layout
from musaport.resources import render_template
from musaport.validate.backend import backend
from musaport.validate.backend.samples import Sample, load_catalog
from musaport.validate.cpu import view as cpu_view
from musaport.validate.device.cmake_build import CMakeBuilder
from musaport.validate.torchwheel import libtorch, torchenv

STATE = "device"
LOADER = "musaport_loader.py"
# Calls inside the library to functions it defines bind to its own definitions (see the docstring).
LINK_FLAGS = ("-Wl,-Bsymbolic-functions",)
# The device runs PyTorch's kernels as the hardware does: a thread that has exited counts as arrived at
# a barrier (musaport_shim/cpu/block.h says why; the run mode's fixture kernels keep the strict check).
DEVICE_FLAGS = ("-DMUSAPORT_EXITED_THREADS_ARRIVE=1",)
STATUSES = ("built", "build-error", "missing-symbol", "not-registered")


@dataclass(frozen=True)
class OperatorBuild:
    """One registered operator: whether the library has it, and where its ported kernels are."""

    name: str
    status: str
    error: str = ""
    file: str = ""  # the ported file whose failure took it out
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class DeviceBuild:
    """The ``musa`` device: library, interpreter, loader and each operator's build status."""

    library: Path | None
    python: Path
    release: str
    loader: Path
    operators: dict[str, OperatorBuild] = field(default_factory=dict)
    figures: dict = field(default_factory=dict)

    def environment(self) -> dict[str, str]:
        """Variables to add for a child ``python`` that imports the loader."""
        old = os.environ.get("PYTHONPATH", "")
        return {"PYTHONPATH": str(self.loader.parent) + (os.pathsep + old if old else "")}


def build_device(out: OutDir, ops: tuple[str, ...] | list[str] | None, jobs: int, progress=print) -> DeviceBuild:
    """Build the backend library for ``ops`` (None: every registered operator) against the release's
    torch wheel, write the loader; see the module docstring."""
    started = time.monotonic()
    out.require_port()
    source = Path(out.porting_report()["source"])
    release = libtorch.release(source)
    env = torchenv.fetch(release, log=progress)
    torch = libtorch.Libtorch(release, env.site_packages)
    state = out.work(STATE)
    loader = write_loader(state)
    for problem in cpu_view.refresh(out.tree, state / "cpu"):
        progress(f"musaport: warning: {problem.file}: launch not converted for the CPU build: {problem.error}")
    catalog = load_catalog()
    model = operator_model(source, out, layout=run_layout(out), jobs=jobs)
    names = _selection(model, ops)
    units = [Sample(n, "", 1, (), (n,), "", "") for n in names if n in model.wrappers]
    plan = backend.plan_sources(model, out, catalog, units)
    whole = ops is None
    if whole:  # every file of the port's build lists; one that no operator needs takes out only itself
        for rel in _listed(out):
            plan.needs.setdefault(rel, {f"(list) {rel}"})
    view = state / "cpu"
    flags = [*backend.BuildEnv(out, source, state, torch, jobs).common_flags, *DEVICE_FLAGS]
    link_libs = backend.BuildEnv(out, source, state, torch, jobs).link_libs()
    builder = CMakeBuilder(state, out.root, view, flags, backend.mu_flags(),
                           ["-Wl,--no-undefined", "-Wl,--no-demangle", *LINK_FLAGS], link_libs, whole, jobs, progress)
    build_env = backend.BuildEnv(out, source, state, torch, jobs, builder)
    failed: dict[str, str] = {}
    progress(f"musaport: building the musa device: {len(units)} operators, {len(plan.needs)} ported sources")
    library, missing, built = backend._build(build_env, plan, model, units, failed, progress)
    ported = out.out_paths()
    operators = {}
    for n in names:
        files = tuple(sorted({ported[f] for f in model.operators[n].files if f in ported})) if n in model.operators else ()
        if n not in model.wrappers:
            why = ("the operator model has no C++ signature for it" if n in model.operators else
                   "not a CUDA operator of the operator model (a composite runs through registered ones)")
            operators[n] = OperatorBuild(n, "not-registered", why, "", files)
            continue
        blocked = backend._blocked(plan, n, failed)
        if blocked:
            operators[n] = OperatorBuild(n, "build-error", failed[blocked], blocked, files)
        elif n in plan.unlinked:
            operators[n] = OperatorBuild(n, "missing-symbol", f"no ported file defines {plan.unlinked[n]}", "", files)
        elif library is None:
            operators[n] = OperatorBuild(n, "missing-symbol", "the library did not link: " + "; ".join(missing[:3]),
                                         "", files)
        else:
            operators[n] = OperatorBuild(n, "built", "", "", files)
    figures = {"seconds": round(time.monotonic() - started, 1), "objects": len(built),
               "compiled": builder.compiled, "ccache": bool(builder.ccache),
               "launcher": builder.launcher if builder.ccache else "none", "whole_lists": whole,
               "failed_sources": dict(sorted(failed.items()))}
    if library is None:
        figures["error"] = "; ".join(missing[:3]) or "the library did not link"
    return DeviceBuild(library, env.python, release, loader, operators, figures)


def _selection(model, ops) -> list[str]:
    """Operator model names: ``ops`` resolved (every registrable one: None); a name the model does not
    know stays as it is (it is reported ``not-registered``: composite operators such as ``copy_`` run
    through the ones the backend registers)."""
    if ops is None:
        return [op.name for op in model.registrable()]
    wanted = []
    for query in ops:
        wanted += [op.name for op in model.resolve(query)] or [query]
    return list(dict.fromkeys(wanted))


def _listed(out: OutDir) -> list[str]:
    """The port-relative sources of ``musaport_sources.cmake``'s default build lists."""
    found = cmake_variables((out.tree / CMAKE_FILE).read_text(encoding="utf-8"))
    return [p.replace("${CMAKE_CURRENT_LIST_DIR}/", "", 1)
            for var in ("MUSAPORT_MU_SOURCES", "MUSAPORT_CPP_SOURCES") for p, _ in found.get(var, [])]


def write_loader(state: Path) -> Path:
    """The standalone loader, rendered beside the library."""
    path = state / LOADER
    text = render_template("backend/musa_loader.py.j2", header=header("templates/backend").replace("//", "#", 1),
                           arch=cpu_view.EMULATED_ARCH)
    write_atomic(path, text.encode())
    return path
