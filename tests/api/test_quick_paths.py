"""The quick recording paths (_api/quick.py) record what the general path records: the same
dtype, shape, values and errors, for every dtype and Python number they take or refuse."""

from __future__ import annotations

import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._api import quick

DTYPES = ["int8", "uint8", "int64", "uint64", "float16", "float32", "float64", "bool"]
NUMBERS = [0, 1, -1, 127, 128, 255, 256, -129, 2**63 - 1, 2**64, 1.5, -0.0, True]
CALLS = {
    "add": lambda x, s: li.add(x, s),
    "radd": lambda x, s: s + x,
    "multiply": lambda x, s: x * s,
    "maximum": lambda x, s: li.maximum(x, s),
    "equal": lambda x, s: x == s,
    "where": lambda x, s: li.where(x > 0, x, s),
    "where_left": lambda x, s: li.where(x > 0, s, x),
    "np.where": lambda x, s: np.where(x > 0, x, s),
}


def _outcome(call, x, number):
    """(dtype, bits) of call(x, number) computed, or the exception's type."""
    try:
        value = np.asarray(call(x, number))
    except Exception as error:  # noqa: BLE001 (the general path's errors are compared)
        return type(error)
    return value.dtype, value.tobytes()


@pytest.mark.filterwarnings("ignore:overflow encountered")  # NOTE: 2**63 as a float16: inf
@pytest.mark.filterwarnings("ignore::lazyinfini.NumpyFallbackWarning")  # NOTE: np.where of 2**64
@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_a_quick_path_records_what_the_general_path_records(name, dtype, monkeypatch):
    x = li.asarray(np.array([-2, -1, 0, 1, 3]).astype(dtype))
    call = CALLS[name]
    quick_outcomes = [_outcome(call, x, n) for n in NUMBERS]
    monkeypatch.setattr(quick, "binary", lambda *args: None)
    monkeypatch.setattr(quick, "where", lambda *args: None)
    general = [_outcome(call, x, n) for n in NUMBERS]
    assert quick_outcomes == general


@pytest.mark.parametrize("dtype", ["int16", "uint32", "float32"])
def test_a_where_between_two_arrays_broadcasts_as_the_general_path(dtype, monkeypatch):
    rng = np.random.default_rng(0)
    cond = li.asarray(rng.random((3, 1)) > 0.5)
    a = li.asarray((rng.random((1, 4)) * 9).astype(dtype))
    b = li.asarray((rng.random((4,)) * 9).astype(dtype))
    got = np.asarray(li.where(cond, a, b))
    monkeypatch.setattr(quick, "where", lambda *args: None)
    expected = np.asarray(li.where(cond, a, b))
    assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()
    assert got.shape == (3, 4)
