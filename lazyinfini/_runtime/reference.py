"""The reference device: node by node with plain numpy, on host memory. The oracle every test
compares to.

Its Target does not fuse: the scheduler gives it one kernel per node (schedule_nodes), and its
one handler evaluates a kernel's nodes in order, whatever their kind.
"""

from __future__ import annotations

import numpy as np

from .. import _dtypes
from .._device import Device
from .._graph import Node, Op, filled, inputs_of
from .._graph.views import slice_key
from .._schedule.kernels import Kind
from .._schedule.target import Target
from .library import call_library
from .ufuncs import UFUNCS, own_dtype


def _evaluate_kernel(kernel, values, memory) -> list[np.ndarray]:
    """Each node of `kernel` from its inputs' values (a kernel of several nodes is unrolled)."""
    local = {}
    for node in kernel.nodes:
        if node.op is Op.FULL:  # NOTE: its value may be bound for this run (_cache.py)
            local[node] = value_of(values, node)
            continue
        local[node] = evaluate(node, [local.get(s, value_of(values, s)) for s in inputs_of(node)])
    return [local[node] for node in kernel.outputs]


_FULL, _BUFFER = Op.FULL, Op.BUFFER  # NOTE: module constants: an Enum member's read is slow


def value_of(values: dict[Node, np.ndarray], node: Node) -> np.ndarray:
    """A node's value on the host: computed, bound to a buffer stand-in, a buffer's own, or a
    fill (the cpu device's too)."""
    if node.op is _FULL:
        return filled(values, node)
    value = values.get(node)
    if value is not None:
        return value
    if node.op is _BUFFER:
        return node.arg.data  # NOTE: a schedule run without bindings (li.inspect's)
    raise KeyError(node)


def source_value(values: dict, node: Node) -> np.ndarray:
    """A source node's value: a fill's as bound for this run (_cache.py), never the value the
    cached template's node was recorded with; any other source's from its parameters."""
    return filled(values, node) if node.op is Op.FULL else evaluate(node, [])


def evaluate(node: Node, inputs: list[np.ndarray]) -> np.ndarray:
    """The value of one node from the values of its inputs."""
    op = node.op
    if op in UFUNCS:
        if not own_dtype(node):
            inputs = [_widened(x) for x in inputs]
        # NOTE: in C order, as every device writes an elementwise value (orders.py permutes
        # the ones numpy writes in another): numpy's own order here would be its operands',
        # and a fill, which reaches the ufunc as a stride-0 view, would have no say in it
        value = np.asarray(UFUNCS[op](inputs, node.arg), order="C")
        return value.astype(node.dtype, copy=False)
    if op in _NUMPY:
        return _NUMPY[op](node, *inputs)
    return call_library(node, inputs)


def _widened(x: np.ndarray) -> np.ndarray:
    """`x` in its compute dtype (half floats: float32). A fully broadcast value stays a stride-0
    view, as numpy would see a scalar: numpy's clip breaks a -0.0/0.0 tie differently for scalar
    bounds than for array bounds, and the numpy and C paths see such bounds as scalars."""
    dtype = _dtypes.compute_dtype(x.dtype)
    if x.dtype == dtype:
        return x
    if x.ndim and x.size > 1 and not any(x.strides):
        return np.broadcast_to(np.asarray(x[(0,) * x.ndim], dtype), x.shape)
    return x.astype(dtype)


def _arange(node: Node) -> np.ndarray:
    return arange_values(np, node, np.arange(node.shape[0], dtype=arange_positions(node)))


def arange_positions(node: Node) -> np.dtype:
    """The dtype of the positions arange_values takes: its values' arithmetic."""
    return (
        _dtypes.DEFAULT_INT if node.dtype in _dtypes.INTEGER else _dtypes.compute_dtype(node.dtype)
    )


def arange_values(xp, node: Node, positions):
    """An arange node's values at `positions` (an array of indices, in arange_positions'
    dtype), on namespace `xp`, as numpy makes them: it stores dtype(start) and dtype(start +
    step), then fills first + i * (second - first) in the dtype's arithmetic (a half float's in
    float32), so a float step's rounding grows as in numpy (arange(-3.3, 7.9, 0.7)[2] is
    -1.8999999999999995, not -1.9)."""
    start, step = node.arg
    dtype = node.dtype
    if dtype in _dtypes.INTEGER:
        return _astype(xp, xp.add(xp.multiply(positions, step), start), dtype)
    wide = _dtypes.compute_dtype(dtype)
    with np.errstate(over="ignore", invalid="ignore"):  # NOTE: float16(70000) is inf, as numpy's
        first = wide.type(dtype.type(start))
        second = wide.type(dtype.type(start + step))
        delta = second - first
        values = xp.add(xp.multiply(positions, delta), first)
        if not (first + delta == second and first + 0 * delta == first):
            # NOTE: numpy stores both ends as they are (an infinite second one too), where the
            # formula rounds them or makes a NaN; namespace calls and 0-d arrays only, which
            # every device's namespace takes (the emulator's arrays have no operators)
            low, high = xp.asarray(first), xp.asarray(second)
            values = xp.where(
                xp.equal(positions, 1), high, xp.where(xp.equal(positions, 0), low, values)
            )
    return _astype(xp, values, dtype)


def _astype(xp, x, dtype):
    cast = getattr(xp, "astype", None)  # NOTE: dask.array's namespace has none: the method
    return x.astype(dtype) if cast is None else cast(x, dtype)


def _linspace(node: Node) -> np.ndarray:
    start, stop, endpoint = node.arg
    wide = _dtypes.DEFAULT_COMPLEX if node.dtype in _dtypes.COMPLEX else _dtypes.DEFAULT_FLOAT
    values = np.linspace(start, stop, node.shape[0], endpoint=endpoint, dtype=wide)
    # Integer outputs round down (numpy 2's rule); the spec leaves them implementation-defined.
    return (np.floor(values) if node.dtype in _dtypes.INTEGER else values).astype(node.dtype)


_NUMPY = {
    Op.ARANGE: _arange,
    Op.EYE: lambda node: np.eye(*node.shape, k=node.arg[0], dtype=node.dtype),
    Op.LINSPACE: _linspace,
    Op.ASTYPE: lambda node, x: x.astype(node.dtype),
    Op.PERMUTE: lambda node, x: np.transpose(x, node.arg),
    Op.RESHAPE: lambda node, x: np.reshape(x, node.shape),
    Op.BROADCAST: lambda node, x: np.broadcast_to(x, node.shape),
    Op.SLICE: lambda node, x: x[slice_key(node)],
    Op.REAL: lambda node, x: np.real(x),
    Op.IMAG: lambda node, x: np.imag(x),
    Op.COPY: lambda node, x: np.array(x, copy=True, order="C"),
}


def _empty(shape, dtype, settings) -> np.ndarray:
    return np.empty(shape, dtype)


REFERENCE = Device(
    "reference",
    Target("reference", fuse=False, numpy_orders=True),
    dict.fromkeys(Kind, _evaluate_kernel),
    _empty,
    value_of,
    to_host=np.asarray,
    from_host=np.asarray,
    context=lambda: np.errstate(all="ignore"),  # Note (spec): IEEE special values are results
    holds_arrays=False,
)
