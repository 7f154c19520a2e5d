"""Library calls (REDUCE and OPAQUE kernels) on dask, in three ways, best first:

1. dask's own blocked algorithm: reductions as tree reductions, matmul and tensordot as
   blocked products, cumulative sums and products as scans, concat and stack (`BLOCKED`);
2. per block, along the axes the call needs whole: the input is rechunked to one chunk along
   them and the cpu's library call runs on each block (`local_axes`: sort along an axis, an
   fft along its axes, a stack of matrices for linalg);
3. one task on the whole inputs (gathered from their chunks into one), for everything else:
   integer-array indexing, searchsorted, set and multi-output calls (qr, svd, eigh).

Half floats compute in float32 and round once, as the cpu's library calls do.
"""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
from dask.base import tokenize

from ... import _dtypes
from ..._graph import Op
from .blocks import LibraryBlock, WholeCall, call_of, failure_note


def translate(kernel, inputs: list[da.Array]) -> tuple[list[da.Array], str]:
    """The kernel's outputs as dask arrays, and how they are computed (for explain)."""
    nodes = kernel.nodes
    node = nodes[0]
    empty = any(x.size == 0 for x in inputs)
    if len(nodes) == 1 and not empty:
        wide = [_widened(x) for x in inputs]
        blocked = BLOCKED.get(node.op)
        result = blocked(node, *wide) if blocked else None
        if result is not None:
            result = _typed(result, node)
            how = f"dask blocked {node.op.label}: {_grids(inputs)} -> {grid(result)}"
            return [result], how
        local = local_axes(node, inputs)
        if local is not None:
            result, how = _per_block(kernel, inputs[0], local)
            return [result], how
    outs = _one_task(kernel, inputs)
    what = "empty inputs" if empty else "no blocked form"
    return outs, f"one task ({what}): {_grids(inputs) or 'no inputs'} gathered into one"


def grid(x: da.Array) -> str:
    """'12 chunks (3x4)': how a dask array is split."""
    count = int(np.prod(x.numblocks))
    return f"{count} chunk{'s' if count != 1 else ''} ({'x'.join(map(str, x.numblocks)) or '0-d'})"


def _grids(inputs) -> str:
    return ", ".join(grid(x) for x in inputs)


def _widened(x: da.Array) -> da.Array:
    compute = _dtypes.compute_dtype(x.dtype)
    return x if compute == x.dtype else x.astype(compute)


def _typed(x: da.Array, node) -> da.Array:
    return x if x.dtype == node.dtype else x.astype(node.dtype)


# -- 1. dask's blocked algorithms ------------------------------------------------------------

_REDUCTIONS = {
    Op.SUM: da.sum,
    Op.PROD: da.prod,
    Op.MAX: da.max,
    Op.MIN: da.min,
    Op.NANMAX: da.nanmax,
    Op.NANMIN: da.nanmin,
    Op.MEAN: da.mean,
    Op.STD: da.std,
    Op.VAR: da.var,
    Op.ALL: da.all,
    Op.ANY: da.any,
    Op.ARGMAX: da.argmax,
    Op.ARGMIN: da.argmin,
}


def _reduce(node, x):
    kwargs = dict(node.arg)
    if kwargs["axis"] == ():
        return None  # NOTE: numpy's reduction over no axis: one task keeps its rules
    if "correction" in kwargs:
        kwargs["ddof"] = kwargs.pop("correction")
    if node.op is Op.COUNT_NONZERO:
        return (x != 0).sum(dtype=node.dtype, **kwargs)
    if node.op in (Op.ARGMAX, Op.ARGMIN) and kwargs["axis"] is None and x.ndim > 1:
        # NOTE: dask's flat arg reduction breaks ties between blocks in block order, which is
        # not the flat order (blocks (1, 0) and (0, 1) of a 2-d array): over the flattened
        # array (rows whole) the first block holding the extreme holds its first position.
        found = _REDUCTIONS[node.op](x.reshape(-1))
        return found.reshape(node.shape)
    return _REDUCTIONS[node.op](x, **kwargs)


def _matmul(node, a, b):
    # NOTE: dask sums blocks' products with `sum`, which turns bools into integers.
    return None if node.dtype == np.bool_ else da.matmul(a, b)


def _tensordot(node, a, b):
    if node.dtype == np.bool_:
        return None
    return da.tensordot(a, b, axes=dict(node.arg)["axes"])


def _cumulative(node, x):
    kwargs = dict(node.arg)
    axis, total = kwargs["axis"], node.op is Op.CUMULATIVE_SUM
    scan = da.cumsum if total else da.cumprod
    out = scan(x, axis=axis, dtype=kwargs["dtype"])
    if kwargs["include_initial"]:
        edge = out[(slice(None),) * axis + (slice(0, 1),)]
        first = da.zeros_like(edge) if total else da.ones_like(edge)
        out = da.concatenate([first, out], axis=axis)
    return out


def _joined(node, *xs):
    axis = dict(node.arg)["axis"]
    if node.op is Op.STACK:
        return da.stack(list(xs), axis=axis)
    return None if axis is None else da.concatenate(list(xs), axis=axis)


BLOCKED = {
    **dict.fromkeys(_REDUCTIONS, _reduce),
    Op.COUNT_NONZERO: _reduce,
    Op.MATMUL: _matmul,
    Op.TENSORDOT: _tensordot,
    Op.CUMULATIVE_SUM: _cumulative,
    Op.CUMULATIVE_PROD: _cumulative,
    Op.CONCAT: _joined,
    Op.STACK: _joined,
}


# -- 2. per block, along the axes the call needs whole ---------------------------------------

# Calls whose output at a position depends on the input only along some axes at the same
# position of the others (their `axis`/`axes` parameter; linalg, tril and triu: the last two).
_LOCAL = frozenset({Op.SORT, Op.ARGSORT, Op.PARTITION, Op.ROLL, Op.FFT, Op.TRIL, Op.TRIU})
_LOCAL |= {Op.LINALG}
_MATRICES = frozenset({Op.TRIL, Op.TRIU, Op.LINALG})


def local_axes(node, inputs) -> tuple[int, ...] | None:
    """The axes a one-input call needs whole, when every other input axis keeps its position
    and length in the output (so blocks along them compute independently); else None."""
    if node.op not in _LOCAL or len(inputs) != 1:
        return None
    ndim = inputs[0].ndim
    kwargs = dict(node.arg or ())
    if "axis" in kwargs or "axes" in kwargs:
        axes = kwargs.get("axis", kwargs.get("axes"))
        axes = range(ndim) if axes is None else (axes,) if isinstance(axes, int) else axes
        local = tuple(sorted({a % ndim for a in axes})) if ndim else ()
    elif node.op in _MATRICES and ndim >= 2:
        local = (ndim - 2, ndim - 1)
    else:
        return None
    shape = inputs[0].shape
    kept = [i for i in range(ndim) if i not in local]
    if any(i >= len(node.shape) or node.shape[i] != shape[i] for i in kept):
        return None
    return local


def _per_block(kernel, x: da.Array, local: tuple[int, ...]):
    (node,) = kernel.nodes
    before = grid(x)
    if local:
        x = x.rechunk({a: -1 for a in local})
    ndim = len(node.shape)
    # NOTE: string labels (dask sorts them): "a{j}" an input axis kept at j, "n{j}" a new one.
    keeps = [j < x.ndim and j not in local for j in range(ndim)]
    out_ind = tuple(f"a{j}" if keep else f"n{j}" for j, keep in enumerate(keeps))
    lengths = tuple(None if keep else node.shape[j] for j, keep in enumerate(keeps))
    block = LibraryBlock(call_of(node), lengths, failure_note(kernel.name, [call_of(node)]))
    result = da.blockwise(
        block, out_ind, x, tuple(f"a{i}" for i in range(x.ndim)),
        new_axes={f"n{j}": node.shape[j] for j, keep in enumerate(keeps) if not keep},
        name=f"{kernel.name}-{tokenize(block, x.name)}", dtype=node.dtype,
        meta=np.empty((0,) * ndim, node.dtype), concatenate=True,
    )  # fmt: skip
    whole = f"axes {local}" if len(local) != 1 else f"axis {local[0]}"
    how = (
        f"{kernel.name} needs {whole} whole: rechunked to one chunk there ({before} -> "
        f"{grid(x)}), the library call per block: {grid(result)}"
    )
    return result, how


# -- 3. one task ---------------------------------------------------------------------------


def _one_task(kernel, inputs: list[da.Array]) -> list[da.Array]:
    """Every item of one library call, from whole inputs, in one task (a delayed call whose
    dask array arguments arrive concatenated)."""
    calls = tuple(call_of(n) for n in kernel.nodes)
    call = WholeCall(calls, failure_note(kernel.name, calls))
    task = dask.delayed(call, pure=True)(*inputs)
    return [_delayed_item(task[i], n) for i, n in enumerate(kernel.nodes)]


def _delayed_item(item, node) -> da.Array:
    meta = np.empty((0,) * len(node.shape), node.dtype)
    return da.from_delayed(item, node.shape, dtype=node.dtype, meta=meta)
