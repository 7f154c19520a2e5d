"""Run a RearrangePlan through a C kernel rendered for it (``_render/rearrange.py``), on the
compiling skeleton (c_compiling.py): rendered once per plan, compiled with the other kernels
of a new schedule in one translation unit, loaded once.

The same copy as ``rearrange.run_rearrange``'s tiled method, bit for bit: the kernel moves the
plan's units as raw bytes, block by block over the grid. It takes a [start, stop) range of grid
cells, so threads split the grid: the C pool's (c_threads.py), else Python's (ctypes releases
the GIL during the call). Every way the C path can be unavailable raises ``CompileError``; the
caller then runs the numpy path.
"""

from __future__ import annotations

import ctypes
import hashlib

import numpy as np

from .._render.compile import CompileError
from .._render.rearrange import cell_count, render_rearrange
from .._schedule.rearrange import RearrangePlan
from . import c_threads
from .c_compiling import ARGTYPES, C_KERNELS, RENDERERS
from .compiling import Call
from .rearrange import _check_pair
from .threads import THREADS, run_parallel

__all__ = ["CompileError", "run_compiled"]

_RANGES_PER_THREAD = 4
_ARGTYPES = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)


def run_compiled(plan: RearrangePlan, src: np.ndarray, dst: np.ndarray, threads: bool) -> None:
    """Copy ``src`` into ``dst`` by ``plan`` (computed for these arrays) with its C kernel,
    spreading the grid's cells over every core when ``threads``."""
    _check_pair(src, dst)
    assert src.size * src.itemsize == plan.nbytes, (src.shape, src.dtype, plan)
    if plan.nbytes == 0:
        return
    (kernel,) = C_KERNELS.functions(plan)
    (call,) = C_KERNELS.calls(plan)
    src_reach, dst_reach = call.layout
    # NOTE: C checks nothing: a plan reaching past either array would read or write stray
    # memory, so its reach is checked against the arrays' spans (numpy's views check the same).
    if not (_within(src_reach, src) and _within(dst_reach, dst)):
        raise ValueError(f"rearrange: {plan} reaches outside src {src.shape} or dst {dst.shape}")
    # NOTE: ctypes.data is element [0..0] whatever the strides' signs: the plan's origin.
    src_addr, dst_addr = src.ctypes.data, dst.ctypes.data
    cells = cell_count(plan)
    if threads and THREADS > 1 and cells > 1:
        ranges = _ranges(cells, THREADS * _RANGES_PER_THREAD)
        pool = c_threads.library()
        if pool is not None:  # NOTE: the same ranges (one step each) on C threads
            pool.li_pool_copy(kernel, src_addr, dst_addr, cells, ranges[0][1])
        else:
            run_parallel(lambda span: kernel(src_addr, dst_addr, *span), ranges)
    else:
        kernel(src_addr, dst_addr, 0, cells)


def _render(plan: RearrangePlan) -> tuple[Call, ...]:
    """The plan's one call; its layout: the byte ranges it reads and writes around [0..0]."""
    # NOTE: plans are frozen; equal plans render the same source (one function for both).
    name = "rearrange_" + hashlib.sha1(repr(plan).encode()).hexdigest()[:16]
    layout = (_reach(plan, "src"), _reach(plan, "dst"))
    return (Call(render_rearrange(plan, name), name, layout),)


RENDERERS[RearrangePlan] = _render
ARGTYPES[tuple] = _ARGTYPES  # NOTE: its layout, the reaches, is a plain tuple


def _reach(plan: RearrangePlan, side: str) -> tuple[int, int]:
    """[low, high): the bytes the plan touches on one side, relative to element [0..0]."""
    grid = list(zip(plan.grid_len, getattr(plan, f"{side}_grid_strides")))
    block = list(zip(plan.block_len, getattr(plan, f"{side}_block_strides")))
    for c in plan.constraints:  # a split dim reaches index total_len - 1, not the padded grid
        stride = block[c.block_idx][1]
        assert grid[c.grid_idx][1] == stride * c.grid_div_block, (plan, c)
        grid[c.grid_idx], block[c.block_idx] = (1, 0), (c.total_len, stride)
    steps = [(n - 1) * s for n, s in grid + block]
    low = sum(min(0, step) for step in steps)
    return low, sum(max(0, step) for step in steps) + plan.unit


def _within(reach: tuple[int, int], arr: np.ndarray) -> bool:
    steps = [(n - 1) * s for n, s in zip(arr.shape, arr.strides)]
    low = sum(min(0, step) for step in steps)
    high = sum(max(0, step) for step in steps) + arr.itemsize
    return low <= reach[0] and reach[1] <= high


def _ranges(cells: int, pieces: int) -> list[tuple[int, int]]:
    """[start, stop) ranges cutting ``cells`` into at most ``pieces`` nearly equal parts."""
    step = -(-cells // min(pieces, cells))
    return [(start, min(start + step, cells)) for start in range(0, cells, step)]
