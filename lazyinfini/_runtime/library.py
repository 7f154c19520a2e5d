"""Reductions and opaque ops: one call into array_api_compat.numpy (spec-correct numpy wrappers).

A node's `arg` is a tuple of (keyword, value) pairs passed to the call. Two keys are ours:
"_function" names the function when the op is a namespace (linalg, fft), and "_index" picks one
item of a function that returns several arrays (eigh, qr, svd, ...).
"""

from __future__ import annotations

import array_api_compat.numpy as compat
import numpy as np

from .. import _dtypes
from .._graph import Node, Op

# Ops whose implementation is not a plain library call: filled by the modules that record them.
CUSTOM: dict[Op, object] = {}

_NAMESPACES = {Op.LINALG: compat.linalg, Op.FFT: compat.fft}


def call_library(node: Node, inputs: list[np.ndarray]) -> np.ndarray:
    """The value of a REDUCE or OPAQUE node from its inputs' values."""
    kwargs = dict(node.arg or ())
    index = kwargs.pop("_index", None)
    name = kwargs.pop("_function", node.op.label)
    # Half floats compute in float32 and round once, as elementwise ops do.
    inputs = [x.astype(_dtypes.compute_dtype(x.dtype), copy=False) for x in inputs]
    if node.op in CUSTOM:
        result = CUSTOM[node.op](*inputs, **kwargs)
    else:
        result = getattr(_NAMESPACES.get(node.op, compat), name)(*inputs, **kwargs)
    if index is not None:
        result = result[index]
    result = np.asarray(result).astype(node.dtype, copy=False)
    assert result.shape == node.shape, (node, result.shape)
    return result
