"""numpy's functions that numpy writes in Python from its other functions (fliplr, rot90, cov,
sinc, kron, ...), recorded as numpy composes them: the same calls, on Arrays, so each step is a
twin's (or a ufunc's) and the whole gives numpy's dtypes and numbers.

What numpy decides from values (digitize's monotonic bins, cov's fact) is decided here where
those values are known when the call is recorded (bins a list or an ndarray), else numpy runs
the call (Fallback).
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .. import _dtypes
from .._api.checks import normalize_axis
from .._api.creation import copy_node, full
from .._api.placement import device_arg
from .._api.utility import along
from .._array import Array
from .._graph import caller_source
from . import arguments
from .arguments import NOT_GIVEN, Fallback, array, as_tuple, given
from .layout import layout_of

NAMES = ("fliplr", "flipud", "rot90", "rollaxis", "hsplit", "vsplit", "dsplit", "resize", "fix")
NAMES += ("sinc", "angle", "kron", "ediff1d", "trapezoid", "average", "cov")
NAMES += ("corrcoef", "digitize", "pad", "gradient", "lexsort", "unwrap")


# -- views ------------------------------------------------------------------------------------
def fliplr(m):
    x = array(m)
    if x.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return x[:, ::-1]


def flipud(m):
    x = array(m)
    if x.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return x[::-1, ...]


def rot90(m, k=1, axes=(0, 1)):
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    x = array(m)
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == x.ndim:
        raise ValueError("Axes must be different.")
    if not all(-x.ndim <= a < x.ndim for a in axes):
        raise ValueError(f"Axes={axes} out of range for array of ndim={x.ndim}.")
    k = operator.index(k) % 4
    if k == 0:
        return x[...]
    if k == 2:
        return np.flip(np.flip(x, axes[0]), axes[1])
    order = list(range(x.ndim))
    order[axes[0]], order[axes[1]] = order[axes[1]], order[axes[0]]
    if k == 1:
        return np.transpose(np.flip(x, axes[1]), order)
    return np.flip(np.transpose(x, order), axes[1])


def rollaxis(a, axis, start=0):
    x = array(a)
    n = x.ndim
    axis = normalize_axis("rollaxis", axis, n)
    start = start + n if start < 0 else start
    if not 0 <= start < n + 1:
        raise np.exceptions.AxisError(
            f"'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in"
        )
    if axis < start:
        start -= 1
    if axis == start:
        return x[...]
    order = [i for i in range(n) if i != axis]
    order.insert(start, axis)
    return np.transpose(x, order)


def hsplit(ary, indices_or_sections):
    x = array(ary)
    if x.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return np.split(x, indices_or_sections, 1 if x.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    x = array(ary)
    if x.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return np.split(x, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    x = array(ary)
    if x.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return np.split(x, indices_or_sections, 2)


def resize(a, new_shape):
    shape = (new_shape,) if isinstance(new_shape, (int, np.integer)) else tuple(new_shape)
    if any(n < 0 for n in shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    x = np.ravel(array(a))
    size = math.prod(shape)
    if x.size == 0 or size == 0:
        return np.zeros_like(x, shape=shape)
    repeats = -(-size // x.size)
    return np.reshape(np.concatenate((x,) * repeats)[:size], shape)


# -- elementwise ------------------------------------------------------------------------------
def fix(x):
    return np.trunc(array(x))


def sinc(x):
    y = np.pi * array(x)
    eps = np.finfo(y.dtype).eps if y.dtype.kind == "f" else 1e-20
    y = np.where(y, y, eps)
    return np.sin(y) / y


def angle(z, deg=False):
    z = array(z)
    if z.dtype in _dtypes.COMPLEX:
        zimag, zreal = z.imag, z.real
    else:
        zimag, zreal = 0, z
    a = np.arctan2(zimag, zreal)
    return a * (180 / np.pi) if deg else a  # NOTE: numpy's a *= ...: the same product


def kron(a, b):
    y = array(b)
    x = array(a)
    if x.ndim < y.ndim:
        x = np.reshape(x, (1,) * (y.ndim - x.ndim) + x.shape)  # NOTE: numpy's ndmin
    if x.ndim == 0 or y.ndim == 0:
        return np.multiply(x, y)
    nd = max(x.ndim, y.ndim)
    shape_a = (1,) * max(0, y.ndim - x.ndim) + x.shape
    shape_b = (1,) * max(0, x.ndim - y.ndim) + y.shape
    x = np.expand_dims(np.reshape(x, shape_a), tuple(range(1, nd * 2, 2)))
    y = np.expand_dims(np.reshape(y, shape_b), tuple(range(0, nd * 2, 2)))
    return np.reshape(np.multiply(x, y), tuple(p * q for p, q in zip(shape_a, shape_b)))


# -- differences and sums ---------------------------------------------------------------------
def ediff1d(ary, to_end=None, to_begin=None):
    x = np.ravel(array(ary))
    differences = x[1:] - x[:-1]
    if to_begin is None and to_end is None:
        return differences
    parts = [_edge("to_begin", to_begin, x.dtype), differences, _edge("to_end", to_end, x.dtype)]
    return np.concatenate([p for p in parts if p is not None])


def _edge(name: str, value, dtype):
    """ediff1d's to_begin/to_end raveled in the array's dtype (numpy's same_kind cast)."""
    if value is None:
        return None
    edge = array(value)
    if not np.can_cast(edge.dtype, dtype, casting="same_kind"):
        raise TypeError(
            f"dtype of `{name}` must be compatible with input `ary` under the `same_kind` rule."
        )
    return np.ravel(edge).astype(dtype)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    y = array(y)
    if x is None:
        d = dx
    else:
        x = array(x)
        if x.ndim == 1:
            d = np.diff(x)
            shape = [1] * y.ndim
            shape[axis] = d.shape[0]
            d = np.reshape(d, shape)
        else:
            d = np.diff(x, axis=axis)
    first, last = [slice(None)] * y.ndim, [slice(None)] * y.ndim
    first[axis], last[axis] = slice(1, None), slice(None, -1)
    return (d * (y[tuple(first)] + y[tuple(last)]) / 2.0).sum(axis)


def average(a, axis=None, weights=None, returned=False, *, keepdims=NOT_GIVEN):
    if weights is not None or returned:
        raise Fallback("average with weights or returned=True (numpy checks their sum)")
    kept = {"keepdims": keepdims} if given(keepdims) else {}
    mean = np.mean(array(a), axis=axis, **kept)
    if mean.size == 0:  # NOTE: numpy divides a.size by the result's (its `scl`) even here
        raise ZeroDivisionError("division by zero")
    return mean


# -- covariances ------------------------------------------------------------------------------
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):  # fmt: skip
    if fweights is not None or aweights is not None:
        raise Fallback("cov with weights (numpy checks their values)")
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    x = array(m)
    other = None if y is None else array(y)
    if x.ndim > 2 or (other is not None and other.ndim > 2):
        raise ValueError("m and y must have at most 2 dimensions")
    given_ = (x,) if other is None else (x, other)
    dtype = np.result_type(*(v.dtype for v in given_), np.float64) if dtype is None else dtype
    data = _at_least_2d(x, dtype)
    if not rowvar and x.ndim != 1:
        data = data.T
    if data.shape[0] == 0:
        return array(np.empty((0, 0)))
    if other is not None:
        more = _at_least_2d(other, dtype)
        data = np.concatenate((data, more.T if not rowvar and more.shape[0] != 1 else more), 0)
    ddof = (1 if bias == 0 else 0) if ddof is None else ddof
    fact = data.shape[1] - ddof
    fact = fact if fact > 0 else 0.0  # NOTE: numpy warns here (values it would warn of: inf)
    centred = data - np.mean(data, axis=1)[:, None]
    c = np.dot(centred, np.conj(centred.T))
    return np.squeeze(_scaled(c, np.true_divide(1, fact)))


def _at_least_2d(v: Array, dtype) -> Array:
    """numpy's array(v, ndmin=2, dtype=dtype)."""
    v = v.astype(dtype)
    return np.reshape(v, (1,) * (2 - v.ndim) + v.shape) if v.ndim < 2 else v


def _scaled(c: Array, factor):
    """numpy's c *= factor (a float64 scalar): the product in the common dtype, cast back."""
    return np.multiply(c, factor).astype(c.dtype)


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    if c.dtype in _dtypes.COMPLEX:
        raise Fallback("corrcoef of complex values (numpy clips both parts in place)")
    d = np.diag(c)
    stddev = np.sqrt(d)
    c = c / stddev[:, None]
    c = c / stddev[None, :]
    return np.clip(c, -1, 1)


# -- bins -------------------------------------------------------------------------------------
def digitize(x, bins, right=False):
    if isinstance(bins, Array):
        raise Fallback("digitize with lazy bins (numpy checks they are monotonic)")
    edges = np.asarray(bins)
    values = array(x)
    if values.dtype in _dtypes.COMPLEX:
        raise TypeError("x may not be complex")
    steps = np.diff(edges.ravel()) if edges.ndim == 1 else None
    if steps is None or np.isnan(edges).any():
        raise Fallback("digitize with bins that are not one plain axis of numbers")
    side = "left" if right else "right"
    if np.all(steps >= 0):
        return np.searchsorted(edges, values, side=side)
    if np.all(steps <= 0):
        return len(edges) - np.searchsorted(edges[::-1], values, side=side)
    raise ValueError("bins must be monotonically increasing or decreasing")


# -- padding ----------------------------------------------------------------------------------
def pad(array, pad_width, mode="constant", **kwargs):
    x = arguments.array(array)  # NOTE: numpy's parameter name shadows the converter
    if isinstance(pad_width, dict) or callable(mode) or mode not in _PADS:
        raise Fallback(f"pad with mode {mode!r} or widths by axis name")
    unsupported = set(kwargs) - {_PADS[mode]}
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    if kwargs.get("reflect_type", "even") != "even":
        raise Fallback("pad's odd reflections (numpy computes them)")
    widths = np.asarray(pad_width)
    if widths.dtype.kind != "i":
        raise TypeError("`pad_width` must be of integral type.")
    widths = _pairs(widths, x.ndim, index=True)
    values = _pairs(np.asarray(kwargs.get("constant_values", 0)), x.ndim)
    # Note (numpy): its padded array is new memory, F-ordered where x is F-contiguous only
    order = "F" if layout_of(x).fortran else "C"
    if mode == "constant" and len({np.array(v, x.dtype).tobytes() for p in values for v in p}) == 1:
        padded = _filled_around(x, widths, values[0][0])
        return copy_node(padded, order, caller_source()) if order == "F" else padded
    padded = x
    for axis, ((before, after), value) in enumerate(zip(widths, values, strict=True)):
        if before or after:
            padded = _padded(padded, axis, int(before), int(after), mode, value)
    return copy_node(padded, order, caller_source()) if order == "F" or padded is x else padded


_PADS = {"constant": "constant_values", "edge": "", "wrap": "", "reflect": "reflect_type"}
_PADS["symmetric"] = "reflect_type"


def _pairs(x: np.ndarray, ndim: int, index: bool = False) -> list:
    """numpy's _as_pairs: a (before, after) pair per axis from a number, a pair or pairs."""
    if index:
        x = np.round(x).astype(np.intp)
        if x.size and x.min() < 0:
            raise ValueError("index can't contain negative values")
    if x.ndim < 3 and x.size == 1:
        return [(x.ravel()[0], x.ravel()[0])] * ndim
    if x.ndim < 3 and x.size == 2 and x.shape != (2, 1):
        return [tuple(x.ravel())] * ndim
    return np.broadcast_to(x, (ndim, 2)).tolist()


def _filled_around(x: Array, widths: list, value) -> Array:
    """x inside a fill of one constant (every pad's): the fill, then x written into its
    middle (one pass over x, where joins along each axis copy it once per axis)."""
    shape = tuple(int(n + b + a) for n, (b, a) in zip(x.shape, widths, strict=True))
    out = full(shape, np.array(value, dtype=x.dtype).item(), dtype=x.dtype, device=device_arg(x))
    out[tuple(slice(int(b), int(b) + n) for n, (b, _) in zip(x.shape, widths, strict=True))] = x
    return out


def _padded(x: Array, axis: int, before: int, after: int, mode: str, value) -> Array:
    """x padded along `axis` (numpy pads the axes in order, each over the ones before it)."""
    n = x.shape[axis]
    if mode != "constant" and (n == 0 or n - (mode == "reflect") < max(before, after)):
        raise Fallback(f"pad {mode} wider than the axis (numpy repeats it)")
    if mode == "reflect" and n == 1:
        raise Fallback("pad reflect of one element (numpy's legacy edge)")
    parts = [_side(x, axis, before, mode, value, True), x]
    parts.append(_side(x, axis, after, mode, value, False))
    return np.concatenate([p for p in parts if p is not None], axis=axis)


def _side(x: Array, axis: int, width: int, mode: str, value, first: bool):
    if not width:
        return None
    n = x.shape[axis]
    shape = x.shape[:axis] + (width,) + x.shape[axis + 1 :]
    if mode == "constant":
        fill = np.array(value[0] if first else value[1], dtype=x.dtype)  # NOTE: numpy's cast
        return np.full(shape, fill, dtype=x.dtype)
    if mode == "edge":
        return np.broadcast_to(x[along(axis, slice(0, 1) if first else slice(n - 1, n))], shape)
    if mode == "wrap":
        return x[along(axis, slice(n - width, n) if first else slice(0, width))]
    skip = int(mode == "reflect")  # NOTE: reflect leaves the edge out, symmetric repeats it
    if first:
        return np.flip(x[along(axis, slice(skip, skip + width))], axis)
    return np.flip(x[along(axis, slice(n - width - skip, n - skip))], axis)


# -- gradients --------------------------------------------------------------------------------
def gradient(f, *varargs, axis=None, edge_order=1):
    x = array(f)
    axes = tuple(range(x.ndim)) if axis is None else _axes_of(axis, x.ndim)
    spacings = _spacings(varargs, axes, x.shape)
    if edge_order not in (1, 2):
        raise ValueError("'edge_order' greater than 2 not supported")
    kind = x.dtype.kind
    otype = x.dtype if kind in "fc" else np.dtype(np.float64)
    if kind in "iu":
        x = x.astype(np.float64)
    elif kind not in "fc":
        raise Fallback(f"gradient of {x.dtype}")
    # Note (numpy): its result is empty_like(f), laid out as f, filled piece by piece
    order = layout_of(x).axes
    found = []
    for ax, spacing in zip(axes, spacings, strict=True):
        if x.shape[ax] < edge_order + 1:
            raise ValueError(
                "Shape of array too small to calculate a numerical gradient, at least "
                "(edge_order + 1) elements are required."
            )
        pieces = [_edge_first(x, ax, spacing, edge_order), _interior(x, ax, spacing)]
        pieces.append(_edge_last(x, ax, spacing, edge_order))
        out = np.concatenate([p.astype(otype) for p in pieces], axis=ax)
        found.append(out if order == tuple(range(x.ndim)) else copy_node(out, order, ""))
    return found[0] if len(axes) == 1 else tuple(found)


def _axes_of(axis, ndim: int) -> tuple[int, ...]:
    """numpy's axes of a gradient, in the order given (each its own result)."""
    axes = tuple(normalize_axis("gradient", a, ndim) for a in as_tuple(axis))
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis")
    return axes


def _spacings(varargs, axes, shape) -> list:
    """numpy's dx per axis: a number (uniform) or the differences of given coordinates."""
    if any(isinstance(v, Array) for v in varargs):
        raise Fallback("gradient with lazy spacings (numpy tests them for uniformity)")
    if not varargs:
        return [1.0] * len(axes)
    if len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        return list(varargs) * len(axes)
    if len(varargs) != len(axes):
        raise TypeError("invalid number of arguments")
    spacings = []
    for ax, given_ in zip(axes, varargs, strict=True):
        distances = np.asanyarray(given_)
        if distances.ndim == 0:
            spacings.append(given_)
            continue
        if distances.ndim != 1:
            raise ValueError("distances must be either scalars or 1d")
        if len(distances) != shape[ax]:
            raise ValueError(
                "when 1d, distances must match the length of the corresponding dimension"
            )
        if np.issubdtype(distances.dtype, np.integer):
            distances = distances.astype(np.float64)
        steps = np.diff(distances)
        spacings.append(steps[0] if (steps == steps[0]).all() else steps)
    return spacings


def _weights_along(values: np.ndarray, axis: int, ndim: int) -> np.ndarray:
    shape = [1] * ndim
    shape[axis] = -1
    return values.reshape(shape)


def _interior(x: Array, axis: int, dx) -> Array:
    before, middle, after = (
        x[along(axis, slice(a, b))] for a, b in ((None, -2), (1, -1), (2, None))
    )
    if np.ndim(dx) == 0:
        return (after - before) / (2.0 * dx)
    dx1, dx2 = dx[0:-1], dx[1:]
    a = _weights_along(-dx2 / (dx1 * (dx1 + dx2)), axis, x.ndim)
    b = _weights_along((dx2 - dx1) / (dx1 * dx2), axis, x.ndim)
    c = _weights_along(dx1 / (dx2 * (dx1 + dx2)), axis, x.ndim)
    return a * before + b * middle + c * after


def _edge_first(x: Array, axis: int, dx, edge_order: int) -> Array:
    uniform = np.ndim(dx) == 0
    if edge_order == 1:
        return (x[along(axis, slice(1, 2))] - x[along(axis, slice(0, 1))]) / (
            dx if uniform else dx[0]
        )
    if uniform:
        a, b, c = -1.5 / dx, 2.0 / dx, -0.5 / dx
    else:
        dx1, dx2 = dx[0], dx[1]
        a = -(2.0 * dx1 + dx2) / (dx1 * (dx1 + dx2))
        b = (dx1 + dx2) / (dx1 * dx2)
        c = -dx1 / (dx2 * (dx1 + dx2))
    first, second, third = (x[along(axis, slice(i, i + 1))] for i in range(3))
    return a * first + b * second + c * third


def _edge_last(x: Array, axis: int, dx, edge_order: int) -> Array:
    n = x.shape[axis]
    uniform = np.ndim(dx) == 0
    if edge_order == 1:
        last, before = x[along(axis, slice(n - 1, n))], x[along(axis, slice(n - 2, n - 1))]
        return (last - before) / (dx if uniform else dx[-1])
    if uniform:
        a, b, c = 0.5 / dx, -2.0 / dx, 1.5 / dx
    else:
        dx1, dx2 = dx[-2], dx[-1]
        a = dx2 / (dx1 * (dx1 + dx2))
        b = -(dx2 + dx1) / (dx1 * dx2)
        c = (2.0 * dx2 + dx1) / (dx2 * (dx1 + dx2))
    third, second, first = (x[along(axis, slice(n - i, n - i + 1))] for i in (3, 2, 1))
    return a * third + b * second + c * first


# -- sorting by keys --------------------------------------------------------------------------
def lexsort(keys, axis=-1):
    """numpy's lexsort: the stable order by the last key, ties by the one before, ...: one
    stable argsort per key, from the first (the order a stable sort leaves is unique)."""
    if isinstance(keys, Array):
        items = [keys[i] for i in range(keys.shape[0])] if keys.ndim > 1 else [keys]
    else:
        items = [array(k) for k in keys]
    if not items:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if any(k.shape != items[0].shape for k in items) or not items[0].ndim:
        raise ValueError("all keys need to be the same shape")
    if any(k.dtype in _dtypes.COMPLEX for k in items):
        raise Fallback("lexsort of complex keys")
    order = np.argsort(items[0], axis=axis, kind="stable")
    for key in items[1:]:
        order = np.take_along_axis(
            order, np.argsort(np.take_along_axis(key, order, axis), axis, kind="stable"), axis
        )
    return order


def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    if isinstance(period, Array) or isinstance(discont, Array):
        raise Fallback("unwrap with a lazy period or discont")
    x = array(p)
    dd = np.diff(x, axis=axis)
    axis %= x.ndim
    discont = period / 2 if discont is None else discont
    dtype = np.result_type(dd.dtype, period)
    if np.issubdtype(dtype, np.integer):
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    ddmod = np.mod(dd - low, period) + low
    if ambiguous:
        ddmod = np.where((ddmod == low) & (dd > 0), high, ddmod)
    correction = np.where(abs(dd) < discont, 0, ddmod - dd)
    rest = x[along(axis, slice(1, None))] + np.cumsum(correction, axis)
    up = np.concatenate([x[along(axis, slice(0, 1))].astype(dtype), rest.astype(dtype)], axis)
    # Note (numpy): its result is a copy of p (in p's layout) with the rest written into it
    order = layout_of(x).axes
    return up if order == tuple(range(x.ndim)) else copy_node(up, order, caller_source())
