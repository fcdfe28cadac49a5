"""musaport doctor: real probes where safe, an empty PATH for missing tools, fake PyTorch trees for torchgen."""

from __future__ import annotations

import ctypes.util
import importlib.metadata
import importlib.util
from pathlib import Path

import pytest

from musaport.doctor import (
    REQUIREMENTS,
    TORCH_DOWNLOAD,
    Requirement,
    Status,
    diagnose,
    exit_code,
    install_commands,
    missing_for,
    probe,
    render_rows,
    require,
)


def by_name(statuses: list[Status]) -> dict[str, Status]:
    return {s.requirement.name: s for s in statuses}


def rows_by_name(statuses: list[Status]) -> dict[str, tuple[str, str, str, str]]:
    return {s.requirement.name: row for s, row in zip(statuses, render_rows(statuses))}


def fake_tree(root: Path, model_body: str = "", gen_body: str = "") -> Path:
    """A PyTorch-shaped tree holding only torchgen/{__init__,model,gen}.py."""
    pkg = root / "torchgen"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text(model_body)
    (pkg / "gen.py").write_text(gen_body)
    return root


def listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.fixture
def empty_path(tmp_path, monkeypatch) -> None:
    """No executable can be found: every tool is missing."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


@pytest.fixture
def wheel_zig(tmp_path, monkeypatch) -> Path:
    """A stand-in for the ziglang wheel's zig (the dev extra's; tests/test_toolchain.py runs the real one): the
    wheel is found by its package, never on PATH, so these rows hold on a machine without the dev extra."""
    from musaport.validate.clang import toolchain

    zig = tmp_path / "ziglang" / "zig"
    zig.parent.mkdir()
    zig.write_text("#!/bin/sh\necho 'clang version 22.1.0'\n")
    zig.chmod(0o755)
    monkeypatch.delenv("MUSAPORT_CLANG", raising=False)
    monkeypatch.setattr(toolchain, "zig_executable", lambda: zig)
    return zig


def test_python_packages_present_are_ok_with_their_version():
    statuses = by_name(diagnose())
    for name in ("click", "rich", "pyyaml", "jinja2"):
        assert statuses[name].ok, statuses[name]
        assert statuses[name].detail == importlib.metadata.version(name)


def test_missing_python_package_is_reported_with_pip():
    req = Requirement("no-such-dist", "python", ("run",), "python3 -m pip install no-such-dist",
                      target="no_such_module_xyz")
    status = probe(req)
    assert not status.ok
    assert status.detail == "not installed"
    assert install_commands([status]) == ["python3 -m pip install no-such-dist"]


def test_libclang_loads_and_reports_its_library_path():
    status = by_name(diagnose())["libclang"]
    assert status.ok, status.detail
    assert "libclang" in status.detail and "/" in status.detail


def test_tool_on_path_reports_version_line(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "g++"
    tool.write_text("#!/bin/sh\necho 'g++ (Fake) 99.1.0'\necho second line\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    status = by_name(diagnose())["g++"]
    assert status.ok
    assert status.detail == f"g++ (Fake) 99.1.0 ({tool})"


def test_empty_path_reports_tools_missing_with_apt_commands(empty_path, wheel_zig):
    statuses = diagnose()
    rows = rows_by_name(statuses)
    # The clang is the ziglang wheel's (installed by the README's first command), not one on PATH.
    assert rows["clang"][1] == "ok" and "ziglang wheel" in rows["clang"][2], rows["clang"]
    assert rows["g++"][1:] == ("MISSING", "not on PATH", "apt-get install -y g++")
    assert rows["readelf"][3] == "apt-get install -y binutils"
    assert rows["c++filt"][3] == "apt-get install -y binutils"
    assert rows["cmake"][1] == "optional"  # missing, but never a failure
    assert exit_code(statuses) == 1
    # One apt-get line, binutils once, the optional cmake left out.
    assert install_commands(statuses) == ["apt-get install -y g++ binutils"]
    # cmake comes from PyPI (an optional row: the dev extra installs it).
    assert install_commands(statuses, include_optional=True)[:2] == ["apt-get install -y g++ binutils",
                                                                     "python3 -m pip install cmake"]


def test_only_optional_missing_exits_zero():
    reqs = {r.name: r for r in REQUIREMENTS}
    statuses = [Status(reqs["click"], True, "8.1"), Status(reqs["cmake"], False, "not on PATH"),
                Status(reqs["libtorch"], False, "not installed (needed by validate --backend, coming)")]
    assert exit_code(statuses) == 0
    assert install_commands(statuses) == []
    assert exit_code(statuses + [Status(reqs["g++"], False, "not on PATH")]) == 1


def test_libtorch_row_is_optional_and_never_a_failure(monkeypatch, tmp_path):
    """On a machine where torch was never fetched (an empty user cache, no torch installed): an optional row
    that says how much the fetch downloads. Made so here, whatever this machine has."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "empty-cache"))
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    status = probe(next(r for r in REQUIREMENTS if r.name == "libtorch"))
    assert status.requirement.optional
    assert status.requirement.needed_by == ("validate --backend",)
    assert not status.ok
    assert status.detail == f"not fetched yet (validate --backend downloads the tree's release once, {TORCH_DOWNLOAD})"
    assert render_rows([status])[0][1] == "optional"
    assert missing_for("validate --backend", [status]) == []


def test_torchgen_without_pytorch_src_is_not_checked_and_not_a_failure():
    status = by_name(diagnose(None))["torchgen"]
    assert status.ok and not status.checked
    assert status.detail == "not checked (give --pytorch-src)"
    assert render_rows([status])[0][1:] == ("not checked", "not checked (give --pytorch-src)", "")
    assert exit_code([status]) == 0


def test_torchgen_missing_module_is_named_and_tree_untouched(tmp_path, monkeypatch):
    tree = fake_tree(tmp_path / "pytorch", model_body="import no_such_module_xyz\n")
    before = listing(tree)
    caller = tmp_path / "caller"
    caller.mkdir()
    monkeypatch.chdir(caller)
    status = by_name(diagnose(tree))["torchgen"]
    assert not status.ok
    assert status.detail == "cannot import module no_such_module_xyz"
    assert status.fix == "python3 -m pip install no_such_module_xyz"
    assert render_rows([status])[0][1] == "MISSING"
    assert exit_code([status]) == 1
    assert listing(tree) == before
    assert not list(tree.rglob("__pycache__"))
    assert listing(caller) == []


def test_torchgen_ignores_pythonpath(tmp_path, monkeypatch):
    """-I: a module only reachable through PYTHONPATH must not hide a missing dependency."""
    tree = fake_tree(tmp_path / "pytorch", model_body="import no_such_module_xyz\n")
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "no_such_module_xyz.py").write_text("")
    monkeypatch.setenv("PYTHONPATH", str(extra))
    status = by_name(diagnose(tree))["torchgen"]
    assert not status.ok
    assert "no_such_module_xyz" in status.detail


def test_torchgen_that_imports_is_ok_and_runs_outside_the_tree(tmp_path, monkeypatch):
    # gen.py writes a file into its working directory: it must land in neither the tree nor the caller's cwd.
    tree = fake_tree(tmp_path / "pytorch", model_body="import json\n",
                     gen_body="from torchgen import model\nopen('written_by_gen', 'w').close()\n")
    before = listing(tree)
    caller = tmp_path / "caller"
    caller.mkdir()
    monkeypatch.chdir(caller)
    status = by_name(diagnose(tree))["torchgen"]
    assert status.ok, status.detail
    assert status.detail == f"imports from {tree.resolve()}"
    assert listing(tree) == before
    assert listing(caller) == []


def test_torchgen_other_error_reports_last_line(tmp_path):
    tree = fake_tree(tmp_path / "pytorch", gen_body="raise RuntimeError('boom in gen')\n")
    status = by_name(diagnose(tree))["torchgen"]
    assert not status.ok
    assert status.detail == "import failed: RuntimeError: boom in gen"
    assert status.fix == ""
    assert install_commands([status]) == []


def test_tree_without_torchgen_is_missing(tmp_path):
    status = by_name(diagnose(tmp_path))["torchgen"]
    assert not status.ok
    assert "has no torchgen/" in status.detail


def test_require_validate_compile_with_empty_path(empty_path, wheel_zig):
    """No clang on PATH is fine (the wheel's is used); the system's C++ headers come from g++, which is missing."""
    line = require("validate --compile")
    assert line is not None
    assert "\n" not in line
    assert line == ("validate --compile needs g++, which is not installed (apt-get install -y g++); "
                    "run 'musaport doctor' for everything")


def test_clang_without_the_ziglang_wheel_names_the_pip_command(monkeypatch):
    from musaport.validate.clang import toolchain

    monkeypatch.delenv("MUSAPORT_CLANG", raising=False)
    monkeypatch.setattr(toolchain, "zig_executable", lambda: None)
    status = by_name(diagnose())["clang"]
    assert render_rows([status])[0][1:] == ("MISSING", "the ziglang wheel is not installed",
                                           "python3 -m pip install ziglang")
    assert require("validate --compile") == (
        "validate --compile needs a clang: the ziglang wheel is not installed (python3 -m pip install ziglang); "
        "run 'musaport doctor' for everything")


def test_musaport_clang_names_another_clang(monkeypatch, tmp_path):
    """MUSAPORT_CLANG picks a clang from PATH instead of the wheel's; a missing one says how to go back."""
    monkeypatch.setenv("MUSAPORT_CLANG", "no-such-clang++")
    status = by_name(diagnose())["clang"]
    assert render_rows([status])[0][1:] == ("MISSING", "MUSAPORT_CLANG=no-such-clang++: not on PATH",
                                           "unset MUSAPORT_CLANG")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "my-clang++"
    fake.write_text("#!/bin/sh\necho 'clang version 99.0.0'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("MUSAPORT_CLANG", "my-clang++")
    status = by_name(diagnose())["clang"]
    assert status.ok and status.detail == f"clang version 99.0.0 (MUSAPORT_CLANG=my-clang++, {fake})"


def test_require_validate_run_names_both_tools_once(empty_path):
    line = require("validate --run")
    assert line is not None
    assert line.startswith("validate --run needs g++ and readelf, which are not installed "
                           "(apt-get install -y g++ binutils);")


def test_require_is_none_when_nothing_is_missing():
    # The python packages and libclang are present in the test environment; rules needs nothing else.
    assert require("rules") is None


def test_require_run_names_torchgen_missing_module(tmp_path):
    tree = fake_tree(tmp_path / "pytorch", model_body="import no_such_module_xyz\n")
    line = require("run", tree)
    assert line is not None
    assert "no_such_module_xyz" in line
    assert "python3 -m pip install no_such_module_xyz" in line
    assert line.endswith("run 'musaport doctor' for everything")


def test_missing_for_filters_by_command(empty_path):
    statuses = diagnose()
    assert [s.requirement.name for s in missing_for("validate --run", statuses)] == ["g++", "readelf"]
    assert [s.requirement.name for s in missing_for("whereis", statuses)] == ["c++filt"]  # cmake is optional
    assert missing_for("diff", statuses) == []


def test_unknown_command_is_a_caller_bug():
    with pytest.raises(ValueError, match="unknown command"):
        require("validate --compiel")
