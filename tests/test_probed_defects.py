"""The defects a new user's probing found (issue 24), each as the probe that found it.

Every test runs the installed command line on a private copy of the bundled
tree (or on the real PyTorch trees) and asks the harness's questions: one
clear ``musaport: error:`` line and the documented exit code, no traceback,
the source tree unchanged, the previous port intact.  A probe that hung the
old code runs with a timeout, so it fails instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from conftest import FIXTURE_TREE
from harness import assert_one_clear_line, fingerprint

TREE = "generated_cuda_compatible"
CUDA = "aten/src/ATen/native/cuda"
MUSA = "aten/src/ATen/native/musa"


def musaport(*args: str, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess[str]:
    """The installed command line, killed after ``timeout`` seconds (a hang is a failure, not a stall)."""
    try:
        return subprocess.run(["musaport", *args], capture_output=True, text=True, timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"musaport {' '.join(args)} did not finish in {timeout} s")
        raise exc


@pytest.fixture(scope="module")
def good_port(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("good")
    src, out = base / "trees" / "pytorch", base / "out"
    shutil.copytree(FIXTURE_TREE, src)
    done = musaport("run", "--pytorch-src", str(src), "--out", str(out), "-q")
    assert done.returncode == 0, done.stderr
    return src, out


@pytest.fixture()
def world(good_port: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    """A private tree and a good port of it in ``--out``."""
    src, out = tmp_path / "trees" / "pytorch", tmp_path / "out"
    shutil.copytree(good_port[0], src, symlinks=True)
    shutil.copytree(good_port[1], out, symlinks=True)
    return src, out


def port(src: Path, out: Path, *extra: str, **kwargs) -> subprocess.CompletedProcess[str]:
    return musaport("run", "--pytorch-src", str(src), "--out", str(out), "-q", *extra, **kwargs)


def refused(result: subprocess.CompletedProcess[str], src: Path, out: Path, before: tuple[dict, dict],
            code: int, *needles: str) -> str:
    """One clear line with exit ``code``; the source tree and the previous port as they were."""
    line = assert_one_clear_line(result, code, *needles)
    assert (fingerprint(src), fingerprint(out / TREE)) == before, "the source tree or the previous port changed"
    assert not list((out / ".musaport").glob("staging-*")), "a staging folder was left behind"
    return line


def report_skips(out: Path) -> dict[str, str]:
    report = json.loads((out / "porting_report.json").read_text())
    return {s["path"]: s["reason"] for s in report["skipped"]}


# 2, 3: a FIFO and a symlink loop among the sources are skipped with a warning; the run goes on.

def test_fifo_among_the_sources_is_skipped_not_read(world: tuple[Path, Path]) -> None:
    src, out = world
    os.mkfifo(src / CUDA / "x.cu")
    result = port(src, out, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "not a regular file" in report_skips(out)[f"{CUDA}/x.cu"]
    assert not (out / TREE / MUSA / "x.mu").exists()


def test_symlink_loop_among_the_sources_is_skipped(world: tuple[Path, Path]) -> None:
    src, out = world
    (src / CUDA / "a.cu").symlink_to("b.cu")
    (src / CUDA / "b.cu").symlink_to("a.cu")
    result = port(src, out)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    skips = report_skips(out)
    assert {f"{CUDA}/a.cu", f"{CUDA}/b.cu"} <= set(skips), skips


# 8, 10, 11, 15, 16: configuration and --out, refused in one line naming file:line.

BOMB = "".join(f"      {k}: &{k} [{', '.join([f'*{p}'] * 9 if p else ['lol'] * 9)}]\n"
               for p, k in zip([""] + list("abcdefgh"), "abcdefghi"))


def layout_file(tmp: Path, folders: str, extra: str = "") -> Path:
    path = tmp / "layout.yaml"
    path.write_text(f"layout: mine\nmarkers: [aten/src/ATen, c10]\nsuffixes: [.cu, .cuh, .h]\n{extra}"
                    f"folders:\n{folders}")
    return path


def test_alias_bomb_in_a_layout_is_refused_fast(world: tuple[Path, Path], tmp_path: Path) -> None:
    src, out = world
    layout = layout_file(tmp_path, f"  - {{path: {CUDA}}}\n",
                         "configured:\n  - template: x.h.in\n    why: w\n    values:\n" + BOMB)
    before = (fingerprint(src), fingerprint(out / TREE))
    start = time.monotonic()
    result = port(src, out, "--layout", str(layout), timeout=60)
    assert time.monotonic() - start < 20
    refused(result, src, out, before, 2, "layout.yaml:", "alias")


@pytest.mark.parametrize(("kind", "text", "needles"), [
    ("rules", "pack: p\nrules:\n  - id: r\n    why: w\n    pattern: x\n    replace: y\n    files: [['*.cu']]\n",
     ("my.yaml:3", "item 1 of 'files'", "list")),
    ("layout", "layout: l\nsuffixes: [.cu]\nexclude: [[['x']]]\nfolders:\n  - {path: aten/src/ATen/native/cuda}\n",
     ("my.yaml:1", "item 1 of 'exclude'", "list")),
    ("layout", "layout: l\nsuffixes: [.cu]\nfolders:\n  - {path: aten/src/ATen/native/cuda, files: [1]}\n",
     ("my.yaml:4", "item 1 of 'files'", "int")),
], ids=["rule files", "layout exclude", "folder files"])
def test_wrong_typed_list_element_is_one_line(world: tuple[Path, Path], tmp_path: Path, kind: str, text: str,
                                              needles: tuple[str, ...]) -> None:
    src, out = world
    (tmp_path / "my.yaml").write_text(text)
    before = (fingerprint(src), fingerprint(out / TREE))
    refused(port(src, out, f"--{kind}", str(tmp_path / "my.yaml")), src, out, before, 2, *needles)


def test_endless_config_file_is_refused(world: tuple[Path, Path]) -> None:
    src, out = world
    before = (fingerprint(src), fingerprint(out / TREE))
    for option in ("--layout", "--rules"):
        refused(port(src, out, option, "/dev/zero", timeout=60), src, out, before, 2, "/dev/zero", "too large")


PACK = """pack: mine
why: a user's pack
rules:
  - id: extra-abs-helper
    why: our own helper
    pattern: '\\babs_kernel_cuda_helper\\b'
    replace: abs_kernel_ours
    examples:
      - before: 'static void abs_kernel_cuda_helper(int x);'
        after: 'static void abs_kernel_ours(int x);'
"""


def test_packs_and_layouts_from_process_substitution(world: tuple[Path, Path], tmp_path: Path) -> None:
    """``--rules <(...)`` and ``--layout <(...)`` (a pipe, readable once) both work, as files do."""
    src, out = world
    (tmp_path / "p.yaml").write_text(PACK)
    layout = FIXTURE_TREE.parent.parent / "rules/layouts/pytorch.yaml"
    script = (f'musaport run --pytorch-src "{src}" --out "{out}" -q --rules <(cat "{tmp_path / "p.yaml"}") '
              f'--layout <(cat "{layout}") && musaport rules list --rules <(cat "{tmp_path / "p.yaml"}")')
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "extra-abs-helper" in result.stdout


def test_user_pack_examples_hold_beside_the_prelude_of_torch_musa(world: tuple[Path, Path], tmp_path: Path) -> None:
    src, out = world
    (tmp_path / "p.yaml").write_text(PACK)
    result = port(src, out, "--rules", str(tmp_path / "p.yaml"), "--pack", "torch-musa")
    assert result.returncode == 0, result.stderr
    # and an example that is wrong still fails, with the prelude active
    (tmp_path / "p.yaml").write_text(PACK.replace("after: 'static void abs_kernel_ours", "after: 'static void nope"))
    before = (fingerprint(src), fingerprint(out / TREE))
    line = refused(port(src, out, "--rules", str(tmp_path / "p.yaml"), "--pack", "torch-musa"), src, out, before, 2,
                   "p.yaml:9", "extra-abs-helper", "does not hold")
    assert "MUSAMacros" not in line


def test_layout_folder_that_does_not_exist_is_named(world: tuple[Path, Path], tmp_path: Path) -> None:
    src, out = world
    layout = layout_file(tmp_path, f"  - {{path: {CUDA}}}\n  - {{path: c10/cdua}}\n")
    before = (fingerprint(src), fingerprint(out / TREE))
    refused(port(src, out, "--layout", str(layout)), src, out, before, 2, "layout.yaml:6", "'c10/cdua'",
            "is not a folder")
    # a folder marked optional may be missing
    layout = layout_file(tmp_path, f"  - {{path: {CUDA}}}\n  - {{path: c10/cdua, optional: true}}\n")
    assert port(src, tmp_path / "out2", "--layout", str(layout)).returncode == 0


@pytest.mark.parametrize("version", ["2.6.0", "1.13.1"])
def test_every_folder_of_the_bundled_layout_exists_in_the_real_trees(version: str) -> None:
    """The bundled layout marks its folders optional (it serves every release and the mini tree);
    this catches a typo in it instead."""
    from conftest import pytorch_tree
    from musaport.port.layout import load_layout
    from musaport.resources import default_layout

    tree = pytorch_tree(version)
    missing = [f.path for f in load_layout(default_layout()).folders if not (tree / f.path).is_dir()]
    assert not missing


def test_out_inside_the_source_tree_is_refused(world: tuple[Path, Path]) -> None:
    src, out = world
    before = (fingerprint(src), fingerprint(out / TREE))
    refused(port(src, src / "aten"), src, out, before, 2, "--out is inside the source tree")
    assert not (src / "aten" / TREE).exists()


# 4: a tree without native_functions.yaml is a failed registration, like a failing torchgen.

def test_tree_without_native_functions_fails_the_registration_in_one_line(world: tuple[Path, Path]) -> None:
    src, out = world
    (src / "aten/src/ATen/native/native_functions.yaml").unlink()
    result = port(src, out)
    line = assert_one_clear_line(result, 1, "RegisterMUSA.cpp", "native_functions.yaml", "--no-registration")
    assert "not generated" in line
    assert (out / TREE / MUSA / "AbsKernel.mu").is_file()  # the sources are still ported
    assert port(src, out, "--no-registration").returncode == 0


# 6, 19: whereis takes a name as a user types it, refuses what is not a name, quotes its hint.

def test_whereis_finds_an_unqualified_name(world: tuple[Path, Path]) -> None:
    _, out = world
    for name in ("abs_kernel_musa", "at::native::abs_kernel_musa"):
        result = musaport("whereis", name, "--out", str(out))
        assert result.returncode == 0, result.stdout + result.stderr
        assert "defined      aten/src/ATen/native/musa/AbsKernel.mu:" in result.stdout
    # a name in another namespace than the one given is still not it
    assert musaport("whereis", "at::musa::abs_kernel_musa", "--out", str(out)).returncode == 1


@pytest.mark.parametrize("symbol", [".*", "-x", "a b(", "std::*"])
def test_whereis_refuses_what_is_not_a_name(world: tuple[Path, Path], symbol: str) -> None:
    _, out = world
    assert_one_clear_line(musaport("whereis", "--out", str(out), "--", symbol), 2, repr(symbol), "not a C++ name")


def test_whereis_hint_is_a_shell_command_that_can_be_pasted(world: tuple[Path, Path]) -> None:
    _, out = world
    result = musaport("whereis", "c10::operator<<", "--out", str(out))
    assert result.returncode == 1
    assert "grep -rl 'operator<<' /usr/local/musa/lib" in result.stdout


# 7: diff against an OUT of another release says so instead of blaming the rule packs.

def test_diff_against_a_port_of_another_release_says_so(world: tuple[Path, Path], tmp_path: Path) -> None:
    src, out = world
    kernel = src / CUDA / "AbsKernel.cu"
    kernel.write_text("// the next release's comment\n" + kernel.read_text())
    result = musaport("diff", "abs", "--pytorch-src", str(src), "--out", str(out), "--no-color")
    assert result.returncode == 0, result.stderr
    assert "rule ids unavailable" not in result.stdout
    assert "ported from another version of this file" in result.stdout
    assert "+// the next release's comment" not in result.stdout  # the drift is not shown as a port edit
    stat = musaport("diff", "abs", "--pytorch-src", str(src), "--out", str(out), "--json")
    files = json.loads(stat.stdout)["files"]
    assert files[0]["foreign"] and files[0]["attributed"]


# 12: a baseline report with wrong-typed entries is one line naming the entry.

@pytest.mark.parametrize(("doc", "needles"), [
    ({"files": {"a.cu": 7}, "unmapped": [], "rules": {}}, ('files["a.cu"]', "must be an object")),
    ({"files": {}, "unmapped": [{"name": 3, "sites": []}], "rules": {}}, ("unmapped[0].name", "string")),
    ({"files": {}, "unmapped": [], "rules": {"r": {"matches": "2"}}}, ('rules["r"].matches', "whole number")),
    ({"snapshot": {"source": "s", "rules": {"r": [1]}}}, ('snapshot.rules["r"]', "whole number")),
    ({"snapshot": {"source": "s", "validation": {"x.mu": "yes"}}}, ('snapshot.validation["x.mu"]',)),
], ids=["file entry", "unmapped name", "rule matches", "snapshot rules", "snapshot validation"])
def test_baseline_report_with_wrong_types_is_one_line(tmp_path: Path, doc: dict, needles: tuple[str, ...]) -> None:
    report = tmp_path / "r.json"
    report.write_text(json.dumps(doc))
    result = musaport("check", "--pytorch-src", str(FIXTURE_TREE), "--baseline-report", str(report),
                      "--out", str(tmp_path / "check"))
    assert_one_clear_line(result, 2, "r.json", *needles)
    assert not (tmp_path / "check" / "new").exists(), "the bad report is refused before porting NEW"


# 9: a rule that backtracks catastrophically fails its file, naming rule and file, within a bound.

SLOW_PACK = "pack: slow\nrules:\n  - id: backtracks\n    why: w\n    pattern: '(a+)+$'\n    replace: b\n"


@pytest.mark.slow
def test_backtracking_rule_is_bounded_per_file(world: tuple[Path, Path], tmp_path: Path) -> None:
    src, out = world
    kernel = src / CUDA / "AbsKernel.cu"
    kernel.write_text(kernel.read_text() + "static int x = " + "a" * 40 + "!1;\n")
    (tmp_path / "slow.yaml").write_text(SLOW_PACK)
    before = (fingerprint(src), fingerprint(out / TREE))
    env = dict(os.environ, MUSAPORT_FILE_SECONDS="2")
    start = time.monotonic()
    result = port(src, out, "--rules", str(tmp_path / "slow.yaml"), timeout=120, env=env)
    assert time.monotonic() - start < 60
    refused(result, src, out, before, 1, f"{CUDA}/AbsKernel.cu", "rule 'backtracks'", "slow.yaml:3",
            "over 2 s")


# 20: SIGTERM is handled as Ctrl-C is: the staging folder goes, one line, exit 143.

@pytest.mark.shared
def test_sigterm_cleans_up_and_says_so(pytorch_260: Path, tmp_path: Path) -> None:
    import signal

    out = tmp_path / "out"
    run = subprocess.Popen(["musaport", "run", "--pytorch-src", str(pytorch_260), "--out", str(out), "-q", "-j", "2"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not list((out / ".musaport").glob("staging-*")) and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.05)
    assert run.poll() is None, "the run ended before it could be stopped"
    run.send_signal(signal.SIGTERM)
    stdout, stderr = run.communicate(timeout=60)
    result = subprocess.CompletedProcess(run.args, run.returncode, stdout, stderr)
    assert_one_clear_line(result, 143, "terminated (SIGTERM)", "left as it was")
    assert not list((out / ".musaport").glob("staging-*")), "the staging folder was left behind"
    assert not (out / TREE).exists()


def test_configured_value_that_is_not_a_cmake_value_is_one_line(world: tuple[Path, Path], tmp_path: Path) -> None:
    src, out = world
    layout = layout_file(tmp_path, f"  - {{path: {CUDA}}}\n",
                         "configured:\n  - template: x.h.in\n    why: w\n    values:\n      A: [1, 2]\n")
    before = (fingerprint(src), fingerprint(out / TREE))
    refused(port(src, out, "--layout", str(layout)), src, out, before, 2, "layout.yaml:5", "'A'", "CMake value")


# The second round of probing (issue 36): D1 ... D24, each the probe that found it.

# D15: a YAML key that is a list or a mapping (``? [a, b]``) is one line in every configuration file.

@pytest.mark.parametrize(("option", "text"), [
    ("--rules", "pack: p\nrules:\n  ? [a, b]\n  : x\n"),
    ("--layout", "layout: x\n? {a: 1}\n: x\n"),
    ("--exclude-stubs-file", "stubs:\n  ? [a, b]\n  : x\n"),
], ids=["rules", "layout", "stubs"])
def test_yaml_key_that_is_not_a_plain_value_is_one_line(tmp_path: Path, option: str, text: str) -> None:
    (tmp_path / "k.yaml").write_text(text)
    result = musaport("run", "--pytorch-src", str(FIXTURE_TREE), "--out", str(tmp_path / "out"), "-q", option,
                      str(tmp_path / "k.yaml"))
    assert_one_clear_line(result, 2, "k.yaml:", "a key must be a plain value")
    assert not (tmp_path / "out" / TREE).exists()


# D19: a per-file bound no timer can hold (inf, 1e10) means no bound; it used to fail every file.

@pytest.mark.parametrize("seconds", ["inf", "1e10", "nan"])
def test_file_seconds_infinite_or_huge_ports_every_file(tmp_path: Path, seconds: str) -> None:
    env = dict(os.environ, MUSAPORT_FILE_SECONDS=seconds)
    result = port(FIXTURE_TREE, tmp_path / "out", "--no-registration", env=env)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / TREE / MUSA / "AbsKernel.mu").is_file()


# D23: a pack given twice is loaded once (it was a confusing "rule id already declared").

def test_pack_given_twice_is_loaded_once(tmp_path: Path) -> None:
    optional = FIXTURE_TREE.parent.parent / "rules/optional/torch-musa.yaml"
    for args in (("--pack", "torch-musa", "--pack", "torch-musa"), ("--pack", "torch-musa", "--rules", str(optional))):
        listed = musaport("rules", "list", *args)
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.count("│ torch-musa-prelude ") == 1
    result = port(FIXTURE_TREE, tmp_path / "out", "--no-registration", "--pack", "torch-musa", "--pack", "torch-musa")
    assert result.returncode == 0, result.stderr


# D24: ``rules explain`` of a rule from a bundled pack not loaded names that pack and its option.

@pytest.mark.parametrize(("rule", "option"), [("torch-musa-prelude", ("--pack", "torch-musa")),
                                              ("extension-cuda-case-label", ("--extension",))])
def test_rules_explain_names_the_pack_that_holds_the_rule(rule: str, option: tuple[str, ...]) -> None:
    assert_one_clear_line(musaport("rules", "explain", rule), 2, repr(rule), f"add {' '.join(option)}")
    explained = musaport("rules", "explain", rule, *option)
    assert explained.returncode == 0, explained.stderr
    assert rule in explained.stdout


# D21: parse reads with the bound every whole-file read has, and does not wait for a FIFO's writer.

def _two_gigabytes() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))  # the old code read /dev/zero until memory ran out


def test_parse_of_dev_zero_is_refused_by_size() -> None:
    result = musaport("parse", "/dev/zero", timeout=60, preexec_fn=_two_gigabytes)
    assert_one_clear_line(result, 2, "/dev/zero", "too large")


def test_parse_of_a_fifo_without_writer_does_not_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "k.cu")
    result = musaport("parse", str(tmp_path / "k.cu"), timeout=30)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["spans"] == []
    piped = subprocess.run(["bash", "-c", "musaport parse <(echo '// hello')"], capture_output=True, text=True,
                           timeout=60)  # a pipe with a writer is still read to its end
    assert piped.returncode == 0, piped.stderr
    assert json.loads(piped.stdout)["spans"][0]["text"] == "// hello"


# D17: a tree 1,100 folders deep is walked, ported, cleaned and searched without recursion.

def _deep(base: Path, levels: int = 1100) -> Path:
    """``base/d/d/.../d`` (``Path.mkdir(parents=True)`` itself recurses once per level)."""
    folder = base
    for _ in range(levels):
        folder = folder / "d"
        folder.mkdir()
    return folder


@pytest.fixture()
def deep_tmp(tmp_path: Path):
    """``tmp_path``, removed by the test itself: pytest's own clean-up (shutil.rmtree) recurses per level."""
    from musaport.fstree import remove_tree

    yield tmp_path
    remove_tree(tmp_path)


@pytest.mark.compiles
@pytest.mark.slow
def test_tree_1100_folders_deep_is_ported(deep_tmp: Path, clang) -> None:
    tmp_path = deep_tmp
    src, out = tmp_path / "pytorch", tmp_path / "out"
    shutil.copytree(FIXTURE_TREE, src)
    (_deep(src / CUDA) / "Deep.cu").write_text("#include <cuda_runtime.h>\n"
                                               "__global__ void deep_kernel(float* x) { x[threadIdx.x] = 1.0f; }\n")
    result = port(src, out, "--no-registration")
    assert result.returncode == 0, result.stderr[-2000:]
    ported = f"{MUSA}/{'d/' * 1100}Deep.mu"
    assert (out / TREE / ported).is_file()
    found = musaport("whereis", "deep_kernel", "--out", str(out))
    assert found.returncode == 0 and ported in found.stdout, found.stderr[-2000:]
    compiled = musaport("validate", "--compile", "--out", str(out), "-q", "*Deep.mu")
    assert compiled.returncode == 0 and "1 of 1 passed" in compiled.stdout, compiled.stdout + compiled.stderr[-2000:]
    from musaport.fstree import remove_tree

    remove_tree(src / CUDA / "d")
    result = port(src, out, "--no-registration")  # its port goes, with its 1,100 folders
    assert result.returncode == 0, result.stderr[-2000:]
    assert not (out / TREE / MUSA / "d").exists()


@pytest.mark.slow
def test_extension_1100_folders_deep_is_ported(deep_tmp: Path) -> None:
    tmp_path = deep_tmp
    src, out = tmp_path / "proj", tmp_path / "out"
    shutil.copytree(FIXTURE_TREE.parent.parent / "fixtures/extensions/imgops", src)
    (_deep(src / "csrc") / "deep.cu").write_text("__global__ void deep_kernel() { cudaDeviceSynchronize(); }\n")
    result = musaport("run", "--src", str(src), "--out", str(out), "-q")
    assert result.returncode == 0, result.stderr[-2000:]
    assert (out / TREE / "csrc" / ("d/" * 1100 + "deep.mu")).is_file() or \
        (out / TREE / "csrc" / ("d/" * 1100 + "deep.cu")).is_file()


# D6: an extension's --out in (or above) a folder of its CUDA sources is refused, as for PyTorch.

EXTENSION = FIXTURE_TREE.parent.parent / "fixtures/extensions/imgops"


@pytest.mark.parametrize(("out", "needle"), [("csrc/ops/cuda", "inside the ported source folder csrc/ops/cuda"),
                                             ("csrc/ops/cuda/build", "inside the ported source folder"),
                                             ("csrc", "holds the ported source folder")])
def test_extension_out_among_its_sources_is_refused(tmp_path: Path, out: str, needle: str) -> None:
    src = tmp_path / "proj"
    shutil.copytree(EXTENSION, src)
    before = fingerprint(src)
    result = musaport("run", "--src", str(src), "--out", str(src / out), "-q")
    assert_one_clear_line(result, 2, needle)
    assert fingerprint(src) == before, "the run wrote into the project's source folders"


def test_extension_out_inside_the_project_still_works(tmp_path: Path) -> None:
    src = tmp_path / "proj"
    shutil.copytree(EXTENSION, src)
    for _ in range(2):  # the second run sees the first one's port in --out and leaves it out
        result = musaport("run", "--src", str(src), "--out", str(src / "out"), "-q")
        assert result.returncode == 0, result.stderr
    assert "csrc/ops/cuda/box_iou_kernel.cu" in json.loads((src / "out/porting_report.json").read_text())["files"]
    assert not any(k.startswith("out/") for k in json.loads((src / "out/porting_report.json").read_text())["files"])


# D1, D10: no write follows a symbolic link out of --out (OutDir.guard, before anything is written).

def _outside_link(out: Path, name: str, target: Path) -> None:
    (out / name).parent.mkdir(parents=True, exist_ok=True)
    (out / name).unlink(missing_ok=True)
    (out / name).symlink_to(target)


def test_tree_linked_to_the_extension_source_is_refused(tmp_path: Path) -> None:
    src, out = tmp_path / "proj", tmp_path / "out"
    shutil.copytree(EXTENSION, src)
    _outside_link(out, TREE, Path("../proj"))
    before = fingerprint(src)
    assert_one_clear_line(musaport("run", "--src", str(src), "--out", str(out), "-q"), 2, TREE, "outside --out",
                          str(src))
    assert fingerprint(src) == before, "setup.py and the sources were rewritten through the link"
    assert sorted(p.name for p in out.iterdir()) == [TREE], "something was written before the refusal"


def test_tree_linked_to_the_pytorch_source_is_refused(world: tuple[Path, Path], tmp_path: Path) -> None:
    src, _ = world
    out = tmp_path / "out2"
    _outside_link(out, TREE, src)
    before = fingerprint(src)
    assert_one_clear_line(port(src, out), 2, TREE, "outside --out")
    assert fingerprint(src) == before


@pytest.mark.parametrize("name", [".musaport/lock", ".musaport/cache.json", ".musaport/request.json"])
def test_state_file_linked_outside_is_refused(world: tuple[Path, Path], tmp_path: Path, name: str) -> None:
    src, out = world
    outside = tmp_path / "outside"
    outside.mkdir()
    _outside_link(out, name, outside / "victim")
    kernel = src / CUDA / "AbsKernel.cu"
    kernel.write_text(kernel.read_text() + "// edited\n")  # a run with work to do
    before = fingerprint(out / TREE)
    assert_one_clear_line(port(src, out), 2, name.split("/")[-1], "outside --out")
    assert list(outside.iterdir()) == [] and fingerprint(out / TREE) == before


def test_staging_folder_linked_outside_is_never_followed(world: tuple[Path, Path], tmp_path: Path) -> None:
    """In-process, so the staging folder's name (the run's pid) is known before the run."""
    from musaport.errors import LoadError
    from musaport.ops.generate import OperatorFiles
    from musaport.port.config import Options, load_config
    from musaport.port.run import run
    from musaport.resources import default_layout, default_packs

    src, out = world
    outside = tmp_path / "outside"
    outside.mkdir()
    _outside_link(out, f".musaport/staging-{os.getpid()}", outside)
    kernel = src / CUDA / "AbsKernel.cu"
    kernel.write_text(kernel.read_text() + "// edited\n")
    opts = Options(src, out, default_layout(), tuple(default_packs()), jobs=1, generation=OperatorFiles())
    with pytest.raises(LoadError, match="outside --out"):
        run(opts, load_config(opts))
    assert list(outside.iterdir()) == []


@pytest.mark.compiles
def test_validate_work_folder_linked_outside_is_refused(world: tuple[Path, Path], tmp_path: Path, clang) -> None:
    _, out = world
    outside = tmp_path / "outside"
    outside.mkdir()
    _outside_link(out, ".musaport/validate", outside)
    assert_one_clear_line(musaport("validate", "--compile", "--out", str(out), "-q"), 2, "validate", "outside --out")
    assert list(outside.iterdir()) == []


# D5: check refuses an --out inside either tree before porting either.

def test_check_out_inside_the_baseline_is_refused_before_porting(tmp_path: Path) -> None:
    new, old = tmp_path / "new", tmp_path / "old"
    shutil.copytree(FIXTURE_TREE, new)
    shutil.copytree(FIXTURE_TREE, old)
    before = fingerprint(old)
    result = musaport("check", "--pytorch-src", str(new), "--baseline", str(old), "--out", str(old / "aten/x"))
    assert_one_clear_line(result, 2, "--out is inside the source tree", str(old))
    assert fingerprint(old) == before, "NEW was ported into OLD"


# D14: every JSON file of ours is read through jsonfile: too deep, truncated or of the wrong shape is a fresh
# start (a cache) or one line (a request, a baseline report), never a traceback.

DEEP = "[" * 100_000


@pytest.mark.parametrize(("name", "text"), [
    ("cache.json", DEEP), ("cache.json", '{"key": 1, "files": 3}'), ("cache.json", "{\"files\": {\"a\": [1]}}"),
    ("operator-scan.json", DEEP), ("reports.json", DEEP), ("outputs.json", '{"outputs": 7}'),
    ("config-snapshot.json", DEEP),
])
def test_damaged_state_file_is_a_fresh_start(world: tuple[Path, Path], name: str, text: str) -> None:
    src, out = world
    (out / ".musaport" / name).write_text(text)
    kernel = src / CUDA / "AbsKernel.cu"
    kernel.write_text(kernel.read_text() + "// edited\n")
    result = port(src, out)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "// edited" in (out / TREE / MUSA / "AbsKernel.mu").read_text()


def test_forged_cache_summary_is_not_printed(world: tuple[Path, Path]) -> None:
    """A cache index of the right key whose summary is not one: the run works instead of printing it."""
    src, out = world
    assert port(src, out).returncode == 0  # a port of this very tree: the next run is warm
    index = json.loads((out / ".musaport/cache.json").read_text())
    index["summary"] = {"counts": 5}
    (out / ".musaport/cache.json").write_text(json.dumps(index))
    result = musaport("run", "--pytorch-src", str(src), "--out", str(out))
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-3000:]


@pytest.mark.parametrize("text", [DEEP, '{"format": 1, "source": 5}'])
def test_damaged_request_is_one_line(world: tuple[Path, Path], text: str) -> None:
    _, out = world
    (out / ".musaport/request.json").write_text(text)
    assert_one_clear_line(musaport("diff", "abs", "--out", str(out), "--stat"), 2, "request.json", "run 'musaport run'")


def test_baseline_report_nested_too_deeply_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "r.json").write_text(DEEP)
    result = musaport("check", "--pytorch-src", str(FIXTURE_TREE), "--baseline-report", str(tmp_path / "r.json"),
                      "--out", str(tmp_path / "check"))
    assert_one_clear_line(result, 2, "r.json", "nested too deeply")


# D11: diff names the tree OUT came from or refuses; a rerun that changes nothing repairs a truncated report.

def test_diff_of_a_port_whose_tree_is_gone_is_refused(world: tuple[Path, Path]) -> None:
    src, out = world
    assert port(src, out).returncode == 0  # a port of this very tree
    shutil.move(src, src.with_name("moved"))
    assert_one_clear_line(musaport("diff", "abs", "--out", str(out), "--stat"), 2, str(src), "is gone")


def test_truncated_report_is_refused_then_repaired_by_a_rerun(world: tuple[Path, Path]) -> None:
    src, out = world
    assert port(src, out).returncode == 0  # a port of this very tree
    whole = (out / "porting_report.json").read_bytes()
    (out / "porting_report.json").write_bytes(whole[:100])
    for command in (("diff", "abs", "--stat"), ("whereis", "abs_kernel_musa")):
        assert_one_clear_line(musaport(*command, "--out", str(out)), 2, "porting_report.json", "damaged",
                              f"--pytorch-src {src}")
    result = port(src, out)
    assert result.returncode == 0, result.stderr
    assert (out / "porting_report.json").read_bytes() == whole
    assert musaport("diff", "abs", "--out", str(out), "--stat").returncode == 0


# D12: "the previous output was left as it was" only when it was; a failure mid-commit says the tree changed.

def test_failure_after_the_tree_was_replaced_says_so(world: tuple[Path, Path]) -> None:
    src, out = world
    (out / ".musaport/cache.json").unlink()
    (out / ".musaport/cache.json").mkdir()  # the cache is written after the renames: that write fails
    kernel = src / CUDA / "AbsKernel.cu"
    kernel.write_text(kernel.read_text() + "// edited\n")
    line = assert_one_clear_line(port(src, out), 1, "cache.json", "partly replaced", "run the same command again")
    assert "left as it was" not in line
    assert "// edited" in (out / TREE / MUSA / "AbsKernel.mu").read_text()  # the tree did change
    (out / ".musaport/cache.json").rmdir()
    assert port(src, out).returncode == 0
    assert not (out / ".musaport/commit-in-progress").exists()


def test_failure_before_the_commit_still_says_the_output_was_kept(world: tuple[Path, Path]) -> None:
    src, out = world
    (out / ".musaport/outputs.json").unlink()
    (out / ".musaport/outputs.json").mkdir()  # recorded before the marker: the tree is not touched yet
    kernel = src / CUDA / "AbsKernel.cu"
    kernel.write_text(kernel.read_text() + "// edited\n")
    before = fingerprint(out / TREE)
    assert_one_clear_line(port(src, out), 1, "outputs.json", "the previous output was left as it was")
    assert fingerprint(out / TREE) == before


# D4 (sources): a source that starts with a UTF-8 byte-order mark keeps it as its port's first bytes.

def test_byte_order_mark_stays_in_front_of_the_port(world: tuple[Path, Path]) -> None:
    src, out = world
    body = b"#include <cuda_runtime.h>\n__global__ void k() { cudaDeviceSynchronize(); }\n"
    (src / CUDA / "Bom.cu").write_bytes(b"\xef\xbb\xbf" + body)
    for extra in ((), ("--pack", "torch-musa")):  # the prelude is inserted at the start: after the mark too
        assert port(src, out, "--no-registration", *extra).returncode == 0
        ported = (out / TREE / MUSA / "Bom.mu").read_bytes()
        assert ported.startswith(b"\xef\xbb\xbf// musaport ") and ported.count(b"\xef\xbb\xbf") == 1
        assert b"#include <musa_runtime.h>\n" in ported and b"musaDeviceSynchronize" in ported


# D13: every command that reads a port takes the lock run takes: one holder at a time.

@pytest.mark.compiles
@pytest.mark.parametrize("command", [("whereis", "abs_kernel_musa"), ("diff", "abs", "--stat"),
                                     ("validate", "--compile", "-q")], ids=["whereis", "diff", "validate"])
def test_readers_wait_for_no_run_they_refuse_while_one_holds_out(world: tuple[Path, Path], command: tuple[str, ...],
                                                                  clang) -> None:
    import fcntl

    _, out = world
    fd = os.open(out / ".musaport/lock", os.O_RDWR | os.O_CREAT)  # a run holding --out, as it holds it
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert_one_clear_line(musaport(*command, "--out", str(out)), 2, "another musaport run is writing")
    finally:
        os.close(fd)
    after = musaport(*command, "--out", str(out))  # released, the command does its work
    assert "another musaport" not in after.stderr and "Traceback" not in after.stderr, after.stderr


def test_check_holds_its_ports_while_it_reads_them(tmp_path: Path) -> None:
    import fcntl

    out = tmp_path / "check"
    (out / "new/.musaport").mkdir(parents=True)
    fd = os.open(out / "new/.musaport/lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        result = musaport("check", "--pytorch-src", str(FIXTURE_TREE), "--baseline", str(FIXTURE_TREE),
                          "--out", str(out))
        assert_one_clear_line(result, 2, "another musaport run is writing")
    finally:
        os.close(fd)
    result = musaport("check", "--pytorch-src", str(FIXTURE_TREE), "--baseline", str(FIXTURE_TREE), "--out", str(out))
    assert result.returncode == 0, result.stderr  # one process takes each port's lock again freely


# D20: validate --run takes a kernel's name as its reports give it, without .cu.

@pytest.mark.compiles
def test_validate_run_matches_a_kernel_by_its_name(tmp_path: Path, gxx) -> None:
    result = musaport("validate", "--run", "--out", str(tmp_path / "out"), "elementwise")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 of 1 kernels passed" in result.stdout
    assert [o["name"] for o in json.loads((tmp_path / "out/validate_run.json").read_text())] == ["elementwise"]


@pytest.mark.compiles
def test_damaged_validate_results_are_no_cache(world: tuple[Path, Path], clang) -> None:
    _, out = world
    first = musaport("validate", "--compile", "--out", str(out), "-q")
    assert first.returncode in (0, 1) and "Traceback" not in first.stderr, first.stderr
    results = out / ".musaport/validate/results.json"
    doc = json.loads(results.read_text())
    for damaged in ({"env": doc["env"], "results": {k: 5 for k in doc["results"]}}, DEEP):
        results.write_text(damaged if isinstance(damaged, str) else json.dumps(damaged))
        again = musaport("validate", "--compile", "--out", str(out), "-q")
        assert again.returncode == first.returncode and "Traceback" not in again.stderr, again.stderr[-3000:]
        assert again.stdout == first.stdout
