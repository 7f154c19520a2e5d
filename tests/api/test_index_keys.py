"""Keys of ints, slices and integer index arrays take a quick plan (_api/index_keys.py): it
must record the node the general path records, or leave the key to it (and its errors)."""

from __future__ import annotations

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini._api import index_keys, indexing
from lazyinfini._graph import Op, arg_key


def _signature(node, x_node):
    """A recorded graph as a value: x's node by identity, another buffer by its values."""
    if node is x_node:
        return "x"
    if node.op is Op.BUFFER:
        value = np.asarray(node.arg.data)
        return "buffer", value.dtype, value.shape, value.tobytes()
    inputs = tuple(_signature(src, x_node) for src in node.srcs)
    return node.op, node.shape, node.dtype, arg_key(node), inputs


def _recorded(call, x: li.Array, quick: bool):
    """The node `call()` records (or its error), with or without the quick plan."""
    plan = indexing.quick_plan
    x_node = x._node
    if not quick:
        indexing.quick_plan = lambda func, x, key: None
    try:
        return _signature(call()._node, x_node)
    except Exception as error:  # noqa: BLE001 (compared: the same type and message)
        return type(error), str(error)
    finally:
        indexing.quick_plan = plan


def _item(size: int):
    """A key item for an axis of `size`: in and out of range, of every kind the quick plan
    takes and some it leaves to the general path."""
    ints = st.integers(-size - 2, size + 1)
    values = st.lists(ints, min_size=0, max_size=4)
    if size:  # NOTE: mostly in range: the quick plan's keys
        ints = st.integers(-size, size - 1) | ints
        values = st.lists(st.integers(-size, size - 1), min_size=0, max_size=4) | values
    shapes = hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3)
    bound = st.none() | st.integers(-size - 2, size + 2)
    kinds = [
        ints,
        st.builds(slice, bound, bound, st.none() | st.integers(-3, 3)),
        st.builds(
            lambda s, d, v: np.resize(np.array(v or [0]).astype(d), s),  # NOTE: wraps into uint8
            shapes,
            st.sampled_from([np.int64, np.int32, np.uint8, np.int8]),
            values,
        ),
        st.builds(lambda v: li.asarray(np.array(v, np.int64)), values),
        st.builds(range, st.integers(-size, 0), st.integers(0, size + 2)),
        values,  # NOTE: the general path's, as the next three
        st.sampled_from([None, Ellipsis, True, np.array([True, False])[:size] if size else None]),
        st.floats(0, 2),
    ]
    # NOTE: the quick plan's kinds twice as often as the general path's
    return st.sampled_from([0, 1, 2, 3, 4] * 2 + [5, 6, 7]).flatmap(lambda k: kinds[k])


@settings(max_examples=400, deadline=None)
@given(data=st.data(), shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4))
def test_quick_plan_records_the_general_paths_nodes(data, shape):
    base = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    x = li.asarray(base)
    length = data.draw(st.integers(1, len(shape) + 1))
    sizes = [*shape, 3]
    key = tuple(data.draw(_item(sizes[min(i, len(shape))])) for i in range(length))
    value = data.draw(st.sampled_from([2.5, -1, li.asarray(np.float32(7))]))

    def written():
        y = li.asarray(base.copy())
        y[key] = value
        return y

    for call in (lambda: x[key], written):
        assert _recorded(call, x, quick=True) == _recorded(call, x, quick=False), key


def test_quick_plan_takes_the_scripts_keys():
    """The keys numpy scripts write take the quick plan (none of them falls to the general
    path), and compute numpy's values."""
    a = np.arange(40, dtype=np.float64).reshape(8, 5)
    labels = np.array([0, 4, 2, 2, 1, 3, 0, 4])
    x, lx = li.asarray(a), li.asarray(labels)
    for key in ((np.arange(8), lx), (lx,), (slice(None), lx[:5]), (lx[:5], range(5)), (3, lx)):
        assert index_keys.quick_plan("__getitem__", x, key) is not None, key
        numpys = tuple(np.asarray(k) if isinstance(k, li.Array) else k for k in key)
        np.testing.assert_array_equal(np.asarray(x[key]), a[numpys])
        y, b = li.asarray(a.copy()), a.copy()
        y[key] -= 1.0
        b[numpys] -= 1.0
        np.testing.assert_array_equal(np.asarray(y), b)


# NOTE: index arrays of up to 32 values are bounded through a list, longer ones by reduces
LONG = [np.r_[np.zeros(n - 1, np.int64), bad] for n in (31, 32, 33, 100) for bad in (4, -5)]


@pytest.mark.parametrize(
    "key", [(np.array([9]),), (0, np.array([-6])), (range(3, 9),), *((k,) for k in LONG)]
)
def test_out_of_bounds_index_arrays_raise_at_the_line(key):
    x = li.asarray(np.zeros((4, 5)))
    with pytest.raises(IndexError, match="out of bounds"):
        x[key]
    assert index_keys.quick_plan("__getitem__", x, key) is None
    if isinstance(key[-1], np.ndarray):  # NOTE: the same key in bounds is planned
        inside = (*key[:-1], np.clip(key[-1], -4, 3))
        assert index_keys.quick_plan("__getitem__", x, inside) is not None, inside
