"""np.histogram of equal bins over a given range is numpy's counting (each value's bin from its
offset, corrected at the edges, then bincount), recorded: no sort of the data. numpy's own
histogram is the oracle, with values drawn on and one ulp around the edges."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazyinfini as li

DTYPES = ["uint8", "int16", "int32", "uint32", "float32", "float64"]


def _kernels(y) -> list[str]:
    return [repr(k) for k in li.inspect.schedule(y).kernels]


def _check(x: np.ndarray, bins: int, range_: tuple) -> None:
    counts, edges = np.histogram(li.asarray(x), bins, range_)
    assert not any("sort" in k for k in _kernels(counts)), _kernels(counts)
    want_counts, want_edges = np.histogram(x, bins, range_)
    got = np.asarray(counts)
    assert got.dtype == want_counts.dtype
    np.testing.assert_array_equal(got, want_counts)
    np.testing.assert_array_equal(np.asarray(edges), want_edges)


@st.composite
def _values(draw, dtype: np.dtype, edges: np.ndarray) -> np.ndarray:
    """Values of `dtype`: on the edges, an ulp either side, anywhere, and outside the range."""
    n = draw(st.integers(1, 60))
    picks = []
    for _ in range(n):
        edge = edges[draw(st.integers(0, len(edges) - 1))]
        if dtype.kind == "f":
            near = edge.astype(dtype)
            step = draw(st.sampled_from([-1, 0, 1]))
            direction = np.inf if step > 0 else -np.inf
            value = near if step == 0 else np.nextafter(near, dtype.type(direction))
            picks.append(value)
        else:
            info = np.iinfo(dtype)
            picks.append(np.clip(np.floor(edge) + draw(st.integers(-2, 2)), info.min, info.max))
    return np.array(picks).astype(dtype)


@settings(max_examples=60, deadline=None)
@given(st.data(), st.sampled_from(DTYPES), st.integers(1, 40))
def test_counts_match_numpy_on_and_around_the_edges(data, dtype, bins):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        low = data.draw(st.floats(-10, 10, allow_nan=False), "low")
        high = low + data.draw(st.floats(0, 10, allow_nan=False), "width")
    else:
        low = data.draw(st.integers(0 if dtype.kind == "u" else -100, 100), "low")
        high = low + data.draw(st.integers(0, 300), "width")
    try:
        edges = np.histogram_bin_edges(np.zeros(1, dtype), bins, (low, high))
    except ValueError as error:  # too many bins for a tiny float32 range: the same error
        with pytest.raises(ValueError, match="Too many bins"):
            np.histogram(li.asarray(np.zeros(1, dtype)), bins, (low, high))
        assert "Too many bins" in str(error)
        return
    _check(data.draw(_values(dtype, edges), "values"), bins, (low, high))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_and_infinities_fall_in_no_bin(dtype):
    x = np.array([np.nan, -np.inf, np.inf, 0.0, 0.5, 1.0, -0.0, 1.0000001], dtype)
    _check(x, 4, (0, 1))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_an_image_in_a_bin_per_value_is_its_bincount(dtype):
    """np.histogram(image, 256, (0, 256)) (the OpenCV tutorial's): every value v in bin v,
    so numpy's counts are the image's bincount, one kernel reading it."""
    top = np.iinfo(dtype).max + 1
    image = np.random.default_rng(0).integers(0, top, (64, 48), dtype=dtype)
    image[0, :2] = (0, top - 1)
    _check(image.ravel(), top, (0, top))
    counts, _ = np.histogram(li.asarray(image).ravel(), top, (0, top))
    kernels = _kernels(counts)
    assert len(kernels) == 1 and "bincount" in kernels[0], kernels


def test_other_images_in_256_bins_are_one_counting_pass():
    image = np.random.default_rng(0).integers(0, 256, (64, 48), dtype=np.uint8)
    for range_ in ((0, 255), (0.5, 256.5), (0, 256.0)):
        _check(image.ravel(), 256, range_)
    counts, _ = np.histogram(li.asarray(image).ravel(), 256, (0, 255))
    kernels = _kernels(counts)
    assert any("bincount" in k for k in kernels)
    assert not any("take" in k for k in kernels), kernels  # the edges by linspace's formula
    assert len(kernels) == 3, kernels  # the bins in one pass, the counts, the slice


def test_int64_values_and_numpy_scalars_bounds_keep_the_sort():
    """int64 values past 2**53 are compared with the edges exactly by numpy, and a range of
    numpy scalars sets numpy's arithmetic dtype: both keep the sort and searchsorted."""
    x = np.array([2**60, 2**60 + 1, 3, -(2**55)], np.int64)
    counts, _ = np.histogram(li.asarray(x), 3, (-(2**56), 2**61))
    assert any("sort" in k for k in _kernels(counts))
    np.testing.assert_array_equal(np.asarray(counts), np.histogram(x, 3, (-(2**56), 2**61))[0])
    y = np.linspace(0, 1, 50, dtype=np.float32)
    counts, _ = np.histogram(li.asarray(y), 5, (np.float32(0.1), np.float32(0.9)))
    assert any("sort" in k for k in _kernels(counts))
    want = np.histogram(y, 5, (np.float32(0.1), np.float32(0.9)))[0]
    np.testing.assert_array_equal(np.asarray(counts), want)


@pytest.mark.filterwarnings("ignore:numpy.histogram")
@pytest.mark.parametrize("range_", [None, (-1.0, 2.0)])
def test_bfloat16_histograms_are_numpys(range_):
    # numpy's linspace computes bfloat16 edges in bfloat16 (ml_dtypes' arithmetic), where the
    # recorded formula computes in float64: numpy runs it (6 of 10 edges differed)
    x = np.random.default_rng(4).standard_normal(320).astype(li.bfloat16)
    counts, edges = np.histogram(li.asarray(x), 10, range_)
    want_counts, want_edges = np.histogram(x, 10, range_)
    np.testing.assert_array_equal(np.asarray(counts), want_counts)
    assert np.asarray(edges).dtype == want_edges.dtype
    np.testing.assert_array_equal(np.asarray(edges).astype(float), want_edges.astype(float))


@pytest.mark.parametrize("device", ["cpu", "reference"])
@pytest.mark.parametrize(
    "values",
    [
        np.array([1.0, np.nan, 2.0]),
        np.array([-np.inf, 0.5], np.float32),
        np.array([1000.0, 1000.5, 1001.0], np.float16),  # NOTE: edges a float16 apart
    ],
)
def test_data_numpy_refuses_raises_numpys_error_when_computed(values, device):
    # NOTE: with no range numpy checks the data at the call; a lazy histogram gave NaN edges
    # and zero counts (or repeated edges) where numpy raises
    with pytest.raises(ValueError) as numpys:
        np.histogram(values, bins=5)
    with li.options(device=device):
        counts, edges = np.histogram(li.asarray(values), bins=5)
        for result in (counts, edges):
            with pytest.raises(ValueError, match="^" + re.escape(str(numpys.value))):
                np.asarray(result)
        finite = np.nan_to_num(values, posinf=3, neginf=-3) + np.arange(len(values))
        counts, edges = np.histogram(li.asarray(finite), bins=5)
        np.testing.assert_array_equal(np.asarray(counts), np.histogram(finite, bins=5)[0])
        np.testing.assert_array_equal(np.asarray(edges), np.histogram(finite, bins=5)[1])
