"""Hand edits laid over an extension's port (``validate --extension --patch``): the build tree gets them,
the port and the project do not, and a patch that no longer fits stops with one line naming it."""

from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, musaport, tree_digest
from musaport.errors import LoadError
from musaport.outdir import OutDir
from musaport.validate.extension.build import build_tree
from musaport.validate.extension.patches import apply_patches

VECOPS = ROOT / "fixtures" / "extensions" / "vecops"
pytestmark = pytest.mark.skipif(shutil.which("git") is None and not os.environ.get("CI"),
                                reason="patches are applied with git apply, and git is not installed")


def git_diff(rel: str, before: str, after: str) -> str:
    """The patch ``git diff`` would write for one file's change."""
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 f"a/{rel}", f"b/{rel}")
    return f"diff --git a/{rel} b/{rel}\n" + "".join(lines)


@pytest.fixture(scope="module")
def ported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("patches") / "ext"
    done = musaport("run", "--src", str(VECOPS), "--out", str(out), "-q")
    assert done.returncode == 0, done.stderr
    return out


def test_a_patch_reaches_the_build_tree_and_not_the_port(ported: Path, tmp_path: Path) -> None:
    setup = (ported / "generated_cuda_compatible" / "setup.py").read_text()
    edited = setup.replace('"cxx": ["-O1"]', '"cxx": ["-O2"]')
    assert edited != setup
    patch = tmp_path / "flags.patch"
    patch.write_text(git_diff("setup.py", setup, edited))
    before = tree_digest(ported / "generated_cuda_compatible")
    tree, patched = build_tree(OutDir(ported), tmp_path / "state", (patch,))
    assert (tree / "setup.py").read_text() == edited
    assert [(a.patch, a.files) for a in patched.applied] == [(str(patch), ("setup.py",))]
    assert tree_digest(ported / "generated_cuda_compatible") == before
    # Without the patch, the next build tree is the port again.
    tree, patched = build_tree(OutDir(ported), tmp_path / "state")
    assert (tree / "setup.py").read_text() == setup and patched.applied == ()


def test_patches_apply_in_order_and_may_add_or_remove_files(ported: Path, tmp_path: Path) -> None:
    setup = (ported / "generated_cuda_compatible" / "setup.py").read_text()
    one = setup.replace('"-O1"', '"-O2"', 1)
    two = one.replace('"-O2"', '"-O3"', 1)
    first, second, new = tmp_path / "1.patch", tmp_path / "2.patch", tmp_path / "3.patch"
    first.write_text(git_diff("setup.py", setup, one))
    second.write_text(git_diff("setup.py", one, two))  # fits only after the first
    readme = "built for musa\n"
    new.write_text("diff --git a/MUSA.md b/MUSA.md\nnew file mode 100644\n--- /dev/null\n+++ b/MUSA.md\n"
                   f"@@ -0,0 +1 @@\n+{readme}")
    tree, _ = build_tree(OutDir(ported), tmp_path / "state", (first, second, new))
    assert (tree / "setup.py").read_text() == two
    assert (tree / "MUSA.md").read_text() == readme
    tree, _ = build_tree(OutDir(ported), tmp_path / "state", (first,))
    assert not (tree / "MUSA.md").exists()  # a file only a patch made goes with the patch


def test_a_patch_that_no_longer_fits_the_port_names_itself_and_the_file(ported: Path, tmp_path: Path) -> None:
    setup = (ported / "generated_cuda_compatible" / "setup.py").read_text()
    stale = setup.replace("vecops._C", "vecops._old")  # written against another port
    patch = tmp_path / "stale.patch"
    patch.write_text(git_diff("setup.py", stale, stale.replace('"-O1"', '"-O2"')))
    with pytest.raises(LoadError) as err:
        build_tree(OutDir(ported), tmp_path / "state", (patch,))
    message = str(err.value)
    assert message.startswith(f"{patch}: does not apply: patch failed: setup.py:")
    assert "\n" not in message


@pytest.mark.parametrize("text, says", [
    ("not a diff\n", r"holds no diff \(a unified diff against the port, as git diff writes it\)"),
    ("diff --git a/csrc/none.cpp b/csrc/none.cpp\n--- a/csrc/none.cpp\n+++ b/csrc/none.cpp\n@@ -1 +1 @@\n-a\n+b\n",
     "does not apply: csrc/none.cpp: No such file or directory"),
])
def test_a_patch_git_cannot_use_is_one_clear_error(tmp_path: Path, text: str, says: str) -> None:
    patch = tmp_path / "x.patch"
    patch.write_text(text)
    with pytest.raises(LoadError, match=f"^{patch}: {says}$"):
        apply_patches((patch,), lambda rel: None, tmp_path / "work")


def test_a_missing_patch_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match=f"^{tmp_path / 'gone.patch'}: no such patch file$"):
        apply_patches((tmp_path / "gone.patch",), lambda rel: None, tmp_path / "work")
