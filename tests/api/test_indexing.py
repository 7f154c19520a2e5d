"""Indexing beyond views: integer arrays (a lazy GATHER), boolean masks (only the mask is
computed), 0-d booleans, take, take_along_axis, and x[key] = value as a functional update."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazyinfini as li
from tests.oracle import assert_matches_reference

shapes = hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4)


def rand(shape, dtype=np.float64, seed=0):
    return (np.random.default_rng(seed).standard_normal(shape) * 10).astype(dtype)


@st.composite
def mixed_keys(draw, shape):
    """A key of integer arrays mixed with ints, slices, None and at most one ellipsis."""
    index_shape = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    items, arrays = [], 0
    for n in shape:
        kind = draw(st.sampled_from(("array", "array", "int", "slice", "none")))
        if kind == "none":
            items.append(None)
        if kind == "array":
            sub = index_shape[draw(st.integers(0, len(index_shape))) :]
            items.append(draw(hnp.arrays(np.int64, sub, elements=st.integers(-n, n - 1))))
            arrays += 1
        elif kind == "int":
            items.append(draw(st.integers(-n, n - 1)))
        else:
            items.append(
                slice(
                    draw(st.none() | st.integers(-n, n)),
                    None,
                    draw(st.sampled_from((None, 1, 2, -1))),
                )
            )
    if draw(st.booleans()):  # an ellipsis standing for some axes (or none) anywhere
        start = draw(st.integers(0, len(items)))
        stop = draw(st.integers(start, len(items)))
        items = items[:start] + [Ellipsis] + items[stop:]
    return tuple(items)


def lazy_key(key):
    return tuple(li.asarray(k) if isinstance(k, np.ndarray) else k for k in key)


@settings(max_examples=80)
@given(st.data())
def test_integer_array_indexing_matches_numpy(data):
    shape = data.draw(shapes, "shape")
    key = data.draw(mixed_keys(shape), "key")
    x = rand(shape)
    expected = x[key]
    got = assert_matches_reference(lambda a, *k: a[_rebuild(key, k)], x, *_arrays(key), exact=True)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def _arrays(key):
    return [k for k in key if isinstance(k, np.ndarray)]


def _rebuild(key, arrays):
    it = iter(arrays)
    return tuple(next(it) if isinstance(k, np.ndarray) else k for k in key)


def test_integer_arrays_are_lazy_and_one_gather():
    x = li.asarray(rand((4, 5))) + 1
    idx = li.asarray(np.array([3, 0, -1])) * 1
    before = li.inspect.counters.kernels
    y = x[idx, 1:]
    assert li.inspect.counters.kernels == before
    assert y._node.op.label == "gather" and y.shape == (3, 4)
    assert sorted(k.name for k in li.inspect.schedule(y).kernels) == ["add", "gather", "multiply"]


def test_a_0d_integer_array_is_an_integer():
    x = rand((3, 4))
    got = li.asarray(x)[li.asarray(np.array(2)), li.asarray(np.array(-1))]
    assert got.shape == ()
    assert float(got) == x[2, -1]


def test_out_of_bounds_index_arrays_raise_when_known():
    # Note (spec): unspecified. Concrete indices raise at the recording line; pending ones when
    # they are computed, and the failed materialization leaves everything usable.
    x = li.asarray(rand((3,)))
    with pytest.raises(IndexError, match="^__getitem__: index 3 is out of bounds"):
        x[li.asarray(np.array([0, 3]))]
    pending = li.asarray(np.array([0, 1])) * 3
    y = x[pending]
    with pytest.raises(IndexError, match="^__getitem__: "):
        np.asarray(y)
    np.testing.assert_array_equal(np.asarray(pending), [0, 3])
    np.testing.assert_array_equal(np.asarray(x[pending - 1][:1]), np.asarray(x)[[-1]])
    with pytest.raises(IndexError, match="^__getitem__: "):
        x[li.asarray(np.array([[0]])), li.asarray(np.array([0, 1, 2]))[:2], 0]


# -- boolean masks -------------------------------------------------------------------------------
@given(st.data())
def test_boolean_masks_match_numpy(data):
    shape = data.draw(shapes, "shape")
    k = data.draw(st.integers(1, len(shape)), "mask dims")
    mask = data.draw(hnp.arrays(np.bool_, shape[:k]), "mask")
    x = rand(shape)
    got = np.asarray(li.asarray(x)[li.asarray(mask)])
    np.testing.assert_array_equal(got, x[mask])
    if len(shape) > 1:  # a mask after a slice, as numpy allows
        inner = data.draw(
            hnp.arrays(np.bool_, shape[1 : 1 + data.draw(st.integers(1, len(shape) - 1))])
        )
        np.testing.assert_array_equal(np.asarray(li.asarray(x)[:, li.asarray(inner)]), x[:, inner])


@pytest.mark.parametrize("shape", [(4, 3), (300, 40)])
def test_a_mask_computes_the_mask_and_keeps_small_held_values(shape):
    """Indexing computes the mask now; x, fused into the mask's kernel, is written out by it
    where it is small (an array holds it: _schedule.KEEP_WRITTEN_BYTES) and stays pending
    where it is large."""
    data = rand(shape)
    x = li.asarray(data) * 2
    mask = x > 0
    kernels = li.inspect.counters.kernels
    y = x[mask]
    assert li.inspect.counters.kernels - kernels == 1
    assert mask._node.op.label == "buffer"
    small = x._node.op.label == "buffer"
    assert small == (data.nbytes <= 1 << 16)
    assert y.shape == (int((data > 0).sum()),)
    np.testing.assert_array_equal(np.asarray(y), (data * 2)[data * 2 > 0])


def test_0d_booleans_add_an_axis():
    x = rand((2, 3))
    a = li.asarray(x)
    for key in (
        True,
        False,
        (Ellipsis, True),
        (slice(None), False),
        (None, True, 1),
        (1, Ellipsis, False),
    ):
        got = a[key]
        np.testing.assert_array_equal(np.asarray(got), x[key])
        assert got.shape == x[key].shape
    np.testing.assert_array_equal(np.asarray(a[li.asarray(True)]), x[True])
    np.testing.assert_array_equal(np.asarray(a[li.asarray(False)]), x[False])


def test_boolean_mask_shape_mismatch_is_an_index_error():
    with pytest.raises(IndexError, match="^__getitem__: "):
        li.ones((3, 4))[li.asarray(np.ones(4, bool))]
    with pytest.raises(IndexError, match="^__getitem__: "):
        li.ones((3, 4))[li.ones(3)]  # float arrays do not index


@pytest.mark.parametrize(
    "key",
    [((0, 1), 1), (li.asarray([0]), (0, 1)), (..., ...), (0, 0, 0), (li.asarray([0]), 0, 0, 0)],
    ids=["tuple", "tuple with an array", "two ellipses", "too many", "too many with an array"],
)
def test_basic_and_array_keys_share_one_check_and_one_ellipsis_expansion(key):
    with pytest.raises(IndexError, match="^__getitem__: "):
        li.ones((3, 4))[key]


def test_ellipsis_expands_the_same_in_basic_and_array_keys():
    x = np.arange(24.0).reshape(2, 3, 4)
    a = li.asarray(x)
    np.testing.assert_array_equal(np.asarray(a[..., 1]), x[..., 1])
    np.testing.assert_array_equal(np.asarray(a[li.asarray([1, 0]), ...]), x[[1, 0], ...])
    np.testing.assert_array_equal(np.asarray(a[..., li.asarray([3, 0])]), x[..., [3, 0]])
    np.testing.assert_array_equal(np.asarray(a[0, ..., li.asarray([2])]), x[0, ..., [2]])


# -- __setitem__ ---------------------------------------------------------------------------------
@settings(max_examples=80)
@given(st.data())
def test_setitem_matches_numpy(data):
    shape = data.draw(shapes, "shape")
    key = data.draw(mixed_keys(shape), "key")
    x = rand(shape, np.float32)
    target = x[key].shape
    scalar = data.draw(st.booleans(), "scalar value")
    value = 7.0 if scalar else rand(target[data.draw(st.integers(0, len(target))) :], np.float32, 1)
    assume_unique = all(len(np.unique(k)) == k.size for k in _arrays(key))
    expected = x.copy()
    expected[key] = value
    a = li.asarray(x)
    a[lazy_key(key)] = value if scalar else li.asarray(value)
    assert a.shape == x.shape and a.dtype == x.dtype
    if assume_unique:  # with repeated indices the winner is unspecified
        np.testing.assert_array_equal(np.asarray(a), expected)


def test_setitem_is_functional_and_lazy():
    data = rand((3, 4))
    x = li.asarray(data)
    view = x[0]
    before = li.inspect.counters.kernels
    x[0, 1:3] = 5.0
    x[x < 0] = 0  # a select where(x < 0, 0, x): nothing computes the mask
    assert li.inspect.counters.kernels == before
    # NOTE: written into x's memory (a pending value's: its order, orders.py) as a select
    assert x._node.op.label == "setitem" and x._node.srcs[1].op.label == "where"
    expected = data.copy()
    expected[0, 1:3] = 5.0
    expected[expected < 0] = 0
    np.testing.assert_array_equal(np.asarray(x), expected)
    np.testing.assert_array_equal(np.asarray(view), expected[0])  # a view sees them, as numpy's


def test_setitem_on_every_executor():
    def update(a, v):
        a[1:, ::2] = v
        a[li.asarray(np.array([0, 2])), 0] = -1
        return a

    x, v = rand((3, 4)), rand((2,), seed=1)
    expected = x.copy()
    expected[1:, ::2] = v
    expected[[0, 2], 0] = -1
    np.testing.assert_array_equal(assert_matches_reference(update, x, v, exact=True), expected)


def test_setitem_values_are_cast_as_numpys_assignment_casts():
    """The standard (2025.12) leaves a value that does not promote to x's dtype to the
    implementation: numpy's assignment casts it (a float into integers truncates)."""
    x = li.zeros((2, 3), dtype=li.float32)
    x[0] = li.ones(3, dtype=li.int16)  # int into float: allowed (mixed kinds)
    x[1] = li.ones(3, dtype=li.float16)
    np.testing.assert_array_equal(np.asarray(x), np.ones((2, 3), np.float32))
    y = li.zeros(3, dtype=li.float32)
    y[:] = li.full(3, 1 / 3, dtype=li.float64)  # wider than y: rounded into it, as numpy's
    assert np.asarray(y).tolist() == [np.float32(1 / 3)] * 3
    with pytest.raises(TypeError, match="^__setitem__: "):
        y[:] = li.full(3, 1j)  # NOTE: an imaginary part would be lost (numpy warns)
    i = li.zeros(3, dtype=li.int8)
    i[0], i[1] = 1.5, -2.7
    assert np.asarray(i).tolist() == [1, -2, 0]
    with pytest.raises(ValueError, match="^__setitem__: "):
        i[0] = math.nan
    with pytest.raises(OverflowError, match="^__setitem__: "):
        i[0] = 300
    with pytest.raises(OverflowError, match="^__setitem__: "):
        i[0] = 300.5
    with pytest.raises(ValueError, match="^__setitem__: "):
        x[0] = li.ones(2, dtype=li.float32)
    with pytest.raises(TypeError, match="^__setitem__: "):
        x[0] = "a"
    x[False] = 9.0  # selects nothing
    assert float(x[0, 0]) == 1.0
    x[True] = 2.0
    assert float(x[1, 2]) == 2.0


def test_setitem_with_a_false_flag_checks_the_value_against_the_empty_selection():
    # scipy's pearsonr (through array_api_extra.apply_where) sets x[False] = y[False] on 0-d
    # arrays: the value has shape (0,), which is what x[False] selects.
    for key in (False, li.asarray(False)):
        x = li.asarray(np.float64(3.0))
        x[key] = li.zeros(0)
        x[key] = li.ones(1)
        assert float(x) == 3.0
    y = li.ones((2, 3))
    y[:, False] = li.zeros((0, 3))
    np.testing.assert_array_equal(np.asarray(y), np.ones((2, 3)))
    with pytest.raises(ValueError, match="^__setitem__: "):
        y[:, False] = li.zeros(2)  # does not broadcast to the selected shape (2, 0, 3)


# -- take, take_along_axis -----------------------------------------------------------------------
@given(st.data())
def test_take_matches_numpy(data):
    shape = data.draw(shapes, "shape")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), "axis")
    n = shape[axis]
    idx = data.draw(hnp.arrays(np.int32, st.integers(0, 5), elements=st.integers(-n, n - 1)), "idx")
    x = rand(shape)
    got = assert_matches_reference(lambda a, i: li.take(a, i, axis=axis), x, idx, exact=True)
    np.testing.assert_array_equal(got, np.take(x, idx, axis=axis))
    if len(shape) == 1:
        np.testing.assert_array_equal(np.asarray(li.take(li.asarray(x), li.asarray(idx))), x[idx])


@given(st.data())
def test_take_along_axis_matches_numpy(data):
    shape = data.draw(shapes, "shape")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), "axis")
    x = rand(shape)
    idx_shape = tuple(
        data.draw(st.integers(0, 4))
        if i == axis % len(shape)
        else (1 if data.draw(st.booleans()) else d)
        for i, d in enumerate(shape)
    )
    n = shape[axis]
    idx = data.draw(hnp.arrays(np.int64, idx_shape, elements=st.integers(-n, n - 1)), "idx")
    got = assert_matches_reference(
        lambda a, i: li.take_along_axis(a, i, axis=axis), x, idx, exact=True
    )
    np.testing.assert_array_equal(got, np.take_along_axis(x, idx, axis=axis))


def test_take_errors_name_the_function():
    x = li.ones((2, 3))
    with pytest.raises(ValueError, match="^take: "):
        li.take(x, li.asarray(np.array([0])))
    with pytest.raises(TypeError, match="^take: "):
        li.take(x, li.ones(2), axis=0)
    with pytest.raises(ValueError, match="^take_along_axis: "):
        li.take_along_axis(x, li.asarray(np.array([0])))
    with pytest.raises(IndexError, match="^take_along_axis: "):
        li.take_along_axis(x, li.asarray(np.zeros((2, 3), np.int64)), axis=2)


def test_a_range_index_is_a_list_index_as_in_numpy():
    x = np.arange(12.0).reshape(3, 4)
    a = li.asarray(x.copy())
    np.testing.assert_array_equal(np.asarray(a[range(3), range(3)]), x[range(3), range(3)])
    a[range(2), range(1, 3)] = -1
    x[range(2), range(1, 3)] = -1
    np.testing.assert_array_equal(np.asarray(a), x)


@pytest.mark.parametrize(
    "key",
    [
        (slice(None), [0, 1], -3, Ellipsis, 1),  # 4-d: the ellipsis stands for no axis
        (slice(None), [[0], [2]], Ellipsis, 0, [1, 0]),
        (0, [0, 1], Ellipsis, [1]),
        (slice(None), [0, 1], Ellipsis, 1),  # the ellipsis is an axis: a slice between
    ],
)
def test_advanced_indices_around_an_empty_ellipsis_lead_as_numpys(key):
    # numpy's index arrays lead the result where an ellipsis separates them, even one that
    # stands for no axis: x[:, [0, 1], -3, ..., 1] is (2, 1); it was (1, 2) here
    x_np = (
        np.arange(24.0).reshape(2, 3, 2, 2) if len(key) < 5 else np.arange(18.0).reshape(1, 3, 3, 2)
    )
    lazy = tuple(li.asarray(np.array(k)) if isinstance(k, list) else k for k in key)
    np.testing.assert_array_equal(np.asarray(li.asarray(x_np)[lazy]), x_np[key], strict=True)
    written, x = x_np.copy(), li.asarray(x_np)
    value = -np.arange(x_np[key].size, dtype=float).reshape(x_np[key].shape)
    written[key] = value
    x[lazy] = li.asarray(value)
    np.testing.assert_array_equal(np.asarray(x), written, strict=True)
