"""numpy's products (dot, vdot, inner, outer, tensordot, einsum, cross), trace and diagonal,
and np.linalg's functions, recorded with matmul, tensordot and li.linalg.

(np.matmul and np.vecdot are ufuncs: they reach Array.__array_ufunc__.)
"""

from __future__ import annotations

import operator

import numpy as np

from .. import _dtypes
from .. import linalg as _linalg
from .._api.creation import copied, eye
from .._api.elementwise import add, multiply
from .._api.linear_algebra import matmul, vecdot
from .._api.linear_algebra import tensordot as _tensordot
from .._api.manipulation import flip, moveaxis, reshape
from .._api.placement import device_arg
from .._array import Array
from .._graph.views import diagonal_length
from .arguments import Fallback, array, as_tuple, converted, promoted, summable
from .layout import strides_of
from .manipulation import ravel


def _products(func: str, a, b):
    """a and b promoted by numpy's rules (Python scalars are arrays here, not weak: numpy's
    products convert them first). Booleans record too: a product of bools is an or of ands, as
    numpy's (li.matmul's extension). A string is numpy's TypeError (no loop multiplies it)."""
    for name, value in (("a", a), ("b", b)):
        if isinstance(value, (str, bytes)):
            raise TypeError(f"{func}: {name} must be an array or a number, got {value!r}")
    return converted(a, b)


def dot(a, b):
    x, y = _products("dot", a, b)
    if x.ndim == 0 or y.ndim == 0:
        return _scaled(x, y)
    if y.ndim <= 2 or x.ndim == 1:
        return matmul(x, y)  # NOTE: here numpy's dot and matmul agree (matmul broadcasts x)
    return _tensordot(x, y, axes=((x.ndim - 1,), (y.ndim - 2,)))


def _scaled(x: Array, y: Array) -> Array:
    """numpy's dot of a scalar: a product, written C-ordered where it is BLAS's (a matrix of
    BLAS's dtypes: numpy's cblas_matrixproduct), in its operand's order otherwise."""
    product = multiply(x, y)
    if product.ndim == 2 and product.dtype in _BLAS:
        return copied(product, "C")
    return product


_BLAS = (_dtypes.float32, _dtypes.float64, _dtypes.complex64, _dtypes.complex128)


def vdot(a, b):
    x, y = _products("vdot", a, b)
    return vecdot(reshape(x, (-1,)), reshape(y, (-1,)))  # NOTE: vecdot conjugates x, as vdot


def inner(a, b):
    x, y = _products("inner", a, b)
    if x.ndim == 0 or y.ndim == 0:
        return _scaled(x, y)
    return _tensordot(x, y, axes=((x.ndim - 1,), (y.ndim - 1,)))


def outer(a, b):
    x, y = _products("outer", a, b)
    # Note (numpy): its operands raveled (a copy where memory runs backwards: ravel's note)
    return multiply(reshape(ravel(x), (-1, 1)), reshape(ravel(y), (1, -1)))


def tensordot(a, b, axes=2):
    x, y = _products("tensordot", a, b)
    if not isinstance(axes, (int, np.integer)):
        first, second = axes
        axes = (as_tuple(first), as_tuple(second))
    return _tensordot(x, y, axes=axes)


def einsum(*operands, optimize=False):
    from .._api.einsum import einsum as lazy  # NOTE: at first use, as li.einsum loads

    if not operands or not isinstance(operands[0], str):
        raise Fallback("this form of einsum")
    return lazy(operands[0], *converted(*operands[1:]))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None or (axisa, axisb, axisc) != (-1, -1, -1):
        raise Fallback("cross along other axes")
    x, y = _products("cross", a, b)
    if x.dtype == _dtypes.bool:
        raise Fallback("cross of booleans (numpy's bool subtract raises)")
    if x.ndim == 0 or y.ndim == 0 or x.shape[-1] != 3 or y.shape[-1] != 3:
        raise Fallback("cross of vectors of 2 elements")
    return _linalg.cross(x, y, axis=-1)


# -- diagonals --------------------------------------------------------------------------------
def _last_two(x, axis1, axis2):
    if x.ndim == 2 and (axis1, axis2) in _IN_PLACE:
        return x  # NOTE: a matrix's own axes, in order: no view to record (~5 us)
    return moveaxis(x, (axis1, axis2), (-2, -1))


_IN_PLACE = frozenset((a, b) for a in (0, -2) for b in (1, -1))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    x = _last_two(summable(array(a)), axis1, axis2)
    return _linalg.trace(x, offset=offset, dtype=None if dtype is None else np.dtype(dtype))


def diagonal(a, offset=0, axis1=0, axis2=1):
    x = _last_two(array(a), axis1, axis2)
    back = _axes_back(x, offset)
    if not back:
        return _linalg.diagonal(x, offset=offset)
    # Note (numpy): its diagonal is a view, stepping s0 + s1 bytes along the diagonal and as x
    # along the leading axes: backwards where those are negative (x[::-1]), and its loops read
    # such memory with other bits (np.tan of it runs the scalar loop). So: the diagonal of x
    # reversed along those axes (both last ones for the diagonal's), read backwards
    turned = back
    if back[-1] == x.ndim - 2:
        turned, offset = (*back, x.ndim - 1), x.shape[-1] - x.shape[-2] - offset
    return flip(_linalg.diagonal(flip(x, axis=turned), offset=offset), axis=back)


def _axes_back(x: Array, offset) -> tuple[int, ...]:
    """The axes along which numpy's `offset` diagonals of x step backwards in memory, where
    its loops see that: a length-1 axis counts (its loops tell the stride's sign apart), but a
    diagonal of two axes longer than 1 has none (numpy's iterator runs its axes forwards; a
    view of it that runs along one of them still steps back in numpy's, not here)."""
    if x.ndim < 2 or not isinstance(offset, (int, np.integer)):
        return ()  # NOTE: the namespace's diagonal raises its error
    length = diagonal_length(*x.shape[-2:], int(offset))
    if sum(n > 1 for n in (*x.shape[:-2], length)) > 1:
        return ()
    strides = strides_of(x)
    steps = (*strides[:-2], strides[-2] + strides[-1])
    return tuple(axis for axis, step in enumerate(steps) if step < 0)


# -- np.linalg --------------------------------------------------------------------------------
def _inexact(a):
    """a as numpy's linalg computes it: integers and booleans in float64; half floats are
    refused by numpy itself."""
    x = array(a)
    if x.dtype in _dtypes.HALF:
        raise Fallback(f"linalg of {x.dtype.name}")
    if x.dtype == _dtypes.bool or x.dtype in _dtypes.INTEGER:
        return array(x, _dtypes.float64)
    return x


def inv(a):
    return _linalg.inv(_inexact(a))


def det(a):
    return _linalg.det(_inexact(a))


def slogdet(a):
    return _linalg.slogdet(_inexact(a))


def solve(a, b):
    x, y = promoted(_inexact(a), _inexact(b))
    return _linalg.solve(x, y)


def cholesky(a, *, upper=False):
    return _linalg.cholesky(_inexact(a), upper=upper)


def eigh(a, UPLO="L"):
    if UPLO not in ("L", "l"):
        raise Fallback("eigh of the upper triangle")
    return _linalg.eigh(_inexact(a))


def eigvalsh(a, UPLO="L"):
    if UPLO not in ("L", "l"):
        raise Fallback("eigvalsh of the upper triangle")
    return _linalg.eigvalsh(_inexact(a))


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    if hermitian:
        raise Fallback("svd with hermitian=True")
    if not compute_uv:
        return _linalg.svdvals(_inexact(a))
    return _linalg.svd(_inexact(a), full_matrices=full_matrices)


def qr(a, mode="reduced"):
    if mode not in ("reduced", "complete"):
        raise Fallback(f"qr with mode={mode!r}")
    return _linalg.qr(_inexact(a), mode=mode)


def matrix_power(a, n):
    x = array(a)
    if x.dtype in _dtypes.REAL_FLOATING + _dtypes.COMPLEX:  # NOTE: the standard's: floats only
        return _linalg.matrix_power(x, n)
    n = operator.index(n)
    if x.dtype == _dtypes.bool or n < 0 or x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise Fallback("matrix_power of booleans, a negative power or no square matrices")
    return _integer_power(x, n)


def _integer_power(x, n: int):
    """Integer matrices to the n-th power by squaring, as numpy's: integer products wrap, so
    every order of them gives numpy's values."""
    if n == 0:
        identity = eye(x.shape[-1], dtype=x.dtype, device=device_arg(x))
        return add(multiply(x, 0), identity)  # NOTE: x's shape (a stack of identities)
    result, power = None, x
    while n:
        if n & 1:
            result = power if result is None else matmul(result, power)
        n >>= 1
        if n:
            power = matmul(power, power)
    return result


def norm(x, ord=None, axis=None, keepdims=False):
    v = _inexact(x)
    if axis is None and ord is None:
        return _linalg.vector_norm(v, axis=None, keepdims=keepdims)  # Frobenius of any shape
    axes = tuple(range(v.ndim)) if axis is None else as_tuple(axis)
    if len(axes) == 1:
        return _linalg.vector_norm(
            v, axis=axes[0], keepdims=keepdims, ord=2 if ord is None else ord
        )
    if len(axes) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    result = _linalg.matrix_norm(
        _last_two(v, *axes), keepdims=keepdims, ord="fro" if ord is None else ord
    )
    return moveaxis(result, (-2, -1), axes) if keepdims else result
