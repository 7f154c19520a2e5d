"""Data in and out of Dask: `from_dask`, `from_zarr`, `to_dask`, `persist` (extensions; the
dask device is `_runtime/dask/`). A dask array enters as a buffer of the dask device holding the
dask array itself, and `to_dask` hands a pending program back as a dask graph: neither
computes. `persist` computes on the workers and keeps the values there: each array becomes a
buffer holding its persisted dask array.
"""

from __future__ import annotations

import math

from .. import _dtypes
from .._array import Array
from .._device import get_device
from .._graph import Buffer, BufferLayout, Node, Op, caller_source, mark_realized
from .._graph.memories import own
from .._graph.views import c_strides
from .checks import error


def is_dask_array(obj) -> bool:
    """Whether `obj` is a dask array, without importing dask (`import lazyinfini` never does)."""
    module = type(obj).__module__ or ""
    return module.startswith("dask.") and hasattr(obj, "__dask_graph__") and hasattr(obj, "chunks")


def from_dask(x, /) -> Array:
    """An array whose values are the dask array `x`'s, computed when needed on the dask device
    (li.options(device="dask")); nothing runs now. Its chunks are kept."""
    device = get_device("dask")  # NOTE: loads it: an ImportError naming the extra without dask
    if not is_dask_array(x):
        raise error(TypeError, "from_dask", f"expected a dask array, got {type(x).__name__}")
    if any(math.isnan(n) for n in x.shape):
        raise error(
            ValueError,
            "from_dask",
            f"x has unknown chunk sizes (shape {x.shape}); call x.compute_chunk_sizes() first",
        )
    dtype = x.dtype
    if not _dtypes.is_supported(dtype):
        raise error(TypeError, "from_dask", f"dtype {dtype} has no lazyinfini dtype")
    return Array(_buffer(device, x, caller_source()))


def _buffer(device, x, source: str) -> Node:
    """A BUFFER node of the dask device holding the dask array `x`."""
    shape = tuple(int(n) for n in x.shape)
    # NOTE: C strides as a cached schedule's key reads them: a dask array has none of its own.
    buffer = Buffer(device.name, x, BufferLayout(c_strides(shape, x.dtype.itemsize), 0))
    own(device.name, device.memory, device.reads)  # NOTE: it meets host arrays, never a GPU's
    return Node(Op.BUFFER, (), shape, x.dtype, buffer, source)


def from_zarr(url, /, component=None, **kwargs) -> Array:
    """An array reading a zarr array (a path, URL or store) chunk by chunk on the dask device
    (dask.array.from_zarr; needs zarr)."""
    get_device("dask")
    import dask.array as da

    return from_dask(da.from_zarr(url, component=component, **kwargs))


def to_dask(*arrays):
    """The dask arrays computing `arrays` (one array in, one dask array out): their pending
    programs translated by the dask device; nothing runs. A computed array's value is chunked
    as a numpy input is; a persisted one's is its persisted dask array."""
    _check_arrays("to_dask", arrays)
    device = get_device("dask")
    results = _dask_arrays(device, [a._node for a in arrays])
    return results[0] if len(results) == 1 else results


def persist(*arrays):
    """Compute `arrays` on the dask device and keep their values on the workers (one
    `dask.persist`); each array then reads its persisted dask array. Returns them (one array
    in, that array out)."""
    _check_arrays("persist", arrays)
    device = get_device("dask")
    import dask

    nodes = [a._node for a in arrays]
    kept = dask.persist(*_dask_arrays(device, nodes))
    # NOTE: without realize()'s lock: a materialization computing one of these nodes meanwhile
    # swaps in the same values (the last swap wins; no array ever reads a wrong one).
    buffers: dict = {}
    for a, node, x in zip(arrays, nodes, kept):
        buffer = buffers.get(node)
        if buffer is None:
            buffer = buffers[node] = _buffer(device, x, node.source)
            mark_realized(node, buffer)
        a._hold(buffer)
    return arrays[0] if len(arrays) == 1 else arrays


def _check_arrays(name: str, arrays) -> None:
    for a in arrays:
        if not isinstance(a, Array):
            raise error(TypeError, name, f"expected lazyinfini arrays, got {type(a).__name__}")


def _dask_arrays(device, nodes: list[Node]) -> tuple:
    """The dask array of each node: a pending one's program translated, a buffer's value."""
    values = _translated(device, [n for n in nodes if n.op is not Op.BUFFER])
    return tuple(values[n] if n in values else device.value_of({}, n) for n in nodes)


def _translated(device, pending: list[Node]) -> dict:
    """Requested node -> its dask array: the one run loop, on the dask device without its
    gather (no compute)."""
    if not pending:
        return {}
    # NOTE: imported at first use (~45 ms: the scheduler, the cache, the runtime)
    from .. import _realize

    try:
        return _realize.ungathered(device, list(dict.fromkeys(pending)))
    except ValueError as exc:
        raise error(ValueError, "to_dask", str(exc)) from None
