"""The shim as the compiler-cached builds name it: a mirror inside the build's own state folder.

ccache keys an object on its command line and on the paths of the headers it read, relative to its base
folder (``--out``). Mirrored inside ``--out``, the shim has the same relative path in every output folder
and every checkout; mirrored file by file, a header the package did not change keeps its time stamp, so a
shim edit rebuilds only what reads the edited header.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from musaport import resources
from musaport.validate.device.cmake_build import CMakeBuilder


def files(root: Path) -> dict[str, bytes]:
    return {f.relative_to(root).as_posix(): f.read_bytes() for f in root.rglob("*") if f.is_file()}


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the package's shim, as another checkout holds it, that a test may edit."""
    copy = tmp_path / "pkg" / "shim"
    shutil.copytree(resources.shim_root(), copy)
    monkeypatch.setattr(resources, "shim_root", lambda: copy)
    return copy


def test_the_mirror_holds_the_package_shim_byte_for_byte(tmp_path: Path):
    mirror = resources.mirrored_shim(tmp_path / "state" / "shim")
    assert mirror == tmp_path / "state" / "shim"
    assert files(mirror) == files(resources.shim_root())
    assert (mirror / "include" / "musa_runtime.h").is_file() and (mirror / "third_party").is_dir()


def test_an_edit_rewrites_only_the_edited_header(package: Path, tmp_path: Path):
    mirror = resources.mirrored_shim(tmp_path / "shim")
    stamps = {f: f.stat().st_mtime_ns for f in mirror.rglob("*") if f.is_file()}
    edited = package / "include" / "musparse.h"
    edited.write_bytes(edited.read_bytes() + b"\n// changed\n")
    resources.mirrored_shim(mirror)
    changed = sorted(f.relative_to(mirror).as_posix() for f, t in stamps.items() if f.stat().st_mtime_ns != t)
    assert changed == ["include/musparse.h"]
    assert (mirror / "include" / "musparse.h").read_bytes().endswith(b"// changed\n")


def test_a_header_the_package_dropped_leaves_the_mirror(package: Path, tmp_path: Path):
    mirror = resources.mirrored_shim(tmp_path / "shim")
    (package / "include" / "mufftXt.h").unlink()
    (mirror / "include" / ".stale.123.tmp").write_text("left by a killed build")
    resources.mirrored_shim(mirror)
    assert files(mirror) == files(package)


def test_a_torn_header_is_made_whole(tmp_path: Path):
    mirror = resources.mirrored_shim(tmp_path / "shim")
    (mirror / "include" / "musa_runtime.h").write_text("torn")
    resources.mirrored_shim(mirror)
    assert files(mirror) == files(resources.shim_root())


@pytest.mark.compiles
def test_after_a_shim_edit_only_the_objects_that_read_the_edited_header_are_rebuilt(
        package: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gxx: str, cmake: str):
    """The device's CMake project over a mirrored shim: Ninja's depfiles see one changed header, not a new shim."""
    monkeypatch.setenv("MUSAPORT_COMPILER_LAUNCHER", "none")  # the user's compiler cache stays out of it
    mirror = resources.mirrored_shim(tmp_path / "shim")  # the state folder's, as the device's is
    view = tmp_path / "cpu"
    view.mkdir()
    sparse, runtime = view / "sparse.cpp", view / "runtime.cpp"
    sparse.write_text("#include <musparse.h>\nint fa() { return MUSPARSE_STATUS_SUCCESS; }\n")
    runtime.write_text("#include <musa_runtime.h>\nint fb() { return musaSuccess; }\n")
    flags = ["-std=c++17", "-fPIC", f"-I{mirror / 'include'}"]
    builder = CMakeBuilder(tmp_path, tmp_path, view, flags, [], [], [], False, 2, log=lambda _: None)
    first = builder.compile([sparse, runtime], [])
    assert [x.reused for x in first] == [False, False] and all(x.obj for x in first), [x.error for x in first]
    time.sleep(0.01)  # a new mtime for the edited header, whatever the file system's granularity
    edited = package / "include" / "musparse.h"
    edited.write_bytes(edited.read_bytes() + b"\n// changed\n")
    resources.mirrored_shim(mirror)
    second = builder.compile([sparse, runtime], [])
    assert [x.reused for x in second] == [False, True]
