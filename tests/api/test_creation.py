"""Creation: asarray (numpy, nested lists, scalars, arrays; copy and dtype), fills, ranges."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lazyinfini as li
from tests.oracle import assert_close


# -- asarray from numpy ---------------------------------------------------------------------------
def test_asarray_numpy_copy_none_and_false_share_memory():
    x = np.arange(6.0).reshape(2, 3)
    for copy in (None, False):
        a = li.asarray(x, copy=copy)
        assert np.shares_memory(np.asarray(a), x)
        assert a.shape == (2, 3) and a.dtype == li.float64


def test_asarray_numpy_copy_true_does_not_share():
    x = np.arange(6.0)
    a = li.asarray(x, copy=True)
    assert not np.shares_memory(np.asarray(a), x)
    x[0] = 100.0  # the user's array changes; the copy does not
    assert np.asarray(a)[0] == 0.0


# Bug 6 of issue 8: copy=True must snapshot the caller's memory, also through an Array.
def _writes_after(make):
    """make(a) for a numpy array a, then a[:] = 5: the values the result shows afterwards."""
    a = np.arange(3.0)
    result = make(a)
    a[:] = 5.0
    return np.asarray(result).reshape(-1).tolist()


COPIES = {
    "asarray(numpy, copy=True)": lambda a: li.asarray(a, copy=True),
    "asarray(Array, copy=True)": lambda a: li.asarray(li.asarray(a), copy=True),
    "astype to the same dtype": lambda a: li.astype(li.asarray(a), li.float64),
    "astype(copy=True) of a view": lambda a: li.astype(li.asarray(a)[::-1][::-1], li.float64),
    "asarray(copy=True) of a reshape": lambda a: li.asarray(
        li.reshape(li.asarray(a), (1, -1)), copy=True
    ),
    "asarray(Array, dtype, copy=True)": lambda a: li.asarray(
        li.asarray(a), dtype=li.float64, copy=True
    ),
}


@pytest.mark.parametrize("make", COPIES.values(), ids=COPIES.keys())
def test_copies_keep_their_values_when_the_caller_writes(make):
    assert _writes_after(make) == [0.0, 1.0, 2.0]


def test_copies_share_no_memory_with_the_caller():
    a = np.arange(6.0).reshape(2, 3)
    for make in COPIES.values():
        assert not np.shares_memory(np.asarray(make(a)), a)


SHARES = {
    "asarray(numpy)": lambda a: li.asarray(a),
    "asarray(numpy, copy=False)": lambda a: li.asarray(a, copy=False),
    "asarray(Array)": lambda a: li.asarray(li.asarray(a)),
    "astype(copy=False)": lambda a: li.astype(li.asarray(a), li.float64, copy=False),
}


@pytest.mark.parametrize("make", SHARES.values(), ids=SHARES.keys())
def test_without_a_copy_the_callers_later_writes_show(make):
    # Note: the documented default (asarray's docstring): copy=None shares, as numpy's does.
    assert _writes_after(make) == [5.0, 5.0, 5.0]


def test_a_pending_result_reading_shared_memory_sees_writes_until_computed():
    # Note: a cast is a pending result like any other, also with astype's copy=True.
    a = np.arange(3.0)
    x = li.asarray(a)
    y, z, cast = x + 1, x * 1, li.astype(x, li.float32)
    z.compute()
    a[:] = 5.0
    assert np.asarray(y).tolist() == [6.0, 6.0, 6.0]  # computed after the write
    assert np.asarray(cast).tolist() == [5.0, 5.0, 5.0]
    assert np.asarray(z).tolist() == [0.0, 1.0, 2.0]  # computed before it


def test_copy_of_a_pending_array_does_not_compute_it():
    x = li.asarray(np.arange(3.0)) + 1
    before = li.inspect.counters.materializations
    for y in (li.asarray(x, copy=True), li.astype(x, li.float64)):
        assert y is not x and y._node.op is not li._graph.Op.BUFFER
    assert li.inspect.counters.materializations == before
    assert li.asarray(x, copy=True).tolist() == [1.0, 2.0, 3.0]


def test_copy_false_and_astype_copy_false_return_the_array_itself():
    x = li.asarray(np.arange(3.0))
    assert li.asarray(x, copy=False) is x
    assert li.astype(x, li.float64, copy=False) is x
    assert li.astype(x, li.float32, copy=False).dtype == li.float32  # a cast must copy


def test_copy_must_be_a_bool_or_none():
    with pytest.raises(TypeError, match="^asarray: "):
        li.asarray([1.0], copy="yes")
    with pytest.raises(TypeError, match="^astype: "):
        li.astype(li.asarray([1.0]), li.float32, copy=None)


def test_asarray_does_not_make_the_users_array_read_only():
    x = np.arange(3.0)
    li.asarray(x)
    assert x.flags.writeable
    x[0] = 1.0


def test_asarray_keeps_strided_views():
    base = np.arange(40.0).reshape(5, 8)
    view = base[::2, 7::-3]
    np.testing.assert_array_equal(np.asarray(li.asarray(view)), view)


def test_asarray_copy_false_raises_when_a_copy_is_needed():
    with pytest.raises(ValueError, match="asarray"):
        li.asarray(np.zeros(2, np.float32), dtype=li.float64, copy=False)
    with pytest.raises(ValueError, match="asarray"):
        li.asarray([1, 2], copy=False)
    with pytest.raises(ValueError, match="asarray"):
        li.asarray(li.asarray(np.zeros(2, np.float32)), dtype=li.float64, copy=False)


@pytest.mark.parametrize(
    "dtype", [li.int8, li.uint64, li.float16, li.bfloat16, li.float64, li.complex64, li.bool],
    ids=str,
)  # fmt: skip
def test_asarray_dtype_argument_casts_numpy(dtype):
    x = np.array([0.0, 1.0, 2.0])
    a = li.asarray(x, dtype=dtype)
    assert a.dtype == dtype
    assert_close(a, x.astype(dtype), dtype, exact=True)


@pytest.mark.parametrize("dtype", ["float32", np.float32, ml_dtypes.bfloat16], ids=str)
def test_asarray_dtype_accepts_numpy_types(dtype):
    assert li.asarray([1.0], dtype=np.dtype(dtype)).dtype == np.dtype(dtype)


def test_asarray_unsupported_numpy_dtypes_raise():
    for bad in (np.array(["a"]), np.array([object()]), np.zeros(2, np.longdouble)):
        if bad.dtype == np.float64:  # platforms where longdouble is double
            continue
        with pytest.raises(TypeError, match="asarray"):
            li.asarray(bad)


# -- asarray from Python -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "obj, dtype",
    [
        ([1, 2, 3], li.int64),
        ([[1, 2], [3, 4]], li.int64),
        ([1.5, 2], li.float64),
        ([1, 2j], li.complex128),
        ([True, False], li.bool),
        ([[True], [False]], li.bool),
        (3, li.int64),
        (-2.5, li.float64),
        (1j, li.complex128),
        (False, li.bool),
        ([], li.float64),
    ],
    ids=repr,
)
def test_asarray_python_defaults(obj, dtype):
    a = li.asarray(obj)
    assert a.dtype == dtype
    expected = np.asarray(obj).astype(dtype)
    assert a.shape == expected.shape
    assert_close(a, expected, dtype, exact=True)


def test_asarray_python_with_dtype():
    assert_close(li.asarray([1, 2], dtype=li.int8), np.array([1, 2], np.int8), li.int8)
    a = li.asarray([1.0, 2.5], dtype=li.bfloat16)
    assert_close(a, np.array([1.0, 2.5], ml_dtypes.bfloat16), li.bfloat16, exact=True)
    # Ints that fit the requested dtype but not int64.
    a = li.asarray([2**63, 2**64 - 1], dtype=li.uint64)
    assert a.dtype == li.uint64 and a.tolist() == [2**63, 2**64 - 1]


def test_asarray_python_int_out_of_range():
    with pytest.raises(OverflowError, match="asarray"):
        li.asarray(2**63)
    with pytest.raises(OverflowError, match="asarray"):
        li.asarray([1, 2**64])
    with pytest.raises(OverflowError, match="asarray"):
        li.asarray([300], dtype=li.int8)


def test_asarray_of_an_array_is_that_array():
    a = li.asarray(np.arange(3.0)) - 1
    b = li.asarray(a)
    assert b.shape == a.shape and b.dtype == a.dtype
    np.testing.assert_array_equal(np.asarray(b), [-1.0, 0.0, 1.0])
    assert np.asarray(a).tolist() == [-1.0, 0.0, 1.0]  # computed once, shared
    c = li.asarray(a, dtype=li.float16)
    assert c.dtype == li.float16
    np.testing.assert_array_equal(np.asarray(c), np.array([-1, 0, 1], np.float16))
    assert li.asarray(a, copy=True).tolist() == [-1.0, 0.0, 1.0]


def test_asarray_of_nested_arrays_and_numpy_scalars():
    a = li.asarray([li.asarray(1.0), li.asarray(2.0)])
    np.testing.assert_array_equal(np.asarray(a), [1.0, 2.0])
    assert li.asarray(np.float32(1.5)).dtype == li.float32
    assert li.asarray(np.int16(3)).shape == ()


def test_asarray_rejects_other_devices():
    with pytest.raises(ValueError, match="asarray"):
        li.asarray([1], device="gpu")
    assert li.asarray([1], device=li.CPU).device == li.CPU
    assert li.asarray([1], device="cpu").device == li.CPU


# -- fills ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 0, 3), (2, 3, 4, 1, 2, 1)], ids=str)
@pytest.mark.parametrize("dtype", [None, li.float16, li.bfloat16, li.int32, li.bool, li.complex64],
                         ids=str)  # fmt: skip
def test_zeros_ones_empty(shape, dtype):
    expected_dtype = li.float64 if dtype is None else dtype
    for fn, value in ((li.zeros, 0), (li.ones, 1), (li.empty, None)):
        a = fn(shape, dtype=dtype)
        assert a.shape == shape and a.dtype == expected_dtype
        got = np.asarray(a)
        assert got.shape == shape and got.dtype == expected_dtype
        if value is not None:
            assert_close(
                got, np.full(shape, value).astype(expected_dtype), expected_dtype, exact=True
            )


def test_shape_as_int():
    assert li.zeros(3).shape == (3,)
    assert li.ones(np.int64(2)).shape == (2,)
    assert li.full((np.int32(2), 1), 7).shape == (2, 1)


@pytest.mark.parametrize(
    "value, dtype, expected_dtype",
    [
        (3, None, li.int64),
        (3.0, None, li.float64),
        (True, None, li.bool),
        (1 + 1j, None, li.complex128),
        (3, li.float16, li.float16),
        (2.5, li.bfloat16, li.bfloat16),
        (-7, li.int8, li.int8),
        (True, li.float32, li.float32),
        (float("nan"), li.float32, li.float32),
        (float("-inf"), li.float16, li.float16),
    ],
    ids=repr,
)
def test_full(value, dtype, expected_dtype):
    a = li.full((2, 3), value, dtype=dtype)
    assert a.dtype == expected_dtype
    expected = np.full((2, 3), value).astype(expected_dtype)
    assert_close(a, expected, expected_dtype, exact=True)


def test_full_rejects_values_that_do_not_fit():
    with pytest.raises(OverflowError, match="full"):
        li.full(2, 128, dtype=li.int8)
    with pytest.raises(TypeError, match="full"):
        li.full(2, 1.5, dtype=li.int32)
    with pytest.raises(TypeError, match="full"):
        li.full(2, 1j, dtype=li.float64)
    with pytest.raises(TypeError, match="full"):
        li.full(2, "x")
    with pytest.raises(ValueError, match="full"):
        li.full((2, -1), 0)


@pytest.mark.parametrize("dtype", [None, li.float32, li.int16, li.bool], ids=str)
def test_like_functions(dtype):
    x = li.asarray(np.arange(6, dtype=np.float16).reshape(2, 3)[:, ::-1])
    expected_dtype = x.dtype if dtype is None else dtype
    for fn, value in ((li.zeros_like, 0), (li.ones_like, 1), (li.empty_like, None)):
        a = fn(x, dtype=dtype)
        assert a.shape == (2, 3) and a.dtype == expected_dtype
        if value is not None:
            assert_close(
                a, np.full((2, 3), value).astype(expected_dtype), expected_dtype, exact=True
            )
    fill = True if dtype == li.bool else 5
    a = li.full_like(x, fill, dtype=dtype)
    assert_close(a, np.full((2, 3), fill).astype(expected_dtype), expected_dtype, exact=True)


def test_like_of_a_pending_array_does_not_compute_it():
    x = li.asarray(np.ones(3)) - 1
    before = li.inspect.counters.snapshot()
    y = li.ones_like(x)
    assert li.inspect.counters.snapshot() == before
    np.testing.assert_array_equal(np.asarray(y), np.ones(3))


# -- arange ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [(5,), (0,), (-3,), (2, 7), (7, 2), (7, 2, -1), (10, -10, -3), (0, 10, 3), (-5, 5, 4),
     (0.0, 1.0, 0.1), (1.0, 0.0, -0.3), (0, 1, 0.25), (2.5,), (1, 1.3, 0.1), (0.5, 0.4)],
    ids=repr,
)  # fmt: skip
def test_arange_matches_numpy(args):
    got = np.asarray(li.arange(*args))
    expected = np.arange(*args)
    expected = expected.astype(li.int64 if expected.dtype.kind == "i" else li.float64)
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    assert got.shape == expected.shape


@given(
    st.integers(-50, 50), st.integers(-50, 50), st.integers(-7, 7).filter(bool),
    st.sampled_from([None, li.int16, li.float32, li.float64]),
)  # fmt: skip
def test_arange_integers(start, stop, step, dtype):
    got = np.asarray(li.arange(start, stop, step, dtype=dtype))
    expected = np.arange(start, stop, step).astype(dtype or li.int64)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@given(
    st.floats(-100, 100), st.floats(-100, 100),
    st.floats(0.01, 10) | st.floats(-10, -0.01),
)  # fmt: skip
def test_arange_floats(start, stop, step):
    got = np.asarray(li.arange(start, stop, step))
    expected = np.arange(start, stop, step)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-9)


def test_arange_rejects_bad_arguments():
    with pytest.raises(ValueError, match="arange"):
        li.arange(0, 5, 0)
    with pytest.raises(TypeError, match="arange"):
        li.arange(0, 5, dtype=li.bool)
    with pytest.raises(TypeError, match="arange"):
        li.arange("5")
    with pytest.raises(OverflowError, match="arange"):
        li.arange(0, 300, dtype=li.int8)


def test_arange_is_lazy():
    before = li.inspect.counters.snapshot()
    a = li.arange(10**6)
    assert a.shape == (10**6,)
    assert li.inspect.counters.snapshot() == before


ARANGES = [(0, 1, 0.1), (-3.3, 7.9, 0.7), (1e15, 1e15 + 10, 0.5), (5, -3, -0.37), (0, 70000, 999.9)]
ARANGES += [(0, 140000, 70000)]  # NOTE: float16's second value is inf, stored as numpy's


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NOTE: float16(70000) is inf, as numpy's
@pytest.mark.parametrize("device", ["cpu", "reference", "dask"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("start, stop, step", ARANGES)
def test_a_float_arange_has_numpys_values(start, stop, step, dtype, device):
    """numpy stores start and start + step, then fills first + i * (second - first) in the
    dtype's arithmetic: its rounding grows along the range, and lazyinfini's is the same."""
    if device == "dask":
        pytest.importorskip("dask")
    want = np.arange(start, stop, step, dtype=dtype)
    with li.options(device=device):
        got = np.asarray(li.arange(start, stop, step, dtype=np.dtype(dtype)))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
