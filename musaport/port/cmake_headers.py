"""CMake-configured headers (``*.h.in``), rendered the way a build's ``configure_file`` would.

A MUSA build has no CUDA configure step, so the port renders the CUDA
build's configured headers itself, with the values the layout declares
(``configured:`` in ``rules/layouts/pytorch.yaml``), and then ports the
result like any other header.
"""

from __future__ import annotations

import re
from typing import Mapping

_PLACEHOLDER = re.compile(r"@(\w+)@")
_CMAKEDEFINE = re.compile(r"^#cmakedefine[ \t]+(\w+)(.*)$", re.M)


def render(text: str, values: Mapping[str, str], default: str = "0") -> str:
    """``@VAR@`` → its value (``default`` when not declared); ``#cmakedefine X`` → ``#define X``
    when X is declared and not 0/empty, else ``/* #undef X */`` (as CMake writes it)."""
    def cmakedefine(m: re.Match[str]) -> str:
        name, rest = m.group(1), m.group(2)
        on = values.get(name, "") not in ("", "0", "OFF", "FALSE")
        return f"#define {name}{rest}" if on else f"/* #undef {name} */"

    text = _CMAKEDEFINE.sub(cmakedefine, text)
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), default), text)
