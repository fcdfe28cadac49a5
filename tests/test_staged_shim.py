"""The shim as the compiler-cached builds name it: a copy in the user cache, named by its content.

ccache keys an object on its command line and on the paths of the headers it read. A build that named
the shim inside the checkout missed the cache in every new clone of the same code (CI's clone among
them); named by content, another checkout, or another installation, of the same shim names the same
folder.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from musaport import resources


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    resources.staged_shim.cache_clear()
    yield tmp_path / "cache" / "musaport" / "shim"
    resources.staged_shim.cache_clear()


def checkout(where: Path, edit: bool = False) -> Path:
    """A second copy of the package's shim, as another clone would hold it (optionally with one header changed)."""
    shutil.copytree(resources.shim_include().parent, where / "shim")
    if edit:
        header = where / "shim" / "include" / "musa_runtime.h"
        header.write_bytes(header.read_bytes() + b"\n// changed\n")
    return where


def files(root: Path) -> dict[str, bytes]:
    return {f.relative_to(root).as_posix(): f.read_bytes() for f in root.rglob("*") if f.is_file()}


def test_the_staged_copy_holds_the_package_shim_byte_for_byte(cache: Path):
    staged = resources.staged_shim()
    assert staged.parent == cache
    copied = files(staged)
    copied.pop(".musaport-staged")
    assert copied == files(resources.shim_include().parent)
    assert (staged / "include" / "musa_runtime.h").is_file() and (staged / "third_party").is_dir()


def test_a_second_call_reuses_the_copy_without_writing(cache: Path):
    staged = resources.staged_shim()
    marker = staged / ".musaport-staged"
    before = marker.stat().st_mtime_ns
    resources.staged_shim.cache_clear()
    assert resources.staged_shim() == staged
    assert marker.stat().st_mtime_ns == before
    assert [p.name for p in cache.iterdir()] == [staged.name]  # no staging folder left behind


def test_a_torn_copy_is_replaced_by_a_whole_one(cache: Path):
    staged = resources.staged_shim()
    (staged / ".musaport-staged").unlink()
    (staged / "include" / "musa_runtime.h").write_text("torn")
    resources.staged_shim.cache_clear()
    again = resources.staged_shim()
    assert again == staged
    assert (again / "include" / "musa_runtime.h").read_bytes() == (resources.shim_include() / "musa_runtime.h").read_bytes()


def test_another_checkout_of_the_same_shim_names_the_same_folder(cache: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch):
    ours = resources.staged_shim()
    monkeypatch.setattr(resources, "_PKG", checkout(tmp_path / "clone"))
    resources.staged_shim.cache_clear()
    assert resources.staged_shim() == ours


def test_a_changed_header_is_a_new_folder(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    ours = resources.staged_shim()
    monkeypatch.setattr(resources, "_PKG", checkout(tmp_path / "edited", edit=True))
    resources.staged_shim.cache_clear()
    theirs = resources.staged_shim()
    assert theirs != ours and theirs.parent == ours.parent
    assert (theirs / "include" / "musa_runtime.h").read_bytes().endswith(b"// changed\n")
