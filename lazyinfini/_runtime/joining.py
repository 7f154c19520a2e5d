"""Joining several arrays into one: the ops whose inputs are a variable-length list of arrays.

array_api_compat's concat and stack take the arrays as one sequence argument, while a node's
inputs arrive one by one, so these are not plain library calls (see library.CUSTOM).
"""

from __future__ import annotations

import numpy as np

from .._graph import Op


def concat(*arrays: np.ndarray, axis: int) -> np.ndarray:
    return np.concatenate(arrays, axis=axis)


def stack(*arrays: np.ndarray, axis: int) -> np.ndarray:
    return np.stack(arrays, axis=axis)


IMPLEMENTATIONS = {Op.CONCAT: concat, Op.STACK: stack}
