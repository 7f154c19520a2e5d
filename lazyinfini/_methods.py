"""numpy's ndarray methods and attributes on li.Array, so numpy scripts run unchanged (issue 11).

A method that is a numpy function (`x.clip(0, 1)` is `np.clip(x, 0, 1)`, as in numpy) is that
function, run as numpy's function protocol runs it (`_numpy_functions.call`): its one lazy twin
in `_numpy_twins`, or numpy's own on computed values where the twin cannot record the call
(warned once, counted), so `x.name(...)` and `np.name(x, ...)` agree by construction. The rest
(astype, item, flatten, flat, ...) are written here. Errors name the method, then the function
that raised ("cumsum: cumulative_sum: axis 2 is out of bounds ..."). `Array` (in _array.py)
inherits NumpyMethods.
"""

from __future__ import annotations

import functools

import numpy as np

from . import _dtypes
from ._api.checks import error, is_int


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


def _laid_out(x, cast, order: str):
    """`cast` (x cast by np.astype: in x's memory order, "K") in memory `order` ("C", "F", or
    "A": F where x is Fortran-contiguous), as numpy's astype writes it: a later sum adds in
    that order. A copy where the order differs from x's."""
    from ._api.creation import copy_node
    from ._graph import caller_source
    from ._numpy_twins.layout import layout_of, read_backwards

    layout = layout_of(x)
    if order == "A":
        order = "F" if layout.fortran else "C"
    axes = tuple(range(x.ndim))
    if layout.axes == (axes if order == "C" else axes[::-1]) and not read_backwards(x):
        return cast
    return copy_node(cast, order, caller_source())


def _numpy(func, args: tuple, kwargs: dict):
    """numpy's `func(*args, **kwargs)` on Arrays, as numpy's function protocol runs it."""
    global _call
    if _call is None:
        from ._numpy_functions import call  # NOTE: at first use: it imports the namespace

        _call = call
    return _call(func, args, kwargs)


_call = None


def numpy_method(func):
    """The ndarray method that numpy's function `func` is: `x.name(*args, **kwargs)` is
    `func(x, *args, **kwargs)`, erring under the method's name."""
    name = func.__name__

    def method(self, *args, **kwargs):
        # NOTE: named()'s renaming written inline: a frame less on every x.sum(), x.mean()
        try:
            return (_call or _numpy)(func, (self, *args), kwargs)
        except (TypeError, ValueError, IndexError) as exc:
            raise _renamed(exc, name) from None

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"numpy's ndarray.{name}: np.{name}(x, ...), recorded by its lazy twin."
    return method


_NUMPY_ASTYPE = getattr(np, "astype", None)


# -- numpy's arguments, checked ------------------------------------------------------------------
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
    if not (isinstance(order, str) and len(order) == 1 and order in allowed):
        shown = ", ".join(repr(o) for o in allowed)
        raise error(ValueError, func, f"order={order!r} is not supported (only {shown})")


class NumpyMethods:
    """numpy's ndarray methods and attributes, each recorded through the namespace."""

    __slots__ = ()

    # -- numpy's functions as methods: x.name(...) is np.name(x, ...) ------------------------
    sum = numpy_method(np.sum)
    prod = numpy_method(np.prod)
    mean = numpy_method(np.mean)
    std = numpy_method(np.std)
    var = numpy_method(np.var)
    min = numpy_method(np.min)
    max = numpy_method(np.max)
    any = numpy_method(np.any)
    all = numpy_method(np.all)
    argmin = numpy_method(np.argmin)
    argmax = numpy_method(np.argmax)
    cumsum = numpy_method(np.cumsum)
    cumprod = numpy_method(np.cumprod)
    trace = numpy_method(np.trace)
    ravel = numpy_method(np.ravel)

    def __format__(self, spec: str) -> str:
        """numpy's: a 0-d array formats as its scalar (`f"{loss:.4f}"` computes loss, as
        float(loss) does); an empty spec is str(x); an n-d array takes no other spec."""
        if self.ndim == 0 and spec:
            from ._array import implicit_value

            return format(implicit_value(self, "__format__")[()], spec)
        if spec:
            raise TypeError("unsupported format string passed to Array.__format__")
        return str(self)

    def __round__(self, ndigits=None):
        """round() of a 0-d array, as of the scalar numpy holds there (x[i], x.sum()):
        round(s, 2) is np.round(s, 2), lazy; round(s) computes s and gives a Python int.
        numpy's n-d arrays take no round() either."""
        if self.ndim:
            raise TypeError("round() of an n-d array: use np.round(x, decimals)")
        if ndigits is None:
            from ._array import implicit_value

            return round(implicit_value(self, "__round__")[()])
        return _numpy(np.round, (self, ndigits), {})

    def __contains__(self, value) -> bool:
        """numpy's `value in x`: (x == value).any(), computed."""
        return bool(_li().any(_li().equal(self, value)))

    def copy(self, order="C"):
        """numpy's ndarray.copy: C order by default (np.copy's is "K")."""
        return _numpy(np.copy, (self,), {"order": order})

    squeeze = numpy_method(np.squeeze)
    swapaxes = numpy_method(np.swapaxes)
    round = numpy_method(np.round)
    dot = numpy_method(np.dot)
    nonzero = numpy_method(np.nonzero)
    argsort = numpy_method(np.argsort)
    searchsorted = numpy_method(np.searchsorted)
    repeat = numpy_method(np.repeat)
    take = numpy_method(np.take)
    diagonal = numpy_method(np.diagonal)
    choose = numpy_method(np.choose)
    argpartition = numpy_method(np.argpartition)

    @named("compress")
    def compress(self, condition, axis=None, out=None):
        """numpy's ndarray.compress: np.compress(condition, x, axis)."""
        return _numpy(np.compress, (condition, self, axis, out), {})

    @named("put")
    def put(self, indices, values, mode="raise") -> None:
        """numpy's ndarray.put: np.put(x, indices, values) writes x (and its views) in place."""
        _numpy(np.put, (self, indices, values, mode), {})

    @named("partition")
    def partition(self, kth, axis=-1, kind="introselect", order=None) -> None:
        """numpy's ndarray.partition: in place, as sort; x (and its views) rebound to
        np.partition's result."""
        self._write(_numpy(np.partition, (self, kth, axis, kind, order), {})._n, "partition")

    @named("view")
    def view(self, dtype=None, type=None):
        """numpy's ndarray.view() without a dtype: x[...], a view of the same memory."""
        if dtype is not None or type is not None:
            raise error(TypeError, "view", f"x.view(dtype): {_REINTERPRETING}")
        return self[...]

    @named("tobytes")
    def tobytes(self, order="C") -> bytes:
        """numpy's ndarray.tobytes: the computed value's bytes (as tolist() reads it)."""
        return np.asarray(self).tobytes(order)

    @named("clip")
    def clip(self, min=None, max=None, out=None, **kwargs):
        """numpy's ndarray.clip: np.clip(x, min, max), recorded by its lazy twin."""
        args = (self, min, max) if out is None else (self, min, max, out)
        return _numpy(np.clip, args, kwargs)

    @named("reshape")
    def reshape(self, *shape, order="C", copy=None):
        """numpy's ndarray.reshape: x.reshape(2, 3) and x.reshape((2, 3)) are
        np.reshape(x, (2, 3))."""
        if not shape:
            raise error(TypeError, "reshape", "a shape is required")
        shape = shape[0] if len(shape) == 1 else shape
        return _numpy(np.reshape, (self, shape), {"order": order, "copy": copy})

    @named("transpose")
    def transpose(self, *axes):
        """numpy's ndarray.transpose: x.transpose() reverses the axes; x.transpose(1, 0) and
        x.transpose((1, 0)) permute them (np.transpose)."""
        if not axes or axes == (None,):
            axes = None
        elif len(axes) == 1 and not is_int(axes[0]):
            (axes,) = axes
        return _numpy(np.transpose, (self, axes), {})

    @named("sort")
    def sort(self, axis=-1, kind=None, order=None, *, stable=None):
        """numpy's ndarray.sort: sorts in place and returns None; this Array is rebound to
        np.sort's result, as x[i] = v rebinds it (its views see it, as numpy's)."""
        if axis is None:
            raise error(TypeError, "sort", "axis must be an int (np.sort(x, axis=None) flattens)")
        kwargs = {} if stable is None else {"stable": stable}
        result = _numpy(np.sort, (self, axis, kind, order), kwargs)
        self._write(result._n, "sort")  # through its views, as numpy's in-place sort
        return None

    @named("fill")
    def fill(self, value) -> None:
        """numpy's ndarray.fill: every element becomes `value`, cast as numpy casts it; through
        the views of x too, as x[...] = value writes."""
        self._write(_numpy(np.full_like, (self, value), {})._n, "fill")

    # -- written here: no numpy function is each --------------------------------------------
    @named("flatten")
    def flatten(self, order="C"):
        """numpy's ndarray.flatten: a copy of x as 1-d."""
        _check_order("flatten", order, "CFAK")
        return _li().asarray(_numpy(np.ravel, (self,), {"order": order}), copy=True)

    @named("astype")
    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        """numpy's ndarray.astype: np.astype(x, dtype), after the method's own order= and
        casting= (dtype may be 'float32' or np.float32 too)."""
        dtype = _dtype("astype", dtype)
        _check_order("astype", order, "CFAK")
        if casting != "unsafe" and not np.can_cast(self.dtype, dtype, casting=casting):
            shown = f"{self.dtype.name} to {dtype.name}"
            raise error(TypeError, "astype", f"cannot cast {shown} with casting={casting!r}")
        if _NUMPY_ASTYPE is None:  # NOTE: numpy < 2.1 has no np.astype
            cast = _li().astype(self, dtype, copy=copy)
        else:
            cast = _numpy(_NUMPY_ASTYPE, (self, dtype), {"copy": copy})
        return cast if order == "K" else _laid_out(self, cast, order)

    @named("conj")
    def conj(self):
        """numpy's ndarray.conj (li.conj)."""
        return _li().conj(self)

    conjugate = named("conjugate")(conj.__wrapped__)

    @named("item")
    def item(self, *args):
        """numpy's ndarray.item: one element as a Python scalar; computes x (an implicit
        materialization, as float(x) is)."""
        from ._array import implicit_value

        # numpy's own index rules, on a stand-in of x's shape, before anything is computed.
        np.broadcast_to(np.False_, self.shape).item(*args)
        return implicit_value(self, "item").item(*args)

    # -- attributes --------------------------------------------------------------------------
    @property
    def flat(self):
        """numpy's ndarray.flat: x as 1-d in C order, to index and to write into
        (`x.flat[::n + 1] += 1` writes x's diagonal, through x's views too)."""
        return FlatIterator(self)

    @property
    def real(self):
        """numpy's ndarray.real: np.real(x) (a view of a complex x's real part; x itself
        otherwise)."""
        return _numpy(np.real, (self,), {})

    @real.setter
    def real(self, value) -> None:
        """numpy's `x.real = value`: written through the part (x itself where x is real)."""
        _numpy(np.real, (self,), {})[...] = value  # NOTE: a list too, as setitem takes it

    @property
    def imag(self):
        """numpy's ndarray.imag: np.imag(x) (a view of a complex x's imaginary part; zeros
        otherwise)."""
        return _numpy(np.imag, (self,), {})

    @imag.setter
    def imag(self, value) -> None:
        """numpy's `x.imag = value`, for a complex x (a real x has no imaginary part to set)."""
        if self.dtype not in _dtypes.COMPLEX:
            raise error(TypeError, "imag", "x has no imaginary part to set (its dtype is real)")
        _numpy(np.imag, (self,), {})[...] = value

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
        from ._api.views import reshape_is_view  # NOTE: here: _api imports the Array

        li, base = _li(), self._base
        if reshape_is_view(base, (base.size,)):  # NOTE: x's 1-d form is a view: written through
            flat = li.reshape(base, (-1,))
            flat[key] = value
            return
        # NOTE: written into a copy, then into x whole: x's own views see it whether or not
        # x's 1-d form is a view of x (a transposed x's is not).
        flat = li.reshape(li.asarray(self._base, copy=True), (-1,))
        flat[key] = value
        self._base[...] = li.reshape(flat, self._base.shape)

    def __iter__(self):
        return iter(self._flat())

    def __len__(self) -> int:
        return self._base.size


# numpy's ndarray attributes Array lacks, with the way to do each here.
_REINTERPRETING = "use li.astype(x, dtype) (a cast: Arrays have no reinterpreting views)"
NDARRAY_HINTS = {
    "ptp": "use li.max(x, axis=...) - li.min(x, axis=...)",
    "cumproduct": "use x.cumprod() or li.cumulative_prod(x, axis=...)",
    "itemset": "use x[index] = value",
    "resize": "use li.reshape(x, shape) (li.tile for a larger size)",
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
