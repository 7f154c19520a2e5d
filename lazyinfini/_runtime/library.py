"""Reductions and opaque ops: one call into array_api_compat.numpy (spec-correct numpy wrappers).

A node's `arg` is a tuple of (keyword, value) pairs passed to the call. Two keys are ours:
"_function" names the function when the op is a namespace (linalg, fft), and "_index" picks one
item of a function that returns several arrays (eigh, qr, svd, ...).
"""

from __future__ import annotations

import numpy as np

from .. import _dtypes
from .._compat import compat
from .._graph import Node, Op
from . import differences, indexing, joining, sorting

# Ops whose implementation is not a plain library call: filled by the modules that record them.
CUSTOM: dict[Op, object] = {}
CUSTOM.update(indexing.IMPLEMENTATIONS)  # gather, setitem
CUSTOM.update(joining.IMPLEMENTATIONS)  # concat, stack
CUSTOM.update(sorting.IMPLEMENTATIONS)  # sort (stable descending), searchsorted (sorter)
CUSTOM.update(differences.IMPLEMENTATIONS)  # diff (prepend/append, n=0)

_NAMESPACES = {Op.LINALG: "linalg", Op.FFT: "fft"}  # NOTE: names: compat loads at first use


def call_library(node: Node, inputs: list[np.ndarray]) -> np.ndarray:
    """The value of a REDUCE or OPAQUE node from its inputs' values."""
    (value,) = call_library_outputs((node,), inputs)
    return value


def call_library_outputs(nodes, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The values of nodes that differ only in which item ("_index") of one call they take:
    the library is called once (qr's Q and R, eigh's values and vectors)."""
    kwargs = dict(nodes[0].arg or ())
    kwargs.pop("_index", None)
    name = kwargs.pop("_function", nodes[0].op.label)
    # Half floats compute in float32 and round once, as elementwise ops do.
    inputs = [x.astype(_dtypes.compute_dtype(x.dtype), copy=False) for x in inputs]
    if nodes[0].op in CUSTOM:
        result = CUSTOM[nodes[0].op](*inputs, **kwargs)
    else:
        space = _NAMESPACES.get(nodes[0].op)
        namespace = compat if space is None else getattr(compat, space)
        result = getattr(namespace, name)(*inputs, **kwargs)
    return [_finish(node, result) for node in nodes]


def _finish(node: Node, result) -> np.ndarray:
    index = dict(node.arg or ()).get("_index")
    if index is not None:
        result = result[index]
    # NOTE: the scheduler plans every view and copy of a kernel's output with C strides (numpy
    # keeps an F-order or transposed input's layout in sum, sort, cumulative_sum, take, ...).
    result = np.asarray(result).astype(node.dtype, order="C", copy=False)
    assert result.shape == node.shape, (node, result.shape)
    return result
