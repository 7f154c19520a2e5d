"""numpy's own inner loops, for C kernels to call on a block of values.

numpy computes exp, log, sin, power... with its own SIMD code, whose last bit differs from the C
library's (exp float64: 9,316 of 200,000 random values here). A C kernel that must give numpy's
bits calls numpy's loop itself: the loop's address comes from the ufunc object, found by its
signature, and is checked against the ufunc on probe values before any kernel uses it.
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np

from .._render.compile import CompileError


class _UFuncHead(ctypes.Structure):
    """The head of numpy's PyUFuncObject (unchanged from numpy 1.x through 2.x): a layout that
    differs is noticed by the name, count and probe checks, and the kernel runs in numpy."""

    _fields_ = [
        ("refcount", ctypes.c_ssize_t),
        ("type", ctypes.c_void_p),
        ("nin", ctypes.c_int),
        ("nout", ctypes.c_int),
        ("nargs", ctypes.c_int),
        ("identity", ctypes.c_int),
        ("functions", ctypes.POINTER(ctypes.c_void_p)),
        ("data", ctypes.POINTER(ctypes.c_void_p)),
        ("ntypes", ctypes.c_int),
        ("reserved1", ctypes.c_int),
        ("name", ctypes.c_char_p),
        ("types", ctypes.POINTER(ctypes.c_char)),
    ]


_LOOP = ctypes.CFUNCTYPE(
    None,
    ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(ctypes.c_ssize_t),
    ctypes.POINTER(ctypes.c_ssize_t),
    ctypes.c_void_p,
)


def pointers(borrowed) -> ctypes.Array:
    """(loop, data) pointer pairs, in order, for the `(ufunc name, dtype)` list of a rendered
    kernel; CompileError when one is missing (the kernel then runs in numpy)."""
    flat = []
    for name, dtype in borrowed:
        found = loop(name, np.dtype(dtype))
        if found is None:
            raise CompileError(f"numpy's loop for {name}({np.dtype(dtype).name}) is not found")
        flat.extend(found)
    return (ctypes.c_void_p * max(1, len(flat)))(*flat)


def missing(borrowed) -> str | None:
    """Why one of `borrowed`'s loops cannot be called (None when all can)."""
    for name, dtype in borrowed:
        if loop(name, np.dtype(dtype)) is None:
            return f"numpy's loop for {name}({np.dtype(dtype).name}) is not found"
    return None


@functools.cache
def loop(name: str, dtype: np.dtype) -> tuple[int, int] | None:
    """The addresses of ufunc `name`'s inner loop for all-`dtype` operands and of its data,
    once they give the ufunc's own bits on the probe values; None otherwise."""
    ufunc = getattr(np, name)
    head = _UFuncHead.from_address(id(ufunc))
    if head.name != name.encode() or (head.nin, head.nout) != (ufunc.nin, ufunc.nout):
        return None
    if not 0 < head.ntypes < 1024:
        return None
    signature = (bytes([dtype.num]) * head.nargs,)
    for k in range(head.ntypes):
        types = bytes(head.types[k * head.nargs + i][0] for i in range(head.nargs))
        if (types,) == signature:
            found = (head.functions[k], head.data[k] or 0)
            return found if _agrees(ufunc, dtype, found) else None
    return None


def _agrees(ufunc, dtype: np.dtype, found: tuple[int, int]) -> bool:
    """Whether the loop at `found` gives `ufunc`'s bits on special and random values."""
    values = _probe(dtype)
    inputs = [values, np.roll(values, 7)][: ufunc.nin]
    out = np.empty_like(values)
    arrays = [*inputs, out]
    args = (ctypes.c_void_p * len(arrays))(*(a.ctypes.data for a in arrays))
    dims = (ctypes.c_ssize_t * 1)(values.size)
    steps = (ctypes.c_ssize_t * len(arrays))(*(dtype.itemsize for _ in arrays))
    with np.errstate(all="ignore"):
        _LOOP(found[0])(args, dims, steps, found[1] or None)
        expected = ufunc(*inputs)
    bits = f"u{dtype.itemsize}"
    return bool(np.array_equal(out.view(bits), expected.view(bits)))


def _probe(dtype: np.dtype) -> np.ndarray:
    info = np.finfo(dtype)
    special = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, np.inf, -np.inf, np.nan, info.tiny, info.max]
    special += [info.smallest_subnormal, -info.smallest_subnormal, info.min, 3.0, -2.5]
    rng = np.random.default_rng(0)
    spread = rng.standard_normal(1000) * 10.0 ** rng.integers(-8, 8, 1000)
    with np.errstate(over="ignore"):  # NOTE: float16's range ends at 65504: inf is a probe too
        return np.concatenate([np.array(special, dtype), spread.astype(dtype)])
