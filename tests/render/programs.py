"""Programs whose kernels the CUDA tests render (every elementwise op x dtype, layouts, fused
chains, transposed operands, rearranges), the inputs they run on, and the operands a launch
reads as numpy arrays."""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np

import lazyinfini as li
from lazyinfini._graph import Dag, Op
from lazyinfini._options import current
from lazyinfini._render import cuda
from lazyinfini._runtime import cpu
from lazyinfini._runtime.cpu import load_view
from lazyinfini._schedule import Kind, schedule

DTYPES = [
    np.dtype(t)
    for t in (np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.int8, np.int16)
    + (np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.bool_)
]
SPECIAL = [0.0, -0.0, 1.0, -1.0, -1.5, 2.5, 0.5, 7.0, 3.0, 1e-40, -1e-45, 3e38, 65504.0, 1e-5]
SPECIAL += [np.inf, -np.inf, np.nan]
COMPLEX_ONLY = {Op.CONJ, Op.COMPLEX}  # NOTE: complex operands or results
# CUDA's math functions where C borrows numpy's loops: glibc runs them in the shim.
LIBM = {
    Op.EXP, Op.EXPM1, Op.LOG, Op.LOG1P, Op.LOG2, Op.LOG10, Op.SIN, Op.COS, Op.TAN, Op.ASIN,
    Op.ACOS, Op.ATAN, Op.SINH, Op.COSH, Op.TANH, Op.ASINH, Op.ACOSH, Op.ATANH, Op.ATAN2,
    Op.HYPOT, Op.LOGADDEXP, Op.POW,
}  # fmt: skip


def values(dtype: np.dtype, rng: np.random.Generator, shape) -> np.ndarray:
    """Edge values of `dtype` mixed with ordinary ones."""
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        edges = np.array([info.min, info.max, 0, 1, 2, 7, info.max // 2], dtype)
        small = rng.integers(-9 if info.min else 0, 40, 12).astype(dtype)
        return rng.choice(np.concatenate([edges, small]), size=shape)
    pool = np.array(SPECIAL + list(rng.standard_normal(12) * 4), np.float64)
    with np.errstate(over="ignore"):
        return rng.choice(pool, size=shape).astype(dtype)


def op_programs() -> list[tuple[str, np.dtype, object, Op]]:
    """(name, dtype, program of two arrays, op) for every elementwise op and every dtype it
    accepts: the op applied to x, or to x and y."""
    found = []
    for op in Op:
        if op.group.value != "elementwise" or op in COMPLEX_ONLY:
            continue
        for dtype in DTYPES:
            for name, program in _programs_of(op, dtype):
                if _accepts(program, dtype, op):
                    found.append((name, dtype, program, op))
    return found


def _programs_of(op: Op, dtype):
    label = op.label
    if op is Op.ASTYPE:
        for target in DTYPES:
            yield f"astype_{target.name}", lambda x, y, t=target: li.astype(x, t)
    elif op is Op.CLIP:
        low, high = (False, True) if dtype == np.bool_ else (0, 5)
        yield "clip", lambda x, y: li.clip(x, low, high)
        yield "clip_by", lambda x, y: li.clip(x, y, None)
        yield "clip_both", lambda x, y: li.clip(x, y, li.maximum(y, x - x))
    elif op is Op.WHERE:
        yield "where", lambda x, y: li.where(li.not_equal(x, y), y, x)
    else:
        function = getattr(li, label)
        if op.arity == 1:
            yield label, lambda x, y: function(x)
        else:
            yield label, lambda x, y: function(x, y)


def _accepts(program, dtype, op: Op) -> bool:
    """Whether the program takes `dtype` and records `op` for it (isnan of a bool array is a
    fill, floor of one the array: no kernel computes them)."""
    x = li.asarray(np.zeros((2,), dtype))
    try:
        lazy = program(x, x)
    except TypeError:
        return False
    return any(attrs["op"] == op.label for _, attrs in li.graph(lazy).nodes(data=True))


def elementwise_kernel(lazy):
    """The one elementwise kernel computing `lazy` on the cpu device (None: nothing to compute,
    as for a cast to the same dtype), planned as the cuda device plans (its loads as drawn:
    no numpy memory orders, _schedule/orders.py)."""
    kernels = cuda_like_schedule(lazy).kernels
    assert len(kernels) <= 1 and all(k.kind is Kind.ELEMENTWISE for k in kernels), kernels
    return kernels[0] if kernels else None


def kernels_of(*arrays) -> list:
    """The elementwise and rearrange kernels computing `arrays` (cpu schedules, planned as the
    cuda device plans, see elementwise_kernel)."""
    kinds = (Kind.ELEMENTWISE, Kind.REARRANGE)
    return [k for a in arrays for k in cuda_like_schedule(a).kernels if k.kind in kinds]


def cuda_like_schedule(lazy):
    """The cpu's schedule of `lazy` without numpy's memory orders, as the cuda device's."""
    target = dataclasses.replace(cpu.TARGET, numpy_orders=False)
    return schedule(Dag([lazy._node]), target, fuse=current().fuse)


def operands(kernel) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Fresh outputs and the loads' values, laid out as the kernel's launch assumes
    (cuda.layout): the pointers a device would pass."""
    space, strides = cuda.layout(kernel)
    outs = [np.zeros(space, n.dtype) for n in kernel.outputs]
    loads = []
    for ld, want in zip(kernel.loads, strides[len(outs) :]):
        view = np.reshape(load_view(ld, {}), space)
        if view.strides != want:  # NOTE: numpy's reshape copied: the launch assumes so
            view = np.ascontiguousarray(view)
        assert view.strides == tuple(want), (ld, view.strides, want)
        loads.append(view)
    return outs, loads


def reference(program, inputs) -> np.ndarray:
    with li.options(device="reference"):
        return np.asarray(program(*(li.asarray(x) for x in inputs)))
