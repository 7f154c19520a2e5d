"""SciPy (SCIPY_ARRAY_API=1) on lazyinfini arrays, against array_api_strict.

scipy.special, scipy.stats, scipy.fft, scipy.signal, scipy.cluster.vq and scipy.integrate
functions with array API support in SciPy 1.17: results are lazyinfini arrays with
array_api_strict's shapes, dtypes and values.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.cluster.vq
import scipy.fft
import scipy.integrate
import scipy.signal
import scipy.special
import scipy.stats
from scipy._lib._array_api import SCIPY_ARRAY_API

import lazyinfini as li
from tests.integration.reference import assert_same, run_both

pytestmark = pytest.mark.skipif(
    not SCIPY_ARRAY_API, reason="SCIPY_ARRAY_API=1 was not set before SciPy was imported"
)

RNG = np.random.default_rng(1)
X = RNG.standard_normal((6, 5))
P = RNG.uniform(0.05, 1.0, (4, 5))  # positive, for entropies and logarithms
SIGNAL = RNG.standard_normal(20)


@pytest.mark.parametrize(
    "fn",
    [
        lambda xp, x, p: scipy.special.logsumexp(x, axis=1),
        lambda xp, x, p: scipy.special.logsumexp(x[:4, :], b=p, axis=0),
        lambda xp, x, p: scipy.special.softmax(x, axis=0),
        lambda xp, x, p: scipy.special.log_softmax(x, axis=1),
        lambda xp, x, p: scipy.special.entr(p),
        lambda xp, x, p: scipy.special.rel_entr(p, p[::-1, :]),
        lambda xp, x, p: scipy.special.xlogy(p, p + 1.0),
        lambda xp, x, p: scipy.special.erf(x),
        lambda xp, x, p: scipy.special.expit(x),
    ],
    ids=["logsumexp", "logsumexp_b", "softmax", "log_softmax", "entr", "rel_entr", "xlogy"]
    + ["erf", "expit"],
)
def test_special(fn):
    assert_same(*run_both(fn, X, P))


@pytest.mark.parametrize(
    "ufunc",
    [scipy.special.log1p, scipy.special.expm1, scipy.special.round, scipy.special.erfcinv]
    + [scipy.special.log_expit],
    ids=lambda ufunc: ufunc.__name__,
)
def test_special_plain_ufuncs(ufunc):
    # Not array-API aware in SciPy: numpy runs them on the values (array_api_strict's give numpy
    # arrays); lazyinfini computes its inputs in Array.__array_ufunc__ and gives an Array back.
    assert_same(*run_both(lambda xp, p: ufunc(p), P))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: scipy.stats.moment(x, order=3, axis=0),
        lambda x: scipy.stats.skew(x, axis=0),
        lambda x: scipy.stats.kurtosis(x, axis=1),
        lambda x: scipy.stats.zscore(x, axis=0),
        lambda x: scipy.stats.variation(x, axis=0),
        lambda x: scipy.stats.sem(x, axis=1),
        lambda x: scipy.stats.entropy(x * x, axis=1),
    ],
    ids=["moment", "skew", "kurtosis", "zscore", "variation", "sem", "entropy"],
)
def test_stats_summaries(fn):
    assert_same(*run_both(lambda xp, x: fn(x), X))


def test_stats_tests():
    # pearsonr ends with array_api_extra.apply_where on 0-d arrays, which sets r[False] = ...:
    # the regression of tests/api/test_indexing.py's false-flag __setitem__.
    def tests(xp, a, b):
        pearson = scipy.stats.pearsonr(a, b)
        ttest = scipy.stats.ttest_ind(a, b)
        return pearson.statistic, pearson.pvalue, ttest.statistic, ttest.pvalue

    assert_same(*run_both(tests, X[0], X[1]))


@pytest.mark.parametrize(
    "fn",
    [
        lambda xp, x: scipy.fft.fft(x),
        lambda xp, x: scipy.fft.rfft(x, axis=0),
        lambda xp, x: scipy.fft.irfftn(x),
        lambda xp, x: scipy.fft.dct(x),
        lambda xp, x: scipy.fft.fftshift(x),
        lambda xp, x: scipy.fft.fftfreq(8, d=0.5, xp=xp),
    ],
    ids=["fft", "rfft", "irfftn", "dct", "fftshift", "fftfreq"],
)
def test_fft(fn):
    assert_same(*run_both(fn, X))


@pytest.mark.parametrize(
    "fn",
    [
        lambda xp, s: scipy.signal.convolve(s, s[:5]),
        lambda xp, s: scipy.signal.fftconvolve(s, s[:5], mode="same"),
        lambda xp, s: scipy.signal.correlate(s, s[:5], mode="valid"),
        lambda xp, s: scipy.signal.detrend(s),
        lambda xp, s: scipy.signal.get_window("hann", 8, xp=xp),
    ],
    ids=["convolve", "fftconvolve", "correlate", "detrend", "get_window"],
)
def test_signal(fn):
    assert_same(*run_both(fn, SIGNAL))


@pytest.mark.xfail(
    strict=True,
    raises=ValueError,
    reason="scipy.signal.sosfilt passes `sos` to a Cython routine that wants a writable buffer "
    "(it fails the same way on a read-only numpy array); lazyinfini exports read-only buffers, "
    "as JAX does (README: exported buffers are read-only views)",
)
def test_sosfilt():
    sos = np.array([[0.2, 0.4, 0.2, 1.0, -0.3, 0.2]])
    assert_same(*run_both(lambda xp, s, x: scipy.signal.sosfilt(s, x), sos, SIGNAL))


def test_cluster_vq_and_integrate():
    def run(xp, x):
        codes, distances = scipy.cluster.vq.vq(x, x[:2, :])
        whitened = scipy.cluster.vq.whiten(x)
        area = scipy.integrate.trapezoid(x, axis=0)
        running = scipy.integrate.cumulative_trapezoid(x, axis=1)
        return codes, distances, whitened, area, running

    assert_same(*run_both(run, X))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: scipy.special.softmax(x, axis=1),
        lambda x: scipy.fft.rfft(x, axis=0),
        lambda x: scipy.signal.fftconvolve(x, x[:2, :]),
    ],
    ids=["softmax", "rfft", "fftconvolve"],
)
def test_array_api_only_paths_are_recorded_not_run(fn):
    # These run only namespace calls, no value reads: a pending input gives a pending result
    # (no kernel runs, strict mode is fine) until numpy asks for it.
    pending = li.asarray(X) + 1.0
    before = li.inspect.counters.snapshot()
    with li.options(strict=True):
        out = fn(pending)
    assert li.inspect.counters.snapshot() == before
    np.testing.assert_allclose(np.asarray(out), fn(X + 1.0), rtol=1e-12, atol=1e-12)
