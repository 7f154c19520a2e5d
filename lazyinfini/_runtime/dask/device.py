"""The dask device: each kernel of a schedule becomes dask.array layers; nothing runs until
`gather`, one computation of every requested value, on whatever scheduler is active.

- A fused elementwise kernel is ONE `da.blockwise` layer, one task per output chunk, running
  the kernel on the chunk (`blocks.FusedBlock`): the C function the cpu device compiles, where
  the cpu would compile the kernel (`cpu.path_of` with this device's Target), else its register
  program in numpy chunks; a chain of k ops is n tasks, not k*n. Its loads' permutes and
  broadcasts are not dask layers at all: blockwise reads each operand's blocks by axis
  labels, so a transposed operand is relabelled and a broadcast one (length 1 on an axis)
  repeated, as a strided load is on the cpu.
- Movement kernels (views, rearranges) are dask's transpose, broadcast_to, slicing, reshape.
- Library calls: `calls.py`.

Values are dask arrays, computed by `gather.py`. A buffer of the cpu (host memory, which this
device reads too) enters with dask's automatic chunks (`chunk_spec`); a dask input keeps its
own. Chunks are chosen as the graph is built, not in the schedule: a cached schedule runs on
inputs chunked any way (only the dask graph is rebuilt), so `explain()` prints the chunking
its inputs give now.
"""

from __future__ import annotations

import functools
import operator
import weakref

import dask
import dask.array as da
import numpy as np
from dask.base import tokenize

from ... import _dtypes
from ..._device import Device
from ..._graph import Node, Op, fill_value
from ..._graph.views import slice_key
from ..._schedule.kernels import Kind
from ..._schedule.target import Target
from ..cpu import C_PATH, path_of
from ..cpu import TARGET as CPU_TARGET
from ..pool import POOL
from ..reference import arange_positions, arange_values, source_value
from . import calls, gather
from .blocks import FusedBlock, block_kernel, call_of, failure_note, fills_key
from .calls import grid
from .summing import SumBlock

# NOTE: never copy a transposed load first: blockwise reads it by relabelling its blocks. A
# kernel compiles where the cpu's would (LAZYINFINI_COMPILE_MIN): a worker compiles each of its
# functions once, and then finds it in its disk cache.
TARGET = Target(
    "dask",
    transposed_copy_min=None,
    compile_min=CPU_TARGET.compile_min,
    writes_in_place=False,
    # NOTE: a sum's blocks are summed as their prologue computes them (summing.py), then the
    # partials by dask's tree: the unfused bits, without writing the prologue's value
    reduce_prologues=True,
)

# The config key of the chunks numpy inputs get (any dask chunks spec: "auto", "64MiB", 2,
# ...). "auto" sizes them by dask's own "array.chunk-size" (128MiB unless set otherwise).
CHUNKS_KEY = "lazyinfini.chunks"


def chunk_spec(shape: tuple[int, ...]):
    """The chunks of a numpy input of `shape`. NOTE: read from dask's config, as dask reads its
    own "array.chunk-size" while building a graph: one place for a user to tune both. An empty
    array is one chunk: dask's "auto" divides by zero on two empty axes."""
    return -1 if 0 in shape else dask.config.get(CHUNKS_KEY, "auto")


# Output node -> chunks of its last translation: explain() describes a kernel from the chunks
# the kernels before it made (chunk tuples only: no data, no graph is kept).
_CHUNKS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def value_of(values: dict, node: Node) -> da.Array:
    """A node's value as a dask array: computed, a bound or own buffer (a numpy one chunked
    now, once per run: its consumers share one layer), or a fill."""
    value = values.get(node)
    if isinstance(value, da.Array):
        return value
    if node.op is Op.FULL:  # NOTE: its value may be bound for this run (_cache.py)
        value = _filled(node, fill_value(values, node))
    elif value is None:
        if node.op is Op.BUFFER and node.arg.data is not None:
            value = node.arg.data
        else:
            raise KeyError(node)
    if not isinstance(value, da.Array):
        # NOTE: name=False: a random name instead of hashing every byte of the input.
        value = np.asarray(value)
        value = da.from_array(value, chunks=chunk_spec(value.shape), name=False)
    values[node] = value
    _CHUNKS[node] = value.chunks
    return value


def _filled(node: Node, fill: np.ndarray) -> da.Array:
    return da.full(node.shape, fill[()], dtype=node.dtype, chunks=chunk_spec(node.shape))


# -- movement -----------------------------------------------------------------------------


def moved(step: Node, x: da.Array) -> da.Array:
    """One movement node applied to a dask array (numpy's rules: C-order reshape)."""
    if step.op is Op.PERMUTE:
        return da.transpose(x, step.arg)
    if step.op is Op.BROADCAST:
        return da.broadcast_to(x, step.shape)
    if step.op is Op.SLICE:
        return x[slice_key(step)]
    if step.op is Op.REAL or step.op is Op.IMAG:
        return da.real(x) if step.op is Op.REAL else da.imag(x)
    assert step.op is Op.RESHAPE, step
    return reshaped(x, step.shape)


def reshaped(x: da.Array, shape) -> da.Array:
    """numpy's reshape in dask: directly where dask merges or splits axes, else through one
    flat axis (dask reshapes any shape to and from 1-d, rechunking as it must)."""
    if x.size == 0:
        # NOTE: nothing to move (dask's reshape fails), in one chunk (see chunk_spec)
        return da.zeros(shape, dtype=x.dtype, chunks=chunk_spec(shape))
    if any(0 in sizes for sizes in x.chunks):
        # NOTE: a stepped slice leaves empty chunks (x[1:-1:2] of chunks (2, 2): (1, 0)), on
        # which dask's reshape fails (an IndexError): without them first
        x = x.rechunk(tuple(tuple(n for n in sizes if n) for sizes in x.chunks))
    try:
        return x.reshape(shape)
    except NotImplementedError:
        return x.reshape((x.size,)).reshape(shape)


def placed(load, values) -> tuple[da.Array, tuple[int, ...]]:
    """A load as (x, axes): x's axis i lies on the load's axis axes[i]; x has length 1 where
    the load is broadcast, and no axis at all for a broadcast's new leading axes. Permutes and
    broadcasts only relabel (no dask layer); a slice slices x; a reshape makes the view whole."""
    x = value_of(values, load.base)
    axes, shape = tuple(range(x.ndim)), load.base.shape
    for step in load.chain:
        if step.op is Op.BROADCAST:
            pad = len(step.shape) - len(shape)
            axes = tuple(a + pad for a in axes)
        elif step.op is Op.PERMUTE:
            where = {a: j for j, a in enumerate(step.arg)}
            axes = tuple(where[a] for a in axes)
        elif step.op is Op.SLICE:
            x = _sliced(x, axes, shape, step)
        else:
            x, axes = moved(step, whole(x, axes, shape)), tuple(range(len(step.shape)))
        shape = step.shape
    return _one_block_where_one(x), axes


def _one_block_where_one(x: da.Array) -> da.Array:
    """x with each length-1 axis in one block. dask's slices can leave empty blocks beside the
    one value ((1, 0) of x[1:2:2] in blocks of 2), and blockwise broadcasts an axis only where it is
    one block ("Chunks do not add up to same value" otherwise)."""
    split = {i: 1 for i, (n, c) in enumerate(zip(x.shape, x.chunks)) if n == 1 and len(c) > 1}
    return x.rechunk(split) if split else x


def _sliced(x: da.Array, axes, shape, step: Node) -> da.Array:
    key = slice_key(step)
    parts = []
    for i, axis in enumerate(axes):
        if x.shape[i] == 1 and shape[axis] != 1:  # broadcast there: still one value
            parts.append(slice(0, 0) if step.shape[axis] == 0 else slice(None))
        else:
            parts.append(key[axis])
    if all(p == slice(None) for p in parts):
        return x
    return x[tuple(parts)]


def whole(x: da.Array, axes, shape) -> da.Array:
    """(x, axes) as one dask array of `shape`: transposed, length-1 axes added, broadcast."""
    order = sorted(range(len(axes)), key=axes.__getitem__)
    if order != list(range(len(axes))):
        x = da.transpose(x, order)
    expanded = [1] * len(shape)
    for i, axis in enumerate(sorted(axes)):
        expanded[axis] = x.shape[i]
    if tuple(expanded) != x.shape:
        x = reshaped(x, tuple(expanded))
    return x if x.shape == tuple(shape) else da.broadcast_to(x, shape)


def load_array(load, values) -> da.Array:
    """A load as one dask array of its shape."""
    return whole(*placed(load, values), load.shape)


def _moving(kernel, values, target, memory=None):
    (load,) = kernel.loads
    x = load_array(load, values)
    via = ">".join(step.op.label for step in load.chain) or "the value itself"
    return [x], f"dask movement ({via}): {grid(x)}"


# -- elementwise: one blockwise layer ------------------------------------------------------


def _elementwise(kernel, values, target, memory=None):
    out = kernel.outputs[0]
    ndim = len(out.shape)
    arrays, places, constants = _block_inputs(kernel, values)
    path = path_of(kernel, target)
    layout = (ndim, places, constants)
    block = _fused_block(kernel, kernel, FusedBlock, layout, path == C_PATH, memory)
    several = len(kernel.outputs) > 1
    result = _layer(kernel, block, arrays, places, object if several else out.dtype)
    outs = [result] if not several else _items(result, kernel.outputs, result.name)
    return outs, _blockwise_note(kernel, result, arrays, places, path)


def _layer(kernel, block, arrays, places, dtype, **options) -> da.Array:
    """The blockwise layer running `block` on the blocks of `arrays` (placed on the output's
    axes by `places`): one task per output block."""
    ndim = block.ndim
    pairs = [item for x, (_, axes) in zip(arrays, places) for item in (x, axes)]
    name = f"{kernel.name}-{tokenize(block, *(x.name for x in arrays))}"
    return da.blockwise(
        block, tuple(range(ndim)), *pairs, name=name, dtype=dtype,
        meta=np.empty((0,) * ndim, dtype), align_arrays=True, concatenate=True, **options,
    )  # fmt: skip


def _block_inputs(kernel, values) -> tuple[list, list, list]:
    """A blockwise kernel's dask operands, where each lies ((load index, axes), see
    FusedBlock), and its fills (load index, value)."""
    out = kernel.outputs[0]
    ndim = len(out.shape)
    arrays, places, constants = [], [], []
    for i, load in enumerate(kernel.loads):
        if load.base.op is Op.FULL:  # a fill: a constant of the block function
            value = fill_value(values, load.base)
            if not isinstance(value, np.ndarray):
                # NOTE: a fill another kernel of this run made (a dask array): its 0-d value
                value = np.asarray(value)
            constants.append((i, value))
            continue
        x, axes = placed(load, values)
        arrays.append(x)
        places.append((i, axes))
    spanned = {(a, n) for x, (_, axes) in zip(arrays, places) for a, n in zip(axes, x.shape)}
    missing = tuple(a for a in range(ndim) if (a, out.shape[a]) not in spanned)
    if missing or not arrays:
        # NOTE: no operand spans these axes (all are broadcast there): a carrier of zero-stride
        # blocks gives them their chunks.
        arrays.append(_carrier(missing, out))
        places.append((None, missing))
    return arrays, places, constants


def _carrier(axes: tuple[int, ...], out: Node) -> da.Array:
    shape = tuple(out.shape[a] for a in axes)
    chunks = da.core.normalize_chunks(chunk_spec(shape), shape, dtype=out.dtype)
    return da.broadcast_to(da.zeros((), dtype=bool), shape, chunks=chunks)


_BLOCKS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _fused_block(kernel, fused, kind, layout, compiled: bool, memory, *more) -> FusedBlock:
    """The kernel's block function (a `kind`: FusedBlock or SumBlock, over its `layout`: ndim,
    places, constants) running the elementwise record `fused` (a REDUCE kernel's: its
    prologue), made once per kernel record (a cached schedule's kernels run again: the
    program is slimmed and tokenized once)."""
    block = _BLOCKS.get(kernel)
    ndim, places, constants = layout
    if (
        block is None
        or block.places != tuple(places)
        or block.fills != fills_key(constants)
        or block.compiled != compiled
        or block.memory is not memory
    ):
        note = failure_note(kernel.name, [call_of(n) for n in kernel.nodes])
        recipe = block.kernel if block is not None else block_kernel(fused)
        block = kind(recipe, ndim, places, constants, note, compiled, *more, memory=memory)
        _BLOCKS[kernel] = block
    return block


def _items(result: da.Array, outputs, name: str) -> list[da.Array]:
    """The outputs of a multi-output kernel, whose blocks are tuples: one getitem layer each."""
    return [
        result.map_blocks(
            operator.itemgetter(j),
            dtype=n.dtype,
            meta=np.empty((0,) * len(n.shape), n.dtype),
            name=f"{name}-{j}",
        )
        for j, n in enumerate(outputs)
    ]


def _blockwise_note(kernel, result, arrays, places, path: str) -> str:
    """How the layer `result` runs (one task per block of `arrays` placed on `places`)."""
    ops = len(kernel.program.steps)
    note = f"dask blockwise: one layer of {grid(result)}, the fused program ({ops} ops) per task"
    if path == C_PATH:
        # NOTE: dask runs one task per core: a kernel spreading over threads would oversubscribe
        note += " as compiled C on the task's thread alone"
    else:
        note += f" as {path} on the task's thread"
    spanning: dict = {}  # axis -> the chunks of the operands spanning it (not broadcast there)
    for x, (_, axes) in zip(arrays, places):
        for i, a in enumerate(axes):
            if x.shape[i] != 1 or kernel.outputs[0].shape[a] == 1:
                spanning.setdefault(a, set()).add(x.chunks[i])
    aligned = all(len(found) == 1 for found in spanning.values())
    if not aligned:
        note += "; operands rechunked to common chunks first"
    if len(kernel.outputs) > 1:
        note += f"; {len(kernel.outputs)} outputs, one getitem layer each"
    return note


# -- reductions: partial sums per block, then dask's tree -----------------------------------


def _reduction(kernel, values, target, memory=None):
    """A REDUCE kernel: one blockwise layer of partial sums (summing.SumBlock) and dask's sum of
    them, where the C path runs the prologue and the sum is a float one of its own dtype (dask
    sums half floats widened); else its parts, as unfused."""
    prologue, total = kernel.plan.prologue, kernel.plan.total
    (node,) = total.nodes
    summed = len(dict(node.arg)["axis"])
    path = path_of(kernel, target)
    if path != C_PATH or node.op is not Op.SUM or not _sums_own_dtype(prologue, node):
        return _in_parts(kernel, values, target, memory)
    arrays, places, constants = _block_inputs(prologue, values)
    ndim = len(prologue.outputs[0].shape)
    layout, more = (ndim, places, constants), (call_of(node), summed)
    block = _fused_block(kernel, prologue, SumBlock, layout, True, memory, *more)
    lengths = dict.fromkeys(range(ndim - summed, ndim), 1)  # NOTE: a partial per block there
    partials = _layer(kernel, block, arrays, places, node.dtype, adjust_chunks=lengths)
    outs, how = calls.translate(total, [partials])
    note = _blockwise_note(prologue, partials, arrays, places, path)
    return outs, f"{note}, each block's rows summed as computed; then {how}"


def _sums_own_dtype(prologue, node) -> bool:
    (summed,) = prologue.outputs
    return summed.dtype == node.dtype == _dtypes.compute_dtype(node.dtype) and summed.size > 0


def _in_parts(kernel, values, target, memory):
    """The prologue's layer, then the sum's, its value dropped as the unfused schedule drops it."""
    prologue, total = kernel.plan.prologue, kernel.plan.total
    (summed,) = prologue.outputs
    (values[summed],), first = _elementwise(prologue, values, target, memory)
    try:
        outs, second = _opaque(total, values, target, memory)
    finally:
        del values[summed]
    return outs, f"{first}; then {second}"


# -- sources, library calls ----------------------------------------------------------------


def _source(kernel, values, target, memory=None):
    (node,) = kernel.nodes
    if node.op is Op.ARANGE:  # NOTE: the reference's formula, chunk by chunk: same bits
        wide = arange_positions(node)
        positions = da.arange(node.shape[0], dtype=wide, chunks=chunk_spec(node.shape))
        x = arange_values(da, node, positions)
        return [x], f"dask arange: {grid(x)}"
    data = source_value(values, node)
    x = da.from_array(data, chunks=chunk_spec(data.shape), name=False)
    return [x], f"computed on the client (numpy), then {grid(x)}"


def _opaque(kernel, values, target, memory=None):
    inputs = [load_array(load, values) for load in kernel.loads]
    return calls.translate(kernel, inputs)


# -- the device ----------------------------------------------------------------------------

TRANSLATE = {
    Kind.ELEMENTWISE: _elementwise,
    Kind.REARRANGE: _moving,
    Kind.VIEW: _moving,
    Kind.SOURCE: _source,
    Kind.OPAQUE: _opaque,
    Kind.REDUCE: _reduction,
}


def _handler(translate, target: Target):
    def handler(kernel, values, memory) -> list[da.Array]:
        outs, _ = translate(kernel, values, target, memory)
        for node, x in zip(kernel.outputs, outs):
            assert x.shape == node.shape and x.dtype == node.dtype, (kernel, x)
            _CHUNKS[node] = x.chunks
        return outs

    return handler


def describe(kernel, target: Target = TARGET) -> str:
    """How a dask device of `target` runs `kernel`, with chunk counts: the kernel is translated
    again over stand-ins chunked as its inputs were (nothing runs: a dask graph is only built)."""
    values = {}
    for load in kernel.loads:
        base = load.base
        if base.op is not Op.FULL and not (base.op is Op.BUFFER and base.arg.data is not None):
            chunks = _CHUNKS.get(base) or chunk_spec(base.shape)
            values[base] = da.empty(base.shape, dtype=base.dtype, chunks=chunks)
    outs, note = TRANSLATE[kernel.kind](kernel, values, target)
    for node, x in zip(kernel.outputs, outs):
        _CHUNKS[node] = x.chunks
    return note


def _to_host(data) -> np.ndarray:
    """A dask array's value (computed and joined as a gather's are), or a gathered value as it
    is: read-only, as every buffer's value is, and never copied again."""
    if isinstance(data, da.Array):
        (data,) = gather.compute([data])
        data = np.asarray(data)
    if data.flags.writeable:
        data = data.view()
        data.flags.writeable = False
    return data


def empty(shape: tuple[int, ...], dtype, settings) -> np.ndarray:
    """A block's output from the cpu's pool, within the run's pool_bytes (blocks.FusedBlock
    allocates with it in the process that translated it, where realize() keeps the pool)."""
    return POOL.empty(shape, dtype, settings.pool_bytes)


def _handlers(target: Target) -> dict:
    """One handler per kind: TRANSLATE's."""
    return {kind: _handler(translate, target) for kind, translate in TRANSLATE.items()}


def dask_device(name: str, target: Target) -> Device:
    """A dask device planning for `target` (the tests' "dask-compiled": compile_min=0)."""
    return Device(
        name,
        target,
        _handlers(target),
        empty,
        value_of,
        to_host=_to_host,
        from_host=np.asarray,
        describe=functools.partial(describe, target=target),
        memory="dask",
        reads=("host",),
        gather=gather.gather,
        finish=gather.finish,
        keeps=False,  # NOTE: an intermediate stays a dask graph, never a client-side copy
    )


DASK = dask_device("dask", TARGET)
