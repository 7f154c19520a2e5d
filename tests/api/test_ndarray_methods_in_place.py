"""ndarray's methods that numpy scripts call and that were missing: compress, choose,
argpartition, put and partition (in place, through views), view() and tobytes(), and divmod.
Each compared with the same method on an ndarray, the array and its view after it."""

from __future__ import annotations

import numpy as np
import pytest

import lazyinfini as li
from tests.api.test_numpy_functions import assert_same
from tests.oracle import run_twice

X = np.round(np.random.default_rng(2).standard_normal((3, 4)), 2)

STATEMENTS = [
    "r = x.compress([True, False, True], axis=1)",
    "r = x.compress([False, True])",
    "r = (np.abs(x) * 2).astype(int).clip(0, 2)[0].choose([x[0], x[1], x[2]])",
    "r = x.argpartition(1, axis=0)[1]",
    "r = x.put([0, 5, -1], [9.0, 8.0])",  # values repeat; a negative index counts from the end
    "r = v.put([1, 2], -7.5)",  # through a view: x sees it
    "r = x.partition(1)",
    "r = v.partition(0, axis=0)",
    "r = x.view(); r[0, 0] = 42.0",  # a view: x sees the write
    "r = divmod(x, 0.3)",
    "r = divmod(1.5, x)",
    "r = divmod(x.astype(np.int32) * 7, 3)",
]


@pytest.mark.parametrize("statement", STATEMENTS)
def test_the_method_matches_numpys(statement):
    def names_of(wrap):
        x = wrap(X.copy())
        return {"x": x, "v": x[1:, ::2]}

    want, got = run_twice(statement, names_of)
    for name in ("x", "v"):
        assert_same(got[name], want[name])
    results = got["r"] if isinstance(got["r"], tuple) else (got["r"],)
    expected = want["r"] if isinstance(want["r"], tuple) else (want["r"],)
    for value, wanted in zip(results, expected, strict=True):
        if wanted is None:
            assert value is None
        else:
            assert_same(value, wanted)


def test_tobytes_and_a_reinterpreting_view():
    x = li.asarray(X) * 2
    assert x.tobytes() == (X * 2).tobytes()
    with pytest.raises(TypeError, match="^view: "):
        x.view(np.int64)
