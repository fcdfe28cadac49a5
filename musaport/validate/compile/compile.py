"""``musaport validate --compile``: does the ported code compile against the MUSA shim?

Each selected translation unit of a ported tree is checked by clang in CUDA
mode (the ziglang wheel's by default, see ``toolchain``), twice: host-only (which still checks device code for calls into host
functions) and device-only for ``sm_70`` so that ``#if __MUSA_ARCH__``
branches are read too.  The include path puts the shim first, then the
ported tree, then headers a PyTorch build would generate (``buildenv``),
then the source tree's own headers.  No CUDA header is on it, so a CUDA name
left in ported code is an error.  Results are cached by content.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
import sysconfig
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path

from musaport import children, jsoncache
from musaport.errors import LoadError
from musaport.extension.overlay import overlay_flags
from musaport.fstree import walk
from musaport.ops.emit_cmake import left_out_sources
from musaport.outdir import (CMAKE_FILE, OVERLAY_JSON, VALIDATE_JSON, VALIDATE_MD, VALIDATE_RESULTS, OutDir,
                              write_atomic)
from musaport.port.cache import CACHE_NAME
from musaport.port.request import Request
from musaport.resources import default_fixture_tree, render_template, shim_include, shim_wrappers
from musaport.validate.clang import toolchain
from musaport.validate.clang.toolchain import Toolchain
from musaport.validate.compile.buildenv import aten_ops_headers, config_headers

PASSES = {
    "host": ["--cuda-host-only"],
    "device": ["--cuda-device-only", "--cuda-gpu-arch=sm_70"],
}
BASE_FLAGS = ["-x", "cuda", "-nocudainc", "-nocudalib", "-fsyntax-only", "-std=c++17", "-w",
              "-ferror-limit=1", "-Wno-unknown-cuda-version", "-DAT_PER_OPERATOR_HEADERS",
              "-DC10_MUSA_NO_CMAKE_CONFIGURE_FILE",
              # The MUSA compiler, like nvcc, includes its runtime header implicitly; clang's own
              # CUDA wrappers of <algorithm> and <new> need __host__/__device__ before anything else.
              "-include", "musa_runtime.h"]


@dataclass(frozen=True)
class Outcome:
    """One translation unit: passed, or the first error with its file:line."""

    file: str
    ok: bool
    failed_pass: str = ""
    error: str = ""




# results.json as this module writes it (``jsonfile`` shape): anything else is no cache.
RESULTS_SHAPE = {"env": str, "results": {"*": {"file": str, "ok": bool, "failed_pass": str, "error": str}}}


def build_list_outcomes(out: OutDir, outcomes: list[Outcome]) -> list[Outcome]:
    """The outcomes of files in the default build list (the port's CMake lists leave some out)."""
    try:
        apart = left_out_sources((out.tree / CMAKE_FILE).read_text(encoding="utf-8"))
    except OSError:
        apart = set()
    return [o for o in outcomes if o.file not in apart]


def render_reports(out: OutDir, outcomes: list[Outcome]) -> None:
    """validate_report.json for machines and validate_report.md for people."""
    passed = sum(o.ok for o in outcomes)
    built = build_list_outcomes(out, outcomes)
    doc = {"passed": passed, "failed": len(outcomes) - passed, "total": len(outcomes),
           "build_list": {"passed": sum(o.ok for o in built), "total": len(built)},
           "files": [asdict(o) | {"in_build_list": o in built} for o in outcomes]}
    write_atomic(out.top(VALIDATE_JSON), (json.dumps(doc, indent=2) + "\n").encode())
    write_atomic(out.top(VALIDATE_MD), render_template("validate_report.md.j2", doc=doc).encode())


class Progress:
    """Where long phases are said (the command line gives one that draws a bar or writes phase lines);
    this one says nothing, so library callers and tests see no output they did not ask for."""

    def phase(self, text: str):
        """A context for a phase that may take a while, said before it starts."""
        return nullcontext()

    def steps(self, text: str, total: int):
        """A context for a loop of ``total`` steps; it yields an object whose ``advance()`` counts one."""
        return nullcontext(_Uncounted())


class _Uncounted:
    def advance(self, n: int = 1) -> None:
        pass


def compile_status(out: OutDir, jobs: int, patterns: tuple[str, ...] = ("*.mu",),
                   progress: Progress | None = None) -> dict[str, bool]:
    """File → compiled, for ``musaport check --validate``."""
    return {o.file: o.ok for o in validate_compile(out, patterns, jobs, progress=progress)}


def validate_compile(out: OutDir, patterns: tuple[str, ...], jobs: int,
                     passes: tuple[str, ...] = ("host", "device"), pch: bool = True,
                     torch: Path | None = None, progress: Progress | None = None,
                     torch_headers: list[Path] | None = None, state: Path | None = None,
                     extra_env: str = "") -> list[Outcome]:
    """Check every ported TU matching ``patterns``; cached by TU and environment digest.

    With ``pch`` the common prelude is parsed once per pass into a precompiled
    header that every TU starts from (see :func:`prelude_pchs`). ``torch``:
    OUT is an extension's port (``run --src``), compiled against this
    PyTorch: the OUT of a ``run --pytorch-src``, or an installed torch's
    include folder. ``progress`` is told of the long phases (torchgen, the prelude, the files).
    ``torch_headers``: OUT is an extension's port compiled against exactly these header folders, in
    order (``validate --extension``: a PyTorch port's headers, then the release wheel's); ``state``:
    where the cache and the precompiled preludes go (default: OUT's ``validate`` work folder);
    ``extra_env``: more that decides every result (the PyTorch port's state), digested with the rest.
    """
    progress = progress or Progress()
    clang = toolchain.find()
    out.require_port()
    recorded = Request.load(out)  # the run's own request names its tree; older ports only their report
    source = recorded.source if recorded is not None else Path(out.porting_report()["source"])
    tree, state = out.tree, state or out.work("validate")
    if torch_headers is not None:
        includes = _extension_includes(out, source, torch_headers, state)
    elif torch is not None:
        includes = _extension_includes(out, source, torch_dirs(torch, out.work("validate") / "torch"), state)
    else:
        includes = _includes(tree, source, state, progress)
    every = (Path(folder) / name for folder, _, names in walk(tree) for name in names)  # any depth (fstree)
    files = sorted(p for p in every if p.is_file() and _selected(p.relative_to(tree).as_posix(), patterns))
    if not files:
        raise LoadError(f"{tree}: no ported file matches {' '.join(patterns)}")
    if torch is not None and (torch / "torch/extension.h").is_file() and any(f.suffix == ".mu" for f in files):
        raise LoadError(f"{torch}: an installed torch's headers are a CUDA build's: device files (.mu) do not "
                        "compile against them alone (c10/util/Half-inl.h takes CUDA's __half in clang's CUDA "
                        "mode), as a MUSA build reads the PyTorch port's c10 headers first; give --torch the "
                        "--out of 'musaport run --pytorch-src' of that release (or 'validate --extension'), or "
                        "select host files ('*.cpp')")
    own = torch_headers is not None or torch is not None  # an extension's TUs: see _check
    env = _environment_digest(out, clang, includes, passes + (("pch", *PRELUDE, *_PCH_FLAGS) if pch else ())
                              + (("retried without the prelude",) if own else ()))
    if torch is not None:  # the PyTorch port an extension compiles against is part of its environment
        extra_env += _environment_digest(OutDir(torch), clang, [], ())
    if extra_env:
        env = hashlib.sha256((env + extra_env).encode()).hexdigest()
    cache = (jsoncache.load(state / VALIDATE_RESULTS, RESULTS_SHAPE, env=env) or {}).get("results", {})
    todo = sorted((f for f in files if _key(f) not in cache), key=lambda f: -f.stat().st_size)  # slowest first
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        pchs = prelude_pchs(pool, out, clang, includes, passes, env, progress, state) if pch and todo else {}
        with progress.steps(f"checking {len(todo)} translation units ({clang.version})", len(todo)) as counter:
            futures = {pool.submit(_check, clang, f, tree, includes, passes, pchs, own): f for f in todo}
            for future in as_completed(futures):
                cache[_key(futures[future])] = asdict(future.result())
                counter.advance()
    jsoncache.dump(state / VALIDATE_RESULTS, {"env": env, "results": cache})
    return [Outcome(**cache[_key(f)]) for f in files]


def _includes(tree: Path, source: Path, state: Path, progress: Progress | None = None) -> list[str]:
    return [f"-I{d}" for d in [shim_include(), *_pytorch_dirs(tree, source, state, progress)]]


def _pytorch_dirs(tree: Path, source: Path, state: Path, progress: Progress | None = None) -> list[Path]:
    """A ported PyTorch's headers: the port, the generated headers, then the tree's own."""
    generated = config_headers(source, state / "config")
    # A tree without torchgen (a hand-made fixture tree) has no generated operator headers.
    ops = [aten_ops_headers(source, state, progress)] if (source / "torchgen").is_dir() else []
    port, own = _header_roots(tree, source)
    return [*port, generated, *ops, *own]


def _header_roots(tree: Path, source: Path) -> tuple[list[Path], list[Path]]:
    """The include roots of the port and of its source tree (the generated headers go between)."""
    return [tree / "aten/src", tree], [source / "aten/src", source, source / "torch/csrc/api/include"]


_HEADER_SUFFIXES = {".h", ".hpp", ".hh", ".cuh", ".muh", ".inl", ".inc"}


def _holds_headers(folder: Path) -> bool:
    try:
        return any(p.suffix in _HEADER_SUFFIXES and p.is_file() for p in folder.iterdir())
    except OSError:
        return False


def _some(names: list[str], shown: int = 4) -> str:
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


_NOT_FOUND = re.compile(r"fatal error: '([^']+)' file not found")
# Headers that only a build of PyTorch writes (torchgen's output); a source tree and its port have none.
_GENERATED_BY_A_BUILD = ("torch/csrc/autograd/generated/", "ATen/ops/", "ATen/core/TensorBody.h")


def missing_headers_note(out: OutDir, outcomes: list[Outcome]) -> str | None:
    """Why files fail on headers that exist nowhere: the port's source tree lacks them.

    Said from the port itself: the headers clang did not find, and which of their top folders
    (``ATen``, ``cutlass``) no include root of the port or its source tree has at all. A port of the
    bundled fixture tree (a porting sample with no ATen headers) is named as such.
    """
    failing = [(o, m.group(1)) for o in outcomes if not o.ok for m in [_NOT_FOUND.search(o.error)] if m]
    source = out.source()
    if not failing or source is None:
        return None
    headers = sorted({h for _, h in failing})
    port, own = _header_roots(out.tree, source)
    folders = sorted({h.rsplit("/", 1)[0] for h in headers if "/" in h})
    empty = [f + "/" for f in folders if not any(_holds_headers(root / f) for root in port + own)]
    note = (f"{len(failing)} of {len(outcomes)} files fail on headers that are neither in the port nor in "
            f"its source tree {source} ({_some(headers)})")
    if empty:
        note += f"; that tree has no headers in {_some(empty)}"
    if any(h.startswith(_GENERATED_BY_A_BUILD) for h in headers):
        note += ("; a PyTorch build generates those: 'musaport validate --extension --torch PT_OUT' compiles an "
                 "extension's port against the release wheel's own headers, which have them")
    if source.resolve() == default_fixture_tree().resolve():
        note += ("; it is the bundled fixture tree, a porting sample rather than a buildable PyTorch: "
                 "compile the port of a real tree (musaport run --pytorch-src PYTORCH)")
    return note


def _extension_includes(out: OutDir, source: Path, torch_headers: list[Path], state: Path) -> list[str]:
    """An extension's port laid over the project's own files (see ``extension.overlay``), then the
    PyTorch headers."""
    project = overlay_flags(out.tree, source, set(out.out_paths()), state / OVERLAY_JSON)
    return [f"-I{shim_include()}", *project, *[f"-I{d}" for d in torch_headers]]


def torch_dirs(torch: Path, generated: Path) -> list[Path]:
    """The PyTorch headers ``--torch`` names: an installed torch's include folder, or a ported PyTorch's OUT
    (its port, the tree its porting_report.json names, and the headers a build would generate, made from
    that tree into ``generated``: a folder of the extension's own OUT, never the PyTorch port's)."""
    python = Path(sysconfig.get_paths()["include"])  # torch/extension.h includes Python.h
    if (torch / "torch/extension.h").is_file():
        return [torch, torch / "torch/csrc/api/include", python]
    port = OutDir(torch)
    source = port.source()
    if not port.report_json.is_file() or source is None:
        raise LoadError(f"{torch}: --torch is neither a torch include folder (no torch/extension.h) "
                        f"nor the --out of 'musaport run --pytorch-src' (no {port.report_json.name})")
    if not (source / "aten/src/ATen").is_dir():
        raise LoadError(f"{torch}: --torch is a port of {source}, which is not a PyTorch tree")
    return _pytorch_dirs(port.tree, source, generated) + [python]


def _selected(rel: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(rel.rsplit("/", 1)[-1], p) for p in patterns)


# Headers most ported kernels include, parsed once per pass into a precompiled header that every TU
# starts from instead of re-reading them. The list is what 15 or more of 2.6.0's ported .mu files
# include directly (and MUSAGuard.h, block_reduce.muh and Reduce.muh, which 11 to 14 include),
# less what would change a verdict or cost more than it saves: UnaryOps.h and
# BinaryOps.h declare stubs that other headers declare again with another type (clamp_stub,
# add_stub), and ATen.h, Functions.h and NativeFunctions.h declare every operator. Each entry is
# guarded by __has_include, so a release or an installed torch without one still gets a prelude.
# A TU sees these declarations even where it does not include them: validate checks that the port
# compiles, not PyTorch's own include hygiene (its TORCH_ASSERT_NO_OPERATORS checks).
PRELUDE = ("musa_runtime.h", "ATen/Dispatch.h", "ATen/core/Tensor.h", "ATen/native/TensorIterator.h",
           "ATen/native/DispatchStub.h", "ATen/AccumulateType.h", "ATen/musa/MUSAContext.h",
           "ATen/native/musa/Loops.muh", "ATen/native/musa/JitLoops.muh", "ATen/native/musa/Math.muh",
           "c10/musa/MUSAMathCompat.h", "ATen/NumericUtils.h", "ATen/TensorUtils.h",
           "ATen/musa/detail/KernelUtils.h", "ATen/musa/detail/OffsetCalculator.muh",
           "ATen/musa/detail/IndexUtils.muh", "ATen/ceil_div.h", "ATen/OpMathType.h", "ATen/musa/Atomic.muh",
           "ATen/musa/NumericLimits.muh", "ATen/native/Resize.h", "ATen/native/musa/block_reduce.muh",
           "c10/musa/MUSAGuard.h", "ATen/ops/empty.h", "ATen/ops/empty_like.h", "ATen/native/musa/Reduce.muh",
           "ATen/native/ForeachUtils.h", "thrust/tuple.h", "c10/util/complex.h")
# Should one of them not compile (a broken ported header), the core alone, then no prelude.
CORE_PRELUDE = PRELUDE[:8]
# Building a precompiled header needs an output stage: -S stops the device pass before ptxas.
# The templates the prelude uses (the runtime's containers, TensorIterator's) are instantiated in
# the PCH, once, instead of at the end of every TU (0.5 s of an empty TU's 0.65 s).
_PCH_FLAGS = ("-S", "-Xclang", "-emit-pch", "-fpch-instantiate-templates")


def prelude_text(headers: tuple[str, ...]) -> str:
    """The prelude header: each entry included where the include path has it."""
    return "".join(f"#if __has_include(<{h}>)\n#include <{h}>\n#endif\n" for h in headers)


def prelude_pchs(pool: ThreadPoolExecutor, out: OutDir, clang: Toolchain, includes: list[str],
                 passes: tuple[str, ...], env: str, progress: Progress | None = None,
                 state: Path | None = None) -> dict[str, Path]:
    """Pass → precompiled prelude, built once per environment (in ``state``, by default OUT's ``validate``
    work folder); a pass whose prelude does not build (a broken ported header) falls back to the core
    prelude, then to none, so its TUs report their own first error."""
    state = state or out.work("validate")
    headers = []
    for tier, names in (("full", PRELUDE), ("core", CORE_PRELUDE)):
        headers.append(state / f"prelude-{tier}.h")
        write_atomic(headers[-1], prelude_text(names).encode())
    wanted = {name: state / f"prelude-{name}-{env[:16]}.pch" for name in passes}
    for old in set(state.glob("prelude-*.pch")) - set(wanted.values()):
        old.unlink(missing_ok=True)  # 50 MB each: keep only this environment's
    missing = not all(p.is_file() for p in wanted.values())
    with (progress or Progress()).phase(f"precompiling the common prelude ({', '.join(wanted)} "
                                        f"pass{'es' if len(wanted) > 1 else ''})") if missing else nullcontext():
        built = list(pool.map(lambda item: _build_pch(clang, headers, item[1], includes, PASSES[item[0]]),
                              wanted.items()))
    return {name: path for (name, path), ok in zip(wanted.items(), built) if ok}


def _build_pch(clang: Toolchain, headers: list[Path], pch: Path, includes: list[str], pass_flags: list[str]) -> bool:
    """Build ``pch`` from the first of ``headers`` that compiles (an existing one is this environment's)."""
    if pch.is_file():
        return True
    flags = [f for f in _without_prelude_include(BASE_FLAGS) if f != "-fsyntax-only"]
    tmp = pch.with_name(f".{pch.name}.tmp")
    for header in headers:
        done = children.run(compile_command(clang, [*flags, *_PCH_FLAGS, *pass_flags, *includes, "-o", str(tmp),
                                                    str(header)]), cwd=header.parent)
        if done.returncode == 0:
            tmp.replace(pch)
            return True
        tmp.unlink(missing_ok=True)
    return False


def _without_prelude_include(flags: list[str]) -> list[str]:
    """The base flags without ``-include musa_runtime.h`` (the precompiled prelude starts with it)."""
    at = flags.index("-include")
    return flags[:at] + flags[at + 2:]


def compile_command(clang: Toolchain, args: list[str]) -> list[str]:
    """The toolchain's driver, its own flags (target, system headers), then ``args``."""
    return [*clang.argv, *clang.flags, *args]


def _check(clang: Toolchain, path: Path, tree: Path, includes: list[str], passes: tuple[str, ...],
           pchs: dict[str, Path] | None = None, own_code: bool = False) -> Outcome:
    """Both passes of one TU. ``own_code``: the TU is an extension's, whose own declarations may be the ones
    a prelude header makes too (PyG's ``atomics.cuh`` defines ``AtomicAddIntegerImpl``, as PyTorch's
    ``Atomic.cuh`` does, at global scope). A real build never reads the prelude, so a pass that fails with it
    is compiled again without it: its verdict and its first error are the TU's own."""
    rel = path.relative_to(tree).as_posix()
    for name in passes:
        pch = (pchs or {}).get(name)
        done = _compile_pass(clang, path, tree, includes, name, pch)
        if done.returncode != 0 and pch is not None and own_code:
            done = _compile_pass(clang, path, tree, includes, name, None)
        if done.returncode != 0:
            return Outcome(rel, False, name, first_error(done.stderr, tree))
    return Outcome(rel, True)


def _compile_pass(clang: Toolchain, path: Path, tree: Path, includes: list[str], name: str, pch: Path | None):
    """One clang pass over ``path``, from the precompiled prelude ``pch`` when there is one."""
    flags = [*_without_prelude_include(BASE_FLAGS), "-include-pch", str(pch)] if pch else BASE_FLAGS
    return children.run(compile_command(clang, [*flags, *PASSES[name], *includes, str(path)]), cwd=tree)


def first_error(stderr: str, tree: Path) -> str:
    """The first ``error:`` line, with paths shown relative to the ported tree."""
    for line in stderr.splitlines():
        if " error: " in line or line.startswith("error:") or "fatal error:" in line:
            return line.replace(str(tree) + "/", "")
    return (stderr.strip().splitlines() or ["clang failed without a message"])[0]


def _key(path: Path) -> str:
    return f"{path.as_posix()}:{hashlib.sha256(path.read_bytes()).hexdigest()}"


def _environment_digest(out: OutDir, clang: Toolchain, includes: list[str], passes: tuple[str, ...]) -> str:
    """Everything besides the TU itself that decides a result: compiler, headers, shim, flags."""
    h = hashlib.sha256(" ".join([clang.identity, *BASE_FLAGS, *includes, *passes]).encode())
    port_cache = out.state_file(CACHE_NAME)
    if port_cache.is_file():
        h.update(port_cache.read_bytes())
    for header in sorted([*shim_include().rglob("*"), *shim_wrappers().rglob("*")]):
        if header.is_file():
            h.update(header.read_bytes())
    return h.hexdigest()
