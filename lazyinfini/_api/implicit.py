"""An Array's value read while recording (a conversion, a mask, a data-dependent shape): the
implicit materializations, counted and refused in strict mode, and the reads that compute
nothing (a view of a computed buffer or of a user's array is numpy's view)."""

from __future__ import annotations

import numpy as np

from .. import _array
from .._counters import counters
from .._device import get_device
from .._graph import Op
from .._options import current as current_options


def implicit_value(x, func: str, what: str = "") -> np.ndarray:
    """x's value, computed now because `func` needs it while recording: an implicit
    materialization. `what` names the argument for messages ("" for the array itself).

    Every value the API reads at recording time comes here: the scalar conversions (bool, int,
    float, complex, index; so 0-d integer arrays given as ints too), boolean masks, slice bounds
    given as 0-d arrays, an array of `repeats`, a 0-d `fill_value`, an array `rtol` of
    linalg.pinv/matrix_rank, nonzero and the unique_* functions. One rule for all of them:

    - x pending: computed (for the debug line, as `func(what)`) and counted once in
      counters.implicit_materializations; x computed already: read for free, not counted.
    - strict mode (li.options(strict=True)): a pending x raises ValueError naming `func`
      instead, wherever the call comes from: nothing is computed that the user did not ask
      for. Note (spec): the standard lets a lazy library raise both for scalar conversion and
      for data-dependent output shapes (masks, nonzero, unique_*, repeat).

    A value that is only read when known (index bounds checked at the call when the index array
    is computed already, see known_value) is not a materialization and does not come here.
    """
    value = host_view(x)
    if value is not None:
        return value
    _allow_implicit(x, func, what)
    return x._value(f"{func.strip('_')}({what})")


def host_view(x) -> np.ndarray | None:
    """numpy's read-only view of the host memory x views (a view of a computed buffer or of a
    user's array), None otherwise (x's buffer itself too). Read so, never computed: a
    permute's copy would be C-ordered, and x's pending readers would then sum in that order,
    not numpy's (a data-dependent call, a function numpy runs for lazyinfini)."""
    node = x._node
    # NOTE: _array's binding of _api.creation (which imports _array, which imports this)
    value = _array._creation.view_value(node) if node.op.is_view else None
    if value is None:
        return None
    value = value.view()
    value.flags.writeable = False
    return value


def implicit_data(x, func: str, what: str = "") -> tuple:
    """(the device holding x, x's value in its memory): implicit_value's computation, leaving
    the value where it lives (a GPU's array: the data-dependent calls run there)."""
    value = host_view(x)
    if value is not None:
        return get_device("cpu"), value
    _allow_implicit(x, func, what)
    buffer = x._stored(f"{func.strip('_')}({what})")
    return get_device(buffer.device), buffer.data


def _allow_implicit(x, func: str, what: str) -> None:
    """Count a pending x's implicit materialization, or raise in strict mode."""
    if x._node.op is not Op.BUFFER:
        if current_options().strict:
            raise ValueError(
                f"{func}: {what or 'the array'} is not computed yet and strict mode is on; "
                "call .compute() first or leave li.options(strict=True)"
            )
        counters.implicit_materializations += 1


def known_value(x) -> np.ndarray | None:
    """x's value when it is computed already, else None (never computes, never counts)."""
    node = x._node
    if node.op is not Op.BUFFER or not isinstance(node.arg.data, np.ndarray):
        return None  # NOTE: another device's data (a dask array) is not known without a compute
    return node.arg.data
