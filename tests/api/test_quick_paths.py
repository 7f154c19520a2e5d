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


MIXED = ["bool", "int8", "uint8", "int32", "int64", "uint64", "float16", "float32", "float64"]
MIXED += ["complex64", "bfloat16"]
BINARY = {
    "add": lambda a, b: a + b,
    "subtract": lambda a, b: li.subtract(a, b),
    "divide": lambda a, b: a / b,
    "less": lambda a, b: a < b,
    "maximum": lambda a, b: np.maximum(a, b),
    "atan2": lambda a, b: li.atan2(a, b),
    "floor_divide": lambda a, b: a // b,
    "bitwise_and": lambda a, b: a & b,
    "logical_and": lambda a, b: li.logical_and(a, b),
}


def _recorded(call, a, b):
    """The nodes call(a, b) recorded (op, dtype, shape, source, its inputs' positions), its
    dtype and bits computed; or the exception's type."""
    try:
        result = call(a, b)
    except Exception as error:  # noqa: BLE001 (the general path's errors are compared)
        return type(error)
    graph = li.graph(result)
    order = list(__import__("networkx").topological_sort(graph))
    nodes = [
        (n.op, n.dtype, n.shape, n.source, tuple(order.index(s) for s in n.srcs)) for n in order
    ]
    value = np.asarray(result)
    return nodes, value.dtype, value.tobytes()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", sorted(BINARY))
def test_arrays_of_two_dtypes_record_what_the_general_path_records(name, monkeypatch):
    """Two arrays of different dtypes that promote into the op's dtypes: one cast each where
    needed and a broadcast, the nodes, sources, values and errors of the general path."""
    rng = np.random.default_rng(1)
    column, row = rng.integers(1, 5, (3, 1)), rng.integers(1, 5, (4,))
    arrays = {d: (li.asarray(column.astype(d)), li.asarray(row.astype(d))) for d in MIXED}
    pairs = [(a, b) for a in MIXED for b in MIXED if a != b]
    taken, mixed = [], quick._mixed
    monkeypatch.setattr(quick, "_mixed", lambda *args: taken.append(mixed(*args)) or taken[-1])
    quick_outcomes = [_recorded(BINARY[name], arrays[a][0], arrays[b][1]) for a, b in pairs]
    monkeypatch.setattr(quick, "_mixed", lambda *args: None)
    general = [_recorded(BINARY[name], arrays[a][0], arrays[b][1]) for a, b in pairs]
    assert quick_outcomes == general
    # NOTE: the quick path ran; never for logical_and, whose operands become truths first
    assert (sum(r is not None for r in taken) >= 20) == (name != "logical_and")


FLOATED = {
    "divide": lambda a, b: a / b,
    "atan2": lambda a, b: li.atan2(a, b),
    "hypot": lambda a, b: np.hypot(a, b),
    "logaddexp": lambda a, b: li.logaddexp(a, b),
    "copysign": lambda a, b: li.copysign(a, b),
    "nextafter": lambda a, b: li.nextafter(a, b),
    "add": lambda a, b: a + b,  # NOTE: no float: not the path's
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", sorted(FLOATED))
def test_integer_arrays_computing_in_a_float_record_what_the_general_path_records(
    name, monkeypatch
):
    """`counts / total`: two arrays of one bool or integer dtype whose op computes in a float
    (quick._floated): each broadcast, then cast; the nodes, sources, values and errors of the
    general path, pending and computed operands alike."""
    rng = np.random.default_rng(2)
    column, row = rng.integers(0, 5, (3, 1)), rng.integers(-3, 5, (4,))
    arrays = {d: (li.asarray(column.astype(d)), li.asarray(row.astype(d))) for d in MIXED}
    cases = [(a, b) for a, b in arrays.values()] + [(b, a) for a, b in arrays.values()]

    def outcomes():
        # NOTE: pending operands made anew: a run computes them
        pending = [(a * 1, b) for d, (a, b) in arrays.items() if d != "bool"]
        return [_recorded(FLOATED[name], a, b) for a, b in cases + pending]

    taken, floated = [], quick._floated
    monkeypatch.setattr(quick, "_floated", lambda *args: taken.append(floated(*args)) or taken[-1])
    quick_outcomes = outcomes()
    monkeypatch.setattr(quick, "_floated", lambda *args: None)
    assert quick_outcomes == outcomes()
    # NOTE: the quick path ran for the ints and bools (not for add: no float)
    assert (sum(r is not None for r in taken) >= 12) == (name != "add"), taken


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", sorted(BINARY))
def test_an_integer_array_and_a_float_record_what_the_general_path_records(name, monkeypatch):
    """`counts * 255.0`: an integer or bool array and a Python float, on either side (the
    array cast to the default float, the float's fill; quick._float_filled): the nodes,
    sources, values and errors of the general path."""
    arrays = {d: li.asarray(np.array([[0, 1, 3], [5, 7, 2]]).astype(d)) for d in MIXED}
    calls = [(d, v, first) for d in MIXED for v in (2.5, -0.0, np.inf) for first in (0, 1)]

    def outcomes():
        operands = [(v, arrays[d]) if first else (arrays[d], v) for d, v, first in calls]
        return [_recorded(BINARY[name], *pair) for pair in operands]

    taken, filled = [], quick._float_filled
    monkeypatch.setattr(quick, "_float_filled", lambda *a: taken.append(filled(*a)) or taken[-1])
    quick_outcomes = outcomes()
    monkeypatch.setattr(quick, "_float_filled", lambda *args: None)
    assert quick_outcomes == outcomes()
    # NOTE: the quick path ran, but for the integers' and the truths' ops
    assert (sum(r is not None for r in taken) >= 20) == (name not in ("bitwise_and", "logical_and"))


@pytest.mark.parametrize("shape", [(6,), (6, 2), (5, 0, 3), (0,), (0, 4), (7, 1, 2)])
@pytest.mark.parametrize("pending", [False, True])
def test_a_row_mask_records_what_the_general_key_records(shape, pending):
    """x[mask] of a 1-d mask over x's first axis (indexing._rows_of) records the general
    path's GATHER: its key, its shape, its values (numpy's)."""
    from lazyinfini._api import indexing

    rng = np.random.default_rng(len(shape) + shape[0])
    values = rng.standard_normal(shape)
    mask = rng.integers(0, 2, shape[0]).astype(bool)
    made = []
    for take in (indexing.getitem, lambda x, m: indexing._special_getitem(x, (m,), "")):
        x = li.asarray(values) * 1.0 if pending else li.asarray(values)
        m = li.asarray(mask) if not pending else li.asarray(mask.astype(np.int8)) > 0
        picked = take(x, m)
        node = picked._n
        made.append((node.op, node.shape, node.arg, np.asarray(picked).tobytes()))
    assert made[0] == made[1]
    assert made[0][-1] == values[mask].tobytes()
    x = li.asarray(values)
    assert indexing._rows_of(x, li.asarray(np.ones(shape[0] + 1, bool)), "") is None
    if len(shape) > 1:  # NOTE: a mask of more axes is the general path's
        assert indexing._rows_of(x, li.asarray(np.ones(shape[:2], bool)), "") is None
