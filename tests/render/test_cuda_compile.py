"""Every CUDA kernel the renderer makes compiles with NVRTC, for compute_80 and compute_90: each
elementwise op x dtype, loads of every layout, fused chains, transposed operands (the tiled
kernel), rearranges direct and through the shared tile. Needs only the nvidia-cuda-nvrtc-cu12
wheel (the test extra installs it); no GPU."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._render import cuda, nvrtc
from tests.render.kernels import elementwise, rearranges, rendered

# NOTE: every kernel for the H100's virtual architecture only (~40 s of NVRTC a run on 2 cores):
# the front end is the same for compute_80, and what differs by architecture (the inline PTX of
# the half floats, assembled) is compiled for sm_80 and sm_90 below.
ARCHS = ["compute_90"]


@pytest.fixture(scope="module", autouse=True)
def fresh_cache(tmp_path_factory):
    """NVRTC, with an empty kernel cache: every compile here runs NVRTC."""
    if not nvrtc.available():
        pytest.skip("NVRTC is not installed (pip install nvidia-cuda-nvrtc-cu12)")
    patch = pytest.MonkeyPatch()
    patch.setenv("LAZYINFINI_CACHE_DIR", str(tmp_path_factory.mktemp("kernels")))
    patch.setattr(nvrtc, "_COMPILED", {})
    yield
    patch.undo()


def entries(ptx: bytes) -> set[bytes]:
    return set(re.findall(rb"\.entry (\w+)\(", ptx))


@pytest.mark.parametrize("arch", ARCHS)
def test_every_rendered_kernel_compiles(arch):
    found = [rendered(item) for _, item in elementwise() + rearranges()]
    ptx = nvrtc.compile_cuda(cuda.unit(*(r.source for r in found)), arch)
    assert f".target sm_{arch[-2:]}".encode() in ptx
    assert {r.launch.name.encode() for r in found} <= entries(ptx)


def test_half_float_conversions_assemble_for_a_real_gpu():
    """NVRTC checks inline PTX only when it assembles: a cubin for sm_90 (the H100's) of the
    kernels converting float16 (cvt) and bfloat16 (bits); their PTX for compute_80. (A second
    cubin, for sm_80, repeated the same assembly for ~9 s of CI.)"""
    halves = [
        rendered(k)
        for name, k in elementwise()
        if name.endswith(("-float16", "-bfloat16")) or "float16" in name
    ]
    source = cuda.unit(*(r.source for r in halves))
    ptx = nvrtc.compile_cuda(source, "compute_80")
    for instruction in (b"cvt.f32.f16", b"cvt.rn.f16.f32", b"cvt.rn.f16.f64"):
        assert instruction in ptx
    assert nvrtc.compile_cuda(source, "sm_90")[:4] == b"\x7fELF"


VECTOR_LOAD = rb"ld\.global(\.nc)?\.v(2\.[bfu]64|4\.[bfu]32)"
VECTOR_STORE = rb"st\.global\.v(2\.[bfu]64|4\.[bfu]32)"


def test_vector_walks_move_16_bytes_an_access_from_registers():
    """A vector walk loads and stores 128 bits an access (ld/st.global.v2.u64 or .v4), an
    interleave walk moves 32-bit words and builds them with prmt, and no kernel keeps a
    thread's elements in local memory (its arrays are indexed by constants once unrolled)."""
    names = [f"vector-clip_sub-{t}(2055,)" for t in ("float16", "float32", "float64", "uint8")]
    found = dict(elementwise())
    for name in names:
        ptx = nvrtc.compile_cuda(cuda.unit(rendered(found[name]).source), "compute_90")
        assert re.search(VECTOR_LOAD, ptx) and re.search(VECTOR_STORE, ptx), name
        assert b".local" not in ptx, name
    weaves = [
        r for _, item in rearranges() if (r := rendered(item)).launch.method.endswith("interleave")
    ]
    assert {r.launch.method for r in weaves} == {"interleave", "deinterleave"}
    ptx = nvrtc.compile_cuda(cuda.unit(*(r.source for r in weaves)), "compute_90")
    assert b"prmt.b32" in ptx and b"ld.global.nc.u32" in ptx and b".local" not in ptx


def test_no_multiply_add_is_contracted():
    a, b, d = (li.asarray(np.full((4, 4), v, np.float32)) for v in (1.5, 2.5, 3.5))
    (kernel,) = li.inspect.schedule(a * b + d).kernels
    ptx = nvrtc.compile_cuda(cuda.unit(cuda.render(kernel).source), "compute_80")
    assert b"mul.rn.f32" in ptx and b"add.rn.f32" in ptx and b"fma" not in ptx


def test_index_math_is_32_bit_below_2_to_the_31_and_64_bit_above():
    small = next(k for name, k in elementwise() if name == "chain-float32")
    assert "unsigned int li_i" in rendered(small).source
    huge = [rendered(k) for name, k in elementwise() if name == "huge"]
    assert huge and all("unsigned long long li_i" in r.source for r in huge)
    assert any("(long long)i0 * 2ll" in r.source for r in huge)  # a strided load, 64-bit


def test_a_source_that_does_not_compile_raises_with_the_log():
    with pytest.raises(nvrtc.NvrtcError, match="undefined"):
        nvrtc.compile_cuda('extern "C" __global__ void k() { undefined_name(); }')


def test_compiles_are_cached_by_source_options_and_version(tmp_path, monkeypatch):
    monkeypatch.setenv("LAZYINFINI_CACHE_DIR", str(tmp_path))
    source = 'extern "C" __global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }'
    first = nvrtc.compile_cuda(source, "compute_90")
    (cached,) = (tmp_path / "cuda").iterdir()
    assert cached.read_bytes() == first
    monkeypatch.setattr(nvrtc, "_COMPILED", {})
    monkeypatch.setattr(nvrtc, "_compile", lambda *args: pytest.fail("compiled again"))
    assert nvrtc.compile_cuda(source, "compute_90") == first  # from the disk
    assert nvrtc.version() >= (12, 0)


def test_nvrtc_is_found_in_the_cuda_12_then_13_wheels_or_where_the_user_says(monkeypatch):
    """CUDA 13's wheel (nvidia-cuda-nvrtc 13) keeps libnvrtc in nvidia/cu13/lib, CUDA 12's in
    nvidia/cuda_nvrtc/lib; LAZYINFINI_NVRTC names a libnvrtc to use instead (every kernel
    here compiled with NVRTC 13.5 so, on 2026-11-23)."""
    folders = nvrtc._wheel_folders()
    twelve = [f for f in folders if "cuda_nvrtc" in f]
    thirteen = [f for f in folders if f"cu13{os.sep}" in f]
    assert twelve and thirteen and folders.index(twelve[0]) < folders.index(thirteen[0])
    monkeypatch.setenv("LAZYINFINI_NVRTC", "/nowhere/libnvrtc.so.13")
    nvrtc.library.cache_clear()
    try:
        with pytest.raises(nvrtc.NvrtcUnavailable, match="LAZYINFINI_NVRTC=/nowhere"):
            nvrtc.library()
    finally:
        monkeypatch.delenv("LAZYINFINI_NVRTC")
        nvrtc.library.cache_clear()
    assert nvrtc.available()
