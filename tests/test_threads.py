"""Threads share lazyinfini: many threads record and materialize private graphs and shared ones
(the same pending array from several threads at once) under a switch interval of a microsecond,
so a race between walking a graph, planning and binding buffers shows; options are contextvars,
so each thread's `with li.options(...)` is its own. Every result is compared with numpy."""

from __future__ import annotations

import os
import select
import signal
import sys
import threading

import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._options import current
from lazyinfini._runtime.threads import run_parallel

THREADS = 8
ROUNDS = 30


@pytest.fixture
def switch_often():
    """A thread switch every microsecond (restored after the test)."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


def run_threads(work, *args, count: int = THREADS) -> None:
    """work(i, *args) in `count` threads released together; the first error is raised here."""
    barrier = threading.Barrier(count)
    errors: list[BaseException] = []

    def body(i):
        try:
            barrier.wait()
            work(i, *args)
        except BaseException as error:  # re-raised in the main thread
            errors.append(error)

    threads = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "a thread never finished"
    if errors:
        raise errors[0]


# Integer-valued floats: every sum is exact, so numpy's numbers are the expected ones bit for bit.
A = np.random.default_rng(0).integers(-8, 9, (40, 30)).astype(np.float64)
B = np.asfortranarray(np.random.default_rng(1).integers(-8, 9, (30, 40)).astype(np.float32))
INDEX = np.random.default_rng(2).integers(-30, 30, 17)


def shared_programs(a, b):
    """Pending arrays over a C and a transposed (F-order) input: elementwise, reductions, a
    gather, a sort, a cumulative sum and a setitem."""
    t = b.mT  # (40, 30) float32, strided
    s = a * 2 + li.astype(t, li.float64)
    gathered = s[:, li.asarray(INDEX)]
    updated = li.asarray(s, copy=True)  # NOTE: s[...] is a view, as numpy's: s would change
    updated[::-3, 1] = -1.0
    return [
        s,
        li.sum(s, axis=0),
        li.max(gathered, axis=1) - li.mean(t, axis=1),
        li.sort(gathered, axis=0)[::-1],
        li.cumulative_sum(li.reshape(li.permute_dims(s, (1, 0)), (-1,)), axis=0),
        updated * 3,
    ]


def numpy_programs(a, b):
    t = b.T
    s = a * 2 + t.astype(np.float64)
    gathered = s[:, INDEX]
    updated = s.copy()
    updated[::-3, 1] = -1.0
    return [
        s,
        s.sum(axis=0),
        gathered.max(axis=1) - t.mean(axis=1, dtype=np.float32),
        np.sort(gathered, axis=0)[::-1],
        np.cumsum(s.T.reshape(-1)),
        updated * 3,
    ]


EXPECTED = numpy_programs(A, B)


def assert_expected(values) -> None:
    for value, expected in zip(values, EXPECTED, strict=True):
        np.testing.assert_array_equal(np.asarray(value), expected)


def ask_for_shared(i: int, pending: list) -> None:
    """Each thread asks for the shared arrays in its own order, one by one or together; some
    first record more ops on them (a graph growing while another thread realizes it)."""
    order = pending[i % len(pending) :] + pending[: i % len(pending)]
    if i % 3 == 2:
        more = li.compute(*[value + i for value in pending])
        for value, expected in zip(more, EXPECTED, strict=True):
            np.testing.assert_array_equal(np.asarray(value), expected + i)
    elif i % 3 == 1:
        li.compute(*order)
    for value in order:
        np.asarray(value)
    assert_expected(pending)


def test_the_same_pending_arrays_materialized_from_many_threads(switch_often):
    for _ in range(ROUNDS):
        pending = shared_programs(li.asarray(A), li.asarray(B))
        run_threads(ask_for_shared, pending)


def extend_shared(i: int, common) -> None:
    mine = li.asarray(np.full((40, 30), float(i)))
    y = li.sum(common + mine, axis=1) - li.flip(li.cumulative_sum(mine, axis=0)[:, 3])
    z = li.compute(y, common * mine)[1]
    expected_y = (EXPECTED[0] + i).sum(axis=1) - np.cumsum(np.full(40, float(i)))[::-1]
    np.testing.assert_array_equal(np.asarray(y), expected_y)
    np.testing.assert_array_equal(np.asarray(z), EXPECTED[0] * i)
    assert_expected(shared_programs(li.asarray(A), li.asarray(B)))  # private, same shapes


def test_private_graphs_over_shared_pending_nodes(switch_often):
    """Threads record graphs of one structure over their own inputs (one cached schedule bound
    to different buffers at once), all reading one pending node that some thread realizes."""
    for _ in range(ROUNDS):
        common = li.asarray(A) * 2 + li.astype(li.asarray(B).mT, li.float64)
        run_threads(extend_shared, common)


def test_options_are_each_threads_own(switch_often):
    before = current()

    def work(i):
        device = "reference" if i % 3 == 0 else "cpu"
        fuse = i % 2 == 0
        for _ in range(ROUNDS):
            with li.options(device=device, fuse=fuse):
                values = shared_programs(li.asarray(A), li.asarray(B))
                assert (current().device, current().fuse) == (device, fuse)
                li.compute(*values[::2])
                assert (current().device, current().fuse) == (device, fuse)
                assert_expected(values)
                with li.options(fuse=not fuse):
                    assert (current().device, current().fuse) == (device, not fuse)
                assert (current().device, current().fuse) == (device, fuse)
            assert current() == before

    run_threads(work)
    assert current() == before


def test_threads_see_failures_of_their_own_only(switch_often):
    """A kernel failing in one thread (an out-of-bounds pending index) leaves the others' shared
    results right, and the failing array can be asked for again."""

    def work(i):
        a = li.asarray(A)
        if i % 4 == 0:
            bad = a[:, li.flip(li.asarray(np.array([0, 99])))]  # pending: checked when run
            with pytest.raises(IndexError):
                np.asarray(bad)
            with pytest.raises(IndexError):
                np.asarray(bad)
        else:
            assert_expected(shared_programs(a, li.asarray(B)))

    run_threads(work)


def in_forked_child(check, timeout: float = 60.0) -> bool:
    """check() in a forked child (its result by a pipe; a child that hangs is killed: False)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # NOTE: the child never returns to pytest
        ok = False
        try:
            ok = bool(check())
        finally:
            os.write(write, b"1" if ok else b"0")
            os._exit(0)
    os.close(write)
    try:
        ready, _, _ = select.select([read], [], [], timeout)
        return bool(ready) and os.read(read, 1) == b"1"
    finally:
        os.close(read)
        if not ready:
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def test_the_pool_loses_no_item_when_one_raises():
    done = set()
    lock = threading.Lock()

    def work(item):
        if item == 3:
            raise ValueError("item 3")
        with lock:
            done.add(item)

    with pytest.raises(ValueError, match="item 3"):
        run_parallel(work, range(40))
    assert done == set(range(40)) - {3}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_the_pool_works_in_a_forked_child():
    """The parent's helper threads do not survive a fork: the child makes its own."""
    run_parallel(lambda item: None, range(8))  # the parent's helpers exist

    def child() -> bool:
        seen = []
        run_parallel(seen.append, range(8))
        return sorted(seen) == list(range(8))

    assert in_forked_child(child)
