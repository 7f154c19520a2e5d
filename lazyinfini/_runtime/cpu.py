"""The CPU executor (the default): fused elementwise passes, planned rearranges, threads.

It runs a Schedule of frozen kernel records. Values live in a dict keyed by the node holding
them; a value is dropped after its last reader. Outputs are allocated from the pool (pool.py), so
the memory of a dropped value is reused by later kernels and later runs once nothing views it.
"""

from __future__ import annotations

import functools
import sys
import time
import weakref
from dataclasses import dataclass

import numpy as np

from .._counters import counters
from .._graph import Node, Op
from .._options import current
from .._schedule import Kind, Schedule, schedule
from .._schedule.layout import apply_movement
from .failures import note_kernel
from .fused import Program, chunks, run_chunks
from .library import call_library_outputs
from .pool import POOL
from .rearrange import run_rearrange
from .reference import evaluate
from .threads import THREADS, run_parallel

PARALLEL_MIN = 1 << 21  # elements: below this, threads cost more than they save (measured)


class CpuExecutor:
    name = "cpu"

    def plan(self, graph, fuse: bool = True, keep=frozenset()) -> Schedule:
        return schedule(graph, fuse=fuse, keep=keep)

    def run(self, plan: Schedule, timings: list | None = None, inputs=None) -> dict:
        # Note (spec): IEEE special values are results, not warnings.
        with np.errstate(all="ignore"):
            return self._run(plan, timings, inputs or {})

    def _run(self, plan: Schedule, timings: list | None, inputs: dict) -> dict:
        values: dict[Node, np.ndarray] = dict(inputs)
        limit = current().pool_bytes
        memory = functools.partial(POOL.empty, limit=limit)
        debug = current().debug >= 2
        for kernel, dead in zip(plan.kernels, plan.frees):
            started = time.perf_counter()
            try:
                results = _RUN[kernel.kind](kernel, values, memory)
            except Exception as error:
                note_kernel(error, kernel)
                raise
            values.update(zip(kernel.outputs, results))
            elapsed = time.perf_counter() - started
            _count(kernel)
            if timings is not None:
                timings.append(elapsed)
            if debug:
                print(f"lazyinfini: {kernel!r} {elapsed * 1e3:.3f} ms", file=sys.stderr)
            for node in dead:
                del values[node]  # NOTE: its memory goes back to the pool if nothing views it
        POOL.tick(limit)
        return {node: value_of(values, node) for node in plan.outputs + plan.kept}


def value_of(values: dict[Node, np.ndarray], node: Node) -> np.ndarray:
    """A node's value: computed, bound to a buffer stand-in, a buffer's own, or a fill."""
    value = values.get(node)
    if value is not None:
        return value
    if node.op is Op.FULL:
        return np.broadcast_to(np.asarray(node.arg, dtype=node.dtype), node.shape)
    if node.op is Op.BUFFER:
        return node.arg
    raise KeyError(node)


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

    program: Program
    space: tuple[int, ...]
    parts: tuple[tuple, ...]  # the chunks
    constants: dict[int, np.ndarray]  # load index -> 0-d value, for loads of a fill
    scalars: frozenset[int]  # other loads that are fully broadcast: read as their 0-d value
    parallel: bool


_PASSES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _prepare_pass(kernel) -> _Pass:
    parts = chunks(kernel.space)
    size = kernel.outputs[0].size
    work = _Pass(
        Program(kernel.nodes, tuple(ld.node for ld in kernel.loads), kernel.outputs),
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
    run_rearrange(kernel.plan, load_view(load, values), out)
    return [out]


def _view(kernel, values, memory) -> list[np.ndarray]:
    return [load_view(kernel.loads[0], values)]


def _opaque(kernel, values, memory) -> list[np.ndarray]:
    inputs = [load_view(ld, values) for ld in kernel.loads]
    return call_library_outputs(kernel.nodes, inputs)


def _source(kernel, values, memory) -> list[np.ndarray]:
    (node,) = kernel.nodes
    return [evaluate(node, [])]


_RUN = {
    Kind.ELEMENTWISE: _elementwise,
    Kind.REARRANGE: _rearrange,
    Kind.VIEW: _view,
    Kind.SOURCE: _source,
    Kind.OPAQUE: _opaque,
}


def _count(kernel) -> None:
    counters.kernels += 1
    counters.nodes += len(kernel.nodes)
    counters.bytes_written += kernel.bytes_written
    counters.bytes_read += kernel.bytes_read
