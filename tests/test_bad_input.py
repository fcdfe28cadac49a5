"""Bad input and a bad environment, one table: every command, one clear line, nothing harmed.

Each row names a command, a class of bad input, how to make it, the exit
code the README documents and what the one error line must say. Every row
also proves that the source tree is unchanged and that the previous port in
``--out`` is intact (or, where the row breaks ``--out`` itself, that nothing
half-written was left).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

from conftest import FIXTURE_TREE, need, stand_in_clang
from harness import assert_one_clear_line, fingerprint, musaport

TREE = "generated_cuda_compatible"
BAD_REGEX = "pack: p\nrules:\n  - id: broken\n    why: w\n    pattern: '[x'\n    replace: y\n"
BAD_YAML = "pack: p\nrules:\n  - id: a\n    why: [unclosed\n"
BAD_LAYOUT = "layout: l\nsuffixes: [.cu]\nfolders:\n  - {path: aten, recursiv: true}\n"


@dataclass
class World:
    """A private source tree, an ``--out`` holding a good port of it, and a scratch folder."""

    src: Path
    out: Path
    tmp: Path
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))

    def file(self, name: str, text: str | bytes) -> str:
        path = self.tmp / name
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        return str(path)

    def empty_path(self) -> None:
        """No tool on PATH: the command runs as ``python -m musaport`` (see ``run``)."""
        self.env["PATH"] = str(self.tmp / "empty-bin")
        (self.tmp / "empty-bin").mkdir(exist_ok=True)


@pytest.fixture(scope="module")
def good_port(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The fixture tree and one good port of it, made once and copied per row."""
    base = tmp_path_factory.mktemp("good")
    src, out = base / "pytorch", base / "out"
    shutil.copytree(FIXTURE_TREE, src)
    done = musaport("run", "--pytorch-src", str(src), "--out", str(out), "-q")
    assert done.returncode == 0, done.stderr
    return src, out


@pytest.fixture()
def world(good_port: tuple[Path, Path], tmp_path: Path) -> World:
    src, out = tmp_path / "pytorch", tmp_path / "out"
    shutil.copytree(good_port[0], src, symlinks=True)
    shutil.copytree(good_port[1], out, symlinks=True)
    return World(src, out, tmp_path)


def run(w: World, args: list[str]) -> subprocess.CompletedProcess[str]:
    """The command line as a user runs it (through ``python -m`` so an empty PATH still finds musaport)."""
    return subprocess.run([sys.executable, "-m", "musaport", *args], capture_output=True, text=True,
                          env=w.env, cwd=w.tmp)


def port_args(w: World, *extra: str) -> list[str]:
    return ["run", "--pytorch-src", str(w.src), "--out", str(w.out), "-q", *extra]


@dataclass(frozen=True)
class Row:
    """One class of bad input: how to make the arguments, the exit code, what the line names."""

    what: str
    args: Callable[[World], list[str]]
    code: int
    needles: tuple[str, ...]


def _held_lock(w: World) -> list[str]:
    """Hold --out's lock as a first run would (the fd stays open for the test's lifetime)."""
    fd = os.open(w.out / ".musaport" / "lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    w.env["MUSAPORT_TEST_LOCK_FD"] = str(fd)
    return port_args(w)


def _no_tools(w: World, args: list[str]) -> list[str]:
    w.empty_path()
    return args


def _any_clang(w: World, args: list[str]) -> list[str]:
    """A usage error of validate --compile, which it finds after its check for a clang: any clang will do."""
    w.env.update(stand_in_clang(w.tmp))
    return args


def _other_clang(w: World, args: list[str]) -> list[str]:
    w.env["MUSAPORT_CLANG"] = "no-such-clang++"
    return args


ROWS = [
    Row("run: not a PyTorch tree", lambda w: ["run", "--pytorch-src", str(w.tmp / "out" / TREE / "c10"),
                                              "--out", str(w.tmp / "o2"), "-q"], 2, ("not a PyTorch source tree",)),
    Row("run: source does not exist", lambda w: ["run", "--pytorch-src", str(w.tmp / "nope"), "--out",
                                                 str(w.out), "-q"], 2, ("nope", "is not a directory")),
    Row("run: --out is a file", lambda w: ["run", "--pytorch-src", str(w.src), "--out", w.file("f", "x"), "-q"],
        2, ("--out exists and is not a folder",)),
    Row("run: --out inside the ported sources",
        lambda w: ["run", "--pytorch-src", str(w.src), "--out", str(w.src / "aten/src/ATen/native/cuda/b"), "-q"],
        2, ("inside the ported source folder aten/src/ATen/native/cuda",)),
    Row("run: --out is the source tree", lambda w: ["run", "--pytorch-src", str(w.src), "--out", str(w.src), "-q"],
        2, ("must not be the source tree",)),
    Row("run: --out below a file", lambda w: ["run", "--pytorch-src", str(w.src), "--out",
                                              w.file("plain", "x") + "/sub", "-q"], 2, ("cannot create --out",)),
    Row("run: malformed rule pack", lambda w: port_args(w, "--rules", w.file("bad.yaml", BAD_YAML)),
        2, ("bad.yaml:5", "invalid YAML")),
    Row("run: invalid regex", lambda w: port_args(w, "--rules", w.file("re.yaml", BAD_REGEX)),
        2, ("re.yaml:3: rule 'broken': invalid regex",)),
    Row("run: rule pack not UTF-8", lambda w: port_args(w, "--rules", w.file("latin.yaml", b"pack: \xe9\n")),
        2, ("latin.yaml", "cannot read")),
    Row("run: rule pack missing", lambda w: port_args(w, "--rules", str(w.tmp / "none.yaml")),
        2, ("none.yaml", "file not found")),
    Row("run: rule pack is a folder", lambda w: port_args(w, "--rules", str(w.tmp)), 2, ("is a folder",)),
    Row("run: malformed layout", lambda w: port_args(w, "--layout", w.file("layout.yaml", BAD_LAYOUT)),
        2, ("layout.yaml:4", "recursiv")),
    Row("run: NUL byte in the layout", lambda w: port_args(w, "--layout", w.file("nul.yaml", b"layout: a\x00\n")),
        2, ("nul.yaml", "invalid YAML")),
    Row("run: unknown optional pack", lambda w: port_args(w, "--pack", "nope"), 2, ("no optional pack 'nope'",)),
    Row("run: unknown operator", lambda w: port_args(w, "--ops", "no_such_op"), 2, ("--ops", "no_such_op")),
    Row("run: bad stub name", lambda w: port_args(w, "--exclude-stubs", "1bad"), 2, ("not a DispatchStub name",)),
    Row("run: two runs on one --out", _held_lock, 2, ("another musaport run is writing to this --out",)),
    Row("validate --compile: no g++ (the system's C++ headers)",
        lambda w: _no_tools(w, ["validate", "--compile", "--out", str(w.out)]), 2, ("g++", "musaport doctor")),
    Row("validate --compile: MUSAPORT_CLANG names no clang",
        lambda w: _other_clang(w, ["validate", "--compile", "--out", str(w.out)]), 2,
        ("MUSAPORT_CLANG=no-such-clang++: not on PATH", "unset MUSAPORT_CLANG")),
    Row("validate --run: no g++", lambda w: _no_tools(w, ["validate", "--run", "--out", str(w.out)]),
        2, ("g++", "musaport doctor")),
    Row("validate --compile: no port in --out",
        lambda w: _any_clang(w, ["validate", "--compile", "--out", str(w.tmp / "none")]), 2, ("no ported tree here",)),
    Row("validate --compile: pattern matches nothing",
        lambda w: _any_clang(w, ["validate", "--compile", "--out", str(w.out), "NoSuchFile.mu"]), 2,
        ("no ported file matches",)),
    Row("whereis: no port in --out", lambda w: ["whereis", "abs_kernel_cuda", "--out", str(w.tmp / "none")],
        2, ("no ported tree here",)),
    Row("whereis: not a mangled name", lambda w: ["whereis", "_Zgarbage", "--out", str(w.out)],
        2, ("_Zgarbage", "not a valid mangled")),
    Row("diff: unknown operator", lambda w: ["diff", "no_such_op", "--out", str(w.out)], 2, ("no operator",)),
    Row("diff: --out without a port", lambda w: ["diff", "abs", "--out", str(w.tmp / "typo")],
        2, ("typo", "no ported tree here")),
    Row("check: two baselines", lambda w: ["check", "--pytorch-src", str(w.src), "--baseline", str(w.src),
                                           "--baseline-report", w.file("r.json", "{}")], 2, ("exactly one of",)),
    Row("check: unknown --fail-on", lambda w: ["check", "--pytorch-src", str(w.src), "--baseline", str(w.src),
                                               "--fail-on", "bogus"], 2, ("unknown categories bogus",)),
    Row("rules explain: unknown rule", lambda w: ["rules", "explain", "no-such-rule"], 2, ("no rule 'no-such-rule'",)),
]


@pytest.mark.parametrize("row", ROWS, ids=[r.what for r in ROWS])
def test_bad_input_is_one_line_and_harms_nothing(world: World, row: Row) -> None:
    source, previous = fingerprint(world.src), fingerprint(world.out / TREE)
    args = row.args(world)
    result = run(world, args)
    assert_one_clear_line(result, row.code, *row.needles)
    assert fingerprint(world.src) == source, "the source tree changed"
    assert fingerprint(world.out / TREE) == previous, "the previous port changed"
    assert not list((world.out / ".musaport").glob("staging-*")), "a staging folder was left behind"


def test_the_table_covers_every_command_and_fifteen_classes() -> None:
    commands = {r.what.split(":")[0].split()[0] for r in ROWS}
    assert {"run", "validate", "whereis", "diff", "check", "rules"} <= commands
    assert len(ROWS) >= 15


# Inputs that are odd but valid: the run succeeds, and keeps its promises.


def test_symlink_escaping_the_tree_is_not_followed(world: World) -> None:
    outside = world.tmp / "secret.cu"
    outside.write_text("cudaMalloc(&p, 4);\n")
    (world.src / "aten/src/ATen/native/cuda/Escape.cu").symlink_to(outside)
    result = run(world, port_args(world))
    assert result.returncode == 0, result.stderr
    assert not (world.out / TREE / "aten/src/ATen/native/musa/Escape.mu").exists()
    assert "outside the source tree (not followed)" in (world.out / "porting_report.json").read_text()


@pytest.mark.parametrize("data", [b"", b"// \xff\xfe not UTF-8\ncudaFree(p);\n", b"int a;\x00\ncudaFree(p);\n"],
                         ids=["empty", "not UTF-8", "NUL byte"])
def test_odd_bytes_port_and_keep_every_byte_outside_rewrites(world: World, data: bytes) -> None:
    (world.src / "aten/src/ATen/native/cuda/Odd.cu").write_bytes(data)
    result = run(world, port_args(world))
    assert result.returncode == 0, result.stderr
    ported = (world.out / TREE / "aten/src/ATen/native/musa/Odd.mu").read_bytes()
    assert ported.endswith(data.replace(b"cudaFree", b"musaFree"))


# Disk full and a read-only --out need a file system of their own: a small tmpfs.


@pytest.fixture()
def tmpfs(tmp_path: Path):
    """A 64 KiB tmpfs at tmp_path/fs, or a skip that says why (mounting needs root and the capability; CI
    runs as root, so there it must mount)."""
    mount = tmp_path / "fs"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        need(f"cannot mount a tmpfs here ({done.stderr.strip() or 'mount failed'}); "
             "disk-full and read-only --out are not exercised")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def test_disk_full_is_one_line_and_leaves_no_partial_files(world: World, tmpfs: Path) -> None:
    big = world.src / "aten/src/ATen/native/cuda/Big.cu"
    big.write_text("// filler\n" * 20000 + "cudaFree(p);\n")  # about 200 KB: more than the tmpfs holds
    result = run(world, ["run", "--pytorch-src", str(world.src), "--out", str(tmpfs / "out"), "-q"])
    assert_one_clear_line(result, 1, "No space left on device")
    left = [p for p in (tmpfs / "out").rglob("*") if p.name.endswith(".tmp") or p.name.startswith("staging-")]
    assert not left, left
    assert not (tmpfs / "out" / TREE).exists()


def test_read_only_out_is_one_line_and_keeps_the_port(world: World, tmpfs: Path) -> None:
    small = world.tmp / "small"
    small.mkdir()
    for rel in ("version.txt", "aten/src/ATen/native/cuda/AbsKernel.cu", "c10/cuda/CUDAException.h"):
        (small / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(world.src / rel, small / rel)
    first = run(world, ["run", "--pytorch-src", str(small), "--out", str(tmpfs / "out"), "-q", "--no-registration"])
    assert first.returncode == 0, first.stderr
    before = fingerprint(tmpfs / "out")
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    (small / "aten/src/ATen/native/cuda/AbsKernel.cu").write_text("cudaFree(p);\n")
    result = run(world, ["run", "--pytorch-src", str(small), "--out", str(tmpfs / "out"), "-q", "--no-registration"])
    assert_one_clear_line(result, 2, "--out is not writable")
    assert fingerprint(tmpfs / "out") == before
