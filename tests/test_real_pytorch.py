"""Integration: the real PyTorch 2.6.0 tree from ../shared, ported end to end."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import musaport, tree_digest
from musaport.cpp.parser import CODE, masked, parse

TREE = "generated_cuda_compatible"
FORBIDDEN = re.compile(r"\b(?:cudaStream_t|cudaMalloc|cudaGetLastError)\b")


@pytest.mark.shared
def test_ports_enough_kernels(ported_260: Path) -> None:
    mu = list((ported_260 / TREE).rglob("*.mu"))
    assert len(mu) >= 330
    assert (ported_260 / TREE / "aten/src/ATen/native/musa/AbsKernel.mu").is_file()


@pytest.mark.shared
def test_abs_registration_reaches_the_privateuse1_slot(ported_260: Path) -> None:
    tree = ported_260 / TREE
    abs_mu = (tree / "aten/src/ATen/native/musa/AbsKernel.mu").read_text()
    # abs_kernel_cuda is AbsKernel.cu's own name, so it follows the port (docs/naming.md).
    assert re.search(r"REGISTER_DISPATCH\(abs_stub, &abs_kernel_musa\)", abs_mu)
    assert "#include <ATen/native/DispatchStub.h>" in abs_mu
    stub = (tree / "aten/src/ATen/native/DispatchStub.h").read_text()
    # REGISTER_DISPATCH under the MUSA compiler means REGISTER_MUSA_DISPATCH ...
    assert re.search(r"#if defined\(__MUSACC__\)\n#define REGISTER_DISPATCH\(name, fn\) REGISTER_MUSA_DISPATCH\(name, fn\)", stub)
    # ... which builds a RegisterMUSADispatch, whose constructor fills the PrivateUse1 slot.
    assert re.search(r"#define REGISTER_MUSA_DISPATCH\(name, fn\) \\\n\s*static RegisterMUSADispatch<", stub)
    assert re.search(
        r"struct RegisterMUSADispatch \{\n\s*RegisterMUSADispatch\([^)]*\) \{\n\s*stub\.set_privateuse1_dispatch_ptr\(value\);",
        stub,
    )


@pytest.mark.shared
def test_no_core_cuda_runtime_names_left_in_code(ported_260: Path) -> None:
    offenders = []
    for path in sorted((ported_260 / TREE).rglob("*")):
        if path.is_file():
            parsed = parse(path.read_bytes())
            code = masked(parsed.text, parsed.spans, frozenset({CODE}))
            offenders += [f"{path.name}: {m.group(0)}" for m in FORBIDDEN.finditer(code)]
    assert not offenders, offenders[:10]


@pytest.mark.shared
def test_report_lists_unmapped_with_sites(ported_260: Path) -> None:
    report = json.loads((ported_260 / "porting_report.json").read_text())
    assert report["summary"]["failed"] == 0
    names = {u["name"]: u for u in report["unmapped"]}
    assert any(n.startswith("nccl") for n in names)
    site = names[next(n for n in names if n.startswith("nccl"))]["sites"][0]
    assert re.fullmatch(r"[\w/.+-]+:\d+", site)


@pytest.mark.shared
def test_second_run_writes_nothing(ported_260: Path, pytorch_260: Path) -> None:
    before = tree_digest(ported_260)
    result = musaport("run", "--pytorch-src", str(pytorch_260), "--out", str(ported_260))
    assert result.returncode == 0, result.stderr
    after = tree_digest(ported_260)
    assert after == before, sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


@pytest.mark.shared
def test_jobs_do_not_change_the_output(ported_260: Path, pytorch_260: Path, tmp_path: Path) -> None:
    out = tmp_path / "j1"
    result = musaport("run", "--pytorch-src", str(pytorch_260), "--out", str(out), "-q", "--jobs", "1")
    assert result.returncode == 0, result.stderr
    one = {k: v[1] for k, v in tree_digest(out / TREE).items()}
    many = {k: v[1] for k, v in tree_digest(ported_260 / TREE).items()}
    assert one == many
    assert (out / "porting_report.json").read_bytes() == (ported_260 / "porting_report.json").read_bytes()


@pytest.mark.parametrize(("header", "expected"), [
    ("aten/src/ATen/musa/MUSAConfig.h", "#define AT_CUDNN_ENABLED() 0"),
    ("c10/musa/impl/musa_cmake_macros.h", "#define C10_"),
])
@pytest.mark.shared
def test_configured_headers_are_rendered_into_the_port(ported_260: Path, header: str, expected: str) -> None:
    """The CUDA build's configured headers exist in the port, rendered: no @VAR@ and no #cmakedefine left."""
    text = (ported_260 / TREE / header).read_text()
    assert expected in text
    assert "@" not in text.replace("@param", "") and "#cmakedefine" not in text
    name = header.rsplit("/", 1)[1]
    includers = [p for p in (ported_260 / TREE).rglob("*") if p.is_file() and f"/{name}>" in p.read_text(errors="replace")]
    assert includers, f"no ported file includes {name}"


@pytest.mark.shared
def test_torch_musa_pack_redirects_every_core_header(pytorch_260: Path, tmp_path: Path) -> None:
    """With --pack torch-musa no ported file includes a core header torch_musa replaces, and every
    kernel source and device header starts with torch_musa's macro prelude."""
    from musaport.resources import optional_pack
    from musaport.yamlload import load_yaml

    out = tmp_path / "out"
    result = musaport("run", "--pytorch-src", str(pytorch_260), "--out", str(out), "-q", "--pack", "torch-musa",
                      "--no-registration")
    assert result.returncode == 0, result.stderr
    rule = next(r for r in load_yaml(optional_pack("torch-musa"))["rules"] if r["id"] == "torch-musa-core-redirects")
    redirected = [k for k in rule["names"] if k != "__line__"]
    left, missing_prelude = [], []
    for path in (out / TREE).rglob("*"):
        if not path.is_file() or path.suffix not in (".mu", ".muh", ".h", ".cpp"):
            continue
        text = path.read_text(errors="replace")
        left += [f"{path.name}: {h}" for h in redirected if f"#include {h}" in text]
        if path.suffix in (".mu", ".muh") and not text.split("\n", 1)[1].startswith(
                '#include "torch_musa/csrc/aten/musa/MUSAMacros.muh"'):
            missing_prelude.append(path.name)
    assert left == [] and missing_prelude == []
    assert sum('"torch_musa/csrc/core/MUSAGuard.h"' in p.read_text(errors="replace")
               for p in (out / TREE).rglob("*.mu")) > 10


LANES = r"""
#include <musa_runtime.h>
#include <ATen/musa/AsmUtils.muh>
#include <cstdio>
__global__ void lanes(unsigned* out) {
  const unsigned t = threadIdx.x + blockDim.x * threadIdx.y;
  out[5 * t] = at::musa::getLaneId();
  out[5 * t + 1] = at::musa::getLaneMaskLt();
  out[5 * t + 2] = at::musa::getLaneMaskLe();
  out[5 * t + 3] = at::musa::getLaneMaskGt();
  out[5 * t + 4] = at::musa::getLaneMaskGe();
}
int main() {
  unsigned* out;
  musaMallocManaged(&out, 64 * 5 * sizeof(unsigned));
  musaport_launch(dim3(1), dim3(16, 4), 0, 0, lanes, out);
  for (int i = 0; i < 64 * 5; ++i) std::printf("%u\n", out[i]);
  return 0;
}
"""


@pytest.mark.shared
def test_ptx_lane_registers_become_cpp_that_runs(ported_260: Path, tmp_path: Path) -> None:
    """AsmUtils.muh reads the lane id and lane masks with PTX, which neither a MUSA compiler nor g++
    assembles; the port computes them in C++, and a kernel of a 16x4 block (two warps, lanes counted
    across rows) gets what the registers would hold."""
    import subprocess

    from musaport.resources import shim_include
    from musaport.validate.run.kernels import CXX

    header = (ported_260 / TREE / "aten/src/ATen/musa/AsmUtils.muh").read_text()
    assert "%%lane" not in header
    (tmp_path / "lanes.cpp").write_text(LANES)
    exe = tmp_path / "lanes"
    subprocess.run([CXX, "-std=c++17", "-O1", "-pthread", f"-I{shim_include()}", f"-I{ported_260 / TREE / 'aten/src'}",
                    "-include", "musa_runtime.h", str(tmp_path / "lanes.cpp"), "-o", str(exe)], check=True)
    got = [int(v) for v in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()]
    for t in range(64):
        lane = t % 32
        lt, le = (1 << lane) - 1, (2 << lane) - 1 & 0xFFFFFFFF
        assert got[5 * t:5 * t + 5] == [lane, lt, le, ~le & 0xFFFFFFFF, ~lt & 0xFFFFFFFF], t


@pytest.mark.shared
def test_the_svd_kernel_writes_v_where_libtorch_laid_out_vh_for_this_device(ported_260: Path) -> None:
    """libtorch's _linalg_svd lays Vh out for cuSOLVER only for CUDA inputs (svd_uses_cusolver asks is_cuda());
    the ported kernel must not write a column-major V into the row-major Vh.mT() it gets on musa."""
    ported = ported_260 / "generated_cuda_compatible/aten/src/ATen/native/musa/linalg/BatchLinearAlgebra.cpp"
    text = ported.read_text(encoding="utf-8")
    assert "compute_uv ? Vh.mT() : Vh, info);" not in text
    assert text.count("cloneBatchedColumnMajor(Vh.mT()); svd_musolver(A, full_matrices, compute_uv, driver, U, S, V_, "
                      "info); if (!direct) Vh.mT().copy_(V_); }") == 1
    # the header that decides the layout is libtorch's, unchanged
    utils = (ported_260 / "generated_cuda_compatible/aten/src/ATen/native/LinearAlgebraUtils.h").read_text()
    assert "return A.is_cuda()" in utils
