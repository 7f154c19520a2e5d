"""np.convolve and np.correlate of a signal with a short kernel, lazily: a long signal's as a
sum of shifted products, one elementwise pass (a moving average and the residual beside it are
one kernel), where numpy makes a pass per call; a short one's as one CORRELATE node, the same
sum run by the device's library (_runtime/correlation.py holds the one formula).

The sum is numpy's, term for term: for each output, `s = 0; s += a[i + j] * k[j]` for j in
order: its small_correlate (a float kernel of at most 11 values), its integer dot loop, its
half dot (float16 sums in float32 and rounds once); 'same' and 'full' pad integers with zeros.
Where numpy calls BLAS's dot instead (a float32 or float64 kernel of more values, the partial
sums at the edges of 'same' and 'full' of floats), whose order of summation is the BLAS
build's, the call goes to numpy; so do complex, bool and bfloat16 values.
"""

from __future__ import annotations

import types

import numpy as np

from .. import _dtypes
from .._api.creation import zeros
from .._api.data_types import astype, isdtype
from .._api.elementwise import add, multiply
from .._api.indexing import basic_getitem
from .._api.manipulation import concat
from .._array import Array, record
from .._graph import Op, caller_source
from .._runtime.correlation import sliding_sum
from .arguments import Fallback, converted

MAX_KERNEL = 11  # NOTE: numpy's small_correlate; above it a float dot is BLAS's
FUSED_MIN = 1 << 16  # outputs from which the sum is recorded (one elementwise kernel)
_MODES = {"v": 0, "s": 1, "f": 2}  # numpy's: a mode name is read by its first letter
_NAMES = ("valid", "same", "full")
_REVERSED = slice(None, None, -1)
_EXACT = (_dtypes.float32, _dtypes.float64, *_dtypes.INTEGER)


def convolve(a, v, mode="full"):
    if type(v) is np.ndarray and isinstance(a, Array) and v.ndim == a.ndim == 1:
        if 0 < v.shape[0] <= a.shape[0]:  # NOTE: a moving average's kernel, reversed here
            x, flipped = _operands("convolve", a, v[::-1])  # NOTE: a copy: not a view recorded
            return _correlated("convolve", x, flipped, v, _mode(mode), flip=True)
    x, y = _operands("convolve", a, v)
    kernel = v
    if y.shape[0] > x.shape[0]:
        x, y, kernel = y, x, a  # NOTE: numpy's: the longer one slides under the shorter
    # NOTE: a view read by the sum alone (never written): no link to y's memory
    flipped = basic_getitem(y, (_REVERSED,), caller_source())
    return _correlated("convolve", x, flipped, kernel, _mode(mode), flip=True)


def correlate(a, v, mode="valid"):
    x, y = _operands("correlate", a, v)
    if y.shape[0] > x.shape[0]:
        raise Fallback("correlate of a longer second argument (numpy reverses the result)")
    return _correlated("correlate", x, y, v, _mode(mode))


def _taps(kernel, dtype, flip: bool) -> list | None:
    """A numpy kernel's values in `dtype` as Python numbers (exact: they hold the dtype's
    values), reversed where `flip`, recorded as scalars, not as one indexing of the kernel per
    tap; None for an Array."""
    if isinstance(kernel, Array) or not isinstance(kernel, np.ndarray):
        return None
    taps = kernel.astype(dtype).reshape(-1).tolist()
    return taps[::-1] if flip else taps


def _operands(func: str, a, v) -> tuple[Array, Array]:
    x, y = converted(a, v)
    if x.ndim != 1 or y.ndim != 1:
        raise Fallback(f"{func} of {x.ndim}-d and {y.ndim}-d arrays")
    for name, value in (("a", x), ("v", y)):
        if value.shape[0] == 0:
            raise ValueError(f"{func}: {name} cannot be empty")
    if x.dtype not in (*_EXACT, _dtypes.float16):
        raise Fallback(f"{func} of {x.dtype} values")
    return x, y


def _mode(mode) -> int:
    if isinstance(mode, str) and mode and mode[0].lower() in _MODES:
        return _MODES[mode[0].lower()]
    if type(mode) is int and mode in (0, 1, 2):
        return mode
    raise Fallback(f"mode={mode!r}")  # NOTE: numpy's own error


def _correlated(func: str, x: Array, k: Array, kernel, mode: int, flip=False) -> Array:
    """x correlated with k (the Array of `kernel`, the caller's argument, reversed where
    `flip`)."""
    n, floating = k.shape[0], x.dtype.kind == "f"
    if n > MAX_KERNEL and x.dtype in (_dtypes.float32, _dtypes.float64):
        raise Fallback(f"{func} with a kernel of {n} values (numpy's sum is BLAS's dot)")
    left, right = (0, 0) if mode == 0 else (n // 2, n - n // 2 - 1) if mode == 1 else (n - 1,) * 2
    if (left or right) and floating:
        # NOTE: numpy's edges are BLAS's dot (float32, float64); and padding with zeros would
        # give NaN where the kernel holds an inf (numpy skips the padding)
        raise Fallback(f"{func} of floats with mode={_NAMES[mode]!r}")
    dtype, length = x.dtype, x.shape[0] + left + right - n + 1
    if length < FUSED_MIN:
        # NOTE: one library call: the ~2n nodes of the sum cost more to record and schedule
        # than the pass they fuse into (a 40-value moving average: ~60 us against ~5)
        arg = (("left", left), ("right", right))
        return record(Op.CORRELATE, (x._node, k._node), (length,), dtype, arg)
    taps = _taps(kernel, dtype, flip)  # NOTE: read here: the call above needs none
    if dtype == _dtypes.float16:  # NOTE: numpy's half dot sums in float32, rounds once
        x, k = astype(x, _dtypes.float32), astype(k, _dtypes.float32)
    total = sliding_sum(_NAMESPACE, x, k if taps is None else taps, left=left, right=right)
    return astype(total, dtype) if total.dtype != dtype else total


# NOTE: the namespace functions sliding_sum calls (the package itself imports this module)
_NAMESPACE = types.SimpleNamespace(
    zeros=zeros, concat=concat, isdtype=isdtype, multiply=multiply, add=add
)
