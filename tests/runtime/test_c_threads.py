"""The C thread pool (c_threads.py): every part of a job runs once, also under jobs from several
threads at once and in a forked child; parallel C kernels give the same bits on the C pool, on
the Python pool, on the reference device and in numpy; without the C pool the Python one runs."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import threading

import ml_dtypes
import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._render import compile as compiling
from lazyinfini._runtime import c_threads, cpu, threads
from tests.test_threads import in_forked_child

pytestmark = pytest.mark.skipif(
    compiling.compiler() is None or threads.THREADS < 2 or c_threads.library() is None,
    reason="needs a C compiler and two cores",
)

# Functions of a kernel's and a copy's signatures that count how often each index is visited.
MARKING = r"""
#include <stdint.h>
void mark(int64_t start, int64_t stop, const int64_t *shape, char *const *ptrs,
          const int64_t *strides, void *const *ext) {
    int32_t *seen = (int32_t *)ptrs[0];
    for (int64_t i = start; i < stop; i++) __atomic_fetch_add(&seen[i], 1, __ATOMIC_RELAXED);
}
void mark_copy(const char *src, char *dst, int64_t start, int64_t stop) {
    int32_t *seen = (int32_t *)dst;
    for (int64_t i = start; i < stop; i++) __atomic_fetch_add(&seen[i], 1, __ATOMIC_RELAXED);
}
"""


@pytest.fixture(scope="module")
def marking():
    return compiling.load(MARKING)


@pytest.fixture
def python_pool():
    """The Python pool for one test."""
    before = c_threads.use_native(False)
    yield
    c_threads.use_native(before)


def run_jobs(marking, seed: int, jobs: int = 300) -> None:
    """Jobs of random sizes and steps, each marking its own array: every index once."""
    rng = np.random.default_rng(seed)
    pool = c_threads.library()
    empty = (ctypes.c_int64 * 1)()
    for k in range(jobs):
        total = int(rng.integers(1, 5000))
        step = int(rng.integers(1, total + 1))
        seen = np.zeros(total + 7, np.int32)
        if k % 2:
            ptrs = (ctypes.c_void_p * 1)(seen.ctypes.data)
            pool.li_pool_kernel(marking.mark, total, step, empty, ptrs, empty, ptrs)
        else:
            pool.li_pool_copy(marking.mark_copy, None, seen.ctypes.data, total, step)
        assert (seen[:total] == 1).all() and not seen[total:].any(), (total, step)


def test_every_part_runs_once(marking):
    before = c_threads.stats()
    run_jobs(marking, 0)
    after = c_threads.stats()
    assert after["jobs"] + after["alone"] - before["jobs"] - before["alone"] == 300
    assert after["workers"] == threads.THREADS - 1


def test_jobs_from_several_threads_at_once(marking):
    """A job asked for while another thread's holds the pool runs alone in its caller."""
    errors = []

    def body(seed):
        try:
            run_jobs(marking, seed, 200)
        except BaseException as error:  # re-raised in the main thread
            errors.append(error)

    workers = [threading.Thread(target=body, args=(seed,)) for seed in range(1, 5)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert not any(worker.is_alive() for worker in workers) and not errors, errors


def test_workers_take_parts():
    """The pool's workers, not only the caller, run a large kernel's parts."""
    a = np.random.default_rng(0).standard_normal(1 << 20, dtype=np.float32)
    la = li.asarray(a)
    before = c_threads.stats()
    for _ in range(200):
        np.asarray(li.clip(la - 1, 0, 1))
        if c_threads.stats()["worker_parts"] > before["worker_parts"]:
            break
    assert c_threads.stats()["worker_parts"] > before["worker_parts"]
    assert c_threads.stats()["jobs"] > before["jobs"]


def test_a_failed_call_leaves_the_pool_usable(marking):
    """A call refused by ctypes starts no job: the pool is not left busy."""
    pool = c_threads.library()
    with pytest.raises(ctypes.ArgumentError):
        pool.li_pool_copy(marking.mark_copy, None, 1.5, 10, 3)
    run_jobs(marking, 5, 20)


PROGRAMS = {
    "clip_sub": lambda x, y: li.clip(x - y, 0, 1),
    "where": lambda x, y: li.where(x > y, x * 2, y),
    "exp": lambda x, y: li.exp(x) * y,  # numpy's own loop, called per block on each thread
}
SIZES = [cpu.C_PARALLEL_MIN, (1 << 20) + 3, 3 * (1 << 19) + 17]  # uneven last parts too
DTYPES = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16, np.int16]


def _inputs(n: int, dtype) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal((2, n), dtype=np.float32) * 3
    return a.astype(dtype), b.astype(dtype)


def _run(program, a, b, **options):
    with li.options(**options):
        return np.asarray(program(li.asarray(a), li.asarray(b)))


CASES = [
    (name, dtype, n)
    for name in sorted(PROGRAMS)
    for dtype in DTYPES
    for n in SIZES
    # NOTE: exp of integers is a float program; of bfloat16 ml_dtypes' own loop, which numpy
    # runs (ops.HALF_MATH; float16's is numpy's half loop, which C calls)
    if name != "exp" or np.dtype(dtype).kind == "f"
]


@pytest.mark.parametrize(("name", "dtype", "n"), CASES)
def test_the_same_bits_on_either_pool_and_the_reference(name, dtype, n):
    program = PROGRAMS[name]
    a, b = _inputs(n, dtype)
    jobs = c_threads.stats()["jobs"]
    native = _run(program, a, b)
    assert c_threads.stats()["jobs"] > jobs  # it ran on the C pool
    c_threads.use_native(False)
    try:
        python = _run(program, a, b)
    finally:
        c_threads.use_native(True)
    reference = _run(program, a, b, device="reference")
    numpy_path = _run(program, a, b, device="numpy")
    for other in (python, reference, numpy_path):
        assert native.dtype == other.dtype
        assert native.tobytes() == other.tobytes()


def test_a_parallel_compiled_copy_runs_on_the_c_pool():
    x = np.arange(2048 * 2048, dtype=np.float32).reshape(2048, 2048)
    jobs = c_threads.stats()["jobs"]
    y = np.asarray(li.permute_dims(li.asarray(x), (1, 0)))
    assert c_threads.stats()["jobs"] > jobs
    np.testing.assert_array_equal(y, x.T)


def test_the_python_pool_runs_the_same_kernels(python_pool):
    a, b = _inputs(1 << 20, np.float32)
    jobs = c_threads.stats()["jobs"]
    np.testing.assert_array_equal(_run(PROGRAMS["clip_sub"], a, b), np.clip(a - b, 0, 1))
    x = a.reshape(1024, 1024)
    np.testing.assert_array_equal(np.asarray(li.permute_dims(li.asarray(x), (1, 0))), x.T)
    assert c_threads.stats()["jobs"] == jobs


def test_a_pool_that_does_not_build_leaves_the_python_pool(monkeypatch):
    def refuse(source):
        raise compiling.CompileError("refused for the test")

    monkeypatch.setattr(c_threads, "load", refuse)
    monkeypatch.setattr(c_threads._Pool, "tried", False)
    monkeypatch.setattr(c_threads._Pool, "library", None)
    with pytest.warns(RuntimeWarning, match="C thread pool is unavailable"):
        assert c_threads.library() is None
    assert "refused for the test" in c_threads._Pool.error
    a, b = _inputs(1 << 20, np.float32)
    np.testing.assert_array_equal(_run(PROGRAMS["clip_sub"], a, b), np.clip(a - b, 0, 1))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_starts_its_own_workers():
    a, b = _inputs(1 << 20, np.float32)
    expected = np.clip(a - b, 0, 1)
    _run(PROGRAMS["clip_sub"], a, b)  # the parent's workers run

    def child() -> bool:
        first = np.array_equal(_run(PROGRAMS["clip_sub"], a, b), expected)
        workers = c_threads.stats()["workers"] == threads.THREADS - 1
        return first and workers and np.array_equal(_run(PROGRAMS["clip_sub"], a, b), expected)

    assert in_forked_child(child)
    np.testing.assert_array_equal(_run(PROGRAMS["clip_sub"], a, b), expected)


def test_no_compiler_leaves_the_python_pool_without_a_second_warning(monkeypatch, recwarn):
    def refuse(source):
        raise compiling.NoCompiler("no C compiler found (for the test)")

    monkeypatch.setattr(c_threads, "load", refuse)
    monkeypatch.setattr(c_threads._Pool, "tried", False)
    monkeypatch.setattr(c_threads._Pool, "library", None)
    assert c_threads.library() is None and c_threads.stats()["jobs"] == 0
    assert not [w for w in recwarn if "thread pool" in str(w.message)]


def test_native_0_keeps_the_python_pool():
    code = (
        "import numpy as np, lazyinfini as li\n"
        "from lazyinfini._runtime import c_threads\n"
        "a = np.linspace(-2, 2, 1 << 20, dtype=np.float32)\n"
        "y = np.asarray(li.clip(li.asarray(a) - 0.5, 0, 1))\n"
        "assert np.array_equal(y, np.clip(a - np.float32(0.5), 0, 1))\n"
        "print(c_threads.library(), c_threads.stats()['jobs'])\n"
    )
    root = os.path.dirname(os.path.dirname(li.__file__))
    env = dict(os.environ, LAZYINFINI_NATIVE="0", PYTHONPATH=root)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["None", "0"]
