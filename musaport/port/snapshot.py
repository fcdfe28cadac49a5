"""The warm run's configuration: what the last run loaded, reused while its files are as they were.

A run that finds nothing changed needs two things of its configuration: the
cache key and the layout (for discovery).  Loading the configuration anew
costs PyYAML, parsing every pack, 9,000 vocabulary names and every
pattern: about a third of a warm run (0.17-0.19 s with it, 0.11 s without).  So a successful run saves the key and the
layout with what they were made from: the request (tree, layout and pack
paths, generation options) and the size and mtime of every file read
(packs, vocabularies, the layout, the toolkit vocabulary, the tree files a
rule's ``tree_has`` reads, the package's own modules, which the key
covers).  A warm run that finds the same request and every file as it was
uses them; anything else, or a missing or unreadable snapshot, loads the
configuration as a first run does.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict

from musaport import __version__
from musaport.jsoncache import stamp
from musaport.outdir import CONFIG_SNAPSHOT, OutDir
from musaport.port.cache import package_files
from musaport.port.config import Config, Options
from musaport.port.layout import Configured, Folder, Layout, OperatorFolders

SNAPSHOT_NAME = CONFIG_SNAPSHOT  # JSON, not pickle: a shared build folder must not run code
FORMAT = 3  # 2: stamps carry the racy guard; 3: layout folders carry 'optional'


def save(opts: Options, config: Config) -> None:
    """Record ``config``'s key and layout for the next warm run of ``opts`` (atomically)."""
    if config.layout.selected is not None:  # a selection made by code (run --src) is not a file's
        return
    if any(os.path.exists(p) and not os.path.isfile(p) for p in (str(opts.layout), *map(str, opts.packs))):
        return  # a FIFO or <(...): its stat says nothing about what the next run will read from it
    data = {"format": FORMAT, "version": __version__, "request": request(opts),
            "files": _stats(_inputs(opts, config)), "key": config.key, "layout": asdict(config.layout)}
    out = OutDir(opts.out)
    out.write(out.state_file(SNAPSHOT_NAME), json.dumps(data).encode())


def load(opts: Options) -> tuple[str, Layout] | None:
    """The key and layout the last run of ``opts`` saved, when nothing they came from changed."""
    try:
        data = json.loads(OutDir(opts.out).state_file(SNAPSHOT_NAME).read_bytes())
        if (data["format"], data["version"], data["request"]) != (FORMAT, __version__, request(opts)):
            return None
        files = [tuple(f) for f in data["files"]]
        if _stats([f[0] for f in files]) != files:
            return None
        return data["key"], _layout(data["layout"])
    except Exception:  # noqa: BLE001 - a missing, old or damaged snapshot: load the configuration
        return None


def request(opts: Options) -> dict:
    """What was asked (``port.request.Request``, the one owner of the run's options)."""
    return opts.request().to_json()


def _inputs(opts: Options, config: Config) -> list[str]:
    from musaport.resources import vocabulary_file

    rules = config.rules
    return sorted({str(opts.layout), str(vocabulary_file()), *rules.sources, *rules.inputs,
                   *(str(p) for p in package_files())})


def _layout(d: dict) -> Layout:
    """The layout ``dataclasses.asdict`` made ``d`` of (its tuples came back as lists)."""
    ops = d["operators"]
    return Layout(
        name=d["name"], markers=tuple(d["markers"]), copy_only=tuple(d["copy_only"]), suffixes=tuple(d["suffixes"]),
        exclude=tuple(d["exclude"]), folders=tuple(Folder(f["path"], f["recursive"], tuple(f["files"]), f["where"],
                                                           f["optional"])
                                                    for f in d["folders"]),
        digest=d["digest"], source=d["source"],
        operators=OperatorFolders(tuple(ops["generic"]), tuple(tuple(v) for v in ops["vendor"])),
        configured=tuple(Configured(c["template"], tuple(tuple(v) for v in c["values"]), c["why"], c["where"])
                         for c in d["configured"]))


def _stats(paths: list[str]) -> list[tuple]:
    """Each path with its stamp (``jsoncache.stamp``; -1, -1, "" for a file that is not there)."""
    return [(path, *(stamp(path) or (-1, -1, ""))) for path in paths]


def light_config(key: str, layout: Layout) -> Config:
    """A configuration for the warm check only: its key and layout, no rules (``None``: a run given it
    fails loudly instead of porting with no rules)."""
    return Config(layout, None, frozenset(), key)  # type: ignore[arg-type]
