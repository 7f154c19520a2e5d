"""numpy's ndarray methods and attributes on li.Array, numpy's names on li, numpy's extensions
(bool sums, integer means) and numpy scalars as strong dtypes (issue 11): each against numpy on
ndarrays (values, dtype, shape), recorded lazily, and erring under the method's name."""

from __future__ import annotations

import re
import zlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazyinfini as li
from lazyinfini._graph import Op
from lazyinfini._methods import NDARRAY_HINTS
from lazyinfini._numpy_names import NUMPY_HINTS

RNG = np.random.default_rng(11)
# NOTE: numpy computes a float16 var in float16 after a float32 mean; lazyinfini in float32.
TOLERANCE = {"e": 1e-2, "f": 1e-5, "d": 1e-12, "F": 1e-5, "D": 1e-12}


def data(shape, dtype) -> np.ndarray:
    """Random values of `dtype`, the same for one shape and dtype (integers small, from 1)."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(zlib.crc32(f"{shape}{dtype}".encode()))
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        return np.asarray(rng.integers(1, 9, shape)).astype(dtype)
    values = np.asarray(rng.standard_normal(shape) * 4)
    if dtype.kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


def same(got, expected) -> None:
    """got (an Array, or a tuple of them) is numpy's `expected`: dtype, shape and values."""
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            same(g, e)
        return
    assert isinstance(got, li.Array), type(got)
    value, expected = np.asarray(got), np.asarray(expected)
    assert value.dtype == expected.dtype, (value.dtype, expected.dtype)
    assert value.shape == expected.shape == got.shape, (value.shape, expected.shape)
    tol = TOLERANCE.get(value.dtype.char)
    if tol is None:
        np.testing.assert_array_equal(value, expected)
    else:
        np.testing.assert_allclose(value, expected, rtol=tol, atol=tol, equal_nan=True)


def pending(x: np.ndarray) -> li.Array:
    """x as an Array that still has to be computed (so laziness shows)."""
    x = li.asarray(x)
    y = li.where(li.full(x.shape, True), x, x)
    assert y._node.op is not Op.BUFFER
    return y


class no_materialization:
    """Asserts nothing was computed in the with block."""

    def __enter__(self):
        self.before = li.inspect.counters.snapshot()

    def __exit__(self, *exc):
        if exc[0] is None:
            assert li.inspect.counters.snapshot() == self.before


# -- reductions --------------------------------------------------------------------------------
REDUCTIONS = ["sum", "prod", "mean", "std", "var", "min", "max", "argmin", "argmax", "any", "all"]
ORDERED = {"min", "max", "argmin", "argmax"}  # lazyinfini orders no bools, as the standard says
REDUCTION_CASES = [
    (name, dtype, axis)
    for name in REDUCTIONS
    for dtype in ["bool", "int8", "uint16", "int64", "float16", "float32"]
    for axis in [None, 0, -1, (0, 2)]
    if not (name in ORDERED and dtype == "bool")
    and not (name.startswith("arg") and isinstance(axis, tuple))  # one axis or all of them
]


@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning")  # float16 products, in numpy too
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("name, dtype, axis", REDUCTION_CASES, ids=str)
def test_reductions_match_numpy(name, dtype, axis, keepdims):
    a = data((3, 4, 2), dtype)
    x = pending(a)
    with no_materialization():
        y = getattr(x, name)(axis=axis, keepdims=keepdims)
        assert y._node.op is not Op.BUFFER
    same(y, getattr(a, name)(axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "min", "max", "argmin", "argmax", "any"])
def test_reductions_take_axis_positionally(name):
    a = data((3, 4), "float64")
    same(getattr(li.asarray(a), name)(1), getattr(a, name)(1))


@pytest.mark.parametrize("ddof", [0, 1, np.int64(2), 0.5])
@pytest.mark.parametrize("name", ["std", "var"])
def test_std_var_ddof(name, ddof):
    a = data((5, 3), "float32")
    same(getattr(li.asarray(a), name)(axis=0, ddof=ddof), getattr(a, name)(axis=0, ddof=ddof))


@pytest.mark.parametrize("dtype", ["float32", "float64", np.float64, li.float32])
@pytest.mark.parametrize("name", ["sum", "prod", "mean", "std", "var"])
def test_reduction_dtype_argument(name, dtype):
    a = data((4, 3), "int16" if name in ("sum", "prod") else "float32")
    same(getattr(li.asarray(a), name)(axis=1, dtype=dtype), getattr(a, name)(axis=1, dtype=dtype))


@given(
    hnp.arrays(np.int32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4)),
    st.sampled_from(["sum", "max", "mean", "argmax"]),
    st.data(),
)
def test_reductions_over_drawn_shapes(a, name, draw):
    axis = draw.draw(st.none() | st.integers(-a.ndim, a.ndim - 1), "axis")
    a = a % 1000  # means of large int32 sums stay exact in float64
    same(getattr(li.asarray(a), name)(axis), getattr(a, name)(axis))


CUMULATIVE_DTYPES = [(d, None) for d in ["bool", "int8", "uint8", "float32", "complex64"]]
CUMULATIVE_DTYPES += [(d, to) for d in ["bool", "int8", "float32"] for to in ["float64", "int32"]]


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("dtype, dtype_arg", CUMULATIVE_DTYPES, ids=str)
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_cumulative_methods_flatten_without_axis(name, dtype, dtype_arg, axis):
    a = data((3, 4), dtype)
    x = pending(a)
    with no_materialization():
        y = getattr(x, name)(axis, dtype=dtype_arg)
    same(y, getattr(a, name)(axis, dtype=dtype_arg))


# -- shape and type ----------------------------------------------------------------------------
A = data((2, 3, 4), "float32")
SHAPE_CALLS = [
    ("reshape", (6, 4), {}),
    ("reshape", ((4, 6),), {}),
    ("reshape", (-1,), {}),
    ("reshape", ([3, 8],), {"order": "C"}),
    ("reshape", (np.int64(24),), {"copy": None}),
    ("ravel", (), {}),
    ("flatten", (), {}),
    ("copy", (), {}),
    ("transpose", (), {}),
    ("transpose", (None,), {}),
    ("transpose", (1, 0, 2), {}),
    ("transpose", ((2, 0, 1),), {}),
    ("transpose", ([2, 1, 0],), {}),
    ("squeeze", (), {}),
    ("astype", ("int16",), {}),
    ("astype", (np.float64,), {"casting": "safe"}),
    ("astype", (li.float16,), {"casting": "same_kind", "copy": False}),
    ("astype", ("bool",), {}),
]


@pytest.mark.parametrize("name, args, kwargs", SHAPE_CALLS, ids=str)
def test_shape_and_type_methods_match_numpy(name, args, kwargs):
    x = pending(A)
    with no_materialization():
        y = getattr(x, name)(*args, **kwargs)
    same(y, getattr(A, name)(*args, **kwargs))


@pytest.mark.parametrize("axis", [None, 0, 2, (0, 2)])
def test_squeeze_axis(axis):
    a = data((1, 3, 1), "int32")
    same(li.asarray(a).squeeze(axis), a.squeeze(axis))


def test_copy_and_flatten_do_not_follow_later_writes():
    a = data((2, 3), "float64")
    original = a.copy()
    x = li.asarray(a)  # shares a's memory
    copies = [x.copy(), x.flatten()]
    a[...] = 0
    same(copies[0], original)
    same(copies[1], original.flatten())
    assert copies[0] is not x


def test_transpose_of_n_d_and_T():
    a = data((2, 3, 4), "int8")
    same(li.asarray(a).transpose(), a.transpose())
    same(li.asarray(a[0]).T, a[0].T)


# -- element-wise ------------------------------------------------------------------------------
CLIPS = [
    ("float32", (0.0, 1.0), {}),
    ("float32", (), {"min": -0.5}),
    ("float32", (), {"max": 0.5}),
    ("float32", (None, None), {}),
    ("float32", (np.float64(-1), 1), {}),  # numpy's scalar is strong: float64
    ("float32", (np.float32(-1), np.float32(1)), {}),
    ("int8", (2, 6), {}),
    ("int8", (-1000, 300), {}),  # past int8's range: numpy 2 clips nothing
    ("int8", (0.5, 6), {}),  # a float bound: float64
    ("int8", (np.int64(3),), {}),
    ("int16", (np.array([2, 3, 4, 5]),), {}),
    ("float64", ([0.0, 0.5, -1.0, 2.0], 3.0), {}),
    ("float16", (0, 255), {}),  # small Python ints: the quick path (weak, float16 kept)
    ("float16", (-2048, 2048), {}),
    ("float16", (0, 70000), {}),  # past float16's range: the general path, numpy's inf
    ("float32", (-1, 2049), {}),
    ("float64", (True, 3), {}),  # a bool bound is no quick one
]


@pytest.mark.parametrize("dtype, args, kwargs", CLIPS, ids=str)
def test_clip_promotes_as_numpy(dtype, args, kwargs):
    a = data((3, 4), dtype)
    x = pending(a)
    with no_materialization():
        y = x.clip(*args, **kwargs)
    same(y, a.clip(*args, **kwargs))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # float16 * 1e12 overflows, in numpy too
@pytest.mark.parametrize("decimals", [-2, -1, 0, 1, 2, 3, 12])
@pytest.mark.parametrize("dtype", ["int16", "uint8", "int64", "float16", "float32", "float64"])
def test_round_matches_numpy_bit_for_bit(dtype, decimals):
    a = data((40,), dtype) * (1 if dtype in ("uint8", "float16") else 37)
    x = pending(a)
    with no_materialization():
        y = x.round(decimals)
    value = np.asarray(y)
    expected = a.round(decimals)
    assert value.dtype == expected.dtype and value.shape == expected.shape
    np.testing.assert_array_equal(value, expected)


@pytest.mark.parametrize("decimals", [-1, 0, 2])
def test_round_of_complex_rounds_both_parts(decimals):
    a = data((20,), "complex128") * 50
    same(li.asarray(a).round(decimals=decimals), a.round(decimals=decimals))


@pytest.mark.parametrize("name", ["conj", "conjugate"])
def test_conj(name):
    a = data((3,), "complex64")
    same(getattr(pending(a), name)(), getattr(a, name)())


DOTS = [((4,), (4,)), ((3, 4), (4, 2)), ((3, 4), (4,)), ((4,), (4, 2)), ((2, 3, 4), (5, 4, 6))]
DOTS += [((2, 3, 4), (4,)), ((), (3,)), ((3,), ())]


@pytest.mark.parametrize("s1, s2", DOTS, ids=str)
def test_dot_matches_numpy(s1, s2):
    a, b = data(s1, "float64"), data(s2, "float64")
    x = pending(a)
    with no_materialization():
        y = x.dot(li.asarray(b))
    same(y, a.dot(b))
    same(x.dot(b), a.dot(b))  # a numpy operand too


# -- indexing, sorting, searching --------------------------------------------------------------
@pytest.mark.parametrize("args", [(), (0,), (5,), (-1,), (1, 2), (-1, -3)], ids=str)
def test_item(args):
    a = data((2, 3), "int32") if args else np.array([[2.5]], np.float32)
    got = li.asarray(a).item(*args)
    assert got == a.item(*args) and type(got) is type(a.item(*args))


def test_item_computes_like_float():
    x = pending(np.array([4.0]))
    before = li.inspect.counters.implicit_materializations
    assert x.item() == 4.0
    assert li.inspect.counters.implicit_materializations == before + 1


def test_nonzero():
    a = np.array([[0, 1, 0], [2, 0, 3]], np.int16)
    same(li.asarray(a).nonzero(), a.nonzero())


@pytest.mark.parametrize("kind", [None, "quicksort", "stable"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_sort_is_in_place_and_returns_none(axis, kind):
    a = data((4, 5), "float32")
    x = pending(a)
    other = x.copy()
    with no_materialization():
        assert x.sort(axis=axis, kind=kind) is None
    expected = a.copy()
    expected.sort(axis=axis, kind=kind)
    same(x, expected)
    same(other, a)  # a copy taken before keeps the old values


@pytest.mark.parametrize("axis", [None, 0, -1])
def test_argsort(axis):
    a = RNG.permutation(12).reshape(3, 4).astype(np.float64)  # no ties
    x = pending(a)
    with no_materialization():
        y = x.argsort(axis=axis)
    same(y, a.argsort(axis=axis))


@pytest.mark.parametrize("repeats, axis", [(2, None), (2, 0), ([1, 2], 0), ([3], 1)], ids=str)
def test_repeat(repeats, axis):
    a = data((2, 3), "int64")
    same(li.asarray(a).repeat(repeats, axis=axis), a.repeat(repeats, axis=axis))


TAKES = [
    (5, None, "raise"),
    ([1, 5, -1], None, "raise"),
    ([[0, 1], [2, 0]], 1, "raise"),
    (np.int64(1), 0, "raise"),
    ([25, -30, 3], None, "wrap"),
    ([25, -30, 3], None, "clip"),
    ([[4, -5]], -1, "wrap"),
]


@pytest.mark.parametrize("indices, axis, mode", TAKES, ids=str)
def test_take(indices, axis, mode):
    a = data((2, 3, 4), "float32")
    x = pending(a)
    with no_materialization():
        y = x.take(indices, axis=axis, mode=mode)
    same(y, a.take(indices, axis=axis, mode=mode))


# -- attributes --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint32", "float16", "float64", "complex64"])
def test_attributes(dtype):
    a = data((3, 2), dtype)
    x = pending(a)
    with no_materialization():
        real, imag = x.real, x.imag
    same(real, a.real)
    same(imag, a.imag)
    assert (x.itemsize, x.nbytes) == (a.itemsize, a.nbytes)
    assert isinstance(x.nbytes, int) and isinstance(x.itemsize, int)


ASTYPE_LAYOUTS = {
    "C": lambda a: a,
    "F": np.asfortranarray,
    "transposed": lambda a: a.T,
    "reversed": lambda a: a[::-1],
}


@pytest.mark.parametrize("computed", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("order", list("CFAK"))
@pytest.mark.parametrize("layout", list(ASTYPE_LAYOUTS))
def test_astype_writes_numpys_memory_order(layout, order, dtype, computed):
    # NOTE: order= was ignored (np.astype's "K"): x.astype(f32, order="C") of an F-ordered x was
    # F-ordered, and its sums added in another order than numpy's (other bits); "F" raised
    a = ASTYPE_LAYOUTS[layout](np.random.default_rng(3).standard_normal((300, 200)))
    a = ASTYPE_LAYOUTS[layout](np.ascontiguousarray(a.astype(np.float32)))
    x = li.asarray(a)
    want = (a * 2 if computed else a).astype(dtype, order=order)
    got = (x * 2 if computed else x).astype(dtype, order=order)
    assert np.asarray(got).strides == want.strides
    for axis in (0, 1):
        assert np.asarray(got.sum(axis=axis)).tobytes() == want.sum(axis=axis).tobytes()


# -- errors ------------------------------------------------------------------------------------
X = li.asarray(np.ones((2, 3), np.float32))
BAD = [
    ("sum out", lambda: X.sum(out=np.zeros(3)), ValueError, "sum"),  # numpy's: a shape
    ("sum dtype", lambda: X.sum(dtype="nope"), TypeError, "sum"),
    ("sum axis", lambda: X.sum(5), IndexError, "sum"),
    ("std ddof", lambda: X.std(ddof="1"), TypeError, "std"),
    ("cumsum axis", lambda: X.cumsum(axis=2), ValueError, "cumsum"),
    ("argmax tuple", lambda: X.argmax(axis=(0, 1)), TypeError, "argmax"),
    ("reshape size", lambda: X.reshape(4, 2), ValueError, "reshape"),
    ("reshape nothing", lambda: X.reshape(), TypeError, "reshape"),
    ("flatten Z", lambda: X.flatten(order="Z"), ValueError, "flatten"),
    ("astype Z", lambda: X.astype("int8", order="Z"), ValueError, "astype"),
    ("astype safe", lambda: X.astype("int8", casting="safe"), TypeError, "astype"),
    ("astype str", lambda: X.astype("float128x"), TypeError, "astype"),
    ("transpose", lambda: X.transpose(0, 0), ValueError, "transpose"),
    ("squeeze", lambda: X.squeeze(0), ValueError, "squeeze"),
    ("clip str", lambda: X.clip("a"), TypeError, "clip"),
    ("round float", lambda: X.round(1.5), TypeError, "round"),
    ("dot shapes", lambda: X.dot(X), ValueError, "dot"),
    ("dot str", lambda: X.dot("a"), TypeError, "dot"),
    ("item size", lambda: X.item(), ValueError, "item"),
    ("item index", lambda: X.item(6), IndexError, "item"),
    ("nonzero 0-d", lambda: li.asarray(1.0).nonzero(), ValueError, "nonzero"),
    ("sort kind", lambda: X.sort(kind="bogo"), ValueError, "sort"),
    ("sort order", lambda: X.sort(order="f0"), ValueError, "sort"),
    ("sort None", lambda: X.sort(axis=None), TypeError, "sort"),
    ("repeat", lambda: X.repeat(-1), ValueError, "repeat"),
    ("take bounds", lambda: X.take(6), IndexError, "take"),
    ("take mode", lambda: X.take(0, mode="nope"), ValueError, "take"),
    ("take floats", lambda: X.take([0.5]), TypeError, "take"),
    ("take empty", lambda: li.zeros(0).take([1], mode="wrap"), IndexError, "take"),
]


@pytest.mark.parametrize("call, exc, name", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_arguments_raise_naming_the_method(call, exc, name):
    before = li.inspect.counters.snapshot()
    with pytest.raises(exc, match=f"^{name}: "):
        call()
    assert li.inspect.counters.snapshot() == before


# Calls numpy answers that the lazy twins cannot record: the method runs numpy on x's value, as
# np.<name>(x, ...) does (one implementation: warned once per function, counted).
NUMPY_RUNS = [
    ("sum where", lambda m: m.sum(where=True)),
    ("mean int dtype", lambda m: m.mean(dtype="int32")),
    ("reshape F", lambda m: m.reshape(3, 2, order="F")),
    ("ravel F", lambda m: m.ravel("F")),
]
# ... and calls the old methods refused that numpy answers and the twins record.
NUMPY_RECORDS = [
    ("copy F", lambda m: m.copy(order="F")),
    ("argsort stable", lambda m: m.argsort(stable=1)),
]


@pytest.mark.filterwarnings("ignore::lazyinfini.NumpyFallbackWarning")
@pytest.mark.parametrize("call", [c[1] for c in NUMPY_RUNS], ids=[c[0] for c in NUMPY_RUNS])
def test_calls_the_twins_cannot_record_run_numpy_as_the_functions_do(call):
    x = li.asarray(data((2, 3), "float32"))
    before = li.inspect.counters.numpy_fallbacks
    got, expected = call(x), call(np.asarray(x))
    assert li.inspect.counters.numpy_fallbacks == before + 1
    assert type(got) is (li.Array if isinstance(expected, np.ndarray) else type(expected))
    same(li.asarray(got), expected)  # NOTE: a 0-d result is numpy's scalar, as np.sum's


@pytest.mark.parametrize("call", [c[1] for c in NUMPY_RECORDS], ids=[c[0] for c in NUMPY_RECORDS])
def test_calls_numpy_answers_record_lazily(call):
    a = data((2, 3), "float32")
    before = li.inspect.counters.snapshot()
    got = call(pending(a))
    assert li.inspect.counters.snapshot() == before
    same(got, call(a))


def test_out_takes_the_result_as_numpys_functions_do():
    a = data((2, 3), "float32")
    out = li.zeros(3, li.float32)
    assert pending(a).sum(0, out=out) is out  # an Array out is rebound, lazily
    same(out, a.sum(0))
    numpy_out = np.zeros(3, np.float32)
    assert pending(a).sum(0, out=numpy_out) is numpy_out  # an ndarray receives the value
    np.testing.assert_array_equal(numpy_out, a.sum(0))


def test_a_namespace_functions_message_follows_the_method():
    with pytest.raises(ValueError, match=r"^cumsum: cumulative_sum: axis 2 is out of bounds"):
        X.cumsum(axis=2)


def test_item_in_strict_mode_refuses_to_compute():
    with li.options(strict=True), pytest.raises(ValueError, match="^item: "):
        pending(np.array([1.0])).item()


# -- numpy's names on the namespace ------------------------------------------------------------
ALIASES = [
    ("absolute", "abs"),
    ("power", "pow"),
    ("arccos", "acos"),
    ("arcsin", "asin"),
    ("arctan", "atan"),
    ("arctan2", "atan2"),
    ("arccosh", "acosh"),
    ("arcsinh", "asinh"),
    ("arctanh", "atanh"),
    ("invert", "bitwise_invert"),
    ("left_shift", "bitwise_left_shift"),
    ("right_shift", "bitwise_right_shift"),
]


@pytest.mark.parametrize("alias, standard", ALIASES)
def test_aliases_are_numpys_functions(alias, standard):
    integer = "invert" in alias or "shift" in alias
    domain = {"arccosh": 1.5}.get(alias, 0.0)
    a = RNG.integers(0, 5, (3, 4)) if integer else RNG.uniform(0.1, 0.9, (3, 4)) + domain
    arity = 2 if alias in ("power", "arctan2", "left_shift", "right_shift") else 1
    inputs = [a] * arity
    fn = getattr(li, alias)
    with no_materialization():
        y = fn(*[pending(v) for v in inputs])
    same(y, getattr(np, alias)(*inputs))
    same(getattr(li, standard)(*[li.asarray(v) for v in inputs]), np.asarray(y))
    assert fn.__name__ == alias and "extension" in fn.__doc__


def test_alias_errors_name_the_alias():
    with pytest.raises(TypeError, match="^invert: bitwise_invert: "):
        li.invert(li.ones(2))
    with pytest.raises(TypeError, match="^arccos: "):
        li.arccos("a")


def test_concatenate_transpose_amax_amin_take_numpys_arguments():
    a, b = data((2, 3), "int32"), data((2, 3), "int32")
    same(li.concatenate([li.asarray(a), li.asarray(b)], 1), np.concatenate([a, b], 1))
    same(li.concatenate((li.asarray(a), li.asarray(b))), np.concatenate((a, b)))
    c = data((2, 3, 4), "float32")
    same(li.transpose(li.asarray(c)), np.transpose(c))
    same(li.transpose(li.asarray(c), (1, 0, 2)), np.transpose(c, (1, 0, 2)))
    same(li.amax(li.asarray(c), 1), np.amax(c, 1))
    same(li.amin(li.asarray(c), -1, keepdims=True), np.amin(c, -1, keepdims=True))


def _resolves(path: str) -> bool:
    target = li
    for part in path.split("."):
        target = getattr(target, part, None)
    return target is not None


@pytest.mark.parametrize("table", [NUMPY_HINTS, NDARRAY_HINTS], ids=["module", "ndarray"])
def test_every_hint_names_what_exists(table):
    for name, hint in table.items():
        named = re.findall(r"\bli\.([a-z_][\w.]*)", hint)
        assert all(_resolves(n) for n in named), (name, named)
    removed = {"cumproduct", "ptp", "itemset"}  # numpy 1's ndarray methods, in old scripts
    assert set(table) <= set(dir(np) if table is NUMPY_HINTS else dir(np.ndarray)) | removed


def test_numpy_names_the_namespace_lacks_raise_with_a_hint():
    lacking = [n for n in NUMPY_HINTS if n not in li.__all__]
    assert len(lacking) > 40
    for name in lacking:
        expected = f"lazyinfini has no '{name}' (numpy's {name} is not in the Array API standard)"
        with pytest.raises(AttributeError, match=f"^{re.escape(expected)}; use .*(li|x)\\."):
            getattr(li, name)
    with pytest.raises(AttributeError, match=r"use li\.concat\(arrays, axis=1\)"):
        li.hstack  # noqa: B018
    with pytest.raises(AttributeError, match="compute it with numpy"):
        li.nanpercentile  # noqa: B018 (numpy's, with no lazyinfini way)
    with pytest.raises(AttributeError, match="^module 'lazyinfini' has no attribute 'frob'$"):
        li.frob  # noqa: B018
    assert not hasattr(li, "vstack") and getattr(li, "vstack", 3) == 3


def test_array_attributes_numpy_has_raise_with_a_hint():
    x = li.ones(3)
    with pytest.raises(AttributeError, match=r"'ptp'; use li\.max"):
        x.ptp  # noqa: B018
    with pytest.raises(AttributeError, match=r"'cumproduct'; use x\.cumprod\(\)"):
        x.cumproduct  # noqa: B018
    with pytest.raises(AttributeError, match=r"numpy's ndarray has it\); use np\.asarray\(x\)"):
        x.byteswap  # noqa: B018
    with pytest.raises(AttributeError, match="^'Array' object has no attribute 'frob'$"):
        x.frob  # noqa: B018
    assert not hasattr(x, "ptp") and getattr(x, "__array_interface__", None) is None


# -- numpy's extensions of the namespace -------------------------------------------------------
@pytest.mark.parametrize("axis", [None, 0])
@pytest.mark.parametrize("name", ["sum", "prod", "cumulative_sum", "cumulative_prod"])
def test_bool_sums_and_products_count_in_the_default_integer(name, axis):
    a = data((4, 3), "bool")
    numpy_name = {"cumulative_sum": "cumsum", "cumulative_prod": "cumprod"}.get(name, name)
    axis = 0 if name.startswith("cumulative") else axis
    same(getattr(li, name)(li.asarray(a), axis=axis), getattr(np, numpy_name)(a, axis=axis))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int64"])
@pytest.mark.parametrize("name", ["mean", "std", "var"])
def test_integer_means_are_float64(name, dtype):
    a = data((5, 3), dtype)
    kwargs = {} if name == "mean" else {"correction": 1}
    numpy_kwargs = {} if name == "mean" else {"ddof": 1}
    x = pending(a)
    with no_materialization():
        y = getattr(li, name)(x, axis=0, **kwargs)
    same(y, getattr(np, name)(a, axis=0, **numpy_kwargs))


def test_the_namespace_takes_numpys_positional_axis():
    # Extension (numpy): li.sum(x, 0) is np.sum(x, 0), as the methods and numpy's aliases; the
    # standard's keyword-only parameters are accepted by position where numpy takes them so
    # (tests/api/test_numpy_positional.py).
    a = data((2, 3), "float32")
    same(li.sum(li.asarray(a), 0), np.sum(a, 0))


# -- numpy scalars are strong (NEP 50) ---------------------------------------------------------
STRONG = [
    (np.float64(1 / 3), "float32"),
    (np.float64(1 / 3), "float16"),
    (np.float32(1 / 3), "float16"),
    (np.float32(1 / 3), "float64"),
    (np.float64(1 / 3), "int8"),
    (np.float16(3), "int8"),
    (np.complex128(1 / 3 + 1j), "float32"),
    (np.complex128(1 / 3 + 1j), "complex64"),
    (np.int64(3), "int8"),
    (np.int16(3), "uint8"),
    (np.uint8(3), "int32"),
]


@pytest.mark.parametrize("scalar, dtype", STRONG, ids=str)
def test_numpy_scalars_are_strong_dtypes(scalar, dtype):
    a = data((3,), dtype)
    x = li.asarray(a)
    same(scalar * x, scalar * a)  # numpy's operator, through __array_ufunc__
    same(x * scalar, a * scalar)
    same(li.subtract(scalar, x), np.subtract(scalar, a))
    same(li.add(x, scalar), np.add(a, scalar))
    assert li.result_type(x, scalar) == np.result_type(a, scalar)
    cond = li.asarray(np.array([True, False, True]))
    same(li.where(cond, scalar, x), np.where([True, False, True], scalar, a))


def test_python_scalars_stay_weak():
    a = data((3,), "float32")
    same(li.asarray(a) * 2.0, a * 2.0)
    same(2 * li.asarray(a), 2 * a)
    assert (li.asarray(a) * (1 + 1j)).dtype == li.complex64


def test_numpy_scalar_clip_bounds():
    a = data((4,), "float32")
    # li.clip keeps x's dtype (the standard's rule); x.clip promotes, as numpy's ufunc does.
    same(li.clip(li.asarray(a), np.float64(-1), np.float64(1)), np.clip(a, -1, 1))
    same(li.asarray(a).clip(np.float64(-1), np.float64(1)), a.clip(np.float64(-1), 1))


def test_flat_reads_and_writes_like_numpys_flat():
    base = np.arange(16.0).reshape(4, 4)
    x, expected = li.asarray(base.copy()), base.copy()
    below = x[1:]  # a view: it sees the write
    x.flat[::5] += 100
    expected.flat[::5] += 100
    np.testing.assert_array_equal(np.asarray(x), expected)
    np.testing.assert_array_equal(np.asarray(below), expected[1:])
    np.testing.assert_array_equal(np.asarray(x.flat[2:7]), expected.flat[2:7])
    assert len(x.flat) == 16 and [float(v) for v in x.flat][:3] == [100.0, 1.0, 2.0]
    t, t_np = li.asarray(base.copy()).T, base.copy().T  # its 1-d form is not a view of it
    t.flat[1] = -1
    t_np.flat[1] = -1
    np.testing.assert_array_equal(np.asarray(t), t_np)
    rows, rows_np = x[2:], expected[2:]  # a view whose 1-d form is a view: written through
    rows.flat[::3] = 7.0
    rows_np.flat[::3] = 7.0
    np.testing.assert_array_equal(np.asarray(x), expected)
    np.testing.assert_array_equal(np.asarray(below), expected[1:])


@pytest.mark.parametrize(("offset", "axes"), [(0, (0, 1)), (1, (1, 2)), (-1, (0, 2)), (2, (2, 0))])
def test_diagonal_method_matches_numpy(offset, axes):
    x = np.arange(60).reshape(3, 4, 5)
    got = li.asarray(x).diagonal(offset, *axes)
    np.testing.assert_array_equal(np.asarray(got), x.diagonal(offset, *axes))


def test_a_0d_array_formats_as_numpys_scalar():
    # NOTE: f"{loss:.4f}" of a reduction raised TypeError (object.__format__ takes no spec)
    a = data((3, 4), "float32")
    x = pending(a)
    for spec in (".4f", ">12.3e", "g", "+.1%"):
        assert format(x.sum(), spec) == format(a.sum(), spec)
    assert f"{pending(np.arange(5))[3]:03d}" == "003"
    assert format(li.asarray(np.array(1 + 2j)), ".1f") == format(np.array(1 + 2j), ".1f")
    assert format(x) == str(x)
    with pytest.raises(TypeError, match="format"):
        format(x, ".2f")  # NOTE: numpy's n-d arrays take no spec either


def test_in_is_numpys_any_of_equal():
    a = data((3, 4), "float32")
    x = pending(a)
    for value in (a[1, 2], 1e9, np.nan):
        assert (value in x) == (value in a)
    assert (a[0] in x) == (a[0] in a)  # NOTE: a row broadcast against every row


@pytest.mark.parametrize("other", [None, "text"])
def test_equality_with_none_or_a_string_is_numpys_elementwise_answer(other):
    # NOTE: Python's answer was one False for the whole array (identity)
    a = data((3, 4), "float32")
    x = pending(a)
    for got, want in ((x == other, a == other), (x != other, a != other), (other == x, other == a)):
        assert isinstance(got, li.Array) and got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)


def test_round_of_a_0d_array_is_numpys_scalar_round():
    a = np.array([2.567, 2.5, -1.25, 3.5])
    x = pending(a)
    assert float(round(x[0], 2)) == round(a[0], 2)
    assert [round(x[i]) for i in range(4)] == [round(v) for v in a]  # NOTE: ties to even
    assert type(round(x[1])) is int
    with pytest.raises(TypeError, match="round"):
        round(x)  # NOTE: numpy's ndarray has no __round__ either


def test_setting_shape_says_what_to_do():
    with pytest.raises(AttributeError, match="reshape"):
        pending(data((3, 4), "float32")).shape = (4, 3)


@pytest.mark.parametrize(
    "ufunc, index, values",
    [
        (np.add, ([0, 0, 1], [1, 1, 2]), 1.0),
        (np.add, (np.array([0, 3, 3]),), np.array([[1.0, 2, 3, 4]])),
        (np.multiply, ([2, 2],), 3.0),
        (np.maximum, ([1, 1, 0],), np.array([[9.0, 0, 0, 0]])),
    ],
)
def test_ufunc_at_writes_into_the_array_and_its_views(ufunc, index, values):
    # NOTE: np.add.at(x, ...) raised "operand array with iterator write flag set is read-only"
    a = data((4, 4), "float64")
    want = a.copy()
    ufunc.at(want, index, values)
    x = pending(a)
    row = x[2]
    assert ufunc.at(x, index, values) is None
    np.testing.assert_array_equal(np.asarray(x), want)
    np.testing.assert_array_equal(np.asarray(row), want[2])
