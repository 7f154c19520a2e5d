"""The reference for library calls: the same call on array_api_strict, compared with lazyinfini.

`run_both(fn, *inputs)` calls `fn(xp, *arrays)` once with array_api_strict arrays and once with
lazyinfini arrays made from fresh copies of the numpy `inputs` (array_api_strict may share and
mutate them in place, as array_api_extra.at does). `assert_same` checks each lazyinfini result
is a lazyinfini array (array_api_compat sees the namespace) with the reference's shape, dtype
and values; Python scalars (scikit-learn's metrics) must match in type and value.
"""

from __future__ import annotations

import array_api_compat
import array_api_strict
import numpy as np

import lazyinfini as li


def run_both(fn, *inputs):
    """(lazyinfini result, array_api_strict result) of fn(xp, *arrays)."""
    lazy = fn(li, *(li.asarray(np.array(x, copy=True)) for x in inputs))
    strict = fn(
        array_api_strict, *(array_api_strict.asarray(np.array(x, copy=True)) for x in inputs)
    )
    return lazy, strict


def assert_same(lazy, reference, rtol=1e-9, atol=1e-12):
    """lazyinfini results against the reference's: namespace, shape, dtype, values."""
    if isinstance(reference, (tuple, list)):
        assert isinstance(lazy, (tuple, list)) and len(lazy) == len(reference)
        for one, other in zip(lazy, reference, strict=True):
            assert_same(one, other, rtol, atol)
        return
    if not array_api_compat.is_array_api_obj(reference):
        assert type(lazy) is type(reference), (type(lazy), type(reference))
        np.testing.assert_allclose(lazy, reference, rtol=rtol, atol=atol)
        return
    assert array_api_compat.array_namespace(lazy) is li, type(lazy)
    expected = np.asarray(reference)
    assert lazy.shape == expected.shape, (lazy.shape, expected.shape)
    assert lazy.dtype == expected.dtype, (lazy.dtype, expected.dtype)
    actual = np.asarray(lazy)
    if expected.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected)
    else:
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
