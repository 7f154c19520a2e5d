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

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._render import c, elementwise
from .._render.compile import CompileError, load, load_function
from .memo import Memo
from .numpy_loops import pointers
from .threads import THREADS, run_parallel

_FUNCTIONS = Memo()
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
    for key, views, align in _calls(kernel, [*outs, *loads], len(outs)):
        _run(_function(kernel, *key), views, parallel, align)


def _calls(kernel, operands: list[np.ndarray], n_out: int) -> list[tuple]:
    """The function calls computing `kernel` over `operands`: (function key (kinds, ndim,
    tiles), operand views, thread alignment) each. One plain walk, or, when a load is read
    across the output's rows, whole tiles and the strips they leave."""
    if not kernel.space:
        operands = [np.reshape(a, (1,)) for a in operands]
    across = _across_rows(operands, n_out)
    if across is None:
        return _plain(operands)
    operands = [np.moveaxis(a, across, -2) for a in operands]
    loads = enumerate(operands[n_out:], n_out)
    gathered = tuple(k for k, a in loads if 0 < abs(a.strides[-2]) < abs(a.strides[-1]))
    widest = max(operands[k].itemsize for k in gathered)
    width = operands[0].shape[-1]
    side = (max(1, LINE_BYTES // widest), width // -(-width // TILE_COLS))
    whole, *strips = _tiles(operands, side)
    calls = []
    if whole:
        kinds = tuple(c.CONTIGUOUS if k in gathered else _kind(a) for k, a in enumerate(whole))
        key = (kinds, len(whole[0].shape), (side, gathered))
        calls.append((key, whole, side[0] * side[1]))
    return calls + [call for part in strips for call in _plain(part)]


def _plain(operands: list[np.ndarray]) -> list[tuple]:
    if not operands[0].size:
        return []
    return [((tuple(_kind(a) for a in operands), operands[0].ndim, None), operands, 1)]


def compile_ahead(work) -> None:
    """Compile, in one translation unit, the functions of every (kernel, outputs, loads) in
    `work` (views or stand-ins with the right shapes and strides) not compiled yet: one
    compiler run for a new schedule instead of one per kernel. Does nothing for fewer than
    two; a failure leaves each kernel to compile (and fail) alone at first use."""
    new = {}
    for kernel, outs, loads in work:
        found = _FUNCTIONS.get(kernel, {})
        for key, _, _ in _calls(kernel, [*outs, *loads], len(outs)):
            if key not in found and (kernel, key) not in new:
                new[(kernel, key)] = _source(kernel, *key)
    if len(new) < 2:
        return
    names = {key: _name(text) for key, text in new.items()}
    unit = {names[k]: text.replace("li_kernel", names[k]) for k, text in new.items()}
    try:
        library = load(c.PRELUDE + "".join(unit.values()))
        for (kernel, key), name in names.items():
            function = getattr(library, name)
            function.argtypes, function.restype = _ARGTYPES, None
            ext = pointers(elementwise.borrowed(kernel))
            with _LOCK:
                _FUNCTIONS.setdefault(kernel, {})[key] = function, ext
    except CompileError:
        return


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


def _tiles(operands: list[np.ndarray], side: tuple[int, int]) -> list:
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


def _tiled(a: np.ndarray, side: tuple[int, int], rows: int, cols: int) -> np.ndarray:
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


def _source(kernel, kinds, ndim: int, tiles) -> str:
    if tiles is None:
        return elementwise.render(kernel, "li_kernel", kinds, ndim)
    return elementwise.render_tiled(kernel, "li_kernel", kinds, ndim, *tiles)


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
    source = _source(kernel, kinds, ndim, tiles)
    name = _name(source)
    loaded = load_function(c.PRELUDE + source.replace("li_kernel", name), name, _ARGTYPES)
    with _LOCK:
        found[key] = loaded, ext
    return loaded, ext


def _name(source: str) -> str:
    """A function's name from its source: equal sources share one compiled function."""
    return "li_" + hashlib.sha256(source.encode()).hexdigest()[:16]
