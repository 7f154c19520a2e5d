"""numpy's arguments as lazyinfini arrays: numpy's conversions and promotion, and Fallback.

A twin takes what numpy takes (Arrays, ndarrays, lists, Python and numpy scalars) and converts
it the way numpy would, so the recorded result has numpy's dtype: lists get numpy's default
dtypes, and mixed operands are promoted by numpy's rules (NEP 50: Python scalars are weak, a
mix of kinds promotes where the standard leaves it open) before a namespace function sees them.
"""

from __future__ import annotations

import builtins
import functools
import inspect

import numpy as np

from .. import _dtypes
from .._api.creation import asarray, operand
from .._api.data_types import astype
from .._api.data_types import result_type as _result_type
from .._api.manipulation import stack
from .._array import Array

NOT_GIVEN = np._NoValue  # numpy's default for "not passed" (keepdims, initial, prepend, ...)
_PYTHON_SCALARS = (builtins.bool, int, float, complex)


class Fallback(Exception):
    """A twin cannot record this call; numpy runs it on computed values instead (the message
    says why, for the warning)."""


def array(value, dtype=None) -> Array:
    """`value` as an Array (of `dtype` when given), converted as numpy.asarray would."""
    if isinstance(value, Array):
        return value if dtype is None or value.dtype == dtype else astype(value, dtype)
    if isinstance(value, (list, tuple)) and _holds_arrays(value):
        # NOTE: numpy would stack a list of arrays by computing them; stacking records it.
        items = promoted(*value)
        return array(stack(items), dtype)
    if value is None or isinstance(value, str):
        raise Fallback(f"the argument {value!r} is not an array")
    converted = np.asarray(value)  # numpy's own conversion: lists get numpy's default dtypes
    if not _dtypes.is_supported(converted.dtype):
        raise Fallback(f"numpy dtype {converted.dtype} has no lazyinfini dtype")
    # NOTE: memory someone may write later (an ndarray, a pandas column): its values now
    return asarray(operand(converted, given=value), dtype=dtype)


def _holds_arrays(value) -> bool:
    return builtins.any(
        isinstance(v, Array) or (isinstance(v, (list, tuple)) and _holds_arrays(v)) for v in value
    )


def result_dtype(*values) -> np.dtype:
    """numpy's result dtype for arrays, ndarrays, dtypes and scalars (Python scalars weak)."""
    dtypes = [_dtype_or_scalar(v) for v in values]
    try:
        found = np.result_type(*dtypes)
    except TypeError:  # NOTE: numpy's DTypePromotionError (bfloat16 with a numpy float32)
        found = None
    if found is not None and found != _dtypes.float64:
        return found
    if not builtins.any(map(_is_bfloat16, dtypes)):
        return found if found is not None else np.result_type(*dtypes)  # NOTE: numpy's error
    # NOTE: numpy's result_type knows bfloat16 (ml_dtypes' dtype) only in part: with a Python
    # float it gives float64, where a weak scalar keeps an array's dtype (as operators keep
    # bfloat16), and with a numpy float32 scalar it raises: the namespace's promotion
    weak = [type(v) in _PYTHON_SCALARS for v in values]
    typed = [getattr(d, "dtype", d) for d, w in zip(dtypes, weak, strict=True) if not w]
    return _result_type(*typed, *(v for v, w in zip(values, weak, strict=True) if w))


def _is_bfloat16(value) -> bool:
    return getattr(value, "dtype", value) == _dtypes.bfloat16


def _dtype_or_scalar(value):
    if isinstance(value, Array):
        return value.dtype
    if isinstance(value, (list, tuple)):
        return array(value).dtype if _holds_arrays(value) else np.asarray(value).dtype
    if isinstance(value, (np.ndarray, np.generic, np.dtype, *_PYTHON_SCALARS)):
        return value
    return np.asarray(value).dtype


def promoted(*values, dtype=None) -> list[Array]:
    """`values` as Arrays of one dtype: `dtype`, or numpy's result dtype of them."""
    dtype = result_dtype(*values) if dtype is None else np.dtype(dtype)
    return [array(v, dtype) for v in values]


def converted(*values) -> list[Array]:
    """`values` converted first, then promoted: numpy's functions that call asarray on their
    arguments make Python scalars strong (int64, float64) arrays, not weak scalars."""
    return promoted(*(array(v) for v in values))


def summable(x: Array) -> Array:
    """x as numpy sums it: booleans count as the default integer (numpy's add on bools)."""
    return astype(x, _dtypes.DEFAULT_INT) if x.dtype == _dtypes.bool else x


def floating(x: Array, dtype=None) -> Array:
    """x as numpy's mean, std and var compute it: in `dtype`, or integers and booleans in
    float64."""
    if dtype is not None:
        if np.dtype(dtype).kind not in "fc":
            raise Fallback(f"dtype={np.dtype(dtype)} for a mean (numpy divides in it)")
        return array(x, np.dtype(dtype))
    if x.dtype == _dtypes.bool or x.dtype in _dtypes.INTEGER:
        return astype(x, _dtypes.DEFAULT_FLOAT)
    return x


def real_only(func: str, x: Array) -> Array:
    """Complex input takes numpy's own path (its ordering and real results differ)."""
    if x.dtype in _dtypes.COMPLEX:
        raise Fallback(f"{func} of complex input")
    return x


def axis_of_0d(twin):
    """`twin` taking axis 0 or -1 of a 0-d array as axis=None, as numpy's function does (the
    axis of its one element: np.sum(np.array(2.5), axis=0) is 2.5, np.cumsum's [2.5]); the
    namespace's raise (the standard's axes are within the dimensions)."""
    signature = inspect.signature(twin)

    @functools.wraps(twin)
    def call(a, *args, **kwargs):
        if getattr(a, "ndim", None) != 0:
            return twin(a, *args, **kwargs)
        bound = signature.bind(a, *args, **kwargs)
        if bound.arguments.get("axis") in _AXES_OF_0D:
            bound.arguments["axis"] = None
        return twin(*bound.args, **bound.kwargs)

    return call


_AXES_OF_0D = (0, -1, (0,), (-1,))


def given(value) -> bool:
    return value is not NOT_GIVEN


def as_tuple(value) -> tuple:
    """An int or a sequence (numpy takes both for shapes, axes and repetitions) as a tuple."""
    if isinstance(value, (tuple, list)):
        return tuple(value)
    if isinstance(value, np.ndarray):
        return tuple(value.tolist())
    return (value,)


def check_order(order, lazy: str = "CA") -> None:
    """Only numpy's row-major order has a lazy form: 'F' and the rest go to numpy."""
    # Note (numpy): 'A' and 'K' read in the memory order numpy's value would have (layout.py)
    if order is not None and not (isinstance(order, str) and len(order) == 1 and order in lazy):
        raise Fallback(f"order={order!r}")
