"""Gathering: every requested value of a run computed in ONE graph, as numpy arrays.

On a scheduler of this process's memory (dask's threads, the synchronous one) the blocks of
each value are joined by lazyinfini instead of dask's finalize: into one array from the cpu's
pool (memory a dropped result leaves warm: a fresh 256 MiB array costs ~60 ms of page faults
here, as much as the copy), its blocks copied on every core. That copy is the only one: the
value is the run's buffer as it is (read-only), and `np.asarray` of the array hands it out.

On a distributed cluster the values are persisted (one graph) and their blocks gathered
straight from the workers holding them, then joined here the same way. dask's finalize would
join them on a worker first: half the blocks cross between workers, the joined array is
copied there, and it travels worker -> scheduler -> client (a map_blocks of 64M float32 in 8
blocks on 2 worker processes, one run on this 2-core VM: 2.26 s computed by dask, 0.80 s
persisted, gathered direct and joined here).
A client made with `direct_to_workers=False` (workers it cannot reach) gathers through the
scheduler. On dask's process pool, dask's own finalize joins the blocks.
"""

from __future__ import annotations

import itertools
import sys

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
    """Every requested value in ONE graph (shared layers run once), as numpy arrays."""
    nodes = list(results)
    computed = compute([results[n] for n in nodes])
    return {n: _host(value, n) for n, value in zip(nodes, computed)}


def compute(values: list) -> list:
    """The dask arrays among `values` computed in one graph, each joined into one array on
    this process (the others as they are)."""
    limit = _SETTINGS[0].pool_bytes
    client = _client(values)
    if client is not None:
        return _gathered(client, values, limit)
    if _shared_memory(values):
        # NOTE: every dask array joined, 0-d ones too: dask.compute returns a mix of collection
        # types grouped by type (a 0-d Array's value came back in a Joined's place)
        values = [Joined(x, limit) if isinstance(x, da.Array) else x for x in values]
    return list(dask.compute(*values))


def _shared_memory(values) -> bool:
    """Whether dask computes `values` in this process (its threads or in the calling one)."""
    arrays = [x for x in values if isinstance(x, da.Array)]
    if not arrays:
        return False
    return get_scheduler(collections=arrays) in (dask.threaded.get, dask.local.get_sync)


def _client(values):
    """The distributed Client that would compute `values`, or None (another scheduler)."""
    distributed = sys.modules.get("distributed")  # NOTE: a Client exists only once imported
    arrays = [x for x in values if isinstance(x, da.Array)]
    if distributed is None or not arrays:
        return None
    owner = getattr(get_scheduler(collections=arrays), "__self__", None)
    return owner if isinstance(owner, distributed.Client) else None


def _gathered(client, values: list, limit: int) -> list:
    """`values` persisted on `client`'s cluster in one graph, each array's blocks gathered
    straight from the workers (one request for all) and joined here."""
    from distributed import futures_of

    arrays = [x for x in values if isinstance(x, da.Array)]
    kept = client.persist(arrays)  # NOTE: released when `kept` goes: nothing stays there
    futures = {f.key: f for f in futures_of(kept)}
    nested = [_futures(x.__dask_keys__(), futures) for x in kept]
    blocks = iter(client.gather(nested, direct=client.direct_to_workers is not False))
    return [_joined(next(blocks), x, limit) if isinstance(x, da.Array) else x for x in values]


def _futures(keys: list, futures: dict) -> list:
    """dask's nested lists of block keys with each key's future in its place."""
    return [_futures(k, futures) if isinstance(k, list) else futures[k] for k in keys]


def _joined(blocks: list, x: da.Array, limit: int):
    return join(blocks, x.chunks, x.dtype, limit) if x.ndim else only(blocks, x.dtype)


def only(blocks: list, dtype) -> np.ndarray:
    """A 0-d array's value: its one block, in a list of one (its keys are [key]): not joined."""
    return np.asarray(blocks[0], dtype=dtype)


def _host(value, node: Node) -> np.ndarray:
    # NOTE: dask hands a 0-d result back as a numpy scalar; realize() keeps arrays.
    value = np.asarray(value)
    if value.shape != node.shape or value.dtype != node.dtype:  # NOTE: never under python -O
        raise RuntimeError(f"lazyinfini: internal error: {node} came back as {value.shape}")
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

    # NOTE: the array's default scheduler itself, not a method bound to each collection: dask
    # compares the collections' schedulers, and two bound methods (or one and an array's
    # function) differ, which made li.compute of two arrays raise on dask's default scheduler
    __dask_scheduler__ = staticmethod(da.Array.__dask_scheduler__)

    def __dask_postcompute__(self):
        if not self.x.ndim:
            return only, (self.x.dtype,)
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
