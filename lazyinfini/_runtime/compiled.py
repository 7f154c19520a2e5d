"""The cpu's C path for elementwise kernels on the compiling skeleton (compiling.py): a kernel's
calls rendered once from the layouts the scheduler recorded, compiled by the system compiler
(one translation unit per new schedule), launched with a run's buffers bound.

A call is a C function over a (start, stop) range of the space it walks, so threads split it:
the C pool's (c_threads.py), else Python's (ctypes releases the GIL). Its arguments besides the
pointers (the walk's shape, each operand's strides, numpy's loops for borrowed steps) are fixed
when it is rendered, in ctypes arrays (`Layout`); a run writes only each operand's address (its
buffer's, plus the byte offset of the call's view of it) into the pointer array.

An operand read across the output's rows (a transposed one) is walked in square tiles: the
operands are viewed with the space's last two dims split into (tiles, tiles, tile, tile), so
each tile reads a few source rows and writes a few output rows while both stay in cache; the
strips the whole tiles leave are calls of their own.
"""

from __future__ import annotations

import ctypes
import hashlib
import math
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._graph.views import c_strides, stand_in
from .._render import c, elementwise
from .._render.compile import load, typed
from .._schedule.kernels import Kernel
from . import c_threads
from .c_compiling import ARGTYPES, C_KERNELS, RENDERERS
from .compiling import Call
from .memo import Memo
from .numpy_loops import pointers
from .threads import THREADS, run_parallel

CALL_ARGTYPES = [
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


@dataclass(frozen=True, eq=False)
class Layout:
    """A call's arguments but the operands' addresses: the walk's shape and each operand's
    strides (ctypes arrays), numpy's loops (`ext`), the byte offset of the call's view of each
    operand from its element [0, ..., 0], the elements walked, and the multiple of elements
    threads take (whole tiles)."""

    shape: ctypes.Array
    strides: ctypes.Array
    ext: ctypes.Array
    offsets: tuple[int, ...]
    total: int
    align: int

    @classmethod
    def of(cls, views, ext, offsets: tuple[int, ...], total: int | None = None, align: int = 1):
        """The layout of a call walking `views` (operands of one shape) whole, or `total`
        units of it (a REDUCE call's rows)."""
        shape = views[0].shape
        return cls(
            (ctypes.c_int64 * len(shape))(*shape),
            (ctypes.c_int64 * (len(shape) * len(views)))(*(s for v in views for s in v.strides)),
            ext,
            offsets,
            math.prod(shape) if total is None else total,
            align,
        )


def _render(kernel) -> tuple[Call, ...]:
    """The calls computing `kernel` over operands laid out as the scheduler recorded (stand-ins:
    arrays of their shapes and strides over one element, never read). Raises CompileError
    where a borrowed numpy loop is missing (before anything compiles)."""
    ext = pointers(elementwise.borrowed(kernel))
    operands = stand_ins(kernel)
    origins = [address(a) for a in operands]
    found = []
    for key, views, align in _calls(kernel, operands, len(kernel.outputs)):
        source = _source(kernel, *key)
        name = "li_" + hashlib.sha256(source.encode()).hexdigest()[:16]
        offsets = tuple(address(v) - o for v, o in zip(views, origins))
        layout = Layout.of(views, ext, offsets, align=align)
        found.append(Call(source.replace("li_kernel", name), name, layout))
    return tuple(found)


def run_compiled(kernel, bases: list[int], parallel: bool) -> None:
    """Compute `kernel` in C: `bases` are the addresses of its operands' elements [0, ..., 0]
    (outputs, then loads), laid out as its loads were recorded (stand_ins). Raises
    CompileError when the C path is unavailable (the caller runs numpy instead)."""
    functions = C_KERNELS.functions(kernel)
    for call, function in zip(C_KERNELS.calls(kernel), functions):
        run_call(function, call.layout, bases, parallel)


def run_call(function, layout: Layout, bases: list[int], parallel: bool) -> None:
    """One call over its whole walk; threads take pieces of a multiple of its `align`."""
    addresses = [b + o for b, o in zip(bases, layout.offsets)]
    ptrs = (ctypes.c_void_p * len(addresses))(*addresses)
    total, align = layout.total, layout.align
    if not total:
        return
    if not parallel:
        function(0, total, layout.shape, ptrs, layout.strides, layout.ext)
        return
    step = max(align, -(-total // (THREADS * PIECES_PER_THREAD)) // align * align)
    pool = c_threads.library()
    if pool is not None:  # NOTE: the same parts on C threads: started in microseconds
        pool.li_pool_kernel(function, total, step, layout.shape, ptrs, layout.strides, layout.ext)
        return
    run_parallel(
        lambda start: function(
            start, min(start + step, total), layout.shape, ptrs, layout.strides, layout.ext
        ),
        range(0, total, step),
    )


RENDERERS[Kernel] = _render
ARGTYPES[Layout] = CALL_ARGTYPES


# -- the per-array path: layouts known only when the arrays are -------------------------------


def run_arrays(kernel, outs: list[np.ndarray], loads: list[np.ndarray]) -> None:
    """Compute `kernel` in C, in the calling thread, over these arrays as they are laid out:
    `outs` (writable), then one array per load, all of one shape (at least 1-d; a load may be
    a broadcast view). For a caller whose shapes and strides change from run to run (a dask
    block); `kernel` is any record the renderer reads (program, loads' dtypes and strides,
    outputs' dtypes). Raises CompileError where the C path is unavailable (the caller runs
    numpy instead)."""
    operands = [*outs, *loads]
    run_calls(array_calls(kernel, outs, loads), [address(a) for a in operands])


def array_calls(kernel, outs: list[np.ndarray], loads: list[np.ndarray]) -> tuple:
    """(loaded function, Layout) for each call computing `kernel` over arrays laid out as
    `outs` and `loads` are (see run_arrays), worked out from their own shape and strides: they
    run on any arrays of that layout (`run_calls`; a caller meeting one layout again keeps
    them). Each function is rendered once per key (its operands' inner-stride kinds, rank,
    tiles) and found by its source in the compiled modules (the prepared path's too)."""
    operands = [*outs, *loads]
    found = _BY_KEY.get(kernel)
    if found is None:
        found = _BY_KEY[kernel] = {None: pointers(elementwise.borrowed(kernel))}
    origins = [address(a) for a in operands]
    made = []
    for key, views, align in _calls(kernel, operands, len(outs)):
        function = found.get(key)
        if function is None:
            function = found[key] = _array_function(kernel, key)
        offsets = tuple(address(v) - o for v, o in zip(views, origins))
        layout = Layout.of(views, found[None], offsets, align=align)
        made.append((function, layout))
    return tuple(made)


def run_calls(calls: tuple, bases: list[int]) -> None:
    """`array_calls`' calls over the arrays whose elements [0, ..., 0] are at `bases`
    (outputs, then loads), in the calling thread."""
    for function, layout in calls:
        run_call(function, layout, bases, parallel=False)


_BY_KEY = Memo()  # kernel record -> {function key: loaded function, None: numpy's loops}


def _array_function(kernel, key):
    """The loaded function of `kernel` for `key`: rendered now, compiled alone where no module
    holds its source yet (or found in the disk cache)."""
    return loaded(_source(kernel, *key))


def loaded(source: str):
    """The function `li_kernel` of `source`, named by its digest and compiled alone where no
    module holds that source yet (or found in the disk cache)."""
    name = "li_" + hashlib.sha256(source.encode()).hexdigest()[:16]
    source = source.replace("li_kernel", name)
    module = C_KERNELS.modules.get(source)
    if module is None:
        # NOTE: what C_KERNELS compiles for one call alone: the same disk cache entry
        module = C_KERNELS.modules.setdefault(source, load(c.PRELUDE + source))
    return typed(module, name, CALL_ARGTYPES)


def stand_ins(kernel) -> list[np.ndarray]:
    """The operands (outputs, then loads) as arrays of the space's shape with the strides a
    run passes (a load reshaped to the space: `copied` says which cannot be and get a
    C-contiguous copy), over one element of memory: only their layout is read."""
    space = kernel.space or (1,)
    outs = [_contiguous(space, n.dtype) for n in kernel.outputs]
    loads = []
    for ld, copy in zip(kernel.loads, copied(kernel)):
        view = stand_in(ld.shape, ld.strides, ld.node.dtype)
        loads.append(_contiguous(space, ld.node.dtype) if copy else np.reshape(view, space))
    return outs + loads


def copied(kernel) -> tuple[bool, ...]:
    """For each load: whether numpy's view rules cannot reshape it to the kernel's space (a
    run passes a C-contiguous copy of it)."""
    space = kernel.space or (1,)
    found = []
    for ld in kernel.loads:
        try:
            np.reshape(stand_in(ld.shape, ld.strides, ld.node.dtype), space, copy=False)
            found.append(False)
        except ValueError:
            found.append(True)
    return tuple(found)


def _contiguous(space, dtype) -> np.ndarray:
    return stand_in(space, c_strides(space, np.dtype(dtype).itemsize), dtype)


def address(a: np.ndarray) -> int:
    """The address of an array's element [0, ..., 0] (what a C call's pointers hold)."""
    return a.__array_interface__["data"][0]


def _calls(kernel, operands: list[np.ndarray], n_out: int) -> list[tuple]:
    """The function calls computing `kernel` over `operands`: (function key (kinds, ndim,
    tiles), operand views, thread alignment) each. One plain walk, or, when a load is read
    across the output's rows, whole tiles and the strips they leave."""
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
        kinds = tuple(c.CONTIGUOUS if k in gathered else inner_kind(a) for k, a in enumerate(whole))
        key = (kinds, len(whole[0].shape), (side, gathered))
        calls.append((key, whole, side[0] * side[1]))
    return calls + [call for part in strips for call in _plain(part)]


def _plain(operands: list[np.ndarray]) -> list[tuple]:
    if not operands[0].size:
        return []
    return [((tuple(inner_kind(a) for a in operands), operands[0].ndim, None), operands, 1)]


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
    return as_strided(a, shape, strides, writeable=False)


def inner_kind(a: np.ndarray) -> str:
    """How an operand (at least 1-d here) walks its inner dim."""
    inner = a.strides[-1]
    if inner == 0:
        return c.BROADCAST
    return c.CONTIGUOUS if inner == a.itemsize or a.shape[-1] <= 1 else c.STRIDED


def _source(kernel, kinds, ndim: int, tiles) -> str:
    if tiles is None:
        return elementwise.render(kernel, "li_kernel", kinds, ndim)
    return elementwise.render_tiled(kernel, "li_kernel", kinds, ndim, *tiles)
