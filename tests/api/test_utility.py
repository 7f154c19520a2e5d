"""all, any and diff against numpy: values, shapes, dtypes, laziness and errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazyinfini as li
from lazyinfini._api.checks import AxisError
from lazyinfini._graph import Op
from lazyinfini._schedule import Kind
from tests.layouts import FLOATS, INTS, compute_dtype, layouts
from tests.oracle import assert_close, assert_matches_reference, check_schedule

ALL = (np.dtype(bool), *INTS, *FLOATS, np.dtype(np.complex64))
NUMERIC = (*INTS, *FLOATS, np.dtype(np.complex128))
small_shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)


def sparse(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """x with about half its elements zero, so all/any see both answers."""
    return np.where(rng.random(x.shape) < 0.5, np.zeros((), x.dtype), x)


# -- all / any ---------------------------------------------------------------------------------
@given(st.data())
def test_all_any_match_numpy(data):
    name = data.draw(st.sampled_from(["all", "any"]), "function")
    shape = data.draw(small_shapes, "shape")
    dtype = data.draw(st.sampled_from(ALL), "dtype")
    axis = data.draw(st.none() | hnp.valid_tuple_axes(len(shape)), "axis")
    keepdims = data.draw(st.booleans(), "keepdims")
    kind = "special" if dtype in FLOATS else "normal"
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), "seed"))
    x = sparse(data.draw(layouts(shape, dtype, kind), "x"), rng)
    expected = getattr(np, name)(x.astype(compute_dtype(dtype)), axis=axis, keepdims=keepdims)
    fn = getattr(li, name)
    got = assert_matches_reference(lambda a: fn(a, axis=axis, keepdims=keepdims), x)
    assert_close(got, np.asarray(expected), li.bool)


def test_nan_inf_and_complex_count_as_true():
    x = li.asarray(np.array([np.nan, np.inf, -np.inf], np.float32))
    assert bool(li.all(x))
    z = li.asarray(np.array([1j, 0j], np.complex64))
    assert bool(li.any(z)) and not bool(li.all(z))


def test_empty_all_is_true_and_empty_any_is_false():
    e = li.asarray(np.zeros((2, 0), np.float64))
    np.testing.assert_array_equal(np.asarray(li.all(e, axis=1)), [True, True])
    np.testing.assert_array_equal(np.asarray(li.any(e, axis=1)), [False, False])
    assert li.all(e, axis=1, keepdims=True).shape == (2, 1)


# -- diff --------------------------------------------------------------------------------------
@given(st.data())
def test_diff_matches_numpy(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5), "shape")
    dtype = data.draw(st.sampled_from(NUMERIC), "dtype")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), "axis")
    n = data.draw(st.integers(0, 10), "n")
    x = data.draw(layouts(shape, dtype), "x")
    if dtype.kind == "c":
        x = x * np.asarray(1 - 2j, dtype)  # layouts() draws real values only
    edges = {}
    for name in ("prepend", "append"):
        if data.draw(st.booleans(), name):
            edge_shape = list(shape)
            edge_shape[axis] = data.draw(st.integers(0, 2), f"{name} length")
            edges[name] = data.draw(layouts(tuple(edge_shape), dtype), name)
    # Note (spec): the edges count for n=0 too (numpy's diff would drop them there).
    parts = [edges.get("prepend"), x, edges.get("append")]
    joined = np.concatenate([p for p in parts if p is not None], axis=axis)
    # numpy rounds each step's differences to the dtype (a half float's too): bit for bit
    expected = np.diff(joined, n=n, axis=axis)
    names = list(edges)

    def program(a, *edge_arrays):
        return li.diff(a, axis=axis, n=n, **dict(zip(names, edge_arrays, strict=True)))

    got = assert_matches_reference(program, x, *edges.values())
    assert_close(got, expected, dtype, exact=True)


@pytest.mark.parametrize("n", [1, 3, 11])
def test_diff_is_one_elementwise_kernel_per_eight_steps(n):
    # Step k's values are recomputed from n + 1 windows of x, not sliced from step k - 1's
    # (the fuser splits at a slice of a result): the same arithmetic per element, one pass.
    x = li.asarray(np.random.default_rng(n).standard_normal((5, 40)).astype(np.float16))
    y = li.diff(x, n=n, axis=1)
    plan = check_schedule(y, kernels=-(-n // 8))
    assert all(kernel.kind is Kind.ELEMENTWISE for kernel in plan.kernels)
    np.testing.assert_array_equal(np.asarray(y), np.diff(np.asarray(x), n=n, axis=1))


def test_numpy_diff_of_booleans_takes_not_equal():
    b = np.random.default_rng(3).random((4, 9)) > 0.5
    for n, edges in [(1, {}), (2, {"prepend": True}), (3, {"append": b[:, :2]}), (12, {})]:
        lazy = {k: li.asarray(v) if isinstance(v, np.ndarray) else v for k, v in edges.items()}
        got = np.diff(li.asarray(b), n=n, **lazy)
        assert isinstance(got, li.Array)
        assert_close(got, np.diff(b, n=n, **edges), np.dtype(bool))


def test_diff_shape_is_m_plus_edges_minus_n():
    x = li.asarray(np.arange(12.0).reshape(3, 4))
    p = li.asarray(np.zeros((3, 2)))
    a = li.asarray(np.ones((3, 1)))
    y = li.diff(x, axis=1, n=2, prepend=p, append=a)
    assert y.shape == (3, 4 + 2 + 1 - 2)
    expected = np.diff(np.asarray(x), n=2, axis=1, prepend=np.zeros((3, 2)), append=np.ones((3, 1)))
    np.testing.assert_array_equal(np.asarray(y), expected)
    assert li.diff(x, axis=0, n=5).shape == (0, 4)  # more differences than elements: empty
    assert li.diff(x, n=0, append=a).shape == (3, 5)  # n=0 still joins the edges


def test_diff_promotes_mixed_edge_dtypes():
    x = li.asarray(np.array([1, 4, 9], np.int8))
    y = li.diff(x, prepend=li.asarray(np.array([0], np.int32)))
    assert y.dtype == li.int32
    np.testing.assert_array_equal(np.asarray(y), [1, 3, 5])


# -- laziness and errors -----------------------------------------------------------------------
def test_recording_runs_nothing():
    x = li.asarray(np.arange(12.0).reshape(3, 4)) - 3.0
    before = li.inspect.counters.kernels
    ys = [li.all(x, axis=0), li.any(x, keepdims=True), li.diff(x, axis=0, append=x)]
    assert li.inspect.counters.kernels == before
    assert [y.shape for y in ys] == [(4,), (1, 1), (5, 4)]
    assert [y._node.op for y in ys] == [Op.ALL, Op.ANY, Op.SUBTRACT]
    li.compute(*ys)
    np.testing.assert_array_equal(np.asarray(ys[0]), [True, True, True, False])


X = li.asarray(np.ones((2, 3), np.float32))
ERRORS = [
    ("all axis", lambda: li.all(X, axis=2), AxisError, "all"),
    ("any repeated axis", lambda: li.any(X, axis=(0, -2)), ValueError, "any"),
    ("any keepdims", lambda: li.any(X, keepdims="no"), TypeError, "any"),
    ("all list", lambda: li.all([True]), TypeError, "all"),
    ("diff bool", lambda: li.diff(li.asarray(np.ones(3, bool))), TypeError, "diff"),
    ("diff 0-d", lambda: li.diff(li.asarray(1.0)), AxisError, "diff"),
    ("diff axis", lambda: li.diff(X, axis=2), AxisError, "diff"),
    ("diff negative n", lambda: li.diff(X, n=-1), ValueError, "diff"),
    ("diff float n", lambda: li.diff(X, n=1.0), TypeError, "diff"),
    ("diff bool n", lambda: li.diff(X, n=True), TypeError, "diff"),
    (
        "diff prepend shape",
        lambda: li.diff(X, prepend=li.asarray(np.ones((3, 1)))),
        ValueError,
        "diff",
    ),
    ("diff append ndim", lambda: li.diff(X, append=li.asarray(np.ones(3))), ValueError, "diff"),
    ("diff prepend list", lambda: li.diff(X, prepend=[[1.0], [2.0]]), TypeError, "diff"),
    (
        "diff no promotion",
        lambda: li.diff(li.asarray(np.ones(2, np.uint64)), append=li.asarray(np.ones(1, np.int64))),
        TypeError,
        "diff",
    ),
]


@pytest.mark.parametrize("call, exc, name", [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_bad_input_raises_at_the_call(call, exc, name):
    with pytest.raises(exc, match=f"^{name}: "):
        call()
