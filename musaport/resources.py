"""Where the bundled rule packs, templates, shim and fixtures live, and the rendering of the templates.

From a checkout they are the top-level folders next to the package; from an
installed wheel they are packaged under ``musaport/_data`` (see
pyproject.toml's force-include).  Both layouts are looked up the same way.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

_PKG = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """The folder ``name`` (rules, templates, fixtures) in a checkout or a wheel."""
    for candidate in (_PKG.parent / name, _PKG / "_data" / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"musaport data folder '{name}' not found next to {_PKG}")


def default_packs() -> list[Path]:
    """The packs every run uses, in the order their file names sort."""
    return sorted((data_dir("rules") / "packs").glob("*.yaml"))


def run_packs(optional: tuple[Path, ...] = (), extension: bool = False, rules: tuple[Path, ...] = ()
              ) -> tuple[Path, ...]:
    """The packs of a run, in their order: the bundled ones, the optional ones asked for, the extension
    packs (``run --src`` only), then the user's; each once (a pack given twice is loaded once)."""
    every = (*default_packs(), *optional, *(extension_packs() if extension else ()), *rules)
    return tuple(dict.fromkeys(every))


def optional_packs() -> list[str]:
    """The names of the opt-in packs in rules/optional (``--pack`` offers them)."""
    return sorted(p.stem for p in (data_dir("rules") / "optional").glob("*.yaml"))


def optional_pack(name: str) -> Path:
    """An opt-in pack from rules/optional, by name (``torch-musa``)."""
    path = data_dir("rules") / "optional" / f"{name}.yaml"
    if not path.is_file():
        known = sorted(p.stem for p in (data_dir("rules") / "optional").glob("*.yaml"))
        raise FileNotFoundError(f"no optional pack '{name}' (known: {', '.join(known)})")
    return path


def default_layout() -> Path:
    return data_dir("rules") / "layouts" / "pytorch.yaml"


def vocabulary_file() -> Path:
    return data_dir("rules") / "data" / "cuda_toolkit_names.txt"


@lru_cache(maxsize=8)
def parse_vocabulary(raw: bytes) -> frozenset[str]:
    """The CUDA toolkit names of a vocabulary file: one per line, ``#`` starts a comment line.

    Cached by content: a run reads the toolkit vocabulary twice (its rule, the unmapped-name check).
    """
    return frozenset(ln.strip() for ln in raw.decode().splitlines() if ln.strip() and not ln.startswith("#"))


def user_cache() -> Path:
    """The user cache (``$XDG_CACHE_HOME/musaport``, else ``~/.cache/musaport``): the only place besides
    ``--out`` where musaport writes."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "musaport"


def shim_root() -> Path:
    """The shim shipped inside the package: ``include``, ``third_party``, ``wrappers``."""
    return _PKG / "shim"


def shim_include() -> Path:
    """The CPU-emulated MUSA toolkit headers shipped inside the package."""
    return shim_root() / "include"


def shim_third_party() -> Path:
    """Stand-ins for third-party headers PyTorch's build takes from its submodules (``fmt/printf.h``),
    searched after every other folder so that a real copy wins."""
    return shim_root() / "third_party"


def shim_wrappers() -> Path:
    """The shim's stand-ins for clang's CUDA wrappers of standard headers (for a clang that lacks them)."""
    return shim_root() / "wrappers"


def mirrored_shim(dest: Path) -> Path:
    """The shim (``include``, ``third_party``, ``wrappers``) mirrored into ``dest``, a build's own state
    folder inside its ``--out``, for the builds that go through the compiler cache.

    Why there, and why a mirror: ccache keys an object on its command line and on the paths of the
    headers it read, made relative to its base folder (``--out``). Inside ``--out`` the shim has the same
    relative path in every output folder and every checkout, so a new ``--out`` (CI's fresh clone's)
    hits the objects another one compiled. Only a file whose bytes differ is written, and a file the
    package no longer has is removed: an unchanged header keeps its time stamp, so after a shim edit
    Ninja recompiles only the objects that read a changed header, and ccache serves the rest. (Named by
    the digest of the whole shim, as it once was, any edit renamed every header, and every object of
    every build missed the cache.)
    """
    root = shim_root()
    wanted = {f.relative_to(root): f for f in sorted(root.rglob("*")) if f.is_file()}
    for rel, source in wanted.items():
        target = dest / rel
        data = source.read_bytes()
        if target.is_file() and not target.is_symlink() and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        staging.write_bytes(data)
        os.replace(staging, target)  # whole or not at all: a killed build never leaves a torn header
    for stale in sorted((f for f in dest.rglob("*") if not f.is_dir()), reverse=True):
        if stale.relative_to(dest) not in wanted:
            stale.unlink()
    return dest


def default_fixture_tree() -> Path:
    return data_dir("fixtures") / "pytorch"


def extension_packs() -> list[Path]:
    """The packs a ``run --src`` (an extension project) adds after the bundled and optional ones."""
    return sorted((data_dir("rules") / "extension").glob("*.yaml"))


def render_template(name: str, **values: object) -> str:
    """Render ``templates/<name>`` with ``values`` (Jinja2, ``StrictUndefined``: a missing value is an
    error, never an empty string; Python only prepares the values)."""
    return _environment().get_template(name).render(**values)


@lru_cache(maxsize=1)
def _environment():
    """One environment per process, so each template is compiled once."""
    from jinja2 import Environment, FileSystemLoader, StrictUndefined  # deferred: a warm run renders nothing

    return Environment(
        loader=FileSystemLoader(str(data_dir("templates"))),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
