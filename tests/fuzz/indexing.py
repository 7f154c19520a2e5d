"""Indexing steps: gathers by integer arrays (literal, pending or from the pool), take and
take_along_axis, boolean masks, and setitem through every kind of key."""

from __future__ import annotations

import numpy as np

from tests.fuzz.dtypes import BOOL, INTEGER, REAL, broadcasts, promotes_into
from tests.fuzz.errors import structural
from tests.fuzz.numbers import wide
from tests.fuzz.program import Builder, Reject, Value, name_of


def _index_expression(
    b: Builder, n: int, count: int, pool: bool = True, limit: int = 1 << 22
) -> tuple[str, bool]:
    """An integer index array of `count` positions in [-n, n): a literal or a pending array
    (one of the pool's holds at most `limit` positions). Returns the text and whether the
    positions are distinct (for setitem)."""
    if n == 0:
        return "li.asarray(np.zeros(0, dtype=np.int64))", True
    how = b.choice(("literal", "pending", "arange", "pool"))
    if how == "pool" and pool:
        try:
            return _pool_index(b, n, limit)
        except Reject:
            pass
    if how == "arange" or count > 12:
        if count <= n and b.flag():
            positions = f"np.arange({n})[::-1][:{count}]"
        else:
            positions = f"rng({b.seed()}).integers({-n}, {n}, {count})"
        text = f"li.asarray({positions})"
        distinct = positions.startswith("np.arange")
    else:
        values = [b.integer(-n, n - 1) for _ in range(count)]
        dtype = b.choice(("np.int64", "np.int32", "np.int16")) if max(n, 1) < 1000 else "np.int64"
        text = f"li.asarray(np.array({values}, dtype={dtype}))"
        distinct = len({v % n for v in values}) == len(values)
    if how == "pending":
        text = f"li.flip({text})"
    return text, distinct


def _pool_index(b: Builder, n: int, limit: int) -> tuple[str, bool]:
    """An exact integer value of the pool, every position in [-n, n), and whether they are
    distinct (Reject: none)."""
    v = b.pick(
        lambda v: (
            v.dtype in INTEGER
            and v.exact
            and 1 <= v.value.ndim <= 2
            and 0 < v.value.size <= limit
            and int(wide(v.value).min()) >= -n
            and int(wide(v.value).max()) < n
        )
    )
    flat = wide(v.value).ravel() % n
    return v.name, len(set(flat.tolist())) == flat.size


def step_gather(b: Builder) -> None:
    x = b.pick(lambda v: v.value.ndim >= 1)
    axis = b.integer(0, x.value.ndim - 1)
    n = x.shape[axis]
    count = b.integer(0, 6) if not b.big else b.choice((3, n // 2, n))
    # NOTE: a pooled index of millions over an axis of a large array would ask for terabytes.
    limit = max(1, (1 << 22) // max(1, x.value.size // max(n, 1)))
    index, _ = _index_expression(b, n, count, limit=limit)
    how = b.choice(("leading", "ellipsis", "take", "two"))
    if how == "take":
        b.emit(f"li.take({x.name}, {index}, axis={axis})", x.err)
        return
    if how == "two" and axis + 1 < x.value.ndim:
        count = count if n and x.shape[axis + 1] else 0
        index, _ = _index_expression(b, n, count, pool=False)
        second, _ = _index_expression(b, x.shape[axis + 1], count, pool=False)
        key = [":"] * axis + [index, second]
    elif how == "ellipsis":
        key = ["..."] + [index] + [":"] * (x.value.ndim - 1 - axis)
    else:
        key = [":"] * axis + [index]
    b.emit(f"{x.name}[{', '.join(key)}]", x.err)


def step_take_along(b: Builder) -> None:
    x = b.pick(lambda v: v.value.ndim >= 1 and v.dtype in REAL and v.exact)
    axis = b.integer(-x.value.ndim, x.value.ndim - 1)
    y = b.pick(lambda v: v.shape == x.shape)
    b.emit(f"li.take_along_axis({y.name}, li.argsort({x.name}, axis={axis}), axis={axis})", y.err)


def _mask_expression(b: Builder, shape) -> str:
    """A boolean array of `shape`: from the pool, a comparison or a literal."""
    how = b.choice(("compare", "pool", "literal"))
    if how == "pool":
        try:
            return b.pick(lambda v: v.dtype == BOOL and v.exact and v.shape == shape).name
        except Reject:
            pass
    if how == "compare":
        try:
            v = b.pick(lambda v: v.dtype in REAL and v.exact and v.shape == shape)
            return f"({v.name} > {b.scalar(v.dtype)!r})"
        except Reject:
            pass
    return f"li.asarray(rng({b.seed()}).random({shape}) < 0.5)"


def step_mask(b: Builder) -> None:
    x = b.pick(lambda v: v.value.ndim >= 1)
    if b.flag():
        covered = b.integer(1, x.value.ndim)
        b.emit(f"{x.name}[{_mask_expression(b, x.shape[:covered])}]", x.err)
    else:
        axis = b.integer(0, x.value.ndim - 1)
        key = [":"] * axis + [_mask_expression(b, x.shape[axis : axis + 1])]
        b.emit(f"{x.name}[{', '.join(key)}]", x.err)


def step_setitem(b: Builder) -> None:
    x = b.pick(lambda v: v.value.ndim >= 1 and b.writable(v))
    key = _setitem_key(b, x)
    target = b.evaluate(f"{x.name}[{key}]").shape
    value = _setitem_value(b, x, target)
    err = structural((x, value))
    if b.flag():  # a fresh name sharing x's node, then written to
        name = b.emit(f"{x.name}[...]", x.err).name
        b.emit_statement(f"{name}[{key}] = {name_of(value)}")
        b.rebind(name, err)
    else:
        b.emit_statement(f"{x.name}[{key}] = {name_of(value)}")
        b.rebind(x.name, err)


def _setitem_key(b: Builder, x: Value) -> str:
    """A key of basic indices, one integer array of distinct positions, or a boolean mask."""
    how = b.choice(("basic", "basic", "array", "mask"))
    if how == "basic":
        items = []
        for n in x.shape:
            kind = b.choice(("all", "reverse", "range", "int"))
            if kind == "int" and n:
                items.append(str(b.integer(-n, n - 1)))
            elif kind == "reverse":
                items.append(f"::{b.choice((-1, -2))}")
            elif kind == "range":
                items.append(f"{b.integer(-n, n)}:{b.integer(-n, n)}")
            else:
                items.append(":")
        return ", ".join(items)
    if how == "array":
        axis = b.integer(0, x.value.ndim - 1)
        index, distinct = _index_expression(b, x.shape[axis], b.integer(0, 4))
        if not distinct:  # Note (spec): repeated positions may be written in any order
            raise Reject("repeated positions")
        return ", ".join([":"] * axis + [index])
    return _mask_expression(b, x.shape[: b.integer(1, x.value.ndim)])


def _setitem_value(b: Builder, x: Value, target):
    if b.flag():
        try:
            return b.pick(
                lambda v: (
                    promotes_into(v.dtype, x.dtype, (x.dtype,))
                    and v.value.ndim <= len(target)
                    and broadcasts(v.shape, target)
                    and np.broadcast_shapes(v.shape, target) == tuple(target)
                )
            )
        except Reject:
            pass
    scalar = b.scalar(x.dtype)
    return int(scalar) if x.dtype in INTEGER else scalar
