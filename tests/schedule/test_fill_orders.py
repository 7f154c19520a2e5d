"""numpy's memory order of the arrays fills make (zeros, full, the *_like family, ndarray.fill):
numpy writes them in C order, or in their prototype's order (order="K", "A", "F"), and that
order decides the order of a ufunc's result over them and of a sum's additions. lazyinfini's
must be numpy's, bit for bit (orders.py, creation.in_c_order, _numpy_twins/creation.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazyinfini as li
from lazyinfini._numpy_twins.layout import layout_of
from lazyinfini._schedule.orders import axis_order
from tests.layouts import layouts

F16, F32 = np.dtype("float16"), np.dtype("float32")
# NOTE: sides past 8: numpy adds a contiguous row pairwise from 9 values on, so only then
# does a sum along an axis tell the two orders apart
wide_shapes = hnp.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=12)


def _row(shape, dtype):
    return np.linspace(-1.3, 2.9, shape[-1]).astype(dtype)


LIKES = {
    "zeros_like": lambda p, order, shape: np.zeros_like(p, order=order, shape=shape),
    "ones_like": lambda p, order, shape: np.ones_like(p, order=order, shape=shape),
    "full_like": lambda p, order, shape: np.full_like(p, 0.1, order=order, shape=shape),
    "full_like of a row": lambda p, order, shape: np.full_like(
        p, _row(shape or p.shape, p.dtype), order=order, shape=shape
    ),
}


def _shape_arg(shape, how):
    return {"none": None, "reversed": shape[::-1], "fewer": shape[1:], "more": (2, *shape)}[how]


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    shape=wide_shapes,
    name=st.sampled_from(sorted(LIKES)),
    order=st.sampled_from(["K", "A", "F", "C", None, "k"]),
    how=st.sampled_from(["none", "reversed", "fewer", "more"]),
)
def test_a_like_arrays_layout_and_sums_are_numpys(data, shape, name, order, how):
    p = data.draw(layouts(shape, F16))
    new_shape = _shape_arg(shape, how)
    if new_shape is not None and len(new_shape) < 1:
        return
    made = LIKES[name](li.asarray(p), order, new_shape)
    expected = LIKES[name](p, order, new_shape)
    np.testing.assert_array_equal(np.asarray(made), expected)
    if made.ndim > 1:
        assert layout_of(made).axes == axis_order(expected.shape, [expected.strides]), (
            p.strides,
            expected.strides,
        )
    for axis in range(expected.ndim):
        got = np.asarray(np.sum(made + 0.25, axis=axis))
        np.testing.assert_array_equal(got, np.sum(expected + 0.25, axis=axis), err_msg=str(axis))


def _differential(program, *arrays):
    expected = np.asarray(program(np, *arrays))
    for device, fuse in (("cpu", True), ("cpu", False), ("reference", True)):
        with li.options(device=device, fuse=fuse):
            got = np.asarray(program(li, *(li.asarray(a) for a in arrays)))
        np.testing.assert_array_equal(got, expected, err_msg=f"{device} fuse={fuse}")


@pytest.mark.parametrize("make", ["zeros", "ones", "full", "zeros_like", "empty_like"])
@pytest.mark.parametrize("axis", [0, 1])
def test_a_c_ordered_fill_decides_a_ufuncs_order_as_numpys(make, axis):
    # numpy writes zeros(n, m) + x.T in C order (C wins where operands disagree): its sums
    # add so; a fill that had no say would leave x.T's order to decide
    x = np.random.default_rng(7).standard_normal((37, 29)).astype(F32)

    def program(xp, x):
        shape = (x.shape[1], x.shape[0])
        fills = {
            "zeros": lambda: xp.zeros(shape, dtype=x.dtype),
            "ones": lambda: xp.ones(shape, dtype=x.dtype),
            "full": lambda: xp.full(shape, 0.1, dtype=x.dtype),
            "zeros_like": lambda: np.zeros_like(x.T, order="C"),
            "empty_like": lambda: _filled(np.empty_like(x.T, order="C")),
        }
        return xp.sum(fills[make]() + x.T, axis=axis)

    _differential(program, x)


def _filled(z):
    z[...] = 0.5  # NOTE: numpy's empty memory may hold NaN: never read
    return z


def test_filling_a_fortran_array_keeps_its_order():
    # the numpy-programs fuzz, seed 167552: z.fill(3) of an F-ordered copy, then an hstack
    # with an F-ordered value is F-ordered in numpy, and its sum over axis 0 adds down columns
    column = [1.486, 0.007656, 3.58, -0.3013, 0.83, 3.504, 0.4727, -2.654, 3.16]
    x = np.asfortranarray(np.array([column, column[::-1]], F16).T)

    def program(xp, x):
        z = np.copy(x)
        z[np.array([0, 8])] = 1
        z.fill(3)
        return np.sum(np.hstack([x, z]), axis=0, keepdims=True)

    _differential(program, x)


def test_a_fill_copied_into_c_order_is_one_fused_kernel():
    x = li.asarray(np.ones((300, 400), F32))
    for y in (li.zeros((300, 400), dtype=li.float32) + x, np.zeros_like(x) * 2 - x):
        kinds = [k.kind.name for k in li.inspect.schedule(y).kernels]
        assert kinds == ["ELEMENTWISE"], li.explain(y)


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrids_are_c_ordered_copies_as_numpys(axis, indexing):
    # numpy's meshgrid copies each broadcast grid (copy=True): C-ordered memory, which has its
    # say in X + Z.T's order (a broadcast would have none)
    rng = np.random.default_rng(11)
    a, b = rng.standard_normal(37).astype(F32), rng.standard_normal(29).astype(F32)
    z = rng.standard_normal((37, 29) if indexing == "xy" else (29, 37)).astype(F32)

    def program(xp, a, b, z):
        grid_x, grid_y = np.meshgrid(a, b, indexing=indexing)
        return xp.sum(grid_x + z.T, axis=axis) + xp.sum(grid_y - z.T, axis=axis)

    _differential(program, a, b, z)


@pytest.mark.parametrize("test", ["isnan", "isinf", "isfinite", "signbit"])
@pytest.mark.parametrize("axis", [0, 1])
def test_a_bool_arrays_tests_keep_its_order_as_numpys(test, axis):
    # numpy answers isnan(b) of a bool b without a number, but writes the answer in b's
    # memory order: computed, it is F-ordered, and with an F-ordered x, so is t + x
    rng = np.random.default_rng(13)
    b = np.asfortranarray(rng.standard_normal((37, 29)) > 0)
    x = np.asfortranarray(rng.standard_normal((37, 29)).astype(F32))

    def program(xp, b, x):
        t = getattr(np, test)(b)
        if xp is li:
            t.compute()  # NOTE: laid out as computed from then on
        return xp.sum(t + x, axis=axis)

    _differential(program, b, x)


@pytest.mark.parametrize("how", ["+=", "masked", "out=", "several"])
def test_a_write_into_a_pending_value_keeps_its_order_as_numpys(how):
    # x = a.T * 2 is F-ordered memory in numpy; x += w writes into it whatever w's order
    # (here w's C order would win a ufunc's rule), and a later sum adds so
    rng = np.random.default_rng(17)
    a = rng.standard_normal((29, 37)).astype(F32)
    w = rng.standard_normal((37, 29)).astype(F32)

    def program(xp, a, w):
        x = a.T * 2
        if how == "+=":
            x += w
        elif how == "masked":
            x[w > 0] = 0.5
        elif how == "out=":
            np.multiply(x, w, out=x)
        else:
            x += w
            x -= w * 3
            x[w < 0] = 1
        return xp.sum(x, axis=0) + xp.sum(x, axis=1)[:, None]

    _differential(program, a, w)
