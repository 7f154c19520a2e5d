"""Elementwise steps: every function of the standard by name, operator, in-place operator and
numpy ufunc, with clip, where and astype; each op's class says how its error grows."""

from __future__ import annotations

import numpy as np

import lazyinfini as li
from tests.fuzz.check import agree_with
from tests.fuzz.dtypes import (
    ANY,
    BOOL,
    DTYPES,
    FLOATS,
    INT_OR_BOOL,
    INTEGER,
    NUMERIC,
    REAL,
    broadcasts,
    dtype_text,
)
from tests.fuzz.errors import LIPSCHITZ, elementwise_err, propagate, require_exact, structural
from tests.fuzz.numbers import all_finite, wide
from tests.fuzz.program import (
    Builder,
    Literal,
    Reject,
    Value,
    dtype_of,
    err_of,
    name_of,
    value_of,
)

# name: (operator, operand dtypes, class, Lipschitz rule): class "exact" rounds once (IEEE),
# "libm" is a transcendental function, "discrete" jumps (its operands must be exact).
_BINARY = {
    "add": ("+", NUMERIC, "exact", "sum"),
    "subtract": ("-", NUMERIC, "exact", "sum"),
    "multiply": ("*", NUMERIC, "exact", "mul"),
    "divide": ("/", NUMERIC, "exact", None),
    "maximum": (None, REAL, "exact", "max"),
    "minimum": (None, REAL, "exact", "max"),
    "floor_divide": ("//", REAL, "discrete", None),
    "remainder": ("%", REAL, "discrete", None),
    "pow": ("**", NUMERIC, "libm", None),
    "atan2": (None, REAL, "libm", None),
    "hypot": (None, REAL, "libm", None),
    "logaddexp": (None, REAL, "libm", None),
    "copysign": (None, REAL, "discrete", None),
    "nextafter": (None, FLOATS, "discrete", None),
    "equal": ("==", ANY, "discrete", None),
    "not_equal": ("!=", ANY, "discrete", None),
    "less": ("<", REAL, "discrete", None),
    "less_equal": ("<=", REAL, "discrete", None),
    "greater": (">", REAL, "discrete", None),
    "greater_equal": (">=", REAL, "discrete", None),
    "logical_and": (None, (BOOL,), "discrete", None),
    "logical_or": (None, (BOOL,), "discrete", None),
    "logical_xor": (None, (BOOL,), "discrete", None),
    "bitwise_and": ("&", INT_OR_BOOL, "discrete", None),
    "bitwise_or": ("|", INT_OR_BOOL, "discrete", None),
    "bitwise_xor": ("^", INT_OR_BOOL, "discrete", None),
    "bitwise_left_shift": ("<<", INTEGER, "discrete", None),
    "bitwise_right_shift": (">>", INTEGER, "discrete", None),
}
_UNARY = {
    "negative": ("-", NUMERIC, "exact", "max"),
    "positive": ("+", NUMERIC, "exact", "max"),
    "abs": ("abs", NUMERIC, "exact", "max"),
    "square": (None, NUMERIC, "exact", "square"),
    "sqrt": (None, NUMERIC, "exact", None),
    "reciprocal": (None, NUMERIC, "exact", None),
    "sign": (None, NUMERIC, "discrete", None),
    "floor": (None, REAL, "discrete", None),
    "ceil": (None, REAL, "discrete", None),
    "trunc": (None, REAL, "discrete", None),
    "round": (None, NUMERIC, "discrete", None),
    "signbit": (None, REAL, "discrete", None),
    "isnan": (None, NUMERIC, "nan test", None),
    "isinf": (None, NUMERIC, "nan test", None),
    "isfinite": (None, NUMERIC, "nan test", None),
    "logical_not": (None, (BOOL,), "discrete", None),
    "bitwise_invert": ("~", INT_OR_BOOL, "discrete", None),
    **{
        name: (None, NUMERIC, "libm", None)
        for name in (
            "exp",
            "expm1",
            "log",
            "log1p",
            "log2",
            "log10",
            "sin",
            "cos",
            "tan",
            "asin",
            "acos",
            "atan",
            "sinh",
            "cosh",
            "tanh",
            "asinh",
            "acosh",
            "atanh",
        )
    },
}


_INPLACE = ("+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>")
_NUMPY_UFUNCS = {
    name for name in (*_BINARY, *_UNARY) if isinstance(getattr(np, name, None), np.ufunc)
}

# Arithmetic, the heart of fusion, is drawn most; every op at least once in a while.
_BINARY_DRAWS = tuple(sorted(_BINARY)) + ("add", "subtract", "multiply", "divide") * 3
_BINARY_DRAWS += ("maximum", "minimum", "greater", "less_equal", "equal", "pow")
_UNARY_DRAWS = tuple(sorted(_UNARY)) + ("negative", "abs", "square", "sqrt", "exp", "sin") * 2
_UNARY_DRAWS += ("log", "tanh", "floor", "reciprocal")


def step_binary(b: Builder, inplace: bool = False) -> None:
    name = b.choice(_BINARY_DRAWS)
    symbol, dtypes, kind, lipschitz = _BINARY[name]
    a = b.pick(lambda v: v.dtype in dtypes)
    other = b.partner(a, dtypes)
    left, right = (other, a) if b.flag() and not inplace else (a, other)
    dtype = li.result_type(dtype_of(left), dtype_of(right))
    if name.startswith("bitwise_") and name.endswith("shift"):
        _check_shift(right, dtype)
    if name == "divide" and err_of(right):
        raise Reject("inexact divisor")
    if name == "copysign":
        _reject_nan_signs(right)
    if name == "pow" and dtype in INTEGER:
        if (wide(value_of(right)) < 0).any():
            raise Reject("integer to a negative power")
        kind = "discrete"
    err = elementwise_err(kind, lipschitz, (left, right))
    if name == "divide" and err_of(left):
        smallest = float(np.abs(wide(value_of(right))).min(initial=np.inf))
        if not smallest > 0:
            raise Reject("division by 0")
        err = propagate((left, right), lambda e, m: e[0] / smallest)
    if inplace:
        _inplace(b, a, symbol, right, err)
    else:
        _agree_with_numpy(
            name, (left, right), b.emit(_call(b, name, symbol, name_of(left), name_of(right)), err)
        )


def _inplace(b: Builder, x: Value, symbol, other, err) -> None:
    """x op= other: rebinds x, whose dtype and shape must hold (else lazyinfini raises)."""
    if symbol not in _INPLACE:
        raise Reject("no in-place form")
    if not b.writable(x):
        raise Reject("a broadcast view is read-only")
    out = b.evaluate(f"{x.name} {symbol} {name_of(other)}")  # the bound first: x unchanged
    if out.dtype != x.dtype or out.shape != x.shape:
        raise Reject("in place must keep x's dtype and shape")
    bound = float(err(out)) if callable(err) else float(err)
    b.emit_statement(f"{x.name} {symbol}= {name_of(other)}")
    b.rebind(x.name, bound)


def step_inplace(b: Builder) -> None:
    step_binary(b, inplace=True)


def _agree_with_numpy(name: str, operands, out: Value) -> None:
    """numpy is a second oracle for an elementwise function where its semantics are the
    standard's: operands of one dtype (numpy's promotion differs), a result of the same dtype."""
    dtypes = {value_of(o).dtype for o in operands if isinstance(o, (Value, Literal))}
    function = getattr(np, name, None)
    if len(dtypes) != 1 or not isinstance(function, np.ufunc):
        return
    if li.bfloat16 in dtypes and not all(isinstance(o, (Value, Literal)) for o in operands):
        return  # NOTE: numpy reads a Python float next to ml_dtypes' bfloat16 as float64
    args = [value_of(o) if isinstance(o, (Value, Literal)) else o for o in operands]
    if name == "floor_divide" and any(np.isinf(wide(a)).any() for a in args):
        return  # Note (spec): inf // 2 is inf and -1 // inf is -0; numpy's are NaN and -1
    if name == "pow" and _nan_to_the_zero(*args):
        # Note (spec): x ** 0 is 1 "even if x is NaN"; numpy's libm gives NaN for a signaling
        # NaN (random float16 bits draw them), its float16 loop passing the NaN to powf as it is
        return
    agree_with(out, lambda: function(*args), f"{name} of {[name_of(o) for o in operands]}")


def _nan_to_the_zero(base, exponent) -> bool:
    """Whether some NaN base meets a zero exponent (broadcast as the operands are)."""
    base, exponent = np.broadcast_arrays(wide(np.asarray(base)), wide(np.asarray(exponent)))
    return bool((np.isnan(base) & (exponent == 0)).any())


def _check_shift(right, dtype) -> None:
    count = wide(value_of(right))
    bits = 8 * dtype.itemsize
    if count.size and not ((count >= 0) & (count < bits)).all():
        raise Reject("shift count out of range")


def _call(b: Builder, name: str, symbol, *args: str) -> str:
    how = b.integer(0, 3)
    if how == 3 and name in _NUMPY_UFUNCS:  # numpy records it lazily through __array_ufunc__
        return f"np.{name}({', '.join(args)})"
    if symbol is None or how < 2:
        return f"li.{name}({', '.join(args)})"
    if len(args) == 1:
        return f"{symbol}({args[0]})" if symbol == "abs" else f"{symbol}{args[0]}"
    return f"{args[0]} {symbol} {args[1]}"


def step_unary(b: Builder) -> None:
    name = b.choice(_UNARY_DRAWS)
    symbol, dtypes, kind, lipschitz = _UNARY[name]
    a = b.pick(lambda v: v.dtype in dtypes)
    if name == "signbit":
        _reject_nan_signs(a)
    err = elementwise_err(kind, lipschitz, (a,))
    _agree_with_numpy(name, (a,), b.emit(_call(b, name, symbol, a.name), err))


def _reject_nan_signs(operand) -> None:
    """signbit and copysign read a NaN's sign, which the platform picks for a NaN that an
    invalid operation makes (x86: negative; ARM and CUDA: positive); tests treat NaNs as one."""
    if isinstance(operand, (Value, Literal)) and np.isnan(wide(value_of(operand))).any():
        raise Reject("the sign of a NaN")


def step_clip(b: Builder) -> None:
    x = b.pick(lambda v: v.dtype in REAL)
    same_kind = FLOATS if x.dtype in FLOATS else INTEGER
    bounds = []
    for key in ("min", "max"):
        if b.flag():
            continue
        if b.flag():
            try:
                bound = b.pick(
                    lambda v: v.dtype in same_kind and broadcasts(v.shape, x.shape) and v.exact
                )
                if np.broadcast_shapes(bound.shape, x.shape) != x.shape:
                    raise Reject("bound widens x")
                bounds.append(f"{key}={bound.name}")
                continue
            except Reject:
                pass
        scalar = b.scalar(x.dtype)
        if x.dtype in INTEGER and isinstance(scalar, float):
            scalar = int(scalar)
        bounds.append(f"{key}={scalar!r}")
    b.emit(f"li.clip({', '.join([x.name, *bounds])})", structural((x,)))


def step_where(b: Builder) -> None:
    cond, shape = _condition(b)
    a = b.pick(lambda v: broadcasts(v.shape, shape))
    other = b.partner(a, ANY)
    if isinstance(other, Value) and not broadcasts(
        np.broadcast_shapes(shape, a.shape), other.shape
    ):
        raise Reject("shapes")
    first, second = (a, other) if b.flag() else (other, a)
    b.emit(f"li.where({cond}, {name_of(first)}, {name_of(second)})", structural((first, second)))


def _condition(b: Builder) -> tuple[str, tuple]:
    """A bool operand: an exact bool value, or a comparison of an exact one."""
    if b.flag():
        try:
            v = b.pick(lambda v: v.dtype == BOOL and v.exact)
            return v.name, v.shape
        except Reject:
            pass
    v = b.pick(lambda v: v.dtype in REAL and v.exact)
    return f"{v.name} {b.choice(('>', '<=', '=='))} {name_of(b.scalar(v.dtype))}", v.shape


def step_compare_where(b: Builder) -> None:
    """where(x > t, x, y): a condition made of the operand itself (a mask fused with it)."""
    x = b.pick(lambda v: v.dtype in REAL and v.exact)
    threshold = b.scalar(x.dtype)
    other = b.partner(x, REAL)
    b.emit(f"li.where({x.name} > {threshold!r}, {x.name}, {name_of(other)})", structural((other,)))


def step_astype(b: Builder) -> None:
    x = b.pick()
    dtype = b.choice(DTYPES)
    out_text = f"li.astype({x.name}, {dtype_text(dtype)})"
    if x.dtype in FLOATS and dtype in INTEGER:
        require_exact(x)
        info = np.iinfo(dtype)
        t = np.trunc(wide(x.value))
        if not all_finite(x.value) or (t.size and (t.min() < info.min or t.max() >= info.max + 1)):
            raise Reject("cast out of range")
        b.emit(out_text, 0.0)
    elif x.dtype in FLOATS and dtype == BOOL:
        require_exact(x)
        b.emit(out_text, 0.0)
    else:
        b.emit(out_text, propagate((x,), LIPSCHITZ["max"]))
