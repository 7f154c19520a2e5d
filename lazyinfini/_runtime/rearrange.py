"""Run a RearrangePlan on the CPU with numpy: bit-exact layout copies, tiled and threaded.

Every copy moves raw units (unsigned integers or void items of the unit's size), never floats,
so NaN payloads, signed zeros and every dtype's bytes survive.

Two ways to copy; the scheduler picks one per kernel (``_schedule.rearrange.copy_method``):

- *direct*: ``np.copyto`` on the arrays themselves. numpy walks the destination in order, which is
  already cache-friendly when the source rows one destination row touches stay cached; and it
  costs a few microseconds, so small copies always go this way.
- *tiled*: the plan. Each constraint region of the grid becomes one pair of strided views shaped
  ``grid + block``, copied with one ``np.positive(src, out=dst)`` per slice. A ufunc and not an
  assignment, because numpy's assignment re-sorts dims by destination strides (undoing the
  tiles), while the ufunc iterator keeps the given C order wherever the two operands disagree on
  which dim is inner: the copy visits one tile after another with no Python loop over blocks.

Above ``SERIAL_BYTES`` the slices are shared by a thread pool and the calling thread; numpy
releases the GIL while it copies.
"""

from __future__ import annotations

import itertools
from functools import partial

import numpy as np

from .._schedule.rearrange import RearrangePlan
from .threads import THREADS, run_parallel

__all__ = ["SERIAL_BYTES", "run_rearrange"]

# Below this, one thread: handing slices to the pool costs tens of microseconds, and mid-size
# copies run from L3 at one core's speed (threads won from ~4 MiB up in our measurements).
SERIAL_BYTES = 4 * 1024 * 1024
_SLICES_PER_THREAD = 4
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def run_rearrange(
    plan: RearrangePlan, src: np.ndarray, dst: np.ndarray, method: str, threads: bool | None = None
) -> None:
    """Copy ``src`` into ``dst`` following ``plan`` (computed for these shapes and strides) by
    ``method`` ("tiled" or "direct", the kernel record's). Copies of at least ``SERIAL_BYTES``
    use every core unless ``threads`` says otherwise."""
    _check_pair(src, dst)
    assert src.size * src.itemsize == plan.nbytes, (src.shape, src.dtype, plan)
    if plan.nbytes == 0:
        return
    if threads is None:
        threads = plan.nbytes >= SERIAL_BYTES and THREADS > 1
    if method == "direct":
        _copy_direct(src, dst, threads)
    elif method == "tiled":
        _copy_tiled(plan, src, dst, threads)
    else:
        raise ValueError(f"run_rearrange: method must be 'tiled' or 'direct', not {method!r}")


def _check_pair(src: np.ndarray, dst: np.ndarray) -> None:
    if src.shape != dst.shape or src.itemsize != dst.itemsize:
        raise ValueError(
            f"rearrange: src {src.shape} {src.dtype} and dst {dst.shape} {dst.dtype} differ"
        )
    if src.dtype.hasobject or dst.dtype.hasobject:
        raise TypeError("rearrange: object arrays hold references, not bytes; use numpy")
    if not dst.flags.writeable:
        raise ValueError("rearrange: dst is read-only")


# -- direct: numpy's own walk -------------------------------------------------------------------


def _raw(arr: np.ndarray) -> np.ndarray:
    """The same memory seen as unsigned integers (or void items) of the same size."""
    return arr.view(_UINT.get(arr.itemsize) or np.dtype(f"V{arr.itemsize}"))


def _copy_direct(src: np.ndarray, dst: np.ndarray, threads: bool) -> None:
    s, d = _raw(src), _raw(dst)
    if not threads:
        np.copyto(d, s)
        return
    # Slices cut the destination's outer dims, so each thread writes one stretch of memory.
    order = sorted(range(d.ndim), key=lambda axis: -abs(d.strides[axis]))
    _run_threaded([(s.transpose(order), d.transpose(order))], _copy_numpy)


def _copy_numpy(s: np.ndarray, d: np.ndarray) -> None:
    np.copyto(d, s)


# -- tiled: the plan ----------------------------------------------------------------------------


def _copy_tiled(plan: RearrangePlan, src: np.ndarray, dst: np.ndarray, threads: bool) -> None:
    dtype, words = _view_dtype(plan)
    pairs = _region_views(plan, dtype, words, src, dst)
    copy = partial(_copy_blocks, ngrid=len(plan.grid_len)) if dtype.kind == "V" else _copy_ufunc
    if threads:
        _run_threaded(pairs, copy)
    else:
        for s, d in pairs:
            copy(s, d)


def _copy_ufunc(s: np.ndarray, d: np.ndarray) -> None:
    # NOTE: positive on unsigned integers returns its input bits unchanged.
    np.positive(s, out=d)


def _copy_blocks(s: np.ndarray, d: np.ndarray, ngrid: int) -> None:
    # ufuncs have no void loops; numpy's own copy moves void items but re-sorts dims by the
    # destination strides, so it is called once per block to keep the tiles.
    for g in np.ndindex(s.shape[:ngrid]):
        np.copyto(d[(*g, ...)], s[(*g, ...)])  # the Ellipsis keeps 0-d blocks arrays


def _view_dtype(plan: RearrangePlan) -> tuple[np.dtype, int]:
    """The item the views move, and how many of them make one unit."""
    if plan.unit in _UINT:
        return np.dtype(_UINT[plan.unit]), 1
    if plan.block_len and plan.src_block_strides[-1] == plan.dst_block_strides[-1] == plan.unit:
        # The inner dim is contiguous in both: uint64 words merge with it into one long loop.
        return np.dtype(np.uint64), plan.unit // 8
    # Otherwise the 2 or 4 words would be the whole inner loop; void units copy faster.
    return np.dtype(f"V{plan.unit}"), 1


def _region_views(plan: RearrangePlan, dtype: np.dtype, words: int, src, dst):
    """One (src view, dst view) pair shaped ``grid + block`` per constraint region."""
    src_span, src0 = _byte_span(src)
    dst_span, dst0 = _byte_span(dst)
    tail, step = ((words,), (dtype.itemsize,)) if words > 1 else ((), ())
    pairs = []
    for grid_len, block_len, start in _regions(plan):
        shape = (*grid_len, *block_len, *tail)
        s_off = src0 + sum(i * st for i, st in zip(start, plan.src_grid_strides, strict=True))
        d_off = dst0 + sum(i * st for i, st in zip(start, plan.dst_grid_strides, strict=True))
        s_strides = (*plan.src_grid_strides, *plan.src_block_strides, *step)
        d_strides = (*plan.dst_grid_strides, *plan.dst_block_strides, *step)
        # NOTE: np.ndarray checks every view against its span: a wrong plan raises, never
        # reads or writes outside the two arrays.
        s = np.ndarray(shape, dtype, buffer=src_span, offset=s_off, strides=s_strides)
        d = np.ndarray(shape, dtype, buffer=dst_span, offset=d_off, strides=d_strides)
        pairs.append((s, d))
    return pairs


def _regions(plan: RearrangePlan) -> list[tuple[tuple[int, ...], ...]]:
    """Split the grid at each constraint into its full blocks and its one partial tail block.

    Returns ``(grid_len, block_len, start)`` triples; each view then covers existing units only.
    """
    regions = [(plan.grid_len, plan.block_len, (0,) * len(plan.grid_len))]
    for c in plan.constraints:
        full, tail = divmod(c.total_len, c.grid_div_block)
        split = []
        for grid_len, block_len, start in regions:
            if full:
                split.append((_put(grid_len, c.grid_idx, full), block_len, start))
            tail_grid = _put(grid_len, c.grid_idx, 1)
            tail_block = _put(block_len, c.block_idx, tail)
            split.append((tail_grid, tail_block, _put(start, c.grid_idx, full)))
        regions = split
    return regions


def _put(values: tuple[int, ...], at: int, value: int) -> tuple[int, ...]:
    return (*values[:at], value, *values[at + 1 :])


class _Span:
    """Raw bytes of an array's memory, offered through the array interface; keeps it alive."""

    def __init__(self, base: np.ndarray, start: int, nbytes: int):
        self.base = base
        self.__array_interface__ = {
            "data": (base.ctypes.data + start, not base.flags.writeable),
            "shape": (nbytes,),
            "typestr": "|u1",
            "version": 3,
        }


def _byte_span(arr: np.ndarray) -> tuple[np.ndarray, int]:
    """A flat uint8 array over every byte ``arr`` touches, and where element [0..0] sits in it."""
    low = sum(min(0, (n - 1) * s) for n, s in zip(arr.shape, arr.strides, strict=True))
    high = sum(max(0, (n - 1) * s) for n, s in zip(arr.shape, arr.strides, strict=True))
    return np.asarray(_Span(arr, low, high - low + arr.itemsize)), -low


# -- threads ------------------------------------------------------------------------------------


def _run_threaded(pairs, copy) -> None:
    """Copy slices of the view pairs on every core; the calling thread works too."""
    pieces = THREADS * _SLICES_PER_THREAD
    tasks = [(s[i], d[i]) for s, d in pairs for i in _slices(s.shape, pieces)]
    run_parallel(lambda task: copy(*task), tasks)


def _slices(shape: tuple[int, ...], pieces: int):
    """Indexes cutting the outer dims of ``shape`` into about ``pieces`` parts, in order.

    Each index is a tuple of slices, so every part keeps all dims (the grid stays in front).
    """
    outer = 1
    for axis, n in enumerate(shape):
        if outer * n >= pieces or axis == len(shape) - 1:
            step = -(-n // max(1, -(-pieces // outer)))
            for prefix in itertools.product(*map(range, shape[:axis])):
                head = tuple(slice(i, i + 1) for i in prefix)
                for start in range(0, n, step):
                    yield (*head, slice(start, start + step))
            return
        outer *= n
    yield (Ellipsis,)  # a 0-d view, not a scalar
