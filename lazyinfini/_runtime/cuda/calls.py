"""What the cuda device computes through its backend's Array API namespace (`xp`) rather than
with kernels of its own: views, sources, library calls, and the elementwise kernels that have no
CUDA form (complex dtypes, ...), node by node as the reference device computes them.

Everything here takes arrays of the device and returns arrays of the device: nothing is copied
to the host (a fill's value, a Python scalar, is copied to the device).
"""

from __future__ import annotations

import numpy as np

from ... import _dtypes
from ..._graph import Node, Op, fill_value
from ..._graph.views import apply_movement
from ..library import CUSTOM, Library
from ..reference import arange_positions, arange_values
from ..special_values import SPECIAL_VALUES
from ..ufuncs import own_dtype

# -- views ---------------------------------------------------------------------------------------


def load_view(load, values: dict, value_of, xp):
    """A kernel's load: its base's value seen through the load's movement chain (numpy's view
    rules, in the namespace: _graph/views.py)."""
    view = value_of(values, load.base)
    for step in load.chain:
        view = apply_movement(step, view, xp)
    return view


# -- sources -------------------------------------------------------------------------------------

HOST_FILL = "host fill"  # values[(node, HOST_FILL)]: a fill's host value, once it is on the device


def host_fill(values: dict, node: Node) -> np.ndarray:
    """A fill's value on the host (0-d), to pass by value: the one bound for this run (kept
    beside its device copy once a kernel read that)."""
    kept = values.get((node, HOST_FILL))
    return kept if kept is not None else fill_value(values, node)


def source_value(node: Node, xp):
    """An arange, eye or linspace node's value, made on the device by the reference device's
    formulas (reference.py): the same values wherever the namespace rounds as numpy does."""
    if node.op is Op.ARANGE:
        return arange_values(xp, node, xp.arange(node.shape[0], dtype=arange_positions(node)))
    if node.op is Op.EYE:
        return xp.eye(*node.shape, k=node.arg[0], dtype=node.dtype)
    assert node.op is Op.LINSPACE, node
    start, stop, endpoint = node.arg
    complex_ = node.dtype in _dtypes.COMPLEX
    wide = _dtypes.DEFAULT_COMPLEX if complex_ else _dtypes.DEFAULT_FLOAT
    values = xp.linspace(start, stop, node.shape[0], endpoint=endpoint, dtype=wide)
    # Integer outputs round down (numpy 2's rule), as the reference device's.
    if node.dtype in _dtypes.INTEGER:
        values = xp.floor(values)
    return xp.astype(values, node.dtype)


# -- library calls -------------------------------------------------------------------------------


def library_of(xp, contiguous) -> Library:
    """The device's Library (library.py): calls in `xp`, including the ops that are no plain
    call there (library.CUSTOM, written for any namespace), results made C-contiguous by
    `contiguous`."""
    return Library(xp, CUSTOM, contiguous)


# -- elementwise kernels without a CUDA form -----------------------------------------------------


def evaluate_kernel(kernel, loads: list, library: Library) -> list:
    """An elementwise kernel's outputs from its loads' values, node by node through the
    namespace, each node's result rounded to its dtype: the reference device's arithmetic."""
    xp = library.namespace
    registers = dict(enumerate(loads))
    for step in kernel.program.steps:
        registers[step.dst] = evaluate(step.node, [registers[r] for r in step.srcs], xp)
    outputs = zip(kernel.program.outputs, kernel.outputs)
    return [library.contiguous(registers[r], node.dtype) for r, node in outputs]


def evaluate(node: Node, inputs: list, xp):
    """One elementwise node's value (ufuncs.py's numpy table, in the namespace)."""
    if node.op is Op.ASTYPE:
        return xp.astype(inputs[0], node.dtype)
    if not own_dtype(node, numpy_loops=False):
        inputs = [xp.astype(x, _dtypes.compute_dtype(x.dtype), copy=False) for x in inputs]
    if node.op is Op.CLIP:
        result = _clip(node, inputs, xp)
    elif node.op is Op.COMPLEX:  # NOTE: no namespace function: the parts written in place
        result = xp.empty(node.shape, dtype=node.dtype)
        result.real, result.imag = inputs
        return result
    elif node.op.label in SPECIAL_VALUES:
        result = SPECIAL_VALUES[node.op.label](xp, *inputs)
    else:
        result = getattr(xp, node.op.label)(*inputs)
    return xp.astype(result, node.dtype, copy=False)


def _clip(node: Node, inputs: list, xp):
    x, *bounds = inputs
    has_min, has_max = node.arg
    # NOTE: one bound is maximum or minimum, as the reference's clip (ufuncs.py)
    if not has_max:
        return xp.maximum(x, bounds[0])
    if not has_min:
        return xp.minimum(x, bounds[0])
    return xp.clip(x, *bounds)
