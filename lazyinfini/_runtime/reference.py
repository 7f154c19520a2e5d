"""The reference executor: node by node with plain numpy. The oracle every test compares to."""

from __future__ import annotations

import time

import numpy as np

from .. import _dtypes
from .._counters import counters
from .._graph import Node, Op, inputs_of
from .._schedule import Schedule, schedule_nodes
from .._schedule.layout import slice_key
from .failures import note_kernel
from .library import call_library
from .ufuncs import UFUNCS


class ReferenceExecutor:
    """Evaluates each node of each kernel on its own; fused kernels are simply unrolled."""

    name = "reference"

    def plan(self, graph, fuse: bool = True, keep=frozenset()) -> Schedule:
        return schedule_nodes(graph, keep)

    def run(self, schedule: Schedule, timings: list | None = None, inputs=None) -> dict:
        # Note (spec): IEEE special values are results, not warnings.
        with np.errstate(all="ignore"):
            return self._run(schedule, timings, inputs or {})

    def _run(self, schedule: Schedule, timings: list | None, inputs: dict) -> dict:
        values: dict[Node, np.ndarray] = dict(inputs)
        for kernel, dead in zip(schedule.kernels, schedule.frees):
            started = time.perf_counter()
            try:
                for node in kernel.nodes:
                    values[node] = evaluate(node, [_value(values, s) for s in inputs_of(node)])
                    counters.nodes += 1
            except Exception as error:
                note_kernel(error, kernel)
                raise
            for node in kernel.intermediates:
                del values[node]
            counters.kernels += 1
            counters.bytes_read += kernel.bytes_read
            counters.bytes_written += kernel.bytes_written
            if timings is not None:
                timings.append(time.perf_counter() - started)
            for node in dead:
                values.pop(node, None)
        return {node: _value(values, node) for node in schedule.outputs + schedule.kept}


def _value(values: dict[Node, np.ndarray], node: Node) -> np.ndarray:
    if node.op is Op.BUFFER and node not in values:
        return node.arg  # NOTE: a schedule run without bindings (li.inspect.plan's)
    return values[node]


def evaluate(node: Node, inputs: list[np.ndarray]) -> np.ndarray:
    """The value of one node from the values of its inputs."""
    op = node.op
    if op in UFUNCS:
        compute = [x.astype(_dtypes.compute_dtype(x.dtype), copy=False) for x in inputs]
        return np.asarray(UFUNCS[op](compute, node.arg)).astype(node.dtype, copy=False)
    if op in _NUMPY:
        return _NUMPY[op](node, *inputs)
    return call_library(node, inputs)


def _arange(node: Node) -> np.ndarray:
    start, step = node.arg
    (length,) = node.shape
    wide = _dtypes.DEFAULT_INT if node.dtype in _dtypes.INTEGER else _dtypes.DEFAULT_FLOAT
    return (np.arange(length, dtype=wide) * step + start).astype(node.dtype)


def _linspace(node: Node) -> np.ndarray:
    start, stop, endpoint = node.arg
    wide = _dtypes.DEFAULT_COMPLEX if node.dtype in _dtypes.COMPLEX else _dtypes.DEFAULT_FLOAT
    values = np.linspace(start, stop, node.shape[0], endpoint=endpoint, dtype=wide)
    # Integer outputs round down (numpy 2's rule); the spec leaves them implementation-defined.
    return (np.floor(values) if node.dtype in _dtypes.INTEGER else values).astype(node.dtype)


_NUMPY = {
    Op.FULL: lambda node: np.broadcast_to(np.asarray(node.arg, dtype=node.dtype), node.shape),
    Op.ARANGE: _arange,
    Op.EYE: lambda node: np.eye(*node.shape, k=node.arg[0], dtype=node.dtype),
    Op.LINSPACE: _linspace,
    Op.ASTYPE: lambda node, x: x.astype(node.dtype),
    Op.PERMUTE: lambda node, x: np.transpose(x, node.arg),
    Op.RESHAPE: lambda node, x: np.reshape(x, node.shape),
    Op.BROADCAST: lambda node, x: np.broadcast_to(x, node.shape),
    Op.SLICE: lambda node, x: x[slice_key(node)],
    Op.COPY: lambda node, x: np.array(x, copy=True, order="C"),
}
