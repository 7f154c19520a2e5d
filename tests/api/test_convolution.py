"""np.convolve and np.correlate on Arrays: recorded as numpy's sum of shifted products (one
elementwise kernel for a long signal, one CORRELATE call for a short one; nothing computed at
the call), equal to numpy's; numpy runs what it sums with BLAS's dot, or with dtypes the sum
would not reproduce."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini import _numpy_functions
from lazyinfini._numpy_twins import convolution
from tests.oracle import assert_within_sum_bound

DTYPES = ["float64", "float32", "float16", "int64", "int8", "uint16"]


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch):
    monkeypatch.setattr(_numpy_functions, "_WARNED", set())


@pytest.fixture(params=["call", "fused"])
def path(request, monkeypatch):
    """Each test on both recordings: a signal of any length as the one call, or as the sum of
    shifted products (the path of 65536 outputs and more)."""
    monkeypatch.setattr(convolution, "FUSED_MIN", 0 if request.param == "fused" else 1 << 60)
    return request.param


def _values(rng, n: int, dtype: str, step: int) -> np.ndarray:
    """n values of `dtype` (signs, zeros and -0.0 among floats), every `step`-th of a longer
    array (a strided view) where step > 1."""
    wide = rng.standard_normal(n * step) * (40 if dtype.startswith("int") else 3)
    wide[rng.random(wide.shape) < 0.1] = -0.0
    return wide.astype(dtype)[::step]


def _compare(got, expected, a, v, func) -> None:
    """Bit for bit where numpy's sum is its own loop in the dtype (integers, float16); floats
    within the sum's error bound (numpy's small_correlate may contract into fma on some CPUs)."""
    got = np.asarray(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if expected.dtype.kind in "iu" or expected.dtype == np.float16:
        np.testing.assert_array_equal(got, expected)
        return
    magnitude = func(np.abs(a.astype(np.float64)), np.abs(v.astype(np.float64)), mode="valid")
    assert_within_sum_bound(got, expected, magnitude, terms=min(len(a), len(v)))


# NOTE: the `path` fixture's setting holds for every example
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    dtype=st.sampled_from(DTYPES),
    length=st.integers(1, 300),
    taps=st.integers(1, 11),
    step=st.sampled_from([1, 2]),
    correlate=st.booleans(),
    lazy_kernel=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_valid_mode_records_numpys_sum(
    dtype, length, taps, step, correlate, lazy_kernel, seed, path
):
    rng = np.random.default_rng(seed)
    a, v = _values(rng, max(length, taps), dtype, step), _values(rng, taps, dtype, 1)
    func = np.correlate if correlate else np.convolve
    expected = func(a, v, mode="valid")
    before = li.inspect.counters.materializations
    with warnings.catch_warnings():
        warnings.simplefilter("error", li.NumpyFallbackWarning)
        got = func(li.asarray(a), li.asarray(v) if lazy_kernel else v, mode="valid")
    assert li.inspect.counters.materializations == before  # NOTE: recorded, nothing computed
    flipped = v[::-1] if not correlate else v
    _compare(got, expected, a, flipped, np.correlate)


@pytest.mark.parametrize("dtype", ["int64", "int8", "uint16", "float16"])
@pytest.mark.parametrize("mode", ["same", "full", "valid"])
@pytest.mark.parametrize("func", [np.convolve, np.correlate])
def test_integer_and_half_modes_equal_numpys(dtype, mode, func, path):
    rng = np.random.default_rng(3)
    for length, taps in [(1, 1), (2, 7), (9, 4), (40, 5), (64, 16)]:
        a, v = _values(rng, length, dtype, 1), _values(rng, taps, dtype, 1)
        if func is np.correlate and taps > length:
            continue  # NOTE: numpy reverses that result: it runs numpy's (below)
        if dtype == "float16" and mode != "valid" and taps > 1:
            continue  # NOTE: padding floats: numpy's (below)
        with warnings.catch_warnings():
            warnings.simplefilter("error", li.NumpyFallbackWarning)
            got = func(li.asarray(a), v, mode=mode)
        np.testing.assert_array_equal(np.asarray(got), func(a, v, mode=mode))


def test_convolve_swaps_a_longer_kernel_as_numpy_does(path):
    a, v = np.arange(3.0), np.linspace(-1, 1, 9)
    with warnings.catch_warnings():
        warnings.simplefilter("error", li.NumpyFallbackWarning)
        got = np.convolve(li.asarray(a), li.asarray(v), mode="valid")
    assert np.asarray(got).shape == (7,)
    _compare(got, np.convolve(a, v, mode="valid"), v, a[::-1], np.correlate)


def test_a_long_moving_average_is_one_elementwise_kernel_a_short_one_one_call():
    for length, kind in [(70_000, "elementwise"), (5000, "opaque correlate")]:
        signal = np.sin(np.linspace(0, 20, length))
        smoothed = np.convolve(li.asarray(signal), np.ones(5) / 5, mode="valid")
        text = li.explain(smoothed)
        assert text.startswith("1 kernel(s)") and f"kernel 0: {kind}" in text
        expected = np.convolve(signal, np.ones(5) / 5, mode="valid")
        _compare(smoothed, expected, signal, np.ones(5) / 5, np.correlate)


@settings(max_examples=60, deadline=None)
@given(
    dtype=st.sampled_from(DTYPES),
    length=st.integers(1, 80),
    taps=st.integers(1, 11),
    mode=st.sampled_from(["valid", "same", "full"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_call_and_the_fused_sum_give_the_same_bits(dtype, length, taps, mode, seed):
    """One formula (_runtime/correlation.py) on both paths: equal bits, floats included."""
    if mode != "valid" and not dtype.startswith("int") and not dtype.startswith("uint"):
        mode = "valid"  # NOTE: padded floats are numpy's (a fallback)
    rng = np.random.default_rng(seed)
    a, v = _values(rng, max(length, taps), dtype, 1), _values(rng, taps, dtype, 1)
    results, default = [], convolution.FUSED_MIN
    for fused_min in (1 << 60, 0):
        convolution.FUSED_MIN = fused_min
        try:
            results.append(np.asarray(np.convolve(li.asarray(a), v, mode=mode)))
        finally:
            convolution.FUSED_MIN = default
    np.testing.assert_array_equal(results[0], results[1])
    assert results[0].dtype == results[1].dtype == np.convolve(a, v, mode=mode).dtype


@pytest.mark.parametrize(
    "call, why",
    [
        (lambda x: np.convolve(x, np.ones(12) / 12, mode="valid"), "kernel of 12 values"),
        (lambda x: np.convolve(x, np.ones(3) / 3, mode="same"), "mode='same'"),
        (lambda x: np.correlate(x, np.ones(3), mode="full"), "mode='full'"),
        (lambda x: np.correlate(x[:2], np.ones(3)), "longer second argument"),
        (lambda x: np.convolve(x * 1j, np.ones(3)), "complex128 values"),
        (lambda x: np.convolve(x > 0, np.ones(3, bool)), "bool values"),
    ],
)
def test_what_numpy_sums_otherwise_runs_numpys(call, why):
    signal = np.cos(np.arange(30.0))
    with pytest.warns(li.NumpyFallbackWarning, match=why):
        got = call(li.asarray(signal))
    np.testing.assert_array_equal(np.asarray(got), call(signal))


def test_a_mode_numpy_does_not_know_is_numpys_error():
    with pytest.warns(li.NumpyFallbackWarning, match="mode='middle'"):
        with pytest.raises(ValueError, match="mode must be one of"):
            np.convolve(li.asarray(np.ones(4)), np.ones(3), mode="middle")


@pytest.mark.parametrize("func", [np.convolve, np.correlate])
def test_an_empty_argument_is_a_value_error_naming_the_function(func):
    with pytest.raises(ValueError, match=f"{func.__name__}: v cannot be empty"):
        func(li.asarray(np.ones(4)), np.ones(0))


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(["bool", "uint8", "int32", "int64", "float32", "float64", "complex128"]),
    st.integers(1, 40),
    st.integers(1, 12),
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(0, 2**32 - 1),
)
def test_the_hosts_sliding_sum_is_the_namespaces(dtype, length, taps, left, right, seed):
    """On ndarrays the sum writes into buffers made once (correlation._numpy_sum): the same
    products and sums in the same order as any namespace's calls, bit for bit."""
    from lazyinfini._compat import compat
    from lazyinfini._runtime import correlation

    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(length + taps) * 50).astype(dtype)
    kernel = (rng.standard_normal(taps) * 3).astype(dtype)
    kernel[0] = -0.0 if x.dtype.kind == "f" else kernel[0]  # NOTE: 0 + -0.0 is +0.0
    with np.errstate(all="ignore"):
        got = correlation.sliding_sum(compat, x, kernel, left=left, right=right)
        expected = correlation.namespace_sum(compat, x, kernel, left=left, right=right)
    assert got.dtype == expected.dtype and got.tobytes() == np.asarray(expected).tobytes()


def test_a_numpy_whose_correlate_fuses_its_products_is_not_called(monkeypatch):
    """The host's short sum calls np.correlate only where numpy's loop rounds each product as
    the compiled kernel does; a numpy whose compiler fused `s += d * k` (an FMA, on ARM) would
    give other bits: the products and sums of the ufuncs then."""
    from lazyinfini._runtime import correlation

    def fused(x, kernel, mode):  # NOTE: each step one rounding, as an FMA's
        n = x.shape[0] - kernel.shape[0] + 1
        total = np.zeros(n, np.longdouble)
        for j, k in enumerate(kernel):
            total = (total + x[j : j + n].astype(np.longdouble) * k).astype(x.dtype)
        return total.astype(x.dtype)

    x, kernel = np.cos(np.arange(40.0)) * 3, np.sin(np.arange(1.0, 6.0))
    assert correlation._small(x, kernel)  # NOTE: this machine's numpy rounds each product
    expected = correlation._ufunc_sum(x, kernel)
    monkeypatch.setattr(correlation.np, "correlate", fused)
    correlation._unfused.cache_clear()
    try:
        assert not correlation._small(x, kernel)
        got = correlation.sliding_sum(None, x, kernel)
    finally:
        correlation._unfused.cache_clear()
    assert got.tobytes() == expected.tobytes()
    assert fused(x, kernel, "valid").tobytes() != expected.tobytes()  # NOTE: the probe can tell
