"""Element-wise functions, each declared once: one line per function, at the end.

Spec: https://data-apis.org/array-api/latest/API_specification/elementwise_functions.html
A declaration (`exp = _unary("exp", Op.EXP, "numeric", result="floating")`) is the whole API side
of an op: it records the op's node, and enters DECLARED, from which `__all__` (the namespace
re-exports it) and Array's ufunc table (`np.exp(x)` records it) are read. Each checks dtypes,
promotes and broadcasts its operands (operands()), or takes a quick path (quick.py). Casting
and broadcasting are explicit ASTYPE/BROADCAST nodes, so an elementwise node's inputs all share
one dtype and the output's shape; the scheduler turns those into strided loads. Transcendental
functions accept integers and compute them in the default float dtype, as numpy does.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

import numpy as np

from .. import _dtypes
from .._array import Array, record
from .._graph import Node, Op, caller_source, quick_node
from . import (
    complex_products,
    creation,  # NOTE: read at call time: its names would cycle
    quick,
)
from .checks import broadcast_shapes, check_dtype_in, check_scalar, error

_SCALARS = (builtins.bool, int, float, complex)


def is_operand(value) -> builtins.bool:
    """Values an operator accepts next to an Array: arrays and Python/numpy scalars."""
    return isinstance(value, (Array, np.ndarray, np.generic, *_SCALARS))


def _as_array(func: str, value) -> Array | None:
    """Arrays stay; numpy arrays and numpy scalars become (strongly typed) arrays."""
    if isinstance(value, Array):
        return value
    # Note (numpy, NEP 50): a numpy scalar is strong, np.float64 and np.complex128 too (they
    # subclass Python's float and complex): np.float64(2) * float32 array is float64. It is a
    # fill of its dtype, in no memory: it meets arrays of any device (x_gpu / np.sqrt(2)), as
    # a Python scalar does and as CuPy takes it.
    if isinstance(value, np.generic) and _dtypes.is_supported(value.dtype):
        return Array(Node(Op.FULL, (), (), value.dtype, value.item(), caller_source()))
    if isinstance(value, (np.ndarray, np.generic)):
        return creation.operand(value)  # NOTE: its values now, as numpy reads them
    if isinstance(value, _SCALARS):
        return None
    raise error(
        TypeError, func, f"expected an array or a Python scalar, got {type(value).__name__}"
    )


def _scalar_node(func: str, value, dtype: np.dtype, shape, source: str) -> Node:
    """A weak Python scalar as a FULL node of the array operands' dtype and shape (a fill is a
    zero-stride load, so no BROADCAST node is needed)."""
    check_scalar(func, value, dtype)
    return Node(Op.FULL, (), shape, dtype, value, source)


def operands(func: str, values, category: str, source: str):
    """Promote and broadcast `values` (arrays and weak scalars) for an elementwise op.

    Returns the input nodes (all of one dtype and one shape) and that dtype and shape.
    """
    same = _same_arrays(values)
    if same is not None and same.dtype in _dtypes.CATEGORIES[category]:
        return [v._node for v in values], same.dtype, same.shape  # the common case, quickly
    arrays = [_as_array(func, v) for v in values]
    present = [a for a in arrays if a is not None]
    if not present:
        raise error(TypeError, func, "at least one argument must be an array")
    for i, a in enumerate(arrays):
        if a is not None:
            check_dtype_in(func, f"x{i + 1}" if len(values) > 1 else "x", a.dtype, category)
    dtype = _dtypes.promote(*(a.dtype for a in present))
    if dtype is None:
        shown = ", ".join(a.dtype.name for a in present)
        raise error(TypeError, func, f"dtypes {shown} have no common type")
    for i, (v, a) in enumerate(zip(values, arrays)):
        if a is None:
            dtype = _dtypes.promote(dtype, _dtypes.scalar_dtype(v, dtype))
            _check_scalar_kind(func, f"x{i + 1}", v, dtype, category)
    shape = broadcast_shapes(func, *(a.shape for a in present))
    nodes = []
    for v, a in zip(values, arrays):
        node = a._node if a is not None else _scalar_node(func, v, dtype, shape, source)
        nodes.append(conform(node, dtype, shape, source))
    return nodes, dtype, shape


def _check_scalar_kind(func: str, name: str, value, dtype: np.dtype, category: str) -> None:
    """A weak scalar must not promote the operands out of the op's dtypes (1j in atan2)."""
    if dtype not in _dtypes.CATEGORIES[category]:
        raise error(
            TypeError,
            func,
            f"{name}={value!r} makes the operands {dtype.name}; {func} needs {category}",
        )


def _same_arrays(values) -> Array | None:
    """The first value, when every value is an Array of its dtype and shape."""
    first = values[0]
    if type(first) is not Array:
        return None
    for v in values[1:]:
        if type(v) is not Array or v.dtype != first.dtype or v.shape != first.shape:
            return None
    return first


def conform(node: Node, dtype: np.dtype, shape: tuple[int, ...], source: str) -> Node:
    """`node` cast to `dtype` and broadcast to `shape`, by explicit nodes where needed."""
    if node.dtype != dtype:
        node = Node(Op.ASTYPE, (node,), node.shape, dtype, None, source)
    if node.shape != shape:
        node = Node(Op.BROADCAST, (node,), shape, dtype, None, source)
    return node


# Extension (numpy 2): the standard leaves bool out of arithmetic; numpy computes it, and numpy
# code on masks relies on it (`mask @ x`, `x * mask[:, None]`, `mask * 2`). The arithmetic
# functions take bool ("numeric or boolean"): next to a number (an array or a Python scalar) a
# bool promotes as everywhere. When the operands promote to bool, `on_bool` says what numpy does:
#   None     numpy's bool loop: add is logical or, multiply logical and, maximum or, minimum and,
#            abs and the comparisons as for numbers (divide then computes in float64, as every
#            non-float divide does);
#   a dtype  numpy has no bool loop and runs its first loop bool casts to: int8 (floor_divide,
#            remainder, pow, square);
#   a str    no loop at all: numpy's TypeError, with its advice (subtract, negative).
_NO_BOOL_SUBTRACT = "bitwise_xor (the `^` operator) or logical_xor"
_NO_BOOL_NEGATIVE = "bitwise_invert (the `~` operator) or logical_not"


def _on_bool(func: str, nodes, on_bool, shape, source: str):
    """Operands that promoted to bool, as numpy computes `func` on them: (nodes, dtype)."""
    if on_bool is None:
        return nodes, _dtypes.bool
    if isinstance(on_bool, str):
        are = "x is" if len(nodes) == 1 else "x1 and x2 are"
        raise error(
            TypeError,
            func,
            f"{are} bool; numpy has no bool {func}: use {on_bool} instead",
        )
    return [conform(n, on_bool, shape, source) for n in nodes], on_bool


def elementwise(
    name: str, op: Op, values, category: str, result: str, arg=None, on_bool=None
) -> Array:
    """Record `op` over `values` (arrays or weak scalars), promoted and broadcast.

    result: 'same' (the promoted dtype), 'bool' (tests and comparisons), 'floating' (integers
    and bools compute in the smallest float holding them, as numpy's loops do), 'quotient'
    (they compute in the default float dtype, as numpy's true division does), 'real' (complex
    gives the real dtype of its precision, as abs() does). on_bool: see above.
    """
    source = caller_source()
    if category == "bool":
        values = _truths(name, values, source)
    elif result in _FLOAT_RESULTS:
        values = _wide_ints_meet_floats(values, result, source)
    nodes, dtype, shape = operands(name, values, category, source)
    if dtype == _dtypes.bool and on_bool is not None:
        nodes, dtype = _on_bool(name, nodes, on_bool, shape, source)
    if result in _FLOAT_RESULTS and dtype not in _dtypes.CATEGORIES["floating"]:
        dtype = _float_of(result, _typed(values) or (dtype,))
        nodes = [conform(n, dtype, shape, source) for n in nodes]
    out_dtype = {"bool": _dtypes.bool, "real": quick.REAL_OF.get(dtype, dtype)}.get(result, dtype)
    return record(op, tuple(nodes), shape, out_dtype, arg, source)


_FLOAT_RESULTS = frozenset({"floating", "quotient"})


def _float_of(result: str, dtypes) -> np.dtype:
    """The float a `result` of bool or integer operands of `dtypes` computes in: int / int is a
    float64 array, exp(int8) float16, as in numpy: the float holding each (_dtypes.float_holding;
    numpy's loop is the first both cast to safely: atan2(int8, uint8) is float16, where their
    promoted int16 would need float32)."""
    if result == "quotient":
        return _dtypes.DEFAULT_FLOAT
    return _dtypes.promote(*(_dtypes.float_holding(d) for d in dtypes))


def _integer_floats(category: str, result: str, on_bool) -> dict:
    """bool or integer dtype of `category` -> the float two arrays of it compute in, for a
    `result` of floats (_float_of's: int / int the default float, atan2 of int8 float16);
    quick.binary's `floats`. Not bools an op records otherwise (`on_bool`)."""
    if result not in _FLOAT_RESULTS:
        return {}
    kinds = ("int", "uint") if on_bool is not None else ("bool", "int", "uint")
    ints = [d for d in _dtypes.CATEGORIES[category] if _dtypes.kind(d) in kinds]
    return {d: _float_of(result, (d,)) for d in ints}


def _typed(values) -> tuple:
    """The dtypes of the operands that have one (arrays and numpy scalars; a Python scalar is
    weak: it takes theirs)."""
    return tuple(v.dtype for v in values if isinstance(v, (Array, np.generic)))


def _wide_ints_meet_floats(values, result: str, source: str):
    """Extension (numpy 2): a float function of an integer array and a Python int its dtype
    cannot hold (`uint8_array / -1`, `atan2(uint8_array, 300)`) computes as numpy's does: the
    int meets the float dtype the function computes in, not the array's (arithmetic raises)."""
    ints = [v for v in values if type(v) is int]
    arrays = [v for v in values if isinstance(v, Array)]
    if not ints or not arrays:
        return values
    dtype = _dtypes.promote(*(a.dtype for a in arrays))
    if not any(_beyond(dtype, v) for v in ints):
        return values
    floating = _float_of(result, [a.dtype for a in arrays])
    return [
        Array(conform(v._node, floating, v.shape, source)) if isinstance(v, Array) else v
        for v in values
    ]


def _truths(func: str, values, source: str) -> list:
    """Extension (numpy): the logical functions take numbers by their truth (nonzero, NaN
    true), as numpy's do; scikit-learn's roc_curve calls logical_or(diff(fps, 2), ...) on
    floats. A number is cast where it is read, after its broadcast: one kernel still."""
    arrays = [_as_array(func, value) for value in values]
    shapes = [a.shape for a in arrays if a is not None]
    shape = broadcast_shapes(func, *shapes) if shapes else ()
    truths = []
    for value, array in zip(values, arrays):
        if array is None:
            truths.append(builtins.bool(value))
        elif array.dtype == _dtypes.bool:
            truths.append(array)
        else:
            node = conform(array._node, array.dtype, shape, source)
            truths.append(Array(conform(node, _dtypes.bool, shape, source)))
    return truths


@dataclass(frozen=True)
class Declaration:
    """A declared element-wise function and the op it records (None: positive records none)."""

    function: object
    op: Op | None


# name -> Declaration: every function declared in this module, in order. The namespace's
# `__all__` and Array's ufunc table (np.exp(x) records li.exp) are read from it.
DECLARED: dict[str, Declaration] = {}


def _declared(op: Op | None):
    """Declare the decorated function (written out: positive, clip, where)."""

    def declare(fn):
        DECLARED[fn.__name__] = Declaration(fn, op)
        return fn

    return declare


def _unary(name: str, op: Op, category: str, *, result: str = "same", on_bool=None):
    table = quick.result_dtypes(category, result, on_bool)

    def fn(x, /) -> Array:
        if isinstance(x, Array):  # NOTE: a view (views.Shared) too
            node = x._n
            dtype = table.get(node.dtype)
            if dtype is not None and node.realized is None:
                return Array(quick_node(op, (node,), node.shape, dtype, None, caller_source(2)))
            if node.dtype == _dtypes.bool and op in _OF_BOOL:
                return _of_bool(op, node)
        return elementwise(name, op, (x,), category, result, on_bool=on_bool)

    fn.quick_unary = (op, table)  # NOTE: np.exp(x)'s path in C too (_numpy_ufuncs.py)
    return _named(fn, name, op)


# Extension (numpy): the tests and roundings of a bool array, which numpy's loops answer
# without a number: isnan and isinf are False, isfinite True, signbit False; floor, ceil and
# trunc give the array itself. op -> the tests' answer (None: the array).
_OF_BOOL = {Op.ISNAN: False, Op.ISINF: False, Op.ISFINITE: True, Op.SIGNBIT: False}
_OF_BOOL.update(dict.fromkeys((Op.FLOOR, Op.CEIL, Op.TRUNC)))


def _of_bool(op: Op, node: Node) -> Array:
    answer = _OF_BOOL[op]
    if answer is None:
        return Array(node)
    if len(node.shape) > 1:  # NOTE: numpy writes the answer in x's memory order (a ufunc's):
        # it has its say in a later ufunc's order, which a fill would not have
        return logical_or(Array(node), True) if answer else logical_and(Array(node), False)
    return Array(_scalar_node(op.label, answer, _dtypes.bool, node.shape, caller_source()))


def _ordering(name: str, op: Op, strict: str, tie: str, *, chooses: bool = False):
    """An ordering comparison (or, `chooses`, maximum or minimum): of real values the
    standard's; of complex ones (an extension) numpy's lexicographic order, `strict` and `tie`
    the names of the real comparisons of the real parts and of the imaginary parts (see
    _complex_order). maximum and minimum keep x1 where it orders first or holds a NaN part,
    else x2 (equal to numpy's over every pair of special parts)."""
    result = "same" if chooses else "bool"
    real = _binary(name, op, "real numeric or boolean", result=result, declare=False)

    def fn(x1, x2, /) -> Array:
        if not (_is_complex(x1) or _is_complex(x2)):
            return real(x1, x2)
        a, b = _complex_pair(name, x1, x2)
        # NOTE: by name: the real comparisons are this module's orderings, declared below
        ordered = _complex_order(a, b, globals()[strict], globals()[tie])
        return where(logical_or(ordered, _nan(a)), a, b) if chooses else ordered

    fn.quick = real.quick  # NOTE: real dtypes only: a complex operand takes the Python path
    return _named(fn, name, op)


def _is_complex(x) -> bool:
    return isinstance(x, complex) or isinstance(x, Array) and x.dtype in _dtypes.COMPLEX


def _complex_pair(name: str, x1, x2) -> list:
    """x1 and x2 compared as complex values: an array in the common dtype but not broadcast (a
    broadcast operand has no say in numpy's memory order of the result, which an intermediate
    of it alone at the full shape would have), a Python number as its complex value."""
    source = caller_source()
    _, dtype, _ = operands(name, (x1, x2), "numeric or boolean", source)  # NOTE: checks them
    return [
        Array(conform(x._node, dtype, x.shape, source)) if isinstance(x, Array) else complex(x)
        for x in (x1, x2)
    ]


def _nan(v):
    """Whether complex `v` (an array, or a Python number) has a NaN part."""
    return isnan(v) if isinstance(v, Array) else v != v


def _complex_order(a, b, strict, tie) -> Array:
    """numpy's order of complex a and b: by the real parts, where those tie by the imaginary
    parts; a NaN imaginary part orders nothing by the real parts (numpy's CGT, CGE, CLT and
    CLE; equal to numpy's over every pair of NaN, infinite, signed-zero and finite parts)."""
    ar, ai, br, bi = _real_of(a), _imag_of(a), _real_of(b), _imag_of(b)
    known = logical_not(logical_or(_nan(ai), _nan(bi)))
    return logical_or(logical_and(strict(ar, br), known), logical_and(equal(ar, br), tie(ai, bi)))


def _real_of(v):
    return real(v) if isinstance(v, Array) else v.real


def _imag_of(v):
    return imag(v) if isinstance(v, Array) else v.imag


def _binary(
    name: str, op: Op, category: str, *, result="same", on_bool=None, declare=True, then=None
):
    """`then(recorded, x1, x2)`: the Array to return instead of the recorded one."""
    table = quick.result_dtypes(category, result, on_bool)
    pairs = quick.promoted_pairs(category, table)
    floats = _integer_floats(category, result, on_bool)

    def fn(x1, x2, /) -> Array:
        recorded = quick.binary(op, table, x1, x2, pairs, floats)
        if recorded is None and op in _BEYOND:
            recorded = _beyond_range(op, x1, x2)
        if recorded is None:
            recorded = elementwise(name, op, (x1, x2), category, result, on_bool=on_bool)
        return recorded if then is None else then(recorded, x1, x2)

    # NOTE: what Array's operator may record in C (_realize/native_operators.py): the quick
    # path's op and table; a complex product's `then` (complex_products.fresh) needs Python
    assert then is None or then is complex_products.fresh, then  # NOTE: else C skips `then`
    fn.quick = (op, table if then is None else {d: r for d, r in table.items() if d.kind != "c"})
    return _named(fn, name, op, declare)


# numpy 2 compares an integer array with a Python int its dtype cannot hold (NEP 50), where
# arithmetic raises: every element has the same answer (uint8 == -1 is False, uint8 < 300 True).
# op -> (the answer of `array op int` for an int above the dtype's range, for one below it)
_BEYOND = {
    Op.EQUAL: (False, False),
    Op.NOT_EQUAL: (True, True),
    Op.LESS: (True, False),
    Op.LESS_EQUAL: (True, False),
    Op.GREATER: (False, True),
    Op.GREATER_EQUAL: (False, True),
}


def _beyond(dtype: np.dtype, value: int) -> bool:
    """Whether integer dtype `dtype` cannot hold Python int `value` (False for other dtypes)."""
    span = _dtypes.RANGES.get(dtype)
    return span is not None and not span[0] <= value <= span[1]


def _beyond_range(op: Op, x1, x2) -> Array | None:
    """`x1 op x2` of an integer array and a Python int out of its range, as a fill; None for
    anything else."""
    if type(x2) is int and isinstance(x1, Array):
        array, value, swapped = x1, x2, False
    elif type(x1) is int and isinstance(x2, Array):
        array, value, swapped = x2, x1, True
    else:
        return None
    if not _beyond(array.dtype, value):
        return None
    above, below = _BEYOND[op]
    answer = above if (value > 0) != swapped else below  # NOTE: `int < x` is `x > int`
    return Array(_scalar_node(op.label, answer, _dtypes.bool, array.shape, caller_source()))


def _named(fn, name: str, op: Op, declare: bool = True):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        f"Element-wise {name.replace('_', ' ')}. "
        f"https://data-apis.org/array-api/latest/API_specification/generated/array_api.{name}.html"
    )
    return _declared(op)(fn) if declare else fn


@_declared(None)
def positive(x, /) -> Array:
    """Element-wise +x (a new array holding the same value).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.positive.html"""
    (node,), _, _ = operands("positive", (x,), "numeric", caller_source())
    return Array(node)


@_declared(Op.CLIP)
def clip(x, /, min=None, max=None) -> Array:
    """Clamp x into [min, max]; NaN in x, min or max gives NaN.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.clip.html"""
    if isinstance(x, Array):  # NOTE: a view (views.Shared) too
        recorded = quick.clip(x._n, min, max)
        if recorded is not None:
            return recorded
    source = caller_source()
    if not isinstance(x, Array):
        raise error(TypeError, "clip", f"x must be a lazyinfini array, got {type(x).__name__}")
    check_dtype_in("clip", "x", x.dtype, "real numeric")
    bounds = [(name, _bound(name, b)) for name, b in (("min", min), ("max", max)) if b is not None]
    for name, b in bounds:
        _check_bound(x, name, b)
    if not bounds:
        return Array(x._node)
    shape = broadcast_shapes("clip", x.shape, *(b.shape for _, b in bounds if isinstance(b, Array)))
    # Note (spec): the result keeps x's dtype; bounds are cast to it.
    nodes = [conform(x._node, x.dtype, shape, source)]
    for _, b in bounds:
        node = b._node if isinstance(b, Array) else _scalar_node("clip", b, x.dtype, shape, source)
        nodes.append(conform(node, x.dtype, shape, source))
    has = (min is not None, max is not None)
    return record(Op.CLIP, tuple(nodes), shape, x.dtype, has, source)


def _bound(name: str, bound):
    """numpy arrays and numpy scalars (np.float64 too) as bounds become arrays; Python scalars
    stay weak."""
    if isinstance(bound, (np.ndarray, np.generic)):
        return _as_array("clip", bound)
    return bound


def _check_bound(x: Array, name: str, bound) -> None:
    if isinstance(bound, Array):
        if _dtypes.kind(bound.dtype) != _dtypes.kind(x.dtype) and not (
            x.dtype in _dtypes.INTEGER and bound.dtype in _dtypes.INTEGER
        ):
            raise error(
                TypeError,
                "clip",
                f"{name} has dtype {bound.dtype.name}, x is {x.dtype.name}; "
                "bounds must be of x's kind",
            )
    elif isinstance(bound, builtins.bool) or not isinstance(bound, (int, float)):
        raise error(TypeError, "clip", f"{name} must be an array or a real number, got {bound!r}")
    elif isinstance(bound, float) and x.dtype in _dtypes.INTEGER:
        raise error(TypeError, "clip", f"{name}={bound!r} is a float, x is {x.dtype.name}")


class _Omitted:
    """where()'s x1 and x2 when not given (None is a value there: a weak scalar is not)."""

    def __repr__(self) -> str:
        return "<not given>"


_OMITTED = _Omitted()


@_declared(Op.WHERE)
def where(condition, x1=_OMITTED, x2=_OMITTED, /) -> Array:
    """Elements of x1 where condition is true, else of x2.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.where.html"""
    if x1 is _OMITTED or x2 is _OMITTED:
        return _where_nonzero(condition, x1, x2)
    recorded = quick.where(condition, x1, x2)
    if recorded is not None:
        return recorded
    source = caller_source()
    if not isinstance(condition, Array):
        raise error(TypeError, "where", "condition must be a lazyinfini array")
    check_dtype_in("where", "condition", condition.dtype, "bool")
    nodes, dtype, shape = operands("where", (x1, x2), "any", source)
    shape = broadcast_shapes("where", condition.shape, shape)
    cond = conform(condition._node, _dtypes.bool, shape, source)
    nodes = [conform(n, dtype, shape, source) for n in nodes]
    return record(Op.WHERE, (cond, *nodes), shape, dtype, None, source)


def _where_nonzero(condition, x1, x2) -> tuple[Array, ...]:
    """Extension (numpy): where(condition) is nonzero(condition), numpy's one-argument form
    (scikit-learn's roc_curve calls it)."""
    if x1 is not x2:
        raise error(ValueError, "where", "give both x1 and x2, or neither (nonzero(condition))")
    from .searching import nonzero

    return nonzero(condition)


# -- the declarations: one line per function ------------------------------------------------
# name, the op it records, the dtypes it takes (a category of _dtypes.CATEGORIES), its result's
# dtype (see elementwise()) and numpy's rule for bool operands (on_bool, see above).
subtract = _binary("subtract", Op.SUBTRACT, "numeric or boolean", on_bool=_NO_BOOL_SUBTRACT)
add = _binary("add", Op.ADD, "numeric or boolean")
# NOTE: numpy's formula for a complex product of one element depends on its call's form
multiply = _binary("multiply", Op.MULTIPLY, "numeric or boolean", then=complex_products.fresh)
divide = _binary("divide", Op.DIVIDE, "numeric or boolean", result="quotient")
maximum = _ordering("maximum", Op.MAXIMUM, "greater", "greater_equal", chooses=True)
minimum = _ordering("minimum", Op.MINIMUM, "less", "less_equal", chooses=True)
equal = _binary("equal", Op.EQUAL, "any", result="bool")
not_equal = _binary("not_equal", Op.NOT_EQUAL, "any", result="bool")
# orderings: of real values the standard's; of complex ones (an extension: the standard leaves
# them unspecified) numpy's lexicographic order (see _complex_order), as in numpy's loops
less = _ordering("less", Op.LESS, "less", "less")
less_equal = _ordering("less_equal", Op.LESS_EQUAL, "less", "less_equal")
greater = _ordering("greater", Op.GREATER, "greater", "greater")
greater_equal = _ordering("greater_equal", Op.GREATER_EQUAL, "greater", "greater_equal")
negative = _unary("negative", Op.NEGATIVE, "numeric or boolean", on_bool=_NO_BOOL_NEGATIVE)
abs = _unary("abs", Op.ABS, "numeric or boolean", result="real")
# Extension (numpy): bool operands of these compute in int8, numpy's first loop bool casts to
_AS_INT8 = _dtypes.int8
floor_divide = _binary("floor_divide", Op.FLOOR_DIVIDE, "real numeric or boolean", on_bool=_AS_INT8)
remainder = _binary("remainder", Op.REMAINDER, "real numeric or boolean", on_bool=_AS_INT8)
_pow_loop = _binary("pow", Op.POW, "numeric or boolean", on_bool=_AS_INT8, declare=False)
# pow: powers.pow, declared below (numpy's shortcuts)
square = _unary("square", Op.SQUARE, "numeric or boolean", on_bool=_AS_INT8)
reciprocal = _unary("reciprocal", Op.RECIPROCAL, "numeric", result="quotient")
sign = _unary("sign", Op.SIGN, "numeric")
# rounding
ceil = _unary("ceil", Op.CEIL, "real numeric")
floor = _unary("floor", Op.FLOOR, "real numeric")
trunc = _unary("trunc", Op.TRUNC, "real numeric")
round = _unary("round", Op.ROUND, "numeric")
# complex parts
conj = _unary("conj", Op.CONJ, "numeric")
# a complex x's parts are numpy's views of its memory (movements); a real x's real part is x
real = _unary("real", Op.REAL, "numeric", result="real")
_imag = _unary("imag", Op.IMAG, "numeric", result="real")


@_declared(Op.IMAG)
def imag(x, /) -> Array:
    """Element-wise imaginary part: of a complex x, numpy's view of it; of a real x (an
    extension, as numpy's np.imag), zeros.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.imag.html"""
    part = _imag(x)  # NOTE: checks x
    if x.dtype in _dtypes.COMPLEX:
        return part
    node = part._n
    return Array(_scalar_node("imag", 0, node.dtype, node.shape, node.source))


# floating-point tests
isfinite = _unary("isfinite", Op.ISFINITE, "numeric", result="bool")
isinf = _unary("isinf", Op.ISINF, "numeric", result="bool")
isnan = _unary("isnan", Op.ISNAN, "numeric", result="bool")
signbit = _unary("signbit", Op.SIGNBIT, "real numeric", result="bool")
# two real floats
atan2 = _binary("atan2", Op.ATAN2, "real numeric or boolean", result="floating")
copysign = _binary("copysign", Op.COPYSIGN, "real numeric or boolean", result="floating")
hypot = _binary("hypot", Op.HYPOT, "real numeric or boolean", result="floating")
logaddexp = _binary("logaddexp", Op.LOGADDEXP, "real numeric or boolean", result="floating")
nextafter = _binary("nextafter", Op.NEXTAFTER, "real numeric or boolean", result="floating")
# exponentials and logarithms
exp = _unary("exp", Op.EXP, "numeric or boolean", result="floating")
expm1 = _unary("expm1", Op.EXPM1, "numeric or boolean", result="floating")
log = _unary("log", Op.LOG, "numeric or boolean", result="floating")
log1p = _unary("log1p", Op.LOG1P, "numeric or boolean", result="floating")
log2 = _unary("log2", Op.LOG2, "numeric or boolean", result="floating")
log10 = _unary("log10", Op.LOG10, "numeric or boolean", result="floating")
sqrt = _unary("sqrt", Op.SQRT, "numeric or boolean", result="floating")
# trigonometric and hyperbolic
sin = _unary("sin", Op.SIN, "numeric or boolean", result="floating")
cos = _unary("cos", Op.COS, "numeric or boolean", result="floating")
tan = _unary("tan", Op.TAN, "numeric or boolean", result="floating")
asin = _unary("asin", Op.ASIN, "numeric or boolean", result="floating")
acos = _unary("acos", Op.ACOS, "numeric or boolean", result="floating")
atan = _unary("atan", Op.ATAN, "numeric or boolean", result="floating")
sinh = _unary("sinh", Op.SINH, "numeric or boolean", result="floating")
cosh = _unary("cosh", Op.COSH, "numeric or boolean", result="floating")
tanh = _unary("tanh", Op.TANH, "numeric or boolean", result="floating")
asinh = _unary("asinh", Op.ASINH, "numeric or boolean", result="floating")
acosh = _unary("acosh", Op.ACOSH, "numeric or boolean", result="floating")
atanh = _unary("atanh", Op.ATANH, "numeric or boolean", result="floating")
# bitwise
bitwise_and = _binary("bitwise_and", Op.BITWISE_AND, "integer or boolean")
bitwise_or = _binary("bitwise_or", Op.BITWISE_OR, "integer or boolean")
bitwise_xor = _binary("bitwise_xor", Op.BITWISE_XOR, "integer or boolean")
bitwise_invert = _unary("bitwise_invert", Op.BITWISE_INVERT, "integer or boolean")
bitwise_left_shift = _binary("bitwise_left_shift", Op.BITWISE_LEFT_SHIFT, "integer")
bitwise_right_shift = _binary("bitwise_right_shift", Op.BITWISE_RIGHT_SHIFT, "integer")
# logical
logical_and = _binary("logical_and", Op.LOGICAL_AND, "bool", result="bool")
logical_or = _binary("logical_or", Op.LOGICAL_OR, "bool", result="bool")
logical_xor = _binary("logical_xor", Op.LOGICAL_XOR, "bool", result="bool")
logical_not = _unary("logical_not", Op.LOGICAL_NOT, "bool", result="bool")

# NOTE: after the functions powers.py reads
from .powers import pow  # noqa: E402

_declared(Op.POW)(pow)

__all__ = list(DECLARED)  # re-exported by the namespace (lazyinfini/__init__.py)
