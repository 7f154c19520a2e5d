"""The CPU device's C path for elementwise kernels: render once, compile once, call by range.

A kernel's C function is cached per kernel record, per inner-stride kind of its operands
(contiguous, broadcast, strided) and per rank of the walk, which a cached schedule keeps from
run to run. The function takes a (start, stop) range of the space it walks, so threads split
it (ctypes releases the GIL).

An operand read across the output's rows (a transposed one) is walked in square tiles: the
operands are viewed with the space's last two dims split into (tiles, tiles, tile, tile), so
each tile reads a few source rows and writes a few output rows while both stay in cache.
"""

from __future__ import annotations

import ctypes
import hashlib
import math
import threading
import weakref

import numpy as np
from numpy.lib.stride_tricks import as_strided

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
# A tile is one cache line of each gathered source row (16 float32 rows of the output) by up to
# 4096 columns: the other operands are then read and written in long runs. Measured on
# clip(aT - b) float32: 4096^2 9.8 ms (a rearrange first: 27 ms; 64x64 tiles: 12.3 ms),
# 2048^2 2.0 ms (7.0 ms); 8192^2 41 ms (38 ms); 1000^2 0.83 ms (0.59 ms).
LINE_BYTES = 64
TILE_COLS = 4096
TILED_MIN = 1 << 16  # elements: below this every operand sits in cache, tiles cost more
PIECES_PER_THREAD = 4


def run_compiled(kernel, outs: list[np.ndarray], loads: list[np.ndarray], parallel: bool) -> None:
    """Compute `kernel` into `outs` from `loads` (all shaped as the kernel's space) in C.
    Raises CompileError when the C path is unavailable (the caller runs numpy instead)."""
    operands = [*outs, *loads]
    if not kernel.space:
        operands = [np.reshape(a, (1,)) for a in operands]
    across = _across_rows(operands, len(outs))
    if across is None:
        _run_plain(kernel, operands, parallel)
        return
    operands = [np.moveaxis(a, across, -2) for a in operands]
    gathered = tuple(
        k
        for k, a in enumerate(operands)
        if k >= len(outs) and 0 < abs(a.strides[-2]) < abs(a.strides[-1])
    )
    widest = max(operands[k].itemsize for k in gathered)
    width = operands[0].shape[-1]
    side = (max(1, LINE_BYTES // widest), width // -(-width // TILE_COLS))
    whole, *strips = _tiles(operands, side)
    if whole:
        kinds = tuple(c.CONTIGUOUS if k in gathered else _kind(a) for k, a in enumerate(whole))
        found = _function(kernel, kinds, len(whole[0].shape), (side, gathered))
        _run(found, whole, parallel, align=side[0] * side[1])
    for part in strips:
        _run_plain(kernel, part, parallel)


def _run_plain(kernel, operands: list[np.ndarray], parallel: bool) -> None:
    if operands[0].size:
        kinds = tuple(_kind(a) for a in operands)
        _run(_function(kernel, kinds, operands[0].ndim), operands, parallel)


def _run(found, operands: list[np.ndarray], parallel: bool, align: int = 1) -> None:
    """A compiled function (and its `ext`) over the whole space of `operands` (views of one
    shape); threads take pieces of a multiple of `align` elements (whole tiles)."""
    function, ext = found
    shape = operands[0].shape
    total = math.prod(shape)
    ndim = len(shape)
    c_shape = (ctypes.c_int64 * ndim)(*shape)
    c_ptrs = (ctypes.c_void_p * len(operands))(*(a.ctypes.data for a in operands))
    c_strides = (ctypes.c_int64 * (ndim * len(operands)))(*(s for a in operands for s in a.strides))
    if not parallel:
        function(0, total, c_shape, c_ptrs, c_strides, ext)
        return
    step = max(align, -(-total // (THREADS * PIECES_PER_THREAD)) // align * align)
    run_parallel(
        lambda start: function(start, min(start + step, total), c_shape, c_ptrs, c_strides, ext),
        range(0, total, step),
    )


def _across_rows(operands: list[np.ndarray], n_out: int) -> int | None:
    """The dim along which a large load is contiguous when that is not the space's last one
    (the load is read across the output's rows), else None."""
    shape = operands[0].shape
    if len(shape) < 2 or shape[-1] < 2 or math.prod(shape) < TILED_MIN:
        return None
    for a in operands[n_out:]:
        dims = [d for d in range(a.ndim) if a.strides[d] != 0 and a.shape[d] > 1]
        if not dims:
            continue
        fast = min(dims, key=lambda d: abs(a.strides[d]))
        if fast != a.ndim - 1 and abs(a.strides[-1]) > LINE_BYTES:
            return fast
    return None


def _tiles(operands: list[np.ndarray], side: int) -> list:
    """The operands' space as whole square tiles over its last two dims (one walk, two more
    dims; None when there is none), then the strips the tiles leave at the bottom and on the
    right."""
    rows, cols = operands[0].shape[-2:]
    whole_rows, whole_cols = rows // side[0] * side[0], cols // side[1] * side[1]
    whole = None
    if whole_rows and whole_cols:
        whole = [_tiled(a, side, whole_rows, whole_cols) for a in operands]
    bottom = [a[..., whole_rows:, :] for a in operands]
    right = [a[..., :whole_rows, whole_cols:] for a in operands]
    return [whole, bottom, right]


def _tiled(a: np.ndarray, side, rows: int, cols: int) -> np.ndarray:
    """`a[..., :rows, :cols]` viewed as (..., rows/side_r, cols/side_c, side_r, side_c)."""
    *outer, row_stride, col_stride = a.strides
    shape = (*a.shape[:-2], rows // side[0], cols // side[1], *side)
    strides = (*outer, row_stride * side[0], col_stride * side[1], row_stride, col_stride)
    return as_strided(a, shape, strides, writeable=a.flags.writeable)


def _kind(a: np.ndarray) -> str:
    """How an operand (at least 1-d here) walks its inner dim."""
    inner = a.strides[-1]
    if inner == 0:
        return c.BROADCAST
    return c.CONTIGUOUS if inner == a.itemsize or a.shape[-1] <= 1 else c.STRIDED


def _function(kernel, kinds: tuple[str, ...], ndim: int, tiles=None) -> tuple:
    """The compiled function for `kernel` with operands of `kinds` walking `ndim` dims (`tiles`:
    (side, gathered operands) for a tiled walk), and its `ext` argument."""
    key = (kinds, ndim, tiles)
    with _LOCK:
        found = _FUNCTIONS.setdefault(kernel, {})
        function = found.get(key)
    if function is not None:
        return function
    # NOTE: numpy's loops are looked up first: a missing one raises before anything compiles.
    ext = pointers(elementwise.borrowed(kernel))
    if tiles is None:
        source = elementwise.render(kernel, "li_kernel", kinds, ndim)
    else:
        source = elementwise.render_tiled(kernel, "li_kernel", kinds, ndim, *tiles)
    name = "li_" + hashlib.sha256(source.encode()).hexdigest()[:16]
    loaded = load_function(c.PRELUDE + source.replace("li_kernel", name), name, _ARGTYPES)
    with _LOCK:
        found[key] = loaded, ext
    return loaded, ext
