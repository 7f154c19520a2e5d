"""np.interp of a lazyinfini array: uint8 / uint16 values at the points 0, 1, ..., n - 1 are a
lazy lookup in fp (numpy returns fp[j] at a point of xp, fp[-1] past the last), numpy's bits
for every length and fp dtype; every other call is numpy's own (a fallback, the same numbers)."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini._graph import Op

FP_DTYPES = [np.float64, np.float32, np.float16, ml_dtypes.bfloat16, np.int64, np.uint8, np.bool_]


def _same_bits(got, want) -> None:
    assert got.dtype == want.dtype == np.float64 and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))


@settings(max_examples=60, deadline=None)
@given(
    dtype=st.sampled_from([np.uint8, np.uint16]),
    shape=st.sampled_from([(0,), (1,), (7,), (40, 33), (3, 4, 5)]),
    n=st.integers(1, 300),
    fp_dtype=st.sampled_from(FP_DTYPES),
    seed=st.integers(0, 2**32 - 1),
    specials=st.booleans(),
)
def test_integer_values_at_the_counting_points_are_a_lazy_lookup(
    dtype, shape, n, fp_dtype, seed, specials
):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, min(n + 20, np.iinfo(dtype).max + 1), shape).astype(dtype)
    fp = (rng.standard_normal(n) * 100).astype(fp_dtype)
    if specials and fp_dtype in (np.float64, np.float32, np.float16):
        fp[rng.integers(0, n, 3)] = [np.nan, np.inf, -0.0]
    xp = np.arange(n, dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error", li.NumpyFallbackWarning)
        got = np.interp(li.asarray(x), li.asarray(xp) * 1.0, li.asarray(fp))
    assert isinstance(got, li.Array)
    assert Op.GATHER in {node.op for node in li.graph(got).nodes}
    with np.errstate(all="ignore"):
        want = np.interp(x, xp, fp)
    _same_bits(np.asarray(got), want)


def test_only_the_edges_are_computed_at_the_call():
    """The image stays pending (an implicit materialization of xp's 256 values only)."""
    image = (np.arange(5000) * 7 % 256).astype(np.uint8)
    edges = np.linspace(0, 256, 257)
    cdf = np.cumsum(np.bincount(image, minlength=256)) * 255.0 / image.size
    pending = li.asarray(image) + np.uint8(0)
    before = li.inspect.counters.snapshot()
    got = np.interp(pending, li.asarray(edges)[:-1] * 1.0, li.asarray(cdf))
    after = li.inspect.counters.snapshot()
    assert after["implicit_materializations"] - before["implicit_materializations"] == 1
    assert pending._node.op is not Op.BUFFER  # NOTE: not computed
    _same_bits(np.asarray(got), np.interp(image, edges[:-1], cdf))


@pytest.mark.parametrize(
    "case",
    ["halves", "reversed", "int32 values", "left", "complex", "shorter fp"],
)
def test_other_calls_are_numpys(case):
    x = (np.arange(600) % 260).astype(np.uint16)
    xp, fp = np.arange(256, dtype=np.float64), np.linspace(-3, 5, 256)
    kwargs = {}
    if case == "halves":
        xp = xp + 0.5
    elif case == "reversed":
        xp = xp[::-1].copy()
    elif case == "int32 values":
        x = x.astype(np.int32)
    elif case == "left":
        kwargs["left"] = -7.0
    elif case == "complex":
        fp = fp * (1 + 1j)
    elif case == "shorter fp":
        fp = fp[:-1]
    try:
        want = np.interp(x, xp, fp, **kwargs)
    except ValueError as error:
        with pytest.raises(ValueError, match=str(error)):
            np.interp(li.asarray(x), li.asarray(xp), li.asarray(fp), **kwargs)
        return
    before = li.inspect.counters.numpy_fallbacks
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", li.NumpyFallbackWarning)
        got = np.interp(li.asarray(x), li.asarray(xp), li.asarray(fp), **kwargs)
    assert li.inspect.counters.numpy_fallbacks == before + 1
    np.testing.assert_array_equal(np.asarray(got), want)


def test_strict_mode_falls_back_rather_than_reading_a_pending_xp():
    x = np.arange(300, dtype=np.uint16) % 256
    xp, fp = np.arange(256, dtype=np.float64), np.linspace(0, 1, 256)
    with li.options(strict=True), warnings.catch_warnings():
        warnings.simplefilter("ignore", li.NumpyFallbackWarning)
        got = np.interp(li.asarray(x), li.asarray(xp) * 1.0, li.asarray(fp))
    _same_bits(np.asarray(got), np.interp(x, xp, fp))
