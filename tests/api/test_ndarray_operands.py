"""An ndarray a call takes as an operand gives its values at the call, as numpy reads them: a
script that refills a work buffer after using it (`acc = acc + buf` in a loop) must not see the
later values in its pending results. Found by review: `x + k; k[:] = 5` computed x + 5. Only
li.asarray(ndarray) shares the ndarray's memory (as numpy.asarray; docs/lazy-semantics.md)."""

import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._api import snapshots

CALLS = {
    "operator": lambda x, k: x + k,
    "reflected operator": lambda x, k: k - x,
    "namespace function": lambda x, k: li.multiply(x, k),
    "numpy ufunc": lambda x, k: np.maximum(x, k),
    "numpy function": lambda x, k: np.where(x > 0, x, k),
    "concatenate": lambda x, k: np.concatenate([x, k]),
    "matmul": lambda x, k: x @ k.reshape(4, 1),
    "einsum": lambda x, k: li.einsum("i,i->", x, k),
    "setitem value": lambda x, k: _set(x, k),
    "broadcast view": lambda x, k: x + np.broadcast_to(k, (3, 4)),
    "read-only view": lambda x, k: x * _readonly_view(k),
}


def _set(x, k):
    y = x * 1.0
    y[...] = k
    return y


def _readonly_view(k):
    view = k.view()
    view.flags.writeable = False
    return view


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_an_ndarray_operand_gives_its_values_at_the_call(call):
    data = np.array([1.5, -2.0, 3.0, -0.5])
    buffer = np.array([0.5, 2.0, -1.0, 4.0])
    want = np.asarray(call(data, buffer.copy()))
    got = call(li.asarray(data), buffer)
    buffer[:] = [9.0, -9.0, 9.0, -9.0]  # NOTE: refilled before the result is computed
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("key", [[0, 2, 2, 1], [True, False, True, True]], ids=["integers", "mask"])
def test_an_index_array_gives_its_values_at_the_call(key):
    data, key = np.array([1.5, -2.0, 3.0, -0.5]), np.array(key)
    written = data.copy()
    written[key] = 7.0
    want = data[key]
    x = li.asarray(data)
    got, target = x[key], x * 1.0
    target[key] = 7.0
    key[...] = 0  # NOTE: rewritten before the results are computed
    np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(np.asarray(target), written)


def test_a_loop_refilling_a_work_buffer_sums_numpys_values():
    rng = np.random.default_rng(5)
    rows = rng.standard_normal((6, 8))
    work, total, total_np = np.empty(8), li.zeros(8, dtype=li.float64), np.zeros(8)
    for row in rows:
        np.multiply(row, 2.0, out=work)
        total = total + work
        total_np = total_np + work
    assert np.asarray(total).tobytes() == total_np.tobytes()


def test_an_operand_keeps_its_memory_order():
    # NOTE: a copy in the ndarray's order: a later sum adds as numpy's (F order: one at a time)
    data = np.random.default_rng(6).standard_normal((64, 48))
    fortran = np.asfortranarray(np.random.default_rng(7).standard_normal((64, 48)))
    got = np.sum(li.asarray(data) * 0.0 + fortran, axis=1)
    assert np.asarray(got).tobytes() == np.sum(data * 0.0 + fortran, axis=1).tobytes()


def test_memory_nobody_writes_is_shared_and_li_asarray_still_shares():
    from lazyinfini._api.creation import operand

    frozen = np.frombuffer(np.arange(4.0).tobytes())  # NOTE: bytes: immutable memory
    assert np.shares_memory(np.asarray(operand(frozen)), frozen)
    writable = np.arange(4.0)
    assert not np.shares_memory(np.asarray(operand(writable)), writable)
    shared = np.arange(3.0)
    lazy = li.asarray(shared)
    shared[:] = 5
    np.testing.assert_array_equal(np.asarray(lazy), [5.0, 5.0, 5.0])


class _ArrayLike:
    """An object numpy converts through __array__ (as a pandas column is), sharing its memory."""

    def __init__(self, values: np.ndarray):
        self.values = values

    def __array__(self, dtype=None, copy=None):
        return self.values


@pytest.mark.parametrize(
    "wrap",
    [_ArrayLike, lambda a: memoryview(a)],
    ids=["__array__", "memoryview"],
)
@pytest.mark.parametrize(
    "call",
    [lambda x, k: np.multiply(x, k), lambda x, k: np.where(x > 1, x, k)],
    ids=["ufunc", "function"],
)
def test_an_array_like_operand_is_converted_and_read_at_the_call(wrap, call):
    # NOTE: numpy's ufuncs take any array-like; np.multiply(x, memoryview) raised TypeError
    data, buffer = np.arange(4.0), np.ones(4)
    want = call(data, buffer.copy())
    got = call(li.asarray(data), wrap(buffer))
    buffer[:] = 7.0
    np.testing.assert_array_equal(np.asarray(got), want)


def test_a_loop_over_an_unchanged_large_ndarray_holds_one_copy():
    # NOTE: each pending step holds its operand's copy: a copy per step of an 8 MB array in a
    # loop of a thousand steps would hold 8 GB
    from lazyinfini._api.snapshots import REUSE_MIN_BYTES, snapshot

    weights = np.zeros(REUSE_MIN_BYTES // 8)
    first = snapshot(weights)
    assert snapshot(weights) is first and not np.shares_memory(first, weights)
    weights[3] = -0.0  # NOTE: equal to 0.0, other bits: a new copy
    second = snapshot(weights)
    assert second is not first and np.signbit(second[3])
    small = np.zeros(8)
    assert snapshot(small) is not snapshot(small)  # NOTE: copying is cheaper than comparing
    total, total_np = li.zeros(weights.shape, dtype=li.float64), np.zeros(weights.shape)
    for step in range(4):
        total, total_np = total + weights, total_np + weights
        weights[step] = step + 1.5
    assert np.asarray(total).tobytes() == total_np.tobytes()


@pytest.mark.parametrize(
    "value",
    [
        np.arange(5),
        np.ones((2, 3)),
        np.arange(6.0).reshape(2, 3).T,
        np.zeros(0),
        np.float32([1, 2]),
    ],
    ids=["ints", "matrix", "transposed", "empty", "float32"],
)
def test_a_small_operand_is_what_snapshot_and_asarray_make(value):
    """creation.operand's one-step path for a small writable ndarray: the buffer the general
    path makes (a read-only copy in its memory order, on the host), its values at the call."""
    from lazyinfini._api import creation

    made = [creation._small_operand(value), creation.asarray(snapshots.snapshot(value))]
    assert made[0] is not None
    datas = [np.asarray(m._n.arg.data) for m in made]
    for data in datas:
        assert not data.flags.writeable and data.base is not None and data.base is not value
    assert [(d.shape, d.dtype, d.strides, d.tobytes()) for d in datas][0] == (
        datas[1].shape, datas[1].dtype, datas[1].strides, datas[1].tobytes(),
    )  # fmt: skip
    before = value.copy()
    value[...] = 7  # NOTE: written after the call: the operand keeps its values
    np.testing.assert_array_equal(np.asarray(made[0]), before)
    assert creation._small_operand(np.broadcast_to(np.ones(3), (2, 3))) is None
    assert creation._small_operand(np.ones(1 << 14)) is None  # NOTE: snapshot's reuse
