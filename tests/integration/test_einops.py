"""einops.array_api on lazyinfini arrays: rearrange, reduce, repeat, pack and unpack.

The reference is einops on numpy arrays, and array_api_strict where it accepts the call:
einops.array_api passes the target shape to `reshape` as a list, which array_api_strict refuses
("`shape` must be a tuple of ints") and lazyinfini, like numpy, accepts. A rearrangement only
records movement nodes: no kernel runs until the value is asked for.
"""

from __future__ import annotations

import einops
import einops.array_api as ea
import numpy as np
import pytest

import lazyinfini as li
from tests.integration.reference import assert_same, run_both

X = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5) / 7
MOVEMENT = {"buffer", "reshape", "permute_dims", "broadcast_to", "slice"}

# (pattern, sizes, whether array_api_strict takes the reshape einops asks for)
REARRANGEMENTS = [
    ("b c h w -> b h w c", {}, True),
    ("b c h w -> b (h w) c", {}, False),
    ("b c (h1 h2) w -> (b h1) c h2 w", {"h1": 2}, False),
    ("b c h w -> (c b) w h", {}, False),
]


@pytest.mark.parametrize("pattern, sizes, strict_ok", REARRANGEMENTS)
def test_rearrange(pattern, sizes, strict_ok):
    lazy = ea.rearrange(li.asarray(X), pattern, **sizes)
    assert {n.op.label for n in li.graph(lazy)} <= MOVEMENT
    assert_same(lazy, einops.rearrange(X, pattern, **sizes), rtol=0, atol=0)
    if strict_ok:
        assert_same(*run_both(lambda xp, x: ea.rearrange(x, pattern, **sizes), X), rtol=0, atol=0)


def test_rearrange_records_only_movement_until_asked():
    x = li.asarray(X)
    before = li.inspect.counters.kernels
    y = ea.rearrange(x, "b c (h1 h2) w -> (b h1) c h2 w", h1=2)
    z = ea.rearrange(y, "(b h1) c h2 w -> b c (h1 h2) w", h1=2)  # back again
    assert li.inspect.counters.kernels == before
    assert {n.op.label for n in li.graph(z)} <= MOVEMENT
    np.testing.assert_array_equal(np.asarray(z), X)
    assert len(li.inspect.schedule(ea.rearrange(x, "b c h w -> b h w c")).kernels) <= 1


@pytest.mark.parametrize(
    "pattern, reduction, strict_ok",
    [
        ("b c h w -> b c", "mean", True),
        ("b c h w -> c", "sum", True),
        ("b c h w -> h w", "min", True),
        ("b c h w -> b c h", "prod", True),
        ("b c (h 2) w -> b c h w", "max", False),  # 2x1 max pooling
    ],
)
def test_reduce(pattern, reduction, strict_ok):
    lazy = ea.reduce(li.asarray(X), pattern, reduction)
    assert_same(lazy, einops.reduce(X, pattern, reduction), rtol=1e-6)
    if strict_ok:
        assert_same(*run_both(lambda xp, x: ea.reduce(x, pattern, reduction), X), rtol=1e-6)


@pytest.mark.parametrize(
    "pattern, sizes, strict_ok",
    [("h w -> h w r", {"r": 3}, True), ("h w -> (h 2) (w r)", {"r": 2}, False)],
)
def test_repeat(pattern, sizes, strict_ok):
    image = X[0, 0]
    lazy = ea.repeat(li.asarray(image), pattern, **sizes)
    assert_same(lazy, einops.repeat(image, pattern, **sizes), rtol=0, atol=0)
    if strict_ok:
        assert_same(*run_both(lambda xp, x: ea.repeat(x, pattern, **sizes), image), rtol=0, atol=0)


def test_pack_and_unpack():
    def round_trip(xp, x, y):
        packed, shapes = ea.pack([x, y], "b c *")
        return (packed, *ea.unpack(packed, shapes, "b c *"))

    lazy, strict = run_both(round_trip, X, X[:, :, 0])
    assert_same(lazy, strict, rtol=0, atol=0)
    np.testing.assert_array_equal(np.asarray(lazy[1]), X)
