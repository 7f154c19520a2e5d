"""Gathering: every requested value of a run in ONE `dask.compute`, as numpy arrays.

On a scheduler of this process's memory (dask's threads, the synchronous one) the blocks of
each value are joined by lazyinfini instead of dask's finalize: into one array from the cpu's
pool (memory a dropped result leaves warm: a fresh 256 MiB array costs ~60 ms of page faults
here, as much as the copy), its blocks copied on every core. That copy is the only one: the
value is the run's buffer as it is (read-only), and `np.asarray` of the array hands it out. On
another scheduler (processes, a distributed cluster) dask's own finalize joins the blocks.
"""

from __future__ import annotations

import itertools

import dask
import dask.array as da
import numpy as np
from dask.base import get_scheduler

from ..._graph import Node
from ..pool import POOL
from ..run import Settings
from ..threads import THREADS, run_parallel

PARALLEL_BYTES = 1 << 22  # a smaller join is one thread's (a thread's start costs more)
_SETTINGS: list = [Settings()]  # the current run's, from `finish` (the run loop's order)


def finish(settings: Settings) -> None:
    """After a run's kernels, before its gather: the pool's bookkeeping, and the settings the
    gather allocates within (NOTE: the run loop hands `gather` no settings; realize() runs one
    materialization at a time)."""
    POOL.tick(settings.pool_bytes)
    _SETTINGS[0] = settings


def gather(results: dict) -> dict:
    """Every requested value in ONE dask.compute (shared layers run once), as numpy arrays."""
    nodes = list(results)
    values = [results[n] for n in nodes]
    if _shared_memory(values):
        limit = _SETTINGS[0].pool_bytes
        values = [Joined(x, limit) if isinstance(x, da.Array) and x.ndim else x for x in values]
    computed = dask.compute(*values)
    return {n: _host(value, n) for n, value in zip(nodes, computed)}


def _shared_memory(values) -> bool:
    """Whether dask computes `values` in this process (its threads or in the calling one)."""
    arrays = [x for x in values if isinstance(x, da.Array)]
    if not arrays:
        return False
    return get_scheduler(collections=arrays) in (dask.threaded.get, dask.local.get_sync)


def _host(value, node: Node) -> np.ndarray:
    # NOTE: dask hands a 0-d result back as a numpy scalar; realize() keeps arrays.
    value = np.asarray(value)
    assert value.shape == node.shape and value.dtype == node.dtype, (node, value.shape)
    return value


class Joined:
    """A dask array as a dask collection whose blocks are joined by `join` (its graph, keys
    and optimization are the array's)."""

    def __init__(self, x: da.Array, limit: int):
        self.x, self.limit = x, limit

    def __dask_graph__(self):
        return self.x.__dask_graph__()

    def __dask_keys__(self):
        return self.x.__dask_keys__()

    def __dask_layers__(self):
        return self.x.__dask_layers__()

    def __dask_tokenize__(self):
        return ("lazyinfini-joined", self.x.name)

    def __dask_optimize__(self, dsk, keys, **kwargs):
        return self.x.__dask_optimize__(dsk, keys, **kwargs)

    def __dask_scheduler__(self, *args, **kwargs):
        return self.x.__dask_scheduler__(*args, **kwargs)

    def __dask_postcompute__(self):
        return join, (self.x.chunks, self.x.dtype, self.limit)


def join(blocks, chunks: tuple, dtype, limit: int) -> np.ndarray:
    """The nested lists of `blocks` (dask's block order) as one array from the pool, the
    blocks copied by every core when it is large."""
    out = POOL.empty(tuple(sum(c) for c in chunks), dtype, limit)
    flat = list(_flattened(blocks, len(chunks)))
    places = list(itertools.product(*(_slices(c) for c in chunks)))
    if len(flat) == 1 or out.nbytes < PARALLEL_BYTES or THREADS == 1:
        for place, block in zip(places, flat):
            out[place] = block
        return out
    parts = _parts([b.nbytes if hasattr(b, "nbytes") else 1 for b in flat], out.nbytes)

    def copy(part: range) -> None:
        for i in part:
            out[places[i]] = flat[i]

    run_parallel(copy, parts)
    return out


def _flattened(blocks, ndim: int):
    if ndim == 0:
        yield blocks
        return
    for item in blocks:
        yield from _flattened(item, ndim - 1)


def _slices(lengths) -> list[slice]:
    edges = list(itertools.accumulate(lengths, initial=0))
    return [slice(a, b) for a, b in zip(edges, edges[1:])]


def _parts(sizes: list[int], total: int) -> list[range]:
    """Runs of consecutive blocks of about a fourth of a thread's share of bytes each (a slow
    part idles nobody long)."""
    share = max(1, total // (THREADS * 4))
    parts, start, held = [], 0, 0
    for i, size in enumerate(sizes):
        held += size
        if held >= share:
            parts.append(range(start, i + 1))
            start, held = i + 1, 0
    if start < len(sizes):
        parts.append(range(start, len(sizes)))
    return parts
