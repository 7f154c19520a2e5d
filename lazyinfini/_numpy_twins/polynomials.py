"""numpy's polynomial helpers (polyval, polyder, polyint) and vander, recorded as numpy writes
them: the same products and sums, in numpy's order and dtypes.

(poly and roots solve for eigenvalues, polyfit a least-squares problem: numpy's.)
"""

from __future__ import annotations

import numpy as np

from .._api.creation import copy_node, ones
from .._api.placement import device_arg
from .._graph import caller_source
from .arguments import array

NAMES = ("polyval", "polyder", "polyint", "vander")


def polyval(p, x):
    coefficients, x = array(p), array(x)
    y = np.zeros_like(x)
    for i in range(coefficients.shape[0]):
        y = y * x + coefficients[i]
    return y


def polyder(p, m=1):
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    coefficients = array(p)
    for _ in range(m):
        n = coefficients.shape[0] - 1
        coefficients = coefficients[:-1] * np.arange(n, 0, -1)
    return coefficients


def polyint(p, m=1, k=None):
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    constants = np.zeros(m, float) if k is None else np.atleast_1d(k)
    if len(constants) == 1 and m > 1:
        constants = constants[0] * np.ones(m, float)
    if len(constants) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    coefficients = array(p)
    for i in range(m):
        n = coefficients.shape[0]
        scaled = coefficients / np.arange(n, 0, -1)
        coefficients = np.concatenate((scaled, [constants[i]]))
    return coefficients


def vander(x, N=None, increasing=False):
    v = array(x)
    if v.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = v.shape[0] if N is None else N
    dtype = np.promote_types(v.dtype, int)
    columns = [ones((v.shape[0], min(n, 1)), dtype=dtype, device=device_arg(v))]
    if n > 1:
        # Note (numpy): x in each column after the first, multiplied along the row in order
        repeated = np.broadcast_to(v.astype(dtype)[:, None], (v.shape[0], n - 1))
        columns.append(np.cumprod(repeated, axis=1))
    powers = np.concatenate(columns, axis=1)
    if increasing:
        return powers
    return copy_node(powers[:, ::-1], "C", caller_source())  # NOTE: numpy's v is C-ordered
