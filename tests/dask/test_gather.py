"""Gathering a result: one dask.compute, and on a scheduler of this process one join of each
value's blocks into memory from the pool, the only copy (np.asarray hands that buffer out)."""

import numpy as np
import pytest

dask = pytest.importorskip("dask")
import dask.array as da  # noqa: E402

import lazyinfini as li  # noqa: E402
from lazyinfini._runtime.dask import gather  # noqa: E402
from lazyinfini._runtime.pool import POOL  # noqa: E402


@pytest.fixture
def joins(monkeypatch):
    """The shapes `gather.join` built (spied on)."""
    made = []
    real = gather.join

    def spy(blocks, chunks, dtype, limit):
        out = real(blocks, chunks, dtype, limit)
        made.append(out.shape)
        return out

    monkeypatch.setattr(gather, "join", spy)
    return made


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


@pytest.mark.parametrize("scheduler", ["threads", "synchronous"])
def test_a_gathered_value_is_one_join_and_asarray_copies_nothing(joins, scheduler):
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal((700, 900)).astype(np.float32)  # 2.4 MiB: joined in parallel
    b_np = rng.standard_normal(900).astype(np.float32)
    a = da.from_array(a_np, chunks=(300, 400))  # 3x3 uneven blocks
    with dask.config.set(scheduler=scheduler), li.options(device="dask"):
        y = li.clip(li.from_dask(a) - li.asarray(b_np), 0, 1)
        first = np.asarray(y)
        assert joins == [(700, 900)]
        assert np.asarray(y) is first and not first.flags.writeable  # no copy per call
    assert first.tobytes() == np.clip(a_np - b_np, 0, 1).tobytes()


def test_a_dropped_result_leaves_its_memory_warm_for_the_next(joins):
    a = da.ones((1024, 1024), chunks=(256, 512))  # 8 MiB of float64
    reused = POOL.stats().reused
    with dask.config.set(scheduler="threads"), li.options(device="dask"):
        x = li.from_dask(a)
        addresses = []
        for k in range(3):
            value = np.asarray(x * k + 1)
            assert value[0, 0] == k + 1 and value.shape == (1024, 1024)
            addresses.append(_address(value))
            del value  # the array and its buffer went with the expression
    assert addresses[1] == addresses[2] and POOL.stats().reused > reused
    assert len(joins) == 3


def test_joins_blocks_of_every_rank_in_dask_order(joins):
    data = np.arange(5 * 6 * 7, dtype=np.int16).reshape(5, 6, 7)
    with dask.config.set(scheduler="threads"), li.options(device="dask"):
        x = li.from_dask(da.from_array(data, chunks=(2, 4, 3)))
        assert np.array_equal(np.asarray(x * 2), data * 2)
        moved = np.asarray(li.permute_dims(x, (2, 0, 1)) + 1)
        assert np.array_equal(moved, np.transpose(data, (2, 0, 1)) + 1)
        assert float(li.sum(x)) == data.sum()  # a 0-d value: dask's own result
    assert joins == [(5, 6, 7), (7, 5, 6)]


def test_other_schedulers_join_with_dask_s_finalize():
    x = da.ones(10, chunks=5)
    with dask.config.set(scheduler="processes"):
        assert not gather._shared_memory([x])
    with dask.config.set(scheduler="threads"):
        assert gather._shared_memory([x])
    assert not gather._shared_memory([np.ones(3)])


def test_a_dask_input_read_whole_is_gathered_as_a_result_is(joins):
    data = np.arange(6 * 10, dtype=np.float32).reshape(6, 10)
    with dask.config.set(scheduler="threads"):
        value = np.asarray(li.from_dask(da.from_array(data, chunks=(4, 3))))
    assert joins == [(6, 10)] and not value.flags.writeable
    assert value.tobytes() == data.tobytes()


def test_several_values_on_dask_s_default_scheduler_in_a_fresh_process():
    """No scheduler configured and no client (a dask user's first li.compute of two values):
    dask compares the collections' default schedulers, and every joined value must name the
    same one (each once named its own bound method, and li.compute raised)."""
    from tests.test_import_cost import _run  # NOTE: a program in a fresh interpreter

    printed = _run(
        """
        import numpy as np, lazyinfini as li
        with li.options(device="dask"):
            a = li.asarray(np.arange(6.0))
            b, c, d = li.compute(a * 2, a + 1, li.sum(a))
            print(np.asarray(b).tolist(), np.asarray(c).tolist(), float(d))
        """
    )
    expected = "[0.0, 2.0, 4.0, 6.0, 8.0, 10.0] [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] 15.0"
    assert printed.split() == expected.split()


@pytest.mark.parametrize("scheduler", ["threads", "synchronous"])
def test_zero_d_and_n_d_values_come_back_in_their_places(scheduler):
    """dask.compute groups collections by type: 0-d values are joined as the others are, so
    each value comes back in its place."""
    x_np = np.array([1.5, -2.0, 3.0], np.float16)
    with dask.config.set(scheduler=scheduler), li.options(device="dask"):
        x = li.asarray(x_np)
        total = li.sum(x)
        grid = li.broadcast_to(li.cumulative_sum(x), (2, 2, 3))
        peak = li.max(x)
        row = li.expand_dims(x * 2, axis=0)
        li.compute(total, grid, peak, row)
    np.testing.assert_array_equal(np.asarray(total), np.sum(x_np))
    np.testing.assert_array_equal(np.asarray(grid), np.broadcast_to(np.cumsum(x_np), (2, 2, 3)))
    np.testing.assert_array_equal(np.asarray(peak), np.max(x_np))
    np.testing.assert_array_equal(np.asarray(row), (x_np * 2)[None])


def test_arrays_with_two_empty_axes_on_dask_s_automatic_chunks():
    """dask's "auto" chunking divides by zero on a shape with two empty axes: such inputs,
    fills and reshapes are one (empty) chunk."""
    empty = np.zeros((1, 4, 0, 2, 0), np.float32)
    with li.options(device="dask"):
        filled = li.full((1, 40, 0, 4, 0, 1), 2.0)
        shifted = li.asarray(empty) + 1
        reshaped = li.reshape(li.asarray(np.zeros((0, 4, 0))), (4, 0, 0, 1))
        li.compute(filled, shifted, reshaped)
    assert np.asarray(filled).shape == (1, 40, 0, 4, 0, 1)
    assert np.asarray(shifted).shape == empty.shape and np.asarray(shifted).dtype == np.float32
    assert np.asarray(reshaped).shape == (4, 0, 0, 1)
