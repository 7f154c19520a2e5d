"""realize(*arrays): build the graph -> schedule it -> run it -> swap in the buffers."""

from __future__ import annotations

import sys
import time
import weakref

from ._array import held_array
from ._counters import counters
from ._graph import Op, buffer_node, build_graph, mark_realized
from ._options import current
from ._runtime import get_executor


def realize(*arrays, timings: list | None = None):
    """Compute every pending array in `arrays` with one schedule; returns that schedule (None if
    nothing was pending). `timings` receives seconds per kernel. On failure nothing changes."""
    pending = list(dict.fromkeys(a._node for a in arrays if a._node.op is not Op.BUFFER))
    if not pending:
        return None
    options = current()
    started = time.perf_counter()
    executor = get_executor(options.executor)
    graph = build_graph(pending)
    held = {n for n in graph if n.op is not Op.BUFFER and held_array(n) is not None}
    graph.graph["outputs"] += _recomputed_frontier(graph, held, set(pending))
    plan = executor.plan(graph, fuse=options.fuse, keep=held)
    values = executor.run(plan, timings)
    _swap_all(arrays, plan, values)
    _EVALUATED.update(n for n in graph if n.op is not Op.BUFFER)
    counters.materializations += 1
    if options.debug:
        _debug_line(plan, options.executor, time.perf_counter() - started)
    return plan


# Nodes some materialization has evaluated (weakly: they go when their last consumer goes).
_EVALUATED: weakref.WeakSet = weakref.WeakSet()


def _recomputed_frontier(graph, held: set, pending: set) -> list:
    """Nodes an earlier materialization evaluated that this one must evaluate again, where they
    feed new work (or an array holds them): they are written out this time and kept, so a loop
    that reads values back (a fit loop) recomputes any history at most once, not every time."""
    again = []
    for node in graph:
        if node in pending or node.op is Op.BUFFER or node not in _EVALUATED:
            continue
        if node in held or any(c not in _EVALUATED for c in graph.successors(node)):
            again.append(node)
    return again


def _swap_all(arrays, plan, values) -> None:
    """Every computed value an array asked for or holds becomes that array's buffer."""
    for node, out in zip(plan.requested, plan.outputs):
        buffer = _swap(node, values[out])
        holder = held_array(node)
        if holder is not None:
            holder._hold(buffer)
    for array in arrays:
        _ = array._node  # NOTE: resolves every array that shared a swapped node
    for node in plan.kept:  # computed anyway and still held: kept, not recomputed later
        buffer = _swap(node, values[node])
        holder = held_array(node)
        if holder is not None:
            holder._hold(buffer)


def _swap(node, value):
    """The BUFFER node that replaces realized `node` from now on."""
    buffer = buffer_node(_readonly(value), node.source)
    mark_realized(node, buffer)
    return buffer


def _readonly(value):
    # NOTE: a realized buffer may be a view of a user's array or of another buffer; exported
    # views must not let anyone write into it.
    view = value.view()
    view.flags.writeable = False
    return view


def _debug_line(plan, executor: str, seconds: float) -> None:
    shapes = ", ".join(f"{n.shape} {n.dtype.name}" for n in plan.outputs)
    print(
        f"lazyinfini: realized {shapes}: {len(plan.kernels)} kernels on {executor} "
        f"in {seconds * 1e3:.3f} ms",
        file=sys.stderr,
    )
    if current().debug >= 3:
        from .inspect import format_schedule

        print(format_schedule(plan), file=sys.stderr)


def compute(*arrays):
    """Compute all `arrays` with one schedule (shared inputs read once); returns them.

    One array in, that array out; several in, a tuple of them.
    """
    from ._array import Array

    for a in arrays:
        if not isinstance(a, Array):
            raise TypeError(f"compute: expected lazyinfini arrays, got {type(a).__name__}")
    realize(*arrays)
    return arrays[0] if len(arrays) == 1 else arrays
