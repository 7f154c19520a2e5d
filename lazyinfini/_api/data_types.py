"""Data type functions: astype, can_cast, finfo, iinfo, isdtype, result_type.

Spec: https://data-apis.org/array-api/latest/API_specification/data_type_functions.html
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from .. import _dtypes
from .._array import Array, record
from .._device import check_device_arg
from .._graph import Op
from .checks import check_array, check_dtype_arg, check_scalar, error
from .creation import copied
from .placement import placed


def astype(x, dtype, /, *, copy=True, device=None) -> Array:
    """x cast to dtype; copy=False returns x itself when it has that dtype already (see
    asarray for what copy=True promises).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.astype.html"""
    check_array("astype", "x", x)
    dtype = check_dtype_arg("astype", dtype)
    check_device_arg("astype", device)
    if not isinstance(copy, builtins.bool):
        raise error(TypeError, "astype", f"copy must be True or False, got {copy!r}")
    if x.dtype in _dtypes.COMPLEX and dtype not in _dtypes.COMPLEX and dtype != _dtypes.bool:
        # Note (spec): complex -> real would drop the imaginary part silently; use real()/abs().
        raise error(TypeError, "astype", f"cannot cast {x.dtype.name} to {dtype.name}")
    if dtype == x.dtype:
        cast = copied(x) if copy else x
    else:
        cast = record(Op.ASTYPE, (x._node,), x.shape, dtype)
    # Note (spec): device= places the result there (x's device without it)
    return cast if device is None else placed("astype", cast, device)


def _dtype_of(func: str, value) -> np.dtype:
    if isinstance(value, Array):
        return value.dtype
    if isinstance(value, np.generic) and _dtypes.is_supported(value.dtype):
        return value.dtype
    return check_dtype_arg(func, value)


def result_type(*arrays_and_dtypes) -> np.dtype:
    """The promoted dtype. https://data-apis.org/array-api/latest/API_specification/generated/array_api.result_type.html"""
    # NOTE: split by type, never with `in`: `array in list` compares elementwise. A numpy
    # scalar is strong (NEP 50), as next to an operator's arrays: np.float64(2) is a float64.
    is_scalar = [
        isinstance(v, (builtins.bool, int, float, complex)) and not isinstance(v, np.generic)
        for v in arrays_and_dtypes
    ]
    scalars = [v for v, s in zip(arrays_and_dtypes, is_scalar) if s]
    typed = [_dtype_of("result_type", v) for v, s in zip(arrays_and_dtypes, is_scalar) if not s]
    if not typed:
        raise error(ValueError, "result_type", "at least one array or dtype is required")
    result = _dtypes.promote(*typed)
    if result is None:
        shown = ", ".join(d.name for d in typed)
        raise error(TypeError, "result_type", f"dtypes {shown} have no common type")
    # Scalars are weak, exactly as next to an operator's arrays (and with the same errors).
    for s in scalars:
        result = _dtypes.promote(result, _dtypes.scalar_dtype(s, result))
        check_scalar("result_type", s, result)
    return result


def can_cast(from_, to, /) -> builtins.bool:
    """Whether promotion can turn from_ into to. https://data-apis.org/array-api/latest/API_specification/generated/array_api.can_cast.html"""
    source, target = _dtype_of("can_cast", from_), check_dtype_arg("can_cast", to)
    # Note (spec): casting follows promotion; ours extends the spec's lattice as JAX does (bool
    # and integers promote to floats), so can_cast(int8, float64) is True, as in numpy.
    return _dtypes.promote(source, target) == target


@dataclass(frozen=True)
class finfo_object:
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: np.dtype


@dataclass(frozen=True)
class iinfo_object:
    bits: int
    max: int
    min: int
    dtype: np.dtype


def finfo(type, /) -> finfo_object:
    """Machine limits of a floating dtype. https://data-apis.org/array-api/latest/API_specification/generated/array_api.finfo.html"""
    dtype = _dtype_of("finfo", type)
    if dtype not in _dtypes.CATEGORIES["floating"]:
        raise error(TypeError, "finfo", f"{dtype.name} is not a floating dtype")
    info = ml_dtypes.finfo(dtype) if dtype == _dtypes.bfloat16 else np.finfo(dtype)
    real = info.dtype
    return finfo_object(
        int(info.bits),
        float(info.eps),
        float(info.max),
        float(info.min),
        float(info.smallest_normal),
        real,
    )


def iinfo(type, /) -> iinfo_object:
    """Machine limits of an integer dtype. https://data-apis.org/array-api/latest/API_specification/generated/array_api.iinfo.html"""
    dtype = _dtype_of("iinfo", type)
    if dtype not in _dtypes.INTEGER:
        raise error(TypeError, "iinfo", f"{dtype.name} is not an integer dtype")
    info = np.iinfo(dtype)
    return iinfo_object(int(info.bits), int(info.max), int(info.min), dtype)


_KINDS = {
    "bool": "bool",
    "signed integer": "signed integer",
    "unsigned integer": "unsigned integer",
    "integral": "integral",
    "real floating": "real floating",
    "complex floating": "complex floating",
    "numeric": "numeric",
}


def isdtype(dtype, kind) -> builtins.bool:
    """Whether dtype is of kind (a dtype, a kind name, or a tuple of those).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.isdtype.html"""
    dtype = check_dtype_arg("isdtype", dtype)
    if isinstance(kind, tuple):
        return builtins.any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise error(ValueError, "isdtype", f"unknown kind {kind!r}; one of {sorted(_KINDS)}")
        return dtype in _dtypes.CATEGORIES[_KINDS[kind]]
    return dtype == check_dtype_arg("isdtype", kind)
