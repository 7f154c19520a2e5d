"""numpy's ndarray methods and attributes on li.Array, so numpy scripts run unchanged (issue 11).

Each method takes numpy's arguments (names, defaults, positions: x.sum(0) is x.sum(axis=0)) and
records the namespace functions computing it, so its result stays lazy; item() computes x, and
nonzero() computes it as li.nonzero does. out= is refused: an Array is a value, nothing writes
into one. Errors name the method, then the namespace function that raised ("cumsum:
cumulative_sum: axis 2 is out of bounds ..."). `Array` (in _array.py) inherits NumpyMethods.
"""

from __future__ import annotations

import builtins
import functools

import numpy as np

from . import _dtypes
from ._api.checks import check_int, error, is_int, normalize_axis


def _li():
    """The namespace, at the call: _array imports this module before the functions exist."""
    import lazyinfini

    return lazyinfini


def named(name: str):
    """Decorate a method (or a numpy alias) so that its TypeError, ValueError and IndexError
    start with `name`; a namespace function's message keeps that function's name after it."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except (TypeError, ValueError, IndexError) as exc:
                raise _renamed(exc, name) from None

        return wrapper

    return decorate


def _renamed(exc: Exception, name: str) -> Exception:
    message = str(exc)
    if message.startswith(f"{name}: "):
        return exc
    try:
        renamed = type(exc)(f"{name}: {message}")
    except Exception:  # noqa: BLE001 (an exception type that takes other arguments stays as is)
        return exc
    return renamed.with_traceback(exc.__traceback__)


# -- numpy's arguments, checked ------------------------------------------------------------------
def _no_out(func: str, out) -> None:
    if out is not None:
        raise error(TypeError, func, "out= is not supported: an Array is a value, not memory")


def _dtype(func: str, dtype) -> np.dtype | None:
    """numpy's dtype-likes ('float32', np.float32, li.float32) as a lazyinfini dtype."""
    if dtype is None:
        return None
    try:
        value = np.dtype(dtype)
    except (TypeError, ValueError):
        raise error(TypeError, func, f"{dtype!r} is not a dtype") from None
    if not _dtypes.is_supported(value):
        raise error(TypeError, func, f"numpy dtype {value} has no lazyinfini dtype")
    return value


def _check_order(func: str, order, allowed: str) -> None:
    # Note (numpy): an Array has no memory layout to follow: it reads in C order, so 'A' and
    # 'K' (numpy's "as laid out") mean 'C' here; 'F' would ask for a transposed copy.
    if not (isinstance(order, str) and len(order) == 1 and order in allowed):
        shown = ", ".join(repr(o) for o in allowed)
        raise error(ValueError, func, f"order={order!r} is not supported (only {shown})")


def _floating_dtype(func: str, dtype) -> np.dtype | None:
    """mean/std/var's dtype=: the floating dtype numpy would compute in."""
    dtype = _dtype(func, dtype)
    if dtype is not None and dtype not in _dtypes.CATEGORIES["floating"]:
        raise error(TypeError, func, f"dtype {dtype.name} is not a floating dtype")
    return dtype


def _ddof(func: str, ddof):
    """numpy's ddof (a numpy integer too) as the standard's correction."""
    return check_int(func, "ddof", ddof) if is_int(ddof) else ddof


_SORT_KINDS = ("quicksort", "mergesort", "heapsort", "stable")


def _stable(func: str, kind, order, stable) -> bool:
    """sort/argsort's kind=, order= and stable= as the standard's `stable` flag."""
    if kind is not None and not (isinstance(kind, str) and kind in _SORT_KINDS):
        raise error(ValueError, func, f"kind={kind!r} is not one of {', '.join(_SORT_KINDS)}")
    if order is not None:
        raise error(ValueError, func, "order= sorts structured arrays, which lazyinfini lacks")
    if stable is not None and not isinstance(stable, (bool, np.bool_)):
        raise error(TypeError, func, f"stable must be a bool or None, got {stable!r}")
    # Note (numpy): every kind may keep ties in order, so sorts are stable unless stable=False.
    return stable is not False


def _as_array(value):
    """numpy's array-likes (lists, tuples, ndarrays) as Arrays; anything else as it is."""
    li = _li()
    if isinstance(value, (list, tuple, np.ndarray)):
        return li.asarray(value)
    return value


def _power_of_ten(n: int) -> float:
    """10.0**n as numpy's round computes it (exact below 1e9, then multiplied up)."""
    if n < 9:
        return 10.0**n
    scale = 1e9
    for _ in range(n - 9):
        scale *= 10.0
    return scale


def _reduction(name: str, doc: str):
    """The method `x.name(axis=None, out=None, keepdims=False)` calling li.`name`."""

    @named(name)
    def method(self, axis=None, out=None, keepdims=False):
        _no_out(name, out)
        return getattr(_li(), name)(self, axis=axis, keepdims=keepdims)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = doc
    return method


class NumpyMethods:
    """numpy's ndarray methods and attributes, each recorded through the namespace."""

    __slots__ = ()

    # -- reductions --------------------------------------------------------------------------
    @named("sum")
    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        """numpy's ndarray.sum (li.sum; bools count in the default integer)."""
        _no_out("sum", out)
        return _li().sum(self, axis=axis, dtype=_dtype("sum", dtype), keepdims=keepdims)

    @named("prod")
    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        """numpy's ndarray.prod (li.prod)."""
        _no_out("prod", out)
        return _li().prod(self, axis=axis, dtype=_dtype("prod", dtype), keepdims=keepdims)

    @named("mean")
    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        """numpy's ndarray.mean (li.mean; integers and bools average in float64)."""
        _no_out("mean", out)
        x = self._computed_in(_floating_dtype("mean", dtype))
        return _li().mean(x, axis=axis, keepdims=keepdims)

    @named("std")
    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """numpy's ndarray.std: li.std with correction=ddof."""
        _no_out("std", out)
        x = self._computed_in(_floating_dtype("std", dtype))
        return _li().std(x, axis=axis, correction=_ddof("std", ddof), keepdims=keepdims)

    @named("var")
    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """numpy's ndarray.var: li.var with correction=ddof."""
        _no_out("var", out)
        x = self._computed_in(_floating_dtype("var", dtype))
        return _li().var(x, axis=axis, correction=_ddof("var", ddof), keepdims=keepdims)

    def _computed_in(self, dtype):
        return self if dtype is None else _li().astype(self, dtype, copy=False)

    min = _reduction("min", "numpy's ndarray.min (li.min).")
    max = _reduction("max", "numpy's ndarray.max (li.max).")
    any = _reduction("any", "numpy's ndarray.any (li.any).")
    all = _reduction("all", "numpy's ndarray.all (li.all).")
    argmin = _reduction(
        "argmin", "numpy's ndarray.argmin (li.argmin; axis=None indexes the flattened array)."
    )
    argmax = _reduction(
        "argmax", "numpy's ndarray.argmax (li.argmax; axis=None indexes the flattened array)."
    )

    @named("cumsum")
    def cumsum(self, axis=None, dtype=None, out=None):
        """numpy's ndarray.cumsum: li.cumulative_sum (axis=None: of the flattened array)."""
        _no_out("cumsum", out)
        return self._cumulative(_li().cumulative_sum, axis, _dtype("cumsum", dtype))

    @named("cumprod")
    def cumprod(self, axis=None, dtype=None, out=None):
        """numpy's ndarray.cumprod: li.cumulative_prod (axis=None: of the flattened array)."""
        _no_out("cumprod", out)
        return self._cumulative(_li().cumulative_prod, axis, _dtype("cumprod", dtype))

    def _cumulative(self, function, axis, dtype):
        x = self if axis is not None else _li().reshape(self, (-1,))
        return function(x, axis=0 if axis is None else axis, dtype=dtype)

    # -- shape and type ----------------------------------------------------------------------
    @named("reshape")
    def reshape(self, *shape, order="C", copy=None):
        """numpy's ndarray.reshape: x.reshape(2, 3) or x.reshape((2, 3)) (li.reshape)."""
        _check_order("reshape", order, "CA")
        if not shape:
            raise error(TypeError, "reshape", "a shape is required")
        return _li().reshape(self, shape[0] if len(shape) == 1 else shape, copy=copy)

    @named("ravel")
    def ravel(self, order="C"):
        """numpy's ndarray.ravel: x as 1-d (a view where it can be)."""
        _check_order("ravel", order, "CAK")
        return _li().reshape(self, (-1,))

    @named("flatten")
    def flatten(self, order="C"):
        """numpy's ndarray.flatten: a copy of x as 1-d."""
        _check_order("flatten", order, "CAK")
        li = _li()
        return li.asarray(li.reshape(self, (-1,)), copy=True)

    @named("copy")
    def copy(self, order="C"):
        """numpy's ndarray.copy: a new Array no later write into shared memory changes."""
        _check_order("copy", order, "CAK")
        return _li().asarray(self, copy=True)

    @named("transpose")
    def transpose(self, *axes):
        """numpy's ndarray.transpose: x.transpose() reverses the axes; x.transpose(1, 0) and
        x.transpose((1, 0)) permute them (li.permute_dims)."""
        if not axes or axes == (None,):
            axes = tuple(reversed(range(self.ndim)))
        elif len(axes) == 1 and not is_int(axes[0]):
            (axes,) = axes
        return _li().permute_dims(self, axes)

    @named("squeeze")
    def squeeze(self, axis=None):
        """numpy's ndarray.squeeze: without the length-1 axes given (all of them when None)."""
        if axis is None:
            axis = tuple(i for i, n in enumerate(self.shape) if n == 1)
        return _li().squeeze(self, axis)

    @named("astype")
    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        """numpy's ndarray.astype: dtype may be 'float32' or np.float32 too (li.astype)."""
        dtype = _dtype("astype", dtype)
        _check_order("astype", order, "CAK")
        if casting != "unsafe" and not np.can_cast(self.dtype, dtype, casting=casting):
            shown = f"{self.dtype.name} to {dtype.name}"
            raise error(TypeError, "astype", f"cannot cast {shown} with casting={casting!r}")
        return _li().astype(self, dtype, copy=copy)

    # -- element-wise ------------------------------------------------------------------------
    @named("clip")
    def clip(self, min=None, max=None, out=None):
        """numpy's ndarray.clip: the bounds promote x as numpy's ufunc does (x.clip(0.5) of
        integers is float64), then li.clip."""
        _no_out("clip", out)
        li = _li()
        bounds = [self._clip_bound(b) for b in (min, max)]
        dtype = li.result_type(self, *(_promotable(b) for b in bounds if b is not None))
        x = li.astype(self, dtype, copy=False)
        cast = [li.astype(b, dtype, copy=False) if isinstance(b, li.Array) else b for b in bounds]
        return li.clip(x, *cast)

    def _clip_bound(self, bound):
        bound = _as_array(bound)
        if isinstance(bound, int) and not isinstance(bound, bool) and self.dtype in _dtypes.INTEGER:
            # Note (numpy): numpy 2's clip takes a Python int past x's range (arithmetic would
            # refuse it) as a bound that clips nothing; clamped into the range, it does that.
            info = np.iinfo(self.dtype)
            return builtins.min(builtins.max(bound, int(info.min)), int(info.max))
        if isinstance(bound, (np.ndarray, np.generic)):
            return _li().asarray(bound)
        return bound

    @named("round")
    def round(self, decimals=0, out=None):
        """numpy's ndarray.round: li.round, and for decimals != 0 numpy's composition
        (x * 10**decimals, rounded, / 10**decimals; integers in float64, cast back)."""
        _no_out("round", out)
        decimals = check_int("round", "decimals", decimals)
        li = _li()
        integer = self.dtype in _dtypes.INTEGER
        if decimals == 0 or (integer and decimals > 0):
            return li.round(self) if not integer else li.asarray(self, copy=True)
        scale = _power_of_ten(builtins.abs(decimals))
        # NOTE: numpy rounds a complex array's two parts apart; the complex division here can
        # differ from that in the last bit.
        x = li.astype(self, _dtypes.DEFAULT_FLOAT) if integer else self
        x = li.round(x * scale) / scale if decimals > 0 else li.round(x / scale) * scale
        return li.astype(x, self.dtype) if integer else x

    @named("conj")
    def conj(self):
        """numpy's ndarray.conj (li.conj)."""
        return _li().conj(self)

    conjugate = named("conjugate")(conj.__wrapped__)

    @named("dot")
    def dot(self, b, out=None):
        """numpy's ndarray.dot: li.matmul up to 2-d; N-d contracts x's last axis with b's
        second-to-last (li.tensordot); a 0-d operand multiplies."""
        _no_out("dot", out)
        li = _li()
        b = _as_array(b)
        if not isinstance(b, li.Array) or self.ndim == 0 or b.ndim == 0:
            return li.multiply(self, b)
        if self.ndim <= 2 and b.ndim <= 2:
            return li.matmul(self, b)
        # Note (numpy): N-d dot keeps every other axis of both (no batching, unlike matmul).
        other = 0 if b.ndim == 1 else b.ndim - 2
        return li.tensordot(self, b, axes=((self.ndim - 1,), (other,)))

    # -- indexing, sorting, searching --------------------------------------------------------
    @named("item")
    def item(self, *args):
        """numpy's ndarray.item: one element as a Python scalar; computes x (an implicit
        materialization, as float(x) is)."""
        from ._array import implicit_value

        # numpy's own index rules, on a stand-in of x's shape, before anything is computed.
        np.broadcast_to(np.False_, self.shape).item(*args)
        return implicit_value(self, "item").item(*args)

    @named("nonzero")
    def nonzero(self):
        """numpy's ndarray.nonzero: one index array per axis; computes x, as li.nonzero does."""
        return _li().nonzero(self)

    @named("sort")
    def sort(self, axis=-1, kind=None, order=None, *, stable=None):
        """numpy's ndarray.sort: sorts in place and returns None; this Array is rebound to
        li.sort's result, as x[i] = v rebinds it (its views see it, as numpy's)."""
        result = _li().sort(self, axis=axis, stable=_stable("sort", kind, order, stable))
        self._write(result._n, "sort")  # through its views, as numpy's in-place sort
        return None

    @named("argsort")
    def argsort(self, axis=-1, kind=None, order=None, *, stable=None):
        """numpy's ndarray.argsort (li.argsort; axis=None sorts the flattened array)."""
        stable = _stable("argsort", kind, order, stable)
        li = _li()
        x = self if axis is not None else li.reshape(self, (-1,))
        return li.argsort(x, axis=-1 if axis is None else axis, stable=stable)

    @named("repeat")
    def repeat(self, repeats, axis=None):
        """numpy's ndarray.repeat (li.repeat; repeats may be a list)."""
        return _li().repeat(self, _as_array(repeats), axis=axis)

    @named("take")
    def take(self, indices, axis=None, out=None, mode="raise"):
        """numpy's ndarray.take: indices of any shape (an int drops the axis), along the
        flattened array when axis is None; mode 'wrap' and 'clip' move them into range."""
        _no_out("take", out)
        li = _li()
        x = self if axis is not None else li.reshape(self, (-1,))
        axis = normalize_axis("take", 0 if axis is None else axis, x.ndim)
        indices = li.asarray(indices) if not isinstance(indices, li.Array) else indices
        indices = _in_range(indices, x.shape[axis], axis, mode)
        taken = li.take(x, li.reshape(indices, (-1,)), axis=axis)
        shape = x.shape[:axis] + indices.shape + x.shape[axis + 1 :]
        return li.reshape(taken, shape)

    @named("diagonal")
    def diagonal(self, offset=0, axis1=0, axis2=1):
        """numpy's ndarray.diagonal: the diagonal of the (axis1, axis2) planes, as the last axis
        (li.linalg.diagonal over x with those axes moved last). Writable, as li.linalg.diagonal."""
        li = _li()
        planes = li.moveaxis(self, (axis1, axis2), (-2, -1))
        return li.linalg.diagonal(planes, offset=offset)

    # -- attributes --------------------------------------------------------------------------
    @property
    def flat(self):
        """numpy's ndarray.flat: x as 1-d in C order, to index and to write into
        (`x.flat[::n + 1] += 1` writes x's diagonal, through x's views too)."""
        return FlatIterator(self)

    @property
    def real(self):
        """numpy's ndarray.real: li.real of a complex array; a real array is its own."""
        return _li().real(self) if self.dtype in _dtypes.COMPLEX else self

    @property
    def imag(self):
        """numpy's ndarray.imag: li.imag of a complex array; zeros of x's dtype otherwise."""
        li = _li()
        return li.imag(self) if self.dtype in _dtypes.COMPLEX else li.zeros_like(self)

    @property
    def itemsize(self) -> int:
        """numpy's ndarray.itemsize: bytes per element."""
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        """numpy's ndarray.nbytes: bytes of all elements (what computing x allocates)."""
        return self.size * self.dtype.itemsize


class FlatIterator:
    """What `x.flat` gives: indexing reads x as 1-d; an assignment writes x (and its views)."""

    __slots__ = ("_base",)

    def __init__(self, base):
        self._base = base

    def _flat(self):
        return _li().reshape(self._base, (-1,))

    def __getitem__(self, key):
        return self._flat()[key]

    def __setitem__(self, key, value) -> None:
        li = _li()
        # NOTE: written into a copy, then into x whole: x's own views see it whether or not
        # x's 1-d form is a view of x (a transposed x's is not).
        flat = li.reshape(li.asarray(self._base, copy=True), (-1,))
        flat[key] = value
        self._base[...] = li.reshape(flat, self._base.shape)

    def __iter__(self):
        return iter(self._flat())

    def __len__(self) -> int:
        return self._base.size


def _promotable(bound):
    """A bound as li.result_type takes it: an Array's dtype; a Python scalar stays weak."""
    return bound.dtype if isinstance(bound, _li().Array) else bound


_TAKE_MODES = ("raise", "wrap", "clip")


def _in_range(indices, size: int, axis: int, mode):
    """take's indices after numpy's mode: 'raise' checks them, 'wrap' and 'clip' move them."""
    li = _li()
    if not (isinstance(mode, str) and mode in _TAKE_MODES):
        raise error(ValueError, "take", f"mode={mode!r} is not one of {', '.join(_TAKE_MODES)}")
    if indices.dtype not in _dtypes.INTEGER:
        return indices  # li.take refuses them
    if mode == "raise":
        from ._api.indexing import check_bounds

        # NOTE: here, before take's reshape hides whether the values are known already.
        check_bounds("take", indices, size, axis)
        return indices
    if size == 0 and indices.size:
        raise error(IndexError, "take", "cannot take from an empty axis")
    if mode == "wrap":
        return li.remainder(indices, size)
    return li.clip(indices, 0, size - 1)


# numpy's ndarray attributes Array lacks, with the way to do each here.
NDARRAY_HINTS = {
    "ptp": "use li.max(x, axis=...) - li.min(x, axis=...)",
    "cumproduct": "use x.cumprod() or li.cumulative_prod(x, axis=...)",
    "trace": "use li.linalg.trace(x)",
    "diagonal": "use li.linalg.diagonal(x)",
    "swapaxes": "use li.moveaxis(x, source, destination) or li.permute_dims(x, axes)",
    "fill": "an Array is a value: use li.full_like(x, value)",
    "put": "use x[indices] = values",
    "itemset": "use x[index] = value",
    "resize": "use li.reshape(x, shape) (li.tile for a larger size)",
    "searchsorted": "use li.searchsorted(x, v)",
    "compress": "use x[mask] or li.take(x, indices, axis=...)",
    "choose": "use li.where(condition, x1, x2) or li.take_along_axis(x, indices)",
    "partition": "use li.sort(x, axis=...)",
    "argpartition": "use li.argsort(x, axis=...)",
    "view": "use li.astype(x, dtype) (a cast: Arrays have no reinterpreting views)",
    "flat": "use x.ravel() or li.reshape(x, (-1,))",
    "tobytes": "use np.asarray(x).tobytes() (computes x)",
}


class _Missing:
    """A name numpy's ndarray has and Array lacks: reading it raises the AttributeError that
    says the way to do it here. A class attribute per name, not __getattr__: with __getattr__,
    every failed lookup runs Python and raises twice, and np.asarray(x) looks up two names
    Array lacks (__array_struct__, __array_interface__) at every conversion (~1.2 us)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __get__(self, instance, owner=None):
        raise AttributeError(missing_attribute(self.name), name=self.name)


def add_hints(cls) -> None:
    """Give `cls` (Array) a _Missing for each public ndarray name and each hinted name it
    lacks."""
    names = {n for n in dir(np.ndarray) if not n.startswith("_")} | set(NDARRAY_HINTS)
    for name in sorted(names):
        if not hasattr(cls, name):
            setattr(cls, name, _Missing(name))


def missing_attribute(name: str) -> str:
    """The message for an attribute Array lacks, with numpy's way to it when there is one."""
    message = f"'Array' object has no attribute {name!r}"
    hint = NDARRAY_HINTS.get(name)
    if hint is not None:
        return f"{message}; {hint}"
    if not name.startswith("_") and hasattr(np.ndarray, name):
        return f"{message} (numpy's ndarray has it); use np.asarray(x).{name} (computes x)"
    return message
