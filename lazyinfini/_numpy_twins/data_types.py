"""numpy's questions about shapes and dtypes, answered from the recorded shape and dtype, so
they never compute (np.shape, np.ndim, np.size, np.result_type, np.can_cast,
np.iscomplexobj, np.isrealobj), and np.astype."""

from __future__ import annotations

import math

import numpy as np

from .. import _dtypes
from .._api.data_types import astype as _astype
from .._array import Array
from .arguments import array, as_tuple


def _dtype_of(value):
    """An Array by its dtype (numpy's rules for arrays: never weak); the rest as numpy sees it."""
    return value.dtype if isinstance(value, Array) else value


def shape(a):
    return array(a).shape  # NOTE: a list of Arrays is stacked lazily, not computed


def ndim(a):
    return len(shape(a))


def size(a, axis=None):
    dims = shape(a)
    if axis is None:
        return math.prod(dims)
    return math.prod(dims[i] for i in as_tuple(axis))


def result_type(*arrays_and_dtypes):
    return np.result_type(*(_dtype_of(v) for v in arrays_and_dtypes))


def can_cast(from_, to, casting="safe"):
    return np.can_cast(_dtype_of(from_), _dtype_of(to), casting=casting)


def iscomplexobj(x):
    return array(x).dtype in _dtypes.COMPLEX


def isrealobj(x):
    return not iscomplexobj(x)


def astype(x, dtype, /, *, copy=True, device=None):
    return _astype(array(x), np.dtype(dtype), copy=copy, device=device)
