"""Creation functions: buffers from data, and fills and ranges recorded as source nodes.

Spec: https://data-apis.org/array-api/latest/API_specification/creation_functions.html
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from .. import _dtypes
from .._array import Array, implicit_value, record
from .._device import check_device_arg, get_device
from .._graph import Node, Op, buffer_node, caller_source, inputs_of
from .._graph.views import apply_movement
from .._options import current
from .checks import (
    OutOfRangeError,
    check_dtype_arg,
    check_flag,
    check_int,
    check_shape,
    check_size,
    error,
)
from .distributed import from_dask, is_dask_array
from .placement import adopted, device_arg, placed
from .snapshots import REUSE_MIN_BYTES, snapshot

_PY_DEFAULTS = {"b": _dtypes.bool, "i": _dtypes.DEFAULT_INT, "f": _dtypes.DEFAULT_FLOAT}


def asarray(obj, /, dtype=None, *, device=None, copy=None) -> Array:
    """Convert obj (array, numpy array, DLPack or __array__ object, nested sequence, scalar).

    copy=None shares the memory of a numpy array (or DLPack or buffer object) of the right
    dtype, as numpy.asarray does: writing into that numpy array later changes this array, and
    every pending result that reads it until that result is computed. copy=True never shares:
    numpy input and computed arrays (and views of them) are copied now, so later writes are not
    seen; a cast or a pending array is computed into new memory when needed (reading its inputs
    then, as every pending result does). copy=False raises ValueError where a copy is needed.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.asarray.html"""
    plain = dtype is None and device is None and copy is None
    if plain and type(obj) is np.ndarray and _dtypes.is_supported(obj.dtype):
        # NOTE: the common case (every ndarray operand): none of the checks below applies
        return placed("asarray", Array(buffer_node(_readonly(obj), caller_source())), None)
    check_device_arg("asarray", device)
    dtype = None if dtype is None else check_dtype_arg("asarray", dtype)
    _check_copy("asarray", copy)
    if isinstance(obj, Array):  # Note (spec): without device=, on obj's device
        found = _from_array(obj, dtype, copy)
        return found if device is None else placed("asarray", found, device)
    if is_dask_array(obj):  # NOTE: lazily, on the dask device: numpy's asarray would compute it
        return _from_array(from_dask(obj), dtype, copy)
    if type(obj) is not np.ndarray and (taken := adopted("asarray", obj)) is not None:
        found = _from_array(taken, dtype, copy)  # NOTE: a GPU's array, on its device
        return found if device is None else placed("asarray", found, device)
    value = _to_numpy(obj, dtype, copy)
    if not _dtypes.is_supported(value.dtype):
        raise error(TypeError, "asarray", f"numpy dtype {value.dtype} has no lazyinfini dtype")
    return placed("asarray", Array(buffer_node(_readonly(value), caller_source())), device)


def _check_copy(func: str, copy) -> None:
    if copy is not None and not isinstance(copy, builtins.bool):
        raise error(TypeError, func, f"copy must be True, False or None, got {copy!r}")


def _from_array(x: Array, dtype, copy) -> Array:
    if dtype is None or dtype == x.dtype:
        # NOTE: without copy=True the result is x itself, so x[i] = v (which rebinds x) is seen
        # through it, as with numpy's asarray.
        return copied(x) if copy else x
    if copy is False:
        raise error(ValueError, "asarray", f"copy=False but {x.dtype.name} -> {dtype.name} copies")
    from .data_types import astype

    return astype(x, dtype)


def copied(x: Array, order: str = "K") -> Array:
    """A copy of x that no later write into anyone's memory changes (asarray and astype with
    copy=True). `order`: numpy's memory order of a copy made now (np.copy's "K", ndarray.copy's
    "C": a later sum adds in it); a pending x's value takes numpy's order of x (orders.py).

    Nodes are immutable, so a pending computed x is copied by sharing its node: its value will
    be written into fresh memory. A computed buffer, or views of one, may be memory a caller
    can still write into (li.asarray(numpy_array) shares it), so its values are copied now:
    a GPU's buffer (a torch tensor taken by DLPack) too, on its device, in its namespace.
    """
    node = x._node
    value = view_value(node)
    if value is not None:
        copy = np.array(value, copy=True, order=order)
        return Array(buffer_node(_readonly(copy), caller_source()))
    if node.op is Op.BUFFER and (device := get_device(node.arg.device)).namespace is not None:
        data = device.namespace().asarray(node.arg.data, copy=True)
        return Array(buffer_node(data, caller_source(), device.name))
    if node.shape:
        # NOTE: the copy's layout is numpy's copy(order=)'s (a later sum adds in it): a COPY
        # node, which the orders pass lays out so or drops where the value is laid out so
        return copy_node(x, order, caller_source())
    return Array(node)


def copy_node(x: Array, order, source: str) -> Array:
    """x copied in `order` when it is computed ("C", "F", "K", "A", or an axis order, slowest
    first): a lazy COPY node, whatever x is (`copied` copies a buffer's view now)."""
    node = x._node
    return Array(Node(Op.COPY, (node,), node.shape, node.dtype, order, source))


def view_value(node: Node) -> np.ndarray | None:
    """The value of `node` when it is a computed buffer or a chain of views of one (numpy
    views: nothing is computed); None when some node on the way still has to be computed."""
    chain = []
    while node.op.is_view:  # NOTE: a copy asked for is computed
        chain.append(node)
        (node,) = inputs_of(node)
    if node.op is not Op.BUFFER or get_device(node.arg.device).memory != "host":
        # NOTE: another memory's buffer (a dask array, one a GPU computed) is immutable: shared
        return None
    value = node.arg.data
    for step in reversed(chain):
        moved = apply_movement(step, value)
        # NOTE: None: a reshape numpy cannot view (the value is copied anyway)
        value = moved if moved is not None else np.reshape(value, step.shape)
    return value


def _to_numpy(obj, dtype, copy) -> np.ndarray:
    if copy is False:
        return _no_copy(obj, dtype)
    if isinstance(obj, (np.ndarray, np.generic)) or hasattr(obj, "__array__"):
        value = np.asarray(obj)
    elif hasattr(obj, "__dlpack__"):
        value = np.from_dlpack(obj)
    else:
        value = _from_python(obj, dtype)
    if dtype is not None and value.dtype != dtype:
        return value.astype(dtype)
    return value.copy() if copy else value


def _no_copy(obj, dtype) -> np.ndarray:
    try:
        value = (
            np.asarray(obj, copy=False) if not hasattr(obj, "__dlpack__") else np.from_dlpack(obj)
        )
    except (ValueError, TypeError, BufferError) as exc:
        raise error(
            ValueError, "asarray", f"copy=False but the input needs a copy ({exc})"
        ) from None
    if dtype is not None and value.dtype != dtype:
        raise error(ValueError, "asarray", f"copy=False but {value.dtype} -> {dtype} copies")
    return value


def _from_python(obj, dtype) -> np.ndarray:
    """Nested sequences and scalars: bool, int64, float64 or complex128, as the spec defaults.

    With a dtype, Python values convert straight to it (2**63 fits uint64, not int64)."""
    try:
        value = np.asarray(obj, dtype=dtype)
    except OverflowError:
        shown = "int64" if dtype is None else dtype.name
        raise error(OutOfRangeError, "asarray", f"a Python int does not fit in {shown}") from None
    except (TypeError, ValueError) as exc:
        raise _conversion_error(obj, dtype, exc) from None
    if dtype is not None:
        return value
    if value.dtype.kind in _PY_DEFAULTS:
        return value.astype(_PY_DEFAULTS[value.dtype.kind], copy=False)
    if value.dtype.kind == "c":
        return value.astype(_dtypes.DEFAULT_COMPLEX, copy=False)
    # numpy holds ints past int64 as uint64, or past uint64 as Python objects.
    if value.dtype.kind == "u" or (value.dtype.kind == "O" and _all_ints(value)):
        raise error(OutOfRangeError, "asarray", "a Python int does not fit in int64")
    raise error(TypeError, "asarray", f"cannot make an array from {_describe(obj)}")


def _conversion_error(obj, dtype, exc: Exception) -> Exception:
    """numpy's refusal, in our words: a ragged sequence is a ValueError, a wrong type a
    TypeError (numpy raises ValueError for both)."""
    if isinstance(exc, ValueError) and "inhomogeneous" in str(exc):
        return error(ValueError, "asarray", f"nested sequences of unequal lengths ({exc})")
    target = "an array" if dtype is None else f"a {dtype.name} array"
    return error(TypeError, "asarray", f"cannot convert {_describe(obj)} to {target} ({exc})")


def _describe(obj) -> str:
    text = repr(obj)
    return f"{type(obj).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


def _all_ints(value: np.ndarray) -> bool:
    return value.size > 0 and all(isinstance(v, int) for v in value.flat)


def operand(value, device=None, given=None) -> Array:
    """An ndarray (or numpy scalar) a call takes as an operand, as an Array of its values at
    the call, as numpy reads them (snapshots.py: a copy where it can still be written).
    `given`: what the caller converted into `value`, where it did; numpy's array of a list, a
    tuple or a scalar is new memory nobody else holds, taken as it is.
    `li.asarray(ndarray)` shares, as numpy.asarray does (docs/lazy-semantics.md)."""
    if type(value) is np.ndarray and device is None and given is None:
        made = _small_operand(value)
        if made is not None:
            return made
    if isinstance(value, np.ndarray) and not isinstance(given, _NEW_WHEN_CONVERTED):
        value = snapshot(value)
    return asarray(value, device=device)


def _small_operand(value: np.ndarray) -> Array | None:
    """operand()'s common case in one step: a small writable ndarray (`np.arange(k)`, a
    kernel, a row of zeros) copied now, as snapshot() copies it, and taken as asarray() takes
    its copy on the host device (~10k instructions of its layers); None for anything else."""
    if value.nbytes >= REUSE_MIN_BYTES or 0 in value.strides and value.size > 1:
        return None  # NOTE: snapshot's reuse of a large copy; a broadcast's compact copy
    if not value.flags.writeable or not _dtypes.is_supported(value.dtype):
        return None
    if current().device != "cpu":
        return None  # NOTE: placed() puts it where the options say
    return Array(buffer_node(_readonly(value.copy(order="K")), caller_source()))


_NEW_WHEN_CONVERTED = (list, tuple, builtins.bool, int, float, complex, np.generic)


def _readonly(value: np.ndarray) -> np.ndarray:
    view = value.view()
    view.flags.writeable = False
    return view


def from_dlpack(x, /, *, device=None, copy=None) -> Array:
    """An array sharing memory with a DLPack producer (or a copy when copy=True).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.from_dlpack.html"""
    check_device_arg("from_dlpack", device)
    if not hasattr(x, "__dlpack__"):
        raise error(TypeError, "from_dlpack", f"{type(x).__name__} has no __dlpack__")
    _check_copy("from_dlpack", copy)
    if isinstance(x, Array):
        found = copied(x) if copy else x  # NOTE: ours: where it lives, its export not needed
    elif (taken := adopted("from_dlpack", x)) is not None:  # NOTE: a GPU's stays there
        found = copied(taken) if copy else taken
    else:
        try:
            value = np.from_dlpack(x, copy=copy)
        except (BufferError, TypeError, ValueError) as exc:
            raise error(ValueError, "from_dlpack", f"the producer refused ({exc})") from None
        found = Array(buffer_node(_readonly(value), caller_source()))
    # Note (spec): without device=, on x's device (a host producer's: host memory)
    return found if device is None else placed("from_dlpack", found, device)


def full(shape, fill_value, dtype=None, *, device=None) -> Array:
    """An array of `shape` filled with `fill_value` (recorded, never allocated until needed).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.full.html"""
    return _fill("full", shape, fill_value, dtype, device)


def _fill(func: str, shape, value, dtype, device) -> Array:
    check_device_arg(func, device)
    shape = check_shape(func, shape)
    dtype = None if dtype is None else check_dtype_arg(func, dtype)
    if isinstance(value, Array) and value.ndim == 0:
        value = implicit_value(value, func, "fill_value").item()
    if not isinstance(value, (builtins.bool, int, float, complex)):
        raise error(
            TypeError, func, f"fill_value must be a Python scalar, got {type(value).__name__}"
        )
    dtype = _dtypes.scalar_dtype(value, None) if dtype is None else dtype
    _check_fits(func, value, dtype)
    check_size(func, shape, dtype.itemsize)
    return in_c_order(placed(func, record(Op.FULL, (), shape, dtype, value), device))


def in_c_order(array: Array) -> Array:
    """A lazy fill of two or more dims laid out as numpy's new array is: in C order, which
    decides the order numpy writes `zeros(n, m) + x.T` in (a later sum adds in it). A fill
    node has no memory order (a scalar operand's fill is one too: stride 0, no say in numpy's
    iterator), so the array is a copy in order "C" of it; the orders pass reads that order
    and then drops the copy (a fill is read the same in every order)."""
    node = array._node
    if node.op is not Op.FULL or len(node.shape) < 2:
        return array  # NOTE: a buffer already (made on a device), or one order only
    return copy_node(array, "C", node.source)


def _check_fits(func: str, value, dtype: np.dtype) -> None:
    if isinstance(value, complex) and dtype not in _dtypes.COMPLEX:
        raise error(TypeError, func, f"complex fill_value {value!r} with dtype {dtype.name}")
    if dtype in _dtypes.INTEGER:
        if isinstance(value, float):
            raise error(TypeError, func, f"float fill_value {value!r} with dtype {dtype.name}")
        if not _dtypes.in_range(int(value), dtype):
            raise error(OutOfRangeError, func, f"{value!r} is out of range for {dtype.name}")


def _default_float(dtype):
    return _dtypes.DEFAULT_FLOAT if dtype is None else dtype


def zeros(shape, dtype=None, *, device=None) -> Array:
    """An array of zeros. https://data-apis.org/array-api/latest/API_specification/generated/array_api.zeros.html"""
    return _fill("zeros", shape, 0, _default_float(dtype), device)


def ones(shape, dtype=None, *, device=None) -> Array:
    """An array of ones. https://data-apis.org/array-api/latest/API_specification/generated/array_api.ones.html"""
    return _fill("ones", shape, 1, _default_float(dtype), device)


def empty(shape, dtype=None, *, device=None) -> Array:
    """An uninitialized array (recorded as zeros: free until used).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.empty.html"""
    return _fill("empty", shape, 0, _default_float(dtype), device)


def _like(func: str, x, value, dtype, device) -> Array:
    """A fill of x's shape; value 0 and 1 are False and True for bool."""
    if not isinstance(x, Array):
        raise error(TypeError, func, f"x must be a lazyinfini array, got {type(x).__name__}")
    dtype = x.dtype if dtype is None else check_dtype_arg(func, dtype)
    if dtype == _dtypes.bool and type(value) is int and value in (0, 1):
        value = builtins.bool(value)
    if device is None:  # Note (spec): x's device (a GPU's array gives a GPU's array)
        device = device_arg(x)
    return _fill(func, x.shape, value, dtype, device)


def zeros_like(x, /, dtype=None, *, device=None) -> Array:
    """Zeros with x's shape. https://data-apis.org/array-api/latest/API_specification/generated/array_api.zeros_like.html"""
    return _like("zeros_like", x, 0, dtype, device)


def ones_like(x, /, dtype=None, *, device=None) -> Array:
    """Ones with x's shape. https://data-apis.org/array-api/latest/API_specification/generated/array_api.ones_like.html"""
    return _like("ones_like", x, 1, dtype, device)


def empty_like(x, /, dtype=None, *, device=None) -> Array:
    """Uninitialized with x's shape. https://data-apis.org/array-api/latest/API_specification/generated/array_api.empty_like.html"""
    return _like("empty_like", x, 0, dtype, device)


def full_like(x, /, fill_value, dtype=None, *, device=None) -> Array:
    """fill_value with x's shape. https://data-apis.org/array-api/latest/API_specification/generated/array_api.full_like.html"""
    return _like("full_like", x, fill_value, dtype, device)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None) -> Array:
    """Evenly spaced values in [start, stop). https://data-apis.org/array-api/latest/API_specification/generated/array_api.arange.html"""
    check_device_arg("arange", device)
    if stop is None:
        start, stop = 0, start
    for name, v in (("start", start), ("stop", stop), ("step", step)):
        if isinstance(v, builtins.bool) or not isinstance(v, (int, float)):
            raise error(TypeError, "arange", f"{name} must be a real number, got {v!r}")
        if not math.isfinite(v):
            raise error(ValueError, "arange", f"{name} must be finite, got {v!r}")
    if step == 0:
        raise error(ValueError, "arange", "step must not be 0")
    all_int = all(isinstance(v, int) for v in (start, stop, step))
    if dtype is None:
        dtype = _dtypes.DEFAULT_INT if all_int else _dtypes.DEFAULT_FLOAT
    dtype = check_dtype_arg("arange", dtype)
    if dtype == _dtypes.bool or dtype in _dtypes.COMPLEX:
        raise error(TypeError, "arange", f"dtype {dtype.name} is not a real numeric dtype")
    length = _range_length(start, stop, step, all_int)
    check_size("arange", (length,), dtype.itemsize)
    if length <= 1:
        step = 1  # NOTE: unused, and a huge step would not fit the dtype the range is made in
    if dtype in _dtypes.INTEGER and length:
        for end in (start, start + (length - 1) * step):
            if not _dtypes.in_range(math.floor(end), dtype):
                raise error(OutOfRangeError, "arange", f"value {end} out of range for {dtype.name}")
    return placed("arange", record(Op.ARANGE, (), (length,), dtype, (start, step)), device)


def _range_length(start, stop, step, exact: builtins.bool) -> int:
    """How many values arange yields: ceil((stop - start) / step), at least 0."""
    if exact:
        return builtins.max(0, -((start - stop) // step))  # NOTE: ints of any size, exactly
    steps = (stop - start) / step
    if not math.isfinite(steps):
        raise error(OutOfRangeError, "arange", f"{start} to {stop} by {step} is too many values")
    return builtins.max(0, math.ceil(steps))


def eye(n_rows, n_cols=None, /, k=0, dtype=None, *, device=None) -> Array:
    """Ones on the k-th diagonal, zeros elsewhere. https://data-apis.org/array-api/latest/API_specification/generated/array_api.eye.html"""
    check_device_arg("eye", device)
    rows = check_int("eye", "n_rows", n_rows, minimum=0)
    cols = rows if n_cols is None else check_int("eye", "n_cols", n_cols, minimum=0)
    dtype = _dtypes.DEFAULT_FLOAT if dtype is None else check_dtype_arg("eye", dtype)
    check_size("eye", (rows, cols), dtype.itemsize)
    array = record(Op.EYE, (), (rows, cols), dtype, (check_int("eye", "k", k),))
    return placed("eye", array, device)


def linspace(start, stop, /, num, endpoint=True, *, dtype=None, device=None) -> Array:
    """num evenly spaced values from start to stop. https://data-apis.org/array-api/latest/API_specification/generated/array_api.linspace.html"""
    check_device_arg("linspace", device)
    for name, v in (("start", start), ("stop", stop)):
        if isinstance(v, builtins.bool) or not isinstance(v, (int, float, complex)):
            raise error(TypeError, "linspace", f"{name} must be a Python number, got {v!r}")
    num = check_int("linspace", "num", num, minimum=0)
    endpoint = check_flag("linspace", "endpoint", endpoint)
    is_complex = isinstance(start, complex) or isinstance(stop, complex)
    start, stop = _as_float("linspace", start), _as_float("linspace", stop)
    if dtype is None:
        dtype = _dtypes.DEFAULT_COMPLEX if is_complex else _dtypes.DEFAULT_FLOAT
    dtype = check_dtype_arg("linspace", dtype)
    if dtype == _dtypes.bool or (is_complex and dtype not in _dtypes.COMPLEX):
        raise error(
            TypeError, "linspace", f"cannot make {dtype.name} values from {start!r}, {stop!r}"
        )
    check_size("linspace", (num,), dtype.itemsize)
    # Note (spec): integer dtypes are implementation-defined; we round down, as numpy does.
    array = record(Op.LINSPACE, (), (num,), dtype, (start, stop, endpoint))
    return placed("linspace", array, device)


def _as_float(func: str, value):
    """An int endpoint as a float (numpy's linspace cannot take ints past int64)."""
    if not isinstance(value, int):
        return value
    try:
        return float(value)
    except OverflowError:
        raise error(OutOfRangeError, func, f"{value} is too large for a float") from None


def meshgrid(*arrays, indexing="xy") -> tuple[Array, ...]:
    """Coordinate grids from 1-d arrays, as broadcast views. https://data-apis.org/array-api/latest/API_specification/generated/array_api.meshgrid.html"""
    if indexing not in ("xy", "ij"):
        raise error(ValueError, "meshgrid", f"indexing must be 'xy' or 'ij', got {indexing!r}")
    for i, a in enumerate(arrays):
        if not isinstance(a, Array):
            raise error(TypeError, "meshgrid", f"arrays[{i}] is a {type(a).__name__}, not an array")
        if a.ndim != 1:
            raise error(ValueError, "meshgrid", f"arrays[{i}] is {a.ndim}-d; inputs must be 1-d")
    if len({a.dtype for a in arrays}) > 1:
        shown = ", ".join(a.dtype.name for a in arrays)
        raise error(TypeError, "meshgrid", f"inputs must share one dtype, got {shown}")
    axes = list(range(len(arrays)))
    if indexing == "xy" and len(arrays) >= 2:
        axes[0], axes[1] = 1, 0  # Note (spec): Cartesian indexing swaps the first two axes
    shape = [0] * len(arrays)
    for a, axis in zip(arrays, axes, strict=True):
        shape[axis] = a.shape[0]
    source = caller_source()
    return tuple(_grid(a, axis, tuple(shape), source) for a, axis in zip(arrays, axes, strict=True))


def _grid(a: Array, axis: int, shape: tuple[int, ...], source: str) -> Array:
    """1-d `a` laid along `axis` of `shape`: a RESHAPE then a BROADCAST (no copy)."""
    if len(shape) == 1:
        return Array(a._node)
    lifted = tuple(n if i == axis else 1 for i, n in enumerate(shape))
    node = Node(Op.RESHAPE, (a._node,), lifted, a.dtype, None, source)
    if lifted != shape:
        node = Node(Op.BROADCAST, (node,), shape, a.dtype, None, source)
    return Array(node)


def _triangle(func: str, op: Op, x, k) -> Array:
    if not isinstance(x, Array):
        raise error(TypeError, func, f"x must be a lazyinfini array, got {type(x).__name__}")
    if x.ndim < 2:
        raise error(ValueError, func, f"x must be at least 2-d, got {x.ndim}-d")
    rows, cols = x.shape[-2:]
    # NOTE: an offset past the matrix keeps all or nothing; clamped, it fits numpy's C long.
    k = builtins.min(builtins.max(check_int(func, "k", k), -rows), cols)
    return record(op, (x._node,), x.shape, x.dtype, (("k", k),))


def tril(x, /, k=0) -> Array:
    """x with the elements above the k-th diagonal zeroed. https://data-apis.org/array-api/latest/API_specification/generated/array_api.tril.html"""
    return _triangle("tril", Op.TRIL, x, k)


def triu(x, /, k=0) -> Array:
    """x with the elements below the k-th diagonal zeroed. https://data-apis.org/array-api/latest/API_specification/generated/array_api.triu.html"""
    return _triangle("triu", Op.TRIU, x, k)
