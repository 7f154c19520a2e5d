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
same bits on every device). A real operand counts too: cast, its imaginary part is +0, and
where a product underflows the two formulas give zeros of other signs.

Which calls those are is not modelled: numpy's iterator decides, and its build (a CPU without
FMA has one formula). The first call of each form (the operands' dtypes, dimensions, and which
the call writes into) asks numpy: it multiplies probe values whose two formulas differ, in that
form and in a long contiguous array, and the answer is kept.
"""

from __future__ import annotations

import numpy as np

from .._array import Array
from .._graph import Node, Op, caller_source, quick_node

# Probe values, by the result's dtype. Of two complex operands: a part whose products round
# differently in the two formulas (their exact values need more bits than the result keeps, but
# no tie), by the operand's dtype. Of a real operand (cast: its imaginary part +0) and a complex
# one: a product that underflows, whose zero is -0 in the fused formula and +0 in the plain one
# (-0 - (-0)): (the real value, the complex one).
_PROBE_PART = {np.dtype(np.complex64): 1 + 2.0**-13, np.dtype(np.complex128): 1 + 2.0**-41}
_UNDERFLOW = {
    np.dtype(np.complex64): (2.0**-100, complex(-(2.0**-100), -1.0)),
    np.dtype(np.complex128): (2.0**-1000, complex(-(2.0**-100), -1.0)),
}
_FORMS: dict = {}  # form -> whether numpy's call of that form takes the plain formula
_PRODUCTS = (Op.MULTIPLY, Op.SQUARE)
_WEAK = frozenset((bool, int, float, complex))


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
    result = node.dtype
    key = (node.op, tuple(_form(v, result) for v in operands), into, result)
    found = _FORMS.get(key)
    if found is None:
        found = _FORMS[key] = _probe(*key)
    return found


def _form(value, result: np.dtype) -> tuple:
    """(dtype, dimensions: None for a scalar) of an operand as the probe makes it. A complex
    one keeps its dtype; a real one is cast in numpy's loop, as a real array of the result's
    part dtype is; a Python number is one of the result's dtype (numpy's weak scalars)."""
    if type(value) in _WEAK:  # NOTE: by type: numpy's scalars (np.float64 too) are strong
        return result, None
    dtype = value.dtype
    if dtype.kind != "c":
        dtype = np.dtype(result.char.lower())
    return dtype, (None if isinstance(value, np.generic) else value.ndim)


def _probe(op: Op, forms: tuple, into: tuple, result: np.dtype) -> bool:
    """Whether numpy's call of this form gives the plain formula's bits where its long loop's
    differ (False where the two agree on this machine: nothing to follow)."""
    values = _probe_values(forms, result)
    if len(into) == 2:
        values[1] = values[0]  # NOTE: x *= x
    parts = [complex(np.ravel(v)[0]) for v in values] * (2 if op is Op.SQUARE else 1)
    out = values[into[0]] if into else None
    try:
        got = np.square(values[0], out=out) if op is Op.SQUARE else np.multiply(*values, out=out)
    except TypeError:  # NOTE: a complex product into a real array: the write raises anyway
        return False
    long = np.multiply(*(np.full(8, p, result) for p in parts))[:1]
    plain = _plain_formula(*parts, np.dtype(result.char.lower()))
    got = np.ravel(got)[:1]  # NOTE: compared in its dtype: an out= may be narrower
    plain, long = np.asarray([plain], got.dtype), long.astype(got.dtype)
    return got.tobytes() == plain.tobytes() != long.tobytes()


def _probe_values(forms: tuple, result: np.dtype) -> list:
    reals = [dtype.kind != "c" for dtype, _ in forms]
    if any(reals):
        real, other = _UNDERFLOW[result]
        picked = [real if is_real else other for is_real in reals]
    else:
        picked = [complex(_PROBE_PART[dtype], 1.0) for dtype, _ in forms]
    return [
        dtype.type(v) if ndim is None else np.full((1,) * ndim, v, dtype)
        for (dtype, ndim), v in zip(forms, picked, strict=True)
    ]


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
