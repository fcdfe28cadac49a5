"""validate --compile's clang: the ziglang wheel's by default, a clang on PATH only when MUSAPORT_CLANG names it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from musaport.resources import shim_include, shim_wrappers
from musaport.validate.clang import toolchain
from musaport.validate.compile.compile import BASE_FLAGS, PASSES, compile_command

from test_validate import KERNEL, _ported_tree

pytestmark = pytest.mark.usefixtures("clang")


def _fake_clang(bin_dir: Path, name: str, log: Path, then: list[str] | None = None) -> Path:
    """A clang that logs that it ran, then fails (or runs ``then`` with its arguments)."""
    bin_dir.mkdir(exist_ok=True)
    fake = bin_dir / name
    tail = f'exec {" ".join(then)} "$@"' if then else "exit 1"
    fake.write_text(f'#!/bin/sh\necho "$@" >> {log}\ncase "$1" in --version) echo "clang version 0.fake";;'
                    f"\nesac\n{tail}\n")
    fake.chmod(0o755)
    return fake


def _validate(out: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["musaport", "validate", "--compile", "--out", str(out)], capture_output=True, text=True,
                          env=env)


@pytest.mark.compiles
def test_the_default_clang_is_the_wheels_and_never_one_on_path(tmp_path: Path) -> None:
    """A system clang on PATH (clang++-16, clang++) is not what the default runs: verdicts come from one
    compiler on every machine."""
    log = tmp_path / "called"
    for name in ("clang++-16", "clang++", "clang"):
        _fake_clang(tmp_path / "bin", name, log)
    env = {k: v for k, v in os.environ.items() if k != toolchain.ENV}
    env["PATH"] = f"{tmp_path / 'bin'}:{env['PATH']}"
    out = _ported_tree(tmp_path, "scale.mu", KERNEL)
    result = _validate(out, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS scale.mu" in result.stdout
    assert not log.exists(), f"a clang on PATH was run: {log.read_text()}"


@pytest.mark.compiles
def test_musaport_clang_runs_the_named_clang(tmp_path: Path, clang) -> None:
    """MUSAPORT_CLANG=NAME runs that clang (here one that logs and hands over to the wheel's with its flags);
    the cache is per compiler, so switching re-checks."""
    log = tmp_path / "called"
    wrapper = _fake_clang(tmp_path / "bin", "my-clang++", log, then=[*clang.argv, *clang.flags])
    out = _ported_tree(tmp_path, "scale.mu", KERNEL)
    default_env = {k: v for k, v in os.environ.items() if k != toolchain.ENV}
    assert _validate(out, default_env).returncode == 0
    env = dict(default_env, **{toolchain.ENV: str(wrapper)})
    result = _validate(out, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS scale.mu" in result.stdout
    compiles = [line for line in log.read_text().splitlines() if "scale.mu" in line]
    assert len(compiles) == 2, "one compile per pass: the default's cached verdict was not reused"
    assert json.loads((out / "validate_report.json").read_text())["passed"] == 1


@pytest.mark.compiles
def test_system_headers_are_gxx_own_in_its_order() -> None:
    """The C++ folders before clang's builtins, the C folders after, g++'s own builtin folder left out."""
    flags = toolchain.gxx_include_flags()
    pairs = list(zip(flags[::2], flags[1::2]))
    cxx = [d for kind, d in pairs if kind == "-isystem"]
    c = [d for kind, d in pairs if kind == "-idirafter"]
    assert len(pairs) * 2 == len(flags) and cxx and c
    assert all("c++" in d for d in cxx), cxx
    assert any(Path(d, "stdio.h").is_file() for d in c), c
    assert any(Path(d, "vector").is_file() for d in cxx), cxx
    builtin = subprocess.run(["g++", "-print-file-name=include"], capture_output=True, text=True).stdout.strip()
    assert os.path.realpath(builtin) not in {os.path.realpath(d) for _, d in pairs}


@pytest.mark.compiles
def test_search_list_is_read_from_gxx_verbose_output() -> None:
    stderr = ("ignoring nonexistent directory \"/x\"\n#include \"...\" search starts here:\n"
              "#include <...> search starts here:\n /usr/include/c++/12\n /usr/lib/gcc/x/12/include\n"
              " /usr/include\n /Library/Frameworks (framework directory)\nEnd of search list.\n")
    assert toolchain._search_list(stderr) == ["/usr/include/c++/12", "/usr/lib/gcc/x/12/include", "/usr/include",
                                              "/Library/Frameworks"]
    assert toolchain._search_list("no list here") == []


STD_IN_DEVICE_CODE = """\
#include <algorithm>
#include <complex>
#include <new>
struct Pair { float a, b; };
__device__ float use(float* raw, std::complex<float> z) {
  Pair* p = new (raw) Pair{1.f, 2.f};                       // placement new in device code
  float m = std::max(p->a, p->b, [](float x, float y) { return x < y; });
  return std::abs(z * z) + std::min(m, raw[3]);              // std::complex in device code
}
__global__ void kernel(float* raw) { raw[0] = use(raw, std::complex<float>(1.f, 2.f)); }
"""


@pytest.mark.parametrize("name", sorted(PASSES))
@pytest.mark.compiles
def test_the_shims_wrappers_stand_in_for_clangs_cuda_wrappers(tmp_path: Path, clang, name: str) -> None:
    """Placement new, std::complex and std::min/max with a comparator in device code: clang's own CUDA
    wrappers make them compile; the wheel ships none, so the shim's do (and without them, they do not)."""
    source = tmp_path / "std.mu"
    source.write_text(STD_IN_DEVICE_CODE)
    args = [*BASE_FLAGS, *PASSES[name], f"-I{shim_include()}", str(source)]
    done = subprocess.run(compile_command(clang, args), capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    if clang.name == toolchain.DEFAULT:
        without = subprocess.run(_drop_pair(compile_command(clang, args), str(shim_wrappers())),
                                 capture_output=True, text=True, cwd=tmp_path)
        assert without.returncode != 0 and "operator new" in without.stderr


def _drop_pair(argv: list[str], value: str) -> list[str]:
    """``argv`` without the option whose value is ``value`` (``-isystem DIR``)."""
    at = argv.index(value)
    return argv[:at - 1] + argv[at + 1:]
