"""Numpy scripts, unchanged, on lazyinfini arrays (issue 11): examples/numpy_scripts.

Each test runs a script on ndarrays (the oracle) and on `li.asarray` of the same data, then
checks that every result numpy gives as an array (or a numpy scalar) is an Array with numpy's
dtype, shape and values (float32/float64 within a few ulps, ints and bools exactly), that the
script did not write into the memory its inputs share with numpy, and the exact work it did:

- `recording`: materializations, implicit materializations and numpy fallbacks while the
  script ran (a boolean mask, `bool()` in an `if`, bincount's length read values at once;
  a fallback computes its pending inputs, which `li.asarray` inputs are not);
- `at_end`: materializations of computing the results (`li.compute` of all of them, one
  schedule, like one `np.asarray` of a single result).
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import pytest

import lazyinfini as li
from examples import numpy_scripts as scripts
from lazyinfini import _numpy_functions


class Counts(NamedTuple):
    materializations: int
    implicit: int
    fallbacks: int


LAZY = Counts(0, 0, 0)  # nothing computed while recording
COUNTERS = ("materializations", "implicit_materializations", "numpy_fallbacks")


def _delta(before: dict) -> Counts:
    after = li.inspect.counters.snapshot()
    return Counts(*(after[name] - before[name] for name in COUNTERS))


def _lazy(value):
    """The same data as lazyinfini arrays (li.asarray shares the ndarray's memory)."""
    if isinstance(value, np.ndarray):
        return li.asarray(value)
    if isinstance(value, dict):
        return {key: _lazy(v) for key, v in value.items()}
    return value


def _flat(results) -> list:
    return list(results) if isinstance(results, tuple) else [results]


def assert_like_numpy(got, expected) -> None:
    if isinstance(expected, (np.ndarray, np.generic)):
        assert isinstance(got, li.Array), type(got)
        value, expected = np.asarray(got), np.asarray(expected)
        assert value.dtype == expected.dtype, (value.dtype, expected.dtype)
        assert value.shape == expected.shape, (value.shape, expected.shape)
        if expected.dtype.kind == "f":
            tol = 1e-12 if expected.dtype.itemsize == 8 else 2e-6
            np.testing.assert_allclose(value, expected, rtol=tol, atol=tol)
        else:
            np.testing.assert_array_equal(value, expected)
    else:  # a Python value (a step count)
        assert type(got) is type(expected) and got == expected, (got, expected)


def check_script(script, *args, recording: Counts, at_end: int = 1, lazy_args=None, **kwargs):
    """Runs `script` on ndarrays and on Arrays; asserts the counts, types and values. Returns
    the Array results. `lazy_args` replaces the default li.asarray of every ndarray argument
    (a dict of numpy weights may stay numpy)."""
    inputs = [a for a in args if isinstance(a, np.ndarray)]
    originals = [a.copy() for a in inputs]
    expected = _flat(script(*args, **kwargs))
    lazy_inputs = [_lazy(a) for a in args] if lazy_args is None else lazy_args
    before = li.inspect.counters.snapshot()
    got = _flat(script(*lazy_inputs, **kwargs))
    assert _delta(before) == recording
    li.compute(*(g for g in got if isinstance(g, li.Array)))
    assert _delta(before).materializations == recording.materializations + at_end
    assert _delta(before).implicit == recording.implicit  # nothing more read at the end
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert_like_numpy(g, e)
    for original, now in zip(originals, inputs):  # writes rebind Arrays, not the shared memory
        np.testing.assert_array_equal(original, now)
    return got


@pytest.fixture
def no_fallback():
    """A fallback warning is an error (it warns once per function: the counters say the rest)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", li.NumpyFallbackWarning)
        yield


@pytest.fixture
def fresh_warnings(monkeypatch):
    """Each test sees every function's first fallback (the module warns once per process)."""
    monkeypatch.setattr(_numpy_functions, "_WARNED", set())


def blobs(rng, centers, size, scale=0.5):
    return np.concatenate([c + scale * rng.standard_normal((size, len(c))) for c in centers])


CENTERS = np.array([[0.0, 0.0], [3.0, 3.0], [0.0, 4.0]])


# -- the scripts --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normalize_images(dtype, no_fallback):
    images = (np.random.default_rng(0).standard_normal((4, 3, 8, 8)) * 2 + 1).astype(dtype)
    # 0 while recording: mean/std with a tuple axis, clip and the write through the channel
    # view all record; 1 at the end
    check_script(scripts.normalize_images, images, recording=LAZY)


def test_kmeans_with_boolean_masks(no_fallback):
    rng = np.random.default_rng(1)
    points = blobs(rng, CENTERS, 20)
    # argmin is lazy, but `points[labels == k]` has a data-dependent shape: each of the
    # 3 iterations x 3 clusters computes its mask (9 implicit; len(members) is then known);
    # the final labels and inertia: 1 at the end
    check_script(
        scripts.kmeans, points, points[[0, 20, 40]] + 0.3, recording=Counts(9, 9, 0), at_end=1
    )


def test_kmeans_onehot(no_fallback):
    rng = np.random.default_rng(2)
    points = blobs(rng, CENTERS, 20)
    # argmin, the one-hot comparison, its sum and the bool @ float matmul are lazy: 0 while
    # recording, 1 at the end
    check_script(scripts.kmeans_onehot, points, points[[0, 20, 40]] + 0.3, recording=LAZY)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_cross_entropy(dtype, no_fallback):
    rng = np.random.default_rng(3)
    logits = (rng.standard_normal((8, 5)) * 3).astype(dtype)
    labels = rng.integers(0, 5, 8)
    # 0 while recording: take_along_axis and the fancy-index update `grad[np.arange(n),
    # labels] -= 1` record (labels is an Array, np.arange an ndarray); 1 at the end
    loss, grad, accuracy = check_script(
        scripts.softmax_cross_entropy, logits, labels, recording=LAZY
    )
    assert loss.shape == accuracy.shape == ()  # numpy's scalars are 0-d Arrays


@pytest.mark.parametrize("weights", ["numpy", "lazyinfini"])
def test_mlp_forward(weights, no_fallback):
    rng = np.random.default_rng(4)
    sizes = [(6, 16), (16, 8), (8, 4)]
    params = {}
    for i, (d_in, d_out) in enumerate(sizes, 1):
        params[f"w{i}"] = (rng.standard_normal((d_in, d_out)) / np.sqrt(d_in)).astype(np.float32)
        params[f"b{i}"] = rng.standard_normal(d_out).astype(np.float32) * 0.1
    x = rng.standard_normal((10, 6)).astype(np.float32)
    lazy_params = params if weights == "numpy" else _lazy(params)
    # 0 while recording (ndarray weights mix in lazily: `x @ w1`, np.dot, .dot); 1 at the end
    check_script(
        scripts.mlp_forward, x, params, lazy_args=[li.asarray(x), lazy_params], recording=LAZY
    )


def test_rolling_zscore(no_fallback):
    series = np.random.default_rng(5).standard_normal((40, 3)).cumsum(axis=0)
    # 0 while recording: cumsum, concatenate with an ndarray of zeros, shifted slices, sqrt;
    # 1 at the end
    check_script(scripts.rolling_zscore, series, 5, recording=LAZY)


def test_nearest_neighbours(no_fallback):
    rng = np.random.default_rng(6)
    references, queries = rng.standard_normal((30, 2)), rng.standard_normal((6, 2))
    labels = rng.integers(0, 3, 30)
    # 0 while recording: the (6, 30) distances, argsort, take_along_axis, the gather
    # `reference_labels[order]` and the vote all record; 1 at the end
    check_script(scripts.nearest_neighbours, queries, references, labels, recording=LAZY)


def test_histogram_equalization(no_fallback):
    rng = np.random.default_rng(7)
    image = np.clip(rng.normal(100, 20, (16, 16)), 0, 255).astype(np.uint8)
    # 1 implicit while recording: `cdf[cdf > 0]` computes the mask (np.bincount's length is
    # its minlength, 256, which every uint8 value is below); the lookup `lut[image]` is lazy;
    # 1 at the end
    check_script(scripts.equalize_histogram, image, recording=Counts(1, 1, 0))


def test_histogram_equalization_interp(no_fallback):
    rng = np.random.default_rng(8)
    image = np.clip(rng.normal(100, 20, (16, 16)), 0, 255).astype(np.uint8)
    # np.histogram and the cdf record; np.interp of the bytes at the edges 0, 1, ..., 255 is a
    # lazy lookup in the cdf once those 256 edges are known: they are a computed buffer's
    # slice, read as numpy's view (nothing computes while recording); 1 at the end
    check_script(scripts.equalize_histogram_interp, image, recording=LAZY)


def test_in_place_updates(no_fallback):
    data = np.random.default_rng(9).standard_normal((12, 4))
    # Nothing computes while recording: `cleaned[np.abs(cleaned) > outlier] = 0.0` is a select
    # (where), the einsum diagonal view, `row *= 2`, `cleaned.T[0] += 1` and the reversed-row
    # assignment record; 1 at the end
    cov, cleaned, means = check_script(scripts.in_place_updates, data, recording=Counts(0, 0, 0))
    assert np.asarray(cov)[0, 0] != np.cov(data.T)[0, 0]  # the ridge reached cov itself


def test_shrunk_covariance(no_fallback):
    data = np.random.default_rng(10).standard_normal((12, 4))
    # trace and scikit-learn's strided write through .flat record: 0 while recording, 1 at
    # the end
    check_script(scripts.shrunk_covariance, data, recording=LAZY)


def test_pca(no_fallback):
    data = np.random.default_rng(11).standard_normal((12, 4)) * [3.0, 2.0, 1.0, 0.5]
    # svd, argmax, the sign gather (a range index) and the in-place sign flips record: 0
    # while recording, 1 at the end
    check_script(scripts.pca, data, recording=LAZY)


def test_linear_regression_runs_every_step(no_fallback):
    rng = np.random.default_rng(12)
    features = rng.standard_normal((50, 3))
    targets = features @ np.array([1.0, -2.0, 0.5]) + 0.3
    # the convergence test `if np.abs(grad_w).max() < tol` reads one value per step: never
    # converged, 20 steps, 20 implicit; weights, bias and mse: 1 at the end
    *_, steps = check_script(
        scripts.fit_linear_regression, features, targets, recording=Counts(20, 20, 0)
    )
    assert steps == 20


def test_linear_regression_stops_early(no_fallback):
    rng = np.random.default_rng(12)
    features = rng.standard_normal((50, 3))
    targets = features @ np.array([1.0, -2.0, 0.5]) + 0.3
    # converges at step 21 (numpy's too): 21 implicit, then 1 at the end
    *_, steps = check_script(
        scripts.fit_linear_regression,
        features,
        targets,
        learning_rate=0.5,
        steps=200,
        tol=1e-3,
        recording=Counts(21, 21, 0),
    )
    assert steps == 21


def test_moving_average(no_fallback):
    signal = np.sin(np.linspace(0, 6, 30)) + np.random.default_rng(13).normal(0, 0.1, 30)
    # np.convolve records (a sum of shifted products, numpy's order), so does the residual
    check_script(scripts.moving_average, signal, recording=LAZY)


# -- strict mode: the lazy scripts never read a pending value -----------------------------------
def test_lazy_scripts_run_in_strict_mode():
    rng = np.random.default_rng(14)
    calls = [
        (scripts.normalize_images, rng.standard_normal((2, 3, 4, 4))),
        (scripts.softmax_cross_entropy, rng.standard_normal((4, 3)), rng.integers(0, 3, 4)),
        (scripts.rolling_zscore, rng.standard_normal((10, 2)), 3),
        (scripts.nearest_neighbours, rng.standard_normal((3, 2)), rng.standard_normal((9, 2)),
         rng.integers(0, 3, 9)),
    ]  # fmt: skip
    with li.options(strict=True):
        for script, *args in calls:
            results = _flat(script(*(_lazy(a) for a in args)))
            li.compute(*results)


def test_scripts_reading_values_refuse_in_strict_mode():
    points = blobs(np.random.default_rng(15), CENTERS, 5)
    with li.options(strict=True), pytest.raises(ValueError, match="strict mode"):
        scripts.kmeans(li.asarray(points), li.asarray(points[[0, 5, 10]]))
    with li.options(strict=True), pytest.raises(ValueError, match="strict mode"):
        scripts.equalize_histogram(li.asarray(np.arange(64, dtype=np.uint8).reshape(8, 8)))
    with li.options(strict=True):  # NOTE: its masked fill is a select: it reads no value
        li.compute(*scripts.in_place_updates(li.asarray(points)))
