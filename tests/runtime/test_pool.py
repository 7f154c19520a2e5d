"""The output memory pool: memory comes back only when nothing references it (an exported numpy
view, a DLPack capsule, a memoryview all keep it), within the byte limit, and on request."""

from __future__ import annotations

import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._runtime.pool import MIN_BYTES, POOL

SHAPE = (256, 512)  # 512 KiB of float32: pooled (MIN_BYTES is 256 KiB)


@pytest.fixture(autouse=True)
def empty_pool():
    li.inspect.release_memory()
    yield
    li.inspect.release_memory()


def program(seed: int):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(SHAPE).astype(np.float32)
    b = rng.standard_normal(SHAPE).astype(np.float32)
    return a, b, li.clip(li.asarray(a) - li.asarray(b), -0.5, 0.5)


def address(x: np.ndarray) -> int:
    return x.__array_interface__["data"][0]


def test_memory_of_a_dropped_result_is_reused():
    assert np.prod(SHAPE) * 4 >= MIN_BYTES
    _, _, y = program(0)
    first = address(np.asarray(y))
    del y
    before = li.inspect.memory_pool()
    a, b, y = program(1)
    assert address(np.asarray(y)) == first
    after = li.inspect.memory_pool()
    assert (after.reused - before.reused, after.allocated - before.allocated) == (1, 0)
    np.testing.assert_array_equal(np.asarray(y), np.clip(a - b, -0.5, 0.5))


@pytest.mark.parametrize(
    "export",
    [
        lambda y: np.asarray(y),
        lambda y: np.from_dlpack(y),
        lambda y: memoryview(np.asarray(y)),
        lambda y: np.asarray(y)[3:7, ::2],  # a view of part of it
    ],
    ids=["asarray", "dlpack", "memoryview", "view"],
)
def test_memory_anything_still_references_is_not_reused(export):
    a, b, y = program(0)
    kept = export(y)
    expected = np.array(kept, copy=True)
    del y
    for seed in range(1, 4):
        a2, b2, y2 = program(seed)
        np.testing.assert_array_equal(np.asarray(y2), np.clip(a2 - b2, -0.5, 0.5))
        del y2
    np.testing.assert_array_equal(np.asarray(kept), expected)


def test_intermediates_of_one_run_reuse_each_other_s_memory():
    a_np = np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32)
    a = li.asarray(a_np)
    m = li.max(li.exp(a))  # the exp buffer is dead after max ...
    # ... and this exp of the same size takes it (a max reads it whole: a sum would take the
    # exp as its prologue, and write no buffer of that size)
    y = li.max(li.exp(a - m))
    before = li.inspect.memory_pool()
    np.testing.assert_allclose(float(y), np.max(np.exp(a_np - np.exp(a_np).max())), rtol=1e-5)
    after = li.inspect.memory_pool()
    assert (after.allocated - before.allocated, after.reused - before.reused) == (1, 1)


def test_the_limit_bounds_idle_memory_and_zero_turns_the_pool_off():
    nbytes = int(np.prod(SHAPE)) * 4
    with li.options(pool_bytes=2 * nbytes):
        results = [np.asarray(program(seed)[2]) for seed in range(5)]
        stats = li.inspect.memory_pool()
        assert stats.in_use_bytes + stats.idle_bytes <= 2 * nbytes  # the rest is not watched
        assert stats.in_use_bytes == 2 * nbytes
        del results  # NOTE: dropped with no computation after: still within the bound
        assert li.inspect.memory_pool().idle_bytes == 2 * nbytes
        y = program(9)[2].compute()
        assert li.inspect.memory_pool().idle_bytes <= 2 * nbytes
        del y
    li.inspect.release_memory()
    with li.options(pool_bytes=0):
        tracked = li.inspect.memory_pool().tracked
        for seed in range(3):
            a, b, y = program(seed)
            np.testing.assert_array_equal(np.asarray(y), np.clip(a - b, -0.5, 0.5))
        assert li.inspect.memory_pool().tracked == tracked


def test_release_memory_frees_idle_buffers_only():
    _, _, kept = program(0)
    kept.compute()
    _, _, dropped = program(1)
    dropped.compute()
    nbytes = int(np.prod(SHAPE)) * 4
    del dropped
    assert li.inspect.release_memory() == nbytes
    stats = li.inspect.memory_pool()
    assert (stats.idle_bytes, stats.in_use_bytes) == (0, nbytes)


def test_idle_buffers_are_freed_after_enough_materializations():
    from lazyinfini._runtime.pool import IDLE_RUNS

    _, _, y = program(0)
    y.compute()
    del y
    assert li.inspect.memory_pool().idle_bytes > 0
    small = li.asarray(np.ones(4, np.float32))
    for _ in range(2 * IDLE_RUNS + 1):
        (small + 1).compute()
    assert li.inspect.memory_pool().idle_bytes == 0


def test_views_taken_without_a_schedule_count_as_runs_for_idle_buffers():
    # NOTE: a view of a computed buffer is taken directly (_realize/direct.py): it is a run's
    # end for the pool too, or a loop of such views would keep idle buffers forever
    from lazyinfini._runtime.pool import IDLE_RUNS

    _, _, y = program(0)
    y.compute()
    del y
    assert li.inspect.memory_pool().idle_bytes > 0
    small = li.asarray(np.ones((2, 4), np.float32)) + 1
    small.compute()
    before = li.inspect.counters.schedules_reused
    for _ in range(2 * IDLE_RUNS + 1):
        np.asarray(small[1])
    assert li.inspect.counters.schedules_reused == before  # NOTE: no schedule ran
    assert li.inspect.memory_pool().idle_bytes == 0


def test_small_outputs_are_not_pooled():
    tracked = POOL.stats().tracked
    np.asarray(li.asarray(np.ones(16, np.float32)) * 2)
    assert POOL.stats().tracked == tracked


@pytest.mark.parametrize("bad", [-1, 1.5, "1G", True])
def test_a_bad_pool_size_is_refused(bad):
    with pytest.raises(ValueError, match="options: pool_bytes"):
        with li.options(pool_bytes=bad):
            pass
