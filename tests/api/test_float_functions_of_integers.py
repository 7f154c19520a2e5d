"""The float functions of bool and integer arrays (an extension, docs/dtypes.md) compute in the
dtype numpy's loops pick, the smallest float holding every value (bool, int8, uint8: float16;
int16, uint16: float32; wider: float64), and give numpy's values there: as namespace functions
and numpy ufuncs, with a Python number, on the numpy path and in compiled C. True division
and reciprocal give float64."""

from __future__ import annotations

import numpy as np
import pytest

import lazyinfini as li

INTEGERS = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
UNARY = ["exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "sin", "cos", "tan"]
UNARY += ["arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh"]
BINARY = ["arctan2", "hypot", "logaddexp", "copysign", "nextafter", "divide"]


def _values(dtype: str, n: int) -> np.ndarray:
    if dtype == "bool":
        return np.arange(n) % 3 == 0
    info = np.iinfo(dtype)
    edges = [info.min, info.max, 0, 1, 2, 100 % (info.max + 1)]
    return np.resize(np.array(edges, dtype=object), n).astype(dtype)


def _same(got, want) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)  # NOTE: NaN equals NaN here
    assert np.array_equal(np.signbit(got), np.signbit(want))


@pytest.fixture(params=["small", "compiled"])
def size(request):
    """33 values on the numpy path, or 3,000 in a kernel the cpu compiles."""
    if request.param == "small":
        yield 33
        return
    from tests.conftest import cpu_variant

    gen = cpu_variant("cpu-compiled-integers", compile_min=0)
    with li.options(device=next(gen)):
        yield 3000
    next(gen, None)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NOTE: numpy's log(0), arcsin(2), ...
@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", INTEGERS)
def test_a_float_function_of_integers_is_numpys(name, dtype, size):
    x = _values(dtype, size)
    fn = getattr(np, name)
    _same(fn(li.asarray(x)), fn(x))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", INTEGERS)
def test_a_binary_float_function_of_integers_is_numpys(name, dtype, size):
    x, y = _values(dtype, size), _values(dtype, size)[::-1].copy()
    fn = getattr(np, name)
    _same(fn(li.asarray(x), li.asarray(y)), fn(x, y))
    if dtype != "bool":  # NOTE: a Python int keeps the array's dtype (weak), as in numpy
        _same(fn(li.asarray(x), 2), fn(x, 2))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("other", ["bool", "int8", "uint8", "int16", "uint16", "int32"])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "uint16", "uint32"])
def test_integers_of_two_dtypes_compute_in_numpys_float(name, dtype, other):
    # NOTE: numpy's loop is the first float both cast to: atan2(int8, uint8) is float16, where
    # their promoted int16 holds in float32 only (a float32 was computed here)
    x, y = _values(dtype, 33), _values(other, 33)[::-1].copy()
    fn = getattr(np, name)
    _same(fn(li.asarray(x), li.asarray(y)), fn(x, y))


@pytest.mark.parametrize(
    "dtype, want",
    [("bool", "float16"), ("int8", "float16"), ("uint16", "float32"), ("int32", "float64")],
)
def test_the_namespace_picks_numpys_float(dtype, want):
    x = li.asarray(_values(dtype, 4))
    assert li.sqrt(x).dtype == li.atan2(x, x).dtype == np.dtype(want)
    assert (x / x).dtype == li.reciprocal(li.astype(x, li.int8)).dtype == li.float64


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NOTE: 70000 as a float16: inf
@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", ["uint8", "int8", "uint16", "int64", "uint64"])
def test_a_python_int_beyond_the_dtype_meets_the_float_dtype(name, dtype):
    """numpy 2 computes `uint8_array / -1` and `atan2(uint8_array, 300)`: the int meets the
    float the function computes in (arithmetic with it raises OverflowError)."""
    x = np.array([0, 5, 100], dtype=dtype)
    fn = getattr(np, name)
    for value in (-1, 300, 70000, 2**70):
        for pair in ((x, value), (value, x)):
            want = fn(*pair)
            _same(fn(*(li.asarray(a) if a is x else a for a in pair)), want)
