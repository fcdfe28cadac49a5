"""YAML loading that remembers where every mapping came from.

Like torchgen's ``LineLoader``: each mapping gets a ``__line__`` key, and a
duplicate key is an error that names the file and line, because a rule pack
that silently drops a key is a rule that silently does something else.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from musaport.errors import LoadError


@lru_cache(maxsize=1)
def _line_loader() -> type:
    """The loader class, made on first use: PyYAML is imported only when a file is parsed (a warm
    run parses none)."""
    import yaml

    class LineLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[str, Any]:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if key in seen:
                    raise LoadError(f"{self.name}:{key_node.start_mark.line + 1}: duplicate key {key!r}")
                seen.add(key)
            mapping = super().construct_mapping(node, deep=deep)
            mapping["__line__"] = node.start_mark.line + 1
            return mapping

    return LineLoader


def load_yaml(path: Path) -> Any:
    """Parse ``path``; errors become one-line :class:`LoadError` messages."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LoadError(f"{path}: cannot read: {exc}") from None
    import yaml

    loader = _line_loader()(text)
    loader.name = str(path)
    try:
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise LoadError(f"{where}: invalid YAML: {getattr(exc, 'problem', exc)}") from None
    finally:
        loader.dispose()


class Fields:
    """Pop known keys from a loaded mapping and reject the leftovers."""

    def __init__(self, mapping: Any, where: str, what: str) -> None:
        if not isinstance(mapping, dict):
            raise LoadError(f"{where}: {what} must be a mapping")
        self._map = dict(mapping)
        self.line = self._map.pop("__line__", 0)
        self.where = where
        self.what = what

    def pop(self, key: str, default: Any = ..., kind: type | tuple[type, ...] | None = None) -> Any:
        """Take ``key``; without a default it is required."""
        if key not in self._map:
            if default is ...:
                raise LoadError(f"{self.where}: {self.what} is missing '{key}'")
            return default
        value = self._map.pop(key)
        if kind is not None and not isinstance(value, kind):
            raise LoadError(f"{self.where}: '{key}' of {self.what} has the wrong type ({type(value).__name__})")
        return value

    def done(self) -> None:
        """Fail on any key nobody asked for: a typo must not pass silently."""
        if self._map:
            raise LoadError(f"{self.where}: unknown key(s) in {self.what}: {', '.join(sorted(self._map))}")
