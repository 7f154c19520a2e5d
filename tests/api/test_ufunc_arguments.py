"""numpy's ufuncs and operators given what numpy's take besides arrays: lists and tuples as
operands, and a lazyinfini array as out= (written through its views, as numpy writes)."""

from __future__ import annotations

import numpy as np
import pytest

import lazyinfini as li
from tests.api.test_numpy_functions import assert_same
from tests.oracle import run_twice


def test_ufuncs_and_operators_take_lists_as_numpy_does():
    # Before: np.maximum(x, [..]) raised TypeError and x * [..] asked x for __index__ (Python's
    # list repetition); numpy converts the list (its default dtypes) and computes elementwise
    x_np, i_np = np.arange(6.0).reshape(2, 3), np.arange(6).reshape(2, 3)
    x, i = li.asarray(x_np), li.asarray(i_np)
    pairs = [
        (np.maximum(x, [1, 2, 3]), np.maximum(x_np, [1, 2, 3])),
        (x * [1, 2, 3], x_np * [1, 2, 3]),
        ([3.5, 2, 1] - x, [3.5, 2, 1] - x_np),
        (x + (1, 2, 3), x_np + (1, 2, 3)),
        (i // [[2], [3]], i_np // [[2], [3]]),
        (i * [True, False, True], i_np * [True, False, True]),
        (np.add(i, [1.5, 2, 3]), np.add(i_np, [1.5, 2, 3])),
    ]
    for got, want in pairs:
        assert isinstance(got, li.Array)
        assert_same(got, want)


# Each: a statement on x (float64), i (int32), y (float64 zeros) and M (3x4 zeros), then the
# values of all four compared with numpy's (overlapping operands computed as numpy does: from
# the values before the write)
OUT_CASES = [
    "np.add(x[:-1], x[1:], out=x[1:])",
    "np.multiply(x, 2, out=x)",
    "np.exp(x, out=x)",
    "np.sqrt(np.abs(x), out=y)",
    "np.add(1.5, x[:4], out=M)",  # the inputs broadcast to out's shape
    "np.negative(x[::-1], out=x)",
    "np.maximum(x, 3, out=x[:])",
    "np.add(i, 2, out=i)",
    "np.floor_divide(i[1::2].reshape(2, 3)[0], 2, out=i[::2].reshape(2, 3)[1])",
    "np.subtract(x[:4], M, out=M.T[:4].T)",
]


@pytest.mark.parametrize("statement", OUT_CASES)
def test_a_ufunc_writes_into_an_array_out(statement):
    # Before: "out= cannot be a lazyinfini array" (TypeError) for every one of these
    def names_of(wrap):
        names = {"x": np.arange(12) * 0.5, "i": np.arange(12, dtype=np.int32)}
        names |= {"y": np.zeros(12), "M": np.zeros((3, 4))}
        return {k: wrap(v) for k, v in names.items()}

    want, got = run_twice(f"r = {statement}", names_of)
    assert isinstance(got["r"], li.Array)
    for name in ("r", "x", "i", "y", "M"):
        assert_same(got[name], want[name])


@pytest.mark.parametrize(
    "statement, error",
    [
        ("np.add(i, 1.5, out=i)", TypeError),  # numpy's same_kind rule
        ("np.add(x[:3], 1, out=M[0])", ValueError),  # the inputs do not broadcast to out
    ],
)
def test_an_array_out_is_checked_as_numpy_checks_it(statement, error):
    names = {"x": li.asarray(np.arange(12.0)), "i": li.asarray(np.arange(12, dtype=np.int32))}
    names["M"] = li.zeros((3, 4))
    with pytest.raises(error):
        eval(statement, {"np": np, **names})  # noqa: S307


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize(
    "method",
    [
        lambda m: np.add.reduce(m, axis=0),
        lambda m: np.add.accumulate(m, axis=0),
        lambda m: np.logaddexp.reduce(m[:, 1:], axis=0),
        lambda m: np.maximum.reduceat(m, [0, 3], axis=0),
    ],
)
def test_a_ufunc_method_reads_numpys_view_of_a_transposed_array(dtype, method):
    """numpy reduces x.T along its contiguous axis pairwise (float16 in float32, rounded once);
    a C-ordered copy of it would be added row to row, other bits (the numpy-programs fuzz,
    seed 8032: np.add.reduce of a moveaxis of float16). A ufunc's method runs on numpy's
    view, as numpy's functions run for lazyinfini do."""
    a = (np.random.default_rng(3).standard_normal((12, 9)) * 3).astype(dtype)
    for base in (a, a[::-1]):
        got = method(li.asarray(base).T)
        assert np.asarray(got).tobytes() == method(base.T).tobytes()
