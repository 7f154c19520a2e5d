"""The InfiniCore operator test matrices for sub, clip and rearrange, reproduced at the API level.

Strided inputs are numpy views of a larger buffer (strides in elements, as InfiniCore writes them)
handed to li.asarray; broadcast operands are stride-0 numpy views. Tolerances are InfiniCore's:
f16/bf16 1e-3, f32 1e-7 (half floats compute in float32 and round once, as numpy in float32 and
one cast does, so they agree far inside that).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._device import DEVICES
from tests.layouts import BF16, F16, F32, F64, compute_dtype
from tests.oracle import assert_matches_reference

TOL = {F16: 1e-3, BF16: 1e-3, F32: 1e-7, F64: 1e-7}


def strided(rng, shape, strides, dtype, kind="normal"):
    """A numpy view with `strides` (in elements; 0 broadcasts) over a buffer just big enough."""
    span = 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True)) if all(shape) else 0
    if kind == "bytes":
        flat = rng.integers(0, 256, size=span * np.dtype(dtype).itemsize, dtype=np.uint8).view(
            dtype
        )
    else:
        flat = (rng.standard_normal(span) * 4).astype(dtype)
    itemsize = np.dtype(dtype).itemsize
    return np.lib.stride_tricks.as_strided(
        flat, shape, tuple(s * itemsize for s in strides), writeable=False
    )


def assert_tol(actual, expected, dtype):
    actual = np.asarray(actual)
    assert actual.dtype == dtype and actual.shape == expected.shape
    np.testing.assert_allclose(
        actual.astype(np.float64), expected.astype(np.float64), rtol=TOL[dtype], atol=TOL[dtype]
    )


# -- sub ------------------------------------------------------------------------------------------
# (shape, a strides, b strides); None is contiguous. Output strides are lazyinfini's to choose.
SUB_CASES = [
    ((13, 4), None, None),
    ((13, 4), (10, 1), (10, 1)),
    ((13, 4), (0, 1), None),
    ((13, 4), None, (0, 1)),
    ((13, 4, 4), None, None),
    ((13, 4, 4), (20, 4, 1), (20, 4, 1)),
    ((13, 4, 4), (4, 0, 1), (0, 4, 1)),
    ((16, 5632), None, None),
    ((16, 5632), (13312, 1), (13312, 1)),
    ((4, 4, 5632), None, None),
    ((4, 4, 5632), (45056, 5632, 1), (45056, 5632, 1)),
]


def _contiguous(shape):
    return tuple(math.prod(shape[i + 1 :]) for i in range(len(shape)))


@pytest.mark.parametrize("dtype", [F16, BF16, F32], ids=str)
@pytest.mark.parametrize("case", SUB_CASES, ids=str)
def test_sub(case, dtype):
    shape, sa, sb = case
    rng = np.random.default_rng(13)
    a = strided(rng, shape, sa or _contiguous(shape), dtype)
    b = strided(rng, shape, sb or _contiguous(shape), dtype)
    assert a.strides == tuple(s * dtype.itemsize for s in (sa or _contiguous(shape)))
    c = compute_dtype(dtype)
    expected = (a.astype(c) - b.astype(c)).astype(dtype)
    assert_tol(li.asarray(a) - li.asarray(b), expected, dtype)
    assert_tol(assert_matches_reference(li.subtract, a, b), expected, dtype)


def test_sub_broadcast_operand_has_stride_zero():
    # The (13, 4) with a (0, 1) case: every row of `a` is one row of memory.
    rng = np.random.default_rng(0)
    row = (rng.standard_normal(4)).astype(np.float32)
    a = np.broadcast_to(row, (13, 4))
    assert a.strides == (0, 4)
    b = (rng.standard_normal((13, 4))).astype(np.float32)
    got = np.asarray(li.asarray(a) - li.asarray(b))
    np.testing.assert_array_equal(got, row - b)


# -- clip -----------------------------------------------------------------------------------------
CLIP_SHAPES = [(10,), (5, 10), (2, 3, 4), (7, 13), (3, 5, 7), (1, 1), (100, 100), (16, 16, 16)]
CLIP_BOUNDS = [(-1, 1), (0, 2), (-2, 0), (-1000, 1000), (-0.001, 0.001), (0, 0)]


def clip_inputs(rng, shape, lo, hi, dtype):
    """Values spread over [lo - w, hi + w], with the lowest below min and the highest above max.
    (The original suite drew from [0, 1) and so never tested the lower bound.)"""
    w = max(hi - lo, 1.0)
    x = rng.uniform(lo - w, hi + w, size=shape)
    flat = x.reshape(-1)
    flat[0], flat[-1] = lo - w / 2, hi + w / 2
    return x.astype(dtype)


def numpy_clip(x, lo, hi):
    c = compute_dtype(x.dtype)
    lo_c, hi_c = np.asarray(lo).astype(x.dtype).astype(c), np.asarray(hi).astype(x.dtype).astype(c)
    return np.minimum(np.maximum(x.astype(c), lo_c), hi_c).astype(x.dtype)


@pytest.mark.parametrize("dtype", [F16, BF16, F32, F64], ids=str)
@pytest.mark.parametrize("bounds", CLIP_BOUNDS, ids=str)
@pytest.mark.parametrize("shape", CLIP_SHAPES, ids=str)
def test_clip(shape, bounds, dtype):
    lo, hi = bounds
    rng = np.random.default_rng(7)
    x = clip_inputs(rng, shape, lo, hi, dtype)
    x64 = x.astype(np.float64)
    lo_d, hi_d = (float(np.asarray(b).astype(dtype).astype(np.float64)) for b in bounds)
    assert (x64 > hi_d).any()
    if x.size > 1:
        assert (x64 < lo_d).any()
    else:
        # One element cannot be both: a second run puts it below min.
        x2 = np.full(shape, lo - max(hi - lo, 1.0) / 2).astype(dtype)
        assert (x2.astype(np.float64) < lo_d).all()
        assert_tol(li.clip(li.asarray(x2), lo, hi), numpy_clip(x2, lo, hi), dtype)
    expected = numpy_clip(x, lo, hi)
    got = li.clip(li.asarray(x), lo, hi)
    assert_tol(got, expected, dtype)
    got = np.asarray(got).astype(np.float64)
    assert (got >= lo_d).all() and (got <= hi_d).all()
    assert (got[x64 < lo_d] == lo_d).all() and (got[x64 > hi_d] == hi_d).all()
    # The same bounds as arrays (InfiniCore passes min and max as tensors) that broadcast.
    lo_a = np.full((1,) * len(shape), lo, dtype=dtype)
    hi_a = np.full(shape[-1:], hi, dtype=dtype)
    assert_tol(assert_matches_reference(li.clip, x, lo_a, hi_a), expected, dtype)


@pytest.mark.parametrize("dtype", [F16, BF16, F32, F64], ids=str)
def test_clip_nan_inf_inputs_and_bounds(dtype):
    x = np.array([np.nan, np.inf, -np.inf, -3.0, 0.5, 3.0], dtype=dtype)
    expected = np.array([np.nan, 1.0, -1.0, -1.0, 0.5, 1.0])
    np.testing.assert_array_equal(
        np.asarray(li.clip(li.asarray(x), -1, 1)).astype(np.float64), expected
    )
    nan = np.array(np.nan, dtype=dtype)
    for lo, hi in ((nan, np.array(1.0, dtype)), (np.array(-1.0, dtype), nan), (nan, nan)):
        got = np.asarray(li.clip(li.asarray(x), li.asarray(lo), li.asarray(hi)))
        assert np.isnan(got.astype(np.float64)).all()
    inf = np.array([np.inf, -np.inf], dtype=dtype)
    got = np.asarray(
        li.clip(li.asarray(np.array([5.0, -5.0], dtype)), li.asarray(-inf[:1]), inf[:1])
    )
    np.testing.assert_array_equal(got.astype(np.float64), [5.0, -5.0])


# -- rearrange ------------------------------------------------------------------------------------
# Layout copies must be bit-exact: inputs are random bit patterns (NaN payloads, -0, subnormals).


def _bytes_of(a):
    a = np.asarray(a)
    return np.ascontiguousarray(a).tobytes()


def assert_bit_exact(fn, *inputs, expected):
    """fn on every executor, fused and unfused, gives exactly `expected`'s bytes."""
    for name in DEVICES:
        for fuse in (True, False):
            with li.options(executor=name, fuse=fuse):
                got = np.asarray(fn(*[li.asarray(x) for x in inputs]))
            assert got.shape == expected.shape and got.dtype == expected.dtype, (name, fuse)
            assert _bytes_of(got) == _bytes_of(expected), (name, fuse)


def _row_major(shape):
    return _contiguous(shape)


def _column_major(shape):
    return tuple(math.prod(shape[:i]) for i in range(len(shape)))


@pytest.mark.parametrize("dtype", [F16, BF16, F32, F64, np.dtype(np.uint8)], ids=str)
def test_rearrange_100x100_transpose(dtype):
    rng = np.random.default_rng(1)
    base = strided(rng, (100, 100), (100, 1), dtype, "bytes")
    src = strided(rng, (100, 100), (1, 100), dtype, "bytes")  # a column-major source
    assert_bit_exact(lambda x: li.permute_dims(x, (1, 0)), base, expected=base.T)
    assert_bit_exact(lambda x: x.T, base, expected=base.T)
    assert_bit_exact(lambda x: li.reshape(x, (-1,)), src, expected=src.reshape(-1))
    assert_bit_exact(lambda x: li.matrix_transpose(x), src, expected=src.T)


@pytest.mark.parametrize("n", [2000, 2001])
def test_rearrange_large_transpose(n):
    rng = np.random.default_rng(n)
    base = strided(rng, (n, n), (n, 1), F32, "bytes")
    expected = np.ascontiguousarray(base.T)
    assert_bit_exact(lambda x: li.permute_dims(x, (1, 0)), base, expected=expected)


@pytest.mark.parametrize("dtype", [F16, F32, F64], ids=str)
def test_rearrange_4x6x64(dtype):
    # src strides (64, 256, 1) -> dst (384, 64, 1): a permuted view copied into row-major.
    rng = np.random.default_rng(2)
    src = strided(rng, (4, 6, 64), (64, 256, 1), dtype, "bytes")
    dst = np.empty((4, 6, 64), dtype)
    assert dst.strides == tuple(s * dtype.itemsize for s in (384, 64, 1))
    dst[...] = src
    assert_bit_exact(lambda x: li.reshape(x, (4, 6, 64)), src, expected=dst)
    assert_bit_exact(lambda x: li.reshape(x, (24, 64)), src, expected=dst.reshape(24, 64))
    base = np.ascontiguousarray(src.transpose(1, 0, 2))  # the (6, 4, 64) memory behind src
    assert_bit_exact(lambda x: li.permute_dims(x, (1, 0, 2)), base, expected=dst)


@pytest.mark.parametrize("dtype", [F16, BF16, F32, F64], ids=str)
def test_rearrange_2x2x2x4_swap_inner(dtype):
    # (16, 8, 4, 1) -> (16, 8, 1, 2): the destination's memory is the last two dims swapped.
    rng = np.random.default_rng(3)
    src = strided(rng, (2, 2, 2, 4), (16, 8, 4, 1), dtype, "bytes")
    memory = np.empty((2, 2, 4, 2), dtype)
    dst = memory.transpose(0, 1, 3, 2)
    assert dst.strides == tuple(s * dtype.itemsize for s in (16, 8, 1, 2))
    dst[...] = src
    assert_bit_exact(lambda x: li.permute_dims(x, (0, 1, 3, 2)), src, expected=memory)


@pytest.mark.parametrize("shape", [(3, 4, 7, 53, 9), (3, 4, 50, 50, 5, 7)], ids=str)
def test_rearrange_row_major_to_column_major(shape):
    rng = np.random.default_rng(4)
    src = strided(rng, shape, _row_major(shape), F32, "bytes")
    memory = np.empty(shape[::-1], F32)
    dst = memory.transpose(tuple(reversed(range(len(shape)))))
    assert dst.strides == tuple(s * 4 for s in _column_major(shape))
    dst[...] = src
    reverse = tuple(reversed(range(len(shape))))
    assert_bit_exact(lambda x: li.permute_dims(x, reverse), src, expected=memory)
    # And back: a column-major source read into row-major.
    assert_bit_exact(lambda x: li.reshape(x, (-1,)), dst, expected=src.reshape(-1))


@pytest.mark.parametrize("dtype", [F16, F32], ids=str)
def test_rearrange_broadcast_source(dtype):
    rng = np.random.default_rng(5)
    src = strided(rng, (15, 10752), (0, 1), dtype, "bytes")
    row = np.ascontiguousarray(src[0])
    expected = np.ascontiguousarray(src)
    assert_bit_exact(lambda x: li.reshape(x, (-1,)), src, expected=expected.reshape(-1))
    assert_bit_exact(lambda x: li.broadcast_to(x, (15, 10752)), row, expected=expected)
    assert_bit_exact(lambda x: li.permute_dims(x, (1, 0)), src, expected=expected.T)


@pytest.mark.parametrize("dtype", [BF16, F32, F64], ids=str)
def test_rearrange_2x2x2x2x2x2_gapped(dtype):
    rng = np.random.default_rng(6)
    shape = (2, 2, 2, 2, 2, 2)
    gapped = (128, 64, 16, 8, 4, 2)  # gaps at every level but one
    src = strided(rng, shape, gapped, dtype, "bytes")
    assert_bit_exact(lambda x: li.reshape(x, (64,)), src, expected=src.reshape(64))
    assert_bit_exact(lambda x: li.permute_dims(x, (5, 3, 1, 0, 2, 4)), src,
                     expected=src.transpose(5, 3, 1, 0, 2, 4))  # fmt: skip
    # Into a gapped destination: numpy writes both into every other slot of a slab.
    got, ref = np.zeros((2, 2, 2, 2, 2, 4), dtype), np.zeros((2, 2, 2, 2, 2, 4), dtype)
    got[..., ::2] = np.asarray(li.permute_dims(li.asarray(src), (0, 1, 2, 3, 5, 4)))
    ref[..., ::2] = src.transpose(0, 1, 2, 3, 5, 4)
    assert _bytes_of(got) == _bytes_of(ref)


@pytest.mark.parametrize("dtype", [F16, F32], ids=str)
def test_rearrange_8x4x20x64_permuted_view(dtype):
    rng = np.random.default_rng(8)
    base = strided(rng, (8, 4, 20, 64), _row_major((8, 4, 20, 64)), dtype, "bytes")
    axes = (0, 2, 1, 3)
    expected = base.transpose(axes)
    # Into a contiguous result...
    assert_bit_exact(
        lambda x: li.permute_dims(x, axes), base, expected=np.ascontiguousarray(expected)
    )
    # ... and into a strided slab of a larger buffer (every other outer row).
    got, ref = np.zeros((16, 20, 4, 64), dtype), np.zeros((16, 20, 4, 64), dtype)
    got[::2] = np.asarray(li.permute_dims(li.asarray(base), axes))
    ref[::2] = expected
    assert _bytes_of(got) == _bytes_of(ref)
    # A source that is itself a slab: every other (8, ...) block of a bigger buffer.
    big = strided(rng, (16, 4, 20, 64), _row_major((16, 4, 20, 64)), dtype, "bytes")
    view = big[::2]
    assert_bit_exact(lambda x: li.permute_dims(x, axes), view, expected=view.transpose(axes))
