"""Which link flags give ``extern __shared__`` arrays their storage: a pure function of ``readelf -sW``'s text.

Standalone (only ``re``): the device build imports it through ``cpu.link``, and ``validate --extension``
copies it beside its stand-in ``torch_musa``, whose extension builds link the same way in the torch
environment, where musaport is not installed.
"""

from __future__ import annotations

import re

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
