"""Sorting, set and searching steps: sort and argsort, searchsorted, unique, nonzero, isin and
count_nonzero."""

from __future__ import annotations

import numpy as np

import lazyinfini as li
from tests.fuzz.check import agree_with
from tests.fuzz.dtypes import REAL, promote
from tests.fuzz.errors import require_exact
from tests.fuzz.program import Builder, Reject
from tests.fuzz.reductions import draw_axes


def step_sort(b: Builder) -> None:
    name = b.choice(("sort", "argsort"))
    x = b.pick(lambda v: v.dtype in REAL and v.value.ndim >= 1)
    axis = b.integer(-x.value.ndim, x.value.ndim - 1)
    descending = b.flag()
    stable = b.flag() or name == "argsort"  # unstable ties may come in any order
    text = f"li.{name}({x.name}, axis={axis}, descending={descending}, stable={stable})"
    if name == "argsort":
        require_exact(x)
    out = b.emit(text, 0.0 if name == "argsort" else x.err)
    if not descending and x.dtype != li.bfloat16:  # NOTE: ml_dtypes' sort misplaces NaN
        agree_with(out, lambda: getattr(np, name)(x.value, axis=axis, kind="stable"))


def step_search(b: Builder) -> None:
    """Sets and searching: results whose shape or values depend on exact inputs."""
    x = b.pick(lambda v: v.exact and v.dtype in REAL)
    how = b.choice(("searchsorted", "unique", "nonzero", "isin", "count"))
    if how == "searchsorted":
        y = b.pick(lambda v: v.exact and v.dtype == x.dtype)
        side = b.choice(("left", "right"))
        text = f"li.searchsorted(li.sort(li.reshape({x.name}, (-1,))), {y.name}, side={side!r})"
    elif how == "unique":
        kind = b.choice(("unique_values", "unique_counts", "unique_inverse", "unique_all"))
        part = (
            "" if kind == "unique_values" else f"[{b.integer(0, 1 if kind != 'unique_all' else 3)}]"
        )
        text = f"li.{kind}({x.name}){part}"
    elif how == "nonzero":
        if x.value.ndim == 0:
            raise Reject("nonzero of 0-d")
        text = f"li.nonzero({x.name})[{b.integer(0, x.value.ndim - 1)}]"
    elif how == "isin":
        y = b.pick(lambda v: v.exact and v.dtype in REAL and promote(v.dtype, x.dtype) is not None)
        text = f"li.isin({x.name}, {y.name}, invert={b.flag()})"
    else:
        axis, _ = draw_axes(b, x)
        text = f"li.count_nonzero({x.name}, axis={axis!r})"
    b.emit(text, 0.0)
