"""lazyinfini: a lazy Python Array API namespace.

Arrays record operations into a DAG (a networkx.DiGraph, see li.graph); a scheduler plans kernels
and an executor runs them when a value is needed (np.asarray, .compute(), DLPack, bool/int/float).
"""

import importlib as _importlib

# -- helper sections: each added by the module that defines the names (keep blocks separate) --
# manipulation, creation, linear algebra, indexing, constants. The linalg and fft extensions,
# einsum and rearrange (extensions, numpy's and einops' semantics), inspection: see __getattr__
from ._api.constants import e, inf, nan, newaxis, pi
from ._api.creation import (
    arange,
    asarray,
    empty,
    empty_like,
    eye,
    from_dlpack,
    full,
    full_like,
    linspace,
    meshgrid,
    ones,
    ones_like,
    tril,
    triu,
    zeros,
    zeros_like,
)
from ._api.data_types import astype, can_cast, finfo, iinfo, isdtype, result_type
from ._api.distributed import from_dask, from_zarr, persist, to_dask

# the element-wise functions: each declared on its own line in _api/elementwise.py, whose
# __all__ (read from the declarations) lists them
from ._api.elementwise import *  # noqa: F403
from ._api.elementwise import __all__ as _elementwise_names
from ._api.indexing import take, take_along_axis
from ._api.info import __array_namespace_info__
from ._api.linear_algebra import matmul, matrix_transpose, tensordot, vecdot
from ._api.manipulation import (
    broadcast_arrays,
    broadcast_shapes,
    broadcast_to,
    concat,
    expand_dims,
    flip,
    moveaxis,
    permute_dims,
    repeat,
    reshape,
    roll,
    squeeze,
    stack,
    tile,
    unstack,
)

# statistics, searching, sorting, sets, utility
from ._api.searching import argmax, argmin, count_nonzero, nonzero, searchsorted
from ._api.sets import isin, unique_all, unique_counts, unique_inverse, unique_values
from ._api.sorting import argsort, sort
from ._api.statistics import (
    cumulative_prod,
    cumulative_sum,
    max,
    mean,
    min,
    prod,
    std,
    sum,
    var,
)
from ._api.utility import all, any, diff
from ._array import Array, compute
from ._device import Device
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

# numpy's names for namespace functions (extensions); other numpy names: see __getattr__
from ._numpy_names import (
    absolute,
    amax,
    amin,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    concatenate,
    invert,
    left_shift,
    power,
    right_shift,
    transpose,
)
from ._numpy_names import missing_name as _missing_name
from ._options import options, set_options

__array_api_version__ = "2025.12"
_SUPPORTED_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")


# NOTE: imported at first use (PEP 562), as `import lazyinfini` records arrays without them:
# li.CPU with the runtime (~30 ms, the C compiler's modules), NumpyFallbackWarning with numpy's
# function protocol (~10 ms), the fft and linalg extensions, einsum, rearrange and inspection
# (~12 ms together, compiled from source where no bytecode is cached). Name -> the module
# defining it; a submodule's name maps to the submodule itself.
_AT_FIRST_USE = {
    "CPU": "._runtime",
    "NumpyFallbackWarning": "._numpy_functions",
    "einsum": "._api.einsum",
    "explain": ".inspect",
    "fft": ".fft",
    "graph": ".inspect",
    "inspect": ".inspect",
    "linalg": ".linalg",
    "rearrange": "._api.rearrange_pattern",
    "report": ".inspect",
    "to_dot": ".inspect",
    "visualize": ".inspect",
}


def __getattr__(name: str):
    """A name imported at first use; otherwise a name the namespace lacks: numpy's names raise
    an AttributeError naming lazyinfini's way (li.hstack: use li.concat(arrays, axis=1)), see
    _numpy_names.NUMPY_HINTS."""
    module = _AT_FIRST_USE.get(name)
    if module is None:
        raise _missing_name(name)
    loaded = _importlib.import_module(module, __name__)
    value = loaded if module == f".{name}" else getattr(loaded, name)
    # NOTE: kept as the module's attribute: later lookups skip this function (1.2 us -> 20 ns).
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_AT_FIRST_USE})


__all__ = [
    "Array",
    "Device",
    "__array_namespace_info__",
    "absolute",
    "all",
    "amax",
    "amin",
    "any",
    "arange",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "argmax",
    "argmin",
    "argsort",
    "asarray",
    "astype",
    "bfloat16",
    "bool",
    "broadcast_arrays",
    "broadcast_shapes",
    "broadcast_to",
    "can_cast",
    "complex128",
    "complex64",
    "compute",
    "concat",
    "concatenate",
    "count_nonzero",
    "cumulative_prod",
    "cumulative_sum",
    "diff",
    "e",
    "empty",
    "empty_like",
    "expand_dims",
    "eye",
    "finfo",
    "flip",
    "float16",
    "float32",
    "float64",
    "from_dask",
    "from_dlpack",
    "from_zarr",
    "full",
    "full_like",
    "iinfo",
    "inf",
    "int16",
    "int32",
    "int64",
    "int8",
    "invert",
    "isdtype",
    "isin",
    "left_shift",
    "linspace",
    "matmul",
    "matrix_transpose",
    "max",
    "mean",
    "meshgrid",
    "min",
    "moveaxis",
    "nan",
    "newaxis",
    "nonzero",
    "ones",
    "ones_like",
    "options",
    "permute_dims",
    "persist",
    "pi",
    "power",
    "prod",
    "repeat",
    "reshape",
    "result_type",
    "right_shift",
    "roll",
    "searchsorted",
    "set_options",
    "sort",
    "squeeze",
    "stack",
    "std",
    "sum",
    "take",
    "take_along_axis",
    "tensordot",
    "tile",
    "to_dask",
    "transpose",
    "tril",
    "triu",
    "uint16",
    "uint32",
    "uint64",
    "uint8",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
    "unstack",
    "var",
    "vecdot",
    "zeros",
    "zeros_like",
]
__all__ += _elementwise_names  # the element-wise functions, as declared there
__all__ += list(_AT_FIRST_USE)  # the names imported at first use (see __getattr__)
