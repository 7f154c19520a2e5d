"""Basic indexing recorded in C (lazyinfini/_realize/native_indexing.py) records what the Python
method it wraps records: the same nodes (ops, shapes, dtypes, parameters, sources, inputs), the
same views of the same memory, the same errors; the C path is the one taken where it applies.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini._realize import native as _native
from tests.test_native_operators import _structure

pytestmark = pytest.mark.skipif(
    not _native.wait(), reason=f"no compiled extension here: {_native.Native.error}"
)

_KEYS = [
    (slice(None), None), 1, -1, (-1, slice(None)), (Ellipsis, slice(None, None, 2)),
    (None, Ellipsis, 1), (0, 1, 2), (slice(5, 1, -1),), Ellipsis, (Ellipsis,), (),
    (slice(None),) * 3, (None, None), (slice(1, None), None, slice(None, -1)),
    (slice(-100, 100, 3),), (slice(3, 3),), (1, Ellipsis, None), (0, 0),
]  # fmt: skip
_PYTHON_KEYS = [  # the Python method's: errors, numpy integers, bools, arrays, lists
    5, -3, (0, 0, 0, 0), (Ellipsis, Ellipsis), np.int64(1), True, [0, 1], (slice(0, 2, 0),),
    (slice(np.int64(1), None),), (slice(1.5, None),), "a", np.array([1, 0]),
]  # fmt: skip


def _arrays():
    """(x, the ndarray it holds): a pending array, a buffer, a view (a Shared) and a computed
    view, of shape (2, 3, 4)."""
    data = np.arange(24.0).reshape(2, 3, 4)
    pending = li.asarray(data) * 1
    shared = li.asarray(np.arange(48.0).reshape(4, 3, 4))[2:]  # NOTE: its node may replay
    computed = li.asarray(data) + 0
    np.asarray(computed)
    return [(pending, data), (li.asarray(data), data), (shared, data + 24), (computed, data)]


def _outcome(getitem, x, key):
    try:
        return getitem(x, key)
    except (IndexError, TypeError, ValueError) as error:
        return error


def _record_both(x, key):
    from lazyinfini._array import Array

    operator = vars(Array)["__getitem__"]
    assert type(operator).__name__ == "Operator"
    before = {id(n) for n in li.graph(x).nodes}
    return before, [_outcome(operator, x, key), _outcome(operator.__wrapped__, x, key)]


@pytest.mark.parametrize("key", _KEYS + _PYTHON_KEYS, ids=repr)
def test_basic_indexing_in_c_records_what_the_python_method_records(key):
    for x, data in _arrays():
        before, made = _record_both(x, key)
        if isinstance(made[0], Exception):
            assert repr(made[0]) == repr(made[1]), key
            continue
        assert [_structure(m._n, before) for m in made[:1]] == [_structure(made[1]._n, before)]
        assert type(made[0]) is type(made[1])
        # NOTE: a new node is held by the view made to hold it (x[...] holds x's node: the last)
        assert id(made[0]._n) in before or made[0]._n.holder() is made[0]
        for m in made:
            np.testing.assert_array_equal(np.asarray(m), data[key])
        if type(made[0]).__name__ == "Shared":  # NOTE: a view: x's memory, as numpy's
            assert made[0]._view.steps == made[1]._view.steps
            assert made[0]._view.storage is made[1]._view.storage


def test_a_view_indexed_in_c_writes_through_to_its_base():
    x = li.asarray(np.zeros((3, 4)))
    row = x[1]
    row[:] = 5.0
    corner = x[:2, None, 1:]
    corner *= 2.0
    expected = np.zeros((3, 4))
    expected[1] = 5.0
    expected[:2, None, 1:] *= 2.0
    np.testing.assert_array_equal(np.asarray(x), expected)
    np.testing.assert_array_equal(np.asarray(row), expected[1])


def test_basic_indexing_takes_the_c_path(monkeypatch):
    from lazyinfini._api import indexing

    def python_path(*args):
        raise AssertionError("the Python path ran")

    monkeypatch.setattr(indexing, "basic_getitem", python_path)
    x = li.asarray(np.arange(24.0).reshape(2, 3, 4)) * 1
    for key in _KEYS:
        x[key]
    with pytest.raises(AssertionError, match="Python path"):
        x[np.int64(1)]


_ITEM = st.one_of(
    st.integers(-5, 5),
    st.none(),
    st.builds(
        slice,
        st.one_of(st.none(), st.integers(-6, 6)),
        st.one_of(st.none(), st.integers(-6, 6)),
        st.one_of(st.none(), st.integers(-3, 3)),
    ),
    st.just(Ellipsis),
)


@settings(max_examples=300, deadline=None)
@given(
    shape=st.lists(st.integers(0, 4), min_size=0, max_size=4),
    key=st.lists(_ITEM, min_size=0, max_size=5).map(tuple),
)
def test_any_basic_key_gives_numpys_view_on_both_paths(shape, key):
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    x = li.asarray(data) * 1
    before, made = _record_both(x, key)
    try:
        expected = data[key]
    except (IndexError, ValueError) as error:
        assert all(isinstance(m, type(error)) for m in made), (made, error)
        return
    assert _structure(made[0]._n, before) == _structure(made[1]._n, before)
    for m in made:
        np.testing.assert_array_equal(np.asarray(m), expected)
        assert m.shape == expected.shape
