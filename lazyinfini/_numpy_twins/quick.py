"""The quick paths of numpy's commonest calls: np.sum, np.mean, np.max, np.min, np.argmax and
np.argmin (and the methods x.sum(), x.mean(), ...) of a non-empty float32 or float64 array
over an axis, with keepdims, record their one node directly; so do np.dot (x.dot) of two
vectors or matrices of one dtype (their matmul), np.cumsum along an axis, np.concatenate of
arrays of one dtype and rank, a short signal's np.convolve with a short ndarray kernel,
np.sum of a bool or integer array (a count), and np.reshape (x.reshape) to a shape of ints.

NOTE (DESIGN.md: recording must stay cheap): such a call passes numpy's function protocol, the
twin, the namespace's function and its checks, ~8 us where numpy computes a small array's sum
in ~2; none of them changes the node for these operands. Anything else (another dtype, out=,
dtype=, where=, a 0-d or empty array) returns None: the twin records it (tests/api/
test_numpy_functions.py compares the nodes both paths record).
"""

from __future__ import annotations

import numpy as np

from .. import _dtypes
from .._api import creation
from .._api.data_types import astype
from .._api.linear_algebra import matmul
from .._api.manipulation import reshape
from .._api.placement import owner_among
from .._api.searching import arg_extreme
from .._api.statistics import record_reduction
from .._array import Array
from .._graph import Op, caller_source, quick_node
from .._realize.native_operators import when_loaded
from . import convolution

_FLOATS = (_dtypes.float32, _dtypes.float64)
_AXIS_KEEPDIMS = frozenset(("axis", "keepdims"))
_AXIS, _MODE = frozenset(("axis",)), frozenset(("mode",))
# How the C path records (_realize/native_operators.py's quick_reduce): in x's dtype, a sum
# (its dtype named), an index (argmax, argmin); np.dot's product (quick_matmul's)
_PLAIN, _SUMMED, _INDEXED, _PRODUCT = 0, 1, 2, 3


def _reduction(name: str, op: Op, summed: bool):
    """The quick path of numpy's reduction `name`: its node `op` of x's dtype (a sum also
    accumulates in it: the namespace's ("dtype", x.dtype) for a float32 or float64 sum)."""

    def quick(args: tuple, kwargs: dict):
        taken = _reducible(args, kwargs, _FLOATS)
        if taken is None:
            return None
        x, axis, keepdims = taken
        dtype = x.dtype
        options = (("dtype", dtype),) if summed else ()
        return record_reduction(name, op, x, axis, keepdims, dtype, *options)

    quick.spec = (op, _SUMMED if summed else _PLAIN)  # NOTE: the same path in C
    return quick


def _taken(args: tuple, kwargs: dict, keywords: frozenset = _AXIS_KEEPDIMS, dtypes=_FLOATS):
    """(x, axis, keepdims) of a call these paths take: an Array of `dtypes` (float32 or
    float64) of one or more dims, an axis by position or keyword, keepdims by keyword (the
    `keywords` taken); None for anything else (numpy's errors for a call passing axis twice, a
    0-d x's axis: the twin's)."""
    if not 1 <= len(args) <= 2 or (kwargs and not keywords.issuperset(kwargs)):
        return None
    x = args[0]
    if not isinstance(x, Array) or len(args) == 2 and "axis" in kwargs:
        return None
    node = x._node
    if node.dtype not in dtypes or not node.shape:
        return None
    axis = args[1] if len(args) == 2 else kwargs.get("axis")
    return x, axis, kwargs.get("keepdims", False)


def _reducible(args: tuple, kwargs: dict, dtypes):
    """_taken's (x, axis, keepdims) of a reduction over a non-empty x, its axis one the
    namespace checks as numpy's and keepdims a bool; None for anything else (an empty max,
    another keepdims: the twin's)."""
    taken = _taken(args, kwargs, dtypes=dtypes)
    if taken is None:
        return None
    x, axis, keepdims = taken
    if 0 in x.shape or not _axis(axis) or keepdims is not True and keepdims is not False:
        return None
    return taken


def _axis(axis) -> bool:
    """An axis the namespace's reduction_axes checks as numpy's: None, an int, ints."""
    if axis is None or type(axis) is int:
        return True
    return type(axis) is tuple and all(type(a) is int for a in axis)


def _arg(name: str, op: Op):
    """The quick path of np.argmax (np.argmin): the namespace's, without the protocol's and
    the twin's layers (a float array: the twin's only change is a bool's cast)."""

    def quick(args: tuple, kwargs: dict):
        taken = _taken(args, kwargs)
        if taken is None or taken[1] is not None and type(taken[1]) is not int:
            return None
        return arg_extreme(name, op, *taken)

    quick.spec = (op, _INDEXED)  # NOTE: the same path in C (install_reductions)
    return quick


def _dot(args: tuple, kwargs: dict):
    """np.dot(a, b) of two Arrays of one dtype, vectors or matrices: their matmul (numpy's dot
    and matmul agree there), without the twin's conversions and promotion (~40k instructions
    of a product's ~50k). Anything else is the twin's (a scalar, an n-d b, out=)."""
    if kwargs or len(args) != 2:
        return None
    x, y = args
    if not isinstance(x, Array) or not isinstance(y, Array):
        return None
    a, b = x._node, y._node
    if a.dtype is not b.dtype or not (1 <= len(a.shape) <= 2 and 1 <= len(b.shape) <= 2):
        return None
    return matmul(x, y)


_dot.spec = (Op.MATMUL, _PRODUCT)  # NOTE: the same path in C (quick_matmul)


def _cumsum(args: tuple, kwargs: dict):
    """np.cumsum(x, axis) of a float32 or float64 Array along a given axis: its running sum
    in its own dtype (what the twin records for these: numpy's cumsum accumulates in it)."""
    taken = _taken(args, kwargs, _AXIS)
    if taken is None or type(taken[1]) is not int:
        return None  # NOTE: axis=None flattens first: the twin's
    x, axis, _ = taken
    node = x._node
    ndim = len(node.shape)
    if not -ndim <= axis < ndim:
        return None
    arg = (("axis", axis % ndim), ("dtype", node.dtype), ("include_initial", False))
    return Array(
        quick_node(Op.CUMULATIVE_SUM, (node,), node.shape, node.dtype, arg, caller_source())
    )


def _concatenate(args: tuple, kwargs: dict):
    """np.concatenate of two or more Arrays (or ndarrays, their values now: the twin's
    snapshot) of one dtype and rank along an axis where the others agree: one CONCAT node.
    Anything else (a cast, another rank, a size that differs, axis=None) is the twin's.
    NOTE: loops, not generators: a generator's frames cost more than this path's checks."""
    if len(args) not in (1, 2) or kwargs and (len(args) == 2 or set(kwargs) != _AXIS):
        return None
    items = args[0]
    axis = args[1] if len(args) == 2 else kwargs.get("axis", 0)
    if type(items) not in (list, tuple) or len(items) < 2 or type(axis) is not int:
        return None
    first = None
    for item in items:
        if isinstance(item, Array):
            first = item._node
            break
        if type(item) is not np.ndarray:
            return None
    if first is None:
        return None
    shape, dtype = first.shape, first.dtype
    ndim = len(shape)
    if not ndim or not -ndim <= axis < ndim:
        return None
    axis %= ndim
    nodes, total, converts = [], 0, False
    for item in items:
        node = item._node if isinstance(item, Array) else None
        if node is None and type(item) is not np.ndarray:
            return None
        converts = converts or node is None
        other = item if node is None else node
        if other.dtype != dtype or len(other.shape) != ndim:
            return None
        for i in range(ndim):
            if i != axis and other.shape[i] != shape[i]:
                return None
        total += other.shape[axis]
        nodes.append(node if node is not None else item)
    if converts and owner_among(items) is not None:
        return None  # NOTE: an ndarray goes to the GPU holding the Arrays: the twin's way
    for k, node in enumerate(nodes):  # NOTE: converted once every check has passed
        if type(node) is np.ndarray:
            nodes[k] = creation.operand(node)._node
    joined = (*shape[:axis], total, *shape[axis + 1 :])
    arg = (("axis", axis),)
    return Array(quick_node(Op.CONCAT, tuple(nodes), joined, dtype, arg, caller_source()))


def _convolve(args: tuple, kwargs: dict):
    """np.convolve(signal, kernel, "valid") of a float32 or float64 Array and a short ndarray
    kernel of its dtype (a moving average): the CORRELATE node of the reversed kernel's values
    now, as the twin records it for a short signal (convolution.py). Anything else (another
    mode, dtype, length or operand) is the twin's."""
    if len(args) + len(kwargs) != 3 or len(args) < 2 or kwargs and set(kwargs) != _MODE:
        return None
    signal, kernel = args[:2]
    mode = args[2] if len(args) == 3 else kwargs["mode"]
    if type(kernel) is not np.ndarray or not isinstance(signal, Array) or kernel.ndim != 1:
        return None
    node = signal._node
    if len(node.shape) != 1 or node.dtype not in _FLOATS or kernel.dtype != node.dtype:
        return None
    n, length = kernel.shape[0], node.shape[0] - kernel.shape[0] + 1
    valid = type(mode) is str and mode[:1].lower() == "v" or type(mode) is int and mode == 0
    if not valid or not 0 < n <= convolution.MAX_KERNEL or not 0 < length < convolution.FUSED_MIN:
        return None
    if owner_among((signal,)) is not None:
        return None  # NOTE: the kernel goes to the GPU holding the signal: the twin's way
    flipped = creation.operand(kernel[::-1])._node  # NOTE: its values now (a snapshot)
    arg = (("left", 0), ("right", 0))
    return Array(
        quick_node(Op.CORRELATE, (node, flipped), (length,), node.dtype, arg, caller_source())
    )


def _counted(args: tuple, kwargs: dict):
    """np.sum (x.sum) of a bool or integer Array over an axis (`one_hot.sum(axis=0)`, a count):
    the twin's nodes, a bool x cast to the default integer first (numpy's add on bools), the
    sum in the default integer (uint64 for unsigned x), without the protocol's layers. The
    floats' path is _SUM's; anything else (dtype=, out=, a 0-d or empty x) is the twin's."""
    taken = _reducible(args, kwargs, _COUNTS)
    if taken is None:
        return None
    x, axis, keepdims = taken
    total = _dtypes.uint64 if x.dtype in _dtypes.UNSIGNED else _dtypes.DEFAULT_INT
    if x.dtype == _dtypes.bool:
        x = astype(x, total)
    return record_reduction("sum", Op.SUM, x, axis, keepdims, total, ("dtype", total))


_COUNTS = (_dtypes.bool, *_dtypes.INTEGER)


def _summed(args: tuple, kwargs: dict):
    """np.sum's quick paths: a float array's (_SUM, also in C), else a count's (_counted)."""
    made = _SUM(args, kwargs)
    return made if made is not None else _counted(args, kwargs)


_summed.spec = (Op.SUM, _SUMMED)  # NOTE: the float path in C (install_reductions)


def _reshaped(args: tuple, kwargs: dict):
    """np.reshape (x.reshape) of an Array to a shape of Python ints, in C order, no copy asked
    for: the namespace's reshape, as the twin calls it, without the protocol's and the twin's
    layers. One element to another shape is the twin's (a view of it reads forwards there);
    anything else too (order=, copy=, a list shape)."""
    if len(args) != 2 or kwargs and kwargs not in _C_ORDER:
        return None
    x, shape = args
    if not isinstance(x, Array):
        return None
    if type(shape) is int:
        shape = (shape,)
    elif type(shape) is not tuple:
        return None
    for n in shape:  # NOTE: a loop, not a generator: its frame costs more than the check
        if type(n) is not int:
            return None
    if shape != x.shape and x.size == 1:
        return None
    return reshape(x, shape)


# NOTE: the keywords taken: x.reshape(...) passes both
_C_ORDER = ({"order": "C", "copy": None}, {"order": "C"})

_SUM = _reduction("sum", Op.SUM, True)
_MEAN = _reduction("mean", Op.MEAN, False)
_MAX = _reduction("max", Op.MAX, False)
_MIN = _reduction("min", Op.MIN, False)

# numpy function -> its quick path (np.amax and np.max are different objects: both listed)
QUICK = {
    np.sum: _summed,
    np.mean: _MEAN,
    np.max: _MAX,
    np.amax: _MAX,
    np.min: _MIN,
    np.amin: _MIN,
    np.argmax: _arg("argmax", Op.ARGMAX),
    np.argmin: _arg("argmin", Op.ARGMIN),
    np.dot: _dot,
    np.cumsum: _cumsum,
    np.concatenate: _concatenate,
    np.convolve: _convolve,
    np.reshape: _reshaped,
}


def install_reductions(module) -> None:
    """x.sum(), x.mean(), x.max(), x.min(), x.argmax(), x.argmin(), x.dot(y) and np.sum(x),
    np.mean(x), ... of the paths above in C (_realize/native_operators.py): Operators
    wrapping the ndarray methods and Array's __array_function__, which they call for anything
    else."""
    from .._methods import NumpyMethods

    for name in ("sum", "mean", "max", "min", "argmax", "argmin"):
        function, python = getattr(np, name), vars(NumpyMethods)[name]
        setattr(Array, name, module.reduction(*QUICK[function].spec, _FLOATS, python))
    # NOTE: x.dot(y) of the same arrays is x @ y's Operator (quick_matmul), else numpy's method
    Array.dot = module.operator(Op.MATMUL, None, vars(NumpyMethods)["dot"], False)
    table = {f: (*q.spec, _FLOATS) for f, q in QUICK.items() if hasattr(q, "spec")}
    python = vars(Array)["__array_function__"]
    Array.__array_function__ = module.array_function(table, python)


when_loaded(install_reductions)
