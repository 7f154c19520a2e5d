"""numpy's functions on lazyinfini arrays (NEP 18): the same numpy call on ndarrays is the
oracle (values, dtype, shape); on Arrays it records lazily and returns Arrays, or, with no lazy
form, computes, runs numpy's, warns once per function and counts."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazyinfini as li
from lazyinfini import _numpy_functions
from lazyinfini._graph import Op, arg_key
from tests.layouts import layouts
from tests.oracle import assert_within_normwise_bound, assert_within_sum_bound

RNG = np.random.default_rng(7)
A = RNG.standard_normal((3, 4)).astype(np.float32)  # float32 matrix
B = RNG.standard_normal((4, 5)).astype(np.float32)
I = RNG.integers(-5, 6, (3, 4)).astype(np.int32)  # noqa: E741
M = RNG.standard_normal((2, 3, 4))  # float64, 3-d
V = RNG.standard_normal(5)  # float64 vector
W = RNG.standard_normal(3)
BO = A > 0.2
C = (RNG.standard_normal(4) + 1j * RNG.standard_normal(4)).astype(np.complex128)
SPD = (lambda q: q @ q.T + 4 * np.eye(4))(RNG.standard_normal((4, 4)))
COUNTS = RNG.integers(0, 7, 20)
SPECIAL = np.array([0.5, np.nan, np.inf, -np.inf, -2.0], dtype=np.float32)
SORTED = np.sort(V)
TENTHS = np.array([0.1, 0.2, 0.3], np.float32)  # float32(0.1) > 0.1: where float64 compares differ
TIES = np.random.default_rng(8).integers(0, 4, 2000)
# NaNs in places, a row of them, signed zeros: numpy's nan-functions replace them, then reduce
HOLES = np.where(RNG.random((4, 300)) < 0.2, np.nan, RNG.standard_normal((4, 300))).astype(
    np.float32
)
HOLES[2] = np.nan
HOLES[3, :5] = [0.0, -0.0, 0.0, np.nan, -0.0]  # numpy's quicksort orders ties its own way


def pending(a: np.ndarray) -> li.Array:
    """a as an Array that still has to be computed: anything the call computes shows."""
    x = li.asarray(a)
    return li.where(li.full(a.shape, True), x, x)


def run_lazily(fn, *arrays):
    """fn on pending Arrays; asserts that recording computed nothing."""
    inputs = [pending(a) for a in arrays]
    before = li.inspect.counters.snapshot()
    with warnings.catch_warnings():
        warnings.simplefilter("error", li.NumpyFallbackWarning)  # a twin, not the fallback
        result = fn(*inputs)
    after = li.inspect.counters.snapshot()
    for name in ("materializations", "implicit_materializations", "numpy_fallbacks"):
        assert after[name] == before[name], f"{name} changed while recording"
    return result


def assert_same(got, expected, exact: bool | None = True) -> None:
    """An Array result equal to numpy's: dtype, shape and values (NaNs in the same places);
    `exact` None: dtype and shape only (the caller compares the values)."""
    if isinstance(expected, (tuple, list)):
        assert type(got) is type(expected) or hasattr(got, "_fields"), type(got)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_same(g, e, exact)
        return
    assert isinstance(got, li.Array), type(got)
    value, expected = np.asarray(got), np.asarray(expected)
    assert value.dtype == expected.dtype, (value.dtype, expected.dtype)
    assert value.shape == expected.shape, (value.shape, expected.shape)
    if exact:
        np.testing.assert_array_equal(value, expected)
    elif exact is not None:
        np.testing.assert_allclose(
            value, expected, rtol=1e-6 if value.dtype.itemsize >= 8 else 2e-6
        )


def check(fn, *arrays, exact: bool = True):
    assert_same(run_lazily(fn, *arrays), fn(*arrays), exact)


# (id, fn, inputs): each fn calls numpy's functions only; it runs on ndarrays and on Arrays.
STATISTICS = [
    ("mean", lambda a: np.mean(a), [A]),
    ("mean-axis-positional", lambda a: np.mean(a, 0), [A]),
    ("mean-keepdims", lambda a: np.mean(a, axis=1, keepdims=True), [A]),
    ("mean-int", lambda i: np.mean(i, axis=0), [I]),
    ("mean-dtype", lambda a: np.mean(a, dtype=np.float64), [A]),
    ("sum", lambda a: np.sum(a, 1), [A]),
    ("sum-int32-widens", lambda i: np.sum(i), [I]),
    ("sum-bool", lambda b: np.sum(b, axis=0), [BO]),
    ("sum-tuple-axis", lambda a: np.sum(a, axis=(0, 1), keepdims=True), [A]),
    ("sum-dtype", lambda i: np.sum(i, dtype=np.float32), [I]),
    ("prod", lambda i: np.prod(i, 0), [I]),
    ("std", lambda a: np.std(a), [A]),
    ("std-ddof", lambda a: np.std(a, 0, ddof=1), [A]),
    ("var-int", lambda i: np.var(i, axis=1), [I]),
    ("var-correction", lambda a: np.var(a, correction=1), [A]),
    ("min", lambda a: np.min(a, 0), [A]),
    ("max", lambda a: np.max(a, axis=1, keepdims=True), [A]),
    ("amin", lambda i: np.amin(i), [I]),
    ("amax", lambda a: np.amax(a, 0), [A]),
    ("max-bool", lambda b: np.max(b, 1), [BO]),
    ("partition", lambda a: np.partition(a, 1), [A]),
    ("partition-kths-axis", lambda m: np.partition(m, [0, -1], axis=1), [M]),
    ("partition-flat", lambda i: np.partition(i, 5, axis=None), [I]),
    ("median", lambda a: np.median(a), [A]),
    ("median-axis", lambda m: np.median(m, axis=1), [M]),
    ("median-int-keepdims", lambda i: np.median(i, 0, keepdims=True), [I]),
    ("median-nan", lambda h: np.median(h, axis=1), [HOLES]),
    ("quantile", lambda a: np.quantile(a, 0.3), [A]),
    ("quantile-list-axis", lambda m: np.quantile(m, [0.1, 0.5, 0.9], axis=-1), [M]),
    ("quantile-int-q", lambda v: np.quantile(v, [0, 1]), [V]),
    ("quantile-array-keepdims", lambda a: np.quantile(a, np.array([0.25]), 0, keepdims=True), [A]),
    ("quantile-nan", lambda h: np.quantile(h, 0.75, axis=1), [HOLES]),
    ("percentile", lambda i: np.percentile(i, 40), [I]),
    ("percentile-list-axis", lambda a: np.percentile(a, [5, 95.5], axis=1), [A]),
    ("nansum", lambda h: np.nansum(h, axis=1), [HOLES]),
    ("nansum-all-dtype", lambda h: np.nansum(h, dtype=np.float64), [HOLES]),
    ("nansum-int", lambda i: np.nansum(i, 0), [I]),
    ("nanprod", lambda h: np.nanprod(h[:, :20], axis=-1, keepdims=True), [HOLES]),
    ("nancumsum", lambda h: np.nancumsum(h, axis=1), [HOLES]),
    ("nancumprod-flat", lambda h: np.nancumprod(h[:, :8]), [HOLES]),
    ("nanmax", lambda h: np.nanmax(h, axis=1), [HOLES]),
    ("nanmin-all", lambda h: np.nanmin(h), [HOLES]),
    ("nanmax-columns-keepdims", lambda h: np.nanmax(h, 0, keepdims=True), [HOLES]),
    ("nanmin-int", lambda i: np.nanmin(i, axis=1), [I]),
    ("nanargmax", lambda h: np.nanargmax(h[[0, 1, 3]], axis=1), [HOLES]),
    ("nanargmin-all-keepdims", lambda h: np.nanargmin(h, keepdims=True), [HOLES]),
    ("nanmean", lambda h: np.nanmean(h, axis=1), [HOLES]),
    ("nanmean-all", lambda h: np.nanmean(h), [HOLES]),
    ("nanmean-columns", lambda h: np.nanmean(h, axis=0, keepdims=True), [HOLES]),
    ("nanmean-int", lambda i: np.nanmean(i, 1), [I]),
    ("nanvar", lambda h: np.nanvar(h, axis=1), [HOLES]),
    ("nanvar-ddof-dtype", lambda h: np.nanvar(h, 0, np.float64, ddof=1), [HOLES]),
    ("nanstd", lambda h: np.nanstd(h, axis=-1, keepdims=True), [HOLES]),
    ("nanstd-all-correction", lambda h: np.nanstd(h, correction=1), [HOLES]),
    ("min-bool", lambda b: np.min(b), [BO]),
    ("ptp", lambda a: np.ptp(a, 1), [A]),
    ("argmin", lambda a: np.argmin(a), [A]),
    ("argmax", lambda a: np.argmax(a, 1), [A]),
    ("argmax-keepdims", lambda a: np.argmax(a, axis=0, keepdims=True), [A]),
    ("argmax-bool", lambda b: np.argmax(b, 1), [BO]),
    ("any", lambda b: np.any(b, 0), [BO]),
    ("all-of-comparison", lambda a: np.all(a > -3), [A]),
    ("all-int", lambda i: np.all(i, axis=1), [I]),
    ("count_nonzero", lambda i: np.count_nonzero(i, axis=0), [I]),
    ("cumsum", lambda a: np.cumsum(a, 1), [A]),
    ("cumsum-flat-int", lambda i: np.cumsum(i), [I]),
    ("cumsum-bool", lambda b: np.cumsum(b, axis=0), [BO]),
    ("cumprod", lambda i: np.cumprod(i, axis=0), [I]),
    ("diff", lambda a: np.diff(a), [A]),
    ("diff-n-axis", lambda i: np.diff(i, n=2, axis=0), [I]),
    ("diff-prepend-scalar", lambda v: np.diff(v, prepend=0), [V]),
    ("diff-append-array", lambda a: np.diff(a, axis=0, append=a[:1]), [A]),
]

MANIPULATION = [
    ("concatenate", lambda a: np.concatenate([a, a], 0), [A]),
    ("concatenate-promotes", lambda a, i: np.concatenate((a, i), axis=1), [A, I]),
    ("concatenate-with-ndarray", lambda a: np.concatenate([a, B.T], axis=None), [A]),
    ("concatenate-dtype", lambda i: np.concatenate([i, i], dtype=np.float64), [I]),
    ("stack", lambda a: np.stack([a, a + 1], 1), [A]),
    ("vstack", lambda v: np.vstack([v, v]), [V]),
    ("hstack-2d", lambda a: np.hstack([a, a]), [A]),
    ("hstack-1d", lambda v, w: np.hstack((v, w)), [V, W]),
    ("dstack", lambda a: np.dstack([a, a]), [A]),
    ("column_stack", lambda v: np.column_stack([v, v * 2]), [V]),
    ("append-flat", lambda a: np.append(a, a), [A]),
    ("append-axis", lambda a: np.append(a, a, axis=0), [A]),
    ("append-scalar-is-float64", lambda a: np.append(a, 1.5), [A]),
    ("split", lambda a: np.split(a, 2, axis=1), [A]),
    ("split-indices", lambda a: np.split(a, [1, 3], axis=1), [A]),
    ("array_split", lambda v: np.array_split(v, 3), [V]),
    ("atleast_1d", lambda a: np.atleast_1d(np.sum(a)), [A]),
    ("atleast_2d", lambda v: np.atleast_2d(v), [V]),
    ("atleast_3d", lambda v, a: np.atleast_3d(v, a), [V, A]),
    ("reshape", lambda a: np.reshape(a, (4, 3)), [A]),
    ("reshape-int", lambda a: np.reshape(a, -1), [A]),
    ("ravel", lambda a: np.ravel(a), [A]),
    ("squeeze", lambda a: np.squeeze(np.expand_dims(a, 0)), [A]),
    ("squeeze-axis", lambda m: np.squeeze(m[:1], axis=0), [M]),
    ("expand_dims", lambda a: np.expand_dims(a, (0, 2)), [A]),
    ("broadcast_to", lambda v: np.broadcast_to(v, (3, 5)), [V]),
    ("broadcast_arrays", lambda a: np.broadcast_arrays(a[:, :1], a), [A]),
    ("copy", lambda a: np.copy(a), [A]),
    ("transpose", lambda a: np.transpose(a), [A]),
    ("transpose-axes", lambda m: np.transpose(m, (1, 0, 2)), [M]),
    ("moveaxis", lambda m: np.moveaxis(m, 0, -1), [M]),
    ("swapaxes", lambda m: np.swapaxes(m, 0, 2), [M]),
    ("flip", lambda a: np.flip(a), [A]),
    ("flip-axis", lambda a: np.flip(a, 1), [A]),
    ("roll", lambda a: np.roll(a, 1), [A]),
    ("roll-axis", lambda a: np.roll(a, -1, axis=1), [A]),
    ("tile", lambda v: np.tile(v, 2), [V]),
    ("tile-tuple", lambda a: np.tile(a, (2, 1)), [A]),
    ("repeat", lambda a: np.repeat(a, 2), [A]),
    ("repeat-axis", lambda a: np.repeat(a, 2, axis=0), [A]),
    ("repeat-list", lambda v: np.repeat(v, [1, 0, 2, 1, 3]), [V]),
    ("take-flat", lambda a: np.take(a, [0, 5, 11]), [A]),
    ("take-2d-indices", lambda a: np.take(a, [[0, 1], [3, 2]], axis=1), [A]),
    ("take-scalar", lambda v: np.take(v, 2), [V]),
    ("take-negative", lambda v: np.take(v, [-1, 0]), [V]),
    ("take-wrap", lambda v: np.take(v, [7, -6], mode="wrap"), [V]),
    ("take-clip", lambda v: np.take(v, [9, -3], mode="clip"), [V]),
    ("take_along_axis", lambda a: np.take_along_axis(a, np.argsort(a, 1), 1), [A]),
]

SEARCHING = [
    ("where", lambda a: np.where(a > 0, a, 0.0), [A]),
    ("where-promotes", lambda a, i: np.where(a > 0, a, i), [A, I]),
    ("where-int-condition", lambda i: np.where(i, 1, -1), [I]),
    ("where-ndarray-branch", lambda a: np.where(a > 0, B[:3, :4], a), [A]),
    ("searchsorted", lambda s, v: np.searchsorted(s, v), [SORTED, V]),
    ("searchsorted-scalar", lambda s: np.searchsorted(s, 0.25, side="right"), [SORTED]),
    ("sort", lambda a: np.sort(a), [A]),
    ("sort-flat", lambda a: np.sort(a, axis=None), [A]),
    ("sort-axis0", lambda a: np.sort(a, 0), [A]),
    ("sort-bool", lambda b: np.sort(b, 1), [BO]),
    ("argsort", lambda a: np.argsort(a, 1), [A]),
    ("argsort-stable", lambda i: np.argsort(i, axis=None, kind="stable"), [I]),
    ("argsort-ties", lambda t: np.argsort(t), [TIES]),
    ("argsort-ties-stable", lambda t: np.argsort(t, stable=True), [TIES]),
    ("argsort-ties-mergesort", lambda t: t.argsort(kind="mergesort"), [TIES]),
    ("searchsorted-strong-scalar", lambda t: np.searchsorted(t, 0.1, side="right"), [TENTHS]),
    ("searchsorted-bool", lambda b: np.searchsorted(np.sort(b[0]), b[1], side="right"), [BO]),
    ("searchsorted-bool-ints", lambda b: np.searchsorted(np.sort(b[0]), [-1, 0, 1, 2]), [BO]),
    ("diff-bool", lambda b: np.diff(b, n=2, axis=0, prepend=True), [BO]),
    ("isin", lambda i: np.isin(i, [1, 2, 3]), [I]),
    ("isin-strong-scalar", lambda t: np.isin(t, 0.1), [TENTHS]),
]

ELEMENTWISE = [
    ("clip", lambda a: np.clip(a, -0.5, 0.5), [A]),
    ("clip-int-float-bounds", lambda i: np.clip(i, 0.5, 2.5), [I]),
    ("clip-none", lambda a: np.clip(a, None, 0), [A]),
    ("clip-keyword", lambda a: np.clip(a, min=-0.1), [A]),
    ("clip-array-bounds", lambda a: np.clip(a, A[0] - 0.2, 1.0), [A]),
    ("round", lambda a: np.round(a * 100, 1), [A]),
    ("around", lambda a: np.around(a), [A]),
    ("round-negative", lambda a: np.round(a * 1000, -2), [A]),
    ("round-int-negative", lambda i: np.round(i * 37, -1), [I]),
    ("round-int", lambda i: np.round(i, 2), [I]),
    ("abs-ufunc", lambda a: np.abs(a), [A]),
    ("absolute-ufunc", lambda i: np.absolute(i), [I]),
    ("sign-ufunc", lambda a: np.sign(a), [A]),
    ("isclose", lambda a: np.isclose(a, a + 1e-6), [A]),
    ("isclose-scalar", lambda a: np.isclose(a, 0.5, atol=0.5), [A]),
    ("isclose-mixed", lambda i, a: np.isclose(i, a, atol=1), [I, A]),
    ("isclose-nan", lambda s: np.isclose(s, s, equal_nan=True), [SPECIAL]),
    ("nan_to_num", lambda s: np.nan_to_num(s), [SPECIAL]),
    ("nan_to_num-values", lambda s: np.nan_to_num(s, nan=-1, posinf=9, neginf=-9), [SPECIAL]),
    ("real", lambda c: np.real(c), [C]),
    ("imag", lambda c: np.imag(c), [C]),
    ("real-of-real", lambda a: np.real(a), [A]),
    ("iscomplex", lambda c: np.iscomplex(c * np.array([1, 1, 1, 0])), [C]),
    ("isreal", lambda a: np.isreal(a), [A]),
]

CREATION = [
    ("zeros_like", lambda a: np.zeros_like(a), [A]),
    ("ones_like-dtype", lambda i: np.ones_like(i, dtype=np.float32), [I]),
    ("full_like-casts", lambda i: np.full_like(i, 2.7), [I]),
    ("full_like-shape", lambda a: np.full_like(a, 7, shape=(2, 2)), [A]),
    ("meshgrid", lambda v, w: np.meshgrid(v, w), [V, W]),
    ("meshgrid-ij-sparse", lambda v, w: np.meshgrid(v, w, indexing="ij", sparse=True), [V, W]),
    ("diag-vector", lambda v: np.diag(v), [V]),
    ("diag-vector-above", lambda v: np.diag(v, 1), [V]),
    ("diag-vector-below", lambda w: np.diag(w, -2), [W]),
    ("diag-matrix", lambda a: np.diag(a), [A]),
    ("diag-matrix-offset", lambda a: np.diag(a, 1), [A]),
    ("tril", lambda a: np.tril(a), [A]),
    ("triu", lambda a: np.triu(a, 1), [A]),
]

LINEAR_ALGEBRA = [
    ("dot-matrices", lambda a, b: np.dot(a, b), [A, B]),
    ("dot-vectors", lambda v: np.dot(v, v), [V]),
    ("dot-scalar", lambda a: np.dot(a, 2.0), [A]),
    ("dot-nd-matrix", lambda m, b: np.dot(m, b[:, :2].astype(np.float64)), [M, B]),
    ("dot-nd-nd", lambda m: np.dot(m, np.transpose(m, (0, 2, 1))), [M]),
    ("dot-vector-nd", lambda w, m: np.dot(w, m), [W, M]),
    ("vdot", lambda c: np.vdot(c, c * 2), [C]),
    ("inner", lambda a: np.inner(a, a), [A]),
    ("outer", lambda v, w: np.outer(v, w), [V, W]),
    ("tensordot", lambda m: np.tensordot(m, m, axes=([1, 2], [1, 2])), [M]),
    ("tensordot-int", lambda m, a: np.tensordot(m, a, 1), [M, B]),
    ("cross", lambda m: np.cross(m[0, :, :3], m[1, :, :3]), [M]),
    ("trace", lambda a: np.trace(a), [A]),
    ("trace-int-axes", lambda i: np.trace(np.reshape(i, (2, 2, 3)), axis1=1, axis2=2), [I]),
    ("diagonal", lambda m: np.diagonal(m, 0, 1, 2), [M]),
    ("linalg.inv", lambda s: np.linalg.inv(s), [SPD]),
    ("linalg.det", lambda s: np.linalg.det(s), [SPD]),
    ("linalg.solve", lambda s, v: np.linalg.solve(s, v[:4]), [SPD, V]),
    ("linalg.cholesky", lambda s: np.linalg.cholesky(s), [SPD]),
    ("linalg.eigh", lambda s: np.linalg.eigh(s), [SPD]),
    ("linalg.svd", lambda a: np.linalg.svd(a), [A]),
    ("linalg.svd-values", lambda a: np.linalg.svd(a, compute_uv=False), [A]),
    ("linalg.qr", lambda s: np.linalg.qr(s), [SPD]),
    ("linalg.norm", lambda a: np.linalg.norm(a), [A]),
    ("linalg.norm-1", lambda v: np.linalg.norm(v, 1), [V]),
    ("linalg.norm-axis", lambda a: np.linalg.norm(a, axis=1), [A]),
    ("linalg.norm-matrix", lambda m: np.linalg.norm(m, "fro", axis=(0, 2), keepdims=True), [M]),
    ("matrix_power-int", lambda i: np.linalg.matrix_power(i[:, :3], 5), [I]),
]

# numpy 2's standard functions in np.linalg, composed as numpy composes them
if hasattr(np.linalg, "vector_norm"):
    LINEAR_ALGEBRA += [
        ("std-diagonal", lambda m: np.linalg.diagonal(m, offset=1), [M]),
        ("std-trace", lambda m: np.linalg.trace(m, offset=-1), [M]),
        ("std-trace-dtype", lambda i: np.linalg.trace(i, dtype=np.int8), [I]),
        ("std-matrix_transpose", lambda m: np.linalg.matrix_transpose(m), [M]),
        ("std-outer", lambda v, w: np.linalg.outer(v, w), [V, W]),
        ("std-cross", lambda m, w: np.linalg.cross(m[:, :, :3], w), [M, W]),
        ("std-vector_norm", lambda m: np.linalg.vector_norm(m), [M]),
        ("std-vector_norm-axes", lambda m: np.linalg.vector_norm(m, axis=(2, 0), ord=3), [M]),
        (
            "std-vector_norm-keep",
            lambda a: np.linalg.vector_norm(a, axis=(0, 1), keepdims=True),
            [A],
        ),
        ("std-vector_norm-inf", lambda m: np.linalg.vector_norm(m, axis=1, ord=np.inf), [M]),
        ("std-matrix_norm", lambda m: np.linalg.matrix_norm(m, keepdims=True), [M]),
        ("std-matrix_norm-1", lambda a: np.linalg.matrix_norm(a, ord=1), [A]),
        ("std-matrix_rank", lambda m: np.linalg.matrix_rank(m), [M]),
        ("std-matrix_rank-tol", lambda s: np.linalg.matrix_rank(s, tol=4.5), [SPD]),
        ("tensordot-std", lambda m: np.linalg.tensordot(m, m, axes=([1, 2], [1, 2])), [M]),
        ("multi_dot", lambda a, b, v: np.linalg.multi_dot([a, b, v]), [A, B, V]),
        ("multi_dot-4", lambda w, a, b: np.linalg.multi_dot([w, a, b, b.T]), [W, A, B]),
        ("linalg.svdvals", lambda m: np.linalg.svdvals(m), [M]),
        ("linalg.pinv", lambda s: np.linalg.pinv(s), [SPD]),
        ("linalg.pinv-rtol", lambda s: np.linalg.pinv(s, rtol=0.2), [SPD]),
        ("linalg.cond", lambda s: np.linalg.cond(s), [SPD]),
    ]

# numpy's functions numpy writes from its others (composed.py): the same calls, on Arrays
COMPOSED = [
    ("fliplr", lambda a: np.fliplr(a), [A]),
    ("flipud", lambda m: np.flipud(m), [M]),
    ("rot90", lambda a: np.rot90(a), [A]),
    ("rot90-twice", lambda a: np.rot90(a, 2), [A]),
    ("rot90-back-axes", lambda m: np.rot90(m, -1, axes=(1, 2)), [M]),
    ("rollaxis", lambda m: np.rollaxis(m, 2), [M]),
    ("rollaxis-start", lambda m: np.rollaxis(m, 0, 2), [M]),
    ("hsplit", lambda a: np.hsplit(a, 2), [A]),
    ("vsplit", lambda a: np.vsplit(a, [1, 2]), [A]),
    ("dsplit", lambda m: np.dsplit(m, 2), [M]),
    ("resize", lambda a: np.resize(a, (5, 3)), [A]),
    ("fix", lambda s: np.fix(s), [SPECIAL]),
    ("sinc", lambda s: np.sinc(s), [SPECIAL]),
    ("sinc-int", lambda i: np.sinc(i), [I]),
    ("angle", lambda c: np.angle(c), [C]),
    ("angle-deg-real", lambda a: np.angle(a, deg=True), [A]),
    ("kron", lambda a, w: np.kron(a, w), [A, W]),
    ("polyval", lambda w, a: np.polyval(w, a), [W, A]),
    ("polyval-list", lambda i: np.polyval([1, -2, 3], i), [I]),
    ("ediff1d", lambda a: np.ediff1d(a), [A]),
    ("ediff1d-edges", lambda v: np.ediff1d(v, to_end=[9, 8], to_begin=-1), [V]),
    ("trapezoid-x", lambda a: np.trapezoid(a, np.arange(4.0) ** 2, axis=1), [A]),
    ("average-axis", lambda a: np.average(a, axis=1), [A]),
    ("average-int-keepdims", lambda i: np.average(i, axis=0, keepdims=True), [I]),
    ("cov", lambda a: np.cov(a), [A]),
    ("cov-columns-ddof", lambda m: np.cov(m[0], rowvar=False, ddof=0), [M]),
    ("cov-x-y", lambda v, w: np.cov(v[:3], w), [V, W]),
    ("corrcoef", lambda a: np.corrcoef(a), [A]),
    ("corrcoef-one", lambda v: np.corrcoef(v), [V]),
    ("pad", lambda a: np.pad(a, 1), [A]),
    ("pad-constants-per-axis", lambda m: np.pad(m, (1, 2), constant_values=((1, 2),) * 3), [M]),
    ("pad-edge", lambda a: np.pad(a, ((2, 0), (1, 3)), mode="edge"), [A]),
    ("pad-wrap-int", lambda i: np.pad(i, 2, mode="wrap"), [I]),
    ("pad-reflect", lambda a: np.pad(a, [(1, 2), (3, 2)], mode="reflect"), [A]),
    ("pad-symmetric-f", lambda a: np.pad(a, 2, mode="symmetric"), [np.asfortranarray(A)]),
    ("gradient", lambda a: np.gradient(a), [A]),
    ("gradient-spacing-axis", lambda m: np.gradient(m, 0.5, axis=1, edge_order=2), [M]),
    ("gradient-coordinates", lambda v: np.gradient(v, np.array([0.0, 0.5, 1.5, 1.75, 3.0])), [V]),
    ("gradient-int", lambda i: np.gradient(i, axis=0), [I]),
    ("lexsort", lambda i, a: np.lexsort((a, i)), [I, A]),
    ("lexsort-rows-axis", lambda i: np.lexsort(i[:2] > 0, axis=0), [I]),
    ("unwrap", lambda m: np.unwrap(np.cumsum(m * 4, axis=-1)), [M]),
    ("unwrap-int-period", lambda i: np.unwrap(np.cumsum(i, axis=0) * 3, period=7, axis=0), [I]),
    ("polyder", lambda v: np.polyder(v, 2), [V]),
    ("polyint-constants", lambda v: np.polyint(v, 2, k=[1.5, -2]), [V]),
    ("vander", lambda w: np.vander(w), [W]),
    ("vander-increasing-int", lambda i: np.vander(i[0], 3, increasing=True), [I]),
    ("block", lambda a, b: np.block([[a, a[:, :1]], [b[:1, :5]]]), [A, B]),
    ("block-vectors", lambda v, w: np.block([v, w]), [V, W]),
    ("diagflat", lambda a: np.diagflat(a[:2], -1), [A]),
    ("tril_indices_from-values", lambda a: a[:, :3][np.tril_indices_from(a[:, :3])], [A]),
    ("triu_indices_from", lambda a: np.triu_indices_from(a, 1), [A]),
    ("diag_indices_from", lambda s: s[np.diag_indices_from(s)], [SPD]),
    ("isposinf", lambda s: np.isposinf(s), [SPECIAL]),
    ("isneginf", lambda s: np.isneginf(s), [SPECIAL]),
    ("real_if_close", lambda a: np.real_if_close(a), [A]),
    ("sort_complex", lambda i: np.sort_complex(i[0]), [I]),
    ("histogram_bin_edges", lambda v: np.histogram_bin_edges(v, 4), [V]),
    ("digitize", lambda v: np.digitize(v, [-1, 0, 0.5, 2]), [V]),
    ("digitize-decreasing-right", lambda v: np.digitize(v, np.array([2.0, 0, -1]), True), [V]),
]
if hasattr(np, "unstack"):  # NOTE: numpy 2.1
    COMPOSED += [
        ("unstack", lambda m: np.unstack(m, axis=1), [M]),
        ("matrix_transpose", lambda m: np.matrix_transpose(m), [M]),
    ]
if not hasattr(np, "trapezoid"):  # NOTE: numpy 2.0's name for trapz
    COMPOSED = [c for c in COMPOSED if not c[0].startswith("trapezoid")]

# The sums of products BLAS computes: numpy's own value depends on the kernel its BLAS picks
# for the CPU (an n-d dot runs one BLAS dot per output element, matmul and tensordot a matrix
# product), so they compare within the error bound of their sums. LAPACK's results (linalg)
# within a normwise bound. Every other case is bit-equal.
SUMS = {"dot-matrices", "dot-vectors", "dot-nd-matrix", "dot-nd-nd", "dot-vector-nd"}
SUMS |= {"vdot", "inner", "tensordot", "tensordot-int", "tensordot-std", "multi_dot", "multi_dot-4"}
SUMS |= {"cov", "cov-columns-ddof", "cov-x-y", "corrcoef", "corrcoef-one"}

CASES = STATISTICS + MANIPULATION + SEARCHING + ELEMENTWISE + CREATION + LINEAR_ALGEBRA
CASES += COMPOSED


@pytest.mark.parametrize("name, fn, inputs", CASES, ids=[c[0] for c in CASES])
def test_numpy_call_records_lazily_and_matches_numpy(name, fn, inputs):
    if name in SUMS:
        check_sums(fn, *inputs)
    elif name.startswith("linalg."):
        got, expected = run_lazily(fn, *inputs), fn(*inputs)
        assert_same(got, expected, exact=None)
        condition = np.linalg.cond(inputs[0]) if inputs[0] is SPD else 1.0
        assert_within_normwise_bound(as_values(got), expected, max(inputs[0].shape), condition)
    else:
        check(fn, *inputs)


def check_sums(fn, *arrays):
    """fn's lazy result within the bound of its sums of products of numpy's."""
    got, expected = run_lazily(fn, *arrays), fn(*arrays)
    assert_same(got, expected, exact=None)
    magnitude = fn(*(np.abs(a) for a in arrays))
    assert_within_sum_bound(np.asarray(got), expected, magnitude, max(max(a.shape) for a in arrays))


def as_values(got):
    return type(got)(*map(np.asarray, got)) if isinstance(got, tuple) else np.asarray(got)


SQUARE = RNG.standard_normal((4, 4))
EINSUM = [
    ("matmul", lambda a, b: np.einsum("ij,jk->ik", a, b), [A, B]),
    ("implicit", lambda a, b: np.einsum("ij,jk", a, b), [A, B]),
    ("diagonal", lambda s: np.einsum("ii->i", s), [SQUARE]),
    ("trace", lambda s: np.einsum("ii", s), [SQUARE]),
    ("ellipsis", lambda m: np.einsum("...ij->...ji", m), [M]),
]


@pytest.mark.parametrize("name, fn, inputs", EINSUM, ids=[c[0] for c in EINSUM])
def test_einsum_records_through_li_einsum(name, fn, inputs):
    # numpy's einsum sums products in its own order, matmul in BLAS's: within their bound.
    if name in ("matmul", "implicit"):
        check_sums(fn, *inputs)
    else:
        check(fn, *inputs)


HISTOGRAMS = [
    ("bins", lambda v: np.histogram(v, bins=4), [V]),
    ("default-int", lambda i: np.histogram(i), [I]),
    ("range", lambda a: np.histogram(a, bins=4, range=(-1, 1)), [A]),
    ("edges", lambda i: np.histogram(i, bins=[-5, 0, 2, 5]), [I]),
    ("density", lambda a: np.histogram(a, bins=3, density=True), [A]),
    ("one-value", lambda a: np.histogram(a * 0 + 1), [A]),
]


@pytest.mark.parametrize("name, fn, inputs", HISTOGRAMS, ids=[c[0] for c in HISTOGRAMS])
def test_histogram_records_lazily_with_numpys_edges(name, fn, inputs):
    # the edges from the lazy min and max are numpy's linspace bit for bit
    check(fn, *inputs)


SHAPE_DEPENDS_ON_DATA = [
    ("where-one-argument", lambda b: np.where(b), [BO]),
    ("nonzero", lambda i: np.nonzero(i), [I]),
    ("argwhere", lambda i: np.argwhere(i), [I]),
    ("flatnonzero", lambda i: np.flatnonzero(i), [I]),
    ("unique", lambda i: np.unique(i), [I]),
    ("unique-flags", lambda i: np.unique(i, True, True, True), [I]),
    ("unique-counts", lambda i: np.unique(i, return_counts=True), [I]),
    ("bincount", lambda c: np.bincount(c), [COUNTS]),
    ("bincount-minlength", lambda c: np.bincount(c, minlength=10), [COUNTS]),
]
if hasattr(np, "unique_counts"):  # NOTE: numpy 2.0's standard names
    SHAPE_DEPENDS_ON_DATA += [
        ("unique_counts", lambda i: tuple(np.unique_counts(i)), [I]),
        ("unique_inverse", lambda i: tuple(np.unique_inverse(i)), [I]),
        ("unique_all", lambda a: tuple(np.unique_all(a)), [A]),
    ]


@pytest.mark.parametrize("name, fn, inputs", SHAPE_DEPENDS_ON_DATA)
def test_data_dependent_shapes_compute_their_input_once(name, fn, inputs):
    # Like li.nonzero and li.unique_*: the input is computed at the call, counted as implicit.
    before = li.inspect.counters.snapshot()
    result = fn(*(pending(a) for a in inputs))
    after = li.inspect.counters.snapshot()
    assert after["implicit_materializations"] == before["implicit_materializations"] + 1
    assert after["numpy_fallbacks"] == before["numpy_fallbacks"]
    assert_same(result, fn(*inputs))


def test_data_dependent_shapes_refuse_in_strict_mode():
    with li.options(strict=True), pytest.raises(ValueError, match="strict"):
        np.unique(pending(I))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, y: np.allclose(x, y),
        lambda x, y: np.allclose(x, y + 1e-3),
        lambda x, y: np.allclose(x, y + 1e-3, atol=1e-2),
        lambda x, y: np.array_equal(x, y),
        lambda x, y: np.array_equal(x, y[:2]),
        lambda x, y: np.array_equal(x, y, equal_nan=True),
        lambda x, y: np.array_equiv(x, y[:1]),
        lambda x, y: np.array_equiv(x, y[:1] + 1),
    ],
)
def test_comparisons_to_one_bool_compute_and_return_a_python_bool(fn):
    for data in (A, SPECIAL):
        expected = fn(data, data)
        got = fn(pending(data), data.copy())
        assert type(got) is bool and got == expected


def test_questions_about_shape_and_dtype_never_compute():
    x, c = pending(A), pending(C)
    before = li.inspect.counters.snapshot()
    answers = [np.shape(x), np.ndim(x), np.size(x), np.size(x, 1), np.result_type(x, 1.0)]
    answers += [np.result_type(x, pending(I)), np.can_cast(x, np.float64), np.can_cast(x, np.int8)]
    answers += [np.iscomplexobj(c), np.iscomplexobj(x), np.isrealobj(x)]
    assert li.inspect.counters.snapshot() == before
    expected = [np.shape(A), np.ndim(A), np.size(A), np.size(A, 1), np.result_type(A, 1.0)]
    expected += [np.result_type(A, I), np.can_cast(A, np.float64), np.can_cast(A, np.int8)]
    expected += [np.iscomplexobj(C), np.iscomplexobj(A), np.isrealobj(A)]
    assert answers == expected


def test_empty_like_has_numpys_dtype_and_shape():
    for got, expected in [
        (np.empty_like(pending(I)), np.empty_like(I)),
        (
            np.empty_like(pending(A), dtype=np.float64, shape=(2, 5)),
            np.empty_like(A, np.float64, shape=(2, 5)),
        ),
    ]:
        assert isinstance(got, li.Array)
        assert (got.dtype, got.shape) == (expected.dtype, expected.shape)


def test_functions_of_any_number_of_arrays_call_their_twins_directly(monkeypatch):
    """numpy functions taking *operands (einsum, meshgrid, broadcast_arrays, atleast_2d) pass
    a call to their twins as it is, as functions of fixed parameters do: binding numpy's
    signature and then the twin's cost ~15 us a call (most of recording an einsum)."""
    import inspect

    x_np, y_np = np.arange(12.0).reshape(3, 4), np.linspace(0, 1, 4)
    x, y = li.asarray(x_np), li.asarray(y_np)

    def unbound(*args, **kwargs):
        raise AssertionError("a signature was bound")

    monkeypatch.setattr(inspect.Signature, "bind", unbound)
    np.testing.assert_array_equal(np.einsum("ij,j->i", x, y), np.einsum("ij,j->i", x_np, y_np))
    for got, want in zip(np.meshgrid(y, y, indexing="ij"), np.meshgrid(y_np, y_np, indexing="ij")):
        np.testing.assert_array_equal(got, want)
    for got, want in zip(np.broadcast_arrays(x, y), np.broadcast_arrays(x_np, y_np)):
        np.testing.assert_array_equal(got, want)
    assert np.atleast_2d(y).shape == np.atleast_2d(y_np).shape


# -- out= -------------------------------------------------------------------------------------
def test_an_array_out_is_rebound_to_the_lazy_result():
    x, out = pending(A), pending(np.zeros(4, np.float32))
    alias = out
    before = li.inspect.counters.materializations
    assert np.sum(x, 0, None, out) is out  # out given by position, as numpy allows
    assert np.mean(x, axis=0, out=out) is out
    assert li.inspect.counters.materializations == before
    np.testing.assert_array_equal(np.asarray(alias), np.mean(A, axis=0))


def test_an_array_out_casts_as_numpy_casts():
    out = pending(np.zeros(4, np.int32))
    np.sum(pending(A * 3), axis=0, out=out)  # numpy's reductions cast into out unsafely
    expected = np.sum(A * 3, axis=0, out=np.zeros(4, np.int32))
    assert_same(out, expected)
    out64 = pending(np.zeros((3, 4)))
    np.clip(pending(A), 0, 1, out=out64)
    assert_same(out64, np.clip(A, 0, 1, out=np.zeros((3, 4))))


def test_an_ndarray_out_receives_the_value():
    out = np.zeros(4, np.float32)
    result = np.max(pending(A), 0, out=out)
    assert result is out
    np.testing.assert_array_equal(out, np.max(A, 0))


@pytest.mark.parametrize("make", [np.zeros, lambda *a: pending(np.zeros(*a))])
def test_out_of_a_kind_numpy_refuses_is_a_type_error(make):
    with pytest.raises(TypeError, match="numpy.clip: cannot cast the result's float32"):
        np.clip(pending(A[0]), 0, 1, out=make(4, np.int32))
    with pytest.raises(TypeError, match="rule 'no'"):  # numpy's dot takes only its own dtype
        np.dot(pending(A[0]), pending(A[0]), out=make((), np.float64))


def test_out_of_another_shape_is_a_value_error():
    with pytest.raises(ValueError, match=r"out has shape \(3,\), the result \(4,\)"):
        np.sum(pending(A), axis=0, out=np.zeros(3, np.float32))


# -- the fallback -----------------------------------------------------------------------------
@pytest.fixture
def fresh_warnings(monkeypatch):
    """Each test sees every function's first fallback (the module warns once per process)."""
    monkeypatch.setattr(_numpy_functions, "_WARNED", set())


def test_a_function_with_no_twin_computes_runs_numpy_warns_once_and_counts(fresh_warnings):
    x = pending(A)
    before = li.inspect.counters.snapshot()
    warned = r"numpy\.nanpercentile \(no lazy form\)"
    with pytest.warns(li.NumpyFallbackWarning, match=warned) as seen:
        first = np.nanpercentile(x, 30, axis=1)
    assert seen[0].filename == __file__  # the warning names the user's line
    with warnings.catch_warnings():
        warnings.simplefilter("error", li.NumpyFallbackWarning)  # the second call is quiet
        second = np.nanpercentile(x, 70, axis=0)
    after = li.inspect.counters.snapshot()
    assert after["numpy_fallbacks"] == before["numpy_fallbacks"] + 2
    assert after["materializations"] == before["materializations"] + 1  # x, once
    assert_same(first, np.nanpercentile(A, 30, axis=1))
    assert_same(second, np.nanpercentile(A, 70, axis=0))


def test_nanargmax_of_an_all_nan_slice_raises_numpys_error_when_computed():
    found = np.nanargmax(pending(HOLES), axis=1)  # NOTE: row 2 is all NaN: numpy raises
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        np.asarray(found)
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        np.nanargmax(HOLES, axis=1)
    rows = HOLES[[0, 1, 3]]
    assert_same(np.nanargmin(pending(rows), axis=1), np.nanargmin(rows, axis=1))


def test_a_twin_without_a_parameter_falls_back_for_that_call(fresh_warnings):
    x = pending(A)
    with pytest.warns(li.NumpyFallbackWarning, match=r"numpy\.sum \(where has no lazy form\)"):
        total = np.sum(x, axis=0, where=A > 0)
    assert_same(total, np.sum(A, axis=0, where=A > 0))
    assert isinstance(np.sum(pending(A), axis=0), li.Array)  # other calls stay lazy


def test_a_twin_meeting_a_case_it_cannot_record_falls_back(fresh_warnings):
    nans = np.array([np.nan, 1.0, np.nan, 0.0])
    with pytest.warns(li.NumpyFallbackWarning, match="several NaNs"):
        values = np.unique(pending(nans))
    assert_same(values, np.unique(nans))  # numpy folds the NaNs into one


def test_correlate_reads_computed_values_through_writeable_views(fresh_warnings, monkeypatch):
    """numpy's correlate copies a read-only input first (every computed value is read-only):
    where it runs numpy's (a kernel too long to record), it gets writeable views of them, and
    writes nothing into them."""
    seen = []
    real = _numpy_functions._writeable
    monkeypatch.setattr(_numpy_functions, "_writeable", lambda v: seen.append(real(v)) or seen[-1])
    signal = np.arange(40.0) ** 1.5
    x = li.asarray(signal)
    kernel = np.ones(15) / 15  # NOTE: numpy sums more than 11 float values with BLAS's dot
    with pytest.warns(li.NumpyFallbackWarning, match="kernel of 15 values"):
        smoothed = np.convolve(x, kernel, mode="valid")
        paired = np.correlate(x * 2, kernel)
    assert_same(smoothed, np.convolve(signal, kernel, mode="valid"))
    assert_same(paired, np.correlate(signal * 2, kernel))
    assert [a.flags.writeable for a in seen if isinstance(a, np.ndarray)] == [True] * 4
    assert not np.asarray(x).flags.writeable and np.array_equal(np.asarray(x), signal)
    frozen = np.arange(3.0)
    frozen.flags.writeable = False
    assert real(frozen) is frozen  # memory nobody may write stays read-only


def test_fallback_results_keep_numpys_types(fresh_warnings):
    x = pending(A)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", li.NumpyFallbackWarning)
        scalar = np.nanmedian(x)
        pieces = np.histogram2d(pending(V), pending(V), bins=2)
        sign, logdet = np.linalg.slogdet(pending(SPD))
    assert type(scalar) is type(np.nanmedian(A)) and scalar == np.nanmedian(A)
    assert type(pieces) is tuple
    for got, expected in zip(pieces, np.histogram2d(V, V, bins=2)):
        assert_same(got, expected)
    assert isinstance(sign, li.Array)  # slogdet has a twin: lazy
    np.testing.assert_allclose(np.asarray(logdet), np.linalg.slogdet(SPD)[1])


def test_fallback_out_arrays(fresh_warnings):
    x = pending(A)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", li.NumpyFallbackWarning)
        array_out = pending(np.zeros(4))
        assert np.nanmedian(x, axis=0, out=array_out) is array_out
        ndarray_out = np.zeros(4)
        assert np.nanmedian(x, axis=0, out=ndarray_out) is ndarray_out
    assert_same(array_out, np.nanmedian(A, axis=0, out=np.zeros(4)))  # cast to out's float64
    np.testing.assert_array_equal(ndarray_out, np.nanmedian(A, axis=0))


def test_other_array_types_are_left_to_numpy():
    class Foreign:
        def __array_function__(self, func, types, args, kwargs):
            return NotImplemented

    with pytest.raises(TypeError, match="no implementation found"):
        np.concatenate([pending(A), Foreign()])


def test_numpy_ufuncs_still_record_lazily():
    x = pending(A)
    before = li.inspect.counters.materializations
    y = np.exp(x) + np.float32(2) * x
    assert isinstance(y, li.Array) and li.inspect.counters.materializations == before
    np.testing.assert_array_equal(np.asarray(y), np.exp(A) + np.float32(2) * A)


# -- numpy scripts, unchanged ------------------------------------------------------------------
def softmax_cross_entropy(logits, labels):
    """numpy only: a numerically stable softmax and the mean cross-entropy of the labels."""
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    probabilities = np.exp(shifted) / np.sum(np.exp(shifted), axis=1, keepdims=True)
    picked = np.take_along_axis(probabilities, labels[:, None], axis=1)
    loss = -np.mean(np.log(np.clip(picked, 1e-12, 1.0)))
    accuracy = np.mean(np.argmax(probabilities, axis=1) == labels)
    return loss, accuracy


def kmeans_step(points, centers):
    """numpy only: assign each point to its nearest center, then move each center to the mean
    of its points (a center with no points stays)."""
    distances = np.sum((points[:, None, :] - centers[None, :, :]) ** 2, axis=2)
    nearest = np.argmin(distances, axis=1)
    members = nearest[:, None] == np.arange(centers.shape[0])[None, :]
    sums = np.dot(np.transpose(np.where(members, 1.0, 0.0)), points)
    sizes = np.sum(members, axis=0)
    moved = sums / np.maximum(sizes, 1)[:, None]
    return np.where((sizes > 0)[:, None], moved, centers), nearest


@pytest.mark.parametrize(
    "script, inputs",
    [
        (softmax_cross_entropy, [RNG.standard_normal((8, 5)), RNG.integers(0, 5, 8)]),
        (kmeans_step, [RNG.standard_normal((30, 2)), RNG.standard_normal((3, 2))]),
    ],
    ids=["softmax-cross-entropy", "kmeans-step"],
)
def test_a_numpy_script_runs_unchanged_stays_lazy_and_matches_numpy(script, inputs):
    results = run_lazily(script, *inputs)
    assert all(isinstance(r, li.Array) for r in results)
    before = li.inspect.counters.materializations
    li.compute(*results)
    assert li.inspect.counters.materializations == before + 1  # the whole script, in one go
    for got, expected in zip(results, script(*inputs)):
        assert_same(got, expected)


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("fill_diagonal", lambda a: np.fill_diagonal(a, 7.0)),
        ("put", lambda a: np.put(a, [0, 5], [-1.0, -2.0])),
        ("putmask", lambda a: np.putmask(a, np.eye(3, dtype=bool), 9.0)),
        ("place", lambda a: np.place(a, np.eye(3, dtype=bool), [4.0])),
        ("copyto", lambda a: np.copyto(a, np.full((3, 3), 2.0))),
        ("put_along_axis", lambda a: np.put_along_axis(a, np.zeros((3, 1), int), 5.0, axis=1)),
    ],
)
def test_numpys_in_place_functions_write_the_array_and_its_views(name, call):
    expected = np.arange(9.0).reshape(3, 3)
    x = li.asarray(expected.copy())
    row = x[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", li.NumpyFallbackWarning)
        assert call(x) is None
    call(expected)
    np.testing.assert_array_equal(np.asarray(x), expected)
    np.testing.assert_array_equal(np.asarray(row), expected[1])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize(
    "bounds", [(-3.0, 3.0), (None, 2.5), (-0.0, None), (np.nan, 1.0), (1e300, None), (0.5, -0.5)]
)
def test_clip_of_a_float_array_between_python_floats_is_numpys(dtype, bounds):
    """The twin's quick path (Python float bounds stay weak): numpy's dtype and bits."""
    x_np = np.linspace(-5, 5, 11).astype(dtype)
    x_np[3], x_np[7] = -0.0, np.nan
    with np.errstate(over="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = np.clip(x_np, *bounds)
        got = np.asarray(np.clip(pending(x_np), *bounds))
    assert got.dtype == expected.dtype
    assert got.tobytes() == expected.tobytes()


def test_numpys_functions_promote_bfloat16_as_operators_do():
    # NOTE: numpy's result_type knows bfloat16 (ml_dtypes') in part: with a Python float it gave
    # float64 (np.clip(x, -1.0, 2.0) was float64, x * 2.0 bfloat16), with np.float32 it raised
    x_np = np.array([0.5, 3.0, -2.0, np.nan], dtype=li.bfloat16)
    x = li.asarray(x_np)
    weak = [np.clip(x, -1.0, 2.0), x.clip(-1.0, 2.0), np.clip(x, None, 2), x * 2.0]
    assert [w.dtype for w in weak] == [li.bfloat16] * 4
    np.testing.assert_array_equal(np.asarray(weak[0]).astype(np.float32), [0.5, 2.0, -1.0, np.nan])
    strong = np.clip(x, np.float32(-1.0), 2.0)  # NOTE: numpy's dtype and values
    want = np.clip(x_np, np.float32(-1.0), 2.0)
    assert strong.dtype == want.dtype == np.float32
    assert np.asarray(strong).tobytes() == want.tobytes()


@settings(max_examples=300, deadline=None)
@given(data=st.data(), shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4))
def test_orders_k_and_a_read_numpys_memory_order(data, shape):
    # NOTE: np.ravel(x, order="K") of an F-ordered x read it in C order here (other values:
    # [0, 1, 2, 3, 4, 5] where numpy's are [0, 3, 1, 4, 2, 5])
    a = data.draw(layouts(shape, np.float64))
    computed = data.draw(st.booleans())
    for order in "KA":
        want = np.ravel(a * 2 if computed else a, order=order)
        x = li.asarray(a) * 2 if computed else li.asarray(a)
        np.testing.assert_array_equal(np.asarray(np.ravel(x, order=order)), want)
        np.testing.assert_array_equal(np.asarray(x.flatten(order)), want)
        np.testing.assert_array_equal(np.asarray(x.ravel(order)), want)
        if order == "A":  # NOTE: "F" runs numpy's (a transposed read)
            f = np.asarray(x.flatten("F"))
            np.testing.assert_array_equal(f, (a * 2 if computed else a).flatten("F"))
        reshaped = np.reshape(a * 2 if computed else a, (-1, 1), order="A")
        np.testing.assert_array_equal(np.asarray(np.reshape(x, (-1, 1), order="A")), reshaped)


@pytest.mark.filterwarnings("ignore::lazyinfini.NumpyFallbackWarning")
@pytest.mark.parametrize(
    "call",
    [
        lambda v: np.nanmean(v.T, axis=0),
        lambda v: np.nanstd(v[:, ::2], axis=1),
        lambda v: np.average(v.T, axis=1, weights=np.arange(300.0) + 1),
        lambda v: np.trapezoid(v.T[::-1], axis=0),
        lambda v: np.nanvar(np.swapaxes(v, 0, 1)[1:], axis=0),
    ],
)
def test_a_fallback_reads_a_view_of_an_ndarray_as_numpys_view(call):
    # NOTE: the view was computed into a C-ordered copy first: numpy's nanmean of X.T adds in
    # the view's order, and 263 of 300 means differed in the last bit
    x = np.random.default_rng(19).standard_normal((300, 262))
    before = x.flags.writeable
    got = np.asarray(call(li.asarray(x)))
    assert got.tobytes() == np.asarray(call(x)).tobytes()
    assert x.flags.writeable == before


ZERO_D_AXIS = ["sum", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "any", "all"]
ZERO_D_AXIS += ["ptp", "count_nonzero", "cumsum", "cumprod", "argsort", "take", "mean"]


@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("name", ZERO_D_AXIS)
def test_a_0d_array_takes_axis_0_or_minus_1_where_numpy_does(name, axis):
    # NOTE: numpy reduces a 0-d array over axis 0 or -1 (its one element's); an AxisError
    # here (np.mean raises in numpy too, and here)
    a = np.array(2.5)
    fn = getattr(np, name)

    def call(v):
        return fn(v, [0], axis=axis) if name == "take" else fn(v, axis=axis)

    try:
        want = call(a)
    except np.exceptions.AxisError:
        with pytest.raises(np.exceptions.AxisError):
            call(li.asarray(a))
        return
    got = np.asarray(call(li.asarray(a)))
    assert got.shape == np.shape(want) and got.dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


def test_an_axis_out_of_range_is_numpys_axis_error():
    x = li.asarray(np.ones((2, 2)))
    for call in (lambda: np.sum(x, axis=2), lambda: li.sum(x, axis=-3), lambda: x.cumsum(5)):
        with pytest.raises(np.exceptions.AxisError, match="out of bounds"):
            call()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_an_average_of_no_elements_raises_numpys_error_or_gives_its_nan():
    # numpy's average divides the input's size by its result's: an empty result raises (the
    # numpy-programs fuzz found the twin returning one), an empty input gives NaN
    for shape, axis in (((0, 3), 1), ((2, 0, 3), (0, 2)), ((0, 3), 0), ((3, 0), None)):
        a = np.ones(shape)
        try:
            want = np.average(a, axis=axis)
        except ZeroDivisionError:
            with pytest.raises(ZeroDivisionError):
                np.average(li.asarray(a), axis=axis)
            continue
        np.testing.assert_array_equal(np.asarray(np.average(li.asarray(a), axis=axis)), want)


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.filterwarnings("ignore::lazyinfini.NumpyFallbackWarning")
def test_a_real_dtype_of_complex_input_drops_the_imaginary_parts_as_numpy():
    z = np.array([1 + 2j, 3 - 1j, -0.5 + 4j])
    for fn, dtype in ((np.cumsum, np.float64), (np.sum, np.int64), (np.prod, np.float32)):
        got = np.asarray(fn(li.asarray(z), dtype=dtype))
        assert got.tobytes() == np.asarray(fn(z, dtype=dtype)).tobytes()
    with pytest.raises(TypeError, match="imaginary"):
        li.sum(li.asarray(z), dtype=li.float64)  # NOTE: the namespace's keeps its error


def test_repeat_takes_a_float_count_as_numpy():
    a = np.arange(3)
    for count in (2.0, 2.5, np.float32(1.9), -0.5):
        np.testing.assert_array_equal(np.asarray(np.repeat(li.asarray(a), count)),
                                      np.repeat(a, count))  # fmt: skip


_REDUCTIONS = [np.sum, np.mean, np.max, np.amax, np.min, np.amin, np.argmax, np.argmin]
_METHODS = ["sum", "mean", "max", "min", "argmax", "argmin"]


def _recorded(call, quick: bool):
    """The node `call()` records (or its error), through the quick paths or the twins."""
    table = _numpy_functions.QUICK
    if not quick:
        _numpy_functions.QUICK = {}
    try:
        node = call()._node
    except Exception as error:  # noqa: BLE001 (compared: the same type and message)
        return type(error), str(error)
    finally:
        _numpy_functions.QUICK = table
    return _signature(node)


def _signature(node):
    """A recorded graph as a value: each node's op, shape, dtype, parameters and inputs (a
    buffer by identity)."""
    if node.op is Op.BUFFER:
        return id(node)
    inputs = tuple(_signature(src) for src in node.srcs)
    return node.op, node.shape, node.dtype, arg_key(node), inputs


@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4),
    dtype=st.sampled_from([np.float32, np.float64, np.float16, np.int32, np.bool_]),
    keepdims=st.sampled_from([False, True, None, 1]),
)
def test_quick_reductions_record_the_twins_nodes(data, shape, dtype, keepdims):
    """np.sum/mean/max/min (and the methods) of a float array take a quick path (_numpy_twins/
    quick.py): it records the node the twin would, or leaves the call to it (other dtypes,
    empty or 0-d arrays, other keywords); errors stay the twin's."""
    x = li.asarray(np.zeros(shape, dtype))
    ndim = len(shape)
    pairs = st.tuples(st.integers(-ndim, ndim - 1), st.integers(-ndim, ndim - 1))
    axis = data.draw(st.none() | st.integers(-ndim - 1, ndim) | (pairs if ndim else st.none()))
    kwargs = {"axis": axis} if keepdims is None else {"axis": axis, "keepdims": keepdims}
    name = data.draw(st.sampled_from(_METHODS))
    function = data.draw(st.sampled_from(_REDUCTIONS))
    positional = data.draw(st.booleans())
    for call in (
        lambda: function(x, axis) if positional else function(x, **kwargs),
        lambda: getattr(x, name)(**kwargs),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            twins = _recorded(call, quick=False)
            quick = _recorded(call, quick=True)
        assert quick == twins, (function, name, axis, keepdims)


def test_a_quick_reduction_computes_numpys_value():
    a = RNG.standard_normal((5, 7)).astype(np.float32)
    x = li.asarray(a)
    for got, want in (
        (np.sum(x, axis=1), np.sum(a, axis=1)),
        (x.mean(axis=(0, 1), keepdims=True), a.mean(axis=(0, 1), keepdims=True)),
        (np.amax(x, 0), np.amax(a, 0)),
        (x.min(), a.min()),
        (np.argmax(x, 1), np.argmax(a, 1)),
        (x.argmin(axis=0, keepdims=True), a.argmin(axis=0, keepdims=True)),
    ):
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes()


def _quick_and_twin(function, args: tuple, kwargs: dict):
    """The signatures (or errors) function's Python quick path and its twin record for a call;
    the quick path's None where it leaves the call to the twin."""
    from lazyinfini._numpy_twins import TWINS

    made = []
    for path in (_numpy_functions.QUICK[function], lambda a, k: TWINS[function](*a, **k)):
        try:
            result = path(args, kwargs)
        except Exception as error:  # noqa: BLE001 (compared: the same type and message)
            made.append((type(error), str(error)))
            continue
        made.append(None if result is None else _valued(result._node))
    return made


def _valued(node):
    """_signature with each buffer by its values (an ndarray operand is a new buffer each
    time it is converted)."""
    if node.op is Op.BUFFER:
        data = np.asarray(node.arg.data)
        return data.shape, data.dtype, data.tobytes()
    return node.op, node.shape, node.dtype, arg_key(node), tuple(map(_valued, node.srcs))


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3),
    dtype=st.sampled_from([np.float32, np.float64, np.float16, np.int32]),
)
def test_quick_cumsum_concatenate_and_dot_record_the_twins_nodes(data, shape, dtype):
    """np.cumsum, np.concatenate and np.dot take Python quick paths (_numpy_twins/quick.py)
    that record what the twin records, or leave the call to it."""
    ndim = len(shape)
    x = li.asarray(np.arange(np.prod(shape), dtype=dtype).reshape(shape)) * 1
    axis = data.draw(st.integers(-ndim - 1, ndim) | st.none() | st.just(1.0))
    other_shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    other_dtype = data.draw(st.sampled_from([dtype, np.float64]))
    other = np.ones(data.draw(st.sampled_from([shape, other_shape])), other_dtype)
    if data.draw(st.booleans()):
        other = li.asarray(other) * 1
    calls = [
        (np.cumsum, (x, axis), {}),
        (np.cumsum, (x,), {"axis": axis}),
        (np.concatenate, ([x, other],), {"axis": axis}),
        (np.concatenate, ((other, x, x), axis), {}),
        (np.concatenate, ([x, other],), {}),
        (np.dot, (x, other), {}),
        (np.dot, (other, x), {}),
        (np.convolve, (x, np.ones(other.shape[-1:] or (1,), other_dtype)), {"mode": "valid"}),
        (np.convolve, (x, np.arange(1.0, 4.0).astype(dtype), "V"), {}),
        (np.convolve, (x, np.ones(2, dtype), data.draw(st.sampled_from([0, 1, "same", "f"]))), {}),
    ]
    for function, args, kwargs in calls:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            quick, twin = _quick_and_twin(function, args, kwargs)
        assert quick is None or quick == twin, (function, args, kwargs)


def test_quick_cumsum_concatenate_and_dot_take_their_common_calls():
    x = li.asarray(np.arange(6.0).reshape(2, 3)) * 1
    rows = np.zeros((1, 3))
    for function, args, kwargs in [
        (np.cumsum, (x,), {"axis": 0}),
        (np.concatenate, ([rows, x],), {}),
        (np.concatenate, ((x, x), 1), {}),
        (np.dot, (x, x.T * 1), {}),
        (np.convolve, (x[0] * 1, np.ones(2) / 2), {"mode": "valid"}),
    ]:
        quick, twin = _quick_and_twin(function, args, kwargs)
        assert quick is not None and quick == twin, function
    snapshot = np.ones((1, 3))
    joined = np.concatenate([snapshot, x])
    snapshot[0, 0] = 5.0  # NOTE: numpy read it at the call: so does the quick path
    np.testing.assert_array_equal(
        np.asarray(joined), np.concatenate([np.ones((1, 3)), np.arange(6.0).reshape(2, 3)])
    )


def _reshape_paths(args: tuple, kwargs: dict):
    """What np.reshape's quick path and its twin make of a call: the node, whether the result
    shares x's memory and the steps it reads it through, or the error; None where the quick
    path leaves the call to the twin."""
    from lazyinfini._numpy_twins import TWINS

    made = []
    for path in (_numpy_functions.QUICK[np.reshape], lambda a, k: TWINS[np.reshape](*a, **k)):
        try:
            result = path(args, kwargs)
        except Exception as error:  # noqa: BLE001 (compared: the same type and message)
            made.append((type(error), str(error)))
            continue
        view = None if result is None else result._view
        steps = None if view is None else (view.steps, view.readonly)
        made.append(None if result is None else (_valued(result._node), steps))
    return made


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
    how=st.sampled_from(["pending", "buffer", "transposed", "sliced", "one"]),
)
def test_a_quick_reshape_records_the_twins_nodes_and_views(data, shape, how):
    """np.reshape (x.reshape) of an Array to a shape of ints takes a quick path
    (_numpy_twins/quick.py): the twin's node and view of x (a link where numpy's reshape is a
    view), or it leaves the call to the twin; errors stay the twin's."""
    base = np.arange(float(np.prod(shape))).reshape(shape)
    x = li.asarray(base)
    if how == "pending":
        x = x * 1
    elif how == "transposed":
        x = li.permute_dims(x, tuple(reversed(range(x.ndim))))
    elif how == "sliced" and shape:
        x = x[..., ::-2]
    elif how == "one":
        x = li.asarray(np.arange(6.0))[::-1][:1]  # NOTE: one element, read backwards
    size = int(np.prod(x.shape))
    dims = st.integers(-2, 6) | st.sampled_from([size, -1])
    target = data.draw(
        dims
        | st.tuples(dims, dims)
        | st.tuples(dims)
        | st.tuples(dims, dims, dims)
        | st.just(x.shape)
        | st.just([size])
        | st.just((np.int64(size),))
    )
    kwargs = data.draw(
        st.sampled_from(
            [
                {},
                {"order": "C"},
                {"order": "C", "copy": None},
                {"order": "F"},
                {"order": "C", "copy": True},
            ]
        )
    )
    quick, twin = _reshape_paths((x, target), kwargs)
    assert quick is None or quick == twin, (x.shape, target, kwargs)


def test_a_quick_reshape_takes_the_common_calls():
    x = li.asarray(np.arange(12.0).reshape(3, 4)) * 1
    for target, kwargs in [(-1, {}), ((4, 3), {"order": "C", "copy": None}), ((2, -1), {})]:
        quick, twin = _reshape_paths((x, target), kwargs)
        assert quick is not None and quick == twin, target
    y = li.asarray(np.arange(12.0).reshape(3, 4))
    flat = y.reshape(-1)  # NOTE: a view: writing into it writes y, as numpy's
    flat[0] = 7.0
    assert np.asarray(y)[0, 0] == 7.0


def test_a_count_takes_the_quick_path(monkeypatch):
    """np.sum (x.sum) of bool and integer arrays over an axis records on _numpy_twins/quick.py's
    _counted, not through the twin; numpy's dtypes and values."""
    from lazyinfini._numpy_twins import TWINS

    def refused(*args, **kwargs):
        raise AssertionError("the twin ran")

    monkeypatch.setitem(TWINS, np.sum, refused)
    rng = np.random.default_rng(7)
    for values in (rng.integers(0, 2, (5, 3)).astype(bool), rng.integers(-9, 9, (5, 3), np.int32),
                   rng.integers(0, 200, (5, 3), np.uint8), rng.integers(0, 9, (5, 3))):  # fmt: skip
        x = li.asarray(values)
        calls = [
            (x.sum(axis=0), values.sum(axis=0)),
            (np.sum(x, 1), np.sum(values, 1)),
            (np.sum(x, axis=None, keepdims=True), values.sum(keepdims=True)),
        ]
        for got, want in calls:
            got = np.asarray(got)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
