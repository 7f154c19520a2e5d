"""The compiled kernels' threads: a pool of C worker threads, so a parallel C kernel starts in
microseconds, not the ~50-100 us a Python pool's hand-off costs (threads.py).

The pool is a small C library compiled once per machine into the kernel cache
(`_render/compile.py`). `li_pool_kernel` runs an elementwise kernel's function (compiled.py) and
`li_pool_copy` a rearrange's (compiled_rearrange.py) over the parts [k * step, (k + 1) * step)
of [0, total): the same parts the Python pool runs, taken in order by whoever is free, the
caller too, so results are the same bit for bit. Workers spin a few tens of microseconds after
a job (a kernel's next call usually comes sooner), then sleep on a condition variable.

Where the pool is not used, the Python pool runs the same parts: no compiler (the kernels run in
numpy anyway), a pool that fails to build, `LAZYINFINI_NATIVE=0`, or `use_native(False)`.
"""

from __future__ import annotations

import ctypes
import os
import threading
import warnings

from .._render.compile import CompileError, NoCompiler, load
from .threads import THREADS

SPIN_NS = 50_000  # how long an idle worker waits for the next job before it sleeps

SOURCE = r"""
#include <fenv.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

typedef void (*kernel_fn)(int64_t, int64_t, const int64_t *, char *const *, const int64_t *,
                          void *const *);
typedef void (*copy_fn)(const char *, char *, int64_t, int64_t);

/* One job: fn over the parts [k * step, min((k + 1) * step, total)), k < nparts. */
typedef struct {
    void *fn;
    int copy;
    const int64_t *shape, *strides;
    char *const *ptrs;
    void *const *ext;
    const char *src;
    char *dst;
    int64_t total, step, nparts;
    fenv_t env;
} job_t;

static job_t job;                    /* written only by the caller holding `busy` */
static _Atomic uint64_t claim;       /* (job number << 32) | parts not claimed yet */
static _Atomic int64_t finished;     /* parts of the current job done */
static _Atomic int sleepers, busy;
static _Atomic int64_t stats[3];     /* jobs, parts workers ran, jobs run alone (pool busy) */
static pthread_mutex_t sleep_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int wanted, started;          /* workers asked for, and running in this process */
static pid_t started_in;             /* the process whose threads those are */
static int64_t spin_ns;

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void run_part(const job_t *j, int64_t part) {
    int64_t start = part * j->step, stop = start + j->step;
    if (stop > j->total) stop = j->total;
    if (j->copy) ((copy_fn)j->fn)(j->src, j->dst, start, stop);
    else ((kernel_fn)j->fn)(start, stop, j->shape, j->ptrs, j->strides, j->ext);
}

/* Claim and run parts of job `number` until none is left; returns the parts run. The fields of
   `job` are read only after a claim succeeds: the caller cannot end the job (and write the
   next one) before that part is done. */
static int64_t work(uint32_t number) {
    int64_t done = 0;
    for (;;) {
        uint64_t seen = atomic_load(&claim);
        if ((uint32_t)(seen >> 32) != number || (uint32_t)seen == 0) return done;
        if (!atomic_compare_exchange_weak(&claim, &seen, seen - 1)) continue;
        if (done == 0) fesetenv(&job.env); /* the caller's rounding and denormal modes */
        run_part(&job, job.nparts - (int64_t)(uint32_t)seen);
        done++;
        atomic_fetch_add_explicit(&finished, 1, memory_order_release);
    }
}

/* The next job's number: spin for spin_ns, then sleep until the caller wakes us. */
static uint32_t await_job(uint32_t number) {
    int64_t until = now_ns() + spin_ns;
    for (unsigned i = 1;; i++) {
        uint32_t next = (uint32_t)(atomic_load(&claim) >> 32);
        if (next != number) return next;
        relax();
        if ((i & 255) == 0 && now_ns() > until) break;
    }
    pthread_mutex_lock(&sleep_lock);
    atomic_fetch_add(&sleepers, 1); /* NOTE: before the check: li_pool_* reads it after its
                                       store to claim, so one of the two sees the other */
    uint32_t next;
    while ((next = (uint32_t)(atomic_load(&claim) >> 32)) == number)
        pthread_cond_wait(&wake, &sleep_lock);
    atomic_fetch_sub(&sleepers, 1);
    pthread_mutex_unlock(&sleep_lock);
    return next;
}

static void *worker(void *first) {
    uint32_t number = (uint32_t)(uintptr_t)first;
    for (;;) {
        number = await_job(number);
        atomic_fetch_add_explicit(&stats[1], work(number), memory_order_relaxed);
    }
    return NULL;
}

/* A forked child has only the thread that forked: its workers start again at its first job,
   on a lock and a condition variable no thread of the parent holds. */
static void forget_threads(void) {
    pthread_mutex_init(&sleep_lock, NULL);
    pthread_cond_init(&wake, NULL);
    atomic_store(&sleepers, 0);
    started = 0;
}

static void after_fork_in_child(void) {
    forget_threads();
    atomic_store(&busy, 0); /* NOTE: the parent's job, if one ran, is no job of the child's */
}

static void start_workers(void) {
    if (started_in != getpid()) forget_threads(); /* a child forked without the atfork hook */
    started_in = getpid();
    uint32_t number = (uint32_t)(atomic_load(&claim) >> 32);
    for (; started < wanted; started++) {
        pthread_t thread;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int failed = pthread_create(&thread, &attr, worker, (void *)(uintptr_t)number);
        pthread_attr_destroy(&attr);
        if (failed) break;
    }
}

int li_pool_init(int workers, int64_t spin) {
    wanted = workers;
    spin_ns = spin;
    return pthread_atfork(NULL, NULL, after_fork_in_child);
}

static void wait_parts(void) {
    for (unsigned i = 1; atomic_load_explicit(&finished, memory_order_acquire) < job.nparts; i++) {
        relax();
        if ((i & 1023) == 0) sched_yield(); /* a worker descheduled mid-part */
    }
}

static void run(const job_t *mine) {
    int idle = 0;
    if (mine->nparts > UINT32_MAX || !atomic_compare_exchange_strong(&busy, &idle, 1)) {
        /* NOTE: another thread's job holds the pool: this one runs its parts alone, in order */
        atomic_fetch_add(&stats[2], 1);
        for (int64_t part = 0; part < mine->nparts; part++) run_part(mine, part);
        return;
    }
    if (started_in != getpid() || started < wanted) start_workers();
    job = *mine;
    fegetenv(&job.env);
    atomic_store(&finished, 0);
    atomic_fetch_add(&stats[0], 1);
    uint32_t number = (uint32_t)(atomic_load(&claim) >> 32) + 1;
    atomic_store(&claim, ((uint64_t)number << 32) | (uint64_t)job.nparts);
    if (atomic_load(&sleepers)) {
        pthread_mutex_lock(&sleep_lock);
        pthread_cond_broadcast(&wake);
        pthread_mutex_unlock(&sleep_lock);
    }
    work(number); /* NOTE: where no worker could start, the caller runs every part */
    wait_parts();
    atomic_store(&busy, 0);
}

void li_pool_kernel(void *fn, int64_t total, int64_t step, const int64_t *shape,
                    char *const *ptrs, const int64_t *strides, void *const *ext) {
    job_t mine = {.fn = fn, .shape = shape, .strides = strides, .ptrs = ptrs, .ext = ext,
                  .total = total, .step = step, .nparts = (total + step - 1) / step};
    run(&mine);
}

void li_pool_copy(void *fn, const char *src, char *dst, int64_t total, int64_t step) {
    job_t mine = {.fn = fn, .copy = 1, .src = src, .dst = dst, .total = total, .step = step,
                  .nparts = (total + step - 1) / step};
    run(&mine);
}

void li_pool_stats(int64_t *out) {
    for (int k = 0; k < 3; k++) out[k] = atomic_load(&stats[k]);
    out[3] = started_in == getpid() ? started : 0;
}
"""


_LOCK = threading.Lock()


class _Pool:
    """The loaded library (None until loaded, or where it is not used) and why not."""

    library: ctypes.CDLL | None = None
    tried = False
    enabled = os.environ.get("LAZYINFINI_NATIVE", "1") != "0"
    error = ""


def use_native(enabled: bool) -> bool:
    """Run parallel C kernels on the C pool (True) or the Python pool; returns the old choice
    (benchmarks compare the two in one process)."""
    before, _Pool.enabled = _Pool.enabled, enabled
    return before


def library() -> ctypes.CDLL | None:
    """The C pool, loaded at the first ask; None where the Python pool runs instead."""
    if not _Pool.enabled:
        return None
    if not _Pool.tried:
        with _LOCK:
            if not _Pool.tried:
                _Pool.library = _load()
                _Pool.tried = True
    return _Pool.library


def _load() -> ctypes.CDLL | None:
    if THREADS < 2:
        _Pool.error = "one core: no threads"
        return None
    try:
        found = load(SOURCE)
    except CompileError as error:
        _Pool.error = str(error).splitlines()[0][:200]
        if isinstance(error, NoCompiler):
            return None  # NOTE: no kernel compiles either: cpu.py has said so once
        warnings.warn(
            f"lazyinfini: the C thread pool is unavailable, using Python's ({_Pool.error})",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    found.li_pool_init.argtypes, found.li_pool_init.restype = _INIT, ctypes.c_int
    found.li_pool_kernel.argtypes, found.li_pool_kernel.restype = _KERNEL, None
    found.li_pool_copy.argtypes, found.li_pool_copy.restype = _COPY, None
    found.li_pool_stats.argtypes, found.li_pool_stats.restype = _STATS, None
    found.li_pool_init(THREADS - 1, SPIN_NS)
    return found


_INIT = [ctypes.c_int, ctypes.c_int64]
_I64, _PTRS = ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_void_p)
_KERNEL = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, _I64, _PTRS, _I64, _PTRS]
_COPY = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64]
_STATS = [_I64]


def stats() -> dict[str, int]:
    """What the C pool did in this process: jobs it ran, parts its workers ran, jobs run alone
    by their caller (the pool was busy with another thread's), workers running now."""
    found = _Pool.library  # NOTE: not loaded here: asking must not build it
    if found is None:
        return {"jobs": 0, "worker_parts": 0, "alone": 0, "workers": 0}
    out = (ctypes.c_int64 * 4)()
    found.li_pool_stats(out)
    return dict(zip(("jobs", "worker_parts", "alone", "workers"), out))
