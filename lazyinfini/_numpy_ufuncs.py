"""numpy's ufuncs on Arrays (Array.__array_ufunc__): the ufuncs that are namespace functions
record lazily (`ndarray * x`, `np.exp(x)`, and with an Array as `out=`); lists and tuples among
their operands (and the operators') are converted as numpy converts them, onto the device
holding the data; any other call computes its Array inputs and runs numpy's."""

from __future__ import annotations

import functools

import numpy as np

from . import _dtypes
from ._api import checks as _checks
from ._api import complex_products as _complex_products
from ._api import creation as _creation
from ._api import elementwise as _elementwise
from ._api import linear_algebra as _linalg
from ._api import manipulation as _manipulation
from ._api import placement as _placement
from ._array import Array
from ._graph import Node
from ._graph.ops import CORRECTED, NUMPY_VALUES, Op
from ._realize.native_operators import when_loaded


def numpy_ufunc(ufunc, method: str, inputs: tuple, kwargs: dict):
    """numpy's ufuncs that are namespace functions record lazily (`ndarray * x`, `np.exp(x)`).
    Any other call (scipy.special's ufuncs, methods such as np.add.reduce, `out=`) computes its
    Array inputs and runs on their values, as on any array with __array__; the result comes back
    as an Array, except what numpy wrote into the caller's `out=` arrays."""
    if method == "at" and isinstance(inputs[0], Array):  # NOTE: before lists become arrays
        # NOTE: numpy's, written back into x where x lives: the fallback of its in-place calls
        from ._numpy_functions import call  # NOTE: it imports the whole namespace

        return call(ufunc.at, inputs, kwargs)
    for value in inputs:  # NOTE: a loop, not a generator: every ufunc call on an Array asks
        if not isinstance(value, _OPERANDS):
            inputs = listed(inputs)
            break
    twin = TWINS.get(ufunc)
    if ufunc in ORDERING and any(_complex(v) for v in inputs):
        twin = None  # NOTE: numpy orders complex numbers (by real part, then imaginary)
    if twin is not None and method == "__call__":
        if not kwargs:
            return twin(*inputs)
        out = kwargs.get("out")
        if len(kwargs) == 1 and out is not None and len(out) == 1 and isinstance(out[0], Array):
            return _into(ufunc, twin(*inputs), out[0], inputs)
    name = getattr(ufunc, "__name__", "ufunc")
    if any(isinstance(o, Array) for o in kwargs.get("out", ())):
        raise _checks.error(TypeError, name, "out= cannot be a lazyinfini array (they are values)")
    from ._numpy_functions import numpy_values, numpys_views  # NOTE: it imports the namespace

    # NOTE: an input viewing ndarray memory is numpy's view (np.add.reduce(x.T, 0) adds in
    # its strides), as numpy's functions run for lazyinfini read it
    views = numpys_views([v for v in inputs if isinstance(v, Array)])
    result = getattr(ufunc, method)(*numpy_values(inputs, views), **kwargs)
    if "out" in kwargs or result is None:
        return result
    owner = _placement.owner_among(inputs)  # NOTE: the result goes where the data lives
    if isinstance(result, tuple):
        return tuple(_creation.asarray(r, device=owner) for r in result)
    return _creation.asarray(result, device=owner)


SEQUENCES = (list, tuple)
# The ufuncs choosing between complex numbers by numpy's lexicographic order that the namespace
# lacks (np.fmax(z, w)): those run numpy's. (np.maximum, np.greater and kin order complex
# numbers so lazily: elementwise.py.)
ORDERING = frozenset({np.fmax, np.fmin})


def _complex(value) -> bool:
    return isinstance(value, complex) or getattr(getattr(value, "dtype", None), "kind", "") == "c"


def _into(ufunc, result: Array, out: Array, inputs: tuple) -> Array:
    """np.add(x, y, out=z) with z an Array: z (and the arrays sharing its memory) rebound to
    the result, broadcast to z's shape and cast by numpy's same_kind rule (numpy's checks):
    recorded from the inputs' values before the write, as numpy computes overlapping ones."""
    result = _complex_products.written(result, inputs, out)  # NOTE: numpy's in-place formula
    if (
        result.shape != out.shape
        and _checks.broadcast_shapes(ufunc.__name__, result.shape, out.shape) == out.shape
    ):
        result = _manipulation.broadcast_to(result, out.shape)
    from ._numpy_functions import deliver  # NOTE: it imports the whole namespace

    return deliver(ufunc, result, out)


def listed(operands) -> list:
    """Operands with lists, tuples and other array-likes (a memoryview, an object with
    __array__) converted as numpy's ufuncs convert them (numpy's dtypes), onto the device
    holding the Array operands' data."""
    owner = _placement.owner_among(operands)
    return [v if isinstance(v, _OPERANDS) else _converted(v, owner) for v in operands]


def _converted(value, owner) -> Array:
    return _creation.operand(np.asarray(value), device=owner, given=value)


# NOTE: what the twins take as they are (arrays, numpy's and Python's scalars)
_OPERANDS = (Array, np.ndarray, np.generic, bool, int, float, complex)


# numpy's ufuncs that are namespace functions (np.add, np.exp, np.pow is np.power, np.matmul):
# numpy calls them on Arrays through Array.__array_ufunc__, and they record lazily. Read from the
# element-wise declarations (declaring li.exp makes np.exp(x) record it) and the two linear
# algebra ufuncs; a name numpy lacks (np.acos before numpy 2) or no ufunc (np.clip) has no twin.
_FUNCTIONS = {
    **{name: declared.function for name, declared in _elementwise.DECLARED.items()},
    "matmul": _linalg.matmul,
    "vecdot": _linalg.vecdot,
}


def _numpy_values(function, op: Op, kinds: str):
    """`function`'s twin for numpy's ufunc where numpy's values differ from the standard's
    special cases `function` gives: its node, where of a dtype of `kinds`, recorded again with
    arg NUMPY_VALUES (computed as numpy's own loop computes it)."""

    @functools.wraps(function)  # NOTE: its name and docstring; __wrapped__ is `function`
    def twin(*inputs):
        result = function(*inputs)
        node = result._n
        if node.op is not op or _dtypes.compute_dtype(node.dtype).kind not in kinds:
            return result
        return Array(Node(op, node.srcs, node.shape, node.dtype, NUMPY_VALUES, node.source))

    _NUMPY_VALUES[twin] = (function, kinds)
    return twin


_NUMPY_VALUES: dict = {}  # each twin _numpy_values made -> (its function, its kinds)


def _twin(name: str, function):
    """np.<name>'s twin: the namespace's `function`, or, for an op whose special values the
    namespace corrects to the standard's, its numpy-values twin. Note (numpy): np.floor_divide
    and np.expm1 give numpy's values (inf // 2 is nan, expm1(-0j) is -0j); li.floor_divide,
    `x // y` and li.expm1 the standard's (inf, 0j)."""
    declared = _elementwise.DECLARED.get(name)
    if declared is None or declared.op not in CORRECTED:
        return function
    return _numpy_values(function, declared.op, CORRECTED[declared.op])


TWINS = {
    ufunc: _twin(name, function)
    for name, function in _FUNCTIONS.items()
    if isinstance(ufunc := getattr(np, name, None), np.ufunc)
}


@functools.wraps(_elementwise.positive)  # NOTE: its name: the ufunc's
def _positive(x, /):
    # NOTE: numpy's ufunc writes a new array, forwards (order "K"), where the namespace's +x
    # is x itself, which may read memory backwards (a later loop over it gives other bits)
    from ._numpy_twins.layout import forwards  # NOTE: it imports the whole namespace

    result = _elementwise.positive(x)
    return forwards(result) if isinstance(x, Array) and result._n is x._n else result


TWINS[np.positive] = _positive


def _reciprocal(twin):
    """np.reciprocal: `twin` (the namespace's reciprocal) for floats and complex; of integers
    (bools as int8) numpy's integer loop, 1.0 / x cast back to x's dtype: 1 and -1 stay, every
    other nonzero value gives 0, and 0 gives the cast of inf, what numpy gives on this machine
    (asked once). Computed in x's integers: a kernel casting inf would give its platform's
    value (a GPU saturates: 127 where numpy on x86 gives 0 for int8)."""

    @functools.wraps(twin)
    def reciprocal(x):
        from ._api.data_types import astype  # NOTE: it imports _array, which imports this

        ints = x if isinstance(x, Array) else _creation.operand(x)
        if ints.dtype == _dtypes.bool:
            ints = astype(ints, _dtypes.int8)
        if ints.dtype not in _dtypes.INTEGER:
            return twin(x)
        units = _elementwise.where(_elementwise.abs(ints) == 1, ints, 0)
        return _elementwise.where(ints == 0, _reciprocal_of_zero(ints.dtype), units)

    return reciprocal


@functools.cache
def _reciprocal_of_zero(dtype) -> int:
    """numpy's integer reciprocal of 0 in `dtype`: inf cast to an integer, which C leaves to the
    platform (on x86 0 for 8 and 16 bits, the least int32 or int64 for 32 and 64)."""
    with np.errstate(all="ignore"):
        return int(np.reciprocal(np.zeros(1, dtype))[0])


TWINS[np.reciprocal] = _reciprocal(TWINS[np.reciprocal])


def install_ufuncs(module) -> None:
    """np.exp(x), np.maximum(x, 0.0), ndarray * x ... in C (_realize/native_operators.py):
    Array.__array_ufunc__ becomes an Operator recording, for a ufunc whose twin is a namespace
    function itself (not a wrapper: numpy's values, reciprocal's integers), that function's
    quick path, and calling the Python method for anything else."""
    table = {}
    for ufunc, twin in TWINS.items():
        function, kinds = _NUMPY_VALUES.get(twin, (twin, ""))
        if function is not getattr(_elementwise, getattr(function, "__name__", ""), None):
            continue  # NOTE: a wrapper of its own (np.positive, np.reciprocal's integers)
        quick = getattr(function, "quick", None)
        unary = quick is None
        quick = getattr(function, "quick_unary", None) if unary else quick
        if quick is None:
            continue  # NOTE: no quick path (clip, round, ...)
        op, dtypes = quick
        # NOTE: a result of `kinds` is numpy's values' node (its twin's): the Python method's
        dtypes = {d: r for d, r in dtypes.items() if _dtypes.compute_dtype(r).kind not in kinds}
        table[ufunc] = (op, dtypes, unary)
    python = vars(Array)["__array_ufunc__"]
    Array.__array_ufunc__ = module.array_ufunc(table, python)


when_loaded(install_ufuncs)
