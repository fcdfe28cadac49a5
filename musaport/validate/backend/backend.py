"""``musaport validate --backend``: the port built into a PrivateUse1 backend that runs PyTorch operators.

The evidence here is not ours: the ported sources, as generated, are compiled
for the CPU (launches turned into calls, the shim's CPU runtime under them) by
the CMake project the musa device is built with (``device.cmake_build``),
linked into one shared library against the real ``libtorch_cpu.so`` of the
tree's release, and a driver runs PyTorch's own operators on PrivateUse1
tensors and on CPU tensors and compares the results.

Which sources go in:

- the kernels of the selected operators and of the base operators every
  tensor needs (the operator model's ``files``), and the ported files that
  register themselves and that nothing else references (the catalog's
  ``runtime``: the guard);
- the registration of exactly those operators, made by the same generator as
  the port's ``RegisterMUSA.cpp``;
- the copy adapter (``templates/backend/copy_from.cpp.j2``);
- then, round after round, the ported file that defines each symbol the link
  still misses (``whereis``), until nothing is missing or nothing new is found.

A file that does not compile takes the operators that need it out of the
build (they are reported as ``build-error`` with the compiler's first error)
and the rest goes on.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from collections.abc import Iterable
from functools import cache, cached_property
from pathlib import Path

from musaport import children
from musaport.cpp.symbols import SymbolError, demangle, parse_symbol
from musaport.errors import LoadError, Outcome, ToolError
from musaport.ops.emit_registration import header, registration_source
from musaport.ops.model import OperatorModel, operator_model
from musaport.outdir import VALIDATE_BACKEND_JSON, OutDir, write_atomic
from musaport.port.request import run_layout, run_rules
from musaport.resources import data_dir, mirrored_shim, render_template
from musaport.rewrite.rules import RuleSet
from musaport.validate.backend import sparse
from musaport.validate.backend.samples import DTYPES, Catalog, Sample
from musaport.validate.compile.buildenv import aten_ops_headers
from musaport.validate.cpu import view as cpu_view
from musaport.validate.device.cmake_build import Built, CMakeBuilder
from musaport.validate.torchwheel.libtorch import Libtorch
from musaport.whereis.search import whereis

BASE_FLAGS = ["-std=c++17", "-O1", "-fPIC", "-pthread", "-w", "-DAT_PER_OPERATOR_HEADERS",
              "-DC10_MUSA_NO_CMAKE_CONFIGURE_FILE"]
# A .mu is MUSA source: the MUSA compiler includes its runtime header implicitly, as the shim's does.
MU_FLAGS = ["-include", "musa_runtime.h", "-x", "c++"]
# Device code is compiled as GPU compilers do by default (nvcc's --fmad=true, clang's CUDA mode,
# which the MUSA compiler follows): a*b+c contracts to one fused multiply-add. Without it a kernel
# differs from CUDA's results where rounding meets overflow (complex mul of 1e20 parts: CUDA's
# inf+3.2e14j, an unfused product's inf+0j). GCC forms FMAs only with -fexpensive-optimizations,
# which -O1 leaves off, and only for a host that has the instruction.
FMA_FLAGS = ["-mfma", "-ffp-contract=fast", "-fexpensive-optimizations"]
# Kernels at -O3: the kernel is inlined into the launch's per-thread lambda and its per-thread element
# loop unrolled. bench/shim_launch.py (a 1M-element add shaped as PyTorch's elementwise kernel, a block
# reduction with barriers, in a dlopen'd library) measured 4.3 -> 2.2 ms and 5.8 -> 4.4 ms of CPU per
# call. It costs compile time (FillKernel.mu: +38% CPU), so it applies to .mu files only, where the
# kernels are. TLS descriptors (-mtls-dialect=gnu2, which make each threadIdx read cheaper) are not used:
# built with them (at -O2 or -O3), the elementwise fixture, loaded with dlopen, launched with garbage
# dimensions on this machine's glibc 2.36 (not pinned down; glibc's bug 31372, registers that
# _dl_tlsdesc_dynamic's slow path did not preserve, fixed in 2.40, is of that kind).
# Without the tree vectorizer: GCC 12 (Debian's) stops with an internal compiler error ("unrecognizable
# insn", a V2SF shift) vectorizing signbit in UnarySignKernels.mu at -O2 and -O3, with or without SLP
# vectorization; -O3 -fno-tree-vectorize compiles it and keeps the inlining and unrolling measured above.
# Without type-based alias analysis: CUDA code loads and stores through vector views of arrays of another
# type (`*reinterpret_cast<uint4 (*)[1]>(&float_vals[4])` handed to cub's BlockLoad, PyTorch's
# aligned_vector), which the GPU compilers keep; GCC at -O2 and above may assume such a store leaves the
# float array alone and read its initial zeros instead. causal-conv1d's float32 backward returned an
# all-zero weight gradient that way (half and bfloat16, and every output, right); with this flag its
# tests pass. The extension stand-in compiles .mu files with it too (validate.extension.build).
ALIASING_FLAGS = ["-fno-strict-aliasing"]
KERNEL_OPT_FLAGS = ["-O3", "-fno-tree-vectorize", *ALIASING_FLAGS]


def host_has_fma(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """True when this machine's CPU runs FMA instructions (its cpuinfo flags say ``fma``)."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(line.startswith("flags") and " fma " in f"{line} " for line in text.splitlines())


@cache
def _mu_flags() -> tuple[str, ...]:
    return (*MU_FLAGS, *(FMA_FLAGS if host_has_fma() else []), *KERNEL_OPT_FLAGS)


def mu_flags() -> list[str]:
    """The flags of a ``.mu`` source on this machine (cpuinfo is read once, not per file)."""
    return list(_mu_flags())


LIBRARY = "libmusaport_backend.so"
SHIM = "shim"  # the shim's mirror in the state folder, beside the library (resources.mirrored_shim)
# What a PrivateUse1 backend adds around the port (templates/backend): the _copy_from that
# at::native::copy_ re-dispatches to, the PrivateUse1 hooks, convolution routed to the ported
# kernels, the operators libtorch's generic code refuses for the device, autocast, deterministic
# scatter, index with its index tensors strided alike, libtorch's device-generic sparse kernels on the
# device's sparse keys (backend/sparse.py), and the autograd fallback libtorch gives every backend's
# autograd key but PrivateUse1's.
ADAPTERS = ("copy_from", "hooks", "convolution", "refused_ops", "autocast", "deterministic", "indexing", "sparse",
            "autograd_fallback")
# Adapters that call the port's own kernels (at::musa::) for the cases they leave alone: built only with them.
WRAPPING_ADAPTERS = ("deterministic", "indexing")
_ADAPTER_IMPL = re.compile(r'TORCH_LIBRARY_IMPL\(aten, PrivateUse1, m\) \{(.*?)^\}', re.S | re.M)
_IMPL_NAME = re.compile(r'm\.impl\("([\w.]+)"')
MAX_ROUNDS = 8
# The port's own registration files: the build registers its selection with a registration of its own.
_REGISTRATION = re.compile(r"^RegisterMUSA(_\w+)?\.cpp$")


class Status(Outcome):
    """The outcome of one sample (or one of its dtypes); the value is what the report says."""

    PASS = "pass"
    FAIL = "fail"
    BUILD_ERROR = "build-error"
    SKIPPED = "skipped"
    PENDING = "pending"  # not decided before the run: the driver runs the sample


STATUSES = (Status.PASS, Status.FAIL, Status.BUILD_ERROR, Status.SKIPPED)  # what a report can say


@dataclass(frozen=True)
class DtypeResult:
    dtype: str
    status: Status
    max_error: float
    cases: int
    detail: str


@dataclass(frozen=True)
class OpResult:
    """One sample: its status and why, and each dtype's figures."""

    op: str
    status: Status
    reason: str = ""
    dtypes: tuple[DtypeResult, ...] = ()


@dataclass
class Plan:
    """What one build compiles: ported sources by the samples needing them, and the registered operators."""

    needs: dict[str, set[str]] = field(default_factory=dict)  # port-relative source -> samples ("" = all)
    registered: dict[str, list[str]] = field(default_factory=dict)  # sample -> operator names
    base: list[str] = field(default_factory=list)
    unlinked: dict[str, str] = field(default_factory=dict)  # sample -> the symbol no ported file defines
    tried: set[str] = field(default_factory=set)  # symbols whose definers were added (missing again: blame)
    unbuilt: dict[str, str] = field(default_factory=dict)  # function symbol -> why its definer is not built


def validate_backend(out: OutDir, catalog: Catalog, chosen: list[Sample], libtorch: Libtorch, jobs: int,
                     log=print) -> tuple[list[OpResult], dict]:
    """Build the backend for ``chosen`` and run each sample; results and build figures."""
    out.require_port()
    source = Path(out.porting_report()["source"])
    started = time.monotonic()
    state = out.work("backend")
    problems = cpu_view.refresh(out.tree, state / "cpu")
    for p in problems:
        log(f"musaport: warning: {p.file}: launch not converted for the CPU build: {p.error}")
    model = operator_model(source, out, layout=run_layout(out), jobs=jobs)
    plan = plan_sources(model, out, catalog, chosen)
    flags = BuildEnv(out, source, state, libtorch, jobs).common_flags  # the operator headers made first
    link_libs = BuildEnv(out, source, state, libtorch, jobs).link_libs()
    builder = CMakeBuilder(state, out.root, state / "cpu", flags, mu_flags(),
                           ["-Wl,--no-undefined", "-Wl,--no-demangle"], link_libs, False, jobs, log)
    env = BuildEnv(out, source, state, libtorch, jobs, builder)
    failed: dict[str, str] = {}
    library, missing, built = _build(env, plan, model, chosen, failed, log)
    results = [_result_without_run(s, plan, failed, missing, library) for s in chosen]
    driver = _driver(env, chosen) if library else None
    with ThreadPoolExecutor(max(1, jobs)) as pool:  # one process per sample, as many at once as --jobs
        results = list(pool.map(lambda rs: rs[0] if rs[0].status != Status.PENDING else run_sample(env, driver, rs[1]),
                                zip(results, chosen)))
    figures = {"seconds": round(time.monotonic() - started, 1), "objects": len(built),
               "compiled": sum(not b.reused for b in built), "reused": sum(b.reused for b in built),
               "failed_sources": failed, "missing_symbols": missing[:20]}
    return results, figures


def plan_sources(model: OperatorModel, out: OutDir, catalog: Catalog, chosen: list[Sample]) -> Plan:
    """The ported sources and registrations the samples need, from the operator model."""
    ported = out.out_paths()
    plan = Plan(base=[n for n in catalog.base if n in model.wrappers])
    for rel in catalog.runtime:
        plan.needs.setdefault(rel, set()).add("")
    for name in plan.base:
        _need(plan, ported, model.operators[name].files, "")
    for s in chosen:
        queries = s.register if s.register is not None else (s.name,)
        names = [op.name for q in queries for op in model.resolve(q)]  # "where": every overload of it
        names = [n for n in dict.fromkeys(names) if n in model.wrappers and n not in plan.base]
        plan.registered[s.name] = names
        for n in names:
            _need(plan, ported, model.operators[n].files, s.name)
    return plan


def _need(plan: Plan, ported: dict[str, str], files: tuple[str, ...], sample: str) -> None:
    for src in files:
        rel = ported.get(src)
        if rel and rel.endswith((".mu", ".cpp")):
            plan.needs.setdefault(rel, set()).add(sample)


@dataclass(frozen=True)
class BuildEnv:
    """Where and how the backend is built."""

    out: OutDir
    source: Path
    state: Path
    libtorch: Libtorch
    jobs: int
    builder: CMakeBuilder | None = None  # what compiles and links (set before _build)

    @property
    def view(self) -> Path:
        return self.state / "cpu"

    @cached_property
    def common_flags(self) -> list[str]:
        """libtorch's own flags, then the include path: shim, the CPU view of the port, validate's
        generated operator headers (made once, before the parallel compiles), libtorch's headers, and
        the tree's own, for the internal headers a wheel does not ship (``ATen/native/ufunc/add.h``), and
        after them the shim's stand-ins for the tree's submodules (``fmt/printf.h``)."""
        ops = aten_ops_headers(self.source, self.out.work("validate"))
        shim = mirrored_shim(self.state / SHIM)  # inside --out: the same relative path in every build the cache serves
        dirs = [shim / "include", self.view / "aten/src", self.view, ops, *self.libtorch.include,
                self.source / "aten/src", self.source]
        return [*BASE_FLAGS, *self.libtorch.cxx_flags(), *[f"-I{d}" for d in dirs], f"-idirafter{shim / 'third_party'}"]

    @cached_property
    def rules(self) -> RuleSet:
        """The run's packs (``port.request``), loaded once: the registration names kernels as the port
        renamed them (only the names tables are read, so nothing is compiled)."""
        return run_rules(self.out, compile=False)

    @cached_property
    def sparse_values(self) -> dict[str, object]:
        """The sparse adapter's values (``backend/sparse.py``), read once per build, not per round: the
        release's yaml and its generated native headers do not change between rounds."""
        return sparse.adapter_values(self.source, aten_ops_headers(self.source, self.out.work("validate")) / "ATen/ops")

    def link_libs(self) -> list[str]:
        lib = self.libtorch.lib
        flags = [f"-L{lib}", f"-Wl,-rpath,{lib}", "-ltorch_cpu", "-lc10"]
        for runtime in self.libtorch.runtime_libs:
            flags += [f"-Wl,-rpath-link,{runtime}", f"-Wl,-rpath,{runtime}"]
        return flags


def _build(env: BuildEnv, plan: Plan, model: OperatorModel, chosen: list[Sample], failed: dict[str, str],
           log) -> tuple[Path | None, list[str], list[Built]]:
    """Compile and link, adding the files that define missing symbols: the library (or None), what
    stays missing, and every object built or reused on the way.

    Every ported source knows the samples that need it (``""``: all). A file that
    does not compile, or that calls a symbol no ported file defines, takes only its
    samples out; the build goes on without them.
    """
    seen: dict[Path, Built] = {}
    missing: list[str] = []
    for round_no in range(MAX_ROUNDS):
        generated = _generated_sources(env, plan, model, chosen, failed)
        sources = [env.view / rel for rel in sorted(plan.needs) if rel not in failed and _wanted(plan, rel, failed)]
        log(f"musaport: backend build round {round_no + 1}: {len(sources)} ported sources")
        built = env.builder.compile(sources, generated)
        for b in built:  # an object compiled in an earlier round counts as compiled, not reused
            seen[b.source] = b if b.source not in seen or not b.reused else seen[b.source]
        broken = next((b for b in built if b.obj is None and b.source in generated), None)
        if broken is not None:  # the registration or an adapter: no sample can be built
            return None, [f"{broken.source.name}: {broken.error}"], list(seen.values())
        newly = {_rel(env, b.source): b.error for b in built if b.obj is None}
        if newly:
            failed.update(newly)
            continue
        library, refs, last = env.builder.link([b.obj for b in built if b.obj is not None], env.state / LIBRARY)
        refs = refs or ({} if library else {last: set()})
        if library is not None:
            return library, [], list(seen.values())
        missing = sorted(refs)
        owners = {b.obj: _rel(env, b.source) for b in built if b.obj is not None}
        if not _settle(env, plan, model, chosen, refs, owners, failed):
            return None, missing, list(seen.values())
    return None, missing or ["the build did not settle"], list(seen.values())


def _settle(env: BuildEnv, plan: Plan, model: OperatorModel, chosen: list[Sample],
            refs: dict[str, set[Path]], owners: dict[Path, str], failed: dict[str, str]) -> bool:
    """One step towards a closed link: add the ported files that define missing symbols; a function
    whose every definer failed to compile, or that a vendor library the port leaves out would define
    (``WITHOUT_VENDOR``), becomes an unbuilt stub (its callers' operators stay, and
    fail only if they reach it); take out the samples whose files call what nothing defines. False
    when none is possible (a file every sample needs calls an undefined symbol)."""
    progress = False
    for mangled, objects in sorted(refs.items()):
        users = set().union(*(plan.needs.get(owners.get(o, ""), set()) for o in objects))
        callers = {owners.get(o, "") for o in objects}
        definers = _definitions(env.out, [mangled])
        if definers and mangled not in plan.tried:  # compiled for the symbol, not for its callers' samples
            plan.tried.add(mangled)
            for rel in definers:
                plan.needs.setdefault(rel, set()).add(f"(defines) {mangled}")
            progress = True
            continue
        why = [_not_built(plan, rel, failed) for rel in sorted(definers)]
        if definers and all(why) and _is_function(mangled):
            plan.unbuilt[mangled] = why[0]
            progress = True
            continue
        lacking = without_vendor(mangled)
        if not definers and lacking and _is_function(mangled):
            plan.unbuilt[mangled] = lacking
            progress = True
            continue
        if any(c not in plan.needs for c in callers):  # called from the registration or an adapter
            blamed = _blame(model, plan, chosen, [mangled])
        elif "" in users:
            blamed = {}
        else:
            blamed = {s: demangle(mangled) for s in users if s not in plan.unlinked}
        plan.unlinked.update(blamed)
        progress |= bool(blamed)
    return progress


def _not_built(plan: Plan, rel: str, failed: dict[str, str]) -> str:
    """Why a ported source is not in the build ('' when it is): it failed to compile, or it calls a
    symbol nothing defines."""
    if rel in failed:
        return f"{rel} did not compile: {failed[rel]}"
    if rel in plan.needs and not _wanted(plan, rel, failed):
        missing = next((plan.unlinked[u] for u in sorted(plan.needs[rel]) if u in plan.unlinked), "")
        return f"{rel} calls {missing}, which no ported file defines" if missing else f"{rel} is left out"
    return ""


# Symbols that name data or compiler-made tables, not functions: an alias of a function cannot stand in.
_NOT_FUNCTIONS = ("vtable for ", "VTT for ", "typeinfo for ", "typeinfo name for ", "guard variable for ",
                  "construction vtable for ", "TLS init function for ", "TLS wrapper function for ")


# Functions of a vendor library the port is built without (the layout's vendor folders, AT_CUDNN_ENABLED 0):
# CUDA's kernels call them behind a runtime check, and PyTorch's own build without the library defines
# them to raise (native/cudnn/MHA.cpp's run_cudnn_SDP_fprop and _bprop, which attention.cu calls). Their
# names say the library; a call links to a stub that raises, so the callers' files (the transformer
# kernels, _native_multi_head_attention's) stay in the build.
WITHOUT_VENDOR = {re.compile(r"^at::native::\w*cudnn\w*\(", re.I):
                  "cuDNN is not part of a MUSA build (aten/src/ATen/native/cudnn is not ported); "
                  "PyTorch built without cuDNN raises here too"}


def without_vendor(mangled: str) -> str:
    """Why a function that a vendor library the port leaves out would define has no definition ('' for any
    other symbol)."""
    try:
        name = demangle(mangled)
    except SymbolError:
        return ""
    return next((why for pattern, why in WITHOUT_VENDOR.items() if pattern.match(name)), "")


def _is_function(mangled: str) -> bool:
    """A mangled function name (a call can land on a stub); variables and vtables are not."""
    if not mangled.startswith("_Z"):
        return False
    try:
        text = demangle(mangled)
    except SymbolError:
        return False
    return "(" in text and not text.startswith(_NOT_FUNCTIONS)


def _blame(model: OperatorModel, plan: Plan, chosen: list[Sample], missing: list[str]) -> dict[str, str]:
    """Samples whose registered wrappers call a symbol no ported file defines: sample -> that symbol."""
    blamed = {}
    for mangled in missing:
        try:
            symbol = parse_symbol(mangled, demangle(mangled))
        except SymbolError:
            continue
        owner = "::".join(symbol.scope) if symbol.scope else symbol.name
        for s in chosen:
            if s.name in plan.unlinked or s.name in blamed:
                continue
            wrappers = [model.wrappers[n].wrapper for n in plan.registered.get(s.name, [])]
            if any(w is not None and owner in f"{w.call} {w.parent}" for w in wrappers):
                blamed[s.name] = symbol.demangled
    return blamed


def _wanted(plan: Plan, rel: str, failed: dict[str, str]) -> bool:
    """A source still needed: by every sample, or by one that has not left the build."""
    users = plan.needs[rel]
    return "" in users or any(s not in plan.unlinked and not _blocked(plan, s, failed) for s in users)


def _rel(env: BuildEnv, path: Path) -> str:
    try:
        return path.relative_to(env.view).as_posix()
    except ValueError:
        return path.name


def _generated_sources(env: BuildEnv, plan: Plan, model: OperatorModel, chosen: list[Sample],
                       failed: dict[str, str]) -> list[Path]:
    """The registration (without the samples a failed file takes out), the copy adapter and nothing else."""
    names = list(plan.base)
    for s in chosen:
        if not _blocked(plan, s.name, failed) and s.name not in plan.unlinked:
            names += [n for n in plan.registered.get(s.name, []) if n not in names]
    active = active_adapters(names)
    adapted = adapted_operators(active)  # an adapter's kernel replaces the generated one's registration
    gen = env.state / "gen"
    registrations = []
    shards = registration_shards(names)
    for i, chunk in shards.items():
        registrations.append(gen / (f"RegisterMUSA_backend_{i:02}.cpp" if len(shards) > 1 else "RegisterMUSA_backend.cpp"))
        write_atomic(registrations[-1], registration_source(model, chunk, env.rules, adapted).encode())
    for stale in set(gen.glob("RegisterMUSA_backend*.cpp")) - set(registrations):
        stale.unlink()  # a shard or the single file of an earlier selection: nothing compiles it now
    adapters = [gen / f"{name}.cpp" for name in ADAPTERS]
    for path in adapters:
        write_atomic(path, render_template(f"backend/{path.stem}.cpp.j2", header=header("templates/backend"),
                                           active=path.stem in active, **env.sparse_values).encode())
    unbuilt = gen / "unbuilt.cpp"
    if not plan.unbuilt:
        unbuilt.unlink(missing_ok=True)
        return [*registrations, *adapters]
    write_atomic(unbuilt, unbuilt_source(plan.unbuilt).encode())
    return [*registrations, *adapters, unbuilt]


@cache
def adapter_operators(adapter: str) -> frozenset[str]:
    """The operators one adapter registers for PrivateUse1 itself (its ``m.impl`` names)."""
    text = (data_dir("templates") / "backend" / f"{adapter}.cpp.j2").read_text(encoding="utf-8")
    return frozenset(n for block in _ADAPTER_IMPL.findall(text) for n in _IMPL_NAME.findall(block))


def active_adapters(names: Iterable[str]) -> tuple[str, ...]:
    """The adapters a build of ``names`` compiles: all, but an adapter that wraps the port's own kernels
    (``WRAPPING_ADAPTERS``, which call ``at::musa::``) only when the build registers every operator it
    wraps; a smaller build keeps those operators' generated registrations."""
    present = set(names)
    return tuple(a for a in ADAPTERS if a not in WRAPPING_ADAPTERS or adapter_operators(a) <= present)


def adapted_operators(adapters: Iterable[str] = ADAPTERS) -> frozenset[str]:
    """The operators ``adapters`` register for PrivateUse1 themselves: the build's registration leaves
    them out, so that each has one kernel (a second would override the first, in whatever order the
    libraries' initialisers run)."""
    return frozenset(n for a in adapters for n in adapter_operators(a))


def unbuilt_source(unbuilt: dict[str, str]) -> str:
    """The stubs of functions whose definers are not built: each mangled name an alias of a function
    that raises c10::Error with the symbol and why (the first compiler error of its file)."""
    stubs = []
    for mangled, why in sorted(unbuilt.items()):  # _settle admits only names that demangle
        name = demangle(mangled)
        stubs.append({"symbol": mangled, "demangled": c_string(name), "reason": c_string(why),
                      "demangled_comment": name.replace("*/", "* /").replace("\n", " ")})
    return render_template("backend/unbuilt.cpp.j2", header=header("templates/backend"), stubs=stubs)


def c_string(text: str) -> str:
    """``text`` as the inside of a C string literal: printable ASCII as is, the rest as octal escapes of
    its UTF-8 bytes (a compiler message has quotes, backslashes and typographic quotes)."""
    out = []
    for byte in text.encode():
        ch = chr(byte)
        if ch in '"\\?':
            out.append("\\" + ch)
        elif 0x20 <= byte < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return "".join(out)


# A registration of more operators than this is split into SHARDS files (the whole port's is 48,000
# lines): they compile in parallel, and an operator that leaves the build recompiles only its shard.
SHARD_AT = 128
SHARDS = 16


def registration_shards(names: list[str]) -> dict[int, list[str]]:
    """Shard number -> its operators: one shard, or (above SHARD_AT) up to SHARDS by a stable hash of each
    name, so an operator stays in its shard whatever else is registered. Every shard is a complete
    registration file: its wrappers and helpers are file-local, its dispatch-key API its own operators'."""
    if len(names) <= SHARD_AT:
        return {0: list(names)}
    shards: dict[int, list[str]] = {}
    for name in names:
        shards.setdefault(zlib.crc32(name.encode()) % SHARDS, []).append(name)
    return dict(sorted(shards.items()))


def _blocked(plan: Plan, sample: str, failed: dict[str, str]) -> str:
    """The first failed file the sample needs (its own or a shared one), or ''."""
    return next((rel for rel, users in sorted(plan.needs.items()) if rel in failed and users & {sample, ""}), "")


def _definitions(out: OutDir, symbols: list[str]) -> set[str]:
    """The ported sources that define ``symbols`` (whereis's answer for each)."""
    found: set[str] = set()
    for mangled in symbols:
        try:
            symbol = parse_symbol(mangled, demangle(mangled))
        except SymbolError:
            continue
        found |= {f for f in whereis(symbol, out).add
                  if f.endswith((".mu", ".cpp")) and not _REGISTRATION.match(f.rsplit("/", 1)[-1])}
    return found


def _result_without_run(s: Sample, plan: Plan, failed: dict[str, str], missing: list[str],
                        library: Path | None) -> OpResult:
    """build-error when the sample cannot run; 'pending' when the driver should run it."""
    blocked = _blocked(plan, s.name, failed)
    if blocked:
        return OpResult(s.name, Status.BUILD_ERROR, f"{blocked}: {failed[blocked]}")
    if s.name in plan.unlinked:
        return OpResult(s.name, Status.BUILD_ERROR, f"link: no ported file defines {plan.unlinked[s.name]}")
    if library is None:
        return OpResult(s.name, Status.BUILD_ERROR, "link: undefined " + ", ".join(demangle(m) for m in missing[:3]))
    if not plan.registered.get(s.name) and s.register is None:
        return OpResult(s.name, Status.SKIPPED, "the operator model registers no overload of it")
    return OpResult(s.name, Status.PENDING)


def _driver(env: BuildEnv, chosen: list[Sample]) -> Path:
    """The driver, built by the library's own CMake project (its objects and link already done)."""
    source = env.state / "gen" / "driver.cpp"
    text = render_template("backend/driver.cpp.j2", header=header("templates/backend"), samples=chosen,
                           dtypes=DTYPES)
    write_atomic(source, text.encode())
    flags = [*BASE_FLAGS, *env.libtorch.cxx_flags(), *[f"-I{d}" for d in env.libtorch.include]]
    return env.builder.executable(source, flags, env.state / "driver")


def run_sample(env: BuildEnv, driver: Path | None, s: Sample, timeout: float = 300) -> OpResult:
    """Run one sample in its own process, so a crash costs only that sample."""
    if driver is None:
        return OpResult(s.name, Status.BUILD_ERROR, "no driver")
    try:
        done = children.run([str(driver), s.name], cwd=env.state, timeout=timeout)
    except subprocess.TimeoutExpired:
        return OpResult(s.name, Status.FAIL, f"timed out after {timeout:.0f} s")
    rows = parse_rows(done.stdout)
    if done.returncode != 0 or len(rows) != len(s.dtypes):
        last = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return OpResult(s.name, Status.FAIL, f"the driver stopped: {last[:300]}", tuple(rows))
    bad = next((r for r in rows if r.status != Status.PASS), None)
    if bad:
        return OpResult(s.name, Status.FAIL, f"{bad.dtype}: {bad.detail}", tuple(rows))
    return OpResult(s.name, Status.PASS, "", tuple(rows))


def parse_rows(stdout: str) -> list[DtypeResult]:
    """The driver's JSON lines (anything else it printed is ignored)."""
    rows = []
    for line in stdout.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            rows.append(DtypeResult(d["dtype"], Status(d["status"]), float(d["max_error"]), int(d["cases"]), d["detail"]))
    return rows


def write_report(out: OutDir, version: str, results: list[OpResult], figures: dict) -> Path:
    """validate_backend_report.json: ``{"torch_version": ..., "ops": {name: {"status": ...}}}``."""
    doc = {"torch_version": version, "build": figures,
           "ops": {r.op: {"status": r.status, "reason": r.reason,
                          "dtypes": {d.dtype: {k: v for k, v in asdict(d).items() if k != "dtype"} for d in r.dtypes}}
                   for r in results}}
    path = out.top(VALIDATE_BACKEND_JSON)
    write_atomic(path, (json.dumps(doc, indent=2) + "\n").encode())
    return path
