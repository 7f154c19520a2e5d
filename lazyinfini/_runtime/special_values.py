"""The standard's special values where a library's own functions miss them, written for any Array
API namespace `xp`: the host computes them in array_api_compat.numpy (numpy misses floor
division by infinities, complex expm1 and tanh), the cuda device in CuPy's (its complex math
uses the plain formulas at infinite, NaN and zero parts: log(inf + nan j) is NaN + NaN j), the
dask device per block in numpy. One place, so every device gives the same numbers.

Complex functions: the standard lists, for each function, its values where a part of z = a + bj
is infinite, NaN or zero, in one quadrant, and the symmetries giving the rest (f(conj z) =
conj f(z) for all; f(-z) = -f(z) for the odd sinh, tanh, asinh, atanh; cosh is even); sin, cos,
tan, asin and atan are defined through sinh, cosh, tanh, asinh and atanh. `complex_values`
computes the elements of z with such a part (rare: found first, in one pass) in that quadrant
by the namespace's function, overrides the listed cases (as the C99 standard's Annex G lists
them, which numpy follows: the standard's cases and the ones it leaves to C99), and maps the
results back by the symmetries. Elsewhere the namespace's values stand.

Spec: https://data-apis.org/array-api/latest/API_specification/elementwise_functions.html
"""

from __future__ import annotations

import math

INF, NAN, PI = math.inf, math.nan, math.pi


# -- real: floor division by infinities -------------------------------------------------------


def floor_divided(xp, x1, x2, quotient=None):
    """floor_divide with the standard's infinities: an infinite over a finite (or the reverse)
    is x1 / x2, where numpy's floor of fmod gives NaN for inf // 2 and -1 for -1 // inf.
    `quotient`: the namespace's floor_divide(x1, x2), where already computed."""
    out = xp.floor_divide(x1, x2) if quotient is None else quotient
    if not xp.isdtype(out.dtype, "real floating"):
        return out
    inf1, inf2 = xp.isinf(x1), xp.isinf(x2)
    finite2 = xp.logical_and(xp.isfinite(x2), xp.not_equal(x2, 0))
    mixed = xp.logical_or(xp.logical_and(inf1, finite2), xp.logical_and(xp.isfinite(x1), inf2))
    return xp.where(mixed, xp.divide(x1, x2), out)


# -- complex: the tables ------------------------------------------------------------------------
# Each row: (a is, b is, real part, imaginary part), the first matching row wins. A part is a
# number, or "cis": the sign of infinity or zero given by cos(b) (real) or sin(b) (imaginary),
# as "+infinity * cis(b)" and "+0 * cis(b)" say; "cis - 1" is expm1's "+0 * cis(b) - 1".
_ROWS = {
    "exp": [
        ("0", "+0", 1.0, 0.0),
        ("finite", "+inf", NAN, NAN),
        ("finite", "nan", NAN, NAN),
        ("+inf", "+0", INF, 0.0),
        ("-inf", "finite", "0 cis", "0 cis"),
        ("+inf", "finite", "inf cis", "inf cis"),
        ("-inf", "+inf", 0.0, 0.0),
        ("+inf", "+inf", INF, NAN),
        ("-inf", "nan", 0.0, 0.0),
        ("+inf", "nan", INF, NAN),
        ("nan", "+0", NAN, 0.0),
        ("nan", "any", NAN, NAN),
    ],
    "expm1": [
        ("0", "+0", 0.0, 0.0),
        ("finite", "+inf", NAN, NAN),
        ("finite", "nan", NAN, NAN),
        ("+inf", "+0", INF, 0.0),
        ("-inf", "finite", -1.0, "0 cis"),
        ("+inf", "finite", "inf cis", "inf cis"),
        ("-inf", "+inf", -1.0, 0.0),
        ("+inf", "+inf", INF, NAN),
        ("-inf", "nan", -1.0, 0.0),
        ("+inf", "nan", INF, NAN),
        ("nan", "+0", NAN, 0.0),
        ("nan", "any", NAN, NAN),
    ],
    "log": [
        ("-0", "+0", -INF, PI),
        ("+0", "+0", -INF, 0.0),
        ("finite", "+inf", INF, PI / 2),
        ("finite", "nan", NAN, NAN),
        ("-inf", "finite", INF, PI),
        ("+inf", "finite", INF, 0.0),
        ("-inf", "+inf", INF, 3 * PI / 4),
        ("+inf", "+inf", INF, PI / 4),
        ("inf", "nan", INF, NAN),
        ("nan", "+inf", INF, NAN),
        ("nan", "any", NAN, NAN),
    ],
    "log1p": [
        ("-1", "+0", -INF, 0.0),
        ("finite", "+inf", INF, PI / 2),
        ("finite", "nan", NAN, NAN),
        ("-inf", "finite", INF, PI),
        ("+inf", "finite", INF, 0.0),
        ("-inf", "+inf", INF, 3 * PI / 4),
        ("+inf", "+inf", INF, PI / 4),
        ("inf", "nan", INF, NAN),
        ("nan", "+inf", INF, NAN),
        ("nan", "any", NAN, NAN),
    ],
    "sqrt": [
        ("0", "+0", 0.0, 0.0),
        ("any", "+inf", INF, INF),
        ("finite", "nan", NAN, NAN),
        ("-inf", "finite", 0.0, INF),
        ("+inf", "finite", INF, 0.0),
        ("-inf", "nan", NAN, INF),
        ("+inf", "nan", INF, NAN),
        ("nan", "any", NAN, NAN),
    ],
    "acos": [
        ("0", "+0", PI / 2, -0.0),
        ("0", "nan", PI / 2, NAN),
        ("finite", "+inf", PI / 2, -INF),
        ("finite", "nan", NAN, NAN),
        ("-inf", "finite", PI, -INF),
        ("+inf", "finite", 0.0, -INF),
        ("-inf", "+inf", 3 * PI / 4, -INF),
        ("+inf", "+inf", PI / 4, -INF),
        ("inf", "nan", NAN, -INF),
        ("nan", "+inf", NAN, -INF),
        ("nan", "any", NAN, NAN),
    ],
    "acosh": [
        ("0", "+0", 0.0, PI / 2),
        ("finite", "+inf", INF, PI / 2),
        ("0", "nan", NAN, PI / 2),
        ("finite", "nan", NAN, NAN),
        ("-inf", "finite", INF, PI),
        ("+inf", "finite", INF, 0.0),
        ("-inf", "+inf", INF, 3 * PI / 4),
        ("+inf", "+inf", INF, PI / 4),
        ("inf", "nan", INF, NAN),
        ("nan", "+inf", INF, NAN),
        ("nan", "any", NAN, NAN),
    ],
    # odd: rows for a >= 0 too
    "asinh": [
        ("+0", "+0", 0.0, 0.0),
        ("finite", "+inf", INF, PI / 2),
        ("finite", "nan", NAN, NAN),
        ("+inf", "finite", INF, 0.0),
        ("+inf", "+inf", INF, PI / 4),
        ("+inf", "nan", INF, NAN),
        ("nan", "+0", NAN, 0.0),
        ("nan", "+inf", INF, NAN),
        ("nan", "any", NAN, NAN),
    ],
    "atanh": [
        ("+0", "+0", 0.0, 0.0),
        ("+0", "nan", 0.0, NAN),
        ("1", "+0", INF, 0.0),
        ("finite", "+inf", 0.0, PI / 2),
        ("finite", "nan", NAN, NAN),
        ("+inf", "finite", 0.0, PI / 2),
        ("+inf", "+inf", 0.0, PI / 2),
        ("+inf", "nan", 0.0, NAN),
        ("nan", "+inf", 0.0, PI / 2),
        ("nan", "any", NAN, NAN),
    ],
    "cosh": [
        ("+0", "+0", 1.0, 0.0),
        ("+0", "+inf", NAN, 0.0),
        ("+0", "nan", NAN, 0.0),
        ("finite", "+inf", NAN, NAN),
        ("finite", "nan", NAN, NAN),
        ("+inf", "+0", INF, 0.0),
        ("+inf", "finite", "inf cis", "inf cis"),
        ("+inf", "+inf", INF, NAN),
        ("+inf", "nan", INF, NAN),
        ("nan", "+0", NAN, 0.0),
        ("nan", "any", NAN, NAN),
    ],
    "sinh": [
        ("+0", "+0", 0.0, 0.0),
        ("+0", "+inf", 0.0, NAN),
        ("+0", "nan", 0.0, NAN),
        ("finite", "+inf", NAN, NAN),
        ("finite", "nan", NAN, NAN),
        ("+inf", "+0", INF, 0.0),
        ("+inf", "finite", "inf cis", "inf cis"),
        ("+inf", "+inf", INF, NAN),
        ("+inf", "nan", INF, NAN),
        ("nan", "+0", NAN, 0.0),
        ("nan", "any", NAN, NAN),
    ],
    "tanh": [
        ("+0", "+0", 0.0, 0.0),
        ("+0", "+inf", 0.0, NAN),
        ("finite", "+inf", NAN, NAN),
        ("+0", "nan", 0.0, NAN),
        ("finite", "nan", NAN, NAN),
        ("+inf", "finite", 1.0, 0.0),
        ("+inf", "+inf", 1.0, 0.0),
        ("+inf", "nan", 1.0, 0.0),
        ("nan", "+0", NAN, 0.0),
        ("nan", "any", NAN, NAN),
    ],
}
_ODD = frozenset({"asinh", "atanh", "sinh", "tanh"})
_EVEN = frozenset({"cosh"})
# f(z) = -i g(i z) (sin, tan, asin, atan) or g(i z) (cos): their special cases are g's
_ROTATED = {"sin": "sinh", "tan": "tanh", "asin": "asinh", "atan": "atanh", "cos": "cosh"}
# numpy's log2(z) and log10(z) are log(z) times its NPY_LOG2E and NPY_LOG10E, these doubles (the
# rounded 1 / log(10) is an ulp below NPY_LOG10E: log10(2.5j) would be an ulp off numpy's)
_SCALED = {"log2": math.log2(math.e), "log10": math.log10(math.e)}


def _parts(xp, name: str, z, signs=None):
    """The real and imaginary parts of `name`(z) at elements z with a special part; `signs`:
    the sign bits of z's parts (default: read from z)."""
    if name in _ROTATED:
        sa, sb = signs or _signs(xp, z)
        # NOTE: i z = -b + a i. The sign of -b is not read back from the negated array: a GPU's
        # negation leaves a NaN's sign bit as it was (numpy's flips it), and numpy's results at
        # NaN parts follow the sign bits as C's negation leaves them.
        re, im = _parts(xp, _ROTATED[name], _times_i(xp, z), (xp.logical_not(sb), sa))
        return (re, im) if name == "cos" else (im, xp.negative(re))  # NOTE: -i (re + im i)
    if name in _SCALED:
        re, im = _parts(xp, "log", z)
        return xp.multiply(re, _SCALED[name]), xp.multiply(im, _SCALED[name])
    if name == "reciprocal":
        return _reciprocal(xp, xp.real(z), xp.imag(z))
    if name == "sign":
        return _sign(xp, xp.real(z), xp.imag(z))
    return _tabled(xp, name, z, signs or _signs(xp, z))


def _signs(xp, z):
    return xp.signbit(xp.real(z)), xp.signbit(xp.imag(z))


def _tabled(xp, name: str, z, signs):
    """A tabled function's parts: computed in the quadrant its rows describe, the rows
    applied, mapped back by its symmetries (by `signs`, the sign bits of z's parts)."""
    a, b = xp.real(z), xp.imag(z)
    sign_a, sign_b = signs
    flip_a = name in _ODD or name in _EVEN
    a0 = xp.abs(a) if flip_a else a
    b0 = xp.abs(b)
    w = getattr(xp, name)(_complex(xp, a0, b0))
    re, im = xp.real(w), xp.imag(w)
    for row in reversed(_ROWS[name]):  # NOTE: reversed: the first matching row is applied last
        re, im = _applied(xp, row, a0, b0, re, im)
    conj = xp.logical_xor(sign_b, sign_a) if flip_a else sign_b
    im = xp.where(conj, xp.negative(im), im)
    if name in _ODD:
        re = xp.where(sign_a, xp.negative(re), re)
        im = xp.where(sign_a, xp.negative(im), im)
    return re, im


def _applied(xp, row, a, b, re, im):
    is_a, is_b, value_re, value_im = row
    where = xp.logical_and(_IS[is_a](xp, a), _IS[is_b](xp, b))
    return _part(xp, where, value_re, b, xp.cos, re), _part(xp, where, value_im, b, xp.sin, im)


def _part(xp, where, value, b, trig, current):
    if isinstance(value, float):
        return xp.where(where, value, current)
    scale = INF if value == "inf cis" else 0.0
    return xp.where(where, xp.multiply(scale, trig(b)), current)  # NOTE: b finite there


_IS = {
    "any": lambda xp, x: xp.ones_like(x, dtype=xp.bool),
    "0": lambda xp, x: xp.equal(x, 0),
    "+0": lambda xp, x: xp.logical_and(xp.equal(x, 0), xp.logical_not(xp.signbit(x))),
    "-0": lambda xp, x: xp.logical_and(xp.equal(x, 0), xp.signbit(x)),
    "1": lambda xp, x: xp.equal(x, 1),
    "-1": lambda xp, x: xp.equal(x, -1),
    "finite": lambda xp, x: xp.isfinite(x),
    "+inf": lambda xp, x: xp.equal(x, INF),
    "-inf": lambda xp, x: xp.equal(x, -INF),
    "inf": lambda xp, x: xp.isinf(x),
    "nan": lambda xp, x: xp.isnan(x),
}


def _times_i(xp, z):
    return _complex(xp, xp.negative(xp.imag(z)), xp.real(z))


def _reciprocal(xp, a, b):
    """numpy's 1 / z (Smith's: no overflow in |z|^2): 1/inf j is -0j, where the textbook
    formula (a - bi) / (a^2 + b^2) gives NaN."""
    div, mul, add = xp.divide, xp.multiply, xp.add
    small = xp.less_equal(xp.abs(b), xp.abs(a))
    r = xp.where(small, div(b, a), div(a, b))
    d = xp.where(small, add(a, mul(b, r)), add(mul(a, r), b))
    one = xp.ones_like(d)
    re = xp.where(small, div(one, d), div(r, d))
    return re, xp.negative(xp.where(small, div(r, d), div(one, d)))


def _sign(xp, a, b):
    """The standard's sign(z): 0 at 0, NaN + NaN j where a part is NaN, else z / |z| by
    division's rules as numpy applies them: an infinite part gives its unit direction."""
    size = xp.hypot(a, b)
    re, im = xp.divide(a, size), xp.divide(b, size)
    inf_a, inf_b = xp.isinf(a), xp.isinf(b)
    only_a = xp.logical_and(inf_a, xp.logical_not(inf_b))
    only_b = xp.logical_and(inf_b, xp.logical_not(inf_a))
    re = xp.where(only_a, xp.sign(a), xp.where(only_b, 0.0, re))
    im = xp.where(only_a, 0.0, xp.where(only_b, xp.sign(b), im))
    both = xp.logical_or(xp.logical_and(inf_a, inf_b), xp.isnan(size))
    zero = xp.equal(size, 0)
    re = xp.where(zero, 0.0, xp.where(both, NAN, re))
    return re, xp.where(zero, 0.0, xp.where(both, NAN, im))


def _complex(xp, re, im):
    """The complex array of parts `re` and `im`, bit for bit (re + im * 1j would make a NaN of
    an infinite part). NOTE: the standard has no such constructor; numpy's and CuPy's arrays
    view a stacked pair of reals as complex."""
    dtype = xp.complex128 if re.dtype == xp.float64 else xp.complex64
    pairs = xp.stack((re, im), axis=-1)
    return pairs.view(dtype)[..., 0]


COMPLEX = frozenset(_ROWS) | frozenset(_ROTATED) | frozenset(_SCALED) | {"reciprocal", "sign"}


def complex_values(xp, name: str, x, out):
    """`out` (the namespace's `name`(x)) with the standard's values where x is complex with an
    infinite, NaN or zero part."""
    if not xp.isdtype(out.dtype, "complex floating"):
        return out
    # NOTE: x may be broadcast against out (a host chunk's 0-d fill)
    z = xp.reshape(xp.broadcast_to(xp.astype(x, out.dtype, copy=False), out.shape), (-1,))
    a, b = xp.real(z), xp.imag(z)
    product = xp.multiply(a, b)  # NOTE: 0, infinite or NaN where a part is (or it under/overflows)
    special = xp.logical_not(xp.logical_and(xp.isfinite(product), xp.not_equal(product, 0)))
    if not bool(xp.any(special)):  # NOTE: on a GPU, a wait for the device (complex only)
        return out
    (where,) = xp.nonzero(special)
    re, im = _parts(xp, name, xp.take(z, where, axis=0))
    flat = xp.reshape(xp.asarray(out, copy=True), (-1,))
    flat[where] = _complex(xp, xp.astype(re, a.dtype), xp.astype(im, a.dtype))
    return xp.reshape(flat, out.shape)


def _computed(name: str):
    def function(xp, x):
        return complex_values(xp, name, x, getattr(xp, name)(x))

    return function


# Op label -> its function of (xp, *inputs) giving the standard's special values
SPECIAL_VALUES = {name: _computed(name) for name in COMPLEX}
SPECIAL_VALUES["floor_divide"] = floor_divided
