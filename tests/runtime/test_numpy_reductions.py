"""The host's reductions called as ufunc reduces (numpy_reductions.py) give numpy's functions'
bits: every dtype, shape, axis set and keepdims, and through lazyinfini's reductions too."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

import lazyinfini as li
from lazyinfini._compat import compat
from lazyinfini._graph import Op
from lazyinfini._runtime.numpy_reductions import REDUCTIONS

DTYPES = [np.float32, np.float64, np.complex64, np.complex128, np.int32, np.uint8, np.bool_]
NUMPYS = {
    Op.SUM: np.sum,
    Op.PROD: np.prod,
    Op.MAX: np.max,
    Op.MIN: np.min,
    Op.ANY: np.any,
    Op.ALL: np.all,
    Op.MEAN: np.mean,  # NOTE: its sum and its division, for float32 and float64 (np.mean else)
}


@st.composite
def _cases(draw):
    dtype = draw(st.sampled_from(DTYPES))
    x = draw(arrays(dtype, array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)))
    axes = draw(st.lists(st.integers(0, max(x.ndim - 1, 0)), unique=True, max_size=x.ndim))
    return x, tuple(sorted(axes)) if x.ndim else (), draw(st.booleans())


def _bits(value) -> bytes:
    value = np.asarray(value)
    return value.dtype.str.encode() + str(value.shape).encode() + value.tobytes()


@settings(max_examples=300, deadline=None)
@given(_cases(), st.sampled_from(sorted(NUMPYS, key=lambda op: op.label)))
def test_each_reduction_is_numpys_function_bit_for_bit(case, op):
    x, axes, keepdims = case
    if op in (Op.MAX, Op.MIN) and x.size == 0 and (not axes or 0 in [x.shape[a] for a in axes]):
        return  # NOTE: numpy raises on an empty max; the API raises before anything runs
    kwargs = {"dtype": np.result_type(x.dtype, np.int64)} if op in (Op.SUM, Op.PROD) else {}
    if op is Op.SUM and x.dtype.kind in "fc":
        kwargs = {"dtype": x.dtype}
    if op is Op.MEAN:
        kwargs = {}
        if 0 in [x.shape[a] for a in axes]:
            return  # NOTE: a mean of no elements: numpy's, with its warning
    with np.errstate(all="ignore"):
        expected = NUMPYS[op](x, axis=axes, keepdims=keepdims, **kwargs)
        got = REDUCTIONS[op](compat, x, axis=axes, keepdims=keepdims, **kwargs)
    assert _bits(got) == _bits(expected)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex128])
def test_lazy_means_and_sums_are_numpys(dtype):
    """Means, sums and maxima recorded by lazyinfini (half floats widened and rounded once)
    give numpy's bits over each axis, all axes and with keepdims (but a float16 sum, which
    accumulates in float32 here, the namespace's rule, where numpy's may round to half)."""
    x_np = (np.random.default_rng(1).standard_normal((7, 33)) * 100).astype(dtype)
    x = li.asarray(x_np)
    for axis in (None, 0, 1, (0, 1)):
        for keepdims in (False, True):
            for name in ("mean", "sum", "max"):
                if name == "max" and np.dtype(dtype).kind == "c":
                    continue
                if name == "sum" and dtype == np.float16:
                    continue
                got = getattr(x, name)(axis=axis, keepdims=keepdims)
                want = getattr(x_np, name)(axis=axis, keepdims=keepdims)
                assert _bits(got) == _bits(want), (name, axis, keepdims)


ACCUMULATIONS = {Op.CUMULATIVE_SUM: np.cumsum, Op.CUMULATIVE_PROD: np.cumprod}


@settings(max_examples=200, deadline=None)
@given(_cases(), st.sampled_from([Op.CUMULATIVE_SUM, Op.CUMULATIVE_PROD]), st.booleans())
def test_each_accumulation_is_numpys_function_bit_for_bit(case, op, typed):
    """cumulative_sum and cumulative_prod as one ufunc accumulate give np.cumsum's and
    np.cumprod's bits, with and without a dtype; an initial row is compat's."""
    x, axes, initial = case
    if x.ndim == 0:
        return  # NOTE: the API refuses 0-d input before anything runs
    axis = axes[0] if axes else x.ndim - 1
    dtype = np.result_type(x.dtype, np.int64) if typed else None
    with np.errstate(all="ignore"):
        expected = ACCUMULATIONS[op](x, axis=axis, dtype=dtype)
        got = REDUCTIONS[op](compat, x, axis=axis, dtype=dtype, include_initial=initial)
    if initial:  # NOTE: compat's initial row: zeros for a sum, ones for a product
        shape = tuple(1 if a == axis else n for a, n in enumerate(x.shape))
        first = (np.zeros if op is Op.CUMULATIVE_SUM else np.ones)(shape, expected.dtype)
        expected = np.concatenate([first, expected], axis)
    assert _bits(got) == _bits(expected)
