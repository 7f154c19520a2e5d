"""Copy one ndarray into another by a rearrange plan: what the scheduler and the CPU device do
for a REARRANGE kernel, for arrays the tests make (any strides, any alignment)."""

from __future__ import annotations

import numpy as np

from lazyinfini._runtime.rearrange import run_rearrange
from lazyinfini._schedule.rearrange import DEFAULT_BLOCK_BYTES, copy_method, plan_rearrange
from lazyinfini._schedule.target import Target

CPU = Target("numpy")  # NOTE: numpy's tiles and copy methods: these helpers run numpy copies


def plan_for(
    src: np.ndarray, dst: np.ndarray, block_bytes: int = DEFAULT_BLOCK_BYTES, line_tiles=False
):
    """The RearrangePlan for copying these two arrays (their strides and addresses); with
    ``line_tiles``, planned as for a compiling device (a transposing block in line tiles)."""
    if src.shape != dst.shape or src.itemsize != dst.itemsize:
        raise ValueError(f"rearrange: src {src.shape} and dst {dst.shape} differ")
    size = src.itemsize
    shape, src_strides, dst_strides = src.shape, src.strides, dst.strides
    if any(s % size for s in (*src_strides, *dst_strides)):
        # Strides that are not whole elements (a field of a record array): plan bytes instead.
        shape, size = (*shape, size), 1
        src_strides, dst_strides = (*src_strides, 1), (*dst_strides, 1)
    return plan_rearrange(
        shape,
        tuple(s // size for s in src_strides),
        tuple(s // size for s in dst_strides),
        size,
        src_offset=src.ctypes.data % 32,
        dst_offset=dst.ctypes.data % 32,
        block_bytes=block_bytes,
        line_tiles=line_tiles,
    )


def choose_method(plan, src: np.ndarray, dst: np.ndarray, target: Target = CPU) -> str:
    return copy_method(plan, src.shape, src.strides, dst.strides, target)


def rearrange_copy(src: np.ndarray, dst: np.ndarray) -> None:
    plan = plan_for(src, dst)
    run_rearrange(plan, src, dst, choose_method(plan, src, dst))
