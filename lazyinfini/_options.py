"""Run-time options: executor, fusion, strict scalars, debug level, memory pool (environment,
`with`)."""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import os


@dataclasses.dataclass(frozen=True)
class Options:
    executor: str = "cpu"  # a name in the executor registry (lazyinfini._runtime)
    fuse: bool = True  # False: one kernel per node, to bisect a numerical difference to fusion
    strict: bool = False  # True: bool()/int()/float() on a pending array raise ValueError
    debug: int = 0  # 1: a line per materialization; 2: a line per kernel; 3: the whole plan
    pool_bytes: int = 1 << 30  # idle output memory kept for reuse (_runtime/pool.py); 0: none


def _from_environment() -> Options:
    env = os.environ
    return Options(
        executor=env.get("LAZYINFINI_EXECUTOR", Options.executor),
        fuse=env.get("LAZYINFINI_FUSE", "1") not in ("0", "false", "no"),
        strict=env.get("LAZYINFINI_STRICT", "0") not in ("0", "false", "no", ""),
        debug=int(env.get("LAZYINFINI_DEBUG", "0") or 0),
        pool_bytes=int(env.get("LAZYINFINI_POOL_BYTES", str(Options.pool_bytes))),
    )


_current: contextvars.ContextVar[Options] = contextvars.ContextVar(
    "lazyinfini_options",
    default=_from_environment(),  # noqa: B039 (Options is a frozen dataclass)
)


def current() -> Options:
    return _current.get()


@contextlib.contextmanager
def options(**changes):
    """Change options inside a `with` block: ``with li.options(fuse=False): ...``."""
    known = {f.name for f in dataclasses.fields(Options)}
    unknown = sorted(set(changes) - known)
    if unknown:
        raise TypeError(f"options: unknown option(s) {unknown}; known: {sorted(known)}")
    pool = changes.get("pool_bytes", 0)
    if not isinstance(pool, int) or isinstance(pool, bool) or pool < 0:
        raise ValueError(f"options: pool_bytes must be a non-negative int, got {pool!r}")
    if "executor" in changes:
        from ._runtime import get_executor

        get_executor(changes["executor"])  # raises ValueError naming the known executors
    token = _current.set(dataclasses.replace(_current.get(), **changes))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def set_options(**changes) -> None:
    """Change options for the rest of the program (the `options` context manager, unscoped)."""
    manager = options(**changes)
    manager.__enter__()
