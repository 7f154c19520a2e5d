"""Implicit materializations: every value the API reads while recording goes through one helper
(_array.implicit_value), so each kind is counted in li.inspect.counters.implicit_materializations
once, costs nothing when its input is computed already, and is refused in strict mode."""

from __future__ import annotations

import operator
import re

import numpy as np
import pytest

import lazyinfini as li

counters = li.inspect.counters
X = np.arange(6.0)
M = np.diag([1.0, 2.0, 1e-9])


def _setitem(mask):
    """A mask with one value per True position: its positions are needed (a single value is a
    select instead, recorded lazily: tests/api/test_masked_fill.py)."""
    y = li.asarray(X)
    y[mask] = li.asarray([7.0, 8.0, 9.0])
    return y


# kind -> (the function a strict-mode error names, a pending input, the call reading it)
CASES = {
    "boolean mask": ("__getitem__", lambda: li.asarray(X) > 2, lambda m: li.asarray(X)[m]),
    "boolean mask in setitem": ("__setitem__", lambda: li.asarray(X) > 2, _setitem),
    "0-d boolean index": (
        "__getitem__",
        lambda: li.asarray(True) & li.asarray(True),
        lambda m: li.asarray(X)[m],
    ),
    "slice bound": ("__getitem__", lambda: li.asarray(1) + 1, lambda b: li.asarray(X)[b:]),
    "array repeats": (
        "repeat",
        lambda: li.asarray(np.array([2, 0, 1, 1, 0, 3])) + 0,
        lambda r: li.repeat(li.asarray(X), r),
    ),
    "0-d fill_value of full": ("full", lambda: li.asarray(2.0) + 1, lambda v: li.full((2,), v)),
    "0-d fill_value of full_like": (
        "full_like",
        lambda: li.asarray(2.0) + 1,
        lambda v: li.full_like(li.asarray(X), v),
    ),
    "array rtol of pinv": (
        "pinv",
        lambda: li.asarray(1e-3) + 0,
        lambda r: li.linalg.pinv(li.asarray(M), rtol=r),
    ),
    "array rtol of matrix_rank": (
        "matrix_rank",
        lambda: li.asarray(1e-3) + 0,
        lambda r: li.linalg.matrix_rank(li.asarray(M), rtol=r),
    ),
    "nonzero": ("nonzero", lambda: li.asarray(X) - 2, li.nonzero),
    "unique_all": ("unique_all", lambda: li.asarray(X) % 2, li.unique_all),
    "unique_counts": ("unique_counts", lambda: li.asarray(X) % 2, li.unique_counts),
    "unique_inverse": ("unique_inverse", lambda: li.asarray(X) % 2, li.unique_inverse),
    "unique_values": ("unique_values", lambda: li.asarray(X) % 2, li.unique_values),
    "an int argument": (
        "__index__",
        lambda: li.asarray(2) + 0,
        lambda n: li.linalg.matrix_power(li.asarray(M), n),
    ),
    "bool()": ("__bool__", lambda: li.sum(li.asarray(X)) > 0, bool),
    "int()": ("__int__", lambda: li.sum(li.asarray(X)), int),
    "float()": ("__float__", lambda: li.sum(li.asarray(X)), float),
    "complex()": ("__complex__", lambda: li.sum(li.asarray(X)), complex),
    "operator.index()": ("__index__", lambda: li.asarray(3) + 1, operator.index),
}


def _values(result) -> list:
    """The numbers of a result (arrays, tuples of arrays, Python scalars), for comparing."""
    if isinstance(result, li.Array):
        return [np.asarray(result).tolist()]
    if isinstance(result, tuple):
        return [v for item in result for v in _values(item)]
    return [result]


@pytest.mark.parametrize("kind", CASES)
def test_a_pending_input_is_computed_and_counted_once(kind):
    _, make, read = CASES[kind]
    pending = make()
    before = counters.snapshot()
    result = read(pending)
    assert counters.implicit_materializations == before["implicit_materializations"] + 1
    assert counters.kernels > before["kernels"]  # the pending input ran
    assert _values(result) == _values(read(make().compute()))


@pytest.mark.parametrize("kind", CASES)
def test_a_computed_input_is_read_for_free(kind):
    _, make, read = CASES[kind]
    computed = make().compute()
    before = counters.snapshot()
    read(computed)
    assert counters.implicit_materializations == before["implicit_materializations"]
    assert counters.materializations == before["materializations"]


@pytest.mark.parametrize("kind", CASES)
def test_strict_mode_refuses_and_computes_nothing(kind):
    func, make, read = CASES[kind]
    pending = make()
    before = counters.snapshot()
    with li.options(strict=True):
        with pytest.raises(ValueError, match=rf"^{re.escape(func)}: .* strict mode is on"):
            read(pending)
        assert counters.snapshot() == before
        pending.compute()  # asked for explicitly: fine in strict mode, and then so is reading
        read(pending)


def test_a_pending_index_array_is_not_computed_to_check_bounds():
    x = li.asarray(X)
    pending = li.asarray(np.array([0, 9])) + 0  # 9 is out of bounds, but nobody knows yet
    before = counters.snapshot()
    with li.options(strict=True):
        li.take(x, pending)
        x[pending]
    assert counters.snapshot() == before
    with pytest.raises(IndexError, match="^take: index 9 is out of bounds"):
        li.take(x, pending.compute())  # known values are checked at the call


def test_the_debug_line_names_the_function_and_the_argument(capsys):
    with li.options(debug=1):
        li.repeat(li.asarray(X), li.asarray(np.array([1])) + 1)
    assert "(implicit: repeat(repeats))" in capsys.readouterr().err


def test_a_view_of_a_buffer_is_read_as_numpys_view_never_computed():
    # the numpy-programs fuzz, seed 388247: np.unique of x.T computed x.T as a C-ordered copy,
    # and the pending np.var(x.T) then summed that copy in C order, not numpy's view's
    x = np.array(
        [[14, 7, 19, 19, 16], [7, 7, 7, 11, 17], [3, 2, 14, 13, 3], [4, 19, 18, 0, 15],
         [18, 2, 12, 17, 0], [12, 14, 5, 15, 6], [12, 1, 15, 10, 18], [0, 4, 6, 16, 17],
         [18, 16, 0, 14, 7]],
        dtype=np.int32,
    )  # fmt: skip
    t = li.asarray(x).T
    variance = np.var(t, axis=None, keepdims=True)
    before = li.inspect.counters.implicit_materializations
    np.testing.assert_array_equal(np.asarray(np.unique(t)), np.unique(x.T))
    assert li.inspect.counters.implicit_materializations == before  # NOTE: nothing computed
    assert t._node.op.name == "PERMUTE"
    assert np.asarray(variance).tobytes() == np.var(x.T, axis=None, keepdims=True).tobytes()
