"""realize(*arrays): build the graph -> schedule it -> run it -> swap in the buffers."""

from __future__ import annotations

import sys
import time

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
    plan = executor.plan(build_graph(pending), fuse=options.fuse)
    held = executor.run(plan, timings)
    values = {node: held[out] for node, out in zip(plan.requested, plan.outputs)}
    for array in arrays:
        node = array._node
        if node.op is not Op.BUFFER:
            buffer = buffer_node(_readonly(values[node]), node.source)
            mark_realized(node, buffer)
            array._n = buffer
    counters.materializations += 1
    if options.debug:
        _debug_line(plan, options.executor, time.perf_counter() - started)
    return plan


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
