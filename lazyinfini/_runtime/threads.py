"""The executors' threads: one shared pool, and a loop that spreads work items over every core.

numpy releases the GIL inside its loops, so threads running numpy calls use both cores.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

THREADS = os.cpu_count() or 1
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def pool() -> ThreadPoolExecutor:
    """The shared pool: THREADS - 1 helpers, because the calling thread works too."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max(1, THREADS - 1), thread_name_prefix="lazyinfini")
        return _pool


def _forget_pool() -> None:
    """In a forked child: the parent's helpers did not survive the fork (the executor would wait
    on them for ever), nor did the thread that may hold the lock. The next pool() makes both."""
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_pool)


def run_parallel(work, items) -> None:
    """work(item) for every item, on every core. Items are taken in order from one queue, so a
    slow item idles nobody; the caller is one of the workers; a worker's exception re-raises."""
    queue = iter(items)
    lock = threading.Lock()

    def drain() -> None:
        while True:
            with lock:
                item = next(queue, None)
            if item is None:
                return
            work(item)

    helpers = [pool().submit(drain) for _ in range(THREADS - 1)]
    try:
        drain()
    finally:
        for helper in helpers:
            helper.result()
