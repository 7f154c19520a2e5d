"""array-api-extra on lazyinfini arrays, against array_api_strict; and array_api_compat's view of
lazyinfini as a lazy library.

array_api_compat.is_lazy_array probes a library it does not know by calling bool() on a one-element
reduction of the array. In strict mode lazyinfini refuses to read a pending scalar, so the probe
says True (lazy) for every lazyinfini array; by default the probe's value is computed, so it says
False and has run kernels (the array itself stays pending).
"""

from __future__ import annotations

import array_api_compat
import array_api_extra as xpx
import numpy as np
import pytest

import lazyinfini as li
from tests.integration.reference import assert_same, run_both

RNG = np.random.default_rng(2)
X = RNG.standard_normal((4, 5))
V = RNG.standard_normal(7)
I = np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=np.int64)  # noqa: E741


@pytest.mark.parametrize(
    "fn",
    [
        lambda xp, x, v, i: xpx.atleast_nd(v, ndim=3),
        lambda xp, x, v, i: xpx.nan_to_num(xp.where(x > 1.0, xp.nan, x), fill_value=-1.0),
        lambda xp, x, v, i: xpx.cov(x),
        lambda xp, x, v, i: xpx.kron(x[:2, :2], x[:3, :2]),
        lambda xp, x, v, i: xpx.pad(x, 2, constant_values=7.0),
        lambda xp, x, v, i: xpx.pad(x, ((1, 0), (0, 2))),
        lambda xp, x, v, i: xpx.sinc(v),
        lambda xp, x, v, i: xpx.create_diagonal(v, offset=1),
        lambda xp, x, v, i: xpx.one_hot(i, 10),
        lambda xp, x, v, i: xpx.isin(i, i[:2]),
        lambda xp, x, v, i: xpx.searchsorted(xp.sort(v), v[:3]),
        lambda xp, x, v, i: xpx.nansum(xp.where(x > 1.0, xp.nan, x), axis=0),
    ],
    ids=["atleast_nd", "nan_to_num", "cov", "kron", "pad", "pad_widths", "sinc"]
    + ["create_diagonal", "one_hot", "isin", "searchsorted", "nansum"],
)
def test_functions_are_recorded_then_match(fn):
    # These use no value-dependent shapes: on pending inputs they record and run nothing.
    lazy, strict = run_both(fn, X, V, I)
    pending = [li.asarray(X) * 1.0, li.asarray(V) * 1.0, li.asarray(I) * 1]
    before = li.inspect.counters.kernels
    with li.options(strict=True):
        recorded = fn(li, *pending)
    assert li.inspect.counters.kernels == before
    assert_same(lazy, strict)
    assert_same(recorded, strict)


@pytest.mark.parametrize(
    "fn",
    [
        lambda xp, v, i: xpx.isclose(v, v + 1e-9),
        lambda xp, v, i: xpx.isclose(i, i[::-1], atol=1),
        lambda xp, v, i: xpx.nunique(i),
        lambda xp, v, i: xpx.setdiff1d(i, xp.asarray([1, 2], dtype=xp.int64)),
        lambda xp, v, i: xpx.union1d(i, xp.asarray([0, 20], dtype=xp.int64)),
    ],
    ids=["isclose", "isclose_int", "nunique", "setdiff1d", "union1d"],
)
def test_functions_with_data_dependent_steps(fn):
    assert_same(*run_both(fn, V, I))


@pytest.mark.parametrize(
    "update",
    [
        lambda xp, x: xpx.at(x)[1:3, :].set(0.0),
        lambda xp, x: xpx.at(x)[x < 0].add(10.0),
        lambda xp, x: xpx.at(x)[:, 1].power(2.0),
        lambda xp, x: xpx.at(x)[1, 1:].divide(3.0),
        lambda xp, x: xpx.at(x)[..., -1].subtract(1.0),
        lambda xp, x: xpx.at(x)[::2, :].min(0.0),
        lambda xp, x: xpx.at(x, (0, slice(None))).max(x[1, :]),
        lambda xp, x: xpx.at(x)[0, :].set(1.0, copy=True),
    ],
    ids=["set", "add_mask", "power", "divide", "subtract", "min", "max", "copy"],
)
def test_at_updates(update):
    assert_same(*run_both(update, X))


def test_at_in_place_writes_x_and_its_views_as_numpy():
    # copy=False writes "in place": x itself is rebound to the update (x[idx] = y), and so are
    # its views, as numpy's; results computed from x before (copies) keep the old value.
    x, x_np = li.asarray(X), X.copy()
    (row, doubled), row_np = (x[0, :], x * 2.0), x_np[0, :]
    y = xpx.at(x)[0, :].set(5.0, copy=False)
    xpx.at(x_np)[0, :].set(5.0, copy=False)
    assert y is x
    np.testing.assert_array_equal(np.asarray(x), x_np)
    np.testing.assert_array_equal(np.asarray(row), row_np)
    np.testing.assert_array_equal(np.asarray(doubled), X * 2.0)


def test_apply_where():
    def both_branches(xp, v):
        return xpx.apply_where(v > 0, (v, v + 1.0), lambda a, b: a * b, lambda a, b: a - b)

    assert_same(*run_both(both_branches, V))
    fill = run_both(lambda xp, v: xpx.apply_where(v > 0, v, xp.sqrt, fill_value=-1.0), V)
    assert_same(*fill)


def test_lazy_apply():
    def run(xp, x, i):
        cumulative = xpx.lazy_apply(np.cumsum, x, shape=(x.size,), dtype=xp.float64)
        unique = xpx.lazy_apply(np.unique, i, shape=(None,), dtype=xp.int64)
        pair = xpx.lazy_apply(
            lambda a, b: (a + b, a * b), x, x, shape=(x.shape, x.shape), dtype=(x.dtype, x.dtype)
        )
        return cumulative, unique, *pair

    lazy, strict = run_both(run, X, I)
    assert_same(lazy, strict)
    np.testing.assert_array_equal(np.asarray(lazy[1]), np.unique(I))


def test_is_lazy_array_in_strict_mode():
    computed = li.asarray(X)
    pending = li.exp(computed) + 1.0
    with li.options(strict=True):
        assert array_api_compat.is_lazy_array(pending)
        assert array_api_compat.is_lazy_array(computed)  # the probe's reduction is pending
    assert pending._node.op.label != "buffer"


def test_is_lazy_array_by_default_reads_one_element():
    pending = li.exp(li.asarray(X)) + 1.0
    before = li.inspect.counters.snapshot()
    assert not array_api_compat.is_lazy_array(pending)
    assert li.inspect.counters.implicit_materializations > before["implicit_materializations"]
    # The probe reduced `pending`, which a live array holds: its value is kept, not recomputed.
    assert pending._node.op.label == "buffer"
    assert array_api_compat.is_writeable_array(pending)
    assert array_api_compat.array_namespace(pending) is li
