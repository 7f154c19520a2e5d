"""Searching functions against numpy: argmax/argmin, count_nonzero, nonzero, searchsorted."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazyinfini as li
from lazyinfini._api.checks import AxisError
from lazyinfini._graph import Op
from tests.layouts import FLOATS, INTS, compute_dtype, layouts, values
from tests.oracle import assert_close, assert_matches_reference

REAL = INTS + FLOATS
small_shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)


# -- argmax / argmin ---------------------------------------------------------------------------
@given(st.data())
def test_argmax_argmin_match_numpy(data):
    name = data.draw(st.sampled_from(["argmax", "argmin"]), "function")
    shape = data.draw(small_shapes, "shape")
    dtype = data.draw(st.sampled_from(REAL), "dtype")
    ndim = len(shape)
    axis = data.draw(st.none() | st.integers(-ndim, ndim - 1) if ndim else st.none(), "axis")
    keepdims = data.draw(st.booleans(), "keepdims")
    x = data.draw(layouts(shape, dtype, "special" if dtype in FLOATS else "normal"), "x")
    fn = getattr(li, name)
    if (x.size == 0) if axis is None else (x.shape[axis] == 0):
        with pytest.raises(ValueError, match=f"^{name}: "):
            fn(li.asarray(x), axis=axis, keepdims=keepdims)
        return
    expected = getattr(np, name)(x.astype(compute_dtype(dtype)), axis=axis, keepdims=keepdims)
    got = assert_matches_reference(lambda a: fn(a, axis=axis, keepdims=keepdims), x)
    assert_close(got, np.asarray(expected), li.int64)


def test_argmax_picks_the_first_of_ties_and_nan():
    x = li.asarray(np.array([[1.0, 3.0, 3.0], [2.0, np.nan, np.nan]], dtype=np.float32))
    np.testing.assert_array_equal(np.asarray(li.argmax(x, axis=1)), [1, 1])
    np.testing.assert_array_equal(np.asarray(li.argmin(x, axis=0, keepdims=True)), [[0, 1, 1]])
    assert int(li.argmax(x)) == 4


# -- count_nonzero -----------------------------------------------------------------------------
@given(st.data())
def test_count_nonzero_matches_numpy(data):
    shape = data.draw(small_shapes, "shape")
    dtype = data.draw(st.sampled_from((np.dtype(bool), np.dtype(np.complex64), *REAL)), "dtype")
    axis = data.draw(st.none() | hnp.valid_tuple_axes(len(shape)), "axis")
    keepdims = data.draw(st.booleans(), "keepdims")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), "seed"))
    x = values(rng, shape, dtype) * np.asarray(rng.random(shape) < 0.5).astype(dtype)
    expected = np.count_nonzero(x, axis=axis, keepdims=keepdims)
    got = assert_matches_reference(lambda a: li.count_nonzero(a, axis=axis, keepdims=keepdims), x)
    assert_close(got, np.asarray(expected), li.int64)


def test_count_nonzero_counts_complex_with_any_nonzero_part():
    z = li.asarray(np.array([0, 1j, 1, 0j, 1 + 1j], dtype=np.complex128))
    assert int(li.count_nonzero(z)) == 3


# -- nonzero (data-dependent) ----------------------------------------------------------------
@pytest.mark.parametrize(
    "x",
    [
        np.array([0, 3, 0, -1], np.int8),
        np.array([[True, False], [False, True]]),
        np.array([[0.0, -0.0, np.nan], [1.0, 0.0, 2.0]], np.float32),
        np.array([[0, 1j], [0, 0]], np.complex64),
        np.zeros((2, 0, 3), np.float64),
    ],
)
def test_nonzero_matches_numpy(x):
    got = li.nonzero(li.asarray(x))
    expected = np.nonzero(x)
    assert isinstance(got, tuple) and len(got) == x.ndim
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == li.int64
        np.testing.assert_array_equal(np.asarray(g), e)


def test_nonzero_of_half_floats():
    x = np.array([0, 1.5, 0, -2], dtype=li.bfloat16)
    (i,) = li.nonzero(li.asarray(x))
    np.testing.assert_array_equal(np.asarray(i), [1, 3])


def test_nonzero_computes_its_input_and_returns_buffers():
    x = li.asarray(np.arange(-3, 3)) * 2
    counters = li.inspect.counters
    kernels, implicit = counters.kernels, counters.implicit_materializations
    (i,) = li.nonzero(x)
    assert counters.kernels > kernels  # the pending product ran
    assert counters.implicit_materializations == implicit + 1
    assert i._node.op is Op.BUFFER
    np.testing.assert_array_equal(np.asarray(i), [0, 1, 2, 4, 5])
    li.nonzero(x)  # x is realized now: nothing more runs, nothing implicit is counted
    assert counters.implicit_materializations == implicit + 1


def test_nonzero_of_0d_is_an_error():
    with pytest.raises(ValueError, match="^nonzero: "):
        li.nonzero(li.asarray(1.0))


# -- searchsorted ------------------------------------------------------------------------------
@given(st.data())
def test_searchsorted_matches_numpy(data):
    dtype = data.draw(st.sampled_from(REAL), "dtype")
    n = data.draw(st.integers(0, 8), "length")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), "seed"))
    pool = values(rng, (4,), dtype)  # few distinct values: ties on both sides
    x1 = np.sort(rng.choice(pool, n)) if n else np.zeros(0, dtype)
    x2 = data.draw(layouts(data.draw(small_shapes, "x2 shape"), dtype), "x2")
    x2 = np.where(rng.random(x2.shape) < 0.5, rng.choice(pool, x2.shape), x2).astype(dtype)
    side = data.draw(st.sampled_from(["left", "right"]), "side")
    c = compute_dtype(dtype)
    expected = np.searchsorted(x1.astype(c), x2.astype(c), side=side)
    got = assert_matches_reference(lambda a, v: li.searchsorted(a, v, side=side), x1, x2)
    assert_close(got, np.asarray(expected), li.int64)


@given(st.integers(0, 2**32 - 1), st.sampled_from(["left", "right"]))
def test_searchsorted_with_sorter_matches_numpy(seed, side):
    rng = np.random.default_rng(seed)
    x1 = rng.integers(0, 5, 9).astype(np.float32)
    sorter = np.argsort(x1, kind="stable")
    x2 = rng.integers(-1, 6, (2, 3)).astype(np.float32)
    expected = np.searchsorted(x1, x2, side=side, sorter=sorter)
    got = assert_matches_reference(
        lambda a, v, s: li.searchsorted(a, v, side=side, sorter=s), x1, x2, sorter
    )
    assert_close(got, expected, li.int64)


@pytest.mark.parametrize("value, expected", [(2, 1), (2.5, 3), (-1.0, 0), (9, 4)])
def test_searchsorted_takes_a_python_scalar(value, expected):
    x1 = li.asarray(np.array([1.0, 2.0, 2.0, 3.0], np.float32))
    y = li.searchsorted(x1, value)
    assert y.shape == () and y.dtype == li.int64
    assert int(y) == expected


def test_searchsorted_right_side_of_ties():
    x1 = li.asarray(np.array([1, 2, 2, 3], np.int32))
    assert int(li.searchsorted(x1, 2, side="right")) == 3


# -- laziness and errors -----------------------------------------------------------------------
def test_recording_runs_nothing():
    x = li.asarray(np.arange(12.0).reshape(3, 4)) - 5.0
    before = li.inspect.counters.kernels
    ys = [
        li.argmax(x, axis=0),
        li.argmin(x),
        li.count_nonzero(x, axis=1, keepdims=True),
        li.searchsorted(li.asarray(np.arange(4.0)), x),
    ]
    assert li.inspect.counters.kernels == before
    assert [y.shape for y in ys] == [(4,), (), (3, 1), (3, 4)]
    assert all(y.dtype == li.int64 and y._node.op is not Op.BUFFER for y in ys)


X = li.asarray(np.ones((2, 3), np.float32))
V = li.asarray(np.array([1, 2, 3], np.int32))
ERRORS = [
    ("argmax bool", lambda: li.argmax(li.asarray(np.ones(2, bool))), TypeError, "argmax"),
    (
        "argmin complex",
        lambda: li.argmin(li.asarray(np.ones(2, np.complex64))),
        TypeError,
        "argmin",
    ),
    ("argmax tuple axis", lambda: li.argmax(X, axis=(0, 1)), TypeError, "argmax"),
    ("argmax axis", lambda: li.argmax(X, axis=2), AxisError, "argmax"),
    ("argmin empty", lambda: li.argmin(li.asarray(np.ones((2, 0)))), ValueError, "argmin"),
    ("argmax keepdims", lambda: li.argmax(X, keepdims=None), TypeError, "argmax"),
    ("count_nonzero axis", lambda: li.count_nonzero(X, axis=-3), AxisError, "count_nonzero"),
    ("count_nonzero repeat", lambda: li.count_nonzero(X, axis=(0, 0)), ValueError, "count_nonzero"),
    ("nonzero list", lambda: li.nonzero([1, 0]), TypeError, "nonzero"),
    ("searchsorted 2-d", lambda: li.searchsorted(X, 1.0), ValueError, "searchsorted"),
    ("searchsorted side", lambda: li.searchsorted(V, 1, side="up"), ValueError, "searchsorted"),
    ("searchsorted float in int", lambda: li.searchsorted(V, 1.5), TypeError, "searchsorted"),
    ("searchsorted overflow", lambda: li.searchsorted(V, 2**40), OverflowError, "searchsorted"),
    ("searchsorted str", lambda: li.searchsorted(V, "1"), TypeError, "searchsorted"),
    (
        "searchsorted bool",
        lambda: li.searchsorted(li.asarray([True]), True),
        TypeError,
        "searchsorted",
    ),
    (
        "searchsorted no promotion",
        lambda: li.searchsorted(li.asarray(np.ones(2, np.uint64)), V),
        TypeError,
        "searchsorted",
    ),
    (
        "sorter float",
        lambda: li.searchsorted(V, 1, sorter=li.asarray([0.0, 1, 2])),
        TypeError,
        "searchsorted",
    ),
    (
        "sorter shape",
        lambda: li.searchsorted(V, 1, sorter=li.asarray([0, 1])),
        ValueError,
        "searchsorted",
    ),
]


@pytest.mark.parametrize("call, exc, name", [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_bad_input_raises_at_the_call(call, exc, name):
    with pytest.raises(exc, match=f"^{name}: "):
        call()
