"""Reduction steps: sums, means and products (exact when every partial sum or product is, in
any order), extremes, statistics, cumulative ops, diff, and the contractions matmul, vecdot
and tensordot."""

from __future__ import annotations

import math

import numpy as np

import lazyinfini as li
from tests.fuzz.check import agree_with
from tests.fuzz.dtypes import (
    ANY,
    FLOATS,
    INTEGER,
    MANTISSA,
    NUMERIC,
    REAL,
    broadcasts,
    compute_dtype,
    promote,
    reduce_dtype,
)
from tests.fuzz.errors import approximate, propagate, require_exact
from tests.fuzz.numbers import (
    all_finite,
    below_power,
    eps,
    exactly_multipliable,
    exactly_summable,
    magnitude,
    quantum_exponent,
    row_sums,
    wide,
)
from tests.fuzz.program import Builder, Reject, Value
from tests.oracle import assert_close


def draw_axes(b: Builder, x: Value):
    """A reduction's axis argument (None, one axis or a tuple) and the axes it names (>= 0)."""
    ndim = x.value.ndim
    how = b.choice(("none", "one", "tuple"))
    if how == "none" or ndim == 0:
        return None, tuple(range(ndim))
    if how == "one":
        axis = b.integer(-ndim, ndim - 1)
        return axis, (axis % ndim,)
    axes = tuple(a for a in range(ndim) if b.flag())
    return axes, axes


def _reduce_text(name: str, x: Value, axis, keepdims: bool, extra: str = "") -> str:
    keep = ", keepdims=True" if keepdims else ""
    return f"li.{name}({x.name}, axis={axis!r}{keep}{extra})"


def step_sum(b: Builder) -> None:
    name = b.choice(("sum", "mean", "sum", "prod"))
    x = b.pick(lambda v: v.dtype in (FLOATS if name == "mean" else NUMERIC))
    axis, axes = draw_axes(b, x)
    n = math.prod(x.shape[a] for a in axes)
    keepdims = b.flag()
    text = _reduce_text(name, x, axis, keepdims)
    if name == "prod":
        out = b.emit(text, _product_err(x, axes, n, reduce_dtype(x.dtype)))
    else:
        acc = compute_dtype(x.dtype) if name == "mean" else reduce_dtype(x.dtype)
        out = b.emit(text, _sum_err(x, axes, n, mean=name == "mean", acc=acc))
    if x.dtype in INTEGER:  # integer sums wrap the same in any order
        agree_with(out, lambda: getattr(np, name)(x.value, axis=axes, keepdims=keepdims))


def step_row_sum(b: Builder) -> None:
    """A float sum over the last axes of an elementwise value: the cpu takes the value as the
    sum's prologue (one REDUCE kernel) and sums each row in numpy's pairwise order, so where
    the prologue's ops round once (no borrowed loop) its bits are the unfused cpu's (each
    value written C-contiguous, then numpy's sum): checked at once. The reference's numpy
    keeps a transposed input's layout, whose rows numpy sums in another order: every device
    agrees with it within the sum's bound."""
    x = b.pick(lambda v: v.dtype in FLOATS and v.value.ndim > 0 and v.exact)
    y = b.pick(lambda v: v.dtype == x.dtype and v.shape == x.shape and v.exact)
    form = b.choice(("{x} * {y}", "li.abs({x} - {y})", "{x} * {x} - {y}", "({x} + 0.5) * {y}"))
    expression = form.format(x=x.name, y=y.name)
    ndim = x.value.ndim
    count = b.integer(1, ndim)
    axes = tuple(range(ndim - count, ndim))
    axis = -1 if count == 1 and b.flag() else axes
    prologue = b.emit(expression, 0.0)  # NOTE: each op rounds once, the same on any device
    text = f"li.sum({expression}, axis={axis!r})"
    n = math.prod(x.shape[a] for a in axes)
    b.emit(text, _sum_err(prologue, axes, n, False, reduce_dtype(x.dtype)))
    runs = []
    for fuse in (True, False):
        with li.options(device="cpu", fuse=fuse):
            runs.append(np.asarray(eval(text, b.namespace)))
    assert_close(*runs, exact=True)


def _sum_err(x: Value, axes, n: int, mean: bool, acc):
    """A sum's error: none where every partial sum is exact in `acc`, the dtype its partial
    sums may round to; else a bound grown by each addition."""
    if x.exact and exactly_summable(x.value, axes, acc):
        return 0.0
    rows = row_sums(x.value, axes)
    largest = float(rows.max()) if rows.size else 0.0
    # NOTE: rows with inf or NaN give inf or NaN in any order, unless a finite sum overflows.
    if largest > float(li.finfo(acc).max) / 16:
        raise Reject("a sum at the edge of overflow")
    bound = n * x.err + max(n - 1, 0) * eps(acc) * largest
    if mean:
        bound = bound / max(n, 1)
    return lambda out: approximate(out, bound + eps(compute_dtype(x.dtype)) * magnitude(out))


def _product_err(x: Value, axes, n: int, acc):
    if x.exact and exactly_multipliable(x.value, axes, acc):
        return 0.0
    require_exact(x)
    w = np.abs(wide(x.value))
    nonzero = w[w != 0]
    if not all_finite(x.value) or n > 16 or (nonzero.size and not (nonzero > 2**-8).all()):
        raise Reject("an inexact product at the edge")
    return lambda out: approximate(out, 2 * n * eps(acc) * magnitude(out))


def step_extreme(b: Builder) -> None:
    name = b.choice(("max", "min", "argmax", "argmin", "any", "all", "count_nonzero"))
    dtypes = REAL if name in ("max", "min", "argmax", "argmin") else ANY
    x = b.pick(lambda v: v.dtype in dtypes)
    if name.startswith("arg"):
        axis = b.choice((None, *range(-x.value.ndim, x.value.ndim)))
        axes = tuple(range(x.value.ndim)) if axis is None else (axis % x.value.ndim,)
    else:
        axis, axes = draw_axes(b, x)
    if name in ("max", "min", "argmax", "argmin") and any(x.shape[a] == 0 for a in axes):
        raise Reject("an empty extreme")
    if name in ("max", "min"):
        err = x.err
    else:
        require_exact(x)
        err = 0.0
    keepdims = b.flag()
    out = b.emit(_reduce_text(name, x, axis, keepdims), err)
    where = axis if name.startswith("arg") else axes
    agree_with(out, lambda: getattr(np, name)(x.value, axis=where, keepdims=keepdims))


def step_statistics(b: Builder) -> None:
    name = b.choice(("std", "var"))
    x = b.pick(lambda v: v.dtype in FLOATS and v.exact and all_finite(v.value))
    axis, axes = draw_axes(b, x)
    n = math.prod(x.shape[a] for a in axes)
    correction = b.choice((0, 1))
    if n - correction <= 0:
        raise Reject("no degrees of freedom")
    big = magnitude(x.value)
    var = (8 * n + 16) * eps(reduce_dtype(x.dtype)) * big * big * n / (n - correction)
    if not var < float(li.finfo(x.dtype).max) / 16:
        raise Reject("a variance at the edge of overflow")

    def rule(out):
        if name == "var":
            return approximate(out, var)
        # |sqrt(v) - sqrt(w)| <= min(sqrt(|v - w|), |v - w| / sqrt(v))
        smallest = float(np.min(wide(out), initial=np.inf))
        return approximate(out, min(math.sqrt(var), var / smallest if smallest > 0 else np.inf))

    b.emit(_reduce_text(name, x, axis, b.flag(), f", correction={correction}"), rule)


def step_cumulative(b: Builder) -> None:
    name = b.choice(("cumulative_sum", "cumulative_sum", "cumulative_prod"))
    x = b.pick(lambda v: v.dtype in NUMERIC and v.value.ndim >= 1)
    axis = b.integer(-x.value.ndim, x.value.ndim - 1)
    n = x.shape[axis]
    initial = ", include_initial=True" if b.flag() else ""
    text = f"li.{name}({x.name}, axis={axis}{initial})"
    if name == "cumulative_sum":
        out = b.emit(text, _sum_err(x, (axis % x.value.ndim,), n, False, compute_dtype(x.dtype)))
    else:
        out = b.emit(text, _product_err(x, (axis % x.value.ndim,), n, compute_dtype(x.dtype)))
    if x.dtype in INTEGER and not initial:
        numpy_name = "cumsum" if name == "cumulative_sum" else "cumprod"
        agree_with(out, lambda: getattr(np, numpy_name)(x.value, axis=axis))


def step_diff(b: Builder) -> None:
    x = b.pick(lambda v: v.dtype in NUMERIC and v.value.ndim >= 1)
    axis = b.integer(-x.value.ndim, x.value.ndim - 1)
    n = b.integer(1, 2)
    b.emit(f"li.diff({x.name}, axis={axis}, n={n})", propagate((x,), lambda e, m: 2**n * e[0]))


def step_matmul(b: Builder) -> None:
    x = b.pick(lambda v: v.dtype in NUMERIC and v.value.ndim >= 1)
    k = x.shape[-1]
    y = b.pick(
        lambda v: (
            v.dtype in NUMERIC
            and v.value.ndim >= 1
            and v.shape[-2 if v.value.ndim >= 2 else -1] == k
            and promote(v.dtype, x.dtype) is not None
            and broadcasts(x.shape[:-2], v.shape[:-2])
        )
    )
    text = f"{x.name} @ {y.name}" if b.flag() else f"li.matmul({x.name}, {y.name})"
    a, c = wide(x.value), wide(y.value)
    a, c = np.where(np.isfinite(a), np.abs(a), 0), np.where(np.isfinite(c), np.abs(c), 0)
    terms = a @ c if a.size and c.size else np.zeros(0)
    b.emit(text, _dot_err(x, y, k, terms))


def step_contract(b: Builder) -> None:
    """vecdot and tensordot: sums of products, exact when every partial sum is."""
    x = b.pick(lambda v: v.dtype in NUMERIC and v.value.ndim >= 1)
    k = x.shape[-1]
    y = b.pick(
        lambda v: (
            v.dtype in NUMERIC
            and v.value.ndim >= 1
            and v.shape[-1] == k
            and promote(v.dtype, x.dtype) is not None
            and broadcasts(x.shape[:-1], v.shape[:-1])
        )
    )
    a, c = np.abs(wide(x.value)), np.abs(wide(y.value))
    if b.flag():
        text = f"li.vecdot({x.name}, {y.name})"
        terms = (np.where(np.isfinite(a), a, 0) * np.where(np.isfinite(c), c, 0)).sum(axis=-1)
    else:
        y_t = f"li.moveaxis({y.name}, -1, 0)"
        text = f"li.tensordot({x.name}, {y_t}, axes=1)"
        a, c = np.where(np.isfinite(a), a, 0), np.moveaxis(np.where(np.isfinite(c), c, 0), -1, 0)
        if a.size // max(k, 1) * (c.size // max(k, 1)) > 200_000:
            raise Reject("a large tensordot")
        terms = np.tensordot(a, c, axes=1)
    b.emit(text, _dot_err(x, y, k, terms))


def _dot_err(x: Value, y: Value, k: int, terms):
    """Sums of k products: exact when every partial sum is (any order, any FMA), else bound."""
    dtype = promote(x.dtype, y.dtype)
    if dtype not in FLOATS:
        return 0.0
    largest = float(np.max(terms, initial=0.0))
    quantum = quantum_exponent(x.value) + quantum_exponent(y.value)
    exact = below_power(largest, MANTISSA[compute_dtype(dtype)] + quantum)
    finite = all_finite(x.value) and all_finite(y.value)
    if x.exact and y.exact and finite and exact:
        return 0.0
    require_exact(x, y)
    if not finite:
        raise Reject("an inexact sum of products of inf or NaN")
    bound = (k + 2) * eps(compute_dtype(dtype)) * largest
    return lambda out: approximate(out, bound)
