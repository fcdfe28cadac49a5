"""YAML loading that remembers where every mapping came from.

Like torchgen's ``LineLoader``: each mapping gets a ``__line__`` key, and a
duplicate key is an error that names the file and line, because a rule pack
that silently drops a key is a rule that silently does something else.
"""

from __future__ import annotations

import os
import stat
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO

from musaport.errors import LoadError

# What one configuration file may be: its bytes, and the nodes it expands to with every alias
# followed.  PyTorch's native_functions.yaml, the largest YAML read, is 0.6 MB and about 60,000
# nodes; a file over the size is not configuration (``--layout /dev/zero`` reads forever), and a
# few lines of nested aliases (an "alias bomb") expand to billions of nodes, which every later step
# that walks the value (a ``str()``, a type check) would pay for in time and memory.
MAX_CONFIG_BYTES = 16 * 1024 * 1024
MAX_CONFIG_NODES = 1_000_000
# Files that can be read once only (a FIFO, ``<(...)``): their bytes, kept for a second reader in
# this process (the digest of a pack, then its parse).
_ONCE: dict[str, bytes] = {}


@lru_cache(maxsize=1)
def _line_loader() -> type:
    """The loader class, made on first use: PyYAML is imported only when a file is parsed (a warm
    run parses none)."""
    import yaml

    class LineLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[str, Any]:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if not isinstance(key_node, yaml.ScalarNode):  # ``? [a, b]``: a key no dict can hold
                    raise LoadError(f"{self.name}:{key_node.start_mark.line + 1}: a key must be a plain value "
                                    f"(a name or a number), not a {key_node.id}")
                key = self.construct_object(key_node, deep=deep)
                if key in seen:
                    raise LoadError(f"{self.name}:{key_node.start_mark.line + 1}: duplicate key {key!r}")
                seen.add(key)
            mapping = super().construct_mapping(node, deep=deep)
            mapping["__line__"] = node.start_mark.line + 1
            return mapping

    return LineLoader


def read_config(path: Path, limit: int = MAX_CONFIG_BYTES, what: str = "a configuration file") -> bytes:
    """The bytes of a file musaport reads whole (a configuration file, ``parse``'s source), read with a
    bound; errors are one-line LoadErrors.

    A regular file, or anything that can be opened and read to its end (a
    FIFO, a shell's ``<(...)``): the bytes of such a stream are kept, so the
    second reader of the same path in this process gets them too.  A device
    that never ends (``/dev/zero``) stops at ``limit``; a FIFO nobody writes
    to reads as empty instead of blocking the open for ever.
    """
    key = str(path)
    if key in _ONCE:
        return _ONCE[key]
    if path.is_dir():
        raise LoadError(f"{path}: is a folder, not a file")
    try:
        with _open_unblocked(path) as f:
            data = f.read(limit + 1)
            regular = stat.S_ISREG(os.fstat(f.fileno()).st_mode)
    except FileNotFoundError:
        raise LoadError(f"{path}: file not found") from None
    except OSError as exc:
        raise LoadError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise LoadError(f"{path}: over {limit // (1024 * 1024)} MiB, too large for {what} "
                        "(is it the right file?)")
    if not regular:
        _ONCE[key] = data
    return data


def _open_unblocked(path: Path) -> BinaryIO:
    """``path`` opened for reading without the wait for a writer that opening a FIFO blocks on; reads
    then block as usual (a ``<(...)`` whose writer is slow is read to its end)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    os.set_blocking(fd, True)
    return open(fd, "rb")


def load_yaml(path: Path, limit: int = MAX_CONFIG_BYTES) -> Any:
    """Parse ``path``; errors become one-line :class:`LoadError` messages."""
    try:
        text = read_config(path, limit).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LoadError(f"{path}: cannot read: {exc}") from None
    import yaml

    loader = _line_loader()(text)
    loader.name = str(path)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _bounded(node, path)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise LoadError(f"{where}: invalid YAML: {getattr(exc, 'problem', exc)}") from None
    finally:
        loader.dispose()


def _bounded(root: Any, path: Path) -> None:
    """Refuse a document that expands to more than MAX_CONFIG_NODES nodes with its aliases followed.

    Counted on the composed graph, where an alias is a shared node: each node
    is sized once, so a bomb is found in time linear in its text.
    """
    sizes: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[Any] = [root]
    while stack:
        node = stack[-1]
        if id(node) in sizes:
            stack.pop()
            continue
        value = node.value if isinstance(node.value, list) else ()
        kids = [n for pair in value for n in (pair if isinstance(pair, tuple) else (pair,))]
        if id(node) not in open_:
            open_.add(id(node))
            for kid in kids:
                if id(kid) in open_ and id(kid) not in sizes:
                    raise LoadError(f"{path}:{kid.start_mark.line + 1}: an alias refers to a value that holds "
                                    "it, which expands without end")
                stack.append(kid)
            continue
        stack.pop()
        total = 1 + sum(sizes[id(k)] for k in kids)
        if total > MAX_CONFIG_NODES:
            raise LoadError(f"{path}:{node.start_mark.line + 1}: expands to over {MAX_CONFIG_NODES:,} values once "
                            "its aliases (*name) are followed; no configuration needs that many (an alias bomb?)")
        sizes[id(node)] = total


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Fields:
    """Pop known keys from a loaded mapping and reject the leftovers."""

    def __init__(self, mapping: Any, where: str, what: str) -> None:
        if not isinstance(mapping, dict):
            raise LoadError(f"{where}: {what} must be a mapping")
        self._map = dict(mapping)
        self.line = self._map.pop("__line__", 0)
        self.where = where
        self.what = what

    def pop(self, key: str, default: Any = ..., kind: type | tuple[type, ...] | None = None,
            items: type | None = None) -> Any:
        """Take ``key``; without a default it is required.  ``items``: the type every element of a
        list value must have (a nested list where a glob belongs must fail here, with the line)."""
        if key not in self._map:
            if default is ...:
                raise LoadError(f"{self.where}: {self.what} is missing '{key}'")
            return default
        value = self._map.pop(key)
        if kind is not None and not isinstance(value, kind):
            raise LoadError(f"{self.where}: '{key}' of {self.what} has the wrong type ({type(value).__name__})")
        if items is not None and isinstance(value, list):
            for i, item in enumerate(value):
                if not isinstance(item, items) or isinstance(item, bool) and items is not bool:
                    raise LoadError(f"{self.where}: item {i + 1} of '{key}' of {self.what} has the wrong type "
                                    f"({type(item).__name__} {_short(item)}); expected {items.__name__}")
        return value

    def done(self) -> None:
        """Fail on any key nobody asked for: a typo must not pass silently."""
        if self._map:
            raise LoadError(f"{self.where}: unknown key(s) in {self.what}: {', '.join(sorted(self._map))}")
