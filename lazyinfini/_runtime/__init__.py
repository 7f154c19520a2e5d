"""RUNNING it: the registry of executors.

An executor has a `name`, `plan(graph, fuse, keep) -> Schedule` (the scheduling it wants) and
`run(schedule, timings, inputs) -> {node: ndarray}` for the schedule's outputs and kept nodes;
`inputs` binds the BUFFER stand-ins of a cached schedule (_schedule/cache.py) to ndarrays.
"""

from __future__ import annotations

from .cpu import CpuExecutor
from .reference import ReferenceExecutor

_EXECUTORS: dict[str, object] = {}


def register_executor(executor) -> None:
    """Make `executor` selectable with li.options(executor=executor.name)."""
    _EXECUTORS[executor.name] = executor


def get_executor(name: str):
    try:
        return _EXECUTORS[name]
    except KeyError:
        raise ValueError(
            f"options: unknown executor {name!r}; known: {sorted(_EXECUTORS)}"
        ) from None


register_executor(ReferenceExecutor())
register_executor(CpuExecutor())
