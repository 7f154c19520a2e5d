"""The fft extension (li.fft): each transform records one FFT node, run by the executor as one
call into array_api_compat.numpy.fft. fftshift/ifftshift are rolls; fftfreq/rfftfreq are a
range and one fused elementwise kernel.

Real input to a complex transform (fft, ifft, fftn, ifftn, irfft, irfftn, hfft) is first cast
to the complex dtype of its precision (float32 -> complex64), as numpy-style scripts expect.
Spec: https://data-apis.org/array-api/latest/extensions/fourier_transform_functions.html
"""

from __future__ import annotations

from . import _dtypes
from ._api.checks import (
    check_array,
    check_dtype_arg,
    check_dtype_in,
    check_int,
    check_size,
    error,
    normalize_axis,
)
from ._api.creation import arange
from ._api.data_types import astype
from ._api.elementwise import conform, less, multiply, subtract, where
from ._api.manipulation import roll
from ._array import Array, record
from ._device import check_device_arg
from ._graph import Op, caller_source
from .linalg import _complex, _real

__all__ = [
    "fft",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfftn",
    "rfft",
    "rfftfreq",
    "rfftn",
]

_SPEC = "https://data-apis.org/array-api/latest/extensions/generated/array_api.fft"
_NORMS = ("backward", "ortho", "forward")


def _input(func: str, x, complex_in: bool):
    """x checked; returns it and its node, cast to complex when the transform takes complex."""
    check_array(func, "x", x)
    check_dtype_in(func, "x", x.dtype, "floating" if complex_in else "real floating")
    node = x._node
    if complex_in:
        node = conform(node, _complex(x.dtype), x.shape, caller_source())
    return x, node


def _record(func: str, node, shape, dtype, norm, **kwargs) -> Array:
    if norm not in _NORMS:
        raise error(ValueError, func, f"norm must be one of {_NORMS}, got {norm!r}")
    check_size(func, shape, dtype.itemsize)
    arg = (("_function", func), *sorted(kwargs.items()), ("norm", norm))
    return record(Op.FFT, (node,), shape, dtype, arg, caller_source())


def _with(shape: tuple[int, ...], axis: int, size: int) -> tuple[int, ...]:
    return shape[:axis] + (size,) + shape[axis + 1 :]


# -- one axis ------------------------------------------------------------------------------------


def _one_axis(func: str, x, n, axis, norm, kind: str) -> Array:
    """kind: 'c2c' (fft, ifft), 'r2c' (rfft, ihfft: n//2+1 outputs), 'c2r' (irfft, hfft:
    n outputs from n//2+1 inputs, n defaulting to 2*(M-1))."""
    x, node = _input(func, x, complex_in=kind != "r2c")
    axis = normalize_axis(func, axis, x.ndim)
    size = x.shape[axis]
    n = (2 * (size - 1) if kind == "c2r" else size) if n is None else n
    n = check_int(func, "n", n, minimum=1)
    if kind == "c2c":
        shape, dtype = _with(x.shape, axis, n), _complex(x.dtype)
    elif kind == "r2c":
        shape, dtype = _with(x.shape, axis, n // 2 + 1), _complex(x.dtype)
    else:
        shape, dtype = _with(x.shape, axis, n), _real(_complex(x.dtype))
    return _record(func, node, shape, dtype, norm, n=n, axis=axis)


def fft(x, /, n=None, axis=-1, norm="backward") -> Array:
    """The 1-d discrete Fourier transform."""
    return _one_axis("fft", x, n, axis, norm, "c2c")


def ifft(x, /, n=None, axis=-1, norm="backward") -> Array:
    """The 1-d inverse discrete Fourier transform."""
    return _one_axis("ifft", x, n, axis, norm, "c2c")


def rfft(x, /, n=None, axis=-1, norm="backward") -> Array:
    """The 1-d transform of real input (the n//2+1 non-negative frequencies)."""
    return _one_axis("rfft", x, n, axis, norm, "r2c")


def irfft(x, /, n=None, axis=-1, norm="backward") -> Array:
    """The inverse of rfft: n real outputs."""
    return _one_axis("irfft", x, n, axis, norm, "c2r")


def hfft(x, /, n=None, axis=-1, norm="backward") -> Array:
    """The transform of a Hermitian-symmetric signal: n real outputs."""
    return _one_axis("hfft", x, n, axis, norm, "c2r")


def ihfft(x, /, n=None, axis=-1, norm="backward") -> Array:
    """The inverse of hfft: n//2+1 complex outputs from real input."""
    return _one_axis("ihfft", x, n, axis, norm, "r2c")


# -- several axes --------------------------------------------------------------------------------


def _axes(func: str, x: Array, s, axes) -> tuple[int, ...]:
    for name, value in (("s", s), ("axes", axes)):
        if value is not None and not isinstance(value, (tuple, list)):
            raise error(TypeError, func, f"{name} must be a tuple of ints, got {value!r}")
    if axes is None:
        # Note: with s but no axes the last len(s) axes are used, as numpy does.
        return tuple(range(x.ndim - len(s) if s is not None else 0, x.ndim))
    normalized = tuple(normalize_axis(func, a, x.ndim) for a in axes)
    if len(set(normalized)) != len(normalized):
        raise error(ValueError, func, f"repeated axis in {axes}")
    return normalized


def _n_axes(func: str, x, s, axes, norm, kind: str) -> Array:
    """fftn, ifftn ('c2c'), rfftn ('r2c') and irfftn ('c2r') over `axes` with sizes `s`."""
    x, node = _input(func, x, complex_in=kind != "r2c")
    axes = _axes(func, x, s, axes)
    if not axes:
        raise error(ValueError, func, f"no axes to transform for shape {x.shape}")
    if s is not None and len(s) != len(axes):
        raise error(ValueError, func, f"s {s} and axes {axes} differ in length")
    sizes = [x.shape[a] for a in axes]
    if kind == "c2r":
        sizes[-1] = 2 * (sizes[-1] - 1)
    if s is not None:
        sizes = [m if _size_or_minus(func, n) == -1 else n for m, n in zip(sizes, s, strict=True)]
    sizes = [check_int(func, "s", n, minimum=1) for n in sizes]
    shape = x.shape
    for a, n in zip(axes, sizes, strict=True):
        shape = _with(shape, a, n)
    dtype = _complex(x.dtype) if kind != "c2r" else _real(_complex(x.dtype))
    if kind == "r2c":
        shape = _with(shape, axes[-1], sizes[-1] // 2 + 1)
    return _record(func, node, shape, dtype, norm, s=tuple(sizes), axes=axes)


def _size_or_minus(func: str, n) -> int:
    # Note (spec): -1 in s means "the input's size along that axis".
    return -1 if n == -1 and not isinstance(n, bool) else check_int(func, "s", n, minimum=1)


def fftn(x, /, s=None, axes=None, norm="backward") -> Array:
    """The n-d discrete Fourier transform."""
    return _n_axes("fftn", x, s, axes, norm, "c2c")


def ifftn(x, /, s=None, axes=None, norm="backward") -> Array:
    """The n-d inverse discrete Fourier transform."""
    return _n_axes("ifftn", x, s, axes, norm, "c2c")


def rfftn(x, /, s=None, axes=None, norm="backward") -> Array:
    """The n-d transform of real input (the last axis halved)."""
    return _n_axes("rfftn", x, s, axes, norm, "r2c")


def irfftn(x, /, s=None, axes=None, norm="backward") -> Array:
    """The inverse of rfftn: real outputs of sizes s."""
    return _n_axes("irfftn", x, s, axes, norm, "c2r")


# -- frequencies and shifts ----------------------------------------------------------------------


def _frequency_args(func: str, n, d, dtype, device):
    check_device_arg(func, device)
    n = check_int(func, "n", n, minimum=1)
    if isinstance(d, bool) or not isinstance(d, (int, float)):
        raise error(TypeError, func, f"d must be a real number, got {d!r}")
    if d == 0:
        raise error(ValueError, func, "d (the sample spacing) must not be 0")
    dtype = _dtypes.DEFAULT_FLOAT if dtype is None else check_dtype_arg(func, dtype)
    if dtype not in _dtypes.REAL_FLOATING:
        raise error(TypeError, func, f"dtype must be a real floating dtype, got {dtype.name}")
    check_size(func, (n,), _dtypes.float64.itemsize)
    return n, 1.0 / (n * d), dtype


def fftfreq(n, /, d=1.0, device=None, *, dtype=None) -> Array:
    """The sample frequencies of an n-point transform with sample spacing d."""
    n, scale, dtype = _frequency_args("fftfreq", n, d, dtype, device)
    k = arange(n, dtype=_dtypes.DEFAULT_INT)
    # [0, 1, ..., ceil(n/2)-1, -floor(n/2), ..., -1], scaled in float64 like numpy, then cast.
    signed = where(less(k, (n + 1) // 2), k, subtract(k, n))
    return astype(multiply(astype(signed, _dtypes.float64), scale), dtype)


def rfftfreq(n, /, d=1.0, device=None, *, dtype=None) -> Array:
    """The non-negative sample frequencies of an n-point real transform."""
    n, scale, dtype = _frequency_args("rfftfreq", n, d, dtype, device)
    k = arange(n // 2 + 1, dtype=_dtypes.float64)
    return astype(multiply(k, scale), dtype)


def _shift(func: str, x, axes, sign: int) -> Array:
    check_array(func, "x", x)
    if axes is None:
        axes = tuple(range(x.ndim))
    elif not isinstance(axes, (tuple, list)):
        axes = (axes,)
    axes = tuple(normalize_axis(func, a, x.ndim) for a in axes)
    return roll(x, tuple(sign * (x.shape[a] // 2) for a in axes), axis=axes)


def fftshift(x, /, axes=None) -> Array:
    """x with the zero frequency moved to the middle (a roll by n//2 per axis)."""
    return _shift("fftshift", x, axes, 1)


def ifftshift(x, /, axes=None) -> Array:
    """The inverse of fftshift (a roll by -(n//2) per axis)."""
    return _shift("ifftshift", x, axes, -1)


def _document() -> None:
    """Each public function's docstring gets its spec link (one line + link, as elsewhere)."""
    for name in __all__:
        fn = globals()[name]
        fn.__doc__ = f"{fn.__doc__} {_SPEC}.{name}.html"


_document()
