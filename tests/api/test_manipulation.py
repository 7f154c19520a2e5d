"""Rearrange at the API level: permute_dims, matrix_transpose, slicing views, reshape,
broadcast_to, expand_dims and astype on strided numpy inputs, bit-exact against numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini._device import DEVICES
from tests.layouts import FLOATS, INTS, float_dtypes, layouts
from tests.layouts import shapes as any_shape
from tests.oracle import assert_close

ALL_DTYPES = st.sampled_from(FLOATS + INTS + (np.dtype(np.bool_), np.dtype(np.complex64)))


def assert_same_bytes(got, expected):
    got = np.asarray(got)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    if got.dtype == np.bool_:
        # NOTE: a bool byte other than 0/1 has no meaning, and numpy's own scalar indexing
        # (x[0]) turns it into 1: compare truth values.
        got, expected = (
            np.asarray(got).view(np.uint8) != 0,
            np.asarray(expected).view(np.uint8) != 0,
        )
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(expected).tobytes()


def assert_bytes_everywhere(fn, x, expected):
    """fn(li.asarray(x)) on every executor, fused and unfused, is `expected` bit for bit."""
    for name in DEVICES:
        for fuse in (True, False):
            with li.options(executor=name, fuse=fuse):
                assert_same_bytes(fn(li.asarray(x)), expected)


# -- hypothesis: one movement op on a strided input ----------------------------------------------
@given(st.data())
def test_permute_dims(data):
    shape = data.draw(any_shape, "shape")
    x = data.draw(layouts(shape, data.draw(ALL_DTYPES, "dtype"), "bytes"), "x")
    axes = tuple(data.draw(st.permutations(range(x.ndim)), "axes"))
    if axes and data.draw(st.booleans(), "negative axes"):
        axes = tuple(a - x.ndim for a in axes)
    assert_bytes_everywhere(lambda a: li.permute_dims(a, axes), x, np.transpose(x, axes))


@given(st.data())
def test_matrix_transpose(data):
    shape = data.draw(any_shape.filter(lambda s: len(s) >= 2), "shape")
    x = data.draw(layouts(shape, data.draw(float_dtypes), "bytes"), "x")
    expected = np.swapaxes(x, -1, -2)
    assert_bytes_everywhere(li.matrix_transpose, x, expected)
    assert_bytes_everywhere(lambda a: a.mT, x, expected)


@st.composite
def index_keys(draw, shape):
    """A basic index: ints (negative too), slices with any step but 0, ..., None; ndim at most."""
    items = []
    for n in shape:
        choice = draw(
            st.sampled_from(["slice", "slice", "int", "full"] if n else ["slice", "full"])
        )
        if choice == "int":
            items.append(draw(st.integers(-n, n - 1)))
        elif choice == "slice":
            bound = st.none() | st.integers(-n - 2, n + 2)
            step = draw(st.none() | st.integers(-3, 3).filter(bool))
            items.append(slice(draw(bound), draw(bound), step))
        else:
            items.append(slice(None))
    # Drop trailing items (implicit full slices), maybe add an ellipsis (later items then index
    # the last axes: an int may fall out of bounds, and numpy and lazyinfini must both say so).
    items = items[: draw(st.integers(0, len(items)))]
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), Ellipsis)
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    return tuple(items) if len(items) != 1 or draw(st.booleans()) else items[0]


@given(st.data())
def test_getitem_views(data):
    shape = data.draw(any_shape, "shape")
    x = data.draw(layouts(shape, data.draw(ALL_DTYPES, "dtype"), "bytes"), "x")
    key = data.draw(index_keys(shape), "key")
    try:
        expected = x[key]
    except IndexError:
        with pytest.raises(IndexError, match="__getitem__"):
            li.asarray(x)[key]
        return
    assert_bytes_everywhere(lambda a: a[key], x, np.asarray(expected))


def _valid_or_none(x, key):
    try:
        return x[key]
    except IndexError:
        return None


@given(st.data())
def test_getitem_of_getitem_and_permute(data):
    shape = data.draw(any_shape.filter(lambda s: len(s) >= 1), "shape")
    x = data.draw(layouts(shape, data.draw(float_dtypes), "bytes"), "x")
    k1 = data.draw(index_keys(shape), "k1")
    v1 = _valid_or_none(x, k1)
    assume(v1 is not None)
    k2 = data.draw(index_keys(v1.shape), "k2")
    v2 = _valid_or_none(v1, k2)
    assume(v2 is not None)
    axes = tuple(data.draw(st.permutations(range(v2.ndim)), "axes"))
    expected = np.transpose(v2, axes)
    assert_bytes_everywhere(lambda a: li.permute_dims(a[k1][k2], axes), x, expected)


@st.composite
def reshapes(draw, shape):
    """A target shape of the same size: factor the size again, maybe with one -1."""
    size = math.prod(shape)
    if size == 0:
        target = list(draw(st.permutations(shape))) if shape else [0]
    else:
        target, rest = [], size
        while rest > 1:
            divisors = [d for d in range(2, rest + 1) if rest % d == 0][:6]
            d = draw(st.sampled_from(divisors))
            target.append(d)
            rest //= d
        for _ in range(draw(st.integers(0, 2))):
            target.insert(draw(st.integers(0, len(target))), 1)
    if target and size and draw(st.booleans()):
        target[draw(st.integers(0, len(target) - 1))] = -1
    return tuple(target)


@given(st.data())
def test_reshape(data):
    shape = data.draw(any_shape, "shape")
    x = data.draw(layouts(shape, data.draw(ALL_DTYPES, "dtype"), "bytes"), "x")
    target = data.draw(reshapes(shape), "target")
    assert_bytes_everywhere(lambda a: li.reshape(a, target), x, np.reshape(x, target))


@given(st.data())
def test_broadcast_to(data):
    shape = data.draw(any_shape, "shape")
    x = data.draw(layouts(shape, data.draw(ALL_DTYPES, "dtype"), "bytes"), "x")
    lead = tuple(data.draw(st.lists(st.integers(0, 3), max_size=2), "leading dims"))
    target = lead + tuple(data.draw(st.integers(0, 3)) if n == 1 else n for n in shape)
    assert_bytes_everywhere(lambda a: li.broadcast_to(a, target), x, np.broadcast_to(x, target))


@given(st.data())
def test_expand_dims(data):
    shape = data.draw(any_shape.filter(lambda s: len(s) < 6), "shape")
    x = data.draw(layouts(shape, data.draw(float_dtypes), "bytes"), "x")
    axis = data.draw(st.integers(-x.ndim - 1, x.ndim), "axis")
    assert_bytes_everywhere(lambda a: li.expand_dims(a, axis=axis), x, np.expand_dims(x, axis))


@given(st.data())
def test_astype_between_floats(data):
    shape = data.draw(any_shape, "shape")
    src = data.draw(float_dtypes, "from")
    dst = data.draw(float_dtypes, "to")
    x = data.draw(layouts(shape, src, "special"), "x")
    # A cast is one rounding from the source, never through float32 first.
    assert_bytes_everywhere(lambda a: li.astype(a, dst), x, x.astype(dst))


@given(st.data())
def test_astype_ints_to_floats_and_bool(data):
    shape = data.draw(any_shape, "shape")
    src = data.draw(st.sampled_from(INTS + (np.dtype(np.bool_),)), "from")
    dst = data.draw(st.sampled_from(FLOATS + (np.dtype(np.int64), np.dtype(np.bool_))), "to")
    x = data.draw(layouts(shape, src), "x")
    expected = x.astype(dst)
    got = np.asarray(li.astype(li.asarray(x), dst))
    assert_close(got, expected, dst, exact=True)


@given(st.data())
def test_chain_of_views_then_arithmetic(data):
    """Views feeding elementwise ops: the loads must follow every stride, sign and zero."""
    shape = data.draw(any_shape.filter(lambda s: len(s) >= 1), "shape")
    x = data.draw(layouts(shape, data.draw(float_dtypes), "normal"), "x")
    axes = tuple(data.draw(st.permutations(range(x.ndim)), "axes"))
    t = np.transpose(x, axes)[::-1]
    got = np.asarray(li.permute_dims(li.asarray(x), axes)[::-1] - 1.0)
    c = np.float32 if x.dtype.itemsize < 4 else x.dtype
    expected = (t.astype(c) - np.asarray(1.0, c)).astype(x.dtype)
    assert_close(got, expected, x.dtype)


# -- fixed cases ---------------------------------------------------------------------------------
def test_permute_chains_and_inverse_is_identity():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    a = li.asarray(x)
    y = li.permute_dims(li.permute_dims(a, (3, 1, 0, 2)), (2, 1, 3, 0))
    assert_same_bytes(y, x)
    y = li.permute_dims(li.permute_dims(a, (1, 2, 3, 0)), (1, 0, 3, 2))
    assert_same_bytes(y, x.transpose(1, 2, 3, 0).transpose(1, 0, 3, 2))


def test_negative_steps_and_empty_slices():
    x = np.arange(24, dtype=np.int32).reshape(4, 6)
    a = li.asarray(x)
    for key in [
        (slice(None, None, -1), slice(None, None, -2)),
        (slice(3, 0, -2), slice(-1, -7, -1)),
        (slice(2, 2), slice(None)),
        (slice(None), slice(10, 20)),
        (slice(-100, 100, 3), 2),
        (Ellipsis, None, -1),
        (None, 0, Ellipsis, None),
        (),
        Ellipsis,
    ]:
        assert_same_bytes(a[key], x[key])


def test_zero_d_indexing():
    x = np.array(3.5, dtype=np.float16)
    a = li.asarray(x)
    assert_same_bytes(a[()], np.asarray(x[()]))
    assert_same_bytes(a[...], x[...])
    assert_same_bytes(a[None], x[None])
    assert_same_bytes(li.reshape(a, (1, 1)), x.reshape(1, 1))
    assert_same_bytes(li.broadcast_to(a, (2, 3)), np.broadcast_to(x, (2, 3)))


def test_views_of_realized_arrays_read_the_buffer():
    x = np.arange(12.0).reshape(3, 4)
    y = li.asarray(x) - 1
    np.asarray(y)  # y now holds a buffer
    z = li.permute_dims(y, (1, 0))[1:, ::-1]
    np.testing.assert_array_equal(np.asarray(z), (x - 1).T[1:, ::-1])


def test_reshape_copies_a_non_contiguous_view_in_c_order():
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4).transpose(2, 0, 1)[::-1]
    assert_same_bytes(li.reshape(li.asarray(x), (-1,)), x.reshape(-1))
    assert_same_bytes(li.reshape(li.asarray(x), (6, 4)), x.reshape(6, 4))


def test_len_iter_and_T():
    x = np.arange(6).reshape(2, 3)
    a = li.asarray(x)
    assert len(a) == 2
    rows = [np.asarray(r) for r in a]
    np.testing.assert_array_equal(rows, x)
    np.testing.assert_array_equal(np.asarray(a.T), x.T)
    cube = np.arange(8).reshape(2, 2, 2)  # NOTE: numpy's .T of n-d arrays (docs/numpy.md)
    np.testing.assert_array_equal(np.asarray(li.asarray(cube).T), cube.T)
    with pytest.raises(TypeError):
        len(li.asarray(1.0))


def test_astype_float64_to_float16_rounds_once():
    # Just above a float16 tie: rounding to float32 first would land on the tie, then round to
    # even (1.0); one rounding from float64 goes up. (ml_dtypes' bfloat16 casts from float64 do
    # pass through float32, so bfloat16 follows numpy's answer there, whatever it is.)
    x = np.array([1 + 2**-11 + 2**-40, -(1 + 2**-11 + 2**-40)])
    expected = np.array([1 + 2**-10, -(1 + 2**-10)], dtype=np.float16)
    assert_bytes_everywhere(lambda a: li.astype(a, li.float16), x, expected)
    assert_bytes_everywhere(lambda a: li.astype(a - 0.0, li.float16), x, expected)
    assert_bytes_everywhere(lambda a: li.astype(a, li.bfloat16), x, x.astype(li.bfloat16))
