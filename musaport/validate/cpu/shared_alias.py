"""Which link flags give ``extern __shared__`` arrays their storage: a pure function of ``readelf -sW``'s text.

A thread-local that a linked library defines is that library's, never an array: ``op.call`` of a
dispatcher handle reads libc10's ``raw_local_dispatch_key_set`` inline, and an alias gave the module a
zeroed copy of its own, so the guards that step below autograd went unseen and torchvision's autograd
kernels called themselves until the stack overflowed.  The libraries' dynamic symbols (``readelf
--dyn-syms -W``) say which names they define; ``library_files`` finds them from the link's flags.

Standalone (only the standard library): the device build imports it through ``cpu.link``, and
``validate --extension`` copies it beside its stand-in ``torch_musa``, whose extension builds link the
same way in the torch environment, where musaport is not installed.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess

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


def alias_flags(readelf_output: str, libraries_readelf: str = "") -> list[str]:
    """``-Wl,--defsym`` flags for extern-shared symbols and unresolved TLS init hooks.

    ``libraries_readelf``: the dynamic symbols of the libraries the link names; what they define is
    resolved by them at load time and is not aliased."""
    rows = symbols(readelf_output)
    defined = {name for _, ndx, name in rows if ndx != "UND"} - _locals(readelf_output)
    provided = {name.split("@")[0] for _, ndx, name in symbols(libraries_readelf) if ndx != "UND"}
    defined |= provided
    flags = []
    for kind, ndx, name in sorted(set(rows), key=lambda r: r[2]):
        if ndx != "UND" or name in defined or name.startswith("_ZTH") and f"_Z{name[4:]}" in provided:
            continue  # a library's thread-local keeps the library's init hook, if it has one
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


def library_files(link_args: list[str]) -> list[str]:
    """The shared libraries a link's flags name: each ``-lNAME`` as the first ``libNAME.so`` in its ``-L``
    folders (``-l:FILE`` as FILE), and each ``.so`` given by path, in order and once."""
    dirs = [a[2:] for a in link_args if a.startswith("-L") and len(a) > 2]
    found: list[str] = []
    for arg in link_args:
        if arg.startswith("-l") and len(arg) > 2:
            name = arg[3:] if arg.startswith("-l:") else f"lib{arg[2:]}.so"
            path = next((os.path.join(d, name) for d in dirs if os.path.isfile(os.path.join(d, name))), None)
        else:
            path = arg if re.search(r"\.so(\.\d+)*$", arg) and os.path.isfile(arg) else None
        if path is not None and path not in found:
            found.append(path)
    return found


def library_symbols(link_args: list[str]) -> str:
    """``readelf --dyn-syms -W`` of the libraries a link's flags name (``library_files``), read once per
    process for the same libraries: an extension's modules and a device build's rounds link the same
    torch libraries, and libtorch_cpu's table alone is 85,000 lines."""
    return _dynamic_symbols(tuple(library_files(link_args)))


@functools.lru_cache(maxsize=None)
def _dynamic_symbols(libraries: tuple[str, ...]) -> str:
    if not libraries:
        return ""
    return subprocess.run(["readelf", "--dyn-syms", "-W", *libraries], capture_output=True, text=True,
                          check=True).stdout
