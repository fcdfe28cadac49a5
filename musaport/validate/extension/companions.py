"""Other ported extensions a project's tests import (``validate --extension --with-extension EXT``).

Projects build on each other: mamba's tests import causal-conv1d, whose
compiled module is no PyPI package ``--test-deps`` could install (its
published wheels are CUDA builds).  A companion is another project's port
that ``validate --extension`` has already built against the same
``--torch``: its build tree (the ported package beside the modules built in
place) goes on the tests' path after the project's own folder, so the
project's names come first.  Only a companion whose build passed and whose
every module loaded with the same ``musa`` device is taken: a module built
against another device, or one that does not load, would fail the tests for
a reason that is not theirs.  A companion is only read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from musaport.errors import LoadError
from musaport.outdir import VALIDATE_EXTENSION_JSON, OutDir


@dataclass(frozen=True)
class Companion:
    """One companion: its OUT, the project it ports, and the folder its tests' importers need on the path."""

    out: str
    project: str
    path: str
    modules: tuple[str, ...]


def companion(root: Path, pt_root: Path, device: Path) -> Companion:
    """The companion whose OUT is ``root``, checked against this run's PyTorch port and device; a LoadError
    naming its report when it is not an extension validated against them, with its build passed."""
    from musaport.validate.extension.build import setup_script

    report_path = root / VALIDATE_EXTENSION_JSON
    try:
        report = json.loads(report_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LoadError(f"{root}: --with-extension is not the --out of a 'musaport validate --extension' run "
                        f"(no {VALIDATE_EXTENSION_JSON})") from None
    except (OSError, ValueError) as exc:
        raise LoadError(f"{report_path}: unreadable ({exc})") from None
    if not isinstance(report, dict) or not isinstance(report.get("build"), dict):
        raise LoadError(f"{report_path}: not a report of 'musaport validate --extension' (no build section)")
    if Path(str(report.get("torch", ""))).resolve() != pt_root.resolve():
        raise LoadError(f"{report_path}: validated against --torch {report.get('torch')}, not {pt_root}: "
                        "a companion must be built against the same musa device")
    if Path(str(report.get("device", ""))).resolve() != device.resolve():
        raise LoadError(f"{report_path}: built against the device {report.get('device')}, not {device}")
    build = report["build"]
    modules = build.get("modules") or []
    if not build.get("ok") or not modules:
        raise LoadError(f"{report_path}: its build did not pass, so it has no module to import; validate it first")
    unloaded = [m.get("name", "?") for m in modules if not m.get("loaded")]
    if unloaded:
        raise LoadError(f"{report_path}: its module {', '.join(unloaded)} does not load with the device")
    out = OutDir(root)
    folder = setup_script(out.work("extension") / "src", out).parent
    if not folder.is_dir():
        raise LoadError(f"{report_path}: its build tree {folder} is gone; validate it again")
    return Companion(str(root), str(report.get("project", "")), str(folder), tuple(m["name"] for m in modules))


def companions(roots: tuple[Path, ...], pt_root: Path, device: Path, own: Path) -> list[Companion]:
    """Every ``--with-extension``, in the order given (its path order); never the project's own OUT."""
    found = []
    for root in roots:
        if root.resolve() == own.resolve():
            raise LoadError(f"{root}: --with-extension names the --out being validated")
        found.append(companion(root, pt_root, device))
    return found


def replaced(mate: Companion, deps: Path) -> list[str]:
    """The top-level packages of ``mate``'s modules that ``--test-deps`` installed too (``deps``, pip's
    target): the tests import the companion's, which comes first on their path (``tests.tests_path``)."""
    names = sorted({m.split(".")[0] for m in mate.modules})
    return [n for n in names if (deps / n).is_dir() or (deps / f"{n}.py").is_file() or any(deps.glob(f"{n}.*.so"))]
