"""numpy's correlate of a signal with a short kernel, summed as numpy sums it, written for any
Array API namespace: the CORRELATE op of a short signal runs it on the device's library (see
library.CUSTOM), and np.correlate's twin records it with lazyinfini's namespace for a long one
(one elementwise kernel). One formula, so the two give the same bits.

For each output numpy computes `s = 0; s += x[i + j] * k[j]` for j in order: its
small_correlate (a float kernel of at most 11 values), its integer dot loop, and its half dot
(float16 summed in float32 and rounded once: the caller widens first). 'same' and 'full' pad
integers with zeros.
"""

from __future__ import annotations

import functools

import numpy as np

from .._graph import Op


def sliding_sum(xp, x, kernel, *, left: int = 0, right: int = 0):
    """Each output's sum of x[i + j] * kernel[j], j in order, after `left` and `right` zeros
    are joined to x. `kernel` is an array or a list of Python numbers (exact in x's dtype:
    scalars, not loads, in a fused kernel). `xp` is any Array API namespace; ndarrays are
    summed by _numpy_sum, the same calls into buffers made once."""
    if isinstance(x, np.ndarray) and isinstance(kernel, np.ndarray):
        return _numpy_sum(x, kernel, left, right)
    return namespace_sum(xp, x, kernel, left=left, right=right)


def namespace_sum(xp, x, kernel, *, left: int = 0, right: int = 0):
    """sliding_sum in any namespace `xp`: a namespace call per tap and per sum."""
    if left or right:
        zeros = [xp.zeros((left,), dtype=x.dtype), x, xp.zeros((right,), dtype=x.dtype)]
        x = xp.concat(zeros)
    taps = len(kernel) if isinstance(kernel, list) else kernel.shape[0]
    length = x.shape[0] - taps + 1
    # NOTE: numpy's sum starts at 0 (0 + -0.0 is +0.0); an integer sum needs no start
    total = xp.zeros((), dtype=x.dtype) if xp.isdtype(x.dtype, "real floating") else None
    for j in range(taps):
        term = xp.multiply(x[j : j + length], kernel[j])
        total = term if total is None else xp.add(total, term)
    return total


def _numpy_sum(x: np.ndarray, kernel: np.ndarray, left: int, right: int) -> np.ndarray:
    """namespace_sum's products and sums on ndarrays, each ufunc writing into a buffer made
    once: the same elementwise operations in the same order, so the same bits (each call of
    the namespace's cost ~2 us: a 64-value signal's 5 taps took ~90 us). Where numpy's own
    small_correlate computes them (float32 or float64 of one dtype, at most 11 taps, no
    padding), np.correlate: the same sums in the same order, one call (~0.6 us, not ~7)."""
    if not (left or right) and _small(x, kernel):
        return np.correlate(x, kernel, "valid")
    if left or right:
        x = np.concatenate([np.zeros(left, x.dtype), x, np.zeros(right, x.dtype)])
    return _ufunc_sum(x, kernel)


def _ufunc_sum(x: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    length = x.shape[0] - kernel.shape[0] + 1
    term = np.empty(length, x.dtype)
    total = np.zeros(length, x.dtype) if x.dtype.kind == "f" else None  # NOTE: 0 + -0.0
    for j in range(kernel.shape[0]):
        np.multiply(x[j : j + length], kernel[j], out=term)
        if total is None:
            total, term = term, np.empty(length, x.dtype)
        else:
            np.add(total, term, out=total)
    return total


def _small(x: np.ndarray, kernel: np.ndarray) -> bool:
    """Whether np.correlate(x, kernel, "valid") takes numpy's small_correlate loop, and that
    loop sums as _ufunc_sum does here."""
    dtype = x.dtype
    return (
        dtype == kernel.dtype
        and dtype in _SMALL
        and kernel.shape[0] <= _SMALL_TAPS
        and _unfused(dtype)
    )


@functools.cache
def _unfused(dtype: np.dtype) -> bool:
    """Whether numpy's small_correlate rounds each product, as _ufunc_sum (and a compiled
    kernel) does: a numpy built where the compiler contracts `s += d * k` into a fused
    multiply-add (an ARM CPU has one) sums otherwise. Asked once per dtype, with values whose
    products round."""
    rng = np.random.default_rng(0)
    x, kernel = rng.standard_normal(64).astype(dtype), rng.standard_normal(7).astype(dtype)
    return np.correlate(x, kernel, "valid").tobytes() == _ufunc_sum(x, kernel).tobytes()


_SMALL = (np.dtype(np.float32), np.dtype(np.float64))
_SMALL_TAPS = 11  # NOTE: numpy's bound: a longer kernel is a BLAS dot (another order)

# NOTE: the node's inputs are x and its kernel; its arg, the padding
IMPLEMENTATIONS = {Op.CORRELATE: sliding_sum}
