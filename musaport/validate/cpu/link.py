"""Link flags that give ``extern __shared__`` arrays their storage in CPU runs.

On a GPU, ``extern __shared__ float smem[];`` names the start of the block's
dynamic shared memory.  In the shim's CPU mode the declaration becomes an
undefined ``extern thread_local`` symbol, and no header can define a symbol
whose name it cannot see.  So the link step reads the objects' symbol tables
(``readelf -sW``) and aliases every such symbol to the runtime's per-thread
buffer, and g++'s thread-local init hooks (``_ZTH<name>``, ``__tls_init``) to a no-op.  The
parsing is a pure function of readelf's text, so it is tested on its own.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from musaport import children

DYNAMIC_SHARED = "musaport_dynamic_shared_tls"
INIT_NOOP = "musaport_tls_init_noop"
# The C++ runtime's own thread-locals are resolved by libstdc++, never aliased.
_RUNTIME_TLS = re.compile(r"^_ZN?St|^_ZN9__gnu_cxx")


def symbols(readelf_output: str) -> list[tuple[str, str, str]]:
    """(type, section index, name) of every named symbol in ``readelf -sW`` output."""
    rows = []
    for line in readelf_output.splitlines():
        cols = line.split()
        if len(cols) >= 8 and cols[0].endswith(":") and cols[0][:-1].isdigit():
            rows.append((cols[3], cols[6], cols[7]))
    return rows


def alias_flags(readelf_output: str) -> list[str]:
    """``-Wl,--defsym`` flags for extern-shared symbols and unresolved TLS init hooks."""
    rows = symbols(readelf_output)
    defined = {name for _, ndx, name in rows if ndx != "UND"} - _locals(readelf_output)
    flags = []
    for kind, ndx, name in sorted(set(rows), key=lambda r: r[2]):
        if ndx != "UND" or name in defined:
            continue
        if kind == "TLS" and not _RUNTIME_TLS.match(name):
            flags.append(f"-Wl,--defsym={name}={DYNAMIC_SHARED}")
        elif name.startswith("_ZTH") or name == "__tls_init":
            # __tls_init: an extern __shared__ array in an anonymous namespace makes g++ call the
            # TU's own TLS initialiser, which it never emits (the TU has no dynamic TLS to set up).
            flags.append(f"-Wl,--defsym={name}={INIT_NOOP}")
    return sorted(set(flags))


def _locals(readelf_output: str) -> set[str]:
    """Names only ever defined LOCAL (a TU's own ``__tls_init`` satisfies no other TU's reference)."""
    local, other = set(), set()
    for line in readelf_output.splitlines():
        cols = line.split()
        if len(cols) >= 8 and cols[0].endswith(":") and cols[0][:-1].isdigit() and cols[6] != "UND":
            (local if cols[4] == "LOCAL" else other).add(cols[7])
    return local - other


def link_flags(objects: list[Path]) -> list[str]:
    """The alias flags for linking ``objects`` into one program."""
    return alias_flags("\n".join(_readelf(o) for o in objects))


def _readelf(obj: Path) -> str:
    """``readelf -sW`` of one object; a failure is an error (the object was just built)."""
    done = children.run(["readelf", "-sW", str(obj)], cwd=obj.parent)
    if done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, done.args, done.stdout, done.stderr)
    return done.stdout
