"""sort and argsort against an independent stable sort, ascending and descending."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazyinfini as li
from lazyinfini._api.checks import AxisError
from lazyinfini._graph import Op
from tests.layouts import FLOATS, HALF, INTS, layouts
from tests.oracle import assert_close, assert_matches_reference

REAL = INTS + FLOATS
TIES = [0.0, -0.0, 1.0, -1.0, math.nan]


def stable_order(lane: np.ndarray, descending: bool) -> list[int]:
    """Python's sort is stable in both directions; NaN goes last ascending, first descending."""
    keys = [(math.isnan(v), 0.0 if math.isnan(v) else v) for v in lane.astype(np.float64)]
    return sorted(range(len(lane)), key=keys.__getitem__, reverse=descending)


def expected_argsort(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1]) if moved.size else np.zeros((0, moved.shape[-1]))
    order = np.array([stable_order(r, descending) for r in rows], dtype=np.int64)
    return np.moveaxis(order.reshape(moved.shape), -1, axis)


@given(st.data())
def test_sort_and_argsort_are_stable_both_ways(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5), "shape")
    dtype = data.draw(st.sampled_from(REAL), "dtype")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), "axis")
    descending = data.draw(st.booleans(), "descending")
    x = data.draw(layouts(shape, dtype, "special" if dtype in FLOATS else "normal"), "x")
    if data.draw(st.booleans(), "ties"):
        # Few distinct values, so ties (and -0.0 next to +0.0) are common.
        ties = hnp.arrays(np.float64, shape, elements=st.sampled_from(TIES))
        x = (x % 3).astype(dtype) if dtype in INTS else data.draw(ties, "x").astype(dtype)
    order = expected_argsort(x, axis, descending)
    got = assert_matches_reference(
        lambda a: li.argsort(a, axis=axis, descending=descending), x, exact=True
    )
    assert_close(got, order, li.int64)
    values = assert_matches_reference(
        lambda a: li.sort(a, axis=axis, descending=descending), x, exact=True
    )
    expected = np.take_along_axis(x, order, axis=axis)
    assert values.dtype == dtype
    # Bit-exact: a stable sort keeps -0.0 and +0.0 in the order they came in.
    assert values.tobytes() == np.ascontiguousarray(expected).tobytes()


@given(st.data())
def test_float_ties_keep_their_input_order(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=2, min_side=2, max_side=6), "shape")
    dtype = data.draw(st.sampled_from(FLOATS), "dtype")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), "axis")
    descending = data.draw(st.booleans(), "descending")
    x = data.draw(hnp.arrays(np.float64, shape, elements=st.sampled_from(TIES)), "x").astype(dtype)
    order = expected_argsort(x, axis, descending)
    x_li = li.asarray(x)
    np.testing.assert_array_equal(
        np.asarray(li.argsort(x_li, axis=axis, descending=descending)), order
    )
    got = np.asarray(li.sort(x_li, axis=axis, descending=descending))
    expected = np.take_along_axis(x, order, axis=axis)
    assert got.tobytes() == np.ascontiguousarray(expected).tobytes()


@pytest.mark.parametrize("descending", [False, True])
def test_signed_zeros_keep_their_order(descending):
    # Note (spec): a stable sort keeps equal values (-0.0 == +0.0) in input order. numpy has
    # no descending sort, and reversing an ascending sort (what array_api_compat.numpy does
    # for sort) would put every tie the other way round.
    x = np.array([0.0, -0.0, 1.0, -0.0, -0.0], dtype=np.float32)
    got = np.asarray(li.sort(li.asarray(x), descending=descending))
    # The zeros come in as +0, -0, -0, -0 and must leave in that order, either way.
    np.testing.assert_array_equal(np.signbit(got[got == 0]), [False, True, True, True])
    order = np.asarray(li.argsort(li.asarray(x), descending=descending))
    expected = [0, 1, 3, 4, 2] if not descending else [2, 0, 1, 3, 4]
    np.testing.assert_array_equal(order, expected)


@pytest.mark.parametrize("dtype", HALF)
def test_half_floats_sort_exactly(dtype):
    x = np.array([3.5, -1.25, 0.0, 1000.0, -1.25], dtype=dtype)
    got = np.asarray(li.sort(li.asarray(x), descending=True))
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.astype(np.float32), [1000.0, 3.5, 0.0, -1.25, -1.25])


@pytest.mark.parametrize("n", [12, 5000])
def test_numpys_unstable_sort_of_float16_leaves_numpys_tie_order(n):
    """numpy sorts float16 in its own dtype: equal values' indices and -0.0 against 0.0 come
    out in its order, which a float32 sort's differs from."""
    x = np.random.default_rng(0).integers(-2, 5, n).astype(np.float16)
    x[::7] = -0.0
    np.testing.assert_array_equal(np.asarray(np.argsort(li.asarray(x))), np.argsort(x))
    got, want = np.asarray(np.sort(li.asarray(x))), np.sort(x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_unstable_sort_still_sorts():
    x = np.random.default_rng(0).integers(0, 4, (3, 50)).astype(np.int16)
    got = np.asarray(li.sort(li.asarray(x), axis=1, stable=False))
    np.testing.assert_array_equal(got, np.sort(x, axis=1))
    idx = np.asarray(li.argsort(li.asarray(x), axis=0, descending=True, stable=False))
    np.testing.assert_array_equal(np.take_along_axis(x, idx, 0), -np.sort(-x, axis=0))


def test_recording_runs_nothing():
    x = li.asarray(np.array([[3, 1, 2], [0, 5, 4]], np.int32)) * 2
    before = li.inspect.counters.kernels
    s, a = li.sort(x, axis=0, descending=True), li.argsort(x)
    assert li.inspect.counters.kernels == before
    assert (s.shape, s.dtype, a.shape, a.dtype) == ((2, 3), li.int32, (2, 3), li.int64)
    assert s._node.op is Op.SORT and a._node.op is Op.ARGSORT
    li.compute(s, a)
    np.testing.assert_array_equal(np.asarray(s), [[6, 10, 8], [0, 2, 4]])
    np.testing.assert_array_equal(np.asarray(a), [[1, 2, 0], [0, 2, 1]])


X = li.asarray(np.ones((2, 3), np.float32))
ERRORS = [
    ("sort 0-d", lambda: li.sort(li.asarray(1.0)), AxisError, "sort"),
    ("sort axis", lambda: li.sort(X, axis=2), AxisError, "sort"),
    ("argsort axis", lambda: li.argsort(X, axis=-3), AxisError, "argsort"),
    ("sort bool", lambda: li.sort(li.asarray(np.ones(2, bool))), TypeError, "sort"),
    (
        "argsort complex",
        lambda: li.argsort(li.asarray(np.ones(2, np.complex64))),
        TypeError,
        "argsort",
    ),
    ("sort descending", lambda: li.sort(X, descending="yes"), TypeError, "sort"),
    ("argsort stable", lambda: li.argsort(X, stable=None), TypeError, "argsort"),
    ("sort list", lambda: li.sort([3, 1]), TypeError, "sort"),
    ("sort float axis", lambda: li.sort(X, axis=1.0), TypeError, "sort"),
]


@pytest.mark.parametrize("call, exc, name", [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_bad_input_raises_at_the_call(call, exc, name):
    with pytest.raises(exc, match=f"^{name}: "):
        call()


@pytest.mark.parametrize("descending", [False, True])
def test_an_unstable_sort_of_float16_sorts_where_numpys_does_not(descending):
    # numpy 2.4's unstable float16 sort leaves this array unsorted on AVX-512 CPUs without
    # AVX512-FP16 (the differential fuzz found it): a sort sorts, whatever the CPU
    x = (np.random.default_rng(2).integers(-12, 13, (2, 70000)) / 2).astype(np.float16)
    got = np.asarray(li.sort(li.asarray(x), axis=1, descending=descending, stable=False))
    want = np.sort(x, axis=1, kind="stable")
    np.testing.assert_array_equal(got, want[:, ::-1] if descending else want)


def test_unique_float16_values_are_unique_where_numpys_repeat():
    # numpy 2.4's np.unique of float16 sorts with the kernel above and repeats values there
    x = (np.random.default_rng(2).integers(-12, 13, 70000) / 2).astype(np.float16)
    values, counts = np.unique(li.asarray(x), return_counts=True)
    want_values, want_counts = np.unique(x.astype(np.float32), return_counts=True)
    np.testing.assert_array_equal(np.asarray(values), want_values.astype(np.float16))
    np.testing.assert_array_equal(np.asarray(counts), want_counts)
