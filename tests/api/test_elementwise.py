"""subtract and clip against numpy over dtypes, shapes and layouts; the promotion table."""

from __future__ import annotations

import itertools
import operator

import array_api_strict as xs
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini import _dtypes
from lazyinfini._device import DEVICES
from tests.layouts import (
    F32,
    FLOATS,
    HALF,
    broadcastable_shapes,
    compute_dtype,
    float_dtypes,
    layouts,
)
from tests.layouts import shapes as any_shape
from tests.oracle import assert_close, assert_matches_reference


def numpy_subtract(a, b):
    """numpy's answer the way lazyinfini computes: half floats in float32, rounded once."""
    dtype = li.result_type(a.dtype, b.dtype)
    c = compute_dtype(dtype)
    return (a.astype(c) - b.astype(c)).astype(dtype)


def numpy_clip(x, lo, hi):
    c = compute_dtype(x.dtype)
    lo = None if lo is None else np.asarray(lo).astype(x.dtype).astype(c)
    hi = None if hi is None else np.asarray(hi).astype(x.dtype).astype(c)
    out = x.astype(c)
    # Note (spec): NaN in x or in a bound gives NaN; np.maximum/np.minimum propagate it.
    if lo is not None:
        out = np.maximum(out, lo)
    if hi is not None:
        out = np.minimum(out, hi)
    return out.astype(x.dtype)


# -- subtract -----------------------------------------------------------------------------------
@given(st.data())
def test_subtract_matches_numpy_over_layouts(data):
    shape = data.draw(any_shape, "shape")
    dtype = data.draw(float_dtypes, "dtype")
    kind = data.draw(st.sampled_from(["normal", "special"]), "values")
    a = data.draw(layouts(shape, dtype, kind), "a")
    b = data.draw(layouts(data.draw(broadcastable_shapes(shape), "b shape"), dtype, kind), "b")
    expected = numpy_subtract(a, b)
    got = assert_matches_reference(li.subtract, a, b)
    assert_close(got, expected, dtype)
    assert_close(li.asarray(a) - li.asarray(b), expected, dtype)


@given(st.data())
def test_subtract_broadcasts_both_ways(data):
    shape = data.draw(any_shape, "shape")
    dtype = data.draw(float_dtypes, "dtype")
    a = data.draw(layouts(data.draw(broadcastable_shapes(shape)), dtype), "a")
    b = data.draw(layouts(data.draw(broadcastable_shapes(shape)), dtype), "b")
    expected = numpy_subtract(a, b)
    got = assert_matches_reference(li.subtract, a, b)
    assert_close(got, expected, dtype)


@given(st.sampled_from(FLOATS), st.sampled_from(FLOATS), st.integers(0, 2**32 - 1))
def test_subtract_mixed_float_dtypes_promote_then_compute(d1, d2, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal((3, 5)) * 100).astype(d1)
    b = (rng.standard_normal((5,)) * 100).astype(d2)
    expected = numpy_subtract(a, b)
    got = assert_matches_reference(li.subtract, a, b)
    assert got.dtype == li.result_type(d1, d2)
    assert_close(got, expected, expected.dtype)


@pytest.mark.parametrize("dtype", HALF)
def test_half_subtract_is_correctly_rounded(dtype):
    # float32 holds more than twice the half formats' precision, so computing there and rounding
    # once is the correctly rounded result: overflow to inf, subnormals, ties to even included.
    a = np.array([1.0, 1000.0, 3.0e-5, 65504.0, 1.0, 2.0**-14], dtype=dtype)
    b = np.array([2.0**-12, 0.3, -3.0e-5, -65504.0, -(2.0**-11), 2.0**-15], dtype=dtype)
    expected = (a.astype(F32) - b.astype(F32)).astype(dtype)
    np.testing.assert_array_equal(np.asarray(li.asarray(a) - li.asarray(b)), expected)


def test_subtract_python_scalars_are_weak():
    x = np.array([1.5, -2.0], dtype=np.float16)
    assert_close(li.asarray(x) - 1.5, (x.astype(F32) - 1.5).astype(np.float16), np.float16)
    assert_close(3 - li.asarray(x), (3 - x.astype(F32)).astype(np.float16), np.float16)
    i = np.array([5, -7], dtype=np.int8)
    assert_close(li.asarray(i) - 2, (i - 2).astype(np.int8), np.int8)


def test_subtract_integers_wrap_like_numpy():
    a = np.array([-128, 127, 0], dtype=np.int8)
    b = np.array([1, -1, -128], dtype=np.int8)
    assert_close(assert_matches_reference(li.subtract, a, b), a - b, np.int8)


def test_subtract_complex():
    a = np.array([1 + 2j, -3j], dtype=np.complex64)
    b = np.array([0.5, 1 + 1j], dtype=np.complex64)
    assert_close(assert_matches_reference(li.subtract, a, b), a - b, np.complex64)


# -- clip ---------------------------------------------------------------------------------------
@given(st.data())
def test_clip_matches_numpy_over_layouts(data):
    shape = data.draw(any_shape, "shape")
    dtype = data.draw(float_dtypes, "dtype")
    x = data.draw(layouts(shape, dtype, data.draw(st.sampled_from(["normal", "special"]))), "x")
    lo, hi = sorted(data.draw(st.lists(st.floats(-6, 6, width=16), min_size=2, max_size=2)))
    which = data.draw(st.sampled_from(["both", "min", "max"]), "bounds")
    lo = None if which == "max" else lo
    hi = None if which == "min" else hi
    expected = numpy_clip(x, lo, hi)
    got = assert_matches_reference(lambda a: li.clip(a, lo, hi), x)
    assert_close(got, expected, dtype)
    assert_close(li.clip(li.asarray(x), min=lo, max=hi), expected, dtype)


@given(st.data())
def test_clip_array_bounds_broadcast_against_x(data):
    shape = data.draw(any_shape, "shape")
    dtype = data.draw(float_dtypes, "dtype")
    x = data.draw(layouts(shape, dtype), "x")
    a = data.draw(layouts(data.draw(broadcastable_shapes(shape)), dtype), "a")
    b = data.draw(layouts(data.draw(broadcastable_shapes(shape)), dtype), "b")
    lo, hi = np.minimum(a, b), np.maximum(a, b)  # min <= max: the spec leaves min > max open
    expected = numpy_clip(x, lo, hi)
    got = assert_matches_reference(li.clip, x, lo, hi)
    assert_close(got, expected, dtype)


def test_clip_bounds_may_broadcast_x_up():
    x = np.arange(4, dtype=np.float32)
    lo = np.full((3, 1), 1.0, dtype=np.float32)
    hi = np.array([[2.0], [3.0], [0.5]], dtype=np.float32)
    got = np.asarray(li.clip(li.asarray(x), li.asarray(lo), li.asarray(hi)))
    assert got.shape == (3, 4)
    np.testing.assert_array_equal(got, np.minimum(np.maximum(x, lo), hi))


@pytest.mark.parametrize("dtype", FLOATS)
def test_clip_nan_and_infinities(dtype):
    x = np.array([np.nan, np.inf, -np.inf, -5.0, 0.25, 5.0], dtype=dtype)
    got = np.asarray(li.clip(li.asarray(x), -1, 1))
    assert_close(got, np.array([np.nan, 1, -1, -1, 0.25, 1], dtype=dtype), dtype, exact=True)
    # Note (spec): a NaN bound makes every element NaN, scalar or array.
    for lo, hi in ((float("nan"), 1.0), (-1.0, float("nan"))):
        assert np.isnan(np.asarray(li.clip(li.asarray(x), lo, hi)).astype(np.float64)).all()
    nan_at_1 = np.array([0, np.nan, 0, 0, 0, 0], dtype=dtype)
    got = np.asarray(li.clip(li.asarray(x), li.asarray(nan_at_1), None)).astype(np.float64)
    np.testing.assert_array_equal(np.isnan(got), [True, True, False, False, False, False])
    # Infinite bounds clip nothing away.
    assert_close(li.clip(li.asarray(x), -np.inf, np.inf), x, dtype, exact=True)


def test_clip_integers_keep_dtype_and_bounds_cast():
    x = np.array([-100, -1, 0, 5, 100], dtype=np.int16)
    got = assert_matches_reference(lambda a: li.clip(a, -3, 7), x)
    assert_close(got, np.clip(x, -3, 7), np.int16)
    lo = np.array([0, 0, 1, 1, 1], dtype=np.int8)  # same kind, smaller dtype
    assert_close(li.clip(li.asarray(x), li.asarray(lo)), np.maximum(x, lo), np.int16)


def test_clip_without_bounds_is_x():
    x = np.array([np.nan, -1.0, 2.0])
    got = np.asarray(li.clip(li.asarray(x)))
    np.testing.assert_array_equal(got, x)


def test_clip_keeps_x_dtype_with_wider_bounds():
    x = np.array([1.0, 2.0, 3.0], dtype=np.float16)
    lo = np.array([1.5, 1.5, 1.5], dtype=np.float64)
    y = li.clip(li.asarray(x), li.asarray(lo))
    assert y.dtype == li.float16
    np.testing.assert_array_equal(np.asarray(y), np.array([1.5, 2, 3], dtype=np.float16))


# -- promotion ----------------------------------------------------------------------------------
# The Array API table (https://data-apis.org/array-api/latest/API_specification/type_promotion.html)
# written out pair by pair, plus the float16/bfloat16 extension: bf16 with f16 gives f32.
_PROMOTION_ROWS = """
b1 b1 b1
i1 i1 i1 | i1 i2 i2 | i1 i4 i4 | i1 i8 i8 | i2 i2 i2 | i2 i4 i4 | i2 i8 i8 | i4 i4 i4
i4 i8 i8 | i8 i8 i8
u1 u1 u1 | u1 u2 u2 | u1 u4 u4 | u1 u8 u8 | u2 u2 u2 | u2 u4 u4 | u2 u8 u8 | u4 u4 u4
u4 u8 u8 | u8 u8 u8
i1 u1 i2 | i1 u2 i4 | i1 u4 i8 | i2 u1 i2 | i2 u2 i4 | i2 u4 i8 | i4 u1 i4 | i4 u2 i4
i4 u4 i8 | i8 u1 i8 | i8 u2 i8 | i8 u4 i8
f2 f2 f2 | f2 f4 f4 | f2 f8 f8 | bf bf bf | bf f4 f4 | bf f8 f8 | bf f2 f4
f4 f4 f4 | f4 f8 f8 | f8 f8 f8
c8 c8 c8 | c8 c16 c16 | c16 c16 c16
f2 c8 c8 | f2 c16 c16 | bf c8 c8 | bf c16 c16 | f4 c8 c8 | f4 c16 c16 | f8 c8 c16 | f8 c16 c16
"""
_CODES = {
    "b1": li.bool, "i1": li.int8, "i2": li.int16, "i4": li.int32, "i8": li.int64,
    "u1": li.uint8, "u2": li.uint16, "u4": li.uint32, "u8": li.uint64,
    "f2": li.float16, "bf": li.bfloat16, "f4": li.float32, "f8": li.float64,
    "c8": li.complex64, "c16": li.complex128,
}  # fmt: skip
PROMOTION = {}
for _cell in _PROMOTION_ROWS.replace("\n", "|").split("|"):
    if _cell.strip():
        _a, _b, _r = (_CODES[c] for c in _cell.split())
        PROMOTION[(_a, _b)] = PROMOTION[(_b, _a)] = _r
SIGNED = (li.int8, li.int16, li.int32, li.int64)


def test_promotion_table_is_complete():
    # Every same-kind pair, every int/uint pair but uint64 with signed, every float/complex pair.
    assert len(PROMOTION) == 1 + 16 + 16 + 2 * 12 + 16 + 4 + 2 * 8


def _zeros(dtype, shape=(2,)):
    return li.asarray(np.zeros(shape, dtype=dtype))


@pytest.mark.parametrize("pair", sorted(PROMOTION, key=str), ids=lambda p: f"{p[0]}-{p[1]}")
def test_promotion_pair(pair):
    a, b = pair
    expected = PROMOTION[pair]
    assert li.result_type(a, b) == expected
    assert li.result_type(_zeros(a), b) == expected
    cond = li.asarray(np.array([True, False]))
    y = li.where(cond, _zeros(a), _zeros(b, (1,)))
    assert y.dtype == expected
    assert np.asarray(y).dtype == expected
    if a != li.bool and b != li.bool:
        y = _zeros(a) - _zeros(b)
        assert y.dtype == expected and np.asarray(y).dtype == expected


@pytest.mark.parametrize("signed", SIGNED)
def test_uint64_with_signed_raises(signed):
    with pytest.raises(TypeError, match="result_type"):
        li.result_type(li.uint64, signed)
    with pytest.raises(TypeError, match="subtract"):
        li.subtract(_zeros(li.uint64), _zeros(signed))
    with pytest.raises(TypeError, match="where"):
        li.where(_zeros(li.bool), _zeros(signed), _zeros(li.uint64))


def test_the_literal_table_is_the_standard_s_by_array_api_strict():
    # _dtypes.SPEC_PROMOTIONS holds exactly the pairs array_api_strict promotes (every spec
    # pair: strict raises for the others), with its results, in either order.
    ours = {getattr(xs, d.name): d for d in _dtypes.ALL if d not in _dtypes.HALF}
    for (sa, a), (sb, b) in itertools.product(ours.items(), repeat=2):
        try:
            expected = ours[xs.result_type(sa, sb)]
        except TypeError:
            expected = None
        listed = (a, b) in _dtypes.SPEC_PROMOTIONS or (b, a) in _dtypes.SPEC_PROMOTIONS
        assert listed == (expected is not None), (a, b)
        if listed:
            assert _dtypes.promote(a, b) == expected, (a, b)
    assert len(_dtypes.SPEC_PROMOTIONS) == 43  # 73 ordered pairs, each unordered one once


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (li.uint64, li.int64, None),  # mixed signedness with uint64: no integer holds both
        (li.float16, li.float64, li.float64),  # two floats: the wider
        (li.bfloat16, li.float16, li.float32),  # neither half holds the other
        (li.float16, li.float16, li.float16),
        (li.int64, li.float16, li.float64),  # an integer with a float: numpy's, the float
        (li.int16, li.float16, li.float32),  # holding both
        (li.uint64, li.float32, li.float64),
        (li.int8, li.bfloat16, li.bfloat16),
        (li.int16, li.bfloat16, li.float32),  # numpy (ml_dtypes) has none: the float holding both
        (li.int8, li.complex64, li.complex64),
        (li.int32, li.complex64, li.complex128),
        (li.bool, li.uint8, li.uint8),  # else the higher kind's dtype, as it is
        (li.float16, li.complex64, li.complex64),
        (li.bfloat16, li.complex128, li.complex128),
    ],
)
def test_the_extension_rule_for_pairs_the_standard_leaves_out(a, b, expected):
    assert (a, b) not in _dtypes.SPEC_PROMOTIONS and (b, a) not in _dtypes.SPEC_PROMOTIONS
    assert _dtypes.promote(a, b) == expected and _dtypes.promote(b, a) == expected


def test_an_integer_with_a_float_promotes_as_numpys():
    # NOTE: float32_array * int64_array is float64 in numpy; the kind's dtype as it is (float32,
    # JAX's rule) gave numpy scripts other numbers
    kinds = [*_dtypes.CATEGORIES["integer"], li.bool, li.float16, li.float32, li.float64]
    kinds += [li.complex64, li.complex128]
    for a in kinds:
        for b in kinds:
            if {_dtypes.kind(a), _dtypes.kind(b)} == {"int", "uint"} and li.uint64 in (a, b):
                continue  # NOTE: uint64 with a signed integer stays a TypeError
            assert _dtypes.promote(a, b) == np.result_type(a, b), (a, b)
    x, i = np.linspace(0, 1, 5, dtype=np.float32), np.arange(5) * 10**9
    got = li.asarray(x) * li.asarray(i)
    assert got.dtype == li.float64
    assert np.asarray(got).tobytes() == (x * i).tobytes()
    assert np.asarray(np.int64(3) * li.asarray(x)).dtype == np.float64


def test_result_type_of_several():
    assert li.result_type(li.int8, li.uint8, li.int32) == li.int32
    assert li.result_type(li.float16, li.bfloat16, li.float16) == li.float32
    assert li.result_type(li.float32, li.complex64, li.float64) == li.complex128
    with pytest.raises(ValueError, match="result_type"):
        li.result_type()


# Python scalars are weak: the array's dtype wins when the scalar's kind fits it.
_SCALAR_CASES = [
    (li.float16, 1.5, li.float16), (li.bfloat16, 2, li.bfloat16), (li.float32, 1.5, li.float32),
    (li.float64, True, li.float64), (li.int8, 2, li.int8), (li.uint16, 7, li.uint16),
    (li.int64, -3, li.int64), (li.complex64, 1.5, li.complex64), (li.complex64, 2j, li.complex64),
    (li.float16, 1j, li.complex64), (li.float32, 1j, li.complex64), (li.float64, 1j, li.complex128),
    (li.bool, True, li.bool),
]  # fmt: skip


@pytest.mark.parametrize("dtype, scalar, expected", _SCALAR_CASES, ids=str)
def test_python_scalars_are_weak(dtype, scalar, expected):
    assert li.result_type(dtype, scalar) == expected
    assert li.result_type(_zeros(dtype), scalar) == expected  # an Array next to a scalar
    cond = li.asarray(np.array([True, False]))
    assert li.where(cond, _zeros(dtype), scalar).dtype == expected
    if dtype != li.bool:
        y = _zeros(dtype) - scalar
        assert y.dtype == expected and np.asarray(y).dtype == expected
        y = scalar - _zeros(dtype)
        assert y.dtype == expected and np.asarray(y).dtype == expected


@pytest.mark.parametrize(
    "dtype, scalar",
    [
        (li.int8, 128),
        (li.int8, -129),
        (li.uint8, -1),
        (li.uint8, 256),
        (li.int64, 2**63),
        (li.uint64, 2**64),
    ],
)
def test_out_of_range_int_scalar_raises(dtype, scalar):
    with pytest.raises(OverflowError, match="subtract"):
        _zeros(dtype) - scalar
    with pytest.raises(OverflowError, match="result_type"):
        li.result_type(dtype, scalar)


@pytest.mark.parametrize("dtype, scalar", [(li.int8, 1.5), (li.int32, 1j), (li.float32, 1 + 2j)])
def test_scalar_of_a_wider_kind_is_rejected_or_promoted_consistently(dtype, scalar):
    """result_type and the operators agree on every scalar: both raise or both give one dtype."""
    try:
        expected = li.result_type(dtype, scalar)
    except TypeError:
        with pytest.raises(TypeError, match="subtract"):
            _zeros(dtype) - scalar
        return
    assert (_zeros(dtype) - scalar).dtype == expected


def test_numpy_arrays_next_to_arrays_are_strong():
    y = li.asarray(np.zeros(2, np.float16)) - np.zeros(2, np.float32)
    assert y.dtype == li.float32
    y = np.zeros(2, np.float32) - li.asarray(np.zeros(2, np.float16))
    assert isinstance(y, li.Array) and y.dtype == li.float32


def test_numpy_ufuncs_with_a_namespace_twin_record_lazily():
    x_np = np.array([0.5, 1.5, 2.5])
    x = li.asarray(x_np)
    before = li.inspect.counters.kernels
    results = {
        "exp": np.exp(x),
        "multiply": np.float64(2) * x,
        "less": np.ones(3) < x,
        "matmul": np.matmul(np.ones((2, 3)), x),
    }
    assert li.inspect.counters.kernels == before
    assert all(isinstance(r, li.Array) and r._node.op.label == k for k, r in results.items())
    np.testing.assert_array_equal(np.asarray(results["exp"]), np.exp(x_np))
    with pytest.raises(TypeError, match="^bitwise_and: "):
        np.bitwise_and(li.ones(2), 1)  # the namespace's rule, as li.bitwise_and says


def test_operators_and_ufunc_twins_call_the_namespace_function_they_name():
    # The tables list functions by name (no helper of a module becomes an operator).
    from lazyinfini import _array, _numpy_ufuncs

    assert set(_array._FUNCTIONS) <= set(_numpy_ufuncs._FUNCTIONS)
    for name, function in _numpy_ufuncs._FUNCTIONS.items():
        assert function is getattr(li, name), name
    for ufunc, function in _numpy_ufuncs.TWINS.items():
        assert ufunc is getattr(np, function.__name__)
    assert np.exp in _numpy_ufuncs.TWINS and np.add in _numpy_ufuncs.TWINS


def test_other_numpy_ufunc_calls_compute_their_inputs():
    # scipy.special's ufuncs (log1p, round, ...), ufunc methods and out= are not namespace
    # functions: they run on the computed values, as on array_api_strict, and give Arrays back.
    from scipy import special

    x_np = np.array([0.5, 1.5, 2.5])
    x = li.asarray(x_np) * 1.0
    y = special.log1p(x)
    assert isinstance(y, li.Array) and y._node.op.label == "buffer"
    np.testing.assert_allclose(np.asarray(y), special.log1p(x_np))
    assert float(np.add.reduce(x)) == 4.5
    fractional, whole = np.modf(x)
    np.testing.assert_array_equal(np.asarray(whole), [0.0, 1.0, 2.0])
    out = np.zeros(3)
    assert np.add(x, 1.0, out=out) is out  # numpy writes into the caller's array
    np.testing.assert_array_equal(out, x_np + 1.0)
    assert np.add(x_np, 1.0, out=(x,)) is x  # rebound lazily (tests/api/test_ufunc_arguments)
    np.testing.assert_array_equal(np.asarray(x), x_np + 1.0)
    with pytest.raises(TypeError, match="^add: out= cannot be"):
        np.add.accumulate(x_np, out=(x,))  # a ufunc method's out


@pytest.mark.parametrize("dtype", [d for d in _CODES.values() if d != li.bool])
def test_every_numeric_dtype_subtracts(dtype):
    rng = np.random.default_rng(0)
    if np.dtype(dtype).kind in "iu":
        a = rng.integers(0, 50, 6).astype(dtype)
        b = rng.integers(0, 50, 6).astype(dtype)
    else:
        a = (rng.standard_normal(6) * 8).astype(dtype)
        b = (rng.standard_normal(6) * 8).astype(dtype)
    got = assert_matches_reference(li.subtract, a, b)
    assert_close(got, numpy_subtract(a, b), dtype)


def test_promotion_pairs_cover_every_dtype():
    seen = set(itertools.chain.from_iterable(PROMOTION))
    assert seen == set(_CODES.values())


# -- programs: sub, clip and views mixed, several outputs computed together ------------------------
_STEPS = ["sub", "sub", "clip", "permute", "slice", "astype", "reshape", "broadcast", "scalar"]


@st.composite
def programs(draw):
    """Inputs and a recipe of steps over a growing pool of values (numpy mirrors alongside)."""
    dtype = draw(st.sampled_from([np.dtype(np.float32), np.dtype(np.float64)]))
    shape = draw(any_shape.filter(lambda s: len(s) <= 4))
    inputs = [draw(layouts(shape, dtype, "special"))]
    for _ in range(draw(st.integers(0, 2))):
        inputs.append(draw(layouts(draw(broadcastable_shapes(shape)), dtype, "special")))
    pool = list(inputs)  # numpy values, to draw valid steps
    recipe = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(_STEPS))
        i = draw(st.integers(0, len(pool) - 1))
        x = pool[i]
        if kind == "sub":
            fits = [j for j, y in enumerate(pool) if _broadcasts(x.shape, y.shape)]
            step = ("sub", i, draw(st.sampled_from(fits)))
        elif kind == "clip":
            lo, hi = sorted(draw(st.lists(st.floats(-3, 3, width=32), min_size=2, max_size=2)))
            step = ("clip", i, lo, hi)
        elif kind == "permute":
            step = ("permute", i, tuple(draw(st.permutations(range(x.ndim)))))
        elif kind == "slice":
            key = tuple(
                slice(None, None, draw(st.sampled_from([1, 2, -1, -2]))) for _ in range(x.ndim)
            )
            step = ("slice", i, key)
        elif kind == "astype":
            step = ("astype", i, draw(st.sampled_from([np.float32, np.float64])))
        elif kind == "reshape":
            step = ("reshape", i, (-1,))
        elif kind == "broadcast":
            step = ("broadcast", i, (2, *x.shape))
        else:
            step = ("scalar", i, draw(st.sampled_from([1.5, -2, 0.25])))
        recipe.append(step)
        pool.append(_replay_step(step, pool, _NUMPY_NS))
    outputs = draw(st.lists(st.integers(len(inputs), len(pool) - 1), min_size=1, max_size=3))
    return inputs, recipe, outputs, pool, [np.array(x) for x in inputs]


def _broadcasts(a, b):
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


_NUMPY_NS = {
    "sub": numpy_subtract,
    "clip": numpy_clip,
    "permute": np.transpose,
    "astype": lambda x, d: x.astype(d),
    "reshape": np.reshape,
    "broadcast": np.broadcast_to,
    "scalar": lambda x, s: (x - np.asarray(s).astype(x.dtype)).astype(x.dtype),
}
_LI_NS = {
    "sub": li.subtract,
    "clip": li.clip,
    "permute": li.permute_dims,
    "astype": li.astype,
    "reshape": li.reshape,
    "broadcast": li.broadcast_to,
    "scalar": lambda x, s: x - s,
}


def _replay_step(step, pool, ns):
    kind, i, *args = step
    if kind == "sub":
        return ns["sub"](pool[i], pool[args[0]])
    if kind == "slice":
        return pool[i][args[0]]
    return ns[kind](pool[i], *args)


@given(programs())
def test_programs_match_numpy_on_every_executor(program):
    inputs, recipe, outputs, expected, originals = program
    for name in sorted(DEVICES):
        for fuse in (True, False):
            with li.options(executor=name, fuse=fuse):
                pool = [li.asarray(x) for x in inputs]
                for step in recipe:
                    pool.append(_replay_step(step, pool, _LI_NS))
                results = li.compute(*[pool[k] for k in outputs])
                results = results if isinstance(results, tuple) else (results,)
                for k, got in zip(outputs, results, strict=True):
                    assert_close(got, expected[k], expected[k].dtype, exact=True)
            # The inputs are untouched by any executor's buffer reuse.
            for x, original in zip(inputs, originals, strict=True):
                assert_close(x, original, exact=True)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("exponent", [2, 2.0, 0.5, 3, -1, -1.0])
def test_the_power_operator_takes_numpys_shortcuts(dtype, exponent):
    """numpy's `x ** 2` squares, `x ** -1` takes the reciprocal and `x ** 0.5` the square root
    (ndarray's operator); float32 and float64's power loop does too for a float 2 or -1 (its
    bits may differ from pow's); other exponents are pow."""
    x = (np.random.default_rng(0).standard_normal(4096) * 3).astype(dtype)
    x[:4] = [-0.0, -np.inf, np.nan, np.inf]
    y = li.asarray(x) ** exponent
    with np.errstate(all="ignore"):
        expected = x**exponent
    np.testing.assert_array_equal(np.asarray(y), expected)
    assert y.dtype == expected.dtype
    shortcut = {2: "square", -1: "reciprocal", 0.5: "sqrt"}.get(exponent)
    if type(exponent) is float and exponent != 0.5 and dtype == np.float16:
        shortcut = None  # NOTE: numpy's float16 power loop takes no shortcut
    (kernel,) = li.inspect.schedule(li.asarray(x) ** exponent).kernels
    assert kernel.name == (shortcut or "pow")


@pytest.mark.parametrize("dtype", ["uint8", "int8", "uint64", "int64"])
@pytest.mark.parametrize("value", [-1, 300, -200, 2**64, -(2**63) - 1, 2**63])
def test_comparing_with_a_python_int_beyond_the_dtype_answers_as_numpy(dtype, value):
    """numpy 2 compares an integer array with a Python int its dtype cannot hold (uint8 == -1
    is False everywhere), in either order; arithmetic with it raises OverflowError there."""
    info = np.iinfo(dtype)
    x_np = np.array([info.min, 0, 1, info.max], dtype=dtype)
    x = li.asarray(x_np)
    for op in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):
        for pair in ((x, value), (value, x)):
            want = op(*(x_np if a is x else a for a in pair))
            got = np.asarray(op(*pair))
            assert got.dtype == want.dtype and np.array_equal(got, want), (op, pair)
    if not info.min <= value <= info.max:
        with pytest.raises(OverflowError):
            x + value


_IN_PLACE_DTYPES = ["bool", "int8", "uint8", "int16", "int64", "uint64", "float16", "float32"]
_IN_PLACE_DTYPES += ["float64", "complex64"]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("op", ["__iadd__", "__imul__", "__itruediv__", "__ifloordiv__"])
@pytest.mark.parametrize("left", _IN_PLACE_DTYPES)
def test_in_place_ops_cast_their_result_as_numpys_same_kind_rule(left, op):
    """x op= y keeps x's dtype: numpy casts the result where same_kind casting allows
    (float32 += float64 array computes in float64 and rounds), and raises where it does not
    (int64 += float64); lazyinfini gives the same dtype, values and errors."""
    rng = np.random.default_rng(0)
    for right in _IN_PLACE_DTYPES:
        x_np, y_np = rng.integers(1, 5, 4).astype(left), (rng.random(4) * 3 + 1).astype(right)
        try:
            want = getattr(x_np.copy(), op)(y_np)
        except TypeError:
            want = None
        x = li.asarray(x_np)
        if want is None:
            with pytest.raises(TypeError):
                getattr(x, op)(li.asarray(y_np))
            continue
        getattr(x, op)(li.asarray(y_np))
        got = np.asarray(x)
        assert got.dtype == want.dtype and np.array_equal(got, want), (left, op, right)
