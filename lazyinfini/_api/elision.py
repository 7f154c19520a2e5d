"""numpy's temporary elision, whose memory order a later sum adds in.

numpy computes `t + y` into t's own memory when t is a temporary (nothing else references it:
`np.exp(x.T) + y`, not a named array), owns its data, holds at least 256 KiB, and y is an array
of t's shape whose dtype casts safely to t's (or a scalar); for add, multiply and the bitwise
and/or/xor the right operand may be the temporary instead; subtract, true divide (of a float
t), floor divide and the shifts take the left one only (numpy's number.c, temp_elide.c). Its
result is then laid out as t is, not by a ufunc's rule (C order where the operands disagree):
`np.exp(x.T) + y` of a C-ordered y is F-ordered, and its sums add so.

An Array operator meets the same conditions: its temporary is an Array only the expression
references (its reference count, against the count a probe measures at import), whose value numpy
would have made (a pending computed value, not a view or an array from an ndarray). The result
is then recorded as written into the temporary's memory (indexing.written_into: it keeps its
order). Where numpy does not elide (another interpreter, or numpy built without it, which
the first use checks), neither is this.
"""

from __future__ import annotations

import sys

import numpy as np

from .. import _array
from .._graph import Op

MIN_BYTES = 256 * 1024  # numpy's NPY_MIN_ELIDE_BYTES
# operator -> whether its right operand may be the temporary too (commutative)
ELIDED = {
    "add": True,
    "multiply": True,
    "bitwise_and": True,
    "bitwise_or": True,
    "bitwise_xor": True,
    "subtract": False,
    "divide": False,
    "floor_divide": False,
    "bitwise_left_shift": False,
    "bitwise_right_shift": False,
}

_refcount = sys.getrefcount


class _Probe:
    def __add__(self, other, /):
        return _refcount(self), _refcount(other)


def temporary_count() -> int:
    """The reference count (sys.getrefcount's) an operand that is a temporary has inside an
    operator method of this interpreter, or 0 where it does not tell one apart from a named
    array (measured at import: a few calls)."""
    counts = _Probe() + _Probe()
    named = _Probe()
    return 0 if max(counts) >= (named + _Probe())[0] else max(counts)


def _numpy_elides() -> bool:
    """Whether numpy elides temporaries here (measured once)."""
    if not _ELIDES:
        shape = (MIN_BYTES // 8 // 64 + 1, 64)
        laid_out = (np.asfortranarray(np.ones(shape)) + np.zeros(shape)).flags.f_contiguous
        _ELIDES.append(bool(laid_out))
    return _ELIDES[0]


_ELIDES: list[bool] = []
TEMPORARY = temporary_count()


def elided(result, x, y, name: str, counts: tuple[int, int]):
    """`result` of `x name y` (Arrays) as numpy's elision lays it out: written into x's
    memory, or into y's for a commutative operator, where that operand is a temporary numpy
    would reuse (`counts`: their reference counts in the operator). Else `result`."""
    if not _numpy_elides():
        return result
    for t, other, count in ((x, y, counts[0]), (y, x, counts[1])):
        if count <= TEMPORARY and _reusable(t, other, result, name):
            node = result._node
            return _array.Array(_array._indexing.written_into(t._node, node, node.source))
        if not ELIDED[name]:
            break
    return result


def _reusable(t, other, result, name: str) -> bool:
    """numpy's can_elide_temp, but for the reference count: t's memory takes the result."""
    node = t._node
    if type(t) is not _array.Array or node.op is Op.BUFFER or node.op.is_view:
        return False  # NOTE: numpy's value of a view or of a user's array is no temporary
    if node.nbytes < MIN_BYTES:
        return False
    if other.shape != t.shape or result.shape != t.shape or result.dtype != t.dtype:
        return False
    if name == "divide" and t.dtype.kind not in "fc":
        return False
    return bool(np.can_cast(other.dtype, t.dtype, casting="safe"))
