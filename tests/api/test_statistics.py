"""Statistical functions against numpy: values, spec dtypes, keepdims shapes, laziness, errors."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazyinfini as li
from lazyinfini._api.checks import AxisError
from lazyinfini._graph import Op
from tests.layouts import FLOATS, HALF, INTS, compute_dtype, layouts
from tests.oracle import assert_close, assert_matches_reference, check_schedule

NUMERIC = INTS + FLOATS
small_shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)


@st.composite
def axes(draw, ndim: int):
    """None, one axis (negative too) or a tuple of distinct axes."""
    choices = [st.none(), hnp.valid_tuple_axes(ndim)]
    if ndim:
        choices.append(st.integers(-ndim, ndim - 1))
    return draw(st.one_of(*choices))


def spec_accumulator(dtype: np.dtype) -> np.dtype:
    """The spec's sum/prod result dtype: small ints widen, keeping their signedness."""
    if dtype.kind == "i":
        return np.dtype(np.int64)
    if dtype.kind == "u":
        return np.dtype(np.uint64)
    return dtype


def numpy_reduce(name: str, x: np.ndarray, **kwargs) -> np.ndarray:
    """numpy's answer computed the way lazyinfini does: half floats in float32, rounded once."""
    out = {"sum": spec_accumulator, "prod": spec_accumulator}.get(name, lambda d: d)(x.dtype)
    if name in ("sum", "prod"):
        kwargs["dtype"] = compute_dtype(out)
    if "correction" in kwargs:
        kwargs["ddof"] = kwargs.pop("correction")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # empty means, ddof >= size
        value = getattr(np, name)(x.astype(compute_dtype(x.dtype)), **kwargs)
    return np.asarray(value).astype(out)


def assert_reduced_close(got, expected, x: np.ndarray):
    """Reductions may add in another order than numpy did on another layout: allow for it."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, expected)
        return
    tol = {np.float16: 1e-3, np.float32: 1e-5, np.float64: 1e-12}.get(got.dtype.type, 1e-2)
    finite = np.abs(x[np.isfinite(x)].astype(np.float64))
    scale = float(finite.max()) * x.size if finite.size else 1.0
    np.testing.assert_allclose(
        got.astype(np.float64), expected.astype(np.float64), tol, tol * scale, equal_nan=True
    )


def run_quietly(fn, *inputs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return assert_matches_reference(fn, *inputs)


# -- values over shapes, dtypes, axes ----------------------------------------------------------
@given(st.data())
def test_sum_prod_max_min_match_numpy(data):
    name = data.draw(st.sampled_from(["sum", "prod", "max", "min"]), "function")
    shape = data.draw(small_shapes, "shape")
    dtype = data.draw(st.sampled_from(NUMERIC), "dtype")
    axis = data.draw(axes(len(shape)), "axis")
    keepdims = data.draw(st.booleans(), "keepdims")
    x = data.draw(layouts(shape, dtype), "x")
    fn = getattr(li, name)
    reduced = range(x.ndim) if axis is None else np.atleast_1d(axis)
    if name in ("max", "min") and any(x.shape[a] == 0 for a in reduced):
        with pytest.raises(ValueError, match=name):
            fn(li.asarray(x), axis=axis, keepdims=keepdims)
        return
    expected = numpy_reduce(name, x, axis=axis, keepdims=keepdims)
    got = run_quietly(lambda a: fn(a, axis=axis, keepdims=keepdims), x)
    assert_reduced_close(got, expected, x)


@given(st.data())
def test_mean_std_var_match_numpy(data):
    name = data.draw(st.sampled_from(["mean", "std", "var"]), "function")
    shape = data.draw(small_shapes, "shape")
    dtype = data.draw(st.sampled_from(FLOATS), "dtype")
    axis = data.draw(axes(len(shape)), "axis")
    keepdims = data.draw(st.booleans(), "keepdims")
    x = data.draw(layouts(shape, dtype, data.draw(st.sampled_from(["normal", "special"]))), "x")
    kwargs = {"axis": axis, "keepdims": keepdims}
    if name != "mean":
        kwargs["correction"] = data.draw(st.sampled_from([0, 1, 0.5]), "correction")
    expected = numpy_reduce(name, x, **kwargs)
    got = run_quietly(lambda a: getattr(li, name)(a, **kwargs), x)
    assert_reduced_close(got, expected, x)


def test_mean_of_complex_and_of_nothing():
    z = np.array([[1 + 2j, 3 - 1j], [0, 2j]], dtype=np.complex64)
    got = np.asarray(li.mean(li.asarray(z), axis=0))
    # NOTE: compared here, not with assert_close, which casts to float64 (dropping imag).
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got, z.mean(axis=0), rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        empty = np.asarray(li.mean(li.asarray(np.zeros((0, 3), np.float32)), axis=0))
    # Note (spec): the mean of zero elements is NaN.
    assert empty.shape == (3,) and np.isnan(empty).all()


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_propagate_nan(name):
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)
    got = np.asarray(getattr(li, name)(li.asarray(x), axis=1))
    assert np.isnan(got[0]) and got[1] == (6.0 if name == "max" else 4.0)


# -- dtypes ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["sum", "prod", "cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize(
    "dtype, expected",
    [
        (li.int8, li.int64),
        (li.int32, li.int64),
        (li.int64, li.int64),
        (li.uint8, li.uint64),
        (li.uint32, li.uint64),
        (li.float16, li.float16),
        (li.bfloat16, li.bfloat16),
        (li.float32, li.float32),
        (li.complex64, li.complex64),
    ],
)
def test_accumulators_widen_small_ints_keep_floats(name, dtype, expected):
    x = li.asarray(np.array([1, 2, 3]).astype(dtype))
    y = getattr(li, name)(x)
    assert y.dtype == expected
    assert np.asarray(y).dtype == expected


@pytest.mark.parametrize("name", ["sum", "prod", "cumulative_sum"])
def test_dtype_argument_is_the_accumulator(name):
    # 200 * 2 overflows uint8 (and 200 + 100 does too): dtype=int16 computes in int16.
    x = li.asarray(np.array([200, 100, 2], dtype=np.uint8))
    y = getattr(li, name)(x, dtype=li.int16)
    assert y.dtype == li.int16
    reference = getattr(np, {"cumulative_sum": "cumsum"}.get(name, name))
    np.testing.assert_array_equal(np.asarray(y), reference(np.array([200, 100, 2]), dtype=np.int16))


def test_half_sum_accumulates_in_float32_and_rounds_once():
    # float16 steps: 2048 + 1 rounds back to 2048 twice; float32 holds 2050, which float16 has.
    x = np.array([2048, 1, 1], dtype=np.float16)
    assert float(li.sum(li.asarray(x))) == 2050.0
    stepwise = functools.reduce(lambda a, b: np.float16(a + b), x)
    assert stepwise == 2048.0  # what rounding to float16 after every addition gives


@pytest.mark.parametrize("dtype", HALF)
def test_half_mean_rounds_once(dtype):
    x = (np.arange(1, 101) / 7).astype(dtype)
    expected = x.astype(np.float32).mean().astype(dtype)
    assert_close(li.mean(li.asarray(x)), expected, dtype, exact=True)


# -- cumulative --------------------------------------------------------------------------------
@given(st.data())
def test_cumulative_match_numpy(data):
    name = data.draw(st.sampled_from(["cumulative_sum", "cumulative_prod"]), "function")
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4), "shape")
    dtype = data.draw(st.sampled_from(NUMERIC), "dtype")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), "axis")
    initial = data.draw(st.booleans(), "include_initial")
    x = data.draw(layouts(shape, dtype), "x")
    out = spec_accumulator(dtype)
    c = x.astype(compute_dtype(dtype))
    numpy_fn, identity = (np.cumsum, 0) if name == "cumulative_sum" else (np.cumprod, 1)
    expected = numpy_fn(c, axis=axis, dtype=compute_dtype(out))
    if initial:
        edge = list(shape)
        edge[axis] = 1
        expected = np.concatenate([np.full(edge, identity, expected.dtype), expected], axis=axis)
    fn = getattr(li, name)
    got = assert_matches_reference(lambda a: fn(a, axis=axis, include_initial=initial), x)
    assert_reduced_close(got, expected.astype(out), x)


def test_cumulative_sum_of_1d_needs_no_axis():
    y = li.cumulative_sum(li.asarray(np.array([1.0, 2.0, 3.0])), include_initial=True)
    assert y.shape == (4,)
    np.testing.assert_array_equal(np.asarray(y), [0.0, 1.0, 3.0, 6.0])


# -- shapes, laziness, schedule ----------------------------------------------------------------
@pytest.mark.parametrize(
    "axis, keepdims, shape",
    [
        (None, False, ()),
        (None, True, (1, 1, 1)),
        (1, False, (2, 4)),
        (-1, True, (2, 3, 1)),
        ((0, 2), False, (3,)),
        ((2, 0), True, (1, 3, 1)),
        ((), False, (2, 3, 4)),
    ],
)
@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "std", "var"])
def test_reduced_shapes_are_known_before_running(name, axis, keepdims, shape):
    x = li.asarray(np.ones((2, 3, 4), np.float32))
    y = getattr(li, name)(x, axis=axis, keepdims=keepdims)
    assert y.shape == shape and y._node.op.group.value == "reduce"
    assert np.asarray(y).shape == shape


def test_recording_a_reduction_runs_nothing():
    x = li.asarray(np.arange(12.0).reshape(3, 4)) * 2.0
    before = li.inspect.counters.kernels
    ys = [
        li.sum(x, axis=0),
        li.prod(x),
        li.max(x, axis=1, keepdims=True),
        li.min(x),
        li.mean(x),
        li.std(x, correction=1),
        li.var(x, axis=(0, 1)),
        li.cumulative_sum(x, axis=1),
        li.cumulative_prod(x, axis=0, include_initial=True),
    ]
    assert li.inspect.counters.kernels == before
    assert all(y._node.op is not Op.BUFFER for y in ys)
    li.compute(*ys)
    assert li.inspect.counters.kernels > before


def test_reduction_after_elementwise_chain_is_a_second_kernel_unless_over_the_last_axes():
    x = li.asarray(np.linspace(0, 1, 20, dtype=np.float32).reshape(4, 5))
    y = li.sum((x - 0.5) * 2.0, axis=0)
    plan = check_schedule(y, kernels=2)
    (split,) = [d for d in plan.decisions if not d.fused]
    assert split.consumer is y._node
    assert "not the last axes" in split.reason
    expected = ((np.asarray(x) - np.float32(0.5)) * np.float32(2.0)).sum(axis=0)
    assert_close(y, expected, np.float32)
    rows = li.sum((x - 0.5) * 2.0, axis=1)  # NOTE: the sum takes the chain as its prologue
    (kernel,) = check_schedule(rows, kernels=1).kernels
    assert kernel.kind.value == "reduce"
    expected = ((np.asarray(x) - np.float32(0.5)) * np.float32(2.0)).sum(axis=1)
    assert np.asarray(rows).tobytes() == expected.tobytes()


def test_reductions_of_pending_inputs_share_one_schedule():
    x = li.asarray(np.arange(6.0).reshape(2, 3))
    d = x - 1.0
    s, m = li.compute(li.sum(d, axis=0), li.max(d))
    np.testing.assert_array_equal(np.asarray(s), [1.0, 3.0, 5.0])
    assert float(m) == 4.0


# -- errors --------------------------------------------------------------------------------------
X = li.asarray(np.ones((2, 3), np.float32))
B = li.asarray(np.ones((2, 3), bool))
C = li.asarray(np.ones((2, 3), np.complex64))

# (Sums of bools and means of integers are numpy's extensions: tests/api/test_numpy_methods.py.)
ERRORS = [
    ("std of complex", lambda: li.std(C), TypeError, "std"),
    ("var of complex", lambda: li.var(C), TypeError, "var"),
    ("max of complex", lambda: li.max(C), TypeError, "max"),
    ("min of bool", lambda: li.min(B), TypeError, "min"),
    ("prod of a list", lambda: li.prod([1, 2]), TypeError, "prod"),
    ("axis out of range", lambda: li.sum(X, axis=2), AxisError, "sum"),
    ("negative axis out of range", lambda: li.max(X, axis=-3), AxisError, "max"),
    ("axis in a tuple out of range", lambda: li.mean(X, axis=(0, 5)), AxisError, "mean"),
    ("axis of 0-d", lambda: li.sum(li.asarray(1.0), axis=0), AxisError, "sum"),
    ("repeated axis", lambda: li.prod(X, axis=(1, -1)), ValueError, "prod"),
    ("float axis", lambda: li.sum(X, axis=1.0), TypeError, "sum"),
    ("list axis", lambda: li.sum(X, axis=[0]), TypeError, "sum"),
    ("keepdims not bool", lambda: li.sum(X, keepdims=1), TypeError, "sum"),
    ("empty max", lambda: li.max(li.asarray(np.ones((0, 2)))), ValueError, "max"),
    ("empty axis min", lambda: li.min(li.asarray(np.ones((0, 2))), axis=0), ValueError, "min"),
    ("correction not real", lambda: li.std(X, correction=True), TypeError, "std"),
    ("dtype drops imag", lambda: li.sum(C, dtype=li.float32), TypeError, "sum"),
    ("dtype bool", lambda: li.prod(X, dtype=li.bool), TypeError, "prod"),
    ("dtype not a dtype", lambda: li.sum(X, dtype="float32"), TypeError, "sum"),
    ("cumulative axis required", lambda: li.cumulative_sum(X), ValueError, "cumulative_sum"),
    ("cumulative 0-d", lambda: li.cumulative_prod(li.asarray(1.0)), ValueError, "cumulative_prod"),
    ("cumulative axis", lambda: li.cumulative_sum(X, axis=2), AxisError, "cumulative_sum"),
]


@pytest.mark.parametrize("call, exc, name", [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_bad_input_raises_at_the_call(call, exc, name):
    with pytest.raises(exc, match=f"^{name}: "):
        call()


def test_axis_error_is_both_value_and_index_error():
    with pytest.raises(ValueError):
        li.sum(X, axis=5)
    with pytest.raises(IndexError):
        li.sum(X, axis=5)


@pytest.mark.parametrize("dtype", [np.float16, li.bfloat16])
@pytest.mark.parametrize(
    "call",
    [
        lambda x: np.cumsum(x, axis=1),
        lambda x: np.cumsum(x, axis=0),
        lambda x: np.cumsum(x),
        lambda x: np.cumprod(x[:, :30] / 8 + 1, axis=1),
        lambda x: x.cumsum(1),
        lambda x: np.cumulative_sum(x, axis=1, include_initial=True),
    ],
)
def test_numpys_running_sums_of_half_floats_round_every_step(dtype, call):
    # numpy rounds each partial result of a half float's cumsum to it; they accumulated in
    # float32 and rounded once here: 271 of 300 float16 running sums differed
    if not hasattr(np, "cumulative_sum") and "cumulative_sum" in call.__code__.co_names:
        pytest.skip("this numpy has no cumulative_sum")
    x = (np.random.default_rng(5).standard_normal((4, 300)) * 10).astype(dtype)
    got = assert_matches_reference(call, x, exact=True)
    want = call(x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64))
