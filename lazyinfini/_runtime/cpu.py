"""The CPU device (the default): fused elementwise passes over chunks, planned rearranges,
library calls, threads, on host memory.

A table of handlers, one per kernel kind, run by the one run loop (run.py). Outputs come from
the pool (pool.py), so the memory of a dropped value is reused by later kernels and later runs
once nothing views it.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from .._device import Device
from .._graph import Node, Op
from .._graph.views import apply_movement
from .._schedule.kernels import Kind
from .._schedule.target import Target
from .fused import chunks, run_chunks
from .library import call_library_outputs
from .pool import POOL
from .rearrange import run_rearrange
from .reference import evaluate
from .threads import THREADS, run_parallel

PARALLEL_MIN = 1 << 21  # elements: below this, threads cost more than they save (measured)
TARGET = Target("cpu")


def value_of(values: dict[Node, np.ndarray], node: Node) -> np.ndarray:
    """A node's value: computed, bound to a buffer stand-in, a buffer's own, or a fill."""
    value = values.get(node)
    if value is not None:
        return value
    if node.op is Op.FULL:
        return np.broadcast_to(np.asarray(node.arg, dtype=node.dtype), node.shape)
    if node.op is Op.BUFFER:
        return node.arg.data
    raise KeyError(node)


def empty(shape: tuple[int, ...], dtype, settings) -> np.ndarray:
    """An output from the pool, within the run's pool_bytes."""
    return POOL.empty(shape, dtype, settings.pool_bytes)


def load_view(load, values) -> np.ndarray:
    view = value_of(values, load.base)
    for step in load.chain:
        view = apply_movement(step, view)
    return view


def _elementwise(kernel, values, memory) -> list[np.ndarray]:
    outs = [memory(n.shape, n.dtype) for n in kernel.outputs]
    if kernel.outputs[0].size == 0:
        return outs
    work = _PASSES.get(kernel) or _prepare_pass(kernel)
    loads = [_chunkable(i, ld, values, work) for i, ld in enumerate(kernel.loads)]
    flat = [np.reshape(out, work.space) for out in outs]
    if work.parallel:
        run_parallel(lambda part: run_chunks(work.program, loads, flat, [part]), work.parts)
    else:
        run_chunks(work.program, loads, flat, work.parts, own_errstate=False)
    return outs


def _chunkable(i: int, load, values, work) -> np.ndarray:
    """Load `i` in the kernel's iteration space. A fully broadcast one is its 0-d value, so it
    is converted (half floats) once, not once per chunk, and numpy uses its scalar loops."""
    if i in work.constants:
        return work.constants[i]
    view = load_view(load, values)
    if i in work.scalars:
        return np.asarray(view[(0,) * view.ndim])
    return np.reshape(view, work.space)


@dataclass(frozen=True)
class _Pass:
    """What running an elementwise kernel needs besides its buffers, worked out once per kernel
    (a cached schedule runs the same kernels again)."""

    program: object  # the kernel record's register program (_schedule/linearize.py)
    space: tuple[int, ...]
    parts: tuple[tuple, ...]  # the chunks
    constants: dict[int, np.ndarray]  # load index -> 0-d value, for loads of a fill
    scalars: frozenset[int]  # other loads that are fully broadcast: read as their 0-d value
    parallel: bool


_PASSES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _prepare_pass(kernel) -> _Pass:
    parts = chunks(kernel.space, TARGET.chunk)
    size = kernel.outputs[0].size
    work = _Pass(
        kernel.program,
        kernel.space,
        parts,
        {
            i: np.asarray(ld.base.arg, dtype=ld.base.dtype)
            for i, ld in enumerate(kernel.loads)
            if ld.base.op is Op.FULL and not any(ld.strides)
        },
        frozenset(
            i
            for i, ld in enumerate(kernel.loads)
            if ld.base.op is not Op.FULL and not any(ld.strides)
        ),
        parallel=size >= PARALLEL_MIN and THREADS > 1 and len(parts) > 1,
    )
    _PASSES[kernel] = work
    return work


def _rearrange(kernel, values, memory) -> list[np.ndarray]:
    (load,) = kernel.loads
    copy = kernel.outputs[0]
    out = memory(copy.shape, copy.dtype)
    run_rearrange(kernel.plan, load_view(load, values), out, kernel.method)
    return [out]


def _view(kernel, values, memory) -> list[np.ndarray]:
    return [load_view(kernel.loads[0], values)]


def _opaque(kernel, values, memory) -> list[np.ndarray]:
    inputs = [load_view(ld, values) for ld in kernel.loads]
    return call_library_outputs(kernel.nodes, inputs)


def _source(kernel, values, memory) -> list[np.ndarray]:
    (node,) = kernel.nodes
    return [evaluate(node, [])]


def _errors_are_values():
    # Note (spec): IEEE special values are results, not warnings.
    return np.errstate(all="ignore")


CPU = Device(
    "cpu",
    TARGET,
    {
        Kind.ELEMENTWISE: _elementwise,
        Kind.REARRANGE: _rearrange,
        Kind.VIEW: _view,
        Kind.SOURCE: _source,
        Kind.OPAQUE: _opaque,
    },
    empty,
    value_of,
    to_host=np.asarray,
    from_host=np.asarray,
    context=_errors_are_values,
    finish=lambda settings: POOL.tick(settings.pool_bytes),
)
