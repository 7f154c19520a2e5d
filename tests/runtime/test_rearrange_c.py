"""Rearrange plans run by their C kernels: bit-exact against the numpy executor and numpy."""

import ctypes
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lazyinfini._render import compile as compiling
from lazyinfini._render.rearrange import cell_count, render_rearrange
from lazyinfini._runtime.c_compiling import C_KERNELS
from lazyinfini._runtime.compiled_rearrange import CompileError, _ranges, run_compiled
from lazyinfini._runtime.rearrange import run_rearrange
from lazyinfini._schedule.rearrange import DEFAULT_BLOCK_BYTES, plan_rearrange
from tests.runtime.copying import plan_for
from tests.runtime.test_rearrange_exec import (
    MATRIX,
    contiguous,
    nested_strides,
    strided,
    whole_buffer,
)
from tests.schedule.test_rearrange_plan import CASES

pytestmark = pytest.mark.skipif(compiling.compiler() is None, reason="no C compiler")

# One dtype per itemsize; void items are plain bytes, as the kernels see every dtype.
DTYPES = [np.uint8, np.float16, np.float32, np.float64, np.complex128, np.dtype("V16")]
BLOCKS = [DEFAULT_BLOCK_BYTES, 16 * 1024]


def _raw(arr):
    return arr.view(
        {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}.get(arr.itemsize, "V16")
    )


def check_c(src, make_dst, threads=False, block_bytes=DEFAULT_BLOCK_BYTES, line_tiles=False):
    """The C kernel's whole destination buffer (slack included) equals the numpy executor's
    and numpy's raw copy; returns the plan."""
    got, tiled, want = make_dst(), make_dst(), make_dst()
    plan = plan_for(src, got, block_bytes, line_tiles)
    run_compiled(plan, src, got, threads)
    run_rearrange(plan, src, tiled, "tiled", threads=False)
    np.copyto(_raw(want), _raw(src))
    np.testing.assert_array_equal(whole_buffer(got), whole_buffer(tiled))
    np.testing.assert_array_equal(whole_buffer(got), whole_buffer(want))
    return plan


# -- InfiniCore's cases ---------------------------------------------------------------------------


@pytest.mark.parametrize("threads", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, src_strides, dst_strides", MATRIX)
def test_infinicore_matrix(shape, src_strides, dst_strides, dtype, threads):
    src = strided(shape, src_strides, dtype, seed=1)
    check_c(src, lambda: strided(shape, dst_strides, dtype, seed=2, extra=64), threads)


@pytest.mark.parametrize("block_bytes", BLOCKS)
@pytest.mark.parametrize("shape, src_strides, dst_strides", CASES)
def test_plan_cases_with_both_tiles(shape, src_strides, dst_strides, block_bytes):
    src = strided(shape, src_strides, np.float32, seed=3)
    make = lambda: strided(shape, dst_strides, np.float32, seed=4, extra=32)  # noqa: E731
    check_c(src, make, threads=True, block_bytes=block_bytes)


@pytest.mark.parametrize("threads", [False, True])
def test_constraints_on_both_sides(threads):
    x = strided((2003, 1999), (1999, 1), np.float32, seed=5)  # two primes
    plan = check_c(
        x.T, lambda: strided((1999, 2003), (2003, 1), np.float32, extra=8), threads, 16384
    )
    assert len(plan.constraints) == 2


@pytest.mark.parametrize("threads", [False, True])
def test_negative_strides_on_both_sides(threads):
    src = strided((300, 257), (257, 1), np.float32, seed=6)[::-1, ::-2]
    plan = check_c(src, lambda: strided((300, 129), (1, -300), np.float32, seed=7), threads)
    assert any(s < 0 for s in plan.src_block_strides + plan.src_grid_strides)
    assert any(s < 0 for s in plan.dst_block_strides + plan.dst_grid_strides)


def at_offset(shape, dtype, offset, seed=0):
    """A C-contiguous array starting ``offset`` bytes past a 64-byte boundary, inside a window
    of random bytes with 64 bytes of slack on each side (``whole_buffer`` gives the window)."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    room = bytearray(nbytes + 256)
    start = -np.frombuffer(room, np.uint8).ctypes.data % 64 + offset
    window = np.frombuffer(memoryview(room)[start : start + nbytes + 128], np.uint8)
    window[:] = np.frombuffer(np.random.default_rng(seed).bytes(window.size), np.uint8)
    return window[64 : 64 + nbytes].view(dtype).reshape(shape)


def test_every_unit_size():
    units = set()
    for offset in [0, 16, 8, 4, 2, 1]:  # a 192-byte contiguous run: the offset picks the unit
        src = at_offset((64, 3), np.uint8, offset, seed=8)
        units.add(check_c(src, lambda: at_offset((64, 3), np.uint8, 0)).unit)
    assert units == {1, 2, 4, 8, 16, 32}


def test_zero_d_and_empty():
    plan = check_c(strided((), (), np.complex128, seed=10), lambda: np.empty((), np.complex128))
    assert cell_count(plan) == 1
    plan = check_c(np.empty((3, 0)), lambda: np.empty((3, 0)))
    assert cell_count(plan) == 0


def test_nchw_to_nhwc_tiles_threaded():
    x = strided((8, 3, 64, 96), contiguous((8, 3, 64, 96)), np.uint8, seed=11)
    nhwc = x.transpose(0, 2, 3, 1)
    check_c(nhwc, lambda: strided(nhwc.shape, contiguous(nhwc.shape), np.uint8, extra=32), True)


# -- line tiles -----------------------------------------------------------------------------------

TILED = [  # shape, permutation, tiled: square and ragged blocks, constraint tails, more dims
    ((300, 200), (1, 0), True),
    ((257, 1031), (1, 0), True),
    ((1009, 1013), (1, 0), True),
    ((130, 3, 70), (2, 1, 0), True),
    ((6, 100, 90), (0, 2, 1), True),
    ((3, 40, 5, 70), (3, 1, 2, 0), False),  # 3 units contiguous in dst: shorter than a line
]


@pytest.mark.parametrize("threads", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, axes, tiled", TILED)
def test_line_tiles_copy_bit_exact(shape, axes, tiled, dtype, threads):
    src = strided(shape, contiguous(shape), dtype, seed=16).transpose(axes)
    make = lambda: strided(src.shape, contiguous(src.shape), dtype, seed=17, extra=64)  # noqa: E731
    plan = check_c(src, make, threads, line_tiles=True)
    assert (plan.tile is not None) == tiled, plan


@pytest.mark.parametrize("block_bytes", [4096, DEFAULT_BLOCK_BYTES])
def test_line_tiles_with_flipped_rows_and_gapped_destination(block_bytes):
    src = strided((500, 300), (300, 1), np.float32, seed=18)[::-1].T  # rows read backwards
    make = lambda: strided((300, 500), (520, 1), np.float32, seed=19, extra=16)  # noqa: E731
    plan = check_c(src, make, True, block_bytes, line_tiles=True)
    assert plan.tile is not None and any(s < 0 for s in plan.src_block_strides), plan


@st.composite
def transposes(draw):
    """A 2- or 3-d array of up to 200 units a side, its axes permuted, at a random offset."""
    shape = tuple(draw(st.lists(st.integers(1, 200), min_size=2, max_size=3)))
    axes = tuple(draw(st.permutations(range(len(shape)))))
    return shape, axes, draw(st.sampled_from(DTYPES)), draw(st.sampled_from([0, 4, 8, 16]))


@settings(max_examples=60, deadline=None)
@given(transposes(), st.booleans(), st.sampled_from([1024, 8192, DEFAULT_BLOCK_BYTES]))
def test_random_line_tiled_transposes_copy_bit_exact(case, threads, block_bytes):
    shape, axes, dtype, offset = case
    src = strided(shape, contiguous(shape), dtype, seed=20, offset=offset).transpose(axes)
    make = lambda: strided(src.shape, contiguous(src.shape), dtype, seed=21, extra=8)  # noqa: E731
    check_c(src, make, threads, block_bytes, line_tiles=True)


def test_line_tile_kernel_shuffles_integer_lanes():
    plan = plan_rearrange((2048, 2048), (1, 2048), (2048, 1), 2, line_tiles=True)
    source = render_rearrange(plan, "k")
    assert plan.tile is not None and "__builtin_shufflevector" in source
    assert "uint16_t" in source and "float" not in source and "double" not in source


# -- random layouts -------------------------------------------------------------------------------


@st.composite
def copies(draw):
    shape = tuple(draw(st.lists(st.integers(0, 7), max_size=6)))
    dtype = draw(st.sampled_from(DTYPES))
    offsets = draw(st.sampled_from([0, 0, 4, 8])), draw(st.sampled_from([0, 0, 2, 16]))
    src_strides, dst_strides = draw(nested_strides(shape, True)), draw(nested_strides(shape, False))
    return shape, dtype, src_strides, dst_strides, offsets


@settings(max_examples=100, deadline=None)
@given(copies(), st.booleans(), st.sampled_from([64, 512, DEFAULT_BLOCK_BYTES]))
def test_random_layouts_copy_bit_exact(case, threads, block_bytes):
    shape, dtype, src_strides, dst_strides, (src_offset, dst_offset) = case
    src = strided(shape, src_strides, dtype, seed=12, offset=src_offset)

    def make_dst():
        return strided(shape, dst_strides, dtype, seed=13, offset=dst_offset, extra=40)

    check_c(src, make_dst, threads, block_bytes)


# -- the kernel and its checks --------------------------------------------------------------------


def test_kernel_moves_bytes_with_the_plans_literals():
    plan = plan_rearrange((1009, 1013), (1, 1009), (1013, 1), 4, block_bytes=16384)
    source = render_rearrange(plan, "k")
    assert "void k(const char *src, char *dst, int64_t start, int64_t stop)" in source
    assert "float" not in source and "double" not in source  # units are bytes
    assert all(f"({s}LL)" in source for s in plan.src_block_strides + plan.dst_grid_strides)
    assert source.count("if (") == len(plan.constraints) == 2


def test_ranges_cover_the_grid_once():
    for cells, pieces in [(1, 8), (7, 8), (8, 8), (1000, 8), (1001, 3)]:
        ranges = _ranges(cells, pieces)
        assert len(ranges) <= pieces and ranges[0][0] == 0 and ranges[-1][1] == cells
        assert all(a[1] == b[0] and a[0] < a[1] for a, b in zip(ranges, ranges[1:]))


def test_plan_reaching_outside_the_arrays_is_refused():
    gapped = strided((10, 10), (20, 1), np.float32, seed=14)
    dst = np.zeros((10, 10), np.float32)
    plan = plan_for(gapped, dst)
    with pytest.raises(ValueError, match="outside"):
        run_compiled(plan, np.ones((10, 10), np.float32), dst, False)
    assert not dst.any()


def test_corrupt_cached_library_is_rebuilt(tmp_path, monkeypatch):
    plan = plan_rearrange((50, 70), (1, 50), (70, 1), 2)
    source = render_rearrange(plan, "corrupt_probe")
    built, corrupt = tmp_path / "built", tmp_path / "corrupt"
    monkeypatch.setenv("LAZYINFINI_CACHE_DIR", str(built))
    monkeypatch.setattr(compiling, "_LOADED", {})  # so this load builds into `built`
    compiling.load(source)
    (library,) = built.glob("*.so")
    # NOTE: not truncated in place: this process maps that file (its pages would fault) and
    # dlopen would hand back the loaded copy by its name. A corrupt copy in another cache does.
    corrupt.mkdir(mode=0o700)
    (corrupt / library.name).write_bytes(library.read_bytes()[:100])
    monkeypatch.setenv("LAZYINFINI_CACHE_DIR", str(corrupt))
    compiling._LOADED.clear()
    kernel = compiling.load(source).corrupt_probe
    assert (corrupt / library.name).stat().st_size == library.stat().st_size
    src = strided((50, 70), (1, 50), np.float16, seed=15)
    dst = np.empty((50, 70), np.float16)
    kernel.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)
    kernel(src.ctypes.data, dst.ctypes.data, 0, cell_count(plan))
    np.testing.assert_array_equal(dst.view(np.uint16), src.view(np.uint16))


def test_no_compiler_raises_compile_error(monkeypatch):
    src, dst = np.ones((300, 200), np.float32).T, np.zeros((200, 300), np.float32)
    plan = plan_for(src, dst)
    monkeypatch.setenv("CC", os.path.join(os.sep, "nowhere", "cc"))
    compiling.compiler.cache_clear()
    monkeypatch.setattr(C_KERNELS, "modules", {})  # so the kernel must be loaded again
    try:
        with pytest.raises(CompileError, match="no C compiler"):
            run_compiled(plan, src, dst, False)
    finally:
        monkeypatch.undo()
        compiling.compiler.cache_clear()
    assert not dst.any()
    run_compiled(plan, src, dst, False)  # the compiler is back
    np.testing.assert_array_equal(dst, src)
