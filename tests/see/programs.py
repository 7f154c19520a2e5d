"""The programs the drawing's tests look at, recorded on known lines of this file."""

from __future__ import annotations

import sys

import numpy as np

import lazyinfini as li

LINES: dict[str, int] = {}


def _here(name: str) -> None:
    LINES[name] = sys._getframe(1).f_lineno + 1  # NOTE: the line after the call


def transpose_clip_sum_rearrange(n: int = 64) -> tuple:
    """clip(aᵀ - b, 0, 1), its column sums, and a rearrange of a (a layout copy): three
    outputs, three kernels (fused elementwise, a reduction, a rearrange)."""
    rng = np.random.default_rng(0)
    a = li.asarray(rng.standard_normal((2 * n, n)).astype(np.float32))
    b = li.asarray(rng.standard_normal((n, 2 * n)).astype(np.float32))
    _here("clip")
    y = li.clip(li.permute_dims(a, (1, 0)) - b, 0, 1)
    _here("sum")
    s = li.sum(y, axis=0)
    _here("rearrange")
    r = li.permute_dims(li.reshape(a, (4, n // 2, n)), (2, 0, 1))
    return y, s, r


def chain(length: int) -> li.Array:
    """One long fused chain of elementwise ops, then a reduction."""
    x = li.asarray(np.linspace(0, 1, 256, dtype=np.float32))
    for _ in range(length):
        x = li.sin(x) * 0.5 + 0.25
    return li.sum(x)


def many_kernels(steps: int) -> li.Array:
    """A loop whose every step makes a few kernels: transposes, reductions, broadcasts."""
    rng = np.random.default_rng(1)
    x = li.asarray(rng.standard_normal((16, 16)).astype(np.float32))
    w = li.asarray(rng.standard_normal((16, 16)).astype(np.float32))
    for i in range(steps):
        y = li.clip(li.permute_dims(x, (1, 0)) - w, -1, 1) * 0.5
        x = x + li.sum(y, axis=0) / 16
        if i % 10 == 0:
            x = li.exp(-x * x)
    return x
