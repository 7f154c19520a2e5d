"""An ndarray operand's values at the call (creation.operand).

numpy reads an operand when its call runs; a lazy result reads it when it is computed. So an
ndarray that someone may still write into (a work buffer a script refills in a loop, the array
a read-only view or a broadcast shows) is copied at the call. A loop that reads the same
unchanged large ndarray at every step (`total = total + weights`) gets the copy it made before,
not a new one per step: every pending step holds its copy until it is computed, and a thousand
steps over an 8 MB array would otherwise hold 8 GB.
"""

from __future__ import annotations

import functools
import threading
import weakref

import numpy as np

# Arrays of at least this many bytes keep their last copy for reuse (a smaller one is copied
# again: cheaper than comparing).
REUSE_MIN_BYTES = 1 << 16

# an itemsize -> the unsigned integer of that size: copies are compared bit for bit (-0.0 is
# not 0.0, a NaN is itself)
_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def snapshot(value: np.ndarray) -> np.ndarray:
    """`value`'s values now: `value` itself where nobody can write them, else a copy in its
    memory order (a later sum adds as numpy's would)."""
    if not _writable(value):
        return value
    bits = _BITS.get(value.dtype.itemsize)
    if value.nbytes < REUSE_MIN_BYTES or bits is None:
        return _copied(value)
    key = id(value)
    with _LOCK:
        known = _COPIES.get(key)
    if known is not None and known[0]() is value and _same_bits(value, known[1], bits):
        return known[1]
    copy = _copied(value)
    try:
        ref = weakref.ref(value, functools.partial(_forget, key))
    except TypeError:  # NOTE: an ndarray subclass without weak references
        return copy
    with _LOCK:
        _COPIES[key] = (ref, copy)
    return copy


def _copied(value: np.ndarray) -> np.ndarray:
    """A copy of `value` in its memory order; of a broadcast, its distinct values broadcast
    back (numpy's iterator gives a stride-0 axis no say in a ufunc's order, a compact copy's
    would have one; and it copies a fraction)."""
    if 0 not in value.strides or value.size <= 1:
        return value.copy(order="K")
    distinct = tuple(slice(0, 1) if s == 0 else slice(None) for s in value.strides)
    return np.broadcast_to(value[distinct].copy(order="K"), value.shape)


def _writable(value: np.ndarray) -> bool:
    """Whether `value`, or an array it views, may be written."""
    while isinstance(value, np.ndarray):
        if value.flags.writeable:
            return True
        value = value.base
    return False


def _same_bits(value: np.ndarray, copy: np.ndarray, bits) -> bool:
    if value.shape != copy.shape or value.dtype != copy.dtype:
        return False  # NOTE: an ndarray's shape and dtype can be set in place
    return bool(np.array_equal(value.view(bits), copy.view(bits)))


def _forget(key: int, _ref) -> None:
    with _LOCK:
        _COPIES.pop(key, None)


_COPIES: dict[int, tuple] = {}  # id of an ndarray -> (a weak reference to it, its last copy)
_LOCK = threading.Lock()
