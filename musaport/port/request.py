"""The run's options as one value, kept beside its output: what ``run`` was asked to do.

A :class:`Request` names a run the way black's ``Mode`` names a formatting:
the tree, the layout, the ordered rule packs (bundled, ``--pack``, the
extension packs of ``run --src``, ``--rules``) and the generation step's
options.  ``run`` writes it to ``OUT/.musaport/request.json`` with every
commit; ``diff``, ``whereis``, ``validate`` and ``check`` read it back, so a
port made with ``--pack torch-musa --rules extra.yaml`` is diffed and
validated with those rules without the user repeating them.  The cache key
is a method of the request (:meth:`Request.cache_key`), so the key of a
PyTorch run and of an extension run are composed in one place.

This module imports no YAML and no rule engine at its top: the warm path
of ``run`` compares requests before it knows whether there is any work.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from musaport.errors import LoadError
from musaport.jsonfile import read_json
from musaport.outdir import OutDir

if TYPE_CHECKING:
    from musaport.port.layout import Layout
    from musaport.rewrite.rules import RuleSet

FORMAT = 1


# The request as ``Request.to_json`` writes it (``jsonfile`` shape).
REQUEST_SHAPE = {"format": int, "source": str, "layout": str, "packs": [str], "generation": str, "discovered": bool}


@dataclass(frozen=True)
class Request:
    """What one run was asked: the tree, how its files are selected, the rules, the generation options.

    ``layout`` is the layout file; a run whose selection was discovered
    (``run --src``) has ``discovered`` set and ``layout`` names the tree.
    ``generation``: the generation step's options as canonical JSON (``""``:
    none), compared, never interpreted here.
    """

    source: Path
    layout: Path
    packs: tuple[Path, ...]
    generation: str = ""
    discovered: bool = False

    @classmethod
    def of(cls, source: Path, layout: Path, packs: tuple[Path, ...], generation: object = None) -> "Request":
        """The request of a run given these options (``generation``: the step, whose ``options`` count)."""
        options = getattr(generation, "options", None)
        text = json.dumps(dataclasses.asdict(options), sort_keys=True) if dataclasses.is_dataclass(options) else ""
        return cls(source, layout, tuple(packs), text, layout == source)

    # -- the value on disk ------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:  # REQUEST_SHAPE
        return {"format": FORMAT, "source": str(self.source), "layout": str(self.layout),
                "packs": [str(p) for p in self.packs], "generation": self.generation,
                "discovered": self.discovered}

    @classmethod
    def from_json(cls, data: Any) -> "Request":
        """The request ``to_json`` made; anything else is a ValueError."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError("not a request of this musaport")
        packs = data["packs"]
        if not isinstance(packs, list) or not all(isinstance(p, str) for p in packs):
            raise ValueError("packs is not a list of paths")
        return cls(Path(str(data["source"])), Path(str(data["layout"])), tuple(Path(p) for p in packs),
                   str(data["generation"]), bool(data["discovered"]))

    def save(self, out: OutDir) -> None:
        out.write(out.request_file, (json.dumps(self.to_json(), indent=1) + "\n").encode())

    @classmethod
    def load(cls, out: OutDir) -> "Request | None":
        """The request of the port in ``out``: None when no run recorded one (a port of an older
        musaport), a LoadError naming the file when it is damaged."""
        path = out.request_file
        if not path.exists():
            return None
        try:
            return cls.from_json(read_json(path, REQUEST_SHAPE, "run's request"))
        except LoadError as exc:
            raise LoadError(f"{exc}; run 'musaport run' again") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise LoadError(f"{path}: not a request written by musaport ({exc}); run 'musaport run' again") from None

    # -- what the request computes --------------------------------------------------------------------
    def cache_key(self, rules: "RuleSet", layout: "Layout", vocabulary: bytes) -> str:
        """The cache key of a run of this request: the tool, its code, the rules, the layout, the vocabulary and
        the names kept on purpose (they decide what the unmapped scan reports)."""
        from musaport.port.cache import cache_key
        from musaport.port.file import kept_file

        return cache_key(rules.digest, layout.digest, hashlib.sha256(vocabulary).hexdigest(),
                         hashlib.sha256(kept_file().read_bytes()).hexdigest())

    def load_rules(self, compile: bool = True) -> "RuleSet":
        """The run's rule packs, as the run loaded them (a PyTorch tree keeps only the rules it has the
        API for; see ``rewrite.rules.for_tree``)."""
        from musaport.rewrite.packs import load_packs
        from musaport.rewrite.rules import for_tree, in_place_everywhere

        rules = load_packs(self.packs, compile=compile)
        return in_place_everywhere(rules) if self.discovered else for_tree(rules, self.source)

    def load_layout(self) -> "Layout | None":
        """The run's layout (None for a discovered selection: it is no file's)."""
        from musaport.port.layout import load_layout

        return None if self.discovered else load_layout(self.layout)

    def flags(self) -> str:
        """The packs as the command line gives them (``--pack torch-musa --rules /x/extra.yaml``)."""
        from musaport.resources import data_dir

        rules = data_dir("rules")
        words = []
        for pack in self.packs:
            if pack.parent == rules / "optional":
                words.append(f"--pack {pack.stem}")
            elif pack.parent not in (rules / "packs", rules / "extension"):
                words.append(f"--rules {pack}")
        return " ".join(words) or "the bundled packs only"


def differs(recorded: Request | None, packs: tuple[Path, ...] | None) -> str:
    """One line when a later command was given other packs than the run it reads (else '')."""
    if recorded is None or packs is None or tuple(packs) == recorded.packs:
        return ""
    given = dataclasses.replace(recorded, packs=tuple(packs))
    return (f"the port in this --out was made with {recorded.flags()}; "
            f"using {given.flags()} as given here")


def run_rules(out: OutDir, compile: bool = True) -> "RuleSet":
    """The rules of the run that made ``out``; the bundled packs for an ``--out`` no run recorded a
    request in (a port of an older musaport, or no port at all)."""
    recorded = Request.load(out)
    if recorded is not None:
        return recorded.load_rules(compile)
    from musaport.resources import default_packs
    from musaport.rewrite.packs import load_packs

    return load_packs(default_packs(), compile=compile)


def run_layout(out: OutDir) -> "Layout | None":
    """The layout of the run that made ``out`` (None: the bundled one, or a discovered selection)."""
    recorded = Request.load(out)
    return recorded.load_layout() if recorded is not None else None
