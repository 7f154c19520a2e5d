"""The lazy Array: it holds one Node. Operators record through _api; protocols materialize."""

from __future__ import annotations

from sys import getrefcount as _refcount
from weakref import ref as _weakref

import numpy as np

from . import _dtypes
from ._api import elision as _elision
from ._device import check_device, get_device
from ._graph import Node, Op, caller_source, late_write, resolve, walk
from ._methods import NumpyMethods, add_hints

# NOTE: an Enum member read from its class costs ~120 ns on Python 3.11 (EnumType's
# __getattr__ makes every attribute read a hooked one), a module constant ~15; every
# materialization and most recording reads it
_BUFFER = Op.BUFFER


def _binary_method(name: str, reflected: bool = False):
    """The operator calling namespace function `name` (with operands swapped when reflected);
    numpy's temporary elision's layout where it elides one (_api/elision.py)."""
    eliding = not reflected and name in _elision.ELIDED

    def method(self, other, /):
        # Operands the namespace does not know make Python try the other side's operator.
        if type(other) is not Array and not _elementwise.is_operand(other):
            if type(other) not in _ufuncs.SEQUENCES:
                return NotImplemented
            other = _ufuncs.listed((self, other))[1]  # NOTE: ndarray's operators take lists too
        fn = _FUNCTIONS[name]
        if reflected:
            return fn(other, self)
        if eliding and isinstance(other, Array):
            # NOTE: counted here, in the operator's frame, as the probe counts (elision.py)
            counts = (_refcount(self), _refcount(other))
            if min(counts) <= _elision.TEMPORARY:
                result = fn(self, other)
                if result._n.nbytes < _elision.MIN_BYTES:
                    return result  # NOTE: most temporaries: numpy elides none this small
                return _elision.elided(result, self, other, name, counts)
        return fn(self, other)

    method.__name__ = name
    method.quick_operator = (name, reflected)  # NOTE: _realize/native_operators.py
    return method


def _equality_method(name: str, unequal: bool):
    """x == other, x != other: the operator `name`, and numpy's answer for None or a string
    (numpy compares them as an object array, each element with the object: none is equal),
    where Python would otherwise give one bool for the whole array."""
    operator = _binary_method(name)

    def method(self, other, /):
        if other is None or isinstance(other, str):
            return _creation.full_like(self, unequal, dtype=_dtypes.bool)
        return operator(self, other)

    method.__name__ = name
    method.quick_operator = (name, False)  # NOTE: _realize/native_operators.py
    return method


def _inplace_method(name: str, dunder: str):
    def method(self, other, /):
        if type(other) is not Array and not _elementwise.is_operand(other):
            if type(other) not in _ufuncs.SEQUENCES:
                return NotImplemented
            # NOTE: as the operator converts it: Python's fallback to `x = x + [1, 2]` would
            # rebind x, its views left unchanged (and an int x += [0.5] would become float)
            other = _ufuncs.listed((self, other))[1]
        return self._rebind(dunder, _FUNCTIONS[name], other)

    method.__name__ = name
    method.quick_operator = (name, None)  # NOTE: in place (_realize/native_operators.py)
    return method


def _power_method(inplace: bool):
    """x ** y, with numpy's shortcuts for a float or complex ndarray and a Python int or float
    (fast_scalar_power): x ** 2 is square(x), x ** -1 reciprocal(x), x ** 0.5 sqrt(x). So they
    give numpy's bits (its power loop, SIMD on some CPUs, rounds otherwise; sqrt(-inf) is NaN
    where pow(-inf, 0.5) is +inf), and compile as C, not a borrowed pow. Other exponents go to
    pow, which takes numpy's power loop's own shortcuts (elementwise.pow)."""
    pow_ = _binary_method("pow")
    ipow = _inplace_method("pow", "__ipow__")

    def method(self, other, /):
        kind = type(other)
        name = _POWER_SHORTCUTS.get((kind, other)) if kind is int or kind is float else None
        if name is None or (self.dtype not in _SHORTCUT_DTYPES and name not in _EVERY_DTYPE):
            return ipow(self, other) if inplace else pow_(self, other)
        fn = _FUNCTIONS[name]
        return self._rebind("__ipow__", lambda x, _: fn(x), other) if inplace else fn(self)

    method.__name__ = "pow"
    return method


# NOTE: exactly a Python int or float, as numpy checks (a bool or np.float64 takes the ufunc)
_POWER_SHORTCUTS = {(int, 2): "square", (int, -1): "reciprocal", (float, 0.5): "sqrt"}
# NOTE: numpy's own float and complex dtypes (bfloat16, ml_dtypes' type, takes numpy's power)
_SHORTCUT_DTYPES = frozenset(np.dtype(t) for t in "efdFD")
# A numpy with gh-29388 (2.4 has it) makes x ** 2 square(x) for every dtype: a bool's square is
# int8, its power int64
_EVERY_DTYPE = ("square",) if (np.ones(1, bool) ** 2).dtype == np.int8 else ()


def _unary_method(name: str):
    def method(self, /):
        return _FUNCTIONS[name](self)

    method.__name__ = name
    return method


class Array(NumpyMethods):
    """A lazy n-d array. Operations record nodes; values are computed when asked for. numpy's
    ndarray methods (x.sum(0), x.reshape(2, 3), ...) come from NumpyMethods (_methods.py)."""

    # NOTE: `_view` is None until the array shares memory with a view (_api/views.py).
    __slots__ = ("_n", "_view", "__weakref__")
    __array_priority__ = 100

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        # Note: numpy hands us its operators on Arrays (np.float64(2) * x gives an Array) and its
        # ufunc calls (np.exp(x), and scipy.special's ufuncs such as log1p); see _numpy_ufuncs.py.
        return _ufuncs.numpy_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        # Note: NEP 18: numpy's functions on Arrays (np.mean(x), np.concatenate([x, y])) record
        # lazily through their twins, or compute and run numpy's; see _numpy_functions.
        global _array_function
        if _array_function is None:
            # NOTE: imported at first use (it imports the whole namespace), then kept: an import
            # statement at every call costs ~0.9 us (as _methods keeps _numpy_functions.call)
            from ._numpy_functions import array_function as _array_function
        return _array_function(func, types, args, kwargs)

    def __init__(self, node: Node):
        # NOTE: _hold() inlined (an array is made for every recorded op); a new array has no view
        self._view = None
        self._n = node
        late_write(node, "holder", _weakref(self))

    def _hold(self, node: Node) -> None:
        """Hold `node`, and let realize() know a live array holds it (see _graph.held_by)."""
        self._n = node
        late_write(node, "holder", _weakref(self))
        view = self._view
        if view is not None and not view.steps:
            # NOTE: an array with no steps holds its memory's whole value (the base, or x[...]):
            # computed, the storage reads its buffer and lets the recorded history go.
            view.storage.root = node

    @property
    def _node(self) -> Node:
        node = self._n
        if node.op is not _BUFFER:
            node = self._n = node.realized or node  # NOTE: _graph.resolve, inline (every use)
        return node

    # -- attributes ------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self._n.shape

    @shape.setter
    def shape(self, value) -> None:
        raise AttributeError(f"x.shape = {value!r}: arrays are values here; use x = x.reshape(...)")

    @property
    def dtype(self) -> np.dtype:
        return self._n.dtype

    @property
    def ndim(self) -> int:
        return len(self._n.shape)

    @property
    def size(self) -> int:
        return self._n.size

    @property
    def device(self):
        """The device holding this array's buffer; a pending array's is the device that would
        hold it if computed now (the current options' device, or the one whose arrays it
        computes)."""
        return _placement.device_of(self._node)

    @property
    def T(self) -> Array:
        if self.ndim != 2:
            # Note (numpy): the standard asks for an error where x is not 2-d; numpy reverses
            # the axes, and numpy scripts on n-d arrays use it so
            return _manipulation.permute_dims(self, tuple(range(self.ndim - 1, -1, -1)))
        return _manipulation.transposed(self)

    @property
    def mT(self) -> Array:
        return _linalg.matrix_transpose(self)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __array_namespace__(self, /, *, api_version: str | None = None):
        import lazyinfini

        if api_version not in (None, *lazyinfini._SUPPORTED_VERSIONS):
            raise ValueError(f"__array_namespace__: unsupported api_version {api_version!r}")
        return lazyinfini

    def to_device(self, device, /, *, stream=None) -> Array:
        """This array on `device`: itself where it is there, else a copy there (computed first
        where pending)."""
        target = check_device("to_device", device)
        if target.name == self.device.name:
            return self
        return _placement.moved(self, target, caller_source())

    # -- materialization -------------------------------------------------------------------
    def compute(self) -> Array:
        """Run what this array still needs; returns self, now holding its buffer."""
        if _realize.realize_one(self) is NotImplemented:
            _realize.realize(self)
        return self

    def persist(self) -> Array:
        """Compute this array on the dask device and keep its value on the workers; returns
        self, now reading it there (see li.persist)."""
        from ._api.distributed import persist

        return persist(self)

    def explain(self, analyze: bool = False) -> str:
        """What computing this array runs (see li.explain)."""
        from .inspect import explain

        return explain(self, analyze=analyze)

    def _stored(self, implicit: str = ""):
        """The buffer holding the computed value as its device holds it (a CuPy array on a
        GPU), computing it first if needed (`implicit` names a conversion that asked, for the
        debug line)."""
        if self._node.op is not _BUFFER and _realize.realize_one(self) is NotImplemented:
            _realize.realize(self, implicit=implicit)
        return self._n.arg

    def _value(self, implicit: str = "") -> np.ndarray:
        """The realized ndarray (read-only), computing it first if needed."""
        buffer = self._stored(implicit)
        data = buffer.data
        if buffer.device != "cpu" or not isinstance(data, np.ndarray):
            data = get_device(buffer.device).to_host(data)  # NOTE: a copy from a GPU, dask...
        return data

    def __array__(self, dtype=None, copy=None):
        value = self._value()
        if copy:
            return np.array(value, dtype=dtype, copy=True)
        if dtype is None or np.dtype(dtype) == value.dtype:
            return value
        if copy is False:
            # NOTE: numpy's protocol: copy=False must not copy, and a cast does.
            raise ValueError(f"__array__: copy=False but {value.dtype} -> {np.dtype(dtype)} copies")
        return value.astype(dtype)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        kwargs = {"stream": stream}
        if max_version is not None:
            kwargs["max_version"] = max_version
        data = self._stored().data
        here = tuple(self.device.dlpack)
        if here != (1, 0) and (dl_device is None or tuple(dl_device) == here):
            # NOTE: a GPU's array is exported where it lives (zero copy), copied when asked
            return (data.copy() if copy else data).__dlpack__(**kwargs)
        value = self._value()
        # NOTE: DLPack before 1.0 cannot mark a tensor read-only, and our buffers are; such a
        # consumer gets a copy (numpy would refuse to export at all).
        legacy = max_version is None or max_version[0] < 1
        if copy or (legacy and copy is None):
            value = value.copy()
        elif legacy:
            value = _writable_alias(value)  # copy=False: share, trusting the consumer not to write
        if dl_device is not None:
            kwargs["dl_device"] = dl_device
        return value.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return tuple(self.device.dlpack)  # (1, 0) on the host: kDLCPU, device 0

    def tolist(self):
        return self._value().tolist()

    def _scalar(self, func: str):
        if self.size != 1:
            raise TypeError(
                f"{func}: only size-1 arrays convert to Python scalars; shape {self.shape}"
            )
        return implicit_value(self, func).reshape(()).item()

    def __bool__(self) -> bool:
        return bool(self._scalar("__bool__"))

    def __int__(self) -> int:
        if self.dtype in _dtypes.COMPLEX:
            raise TypeError("__int__: cannot convert a complex array to int")
        return int(self._scalar("__int__"))

    def __float__(self) -> float:
        if self.dtype in _dtypes.COMPLEX:
            raise TypeError("__float__: cannot convert a complex array to float")
        return float(self._scalar("__float__"))

    def __complex__(self) -> complex:
        return complex(self._scalar("__complex__"))

    def __index__(self) -> int:
        if self.dtype not in _dtypes.INTEGER:
            raise TypeError(f"__index__: needs an integer array, got {self.dtype.name}")
        return int(self._scalar("__index__"))

    # -- display ---------------------------------------------------------------------------
    def __repr__(self) -> str:
        # NOTE: never computes. A realized array shows its values, a pending one its recipe.
        node = self._node
        if node.op is Op.BUFFER and not isinstance(node.arg.data, np.ndarray):
            # NOTE: another device's data (a dask array): printing values would compute it.
            where = f"shape={self.shape}, dtype={self.dtype.name}, device={self.device}"
            return f"Array({where}, holding {node.arg.data!r})"
        if node.op is Op.BUFFER:
            body = np.array2string(node.arg.data, separator=", ", prefix="Array(", threshold=100)
            return f"Array({body}, dtype={self.dtype.name})"
        where = f"shape={self.shape}, dtype={self.dtype.name}, device={self.device}"
        return f"Array({where}, {_pending(node)})"

    __str__ = __repr__

    def _repr_html_(self) -> str:
        """A notebook's view: shape, dtype, device, bytes; what is pending and the kernels it
        would run, drawn (never computes, as repr does not); a computed array's values."""
        from ._see.notebook import array_html  # NOTE: at first use (see _see/__init__.py)

        return array_html(self)

    # -- operators -------------------------------------------------------------------------
    def __getitem__(self, key, /) -> Array:
        return _indexing.getitem(self, key)

    # NOTE: a copy is a new Array holding the same immutable node (a later `x[i] = v` rebinds
    # only that array); copying the recorded history would be quadratic and recursion-deep.
    def __copy__(self) -> Array:
        return Array(self._node)

    def __deepcopy__(self, memo) -> Array:
        return Array(self._node)

    def __reduce__(self):
        # NOTE: pickling computes: the value travels, not the recorded program (it may read
        # buffers of this process and ops of this version).
        from ._api.creation import asarray

        return asarray, (np.array(self._value()),)

    def __setitem__(self, key, value, /) -> None:
        # A functional update: nodes are immutable, so this array is rebound to a SETITEM node;
        # an array sharing memory with views writes through them (_api/views.py).
        if type(value) in _ufuncs.SEQUENCES:  # NOTE: numpy's x[key] = [1, 2]: in x's dtype
            value = np.asarray(value, dtype=self.dtype)
        if self._view is not None:
            _views.setitem(self, key, value)
            return
        self._hold(_indexing.setitem(self, key, value)._n)

    __add__ = _binary_method("add")
    __radd__ = _binary_method("add", reflected=True)
    __iadd__ = _inplace_method("add", "__iadd__")
    __sub__ = _binary_method("subtract")
    __rsub__ = _binary_method("subtract", reflected=True)
    __isub__ = _inplace_method("subtract", "__isub__")
    __mul__ = _binary_method("multiply")
    __rmul__ = _binary_method("multiply", reflected=True)
    __imul__ = _inplace_method("multiply", "__imul__")
    __truediv__ = _binary_method("divide")
    __rtruediv__ = _binary_method("divide", reflected=True)
    __itruediv__ = _inplace_method("divide", "__itruediv__")
    __floordiv__ = _binary_method("floor_divide")
    __rfloordiv__ = _binary_method("floor_divide", reflected=True)
    __ifloordiv__ = _inplace_method("floor_divide", "__ifloordiv__")
    __mod__ = _binary_method("remainder")

    def __divmod__(self, other, /):
        """divmod(x, y): (x // y, x % y), numpy's divmod's values (its loop computes both alike),
        but for the standard's x // y at infinities (docs/numpy.md)."""
        quotient = self.__floordiv__(other)
        return quotient if quotient is NotImplemented else (quotient, self.__mod__(other))

    def __rdivmod__(self, other, /):
        quotient = self.__rfloordiv__(other)
        return quotient if quotient is NotImplemented else (quotient, self.__rmod__(other))

    __rmod__ = _binary_method("remainder", reflected=True)
    __imod__ = _inplace_method("remainder", "__imod__")
    __pow__ = _power_method(inplace=False)
    __rpow__ = _binary_method("pow", reflected=True)
    __ipow__ = _power_method(inplace=True)
    __matmul__ = _binary_method("matmul")
    __rmatmul__ = _binary_method("matmul", reflected=True)
    __imatmul__ = _inplace_method("matmul", "__imatmul__")
    __and__ = _binary_method("bitwise_and")
    __rand__ = _binary_method("bitwise_and", reflected=True)
    __iand__ = _inplace_method("bitwise_and", "__iand__")
    __or__ = _binary_method("bitwise_or")
    __ror__ = _binary_method("bitwise_or", reflected=True)
    __ior__ = _inplace_method("bitwise_or", "__ior__")
    __xor__ = _binary_method("bitwise_xor")
    __rxor__ = _binary_method("bitwise_xor", reflected=True)
    __ixor__ = _inplace_method("bitwise_xor", "__ixor__")
    __lshift__ = _binary_method("bitwise_left_shift")
    __rlshift__ = _binary_method("bitwise_left_shift", reflected=True)
    __ilshift__ = _inplace_method("bitwise_left_shift", "__ilshift__")
    __rshift__ = _binary_method("bitwise_right_shift")
    __rrshift__ = _binary_method("bitwise_right_shift", reflected=True)
    __irshift__ = _inplace_method("bitwise_right_shift", "__irshift__")
    __eq__ = _equality_method("equal", False)
    __ne__ = _equality_method("not_equal", True)
    __lt__ = _binary_method("less")
    __le__ = _binary_method("less_equal")
    __gt__ = _binary_method("greater")
    __ge__ = _binary_method("greater_equal")
    __neg__ = _unary_method("negative")
    __pos__ = _unary_method("positive")
    __abs__ = _unary_method("abs")
    __invert__ = _unary_method("bitwise_invert")

    __hash__ = None  # arrays compare elementwise, so they are not hashable

    def _rebind(self, func: str, fn, other) -> Array:
        """In-place operators rebind this array to a new node; its dtype and shape must hold.
        Extension (numpy): a result of another dtype numpy's same_kind casting allows is cast
        to it, as numpy's ufunc casts its output (float32 += float64 array: float32).
        Extension (numpy): a 0-d array sharing memory with no view is what numpy holds as a
        scalar there (x.sum(), x[i], a reduction's result): like numpy's scalars it is not
        written but replaced, so `t = s; s += 1` leaves t as it was, and `s /= 2` of an
        integer s is a float, as in numpy."""
        result = fn(self, other)
        if not self.shape and self._view is None:
            return result
        result = _complex_products.written(result, (self, other), self)
        if result.dtype != self.dtype and result.shape == self.shape:
            if np.can_cast(result.dtype, self.dtype, casting="same_kind"):
                cast = _elementwise.conform(result._n, self.dtype, self.shape, caller_source())
                result = Array(cast)
        if result.dtype != self.dtype or result.shape != self.shape:
            raise TypeError(
                f"{func}: result has dtype {result.dtype.name} and shape {result.shape}; "
                f"in place it must keep {self.dtype.name} and {self.shape}"
            )
        self._write(result._n, func)
        return self

    def _write(self, node: Node, func: str) -> None:
        """Take `node` (same dtype and shape) as this array's value in place, as `func` (x += 1,
        sort, out=) does: through the memory it shares with views, if any (_api/views.py)."""
        if self._view is None:
            self._hold(_indexing.written_into(self._n, node, node.source))
        else:
            _views.write(self, node, func)


_array_function = None  # _numpy_functions.array_function, once imported (__array_function__)


def _writable_alias(value: np.ndarray) -> np.ndarray:
    """A writable view of the same memory as our read-only `value`, when its owner is writable
    (for DLPack consumers that cannot be told an array is read-only)."""
    owner = value.base
    while isinstance(owner, np.ndarray) and owner.base is not None:
        owner = owner.base
    if not isinstance(owner, np.ndarray) or not owner.flags.writeable:
        return value
    start = value.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    flat = owner.reshape(-1).view(np.uint8) if owner.flags.c_contiguous else None
    if flat is None:
        return value
    return np.lib.stride_tricks.as_strided(
        flat[start:].view(value.dtype) if value.size else flat[:0].view(value.dtype),
        value.shape,
        value.strides,
        writeable=True,
    )


def _count_pending(node: Node) -> int:
    """How many pending nodes `node` needs (no networkx: repr must stay cheap)."""
    order, _ = walk([node])
    return sum(1 for n in order if n.op is not Op.BUFFER)


def _pending(node: Node) -> str:
    """'pending: clip <- subtract (3 nodes)': the last ops recorded, without computing."""
    count = _count_pending(node)
    chain, cursor = [], node
    while cursor is not None and cursor.op is not Op.BUFFER and len(chain) < 3:
        chain.append(cursor.op.label)
        srcs = [resolve(s) for s in cursor.srcs]
        cursor = srcs[0] if srcs else None
    return f"pending: {' <- '.join(chain)}{' <- ...' if count > len(chain) else ''} ({count} nodes)"


def compute(*arrays):
    """Compute all `arrays` with one schedule (shared inputs read once); returns them.

    One array in, that array out; several in, a tuple of them.
    """
    for a in arrays:
        if not isinstance(a, Array):
            raise TypeError(f"compute: expected lazyinfini arrays, got {type(a).__name__}")
    _realize.realize(*arrays)
    return arrays[0] if len(arrays) == 1 else arrays


def record(op: Op, srcs: tuple[Node, ...], shape, dtype, arg=None, source: str | None = None):
    """A new Array holding a new node; `source` defaults to the caller's file:line."""
    node = Node(op, srcs, tuple(shape), dtype, arg, caller_source() if source is None else source)
    return Array(node)


add_hints(Array)  # numpy's names Array lacks say the way to do it here (see _methods._Missing)

# NOTE: the reads of an Array while recording, which the modules below import from here
from ._api.implicit import implicit_data, implicit_value, known_value  # noqa: E402, F401

# isort: split
# NOTE: imported last; these modules import Array from here.
from . import _numpy_ufuncs as _ufuncs  # noqa: E402
from . import _realize  # noqa: E402
from ._api import complex_products as _complex_products  # noqa: E402
from ._api import creation as _creation  # noqa: E402
from ._api import elementwise as _elementwise  # noqa: E402
from ._api import indexing as _indexing  # noqa: E402
from ._api import linear_algebra as _linalg  # noqa: E402
from ._api import manipulation as _manipulation  # noqa: E402
from ._api import placement as _placement  # noqa: E402
from ._api import views as _views  # noqa: E402

# The namespace functions the operators call (x + y calls add), by name: the methods above are
# made before these modules can be imported. Listed, so no other function becomes an operator.
_FUNCTIONS = {
    "add": _elementwise.add,
    "subtract": _elementwise.subtract,
    "multiply": _elementwise.multiply,
    "divide": _elementwise.divide,
    "floor_divide": _elementwise.floor_divide,
    "remainder": _elementwise.remainder,
    "pow": _elementwise.pow,
    "matmul": _linalg.matmul,
    "bitwise_and": _elementwise.bitwise_and,
    "bitwise_or": _elementwise.bitwise_or,
    "bitwise_xor": _elementwise.bitwise_xor,
    "bitwise_left_shift": _elementwise.bitwise_left_shift,
    "bitwise_right_shift": _elementwise.bitwise_right_shift,
    "equal": _elementwise.equal,
    "not_equal": _elementwise.not_equal,
    "less": _elementwise.less,
    "less_equal": _elementwise.less_equal,
    "greater": _elementwise.greater,
    "greater_equal": _elementwise.greater_equal,
    "negative": _elementwise.negative,
    "positive": _elementwise.positive,
    "abs": _elementwise.abs,
    "bitwise_invert": _elementwise.bitwise_invert,
    "square": _elementwise.square,  # NOTE: x ** 2, x ** -1 and x ** 0.5 (see _power_method)
    "reciprocal": _elementwise.reciprocal,
    "sqrt": _elementwise.sqrt,
}
