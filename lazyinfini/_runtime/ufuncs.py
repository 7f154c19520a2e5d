"""numpy implementations of the elementwise ops, shared by every executor.

Each takes the inputs (already in the compute dtype: float32 for half floats), the node's `arg`
and an optional `out` array, and writes the result there when given (no temporaries).
"""

from __future__ import annotations

import numpy as np

from .. import _dtypes
from .._compat import compat
from .._graph import Op
from .._graph.ops import CORRECTED, HALF_MATH, NUMPY_VALUES, POWER_SHORTCUTS
from .special_values import complex_values, floor_divided


def _ufunc(fn):
    def run(inputs, arg, out=None):
        return fn(*inputs, out=out)

    # NOTE: generated register programs call it (fused.py): (the node's arg, the result's
    # dtype) -> the ufunc computing the op into `out`, or None (the wrapper must run)
    run.ufunc_for = lambda arg, dtype: fn
    return run


def _clip_ufunc(arg, dtype=None):
    """The ufunc computing a CLIP node with `arg` (has_min, has_max) over x and its bounds."""
    has_min, has_max = arg
    # Note (spec): np.clip propagates NaN from x and from either bound, as the standard asks.
    # With one bound np.clip is maximum or minimum: their tie-break (-0.0 against 0.0) is not
    # clip's between two scalar bounds, so one bound calls them, as np.clip does.
    if not has_max:
        return np.maximum
    if not has_min:
        return np.minimum
    return _CLIP


def _clip(inputs, arg, out=None):
    return _clip_ufunc(arg)(*inputs, out=out)


# NOTE: numpy's clip ufunc itself; np.clip's Python wrapper costs 3 us a call, once per chunk.
_CLIP = getattr(getattr(np, "_core", None), "umath", np).clip
_clip.ufunc_for = _clip_ufunc  # NOTE: generated register programs call it (fused.py)


# A POW node is numpy's pow loop over an exponent read element by element (ops.POWER_SHORTCUTS):
# a fill reaches here as a zero-stride view (numpy's np.full holds every element), on which
# numpy's float loops would take a shortcut; such an exponent is read from an array of its own.
# NOTE: one test of its strides for the common exponent (an array, not a fill): a call per run.
_SHORTCUTS = frozenset(POWER_SHORTCUTS)


def _power(inputs, arg, out=None):
    x, e = inputs
    if (0 in e.strides or not e.ndim) and e.dtype.kind == "f" and e.size:
        if _read_once(e) and e.flat[0] in _SHORTCUTS:
            shape = np.broadcast_shapes(np.shape(x), e.shape) if out is None else out.shape
            e = np.array(np.broadcast_to(e, shape))
    return np.power(x, e, out=out)


def _read_once(e) -> bool:
    """Whether numpy's loop reads every element of `e` at one address (its iterator coalesces
    the axes of a zero-stride view into one of stride 0)."""
    return not any(stride for stride, n in zip(e.strides, e.shape) if n != 1)


_power.ufunc_for = lambda arg, dtype: None if np.dtype(dtype).kind == "f" else np.power


def _complex(inputs, arg, out=None):
    """COMPLEX: the parts written into the complex result, as they are."""
    real, imag = inputs
    if out is None:
        shape = np.broadcast_shapes(np.shape(real), np.shape(imag))
        out = np.empty(shape, np.result_type(real.dtype, np.complex64))
    out.real, out.imag = real, imag
    return out


def _into(out, value):
    """`value` written into `out` when given (for numpy functions without `out=`)."""
    if out is None:
        return np.asarray(value)
    np.copyto(out, value, casting="unsafe")
    return out


def _round(inputs, arg, out=None):
    # NOTE: np.rint is np.round's rounding (half to even, complex parts apart) as a real ufunc:
    # np.round does not broadcast a 0-d input (a broadcast computed scalar) into `out`.
    (x,) = inputs
    if x.dtype.kind in "biu":
        return _into(out, x)
    return np.rint(x, out=out)


def _special(op: Op):
    """An op whose numpy function misses some of the standard's special values: it runs in
    numpy, then special_values.py corrects the elements concerned (complex results only; a real
    floor division's infinities). A node numpy's ufunc recorded (arg NUMPY_VALUES) keeps
    numpy's values: its loop alone."""
    # NOTE: numpy's ufunc, not array_api_compat's sign (z / abs(z), a complex division: an ulp
    # off numpy's parts divided by hypot in most elements); the corrections give the rest.
    ufunc = getattr(np, op.label)
    correct = _floor_divided if op is Op.FLOOR_DIVIDE else _complex_values(op.label)

    def run(inputs, arg, out=None):
        # NOTE: the inputs' dtype (their results' kind), not out's: a bfloat16 `out` is kind V
        # (and a half float math function's inputs are half floats: ops.HALF_MATH)
        if arg == NUMPY_VALUES or not _corrected(op, inputs[0].dtype):
            return ufunc(*inputs, out=out)
        # NOTE: not into `out` first: the corrections read the inputs, which it may be
        return _into(out, correct(inputs, ufunc(*inputs)))

    # NOTE: a result these leave alone is the ufunc's
    run.ufunc_for = lambda arg, dtype: (
        ufunc if arg == NUMPY_VALUES or not _corrected(op, np.dtype(dtype)) else None
    )
    return run


def _floor_divided(inputs, result):
    return floor_divided(compat, *inputs, quotient=result)


def _complex_values(label: str):
    return lambda inputs, result: complex_values(compat, label, inputs[0], result)


def _corrected(op: Op, dtype: np.dtype) -> bool:
    """Whether special_values.py corrects `op`'s results of `dtype`."""
    return dtype.kind in CORRECTED[op]


def _where(inputs, arg, out=None):
    condition, x1, x2 = inputs
    if out is None:
        return np.where(condition, x1, x2)
    np.copyto(out, x2)
    np.copyto(out, x1, where=condition)
    return out


UFUNCS = {
    Op.SUBTRACT: _ufunc(np.subtract),
    Op.CLIP: _clip,
    Op.ADD: _ufunc(np.add),
    Op.MULTIPLY: _ufunc(np.multiply),
    Op.DIVIDE: _ufunc(np.divide),
    Op.NEGATIVE: _ufunc(np.negative),
    Op.ABS: _ufunc(np.abs),
    Op.MAXIMUM: _ufunc(np.maximum),
    Op.MINIMUM: _ufunc(np.minimum),
    Op.EQUAL: _ufunc(np.equal),
    Op.NOT_EQUAL: _ufunc(np.not_equal),
    Op.LESS: _ufunc(np.less),
    Op.LESS_EQUAL: _ufunc(np.less_equal),
    Op.GREATER: _ufunc(np.greater),
    Op.GREATER_EQUAL: _ufunc(np.greater_equal),
    Op.WHERE: _where,
    Op.REMAINDER: _ufunc(np.remainder),
    Op.POW: _power,
    Op.SQUARE: _ufunc(np.square),
    Op.RECIPROCAL: _ufunc(np.reciprocal),
    Op.SIGN: _ufunc(np.sign),
    Op.CEIL: _ufunc(np.ceil),
    Op.FLOOR: _ufunc(np.floor),
    Op.TRUNC: _ufunc(np.trunc),
    Op.ROUND: _round,
    Op.CONJ: _ufunc(np.conjugate),
    Op.COMPLEX: _complex,
    Op.ISFINITE: _ufunc(np.isfinite),
    Op.ISINF: _ufunc(np.isinf),
    Op.ISNAN: _ufunc(np.isnan),
    Op.SIGNBIT: _ufunc(np.signbit),
    Op.ATAN2: _ufunc(np.arctan2),
    Op.COPYSIGN: _ufunc(np.copysign),
    Op.HYPOT: _ufunc(np.hypot),
    Op.LOGADDEXP: _ufunc(np.logaddexp),
    Op.NEXTAFTER: _ufunc(np.nextafter),
    Op.EXP: _ufunc(np.exp),
    Op.EXPM1: _ufunc(np.expm1),
    Op.LOG: _ufunc(np.log),
    Op.LOG1P: _ufunc(np.log1p),
    Op.LOG2: _ufunc(np.log2),
    Op.LOG10: _ufunc(np.log10),
    Op.SQRT: _ufunc(np.sqrt),
    Op.SIN: _ufunc(np.sin),
    Op.COS: _ufunc(np.cos),
    Op.TAN: _ufunc(np.tan),
    Op.ASIN: _ufunc(np.arcsin),
    Op.ACOS: _ufunc(np.arccos),
    Op.ATAN: _ufunc(np.arctan),
    Op.SINH: _ufunc(np.sinh),
    Op.COSH: _ufunc(np.cosh),
    Op.TANH: _ufunc(np.tanh),
    Op.ASINH: _ufunc(np.arcsinh),
    Op.ACOSH: _ufunc(np.arccosh),
    Op.ATANH: _ufunc(np.arctanh),
    Op.BITWISE_AND: _ufunc(np.bitwise_and),
    Op.BITWISE_OR: _ufunc(np.bitwise_or),
    Op.BITWISE_XOR: _ufunc(np.bitwise_xor),
    Op.BITWISE_INVERT: _ufunc(np.invert),
    Op.BITWISE_LEFT_SHIFT: _ufunc(np.left_shift),
    Op.BITWISE_RIGHT_SHIFT: _ufunc(np.right_shift),
    Op.LOGICAL_AND: _ufunc(np.logical_and),
    Op.LOGICAL_OR: _ufunc(np.logical_or),
    Op.LOGICAL_XOR: _ufunc(np.logical_xor),
    Op.LOGICAL_NOT: _ufunc(np.logical_not),
}
UFUNCS.update({op: _special(op) for op in CORRECTED})
# Ops whose result depends on the spacing of their own dtype: half floats run them in that
# dtype, not in float32 (nextafter of float16 1.0 is 1 + 2**-10, which float32 rounds away).
OWN_DTYPE = frozenset({Op.NEXTAFTER})
# numpy's float16 loops of these keep the first operand on a tie (-0.0 against 0.0) where its
# float32 loops take the second: float16 runs them in float16 (a selection is exact anyway).
_FLOAT16_TIES = frozenset({Op.MAXIMUM, Op.MINIMUM, Op.CLIP})
# ml_dtypes' bfloat16 sign keeps a zero's sign (sign(-0.0) is -0.0) where numpy's float32 loop
# gives +0.0: bfloat16 runs it in bfloat16 where numpy's loops compute (its value is exact).
_BFLOAT16_OWN = frozenset({Op.SIGN})


def own_dtype(node, numpy_loops: bool = True) -> bool:
    """Whether a half float `node` computes in its own dtype rather than in float32: numpy's
    spacing and float16 ties, and where numpy's loops compute (`numpy_loops`: the host's
    devices) its half loops of the math functions (ops.HALF_MATH). A GPU's math functions are
    its own either way: it keeps computing them in float32."""
    op = node.op
    if op in OWN_DTYPE or (op in _FLOAT16_TIES and node.dtype == np.float16):
        return True
    bfloat16 = op in _BFLOAT16_OWN and node.dtype == _dtypes.bfloat16
    return numpy_loops and (op in HALF_MATH or bfloat16)


# NOTE: ASTYPE is evaluated by each device directly (its target dtype is the node's dtype).
