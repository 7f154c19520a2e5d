"""Writes through views recorded as one SETITEM into the root (_api/views.py: places): a view
made by basic indexing and length-1 reshapes is a basic index of its root, so `view[key] = v`
writes v at that index composed with key. numpy running the same script is the oracle."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazyinfini as li
from lazyinfini._api import views
from tests.oracle import track_new_nodes


def grid(shape) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)


def setitems(x) -> int:
    return [attrs["op"] for _, attrs in li.graph(x).nodes(data=True)].count("setitem")


def assert_same(x, expected):
    assert x.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(x), expected)


# -- the plan: one SETITEM per write -----------------------------------------------------------
def test_a_diagonal_written_through_a_view_records_one_setitem_per_write():
    # scikit-learn's _add_to_diagonal on `covariances[k, :, :]`, which has live views
    cov, cov_np = li.asarray(grid((2, 3, 3))), grid((2, 3, 3))
    written = []
    for k in range(2):
        c, c_np = cov[k, :, :], cov_np[k, :, :]
        value, value_np = li.linalg.diagonal(c) + 10, np.diagonal(c_np) + 10
        for i in range(3):
            c[i, i] = value[i]
            c_np[i, i] = value_np[i]
        written.append((c, c_np))
    assert setitems(cov) == 6  # NOTE: a write of the view then a scatter of it made 12
    kinds = [k.nodes[0].op.label for k in li.inspect.schedule(cov).kernels]
    assert kinds.count("setitem") == 6
    assert_same(cov, cov_np)
    for c, c_np in written:
        assert_same(c, c_np)


def test_a_write_into_a_view_without_live_views_stays_a_write_of_the_view():
    # the last live member takes the write itself (views.write reroots): nothing to compose
    a = li.asarray(grid((3, 4)))
    row = a[1]
    del a
    row[2] = -1
    assert row._view.steps == ()
    assert_same(row, np.array([4, 5, -1, 7]))


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda a: a[1, ::2, 1:4], ((1, (0, 2, 2), (1, 1, 3)), (1, 2))),
        (lambda a: a[::-1][:, None, 2], (((2, -1, 3), (2, 1, 1), (0, 1, 5)), (0, 1, 2))),
        (lambda a: a[None, :, 1], (((0, 1, 3), 1, (0, 1, 5)), (None, 0, 2))),
        (lambda a: li.expand_dims(a[0, 0], axis=0), ((0, 0, (0, 1, 5)), (None, 2))),
        (lambda a: li.reshape(a[:1], (4, 5)), ((0, (0, 1, 4), (0, 1, 5)), (1, 2))),
        (lambda a: a.mT, (((0, 1, 3), (0, 1, 4), (0, 1, 5)), (0, 2, 1))),  # axes reordered
        (lambda a: li.permute_dims(a, (2, 0, 1))[1:3, 2], ((2, (0, 1, 4), (1, 1, 2)), (2, 1))),
        (lambda a: li.linalg.diagonal(a), None),
        (lambda a: li.reshape(a, (12, 5)), None),  # merges axes
        (lambda a: a[:, 0:0], None),  # empty
    ],
)
def test_places_of_views(make, expected):
    a = li.asarray(grid((3, 4, 5)))
    view = make(a)
    assert views.place_of(view._view.steps, a.shape) == expected


# -- against numpy ---------------------------------------------------------------------------
@st.composite
def basic_keys(draw, shape):
    """An int, a slice (any step, maybe empty) or None per axis of a leading run of the axes,
    maybe then an ellipsis; or an ellipsis then items for a trailing run."""
    count, trailing = draw(st.integers(0, len(shape))), draw(st.booleans())
    items = []
    for n in shape[len(shape) - count :] if trailing else shape[:count]:
        if draw(st.integers(0, 4)) == 0:
            items.append(None)
        if n and draw(st.booleans()):
            items.append(draw(st.integers(-n, n - 1)))
        else:
            bound = st.none() | st.integers(-n - 1, n + 1)
            step = draw(st.sampled_from((None, 1, 2, -1, -2)))
            items.append(slice(draw(bound), draw(bound), step))
    if trailing:
        return (Ellipsis, *items)
    return (*items, Ellipsis) if draw(st.booleans()) else tuple(items)


def _view(data, x, x_np):
    """One view of x, the same on both: a basic index, or a reshape of length-1 axes, or a
    permute (a basic index of the root with its axes in another order)."""
    kind = data.draw(st.sampled_from(("index", "index", "expand", "squeeze", "permute")))
    if kind == "index":
        key = data.draw(basic_keys(x.shape), "view key")
        if not isinstance(x_np[key], np.ndarray):
            return x, x_np  # a scalar in numpy, a copy: not a view
        return x[key], x_np[key]
    if kind == "expand":
        axis = data.draw(st.integers(0, x.ndim), "axis")
        return li.expand_dims(x, axis=axis), np.expand_dims(x_np, axis)
    if kind == "squeeze":
        axes = tuple(i for i, n in enumerate(x.shape) if n == 1)
        return li.squeeze(x, axis=axes), np.squeeze(x_np, axis=axes)
    axes = tuple(data.draw(st.permutations(range(x.ndim)), "axes"))
    return li.permute_dims(x, axes), np.transpose(x_np, axes)


def _value(data, selected: tuple[int, ...]):
    """A Python int, or an array the selection broadcasts (numpy's rules: length-1 axes, and
    extra leading ones)."""
    if data.draw(st.booleans()):
        return data.draw(st.integers(-50, -1), "value")
    shape = tuple(n if data.draw(st.booleans()) else 1 for n in selected)
    if selected and data.draw(st.booleans()):  # NOTE: numpy refuses one for a 0-d selection
        shape = (1, *shape)
    value = -grid(shape) - 1
    return li.asarray(value), value


@given(st.data(), hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
def test_writes_through_nested_views_match_numpy(data, shape):
    a, a_np = li.asarray(grid(shape)), grid(shape)
    pairs = [(a, a_np)]
    for _ in range(data.draw(st.integers(1, 3), "depth")):
        pairs.append(_view(data, *pairs[-1]))
    other = data.draw(st.sampled_from(pairs[:-1]), "another live view")
    v, v_np = pairs[-1]
    for _ in range(data.draw(st.integers(1, 3), "writes")):
        key = data.draw(basic_keys(v.shape), "key")
        value = _value(data, np.shape(v_np[key]))
        value, value_np = value if isinstance(value, tuple) else (value, value)
        v_np[key] = value_np
        v[key] = value
    for x, x_np in (*pairs, other):
        assert_same(x, x_np)


def test_errors_are_the_ones_of_a_write_into_the_view():
    a = li.asarray(grid((3, 4)))
    row = a[1]
    with pytest.raises(IndexError, match="out of bounds"):
        row[4] = 1
    with pytest.raises(ValueError, match="broadcast"):
        row[1:3] = li.asarray(np.ones(3, dtype=np.int64))
    with pytest.raises(TypeError):
        row[0] = 1.5j
    assert_same(a, grid((3, 4)))


def test_writing_each_of_n_live_views_records_o_of_n_nodes(monkeypatch):
    """A write rebinds no other view (each replays its steps when next read): n writes through
    n live views record O(n) nodes, not O(n^2), and every view reads its updated value."""

    def nodes_for(n: int) -> int:
        a = li.asarray(np.arange(n * 3.0).reshape(n, 3))
        rows = [a[i] for i in range(n)]
        refs = track_new_nodes(monkeypatch)
        for row in rows:
            row *= 2
        made = len(refs)
        monkeypatch.undo()
        np.testing.assert_array_equal(np.asarray(a), np.arange(n * 3.0).reshape(n, 3) * 2)
        np.testing.assert_array_equal(np.asarray(rows[n // 2]), np.arange(3.0) * 2 + n // 2 * 6)
        return made

    small, large = nodes_for(100), nodes_for(400)
    assert large <= 4 * small + 40, (small, large)  # linear (quadratic would be ~16x)


def test_a_write_through_a_transposed_view_is_one_setitem_into_the_root():
    """numpy's `x.T[0] += 1`: the root takes the column at its place, the value transposed
    (a permute of the part, not of the whole root and back)."""
    x, x_np = li.asarray(grid((4, 3))), grid((4, 3))
    x.T[0] += 1
    x_np.T[0] += 1
    assert setitems(x) == 1
    kernels = [(k.kind.value, k.outputs[0].shape) for k in li.inspect.schedule(x).kernels]
    assert kernels == [("elementwise", (4,)), ("opaque", (4, 3))]  # no (3, 4) copy
    assert_same(x, x_np)


@pytest.mark.parametrize(
    "make",
    [lambda x: x.sum(), lambda x: x[1], lambda x: np.mean(x), lambda x: x.max()],
    ids=["sum", "item", "mean", "max"],
)
@pytest.mark.parametrize("update", ["+= 1", "/= 2", "*= 0.5", "-= np.float32(1)", "+= np.ones(3)"])
def test_a_0d_result_behaves_as_numpys_scalar_in_place(make, update):
    """numpy holds a scalar where lazyinfini holds a 0-d array: `s op= v` replaces s (another
    name keeps the old value; the dtype and shape may change), as numpy's scalar does."""
    data = np.arange(5, dtype=np.int32)
    results = []
    for x in (data, li.asarray(data)):
        s = make(x)
        first = s
        exec(f"s {update}", {"np": np}, namespace := {"s": s})
        results.append((np.asarray(first), np.asarray(namespace["s"])))
    (want_first, want), (got_first, got) = results
    assert got_first.dtype == want_first.dtype and got_first == want_first
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_a_0d_view_is_written_in_place_as_numpys_0d_array():
    for x in (np.zeros(()), li.zeros(())):
        view = x[...]
        view += 1
        assert float(x) == 1.0


def test_in_place_operators_and_writes_take_lists_as_numpys():
    # NOTE: an in-place operator that refused a list made Python fall back to x = x + [...]:
    # x rebound, its views unchanged, an int x made float; a setitem of a list raised
    x = np.arange(6.0).reshape(2, 3)
    lazy = li.asarray(x.copy())
    row, lazy_row = x[0], lazy[0]
    x += [1, 2, 3]
    lazy += [1, 2, 3]
    other, lazy_other = x[1], lazy[1]
    other -= (1, 1, 0.5)
    lazy_other -= (1, 1, 0.5)
    x[0, ::-1] = [7, 8.5, 9]
    lazy[0, ::-1] = [7, 8.5, 9]
    for got, want in ((lazy, x), (lazy_row, row), (lazy_other, other)):
        assert np.array_equal(np.asarray(got), want)
    ints = li.asarray(np.arange(3))
    with pytest.raises(TypeError, match="__iadd__"):
        ints += [0.5, 0.5, 0.5]  # NOTE: numpy's UFuncTypeError (same_kind casting)
    small = li.asarray(np.zeros(3, np.int8))
    small[...] = [2.7, True, -1]  # NOTE: numpy converts the list in x's dtype
    assert np.asarray(small).tolist() == [2, 1, -1]
    with pytest.raises(OverflowError):
        small[...] = [300, 1, 2]
