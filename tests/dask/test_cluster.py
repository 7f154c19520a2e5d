"""End to end on a distributed LocalCluster (two worker processes, one thread each): the dask
device's graphs pickle, travel and run on the workers, and the results equal numpy's. Skipped
where a cluster cannot start. The first test, its cluster's start included, stays well under
30 s (asserted); the out-of-core one streams 2 GiB through workers of 256 MiB (about 5 s)."""

import logging
import os
import re
import time

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
import dask.array as da  # noqa: E402

import lazyinfini as li  # noqa: E402

BUDGET = 30.0  # seconds for the whole module, the cluster's start included


@pytest.fixture
def client():
    started = time.perf_counter()
    try:
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
    except Exception as error:  # no processes, no sockets: not what this test is about
        pytest.skip(f"a LocalCluster cannot start here: {error!r}")
    with cluster, distributed.Client(cluster) as connected:
        yield connected
    assert time.perf_counter() - started < BUDGET


def test_programs_run_on_the_workers_and_match_numpy(client):
    rng = da.random.default_rng(0)
    a = rng.random((400, 300), chunks=(100, 100))
    b = rng.random((400, 300), chunks=(100, 100))
    c = rng.random((300, 400), chunks=(150, 200))
    a_np, b_np, c_np = (x.compute() for x in (a, b, c))
    with li.options(device="dask"), distributed.get_task_stream(client) as stream:
        x, y, z = li.from_dask(a), li.from_dask(b), li.from_dask(c)
        clipped = li.clip(x - y, 0, 1)
        total = li.sum(clipped)
        means = li.mean(x, axis=0)
        transposed = x.T + z
        ordered = li.sort(x, axis=1)  # axis 1 is in 3 chunks
        rows = li.sum(li.exp(x) - y, axis=1)  # one REDUCE layer: partial sums per block
        li.compute(clipped, total, means, transposed, ordered, rows)
    np.testing.assert_array_equal(np.asarray(clipped), np.clip(a_np - b_np, 0, 1))
    np.testing.assert_allclose(float(total), np.clip(a_np - b_np, 0, 1).sum(), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(means), a_np.mean(axis=0), rtol=1e-12)
    np.testing.assert_array_equal(np.asarray(transposed), a_np.T + c_np)
    np.testing.assert_array_equal(np.asarray(ordered), np.sort(a_np, axis=1))
    np.testing.assert_allclose(np.asarray(rows), np.sum(np.exp(a_np) - b_np, axis=1))
    keys = [task["key"] for task in stream.data]
    ran = {key[0] if isinstance(key, tuple) else key for key in keys}
    assert any(name.startswith("subtract_clip-") for name in ran), sorted(ran)[:5]
    assert any(name.startswith("sort-") for name in ran), sorted(ran)[:5]
    assert sum(client.run(compiled_blocks).values()) >= 2  # subtract_clip and x.T + z in C
    assert sum(client.run(summed_blocks).values()) >= 1  # exp(x) - y summed in C


def summed_blocks() -> int:
    """On a worker: its REDUCE block functions that summed blocks in C."""
    from lazyinfini._runtime.dask import blocks, summing

    return sum(
        any(found is not summing._PARTS for found in block._sums.values())
        for block in blocks._LIVE.values()
        if isinstance(block, summing.SumBlock)
    )


def compiled_blocks() -> int:
    """On a worker: its fused block functions that ran their kernel's C function."""
    from lazyinfini._runtime.dask import blocks

    return sum(
        any(key.startswith("_memo") for key in vars(block.kernel))
        for block in blocks._LIVE.values()
        if block.compiled
    )


def test_persisted_values_stay_on_the_workers_and_feed_the_next_program(client):
    a = da.random.default_rng(1).random((400, 300), chunks=(100, 100))
    a_np = a.compute()
    with li.options(device="dask"):
        y = li.clip(li.from_dask(a) - 0.5, 0, 1).persist()
        kept = li.to_dask(y)
        futures = distributed.futures_of(kept)
        distributed.wait(futures)
        assert len(futures) == 12 and all(f.status == "finished" for f in futures)
        held = client.who_has(futures)
        assert all(held[f.key] for f in futures)  # each block on a worker
        with distributed.get_task_stream(client) as stream:
            total = float(li.sum(y * 2))
        ran = {str(task["key"]) for task in stream.data}
        assert ran and not ran & {str(f.key) for f in futures}  # read there, not computed again
    np.testing.assert_allclose(total, 2 * np.clip(a_np - 0.5, 0, 1).sum(), rtol=1e-12)
    np.testing.assert_array_equal(np.asarray(y), np.clip(a_np - 0.5, 0, 1))


def test_blocks_come_straight_from_the_workers_and_are_joined_here_once(client, monkeypatch):
    """No finalize task on the cluster: every value's blocks in ONE gather, direct from the
    workers holding them, then one join per value on the client; a 0-d value is its block."""
    from lazyinfini._runtime.dask import gather

    joined, asked = [], []
    real_join, real_gather = gather.join, client.gather

    def join(blocks, chunks, dtype, limit):
        joined.append((chunks, real_join(blocks, chunks, dtype, limit)))
        return joined[-1][1]

    monkeypatch.setattr(gather, "join", join)
    monkeypatch.setattr(client, "gather", lambda *a, **k: asked.append(k) or real_gather(*a, **k))
    rng = da.random.default_rng(2)
    a = rng.random((300, 500), chunks=(100, 200), dtype=np.float32).persist()  # 3x3, uneven
    b = rng.random(500, chunks=200, dtype=np.float32).persist()
    a_np, b_np = a.compute(), b.compute()
    with li.options(device="dask"), distributed.get_task_stream(client) as stream:
        x, y = li.from_dask(a), li.from_dask(b)
        clipped, total = li.clip(x - y, 0, 1), li.max(x * y)
        li.compute(clipped, total)
    ran = [
        task["key"][0] if isinstance(task["key"], tuple) else task["key"] for task in stream.data
    ]
    assert not [name for name in ran if "finalize" in name], ran
    # the two values' kernels merged (they read x and y): its 9 blocks run once for both
    assert (
        len([name for name in ran if re.fullmatch("subtract_clip_multiply-[0-9a-f]+", name)]) == 9
    )
    assert [k["direct"] for k in asked if k.get("direct") is not None] == [True]  # one request
    assert [chunks for chunks, _ in joined] == [((100,) * 3, (200, 200, 100))]
    value = np.asarray(clipped)  # the join's array itself: the one copy on the client
    at = value.__array_interface__["data"][0]
    assert at == joined[0][1].__array_interface__["data"][0] and not value.flags.writeable
    assert np.asarray(clipped).tobytes() == np.clip(a_np - b_np, 0, 1).tobytes()
    assert np.asarray(total).tobytes() == np.max(a_np * b_np).tobytes()


def test_a_client_that_cannot_reach_the_workers_gathers_through_the_scheduler(client):
    a = da.random.default_rng(3).random((200, 300), chunks=(100, 100))
    a_np = a.compute()
    address = client.scheduler.address
    with distributed.Client(address, direct_to_workers=False) as through, li.options(device="dask"):
        asked = []
        real = through.gather
        through.gather = lambda *a, **k: asked.append(k) or real(*a, **k)
        value = np.asarray(li.exp(li.from_dask(a)) - 1)
    assert [k["direct"] for k in asked if k.get("direct") is not None] == [False]
    assert value.tobytes() == (np.exp(a_np) - 1).tobytes()


def test_two_gib_of_inputs_through_workers_of_256_mib():
    """sum(clip(x - y, 0, 1)) over two 1 GiB inputs on workers limited to 256 MiB: chunks
    stream through the fused blockwise layer and the tree reduction; no worker restarts."""
    n = 1 << 27  # float64: 1 GiB each
    x = da.ones(n, chunks=1 << 22)  # 32 MiB chunks, made on the workers
    y = da.full(n, 0.25, chunks=1 << 22)
    try:
        cluster = distributed.LocalCluster(
            n_workers=2, memory_limit="256MiB", dashboard_address=None, silence_logs=logging.ERROR
        )
    except Exception as error:
        pytest.skip(f"a LocalCluster cannot start here: {error!r}")
    with cluster, distributed.Client(cluster) as connected:
        pids = connected.run(os.getpid)
        with li.options(device="dask"):
            total = float(li.sum(li.clip(li.from_dask(x) - li.from_dask(y), 0, 1)))
        assert connected.run(os.getpid) == pids  # the same workers, none restarted
    assert total == 0.75 * n
