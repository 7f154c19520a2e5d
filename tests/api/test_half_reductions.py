"""float16 sums, products, variances and deviations give numpy's bits in every layout: numpy
reduces a float16 row in float32 (pairwise) but adds row to row along an axis its iterator does
not make the inner loop, rounding to float16 at each step; its var and std compute each step of
its _var in float16. The cpu device runs numpy's own float16 reduce (the orders pass gives the
value numpy's memory order), fused or not, and the reference device too."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import lazyinfini as li

F16 = np.float16
RNG = np.random.default_rng(0)
SHAPES = [(2000, 30), (30, 2000), (7, 9000), (20, 30, 40)]
LAYOUTS = {
    "C": lambda a: a,
    "F": np.asfortranarray,
    "T": lambda a: a.T,
    "reversed": lambda a: a[::-1],
}
DEVICES = [("cpu", True), ("cpu", False), ("reference", True)]


def _same(call, a) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NOTE: float16 sums overflow
        want = np.ascontiguousarray(call(np, a))
        for device, fuse in DEVICES:
            with li.options(device=device, fuse=fuse):
                got = np.asarray(call(li, li.asarray(a)))
            assert got.dtype == want.dtype, (device, fuse)
            assert got.tobytes() == want.tobytes(), (device, fuse, np.mean(got != want))


AXES = [0, 1, -1, None]


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_float16_sums_and_products_are_numpys(shape, layout, axis):
    # NOTE: summed in float32 and rounded once, 94% of the sums of a (2000, 300) array over
    # axis 0 differed from numpy's (numpy's further from the exact sum, by up to 12.8)
    a = LAYOUTS[layout](RNG.random(shape).astype(F16))
    _same(lambda xp, x: np.sum(x, axis=axis), a)
    _same(lambda xp, x: np.prod(x + F16(0.5), axis=axis), a)
    _same(lambda xp, x: np.sum(x * F16(0.5), axis=axis, keepdims=True), a)
    _same(lambda xp, x: xp.sum(x, axis=axis), a)


@pytest.mark.parametrize("shape", [(10, 3, 11), (40, 40), (7, 9, 5, 3)])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_float16_trace_is_numpys(shape, layout):
    # NOTE: numpy's trace is a float16 sum of the diagonal's view, row to row: summed in
    # float32 and rounded once, 2 of 11 traces of a (10, 3, 11) array differed
    a = LAYOUTS[layout]((RNG.standard_normal(shape) * 3).astype(F16))
    for axes in [(0, 1), (1, -1), (-1, 0)][: 1 if len(shape) == 2 else 3]:
        for offset in (0, 1, -2):
            _same(lambda xp, x, o=offset, ax=axes: np.trace(x, o, *ax), a)
    _same(lambda xp, x: xp.linalg.trace(x * F16(2), offset=1), a)


@pytest.mark.parametrize("ddof", [0, 1])
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("shape", SHAPES[::2])
@pytest.mark.parametrize("layout", ["C", "T"])
def test_float16_var_and_std_are_numpys(shape, layout, axis, ddof):
    a = LAYOUTS[layout]((RNG.random(shape) * 4).astype(F16))
    _same(lambda xp, x: np.var(x, axis=axis, ddof=ddof), a)
    _same(lambda xp, x: np.std(x, axis=axis, ddof=ddof), a)
    _same(lambda xp, x: xp.var(x * F16(2), axis=axis, correction=ddof), a)
    _same(lambda xp, x: xp.std(x - F16(1), axis=axis, correction=ddof), a)


@pytest.mark.parametrize("axis", AXES)
def test_a_wide_var_in_float32_sums_the_squares_in_numpys_buffers(axis):
    # NOTE: numpy's var(x64, dtype=float32) casts the float64 squares inside its reduction, whose
    # buffers of 8192 are summed one after another: squares cast first and summed pairwise
    # whole were an ulp off over 24,000 values
    a = RNG.random((20, 30, 40)) * 4
    _same(lambda xp, x: np.var(x, axis=axis, dtype=np.float32), a)
    _same(lambda xp, x: np.std(x, axis=axis, dtype=np.float32, ddof=1), a)


def test_bfloat16_sums_still_accumulate_in_float32():
    # NOTE: ml_dtypes' bfloat16 reduce rounds at every step, even along a row: the sum of 4096
    # ones stops at 256 there (docs/numpy.md)
    ones = np.ones(4096, dtype=li.bfloat16)
    assert float(np.asarray(li.sum(li.asarray(ones)))) == 4096.0
