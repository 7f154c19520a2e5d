"""pow, as numpy's power computes it.

numpy's float32 and float64 power loops take shortcuts for an exponent they read as one value
(a scalar, or one element broadcast): -1, 0, 0.5, 1 and 2 give 1 / x, 1, sqrt(x), x and x * x
(ops.POWER_SHORTCUTS). Their bits differ from the pow loop's, so pow records those ops where
numpy takes them, and a POW node is the pow loop on every device. ndarray's `**` operator has
shortcuts of its own (_array._power_method).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import _dtypes
from .._array import Array
from .._graph import Node, caller_source
from .._graph.ops import POWER_SHORTCUTS
from . import elementwise as _elementwise


def pow(x1, x2, /) -> Array:
    """Element-wise x1 ** x2, as numpy's power: see _numpy_power.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.pow.html"""
    result = _elementwise._pow_loop(x1, x2)
    if result.dtype in _SHORTCUT_DTYPES and _read_once(x1, x2, result.shape):
        if numpy_takes_power_shortcuts():
            return _numpy_power(result._node, x2)
    return result


# numpy's float32 and float64 power loops take shortcuts for an exponent they read as one value
# (ops.POWER_SHORTCUTS): float16 and complex loops take none.
_SHORTCUT_DTYPES = frozenset({_dtypes.float32, _dtypes.float64})


@functools.cache
def numpy_takes_power_shortcuts() -> bool:
    """Whether this numpy's power loop takes them (newer numpy 2 releases do): sqrt(-inf) is
    NaN, pow(-inf, 0.5) +inf."""
    with np.errstate(invalid="ignore"):
        return bool(np.isnan(np.power(np.full(2, -np.inf), 0.5)[0]))


def _read_once(x1, x2, shape: tuple[int, ...]) -> bool:
    """Whether numpy reads exponent x2 at one address for a result of `shape`: a scalar, or one
    element that broadcasts. For a one-element result (measured, numpy 2): x2 of 0 axes, or of
    another shape than an x1 with axes (two of one shape, or x1 of 0 axes, keep x2's stride).
    NOTE: an exponent of more elements broadcast along the last axis, as (r, 1) against (1, c),
    numpy may read once per row or copy to a buffer, by the other operand's layout: it is pow's
    loop here."""
    if isinstance(x2, (int, float, np.generic)):
        return True
    if x2.size != 1:
        return False
    if x2.ndim == 0 or math.prod(shape) > 1:
        return True
    x1_shape = () if isinstance(x1, (int, float, complex)) else x1.shape
    return len(x1_shape) > 0 and x1_shape != x2.shape


def _numpy_power(node: Node, x2) -> Array:
    """numpy's power of `node`'s operands (x1 and x2 in its dtype and shape), x2 read once: the
    shortcut an exponent known now takes, or, for a lazy exponent, numpy's choice made per
    element around the pow loop (where x2 is one value, per element is per loop)."""
    base, exponent = node.srcs
    if isinstance(x2, Array):
        result, e = Array(node), Array(exponent)
        for value in POWER_SHORTCUTS:
            chosen = _elementwise.equal(e, value)
            result = _elementwise.where(chosen, _shortcut(base, value), result)
        return result
    with np.errstate(over="ignore"):  # NOTE: the exponent as the loop reads it: in its dtype
        value = float(np.asarray(x2, dtype=node.dtype).reshape(-1)[0])
    return _shortcut(base, value) if value in POWER_SHORTCUTS else Array(node)


def _shortcut(base: Node, value: float) -> Array:
    x = Array(base)
    if value == 0.5:
        return _elementwise.sqrt(x)
    if value == 2.0:
        return _elementwise.square(x)
    if value == -1.0:
        return _elementwise.reciprocal(x)
    if value == 1.0:
        return x
    return Array(_elementwise._scalar_node("pow", 1.0, base.dtype, base.shape, caller_source()))
