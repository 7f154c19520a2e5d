"""numpy's names on the namespace (issue 11: numpy scripts run unchanged).

Extensions, not the standard's: numpy's names for a few namespace functions (li.concatenate is
li.concat with numpy's positional axis, li.power is li.pow, ...), each erring under its own name.
Any other numpy name asked of the module raises an AttributeError naming the nearest
lazyinfini way (`lazyinfini.__getattr__` calls `missing_name`).
"""

from __future__ import annotations

import functools

import numpy as np

from ._api import elementwise as _elementwise
from ._api import manipulation as _manipulation
from ._api import statistics as _statistics
from ._api.checks import check_array
from ._methods import named


def _alias(numpy_name: str, function):
    """numpy's name for a namespace function: it calls `function`, and its errors start with
    numpy_name ("arccos: acos: ...")."""
    alias = named(numpy_name)(function)
    alias.__name__ = alias.__qualname__ = numpy_name
    standard = function.__name__
    alias.__doc__ = f"numpy's name for li.{standard} (an extension: {standard} is the standard's)."
    return alias


absolute = _alias("absolute", _elementwise.abs)
power = _alias("power", _elementwise.pow)
arccos = _alias("arccos", _elementwise.acos)
arcsin = _alias("arcsin", _elementwise.asin)
arctan = _alias("arctan", _elementwise.atan)
arctan2 = _alias("arctan2", _elementwise.atan2)
arccosh = _alias("arccosh", _elementwise.acosh)
arcsinh = _alias("arcsinh", _elementwise.asinh)
arctanh = _alias("arctanh", _elementwise.atanh)
invert = _alias("invert", _elementwise.bitwise_invert)
left_shift = _alias("left_shift", _elementwise.bitwise_left_shift)
right_shift = _alias("right_shift", _elementwise.bitwise_right_shift)


@named("concatenate")
def concatenate(arrays, /, axis=0):
    """numpy's name for li.concat, axis positional too (an extension: concat is the standard's)."""
    return _manipulation.concat(arrays, axis=axis)


@named("transpose")
def transpose(x, /, axes=None):
    """numpy's transpose: axes=None reverses x's axes, else li.permute_dims(x, axes) (an
    extension: permute_dims is the standard's)."""
    check_array("transpose", "x", x)
    return _manipulation.permute_dims(x, tuple(reversed(range(x.ndim))) if axes is None else axes)


@named("amax")
def amax(x, /, axis=None, *, keepdims=False):
    """numpy's name for li.max, axis positional too (an extension: max is the standard's)."""
    return _statistics.max(x, axis=axis, keepdims=keepdims)


@named("amin")
def amin(x, /, axis=None, *, keepdims=False):
    """numpy's name for li.min, axis positional too (an extension: min is the standard's)."""
    return _statistics.min(x, axis=axis, keepdims=keepdims)


_STACK_1D = "li.stack(arrays) for 1-d arrays"
_DEGREES = "x * (li.pi / 180)"
_RADIANS = "x * (180 / li.pi)"
# numpy's names outside the standard, with the way to do each in lazyinfini.
NUMPY_HINTS = {
    # joining, splitting, axes
    "hstack": "li.concat(arrays, axis=1) (axis=0 for 1-d arrays)",
    "vstack": f"li.concat(arrays, axis=0) ({_STACK_1D})",
    "row_stack": f"li.concat(arrays, axis=0) ({_STACK_1D})",
    "dstack": "li.concat(arrays, axis=2)",
    "column_stack": "li.stack(arrays, axis=1)",
    "split": "li.unstack(x, axis=...) or slices of x",
    "array_split": "li.unstack(x, axis=...) or slices of x",
    "swapaxes": "li.moveaxis(x, source, destination) or li.permute_dims(x, axes)",
    "rollaxis": "li.moveaxis(x, source, destination)",
    "atleast_1d": "li.reshape(x, (-1,)) or li.expand_dims(x, axis=0)",
    "atleast_2d": "li.expand_dims(x, axis=0)",
    "ravel": "li.reshape(x, (-1,)) or x.ravel()",
    # creation
    "array": "li.asarray(obj)",
    "asanyarray": "li.asarray(obj)",
    "ascontiguousarray": "li.asarray(obj)",
    "copy": "li.asarray(x, copy=True) or x.copy()",
    "identity": "li.eye(n)",
    "ndarray": "li.Array",
    # element-wise
    "true_divide": "li.divide(x1, x2)",
    "mod": "li.remainder(x1, x2)",
    "fmod": "li.remainder(x1, x2) (its sign follows x2, fmod's x1)",
    "fabs": "li.abs(x)",
    "rint": "li.round(x)",
    "around": "li.round(x) or x.round(decimals)",
    "fix": "li.trunc(x)",
    "exp2": "li.pow(2.0, x)",
    "cbrt": "li.sign(x) * li.abs(x) ** (1 / 3)",
    "deg2rad": _DEGREES,
    "radians": _DEGREES,
    "rad2deg": _RADIANS,
    "degrees": _RADIANS,
    "fmax": "li.maximum(x1, x2) (NaN propagates, fmax skips it)",
    "fmin": "li.minimum(x1, x2) (NaN propagates, fmin skips it)",
    "conjugate": "li.conj(x)",
    "angle": "li.atan2(li.imag(z), li.real(z))",
    "float_power": "li.pow(li.astype(x1, li.float64), x2)",
    # reductions and searching
    "cumsum": "li.cumulative_sum(x, axis=...) or x.cumsum()",
    "cumprod": "li.cumulative_prod(x, axis=...) or x.cumprod()",
    "ptp": "li.max(x, axis=...) - li.min(x, axis=...)",
    "average": "li.mean(x, axis=...) (with weights: li.sum(x * w) / li.sum(w))",
    "nansum": "li.sum(li.where(li.isnan(x), 0.0, x))",
    "median": "li.sort(x, axis=...) and its middle element",
    "argwhere": "li.stack(li.nonzero(x), axis=1)",
    "flatnonzero": "li.nonzero(li.reshape(x, (-1,)))[0]",
    "unique": "li.unique_values(x) (or unique_counts, unique_inverse, unique_all)",
    "allclose": "li.all(li.abs(a - b) <= atol + rtol * li.abs(b))",
    "isclose": "li.abs(a - b) <= atol + rtol * li.abs(b)",
    "array_equal": "li.all(li.equal(a, b)) (shapes first)",
    # linear algebra
    "dot": "li.matmul(a, b) (li.tensordot for N-d) or a.dot(b)",
    "inner": "li.vecdot(a, b) (it conjugates a)",
    "outer": "li.linalg.outer(a, b)",
    "cross": "li.linalg.cross(a, b)",
    "trace": "li.linalg.trace(x)",
    "diagonal": "li.linalg.diagonal(x)",
    "diag": "li.linalg.diagonal(x)",
    # dtypes and attributes
    "int_": "li.int64 (the default integer)",
    "intp": "li.int64",
    "double": "li.float64",
    "single": "li.float32",
    "half": "li.float16",
    "bool_": "li.bool",
    "cdouble": "li.complex128",
    "csingle": "li.complex64",
    "issubdtype": "li.isdtype(dtype, kind)",
    "promote_types": "li.result_type(dtype1, dtype2)",
    "shape": "x.shape",
    "ndim": "x.ndim",
}


@functools.cache
def _numpy_names() -> frozenset[str]:
    # NOTE: dir(numpy), not hasattr: numpy imports some submodules on first access.
    return frozenset(dir(np))


def missing_name(name: str) -> AttributeError:
    """The error for a name the namespace lacks, with numpy's way to it when there is one."""
    hint = NUMPY_HINTS.get(name)
    numpy_only = f"lazyinfini has no {name!r} (numpy's {name} is not in the Array API standard)"
    if hint is not None:
        return AttributeError(f"{numpy_only}; use {hint}", name=name)
    if not name.startswith("_") and name in _numpy_names():
        how = "compute it with numpy on np.asarray(x), then li.asarray the result"
        return AttributeError(f"{numpy_only}; {how}", name=name)
    return AttributeError(f"module 'lazyinfini' has no attribute {name!r}", name=name)
