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

import subprocess
from pathlib import Path

from musaport import children
from musaport.validate.cpu.shared_alias import alias_flags, library_symbols


def link_flags(objects: list[Path], link_args: list[str] = ()) -> list[str]:
    """The alias flags for linking ``objects`` into one program with the libraries ``link_args`` name
    (``-L``, ``-l``): a thread-local one of them defines is theirs, not an array's."""
    return alias_flags("\n".join(_readelf(o) for o in objects), library_symbols(list(link_args)))


def _readelf(obj: Path) -> str:
    """``readelf -sW`` of one object; a failure is an error (the object was just built)."""
    done = children.run(["readelf", "-sW", str(obj)], cwd=obj.parent)
    if done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, done.args, done.stdout, done.stderr)
    return done.stdout
