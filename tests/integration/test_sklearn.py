"""scikit-learn with array_api_dispatch=True on lazyinfini arrays, against array_api_strict.

Estimators and functions whose array API support scikit-learn 1.9 declares: fitted attributes and
outputs stay lazyinfini arrays, with array_api_strict's shapes, dtypes and values.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest
import sklearn
from scipy._lib._array_api import SCIPY_ARRAY_API
from sklearn import metrics
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import pairwise
from sklearn.mixture import GaussianMixture
from sklearn.naive_bayes import GaussianNB
from sklearn.preprocessing import (
    LabelEncoder,
    MaxAbsScaler,
    MinMaxScaler,
    PolynomialFeatures,
    StandardScaler,
    normalize,
)

import lazyinfini as li
from tests.integration.reference import assert_same, run_both

# scikit-learn checks the variable itself (it must be "1") and SciPy's flag from import time.
pytestmark = pytest.mark.skipif(
    not SCIPY_ARRAY_API or os.environ.get("SCIPY_ARRAY_API") != "1",
    reason="SCIPY_ARRAY_API=1 was not set before SciPy was imported",
)

RNG = np.random.default_rng(0)
X = RNG.standard_normal((40, 5))
Y3 = np.digitize(X[:, 0], [-0.5, 0.5]).astype(np.int64)  # three classes
YR = X @ np.arange(1.0, 6.0) + 0.1 * RNG.standard_normal(40)


def dispatched(fn):
    """fn run with array_api_dispatch on."""

    def run(xp, *arrays):
        with sklearn.config_context(array_api_dispatch=True):
            return fn(xp, *arrays)

    return run


def test_linear_discriminant_analysis():
    def fit(xp, x, y):
        lda = LinearDiscriminantAnalysis().fit(x, y)
        return lda.predict(x), lda.predict_proba(x), lda.transform(x), lda.classes_, lda.coef_

    assert_same(*run_both(dispatched(fit), X, Y3))


@pytest.mark.parametrize("solver", ["full", "covariance_eigh"])
def test_pca(solver):
    def fit(xp, x):
        pca = PCA(n_components=3, svd_solver=solver)
        return pca.fit_transform(x), pca.components_, pca.explained_variance_ratio_

    assert_same(*run_both(dispatched(fit), X))


def test_ridge_svd():
    def fit(xp, x, y):
        ridge = Ridge(alpha=1.0, solver="svd").fit(x, y)
        return ridge.predict(x), ridge.coef_, ridge.intercept_

    assert_same(*run_both(dispatched(fit), X, YR))


@pytest.mark.parametrize(
    "model", [GaussianNB, lambda: LogisticRegression(max_iter=200)], ids=["GaussianNB", "lbfgs"]
)
def test_probabilistic_classifiers(model):
    def fit(xp, x, y):
        return model().fit(x, y).predict_proba(x)

    # LogisticRegression's lbfgs stops on a tolerance: summation order moves the last digits.
    assert_same(*run_both(dispatched(fit), X, Y3), rtol=1e-6)


@pytest.mark.parametrize(
    "transform",
    [
        lambda x: StandardScaler().fit_transform(x),
        lambda x: MinMaxScaler().fit_transform(x),
        lambda x: MaxAbsScaler().fit_transform(x),
        lambda x: normalize(x),
        lambda x: PolynomialFeatures(2).fit_transform(x),
    ],
    ids=["StandardScaler", "MinMaxScaler", "MaxAbsScaler", "normalize", "PolynomialFeatures"],
)
def test_preprocessing(transform):
    assert_same(*run_both(dispatched(lambda xp, x: transform(x)), X))


def test_label_encoder():
    def encode(xp, y):
        encoder = LabelEncoder().fit(y)
        return encoder.transform(y), encoder.classes_

    assert_same(*run_both(dispatched(encode), Y3 * 10 + 3))


@pytest.mark.parametrize(
    "metric",
    [
        lambda t, p: metrics.accuracy_score(t, p),
        lambda t, p: metrics.f1_score(t, p, average="macro"),
        lambda t, p: metrics.confusion_matrix(t, p),
    ],
    ids=["accuracy_score", "f1_score", "confusion_matrix"],
)
def test_classification_metrics(metric):
    assert_same(*run_both(dispatched(lambda xp, t, p: metric(t, p)), Y3, np.roll(Y3, 3)))


@pytest.mark.parametrize(
    "metric", [metrics.r2_score, metrics.mean_squared_error, metrics.mean_absolute_error]
)
def test_regression_metrics(metric):
    assert_same(*run_both(dispatched(lambda xp, t, p: metric(t, p)), YR, 0.9 * YR + 0.1))


@pytest.mark.parametrize(
    "kernel",
    [
        pairwise.euclidean_distances,
        pairwise.rbf_kernel,
        pairwise.cosine_similarity,
        pairwise.polynomial_kernel,
        lambda a, b: pairwise.pairwise_distances(a, b, metric="manhattan"),
    ],
    ids=[
        "euclidean_distances",
        "rbf_kernel",
        "cosine_similarity",
        "polynomial_kernel",
        "manhattan",
    ],
)
def test_pairwise(kernel):
    assert_same(*run_both(dispatched(lambda xp, a, b: kernel(a, b)), X, X[:7]))


@pytest.mark.parametrize(
    "model",
    [StandardScaler, MinMaxScaler, lambda: PCA(n_components=2, svd_solver="full")],
    ids=["StandardScaler", "MinMaxScaler", "PCA"],
)
def test_transform_of_a_pending_array_is_recorded_not_run(model):
    # With assume_finite, scikit-learn does not read values to validate, so transforming a pending
    # array only records: no kernel runs, and strict mode (no implicit scalar reads) is fine.
    with sklearn.config_context(array_api_dispatch=True, assume_finite=True):
        fitted = model().fit(li.asarray(X))
        pending = li.asarray(X[:4]) * 2.0
        before = li.inspect.counters.snapshot()
        with li.options(strict=True):
            out = fitted.transform(pending)
        assert li.inspect.counters.snapshot() == before
        expected = model().fit(X).transform(X[:4] * 2.0)
    assert out._node.op.label != "buffer"
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-9, atol=1e-12)


def test_gaussian_mixture():
    # scikit-learn's _add_to_diagonal adds reg_covar through a view, `covariances[k, :, :]`: the
    # write reaches `covariances` as in numpy (_api/views.py).
    def fit(xp, x):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning after one iteration
            model = GaussianMixture(2, init_params="random", max_iter=1, random_state=0).fit(x)
        return model.covariances_, model.predict_proba(x)

    assert_same(*run_both(dispatched(fit), X))


@pytest.mark.parametrize("drop_intermediate", [True, False])
def test_roc_curve(drop_intermediate):
    # roc_curve(drop_intermediate=True) calls numpy's forms the standard narrowed: xp.diff(fps,
    # 2), xp.logical_or of floats, xp.where(condition) (array_api_strict refuses all three, so
    # numpy's scikit-learn is the reference here).
    truth = (X[:, 0] > 0).astype(np.int64)
    score = np.round(X[:, 1] + X[:, 0], 1)  # ties: thresholds with several points
    with sklearn.config_context(array_api_dispatch=True):
        got = metrics.roc_curve(
            li.asarray(truth), li.asarray(score), drop_intermediate=drop_intermediate
        )
        auc = metrics.roc_auc_score(li.asarray(truth), li.asarray(score))
    expected = metrics.roc_curve(truth, score, drop_intermediate=drop_intermediate)
    for lazy, reference in zip(got, expected, strict=True):
        assert isinstance(lazy, li.Array)
        np.testing.assert_array_equal(np.asarray(lazy), reference)
    assert auc == metrics.roc_auc_score(truth, score)
