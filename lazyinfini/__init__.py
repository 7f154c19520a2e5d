"""lazyinfini: a lazy Python Array API namespace.

Arrays record operations into a DAG (a networkx.DiGraph, see li.graph); a scheduler plans kernels
and an executor runs them when a value is needed (np.asarray, .compute(), DLPack, bool/int/float).
"""

from __future__ import annotations

from . import inspect
from ._api.creation import (
    arange,
    asarray,
    empty,
    empty_like,
    from_dlpack,
    full,
    full_like,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from ._api.data_types import astype, can_cast, finfo, iinfo, isdtype, result_type
from ._api.elementwise import (
    abs,
    add,
    clip,
    divide,
    equal,
    greater,
    greater_equal,
    less,
    less_equal,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    positive,
    subtract,
    where,
)
from ._api.indexing import getitem as _getitem  # noqa: F401  (reached through Array.__getitem__)
from ._api.linear_algebra import matrix_transpose
from ._api.manipulation import broadcast_to, expand_dims, permute_dims, reshape
from ._array import Array
from ._device import CPU, Device
from ._dtypes import (
    bfloat16,
    bool,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._options import options, set_options
from ._realize import compute
from .inspect import explain, graph, to_dot, visualize

# -- helper sections: each added by the module that defines the names (keep blocks separate) --

__array_api_version__ = "2024.12"
_SUPPORTED_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")

__all__ = [
    "Array",
    "CPU",
    "Device",
    "abs",
    "add",
    "arange",
    "asarray",
    "astype",
    "bfloat16",
    "bool",
    "broadcast_to",
    "can_cast",
    "clip",
    "complex128",
    "complex64",
    "compute",
    "divide",
    "empty",
    "empty_like",
    "equal",
    "expand_dims",
    "explain",
    "finfo",
    "float16",
    "float32",
    "float64",
    "from_dlpack",
    "full",
    "full_like",
    "graph",
    "greater",
    "greater_equal",
    "iinfo",
    "inspect",
    "int16",
    "int32",
    "int64",
    "int8",
    "isdtype",
    "less",
    "less_equal",
    "matrix_transpose",
    "maximum",
    "minimum",
    "multiply",
    "negative",
    "not_equal",
    "ones",
    "ones_like",
    "options",
    "permute_dims",
    "positive",
    "reshape",
    "result_type",
    "set_options",
    "subtract",
    "to_dot",
    "uint16",
    "uint32",
    "uint64",
    "uint8",
    "visualize",
    "where",
    "zeros",
    "zeros_like",
]
