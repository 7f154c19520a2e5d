"""The CPU device's C path for elementwise kernels: render once, compile once, call by range.

A kernel's C function is cached per kernel record and per inner-stride kind of its operands
(contiguous, broadcast, strided), which a cached schedule keeps from run to run. The function
takes a (start, stop) range of the kernel's space, so threads split it (ctypes releases the GIL).
"""

from __future__ import annotations

import ctypes
import hashlib
import threading
import weakref

import numpy as np

from .._render import c, elementwise
from .._render.compile import load_function
from .numpy_loops import pointers
from .threads import THREADS, run_parallel

_FUNCTIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()
_ARGTYPES = [
    ctypes.c_int64,
    ctypes.c_int64,
    ctypes.POINTER(ctypes.c_int64),
    ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(ctypes.c_int64),
    ctypes.POINTER(ctypes.c_void_p),
]


def run_compiled(kernel, outs: list[np.ndarray], loads: list[np.ndarray], parallel: bool) -> None:
    """Compute `kernel` into `outs` from `loads` (all shaped as the kernel's space) in C.
    Raises CompileError when the C path is unavailable (the caller runs numpy instead)."""
    operands = [*outs, *loads]
    shape = kernel.space or (1,)
    if not kernel.space:
        operands = [np.reshape(a, (1,)) for a in operands]
    kinds = tuple(_kind(a) for a in operands)
    function, ext = _function(kernel, kinds)
    ndim = len(shape)
    c_shape = (ctypes.c_int64 * ndim)(*shape)
    c_ptrs = (ctypes.c_void_p * len(operands))(*(a.ctypes.data for a in operands))
    c_strides = (ctypes.c_int64 * (ndim * len(operands)))(*(s for a in operands for s in a.strides))
    total = int(np.prod(shape))
    if not parallel:
        function(0, total, c_shape, c_ptrs, c_strides, ext)
        return
    step = -(-total // (THREADS * 4))
    run_parallel(
        lambda start: function(start, min(start + step, total), c_shape, c_ptrs, c_strides, ext),
        range(0, total, step),
    )


def _kind(a: np.ndarray) -> str:
    """How an operand (at least 1-d here) walks its inner dim."""
    inner = a.strides[-1]
    if inner == 0:
        return c.BROADCAST
    return c.CONTIGUOUS if inner == a.itemsize or a.shape[-1] <= 1 else c.STRIDED


def _function(kernel, kinds: tuple[str, ...]) -> tuple:
    """The compiled function for `kernel` with operands of `kinds`, and its `ext` argument."""
    with _LOCK:
        found = _FUNCTIONS.setdefault(kernel, {})
        function = found.get(kinds)
    if function is not None:
        return function
    # NOTE: numpy's loops are looked up first: a missing one raises before anything compiles.
    ext = pointers(elementwise.borrowed(kernel))
    source = elementwise.render(kernel, "li_kernel", kinds)
    name = "li_" + hashlib.sha256(source.encode()).hexdigest()[:16]
    loaded = load_function(c.PRELUDE + source.replace("li_kernel", name), name, _ARGTYPES)
    with _LOCK:
        found[kinds] = loaded, ext
    return loaded, ext
