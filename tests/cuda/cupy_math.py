"""Where CuPy's numbers are not numpy's, for the emulated device (emulator.py) to fail where a GPU
fails (../shared/notes/gpu-measured.md, "CuPy against numpy on special values"):

- a fill of a value equal to 0 comes out +0.0: `ndarray.fill` and `cupy.asarray` of a 0-d array
  (or a Python scalar) memset the buffer when the value == 0, so -0.0 loses its sign
  (`cupy.full` keeps it: an elementwise copy of the scalar);
- negation leaves a NaN's sign bit as it was (seen on an H100: `-x`, `cupy.negative` and
  `0 - x` of NaN and of -NaN), where numpy flips it; numpy's complex functions at NaN parts
  follow those sign bits, so a correction must not read them back from a negated array;
- complex functions at special values (an infinite, NaN or zero part) are computed by the plain
  formulas (log z = log|z| + i arg z, exp z = e^a cis b, tanh z = sinh z / cosh z, 1/z, ...),
  without numpy's (C99's) care for infinities, NaNs and signed zeros. Elsewhere numpy's values
  stand (CuPy's differ there by an ulp or so: a tolerance matter, not a special value).

Nothing here claims CuPy's exact values at every special input: it makes the same kinds of
mistakes, in more places, so a device that corrects them here corrects CuPy's.
"""

from __future__ import annotations

import numpy as np


def filled(value: np.ndarray) -> np.ndarray:
    """A 0-d host value as CuPy's fill leaves it on the device: a value equal to 0 is all zero
    bytes (+0.0, +0 + 0j)."""
    value = np.array(value)
    if value.ndim == 0 and value.dtype.kind in "fc" and value == 0:
        return np.zeros((), value.dtype)
    return value


def negative(numpys):
    """numpy's negative as CuPy's: a NaN keeps its sign bit."""

    def function(x, /, *args, **kwargs):
        out = numpys(x, *args, **kwargs)
        if isinstance(x, np.ndarray) and x.dtype.kind in "fc":
            out = np.where(np.isnan(x), x, out)
        return out

    return function


# -- complex arithmetic on parts, by the textbook formulas --------------------------------------


def _mul(x, y):
    (a, b), (c, d) = x, y
    return a * c - b * d, a * d + b * c


def _div(x, y):
    (a, b), (c, d) = x, y
    den = c * c + d * d
    return (a * c + b * d) / den, (b * c - a * d) / den


def _add(x, y):
    return x[0] + y[0], x[1] + y[1]


def _hypot(a, b):
    # NOTE: NaN wins over an infinity (C99's hypot gives inf): log(inf + nan j) is NaN
    return np.where(np.isnan(a) | np.isnan(b), np.nan, np.hypot(a, b))


def _log(z):
    a, b = z
    return np.log(_hypot(a, b)), np.arctan2(b, a)


def _exp(z):
    a, b = z
    return np.exp(a) * np.cos(b), np.exp(a) * np.sin(b)


def _sinh(z):
    a, b = z
    return np.sinh(a) * np.cos(b), np.cosh(a) * np.sin(b)


def _cosh(z):
    a, b = z
    return np.cosh(a) * np.cos(b), np.sinh(a) * np.sin(b)


def _sin(z):
    a, b = z
    return np.sin(a) * np.cosh(b), np.cos(a) * np.sinh(b)


def _cos(z):
    a, b = z
    return np.cos(a) * np.cosh(b), -(np.sin(a) * np.sinh(b))


def _sqrt(z):
    w = np.sqrt(_joined(*z))  # NOTE: CuPy's complex sqrt agrees with numpy's at every value
    return w.real, w.imag


def _asinh(z):
    one = (np.ones_like(z[0]), np.zeros_like(z[0]))
    return _log(_add(z, _sqrt(_add(_mul(z, z), one))))


def _acosh(z):
    one = (np.ones_like(z[0]), np.zeros_like(z[0]))
    minus = (z[0] - 1, z[1])
    return _log(_add(z, _mul(_sqrt(_add(z, one)), _sqrt(minus))))


def _times_i(z):
    return -z[1], z[0]


def _times_minus_i(z):
    return z[1], -z[0]


def _scaled(z, c):
    return _div(z, (np.full_like(z[0], c), np.zeros_like(z[0])))


def _sign(z):
    h = _hypot(*z)
    return z[0] / h, z[1] / h


PLAIN = {
    "exp": _exp,
    "expm1": lambda z: (_exp(z)[0] - 1, _exp(z)[1]),
    "log": _log,
    "log1p": lambda z: _log((z[0] + 1, z[1])),
    "log2": lambda z: _scaled(_log(z), np.log(2.0)),
    "log10": lambda z: _scaled(_log(z), np.log(10.0)),
    "sin": _sin,
    "cos": _cos,
    "tan": lambda z: _div(_sin(z), _cos(z)),
    "sinh": _sinh,
    "cosh": _cosh,
    "tanh": lambda z: _div(_sinh(z), _cosh(z)),
    "asin": lambda z: _times_minus_i(_asinh(_times_i(z))),
    "asinh": _asinh,
    "acosh": _acosh,
    "reciprocal": lambda z: _div((np.ones_like(z[0]), np.zeros_like(z[0])), z),
    "sign": _sign,
}


def _joined(re, im):
    out = np.empty(np.shape(re), np.result_type(re, np.complex64))
    out.real, out.imag = re, im
    return out


def plain(name: str, numpys):
    """numpy's complex function `name` as CuPy computes it: the plain formula where a part is
    infinite, NaN or zero."""
    formula = PLAIN[name]

    def function(x, /, *args, **kwargs):
        out = numpys(x, *args, **kwargs)
        if not (isinstance(x, np.ndarray) and x.dtype.kind == "c"):
            return out
        a, b = x.real, x.imag
        special = ~(np.isfinite(a) & np.isfinite(b)) | (a == 0) | (b == 0)
        if not special.any():
            return out
        with np.errstate(all="ignore"):
            re, im = formula((a[special], b[special]))
        out = np.array(out, copy=True)
        out[special] = _joined(re, im).astype(out.dtype)
        return out

    return function
