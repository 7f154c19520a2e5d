"""run_rearrange / rearrange_copy: bit-exact against numpy, touching nothing outside dst."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lazyinfini._runtime.rearrange import run_rearrange
from tests.runtime.copying import choose_method, plan_for, rearrange_copy

DTYPES = [np.uint8, np.float16, np.float32, np.float64, np.complex128]
METHODS = ["tiled", "direct"]


def strided(shape, strides, dtype, seed=0, offset=0, extra=0):
    """An array with the given ELEMENT strides over random bytes (NaN payloads included).

    Element [0..0] sits ``offset`` bytes past where negative strides need it; ``extra`` bytes
    of slack follow the array, so writes outside it would show.
    """
    itemsize = np.dtype(dtype).itemsize
    steps = [(max(n - 1, 0) * s * itemsize) for n, s in zip(shape, strides, strict=True)]
    low, high = sum(min(0, step) for step in steps), sum(max(0, step) for step in steps)
    if 0 in shape:  # nothing to reach
        low = high = -itemsize
    buf = np.frombuffer(
        bytearray(np.random.default_rng(seed).bytes(offset + high - low + itemsize + extra)),
        np.uint8,
    )
    byte_strides = [s * itemsize for s in strides]
    return np.ndarray(shape, dtype, buffer=buf, offset=offset - low, strides=byte_strides)


def contiguous(shape):
    return tuple(int(s) for s in np.cumprod((1, *shape[:0:-1]))[::-1]) if shape else ()


def column_major(shape):
    return contiguous(shape[::-1])[::-1]


def whole_buffer(arr):
    """Every byte of the buffer under ``arr``, so stray writes between elements show too."""
    return np.frombuffer(arr if arr.base is None else arr.base, np.uint8)


def check_copy(src, make_dst, **how):
    """Run the copy into a fresh dst; numpy's raw copy into another must give equal buffers."""
    dst, want = make_dst(), make_dst()
    np.copyto(want.view(_raw(want)), src.view(_raw(src)))
    if how:
        plan = plan_for(src, dst)
        how.setdefault("method", choose_method(plan, src, dst))
        run_rearrange(plan, src, dst, **how)
    else:
        rearrange_copy(src, dst)
    np.testing.assert_array_equal(whole_buffer(dst), whole_buffer(want))


def _raw(arr):
    return {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}.get(arr.itemsize, "V16")


# -- InfiniCore's cases ---------------------------------------------------------------------------

MATRIX = [  # shape, src element strides, dst element strides
    ((100, 100), (1, 100), (100, 1)),
    ((4, 6, 64), (64, 256, 1), (384, 64, 1)),
    ((2, 2, 2, 4), (16, 8, 4, 1), (16, 8, 1, 2)),
    ((3, 4, 7, 53, 9), contiguous((3, 4, 7, 53, 9)), column_major((3, 4, 7, 53, 9))),
    ((3, 4, 50, 50, 5, 7), contiguous((3, 4, 50, 50, 5, 7)), column_major((3, 4, 50, 50, 5, 7))),
    ((15, 10752), (0, 1), (10752, 1)),
    ((2, 2, 2, 2, 2, 2), (64, 32, 16, 8, 4, 2), (32, 16, 8, 4, 2, 1)),
    ((2, 2, 2, 2, 2, 2), (1, 64, 8, 128, 2, 32), (96, 24, 6, 2, 384, 1)),
    ((8, 4, 20, 64), (256, 1, 2048, 4), contiguous((8, 4, 20, 64))),  # (20,8,64,4).transpose
]


@pytest.mark.parametrize("method", [None, *METHODS])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, src_strides, dst_strides", MATRIX)
def test_infinicore_matrix(shape, src_strides, dst_strides, dtype, method):
    src = strided(shape, src_strides, dtype, seed=1)
    how = {} if method is None else {"method": method}
    check_copy(src, lambda: strided(shape, dst_strides, dtype, seed=2, extra=64), **how)


@pytest.mark.parametrize(
    "n, dtype, method",
    [(2000, np.float16, "tiled"), (2001, np.float32, "tiled"), (2001, np.complex128, None)],
)
def test_large_transposes(n, dtype, method):
    src = strided((n, n), (1, n), dtype, seed=3)
    how = {} if method is None else {"method": method, "threads": True}
    check_copy(src, lambda: np.empty((n, n), dtype), **how)


def test_tiles_with_constraints_on_both_sides():
    x = strided((2003, 1999), (1999, 1), np.float32, seed=3)  # two primes
    dst = np.empty((1999, 2003), np.float32)
    plan = plan_for(x.T, dst, block_bytes=16 * 1024)
    assert len(plan.constraints) == 2
    run_rearrange(plan, x.T, dst, method="tiled", threads=True)
    np.testing.assert_array_equal(dst.view(np.uint32), np.ascontiguousarray(x.T).view(np.uint32))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("threads", [False, True])
def test_permuted_view_into_a_slab_of_a_larger_buffer(method, threads):
    src = strided((20, 8, 64, 4), contiguous((20, 8, 64, 4)), np.float16, seed=4)
    src = src.transpose(1, 3, 0, 2)  # (8, 4, 20, 64)

    def slab():  # every other row of the last dim, a window of a (10, 6, 24, 70) buffer
        big = strided((10, 6, 24, 70), contiguous((10, 6, 24, 70)), np.float16, seed=5)
        return big[1:9, 2:6, 2:22, 3:67]

    check_copy(src, slab, method=method, threads=threads)


def test_flipped_source_and_destination():
    src = strided((300, 257), (257, 1), np.float32, seed=6)[::-1, ::-2]
    check_copy(src, lambda: strided((300, 129), (1, -300), np.float32, seed=7), method="tiled")


def test_big_tiled_copies_are_exact():
    x = strided((8, 3, 256, 256), contiguous((8, 3, 256, 256)), np.uint8, seed=8)
    nhwc = x.transpose(0, 2, 3, 1)
    check_copy(nhwc, lambda: strided(nhwc.shape, contiguous(nhwc.shape), np.uint8, extra=32))
    check_copy(nhwc, lambda: np.empty(nhwc.shape, np.uint8), method="tiled", threads=True)


def test_zero_d_empty_and_byte_strided_fields():
    check_copy(strided((), (), np.complex128, seed=9), lambda: np.empty((), np.complex128))
    check_copy(np.empty((3, 0)), lambda: np.empty((3, 0)), method="tiled")
    rec = np.zeros(50, dtype=[("a", np.uint8), ("b", np.float32)])
    rec["b"] = np.arange(50)
    out = np.full(50, -1, np.float32)
    rearrange_copy(rec["b"], out)  # strides of 5 bytes: planned as bytes
    np.testing.assert_array_equal(out, np.arange(50))


def test_refuses_what_it_cannot_copy_bitwise():
    with pytest.raises(ValueError, match="differ"):
        rearrange_copy(np.zeros((2, 3)), np.zeros((3, 2)))
    with pytest.raises(TypeError, match="object"):
        rearrange_copy(np.zeros(3, object), np.zeros(3, object))
    frozen = np.zeros(3)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        rearrange_copy(np.ones(3), frozen)


# -- random layouts -------------------------------------------------------------------------------


@st.composite
def nested_strides(draw, shape, source):
    """Non-overlapping strides in a random dim order with gaps; flips; zeros for a source."""
    order = draw(st.permutations(range(len(shape))))
    strides, step = [0] * len(shape), draw(st.integers(1, 2))
    for axis in reversed(order):
        strides[axis] = step
        step *= max(shape[axis], 1) * draw(st.sampled_from([1, 1, 2]))
    kinds = ["keep", "keep", "flip"] + (["zero"] if source else [])
    return tuple(
        s * {"keep": 1, "flip": -1, "zero": 0}[draw(st.sampled_from(kinds))] for s in strides
    )


@st.composite
def copies(draw):
    shape = tuple(draw(st.lists(st.integers(0, 7), max_size=6)))
    dtype = draw(st.sampled_from(DTYPES + [np.int16, np.bool_]))
    src_offset = draw(st.sampled_from([0, 0, 4, 8]))
    dst_offset = draw(st.sampled_from([0, 0, 2, 16]))
    return (
        shape,
        dtype,
        draw(nested_strides(shape, True)),
        draw(nested_strides(shape, False)),
        (src_offset, dst_offset),
    )


@settings(max_examples=150, deadline=None)
@given(copies(), st.sampled_from(METHODS), st.booleans(), st.sampled_from([64, 512, 32768]))
def test_random_layouts_copy_bit_exact(case, method, threads, block_bytes):
    shape, dtype, src_strides, dst_strides, (src_offset, dst_offset) = case
    src = strided(shape, src_strides, dtype, seed=10, offset=src_offset)

    def make_dst():
        return strided(shape, dst_strides, dtype, seed=11, offset=dst_offset, extra=40)

    dst, want = make_dst(), make_dst()
    np.copyto(want.view(_raw(want)), src.view(_raw(src)))
    plan = plan_for(src, dst, block_bytes=block_bytes)
    run_rearrange(plan, src, dst, method=method, threads=threads)
    np.testing.assert_array_equal(whole_buffer(dst), whole_buffer(want))


def test_method_choice_follows_cache_behaviour():
    def method(src):
        dst = np.empty(src.shape, src.dtype)
        return choose_method(plan_for(src, dst), src, dst)

    assert method(np.zeros((100, 100), np.float32).T) == "direct"  # small: one numpy copy
    assert method(np.zeros((1000, 1000), np.float32).T) == "direct"  # rows stay cached
    assert method(np.zeros((1024, 1024), np.float32).T) == "tiled"  # 4 KiB strides alias
    assert method(np.zeros((3000, 3000), np.float32).T) == "tiled"  # too many rows
    assert method(np.zeros((8, 3, 256, 256), np.uint8).transpose(0, 2, 3, 1)) == "tiled"
