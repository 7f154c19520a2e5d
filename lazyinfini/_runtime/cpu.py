"""The CPU executor (the default): fused elementwise passes, planned rearranges, threads.

It runs a Schedule of frozen kernel records. Values live in a dict keyed by the node holding
them; a value is dropped after its last reader, and its memory is reused by later kernels.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from .._counters import counters
from .._graph import Node, Op
from .._options import current
from .._schedule import Kind, Schedule, schedule
from .._schedule.layout import apply_movement
from .fused import Program, chunks, run_chunks
from .library import call_library_outputs
from .rearrange import run_rearrange
from .reference import evaluate
from .threads import THREADS, run_parallel

PARALLEL_MIN = 1 << 21  # elements: below this, threads cost more than they save (measured)


class CpuExecutor:
    name = "cpu"

    def plan(self, graph, fuse: bool = True, keep=frozenset()) -> Schedule:
        return schedule(graph, fuse=fuse, keep=keep)

    def run(self, plan: Schedule, timings: list | None = None) -> dict[Node, np.ndarray]:
        # Note (spec): IEEE special values are results, not warnings.
        with np.errstate(all="ignore"):
            return self._run(plan, timings)

    def _run(self, plan: Schedule, timings: list | None) -> dict[Node, np.ndarray]:
        values: dict[Node, np.ndarray] = {}
        memory = Memory()
        debug = current().debug >= 2
        for kernel, dead in zip(plan.kernels, plan.frees):
            started = time.perf_counter()
            results = _RUN[kernel.kind](kernel, values, memory)
            values.update(zip(kernel.outputs, results))
            elapsed = time.perf_counter() - started
            _count(kernel)
            if timings is not None:
                timings.append(elapsed)
            if debug:
                print(f"lazyinfini: {kernel!r} {elapsed * 1e3:.3f} ms", file=sys.stderr)
            for node in dead:
                memory.release(values.pop(node))
        return {node: value_of(values, node) for node in plan.outputs + plan.kept}


def value_of(values: dict[Node, np.ndarray], node: Node) -> np.ndarray:
    if node.op is Op.BUFFER:
        return node.arg
    if node.op is Op.FULL:
        return np.broadcast_to(np.asarray(node.arg, dtype=node.dtype), node.shape)
    return values[node]


def load_view(load, values) -> np.ndarray:
    view = value_of(values, load.base)
    for step in load.chain:
        view = apply_movement(step, view)
    return view


class Memory:
    """Freed kernel outputs, reused by later kernels of the same run (page faults cost as much
    as the kernel itself on a fresh allocation; DESIGN.md §9)."""

    def __init__(self):
        self.free: dict[int, list[np.ndarray]] = {}
        self.owned: dict[int, np.ndarray] = {}  # id -> array, for arrays this run allocated

    def empty(self, shape, dtype) -> np.ndarray:
        nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        stock = self.free.get(nbytes)
        out = stock.pop().view(dtype).reshape(shape) if stock else np.empty(shape, dtype)
        self.owned[id(out)] = out
        return out

    def release(self, value: np.ndarray) -> None:
        # NOTE: only memory this run allocated, and that no library result views, is reused.
        if self.owned.pop(id(value), None) is not None and value.nbytes >= 1 << 16:
            self.free.setdefault(value.nbytes, []).append(value.reshape(-1).view(np.uint8))

    def guard(self, result: np.ndarray, inputs: list[np.ndarray]) -> np.ndarray:
        """A library result that views one of our buffers is copied, so the buffer can go."""
        for x in inputs:
            if np.may_share_memory(result, x) and any(
                np.may_share_memory(x, own) for own in self.owned.values()
            ):
                return result.copy()
        return result


def _elementwise(kernel, values, memory) -> list[np.ndarray]:
    outs = [memory.empty(n.shape, n.dtype) for n in kernel.outputs]
    if kernel.outputs[0].size == 0:
        return outs
    loads = [_chunkable(load_view(ld, values), kernel.space) for ld in kernel.loads]
    program = Program(kernel.nodes, tuple(ld.node for ld in kernel.loads), kernel.outputs)
    flat = [np.reshape(out, kernel.space) for out in outs]
    parts = chunks(kernel.space)
    if kernel.outputs[0].size < PARALLEL_MIN or THREADS == 1 or len(parts) == 1:
        run_chunks(program, loads, flat, parts)
    else:
        run_parallel(lambda part: run_chunks(program, loads, flat, [part]), parts)
    return outs


def _chunkable(view: np.ndarray, space: tuple[int, ...]) -> np.ndarray:
    """A load in the kernel's iteration space; a fully broadcast one as its 0-d value, so it is
    converted (half floats) once, not once per chunk, and numpy uses its scalar loops."""
    if view.size and not any(view.strides):
        return np.asarray(view.reshape(-1)[0])
    return np.reshape(view, space)


def _rearrange(kernel, values, memory) -> list[np.ndarray]:
    (load,) = kernel.loads
    copy = kernel.outputs[0]
    out = memory.empty(copy.shape, copy.dtype)
    run_rearrange(kernel.plan, load_view(load, values), out)
    return [out]


def _view(kernel, values, memory) -> list[np.ndarray]:
    return [load_view(kernel.loads[0], values)]


def _opaque(kernel, values, memory) -> list[np.ndarray]:
    inputs = [load_view(ld, values) for ld in kernel.loads]
    return [memory.guard(v, inputs) for v in call_library_outputs(kernel.nodes, inputs)]


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
