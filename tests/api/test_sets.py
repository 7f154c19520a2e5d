"""Set functions: the unique_* family (computed at the call) and isin (lazy), against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazyinfini as li
from lazyinfini._graph import Op
from tests.layouts import FLOATS, INTS, compute_dtype, layouts
from tests.oracle import assert_close, assert_matches_reference

ALL = (np.dtype(bool), *INTS, *FLOATS, np.dtype(np.complex64))
small_shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5)


def few_values(x: np.ndarray) -> np.ndarray:
    """x folded onto a handful of values, so repeats are common (NaN and -0.0 stay)."""
    if x.dtype.kind in "iu":
        return (x % 4).astype(x.dtype)
    if x.dtype == bool:
        return x
    wide = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    return (np.round(wide / 4) * 0.5).astype(x.dtype)


# -- unique_* ----------------------------------------------------------------------------------
@given(st.data())
def test_unique_all_matches_numpy(data):
    dtype = data.draw(st.sampled_from(ALL), "dtype")
    kind = "special" if dtype in FLOATS else "normal"
    x = few_values(data.draw(layouts(data.draw(small_shapes, "shape"), dtype, kind), "x"))
    c = x.astype(compute_dtype(dtype))
    values, indices, inverse, counts = np.unique(
        c, return_index=True, return_inverse=True, return_counts=True, equal_nan=False
    )
    got = li.unique_all(li.asarray(x))
    assert got._fields == ("values", "indices", "inverse_indices", "counts")
    assert_close(got.values, values.astype(dtype), dtype, exact=True)
    assert_close(got.indices, indices, li.int64)
    assert_close(got.inverse_indices, inverse.reshape(x.shape), li.int64)
    assert_close(got.counts, counts, li.int64)
    # The inverse indices rebuild x (up to the sign of zero, which the spec allows).
    rebuilt = np.asarray(got.values)[np.asarray(got.inverse_indices)]
    assert_close(rebuilt, x, dtype, exact=True)


@pytest.mark.parametrize("dtype", [li.int16, li.float32, li.bfloat16])
def test_unique_counts_inverse_values_agree(dtype):
    x = np.array([[3, 1, 3], [0, 1, 3]]).astype(dtype)
    vc = li.unique_counts(li.asarray(x))
    vi = li.unique_inverse(li.asarray(x))
    v = li.unique_values(li.asarray(x))
    assert vc._fields == ("values", "counts") and vi._fields == ("values", "inverse_indices")
    for values in (vc.values, vi.values, v):
        assert values.dtype == dtype and values.ndim == 1
        assert_close(values, np.array([0, 1, 3]).astype(dtype), dtype, exact=True)
    np.testing.assert_array_equal(np.asarray(vc.counts), [1, 2, 3])
    np.testing.assert_array_equal(np.asarray(vi.inverse_indices), [[2, 1, 2], [0, 1, 2]])


def test_unique_keeps_nans_apart_and_merges_signed_zeros():
    # Note (spec): NaN != NaN, so each NaN is its own value; -0.0 == +0.0 is one value.
    x = li.asarray(np.array([np.nan, 0.0, -0.0, np.nan, 1.0], np.float32))
    values, counts = li.unique_counts(x)
    values = np.asarray(values)
    assert np.isnan(values).sum() == 2 and (values == 0).sum() == 1
    np.testing.assert_array_equal(np.asarray(counts)[~np.isnan(values)], [2, 1])


def test_unique_computes_its_input_and_returns_buffers():
    x = li.asarray(np.array([2, 1, 2, 5])) + 1
    counters = li.inspect.counters
    kernels, implicit = counters.kernels, counters.implicit_materializations
    result = li.unique_all(x)
    assert counters.kernels > kernels
    assert counters.implicit_materializations == implicit + 1
    assert all(a._node.op is Op.BUFFER for a in result)
    np.testing.assert_array_equal(np.asarray(result.values), [2, 3, 6])


def test_unique_of_a_list_is_an_error():
    with pytest.raises(TypeError, match="^unique_values: "):
        li.unique_values([1, 2])


# -- isin --------------------------------------------------------------------------------------
@given(st.data())
def test_isin_matches_numpy(data):
    dtype = data.draw(st.sampled_from(INTS + FLOATS), "dtype")
    x1 = few_values(data.draw(layouts(data.draw(small_shapes, "x1 shape"), dtype), "x1"))
    x2 = few_values(data.draw(layouts(data.draw(small_shapes, "x2 shape"), dtype), "x2"))
    invert = data.draw(st.booleans(), "invert")
    c = compute_dtype(dtype)
    expected = np.isin(x1.astype(c), x2.astype(c), invert=invert)
    got = assert_matches_reference(lambda a, b: li.isin(a, b, invert=invert), x1, x2)
    assert_close(got, expected, li.bool)


def test_isin_with_mixed_dtypes_compares_values():
    x1 = li.asarray(np.array([1, 2, 3], np.int8))
    x2 = li.asarray(np.array([2.0, 3.5], np.float32))
    np.testing.assert_array_equal(np.asarray(li.isin(x1, x2)), [False, True, False])


def test_isin_takes_python_ints():
    # 2025.12: either side may be an int; a scalar x1 gives a 0-d result.
    x = li.asarray(np.array([[1, 2], [3, 2]], np.int16))
    y = li.isin(2, x)
    assert y.shape == () and y.dtype == li.bool and bool(y)
    assert not bool(li.isin(7, x))
    np.testing.assert_array_equal(np.asarray(li.isin(x, 2)), [[False, True], [False, True]])
    np.testing.assert_array_equal(
        np.asarray(li.isin(x, 2, invert=True)), [[True, False], [True, False]]
    )


def test_isin_records_without_running():
    x = li.asarray(np.arange(6).reshape(2, 3)) * 2
    before = li.inspect.counters.kernels
    y = li.isin(x, li.asarray(np.array([0, 4, 5])))
    assert li.inspect.counters.kernels == before
    assert y._node.op is Op.ISIN and y.shape == (2, 3)
    np.testing.assert_array_equal(np.asarray(y), [[True, False, True], [False, False, False]])


X = li.asarray(np.array([1, 2], np.int32))
ERRORS = [
    ("two scalars", lambda: li.isin(1, 2), TypeError),
    ("float scalar", lambda: li.isin(X, 1.5), TypeError),
    ("bool scalar", lambda: li.isin(True, X), TypeError),
    ("list", lambda: li.isin([1, 2], X), TypeError),
    ("no promotion", lambda: li.isin(X, li.asarray(np.array([1], np.uint64))), TypeError),
    ("int out of range", lambda: li.isin(li.asarray(np.array([1], np.int8)), 300), OverflowError),
    ("invert not bool", lambda: li.isin(X, X, invert="yes"), TypeError),
]


@pytest.mark.parametrize("call, exc", [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_isin_bad_input_raises_at_the_call(call, exc):
    with pytest.raises(exc, match="^isin: "):
        call()
