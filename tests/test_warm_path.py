"""The warm path of ``run``: cheap discovery and plan, an index-only cache, few imports.

Discovery and the plan take one stat per file; their results must be what they were before.

``_reference_discover`` is the implementation discovery had before it used
``os.DirEntry`` (a Path and an ``lstat`` per file, ``fnmatchcase`` per glob):
the two must agree item for item, sizes included, on the fixture tree and on
a tree with the awkward cases (symlinks in and out of the tree, a link to a
folder, excluded and non-source files, an oversized file, hostile names).
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

from conftest import FIXTURE_TREE, musaport, tree_digest
from musaport.port import cache
from musaport.port.file import FileResult
from musaport.port.layout import (MAX_SOURCE_BYTES, Found, Layout, Skipped, _configured_found, _safe_rel,
                                  discover, load_layout, name_problem, printable)
from musaport.resources import default_layout
from musaport.rewrite.transforms import rename_dirs, rename_path
from musaport.errors import LoadError


def _reference_discover(layout: Layout, root: Path) -> Iterator[Found | Skipped]:
    seen: set[str] = set()
    selected = 0
    root_r = root.resolve()
    for c in layout.configured:
        if (root / c.template).is_file():
            seen.add(c.template)
            item = _configured_found(c, root, root_r)
            selected += isinstance(item, Found)
            yield item
    for folder in layout.folders:
        if not (root / folder.path).is_dir():
            continue
        for rel in _reference_walk(root, folder.path, folder.recursive):
            key = rel.rel if isinstance(rel, Found) else rel
            if key in seen:
                continue
            item = rel if isinstance(rel, Found) else _reference_classify(layout, folder, root_r, root, rel)
            if item is not None:
                seen.add(key)
                selected += isinstance(item, Found)
                yield item
    if not selected:
        raise LoadError("selects no file")


def _reference_walk(root: Path, start: str, recursive: bool) -> Iterator[str | Found]:
    try:
        entries = sorted(os.scandir(root / start), key=lambda e: e.name)
    except OSError as exc:
        yield Found(start, "", False, error=f"cannot read folder: {exc.strerror or exc}")
        return
    dirs = []
    for entry in entries:
        rel = f"{start}/{entry.name}"
        if entry.is_dir(follow_symlinks=False):
            dirs.append(rel)
        else:
            yield rel
    if recursive:
        for rel in dirs:
            yield from _reference_walk(root, rel, True)


def _reference_classify(layout, folder, root_r, root, rel):
    name = rel.rsplit("/", 1)[-1]
    if not any(fnmatch.fnmatchcase(name, g) for g in folder.files):
        return None
    problem = name_problem(rel)
    if problem:
        return Skipped(printable(rel), f"file name has {problem} (not ported)", warn=True)
    if any(fnmatch.fnmatchcase(rel, g) for g in layout.exclude):
        return Skipped(rel, "excluded by layout")
    if not any(name.endswith(s) for s in layout.suffixes):
        return Skipped(rel, "not a source file")
    path = root / rel
    if path.is_symlink():
        target = path.resolve()
        if not target.is_relative_to(root_r):
            return Skipped(rel, f"symlink to {target} outside the source tree (not followed)", warn=True)
        if not target.is_file():
            return Skipped(rel, "symlink to something that is not a file", warn=True)
    copy = any(fnmatch.fnmatchcase(name, g) for g in layout.copy_only)
    out = rename_dirs(rel) if copy else rename_path(rel)
    if not _safe_rel(out):
        return Skipped(rel, f"its port {out!r} would leave the output tree (not ported)", warn=True)
    try:
        st = path.stat()
    except OSError:
        return Found(rel, out, copy)
    if st.st_size > MAX_SOURCE_BYTES:
        return Skipped(rel, f"{st.st_size} bytes, over the {MAX_SOURCE_BYTES // (1024 * 1024)} MiB "
                            "limit for one source (not ported)", warn=True)
    return replace(Found(rel, out, copy), size=st.st_size, mtime_ns=st.st_mtime_ns)


def _full(items: list[Found | Skipped]) -> list[tuple]:
    """Items with the fields equality leaves out (size, mtime) made visible."""
    return [(i, i.size, i.mtime_ns) if isinstance(i, Found) else (i,) for i in items]


@pytest.fixture()
def awkward(tmp_path: Path) -> Path:
    tree = tmp_path / "trees" / "pytorch"
    shutil.copytree(FIXTURE_TREE, tree)
    cuda = tree / "aten/src/ATen/native/cuda"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Far.cu").write_text("__global__ void far() {}\n")
    (cuda / "Inside.cu").symlink_to(cuda / "AbsKernel.cu")
    (cuda / "Leaves.cu").symlink_to(outside / "Far.cu")
    (cuda / "Dangling.cu").symlink_to(cuda / "missing.cu")
    (cuda / "linked_dir").symlink_to(outside, target_is_directory=True)
    (cuda / "notes.txt").write_text("not a source\n")
    (cuda / "test").mkdir()
    (cuda / "test/Excluded.cu").write_text("int x;\n")
    (cuda / "Hand.mu").write_text("int y;\n")
    (cuda / "Big.cu").write_bytes(b"/" * (MAX_SOURCE_BYTES + 1))
    (cuda / "Semi;colon.cu").write_text("int z;\n")
    (cuda / "Line\nbreak.cu").write_text("int w;\n")
    return tree


@pytest.mark.parametrize("which", ["fixture", "awkward"])
def test_discover_equals_the_reference(which: str, awkward: Path) -> None:
    tree = FIXTURE_TREE if which == "fixture" else awkward
    layout = load_layout(default_layout())
    new, old = list(discover(layout, tree)), list(_reference_discover(layout, tree))
    assert _full(new) == _full(old)
    assert any(isinstance(i, Skipped) for i in new) == (which == "awkward")


def test_discover_reports_an_unreadable_folder_like_the_reference(awkward: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """os.scandir refuses the folder as the kernel does for another user (root reads a chmod 000 folder,
    and CI runs as root, so a real chmod would test nothing there)."""
    locked = awkward / "aten/src/ATen/native/cuda/test"
    real = os.scandir

    def unreadable(path=".", *a, **k):
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *a, **k)

    monkeypatch.setattr(os, "scandir", unreadable)
    layout = load_layout(default_layout())
    found = list(discover(layout, awkward))
    assert _full(found) == _full(list(_reference_discover(layout, awkward)))
    assert [(i.rel, i.error) for i in found if isinstance(i, Found) and i.error] == [
        ("aten/src/ATen/native/cuda/test", "cannot read folder: Permission denied")]


def test_plan_reuses_only_what_is_unchanged(tmp_path: Path) -> None:
    """The plan's string paths and single output stat decide as the Path-based plan did."""
    src, tree = tmp_path / "src", tmp_path / "tree"
    for root in (src, tree):
        (root / "d").mkdir(parents=True)
    for name in ("a", "b", "c"):
        (src / "d" / f"{name}.cu").write_text(name)
        (tree / "d" / f"{name}.mu").write_text(name.upper())

    def entry(name: str) -> cache.Entry:
        s, o = (src / "d" / f"{name}.cu").stat(), (tree / "d" / f"{name}.mu").stat()
        result = FileResult(src=f"d/{name}.cu", out=f"d/{name}.mu", status="ported", src_hash="h", out_hash="o")
        return cache.Entry(s.st_size, s.st_mtime_ns, o.st_size, o.st_mtime_ns, result=result)

    entries = {f"d/{n}.cu": entry(n) for n in ("a", "b", "c")}
    (tree / "d/b.mu").write_text("changed output")
    (tree / "d/c.mu").unlink()
    found = [Found(f"d/{n}.cu", f"d/{n}.mu", False) for n in ("a", "b", "c")]
    work = cache.plan(found, entries, src, tree)
    assert list(work.reused) == ["d/a.cu"]
    assert [t.src for t in work.tasks] == ["d/b.cu", "d/c.cu"]
    assert work.tasks[0].path == src / "d/b.cu"


def test_plan_hashes_a_racy_source(tmp_path: Path) -> None:
    """A source edited in the cache write's clock tick keeps size and mtime: its hash decides."""
    import hashlib

    (tmp_path / "s.cu").write_text("old")
    (tmp_path / "s.mu").write_text("out")
    s, o = (tmp_path / "s.cu").stat(), (tmp_path / "s.mu").stat()

    def racy(text: str) -> cache.Entry:
        result = FileResult(src="s.cu", out="s.mu", status="ported", src_hash=hashlib.sha256(text.encode()).hexdigest(),
                            out_hash="o")
        return cache.Entry(s.st_size, s.st_mtime_ns, o.st_size, o.st_mtime_ns, result=result, racy=True)

    found = [Found("s.cu", "s.mu", False, size=s.st_size, mtime_ns=s.st_mtime_ns)]
    assert list(cache.plan(found, {"s.cu": racy("old")}, tmp_path, tmp_path).reused) == ["s.cu"]
    assert [t.src for t in cache.plan(found, {"s.cu": racy("new")}, tmp_path, tmp_path).tasks] == ["s.cu"]


def test_cache_index_and_results_round_trip(tmp_path: Path) -> None:
    """The index alone plans; the outcomes come back equal from the results file."""
    result = FileResult(src="d/a.cu", out="d/a.mu", status="ported", src_hash="s", out_hash="o",
                        fired={"r": 2}, unmapped=(("cudaFoo", 3),), warnings=("w",))
    entry = cache.Entry(1, 2, 3, 4, result=result)
    path = tmp_path / cache.CACHE_NAME
    cache.dump(path, "k", cache.Cache({"d/a.cu": entry}, "digest", {"counts": {}}))
    loaded = cache.load(path, "k")
    got = loaded.entries["d/a.cu"]
    assert (got.size, got.mtime_ns, got.out_size, got.out_mtime_ns, got.out, got.out_hash, got.src_hash) == \
        (1, 2, 3, 4, "d/a.mu", "o", "s")
    assert loaded.digest == "digest" and loaded.summary == {"counts": {}}
    assert loaded.load_results()
    assert got.result == result
    assert cache.load(path, "other key").entries == {}


def test_cache_results_that_do_not_match_the_index_are_refused(tmp_path: Path) -> None:
    result = FileResult(src="a.cu", out="a.mu", status="ported", src_hash="s", out_hash="o")
    path = tmp_path / cache.CACHE_NAME
    cache.dump(path, "k", cache.Cache({"a.cu": cache.Entry(1, 2, 3, 4, result=result)}))
    results = tmp_path / cache.RESULTS_NAME
    results.write_bytes(results.read_bytes().replace(b'"ported"', b'"copied"'))
    assert not cache.load(path, "k").load_results()
    results.unlink()
    assert not cache.load(path, "k").load_results()


def _port(src: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return musaport("run", "--pytorch-src", str(src), "--out", str(out), "-q")


def test_a_results_file_from_another_run_ports_everything_again(tmp_path: Path) -> None:
    """A run killed between writing the results and the index: nothing stale is reused."""
    src = tmp_path / "pytorch"
    shutil.copytree(FIXTURE_TREE, src)
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    assert _port(src, out).returncode == 0
    results = out / ".musaport" / cache.RESULTS_NAME
    results.write_bytes(results.read_bytes() + b" ")
    edited = src / "aten/src/ATen/native/cuda/AbsKernel.cu"
    edited.write_bytes(edited.read_bytes() + b"// edited\n")
    from musaport.ops.generate import OperatorFiles
    from musaport.port.config import Options, load_config
    from musaport.port.run import run
    from musaport.resources import default_packs

    opts = Options(src, out, default_layout(), tuple(default_packs()), jobs=1, generation=OperatorFiles())
    report = run(opts, load_config(opts))
    assert report.return_code == 0 and report.reused == 0
    assert _port(src, fresh).returncode == 0
    strip = lambda d: {k: v[1] for k, v in d.items()}  # noqa: E731 - bytes only, mtimes differ
    assert strip(tree_digest(out / "generated_cuda_compatible")) == strip(tree_digest(fresh / "generated_cuda_compatible"))
    assert (out / "porting_report.md").read_bytes() == (fresh / "porting_report.md").read_bytes()


_PROBE = """
import sys
from musaport.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    heavy = sorted(m for m in sys.modules if m in HEAVY)
    print(exc.code, ",".join(heavy))
"""
_HEAVY = ["concurrent.futures.process", "multiprocessing", "subprocess", "musaport.port.concurrency",
          "musaport.port.run", "musaport.port.stage", "musaport.ops.model", "musaport.ops.scan",
          "musaport.ops.records", "musaport.ops.generate", "jinja2", "clang.cindex",
          "yaml", "musaport.rewrite.packs"]  # the configuration comes from the last run's snapshot


def test_a_warm_run_imports_none_of_the_porting_machinery(tmp_path: Path) -> None:
    """What makes a warm run cheap (not a timing: the modules it must not need)."""
    src = tmp_path / "pytorch"
    shutil.copytree(FIXTURE_TREE, src)
    args = ["run", "--pytorch-src", str(src), "--out", str(tmp_path / "out"), "-q"]
    probe = _PROBE.replace("HEAVY", repr(set(_HEAVY)))
    cold = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True)
    assert cold.stdout.split()[0] == "0", cold.stderr
    assert "musaport.port.run" in cold.stdout  # the probe sees a run that has work
    warm = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True)
    assert warm.stdout.split() == ["0"], warm.stdout + warm.stderr


TRIANGULAR = "generated_cuda_compatible/aten/src/ATen/native/musa/TriangularOps.mu"


def test_a_warm_run_loads_the_configuration_again_when_a_pack_changes(tmp_path: Path) -> None:
    """The snapshot of the configuration holds only while the files it was made from do."""
    src, out, pack = tmp_path / "pytorch", tmp_path / "out", tmp_path / "mine.yaml"
    shutil.copytree(FIXTURE_TREE, src)
    rule = "pack: mine\nrules:\n  - id: mine\n    why: ours\n    pattern: '\\bexpected a cuda tensor'\n    replace: '{}'\n    contexts: [string]\n"
    pack.write_text(rule.format("first"))
    run = lambda: musaport("run", "--pytorch-src", str(src), "--out", str(out), "--rules", str(pack), "-q")  # noqa: E731
    assert run().returncode == 0 and "first" in (out / TRIANGULAR).read_text()
    pack.write_text(rule.format("second"))
    assert run().returncode == 0 and "second" in (out / TRIANGULAR).read_text()


def test_a_warm_run_sees_the_tree_change_what_a_rule_applies_to(tmp_path: Path) -> None:
    """is-cuda needs Device::is_privateuseone (tree_has): a tree that turns out not to have it is
    ported again without the rule, though no ported source changed."""
    src, out = tmp_path / "pytorch", tmp_path / "out"
    shutil.copytree(FIXTURE_TREE, src)
    assert _port(src, out).returncode == 0
    assert "self.is_privateuseone()" in (out / TRIANGULAR).read_text()
    (src / "c10/core/Device.h").write_text("struct Device { bool is_cuda() const noexcept; };\n")
    assert _port(src, out).returncode == 0
    assert "self.is_cuda()" in (out / TRIANGULAR).read_text()


def test_the_snapshot_gives_back_the_layout_it_was_given() -> None:
    """A warm run discovers with the snapshot's layout, so it must be the loaded one, field for field."""
    from dataclasses import asdict

    from musaport.port.snapshot import _layout

    layout = load_layout(default_layout())
    assert layout.configured and layout.operators.vendor  # the round trip covers every nested kind
    assert _layout(asdict(layout)) == layout
