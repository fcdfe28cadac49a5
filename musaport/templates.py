"""Jinja2 rendering of the C++, CMake, YAML and Markdown text the tool emits.

The text lives in ``templates/`` (``StrictUndefined``: a missing value is an
error, never an empty string); Python only prepares the values.
"""

from __future__ import annotations

from functools import lru_cache

from musaport.resources import data_dir


def render_template(name: str, **values: object) -> str:
    """Render ``templates/<name>`` with ``values``."""
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
