"""Linear algebra functions.

Spec: https://data-apis.org/array-api/latest/API_specification/linear_algebra_functions.html
"""

from __future__ import annotations

from .._array import Array
from .checks import check_array, error
from .manipulation import permute_dims


def matrix_transpose(x, /) -> Array:
    """The last two axes swapped. https://data-apis.org/array-api/latest/API_specification/generated/array_api.matrix_transpose.html"""
    check_array("matrix_transpose", "x", x)
    if x.ndim < 2:
        raise error(ValueError, "matrix_transpose", f"x must be at least 2-d, got {x.ndim}-d")
    axes = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return permute_dims(x, axes)
