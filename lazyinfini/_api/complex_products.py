"""numpy's complex product of one element, which takes another formula than longer ones.

numpy's complex multiply (and square) loop is SIMD where the CPU has it, and there its real
part is one fused multiply-add: a_r*b_r - (a_i*b_i) rounded once after the first product. Where
the loop's strides rule SIMD out, it runs a plain loop, every product rounded (numpy's
loops_arithm_fp.dispatch.c.src), and the last bit differs in about half the products. Arrays of
one element are where a numpy call meets such strides: written in place (`z *= w`,
`np.square(z, out=z)`), or run through numpy's iterator (a cast operand of two dimensions, or
operands of different dimensions: `(1, 1) complex64 * (1, 1) complex128`). lazyinfini's kernels
take numpy's SIMD loop there (or a GPU's own), so for those calls the product is recorded as the
plain formula over the parts instead (each part a movement, each product a real multiply: the
same bits on every device).

Which calls those are is not modelled: numpy's iterator decides, and its build (a CPU without
FMA has one formula). The first call of each form (the operands' dtypes, dimensions, and which
the call writes into) asks numpy: it multiplies probe values whose two formulas differ, in that
form and in a long contiguous array, and the answer is kept.
"""

from __future__ import annotations

import numpy as np

from .._array import Array
from .._graph import Node, Op, caller_source, quick_node

# a part of each probe operand, by its dtype: its products round differently in the two
# formulas (their exact values need more bits than the result keeps, but no tie)
_PROBE_PART = {np.dtype(np.complex64): 1 + 2.0**-13, np.dtype(np.complex128): 1 + 2.0**-41}
_FORMS: dict = {}  # form -> whether numpy's call of that form takes the plain formula
_PRODUCTS = (Op.MULTIPLY, Op.SQUARE)


def fresh(product: Array, x1, x2) -> Array:
    """x1 * x2 (`product`, as recorded) computed into new memory, numpy's way for its form."""
    node = product._n
    if node.dtype.kind != "c" or node.nbytes != node.dtype.itemsize:
        return product  # NOTE: the common case, two attribute reads
    return _plain(node) if _takes_plain(node, (x1, x2), ()) else product


def written(product: Array, operands: tuple, out: Array) -> Array:
    """`product` (a multiply or square of `operands`) written into `out` (x *= w: x;
    np.multiply(w, x, out=x)), numpy's way for its form."""
    node = product._n
    if node.op not in _PRODUCTS or node.dtype.kind != "c" or node.nbytes != node.dtype.itemsize:
        return product
    if node.op is Op.SQUARE:
        operands = operands[:1]  # NOTE: x **= 2 is square(x): the 2 is no operand
    into = tuple(i for i, v in enumerate(operands) if v is out)
    return _plain(node) if _takes_plain(node, operands, into) else product


def _takes_plain(node: Node, operands: tuple, into: tuple) -> bool:
    forms = tuple(_form(v, node.dtype) for v in operands)
    if any(f is None for f in forms):
        return False  # NOTE: a real operand has no imaginary part: both formulas agree
    key = (node.op, forms, into)
    found = _FORMS.get(key)
    if found is None:
        found = _FORMS[key] = _probe(node.op, forms, into, node.dtype)
    return found


def _form(value, result: np.dtype):
    """(dtype, dimensions) of a complex operand, its dtype the result's for a Python number
    (numpy's weak scalars); None for a real one."""
    if isinstance(value, complex):
        return result, None
    dtype = getattr(value, "dtype", None)
    if dtype is None or dtype.kind != "c":
        return None
    return dtype, (None if isinstance(value, np.generic) else value.ndim)


def _probe(op: Op, forms: tuple, into: tuple, result: np.dtype) -> bool:
    """Whether numpy's call of this form gives the plain formula's bits where its long loop's
    differ (False where the two agree on this machine: nothing to follow)."""
    values = [_probe_value(dtype, ndim) for dtype, ndim in forms]
    if len(into) == 2:
        values[1] = values[0]  # NOTE: x *= x
    parts = [complex(np.ravel(v)[0]) for v in values] * (2 if op is Op.SQUARE else 1)
    out = values[into[0]] if into else None
    got = np.square(values[0], out=out) if op is Op.SQUARE else np.multiply(*values, out=out)
    long = np.multiply(*(np.full(8, p, result) for p in parts))[0]
    plain = _plain_formula(*parts, np.dtype(result.char.lower()))
    got = np.ravel(got)[0].astype(result)
    return bool(got == plain and got != long)


def _probe_value(dtype: np.dtype, ndim):
    part = _PROBE_PART[dtype]
    value = dtype.type(complex(part, 1.0))
    return value if ndim is None else np.full((1,) * ndim, value, dtype)


def _plain_formula(a: complex, b: complex, real: np.dtype) -> complex:
    ar, ai, br, bi = (real.type(v) for v in (a.real, a.imag, b.real, b.imag))
    return complex(ar * br - ai * bi, ar * bi + ai * br)


def _plain(node: Node) -> Array:
    """The product `node` records, as numpy's plain loop computes it: the real part
    a_r*b_r - a_i*b_i, the imaginary part a_r*b_i + a_i*b_r, each product rounded."""
    from .elementwise import add, imag, multiply, real, subtract  # NOTE: they import this

    a, b = (Array(node.srcs[0]),) * 2 if node.op is Op.SQUARE else map(Array, node.srcs)
    ar, ai, br, bi = real(a), imag(a), real(b), imag(b)
    re = subtract(multiply(ar, br), multiply(ai, bi))
    im = add(multiply(ar, bi), multiply(ai, br))
    parts = (re._n, im._n)
    return Array(quick_node(Op.COMPLEX, parts, node.shape, node.dtype, None, caller_source()))
