"""One numpy semantics: every name that is both an ndarray method of li.Array (_methods.py) and
a lazy twin of a numpy function (_numpy_twins) gives the same answer both ways, and numpy's.

numpy's `np.clip(a, ...)` is `a.clip(...)`; here `x.clip(...)` is `np.clip(x, ...)` run by the
function's one twin. The names are read from both tables, so a name added to either is run
here (and fails until it has cases). Each runs on bool, integers (uint8 with bounds past its
range), and floats, with numpy's keywords: the method and the function must agree bit for bit
(one implementation) and with numpy (values, dtype, shape), or raise as numpy raises.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._methods import NumpyMethods
from lazyinfini._numpy_twins import TWINS

DTYPES = ["bool", "int8", "uint8", "int64", "float32", "float64"]
ERRORS = (TypeError, ValueError, IndexError)
# np.sort's result is x.sort()'s new value; real and imag are properties.
PROPERTIES = {"real", "imag"}


def both_forms() -> set[str]:
    """The names that are a method of li.Array and a twin of a numpy function."""
    methods = {name for name in vars(NumpyMethods) if not name.startswith("_")}
    return methods & {function.__name__ for function in TWINS}


def data(shape, dtype: str) -> np.ndarray:
    rng = np.random.default_rng(sum(shape) + len(dtype))
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype in ("int8", "uint8", "int64"):
        return rng.integers(1, 6, shape).astype(dtype)  # small: products stay in range
    return (rng.standard_normal(shape) * 3).astype(dtype)


SORTED = (8,)  # searchsorted's x
# name -> (shape, [(args, kwargs), ...]): calls both numpy forms take alike.
CASES = {
    "sum": ((3, 4), [((), {}), ((0,), {}), ((), {"axis": 1, "keepdims": True})]),
    "prod": ((3, 4), [((), {}), ((1,), {}), ((), {"axis": 0, "dtype": "float64"})]),
    "mean": ((3, 4), [((), {}), ((0,), {}), ((), {"axis": 1, "dtype": "float64"})]),
    "std": ((3, 4), [((), {}), ((0,), {"ddof": 1}), ((), {"ddof": np.int64(1)})]),
    "var": ((3, 4), [((), {}), ((1,), {"ddof": 1}), ((), {"axis": 0, "keepdims": True})]),
    "min": ((3, 4), [((), {}), ((0,), {}), ((), {"axis": 1, "keepdims": True})]),
    "max": ((3, 4), [((), {}), ((1,), {}), ((), {"axis": 0, "keepdims": True})]),
    "any": ((3, 4), [((), {}), ((0,), {}), ((), {"axis": -1, "keepdims": True})]),
    "all": ((3, 4), [((), {}), ((1,), {}), ((), {"axis": 0, "keepdims": True})]),
    "argmin": ((3, 4), [((), {}), ((1,), {}), ((), {"axis": 0, "keepdims": True})]),
    "argmax": ((3, 4), [((), {}), ((0,), {}), ((), {"axis": 1, "keepdims": True})]),
    "cumsum": ((3, 4), [((), {}), ((0,), {}), ((), {"axis": 1, "dtype": "float64"})]),
    "cumprod": ((3, 4), [((), {}), ((1,), {}), ((), {"axis": 0, "dtype": "int64"})]),
    "trace": ((3, 4), [((), {}), ((1,), {}), ((-1, 1, 0), {}), ((), {"dtype": "float64"})]),
    "ravel": ((3, 4), [((), {}), (("C",), {}), ((), {"order": "F"})]),
    "copy": ((3, 4), [((), {}), ((), {"order": "C"})]),
    "reshape": ((3, 4), [(((4, 3),), {}), (((-1,),), {"order": "C"}), (((2, 6),), {"order": "F"})]),
    "transpose": ((3, 4), [((), {}), (((1, 0),), {})]),
    "squeeze": ((3, 1, 4), [((), {}), ((1,), {}), ((), {"axis": (1,)}), ((0,), {})]),
    "swapaxes": ((3, 4), [((0, 1), {}), ((1, -2), {}), ((0, 2), {})]),
    "clip": (
        (3, 4),
        [
            ((0, 300), {}),  # past uint8's and int8's range: numpy 2 clips nothing there
            ((-5, 2), {}),
            ((2, 1000), {}),
            ((0.5, 4), {}),  # a float bound: float64
            ((np.int64(3), None), {}),  # numpy's scalar is strong
            ((None, 2), {}),
            ((False, True), {}),
            ((), {"min": 1}),
            ((), {"max": 2}),
            ((np.array([1, 2, 3, 4]), None), {}),
            (("a", None), {}),
        ],
    ),
    "round": ((3, 4), [((), {}), ((1,), {}), ((-1,), {}), ((), {"decimals": 2}), ((1.5,), {})]),
    "dot": ((3, 4), [((np.ones((4, 2), np.int8),), {}), ((2,), {}), ((np.ones(3),), {})]),
    "nonzero": ((3, 4), [((), {})]),
    "sort": ((3, 4), [((), {}), ((0,), {}), ((), {"kind": "stable"}), ((), {"kind": "bogo"})]),
    # NOTE: stable kinds: numpy's default sort may order ties otherwise (docs/numpy.md)
    "argsort": (
        (3, 4),
        [((-1, "stable"), {}), ((0, "merge"), {}), ((), {"axis": None, "kind": "stable"})],
    ),
    "partition": ((3, 4), [((1,), {}), ((0, 0), {}), (([0, -1],), {}), ((2,), {"kind": "heap"})]),
    "searchsorted": (SORTED, [((3,), {}), ((300,), {}), ((-1, "right"), {}), ((2.5,), {})]),
    "repeat": ((3, 4), [((2,), {}), ((2, 0), {}), (([1, 2, 0], 0), {}), ((-1,), {})]),
    "take": (
        (3, 4),
        [
            (([0, 5],), {}),
            (([[1, 0]], 1), {}),
            (([4, -1],), {"axis": 1, "mode": "wrap"}),
            (([7, -9], 0), {"mode": "clip"}),
            (([12],), {}),
        ],
    ),
    "diagonal": ((3, 4), [((), {}), ((1,), {}), ((-1, 1, 0), {})]),
    "real": ((3, 4), [((), {})]),
    "imag": ((3, 4), [((), {})]),
}
if hasattr(np, "astype"):  # numpy 2.1
    CASES["astype"] = ((3, 4), [(("int8",), {}), ((np.float32,), {"copy": False}), (("bool",), {})])
RUNS = [
    (name, dtype, i)
    for name in sorted(CASES)
    for dtype in DTYPES
    for i in range(len(CASES[name][1]))
]


def test_the_cases_cover_every_name_in_both_forms():
    assert set(CASES) == both_forms()
    assert len(both_forms()) >= 32  # 29 duplicated names, and trace, searchsorted, swapaxes


def test_every_ndarray_method_with_a_twin_is_a_method():
    """A numpy function with a lazy twin that ndarray has as a method is Array's method too
    (shape, ndim and size are attributes of both, computed from the recorded shape; ndarray's
    resize is another function than np.resize: it resizes in place, zero-filled)."""
    twins = {function.__name__ for function in TWINS}
    methods = {name for name in dir(np.ndarray) if not name.startswith("_")}
    assert sorted(methods & twins - both_forms()) == ["ndim", "resize", "shape", "size"]


def _array(value):
    return li.asarray(value) if isinstance(value, np.ndarray) else value


def _outcome(call):
    """call()'s result as numpy values (an Array's value, a tuple's items), or the error."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", li.NumpyFallbackWarning)
            warnings.simplefilter("ignore", RuntimeWarning)
            result = call()
    except ERRORS as exc:
        return exc
    if isinstance(result, tuple):
        return tuple(np.asarray(r) for r in result)
    return np.asarray(result)


def _method(name: str, a: np.ndarray, args, kwargs):
    x = li.asarray(a.copy())
    if name in PROPERTIES:
        return getattr(x, name)
    if name in ("sort", "partition"):  # NOTE: in place, as ndarray's
        assert getattr(x, name)(*args, **kwargs) is None
        return x
    return getattr(x, name)(*args, **kwargs)


def _function(name: str, a: np.ndarray, args, kwargs):
    return getattr(np, name)(li.asarray(a.copy()), *(_array(v) for v in args), **kwargs)


def _numpy(name: str, a: np.ndarray, args, kwargs):
    return getattr(np, name)(a.copy(), *args, **kwargs)


def _same(got, expected, exact: bool) -> None:
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            _same(g, e, exact)
        return
    assert (got.dtype, got.shape) == (expected.dtype, expected.shape), (got, expected)
    if exact or got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, expected)
    else:
        tolerance = 1e-5 if got.dtype.itemsize <= 4 else 1e-12
        np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("name, dtype, case", RUNS, ids=[f"{n}-{d}-{i}" for n, d, i in RUNS])
def test_the_method_and_the_function_agree_with_numpy(name, dtype, case):
    shape, calls = CASES[name]
    args, kwargs = calls[case]
    a = data(shape, dtype)
    if name == "searchsorted":
        a = np.sort(a)
    expected = _outcome(lambda: _numpy(name, a, args, kwargs))
    method = _outcome(lambda: _method(name, a, args, kwargs))
    function = _outcome(lambda: _function(name, a, args, kwargs))
    if isinstance(expected, Exception):
        assert isinstance(method, ERRORS) and isinstance(function, ERRORS), (method, function)
        assert type(method) is type(function), (method, function)
        return
    assert not isinstance(method, Exception), method
    assert not isinstance(function, Exception), function
    _same(method, function, exact=True)  # one implementation
    _same(method, expected, exact=False)


def test_uint8_clip_past_the_range_is_numpys_both_ways():
    """The issue's case: numpy clips a uint8 [1, 200, 255] to itself between 0 and 300."""
    a = np.array([1, 200, 255], np.uint8)
    x = li.asarray(a)
    for got in (x.clip(0, 300), np.clip(x, 0, 300)):
        assert isinstance(got, li.Array) and got.dtype == li.uint8
        np.testing.assert_array_equal(np.asarray(got), [1, 200, 255])


def test_the_methods_record_lazily_where_the_function_does():
    x = li.asarray(data((3, 4), "float32")) * 2
    before = li.inspect.counters.snapshot()
    results = [x.clip(0, 1), x.trace(), x.swapaxes(0, 1), x.round(2), x.take([1, 2], 1)]
    results.append(li.sort(x[0]).searchsorted(x[1]))
    assert li.inspect.counters.snapshot() == before
    assert all(r._node.op.label != "buffer" for r in results)


def test_fill_writes_numpys_cast_value_through_views():
    a = np.arange(6, dtype=np.int16).reshape(2, 3)
    x = li.asarray(a.copy())
    row = x[1]
    assert x.fill(7.9) is None
    expected = a.copy()
    expected.fill(7.9)
    np.testing.assert_array_equal(np.asarray(x), expected)
    np.testing.assert_array_equal(np.asarray(row), expected[1])


def test_no_hint_is_left_for_a_method_array_has():
    from lazyinfini._methods import NDARRAY_HINTS

    assert sorted(name for name in NDARRAY_HINTS if name in vars(NumpyMethods)) == []
    with pytest.raises(AttributeError, match=r"'itemset'; use x\[index\] = value"):
        li.ones(3).itemset  # noqa: B018
