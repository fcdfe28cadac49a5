"""The compiler cache's base folder for an extension's build: above both the extension's OUT and the
PyTorch port's (whose CPU view the build includes), so that neither folder's absolute path is in what
ccache keys on, and a new work folder laid out alike reuses the objects."""

from __future__ import annotations

from pathlib import Path

from musaport.validate.extension.build import cache_base


def test_sibling_outs_share_their_parent(tmp_path: Path):
    ext, view = tmp_path / "work" / "ext", tmp_path / "work" / "pt" / ".musaport" / "cpu"
    assert cache_base(ext, view) == (tmp_path / "work").resolve()


def test_a_port_inside_the_extensions_out_keeps_that_out(tmp_path: Path):
    ext = tmp_path / "ext"
    assert cache_base(ext, ext / "pt" / ".musaport" / "cpu") == ext.resolve()


def test_folders_that_share_only_the_root_keep_the_extensions_out():
    """ccache would rewrite every system header's path against a base of '/'."""
    assert cache_base(Path("/tmp/a/ext"), Path("/work/pt/.musaport/cpu")) == Path("/tmp/a/ext")


def test_links_are_resolved_first(tmp_path: Path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert cache_base(tmp_path / "link" / "ext", tmp_path / "real" / "pt") == (tmp_path / "real").resolve()
