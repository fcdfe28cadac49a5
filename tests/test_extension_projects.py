"""`run --src` on the six real extension projects of ../shared/extensions: nothing CUDA left unsaid.

Each project is unpacked and ported (a few seconds each). Then, from the
port as written: every name and include of CUDA, its libraries or NVIDIA in
the code of a ported file is in the report (unmapped, or kept on purpose with
its reason), and every source path of each ported build file names, in the
port laid over the project, the ported counterparts of the files it named in
the project.
"""

from __future__ import annotations

import json
import re
import tarfile
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

from conftest import musaport, need
from musaport.extension.buildfiles import _CMAKE_ARG, _LIST_SEP, _cmake_code, python_lines, read_python
from musaport.extension.includes import blank
from musaport.extension.sources import cmake_sites, setup_sites

pytestmark = pytest.mark.shared

TREE = "generated_cuda_compatible"
# name: (tarball prefix, folder of the build files, CUDA spellings the report names as unmapped)
PROJECTS = {
    "Deformable-DETR": ("Deformable-DETR-", "models/ops", set()),
    "causal-conv1d": ("causal-conv1d-", "", set()),
    "mamba": ("mamba-", "", set()),
    "pytorch_spline_conv": ("pytorch_spline_conv-", "", set()),
    "detectron2": ("detectron2-", "", set()),
    "torch-harmonics": ("torch-harmonics-", "", set()),
}
# What the unmapped scan looks for (the extension issue's list), written here on its own.
CUDA_NAME = re.compile(r"(?<![\w])(?:cuda\w*|cu[A-Z]\w*|CU_\w+|CUDA_\w+|nv_\w+|__nv\w*|THC\w*|nvshmem\w*|NVSHMEM\w*"
                       r"|make_cuda\w*)")
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"][^>"\n]*[>"])', re.M)
CUDA_INCLUDE = re.compile(r'[<"](?:(?:cuda|THC|nvtx3)/|(?:cuda|cu[A-Z]|nvshmem|nccl|cudnn|nvrtc|nvToolsExt)[^/]*$)')
CODE_SUFFIXES = (".mu", ".muh", ".cpp", ".cc", ".h", ".hpp", ".cuh", ".cu", ".inl")


def tarball(folder: Path, prefix: str) -> Path:
    found = sorted(folder.glob(f"{prefix}*.tar.xz"))
    if not found:
        need(f"needs {folder}/{prefix}*.tar.xz (the extension projects in ../shared)")
    return found[0]


@pytest.fixture(scope="module")
def ports(shared_extensions: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    """Each project unpacked and ported once: name → (its build folder, the run's --out)."""
    base = tmp_path_factory.mktemp("projects")
    out = {}
    for name, (prefix, folder, _) in PROJECTS.items():
        with tarfile.open(tarball(shared_extensions, prefix)) as tar:
            tar.extractall(base / "src", **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        src = base / "src" / name / folder
        done = musaport("run", "--src", str(src), "--out", str(base / name), "-q")
        assert done.returncode == 0, done.stderr
        out[name] = (src, base / name)
    return out


def left_in_code(tree: Path) -> dict[str, list[str]]:
    """Every CUDA spelling in the code (comments and strings blanked) and includes of the ported files."""
    left: dict[str, list[str]] = {}
    for path in sorted(p for p in tree.rglob("*") if p.suffix in CODE_SUFFIXES):
        text = path.read_text(errors="surrogateescape")
        site = path.relative_to(tree).as_posix()
        includes = list(INCLUDE.finditer(blank(text, strings=False)))
        code = blank(text)
        for inc in includes:  # an include's path is no name in code
            code = code[: inc.start()] + " " * (inc.end() - inc.start()) + code[inc.end() :]
            spelled = text[inc.start(1) : inc.end(1)]
            if CUDA_INCLUDE.search(spelled[:-1]):
                left.setdefault(spelled, []).append(site)
        for m in CUDA_NAME.finditer(code):
            left.setdefault(m.group(0), []).append(site)
    return left


@pytest.mark.parametrize("name", list(PROJECTS))
def test_no_cuda_name_survives_unreported(ports: dict[str, tuple[Path, Path]], name: str) -> None:
    _, out = ports[name]
    report = json.loads((out / "porting_report.json").read_text())
    unmapped = {u["name"] for u in report["unmapped"]}
    kept = {k["name"]: k["reason"] for k in report["kept_cuda_names"]}
    left = left_in_code(out / TREE)
    unreported = {n: sites[:3] for n, sites in left.items() if n not in unmapped and n not in kept}
    assert not unreported
    assert all(kept.values())  # each kept name has its reason
    assert unmapped == PROJECTS[name][2]


def overlay_files(src: Path, out: Path) -> frozenset[str]:
    """The files of the port laid over the project (the files it replaced removed), relative to ``src``."""
    report = json.loads((out / "porting_report.json").read_text())
    replaced = set(report["files"])
    files = {p.relative_to(src).as_posix() for p in src.rglob("*") if p.is_file()} - replaced
    return frozenset(files | {p.relative_to(out / TREE).as_posix() for p in (out / TREE).rglob("*") if p.is_file()})


def build_sites(path: Path) -> list:
    if path.name == "setup.py":
        return setup_sites(python_lines(read_python(path.read_bytes())[0]), "")[0]
    text = path.read_text()
    return cmake_sites(_cmake_code(text), text, "", _CMAKE_ARG, _LIST_SEP)


@pytest.mark.parametrize("name", list(PROJECTS))
def test_every_source_a_ported_build_file_names_exists(ports: dict[str, tuple[Path, Path]], name: str) -> None:
    src, out = ports[name]
    before = frozenset(p.relative_to(src).as_posix() for p in src.rglob("*") if p.is_file())
    after = overlay_files(src, out)
    checked = 0
    for build in ("setup.py", "CMakeLists.txt"):
        if not (src / build).is_file():
            continue
        ported = out / TREE / build
        old, new = build_sites(src / build), build_sites(ported if ported.is_file() else src / build)
        assert len(old) == len(new), build
        for o, n in zip(old, new):
            named = [f for f in before if fnmatchcase(f, o.glob)]
            if named:
                got = [f for f in after if fnmatchcase(f, n.glob)]
                assert len(got) == len(named), f"{build}:{o.line}: {o.text} named {named}, its port {n.glob} {got}"
                checked += 1
    assert checked
    report = json.loads((out / "porting_report.json").read_text())
    assert not [f for f in report["findings"] if f["rule"] == "build-source-lost"]

