"""np.bincount of a lazyinfini array: one library call (Op.BINCOUNT), numpy's counts on every
host device, and the namespace-only formula (sort and searchsorted) where a namespace has no
bincount (array_api_strict), equal to numpy's."""

from __future__ import annotations

import array_api_strict
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini._graph import Op
from lazyinfini._runtime.sorting import bincount

DTYPES = [np.uint8, np.int16, np.uint16, np.int32, np.int64, np.bool_]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("minlength", [0, 3, 300])
def test_bincount_is_numpys(dtype, minlength):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2 if dtype is np.bool_ else 120, 5000).astype(dtype)
    got = np.bincount(li.asarray(x), minlength=minlength)
    assert isinstance(got, li.Array)
    ops = {node.op for node in li.graph(got).nodes}
    assert Op.BINCOUNT in ops and Op.SORT not in ops  # NOTE: one counting pass, no sort
    expected = np.bincount(x, minlength=minlength)
    np.testing.assert_array_equal(np.asarray(got), expected)
    assert np.asarray(got).dtype == expected.dtype


@pytest.mark.parametrize("dtype, minlength", [(np.uint8, 256), (np.uint8, 300), (np.uint16, 65536)])
def test_a_length_holding_every_value_of_the_dtype_computes_nothing(dtype, minlength):
    """bincount's length depends on the data, except where minlength covers the dtype (an
    image's 256 levels): then it records without computing the input's min and max."""
    x = (np.arange(4000) * 37 % (np.iinfo(dtype).max + 1)).astype(dtype)
    pending = li.asarray(x) * 1  # NOTE: pending: computing it would show
    before = li.inspect.counters.snapshot()
    got = np.bincount(pending, minlength=minlength)
    assert li.inspect.counters.materializations == before["materializations"]
    assert got.shape == (minlength,)
    assert np.asarray(got).tobytes() == np.bincount(x, minlength=minlength).tobytes()
    with li.options(strict=True):  # NOTE: nothing read: allowed where values may not be read
        np.asarray(np.bincount(li.asarray(x) * 1, minlength=minlength))


def test_bincount_on_the_dask_device_is_numpys():
    x = np.random.default_rng(1).integers(0, 50, 10_000).astype(np.int32)
    with li.options(device="dask"):
        got = np.asarray(np.bincount(li.asarray(x), minlength=60))
    np.testing.assert_array_equal(got, np.bincount(x, minlength=60))


@given(st.lists(st.integers(0, 40), max_size=60), st.integers(0, 50))
def test_the_namespace_formula_counts_as_numpy(values, extra):
    """Where the namespace has no bincount, sort + searchsorted count the same."""
    x = np.asarray(values, dtype=np.int32)
    minlength = (int(x.max()) + 1 if x.size else 0) + extra
    got = bincount(array_api_strict, array_api_strict.asarray(x), minlength=minlength)
    np.testing.assert_array_equal(np.asarray(got), np.bincount(x, minlength=minlength))


def test_bincount_still_refuses_what_numpy_refuses():
    with pytest.raises(ValueError, match="negative"):
        np.asarray(np.bincount(li.asarray(np.array([1, -1]))))
    with pytest.raises(TypeError):
        np.bincount(li.asarray(np.array([1.0])))
