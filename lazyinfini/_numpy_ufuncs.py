"""numpy's ufuncs on Arrays (Array.__array_ufunc__): the ufuncs that are namespace functions
record lazily (`ndarray * x`, `np.exp(x)`, and with an Array as `out=`); lists and tuples among
their operands (and the operators') are converted as numpy converts them, onto the device
holding the data; any other call computes its Array inputs and runs numpy's."""

from __future__ import annotations

import numpy as np

from . import _realize
from ._api import checks as _checks
from ._api import creation as _creation
from ._api import elementwise as _elementwise
from ._api import linear_algebra as _linalg
from ._api import manipulation as _manipulation
from ._api import placement as _placement
from ._array import Array


def numpy_ufunc(ufunc, method: str, inputs: tuple, kwargs: dict):
    """numpy's ufuncs that are namespace functions record lazily (`ndarray * x`, `np.exp(x)`).
    Any other call (scipy.special's ufuncs, methods such as np.add.reduce, `out=`) computes its
    Array inputs and runs on their values, as on any array with __array__; the result comes back
    as an Array, except what numpy wrote into the caller's `out=` arrays."""
    for value in inputs:  # NOTE: a loop, not a generator: every ufunc call on an Array asks
        if type(value) in SEQUENCES:
            inputs = listed(inputs)
            break
    twin = TWINS.get(ufunc)
    if twin is not None and method == "__call__":
        if not kwargs:
            return twin(*inputs)
        out = kwargs.get("out")
        if len(kwargs) == 1 and out is not None and len(out) == 1 and isinstance(out[0], Array):
            return _into(ufunc, twin(*inputs), out[0])
    name = getattr(ufunc, "__name__", "ufunc")
    if any(isinstance(o, Array) for o in kwargs.get("out", ())):
        raise _checks.error(TypeError, name, "out= cannot be a lazyinfini array (they are values)")
    _realize.realize(*(v for v in inputs if isinstance(v, Array)))
    values = [v._value() if isinstance(v, Array) else v for v in inputs]
    result = getattr(ufunc, method)(*values, **kwargs)
    if "out" in kwargs or result is None:
        return result
    owner = _placement.owner_among(inputs)  # NOTE: the result goes where the data lives
    if isinstance(result, tuple):
        return tuple(_creation.asarray(r, device=owner) for r in result)
    return _creation.asarray(result, device=owner)


SEQUENCES = (list, tuple)


def _into(ufunc, result: Array, out: Array) -> Array:
    """np.add(x, y, out=z) with z an Array: z (and the arrays sharing its memory) rebound to
    the result, broadcast to z's shape and cast by numpy's same_kind rule (numpy's checks):
    recorded from the inputs' values before the write, as numpy computes overlapping ones."""
    if (
        result.shape != out.shape
        and _checks.broadcast_shapes(ufunc.__name__, result.shape, out.shape) == out.shape
    ):
        result = _manipulation.broadcast_to(result, out.shape)
    from ._numpy_functions import deliver  # NOTE: it imports the whole namespace

    return deliver(ufunc, result, out)


def listed(operands) -> list:
    """Operands with lists and tuples converted as numpy's ufuncs convert them (numpy's
    dtypes), onto the device holding the Array operands' data."""
    owner = _placement.owner_among(operands)
    return [
        _creation.asarray(np.asarray(v), device=owner) if type(v) in SEQUENCES else v
        for v in operands
    ]


# numpy's ufuncs that are namespace functions (np.add, np.exp, np.pow is np.power, np.matmul):
# numpy calls them on Arrays through Array.__array_ufunc__, and they record lazily. Read from the
# element-wise declarations (declaring li.exp makes np.exp(x) record it) and the two linear
# algebra ufuncs; a name numpy lacks (np.acos before numpy 2) or no ufunc (np.clip) has no twin.
_FUNCTIONS = {
    **{name: declared.function for name, declared in _elementwise.DECLARED.items()},
    "matmul": _linalg.matmul,
    "vecdot": _linalg.vecdot,
}
TWINS = {
    ufunc: function
    for name, function in _FUNCTIONS.items()
    if isinstance(ufunc := getattr(np, name, None), np.ufunc)
}
