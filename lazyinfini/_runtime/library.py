"""Reductions and opaque ops: one call into an Array API namespace (array_api_compat.numpy, the
spec-correct numpy wrappers, unless a device gives its own: the cuda device's is CuPy's).

A node's `arg` is a tuple of (keyword, value) pairs passed to the call. Two keys are ours:
"_function" names the function when the op is a namespace (linalg, fft), and "_index" picks one
item of a function that returns several arrays (eigh, qr, svd, ...).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _dtypes
from .._compat import compat
from .._graph import Node, Op
from . import correlation, indexing, joining, repeating, sorting
from .fused import bound_lines, moves_of
from .memo import Memo
from .numpy_reductions import REDUCTIONS

# Ops whose implementation is not a plain library call: each a function of (the namespace, the
# node's inputs, its keywords), written for any Array API namespace (every device's library).
CUSTOM: dict[Op, object] = {}
CUSTOM.update(indexing.IMPLEMENTATIONS)  # gather, setitem, take, take_along_axis (bounds)
CUSTOM.update(joining.IMPLEMENTATIONS)  # concat, stack
CUSTOM.update(sorting.IMPLEMENTATIONS)  # sort (stable descending), searchsorted (sorter)
CUSTOM.update(repeating.IMPLEMENTATIONS)  # repeat (an array of repeats on a device)
CUSTOM.update(correlation.IMPLEMENTATIONS)  # np.correlate's sum (x, kernel)

_NAMESPACES = {Op.LINALG: "linalg", Op.FFT: "fft"}  # NOTE: names: compat loads at first use


def _numpy_contiguous(result, dtype) -> np.ndarray:
    # NOTE: the scheduler plans every view and copy of a kernel's output with C strides (numpy
    # keeps an F-order or transposed input's layout in sum, sort, cumulative_sum, take, ...).
    return np.asarray(result).astype(dtype, order="C", copy=False)


@dataclass(frozen=True)
class Library:
    """Where a device's library calls run: an Array API `namespace`, the ops that are no plain
    call there (`custom`: Op -> function of the namespace, the node's inputs and keywords),
    and `contiguous` (result, dtype) -> a C-contiguous array of that dtype, the layout every
    plan assumes."""

    namespace: Any
    custom: Mapping[Op, Callable]
    contiguous: Callable


def _host_matmul(xp, x1, x2):
    """numpy's matmul, a broadcast operand (a lazy fill: `w = np.zeros_like(X[0])`, where
    numpy's is an array) made contiguous first: numpy multiplies a stride-0 operand in its own
    loop, without BLAS (X @ w of a (200000, 64) X: 17 ms, where BLAS takes 2.4). NOTE: numpy's
    own function, which array_api_compat's wraps unchanged (its wrapper: ~1.5 us a call)."""
    return np.matmul(_dense(x1), _dense(x2))


def _dense(x):
    return np.ascontiguousarray(x) if 0 in x.strides and x.size > 1 else x


# the host devices': numpy's reductions as the ufunc calls they make (numpy_reductions.py)
NUMPY = Library(compat, {**CUSTOM, **REDUCTIONS, Op.MATMUL: _host_matmul}, _numpy_contiguous)


def call_library(node: Node, inputs: list[np.ndarray]) -> np.ndarray:
    """The value of a REDUCE or OPAQUE node from its inputs' values."""
    (value,) = call_library_outputs((node,), inputs)
    return value


def call_library_outputs(nodes, inputs: list, library: Library = NUMPY, in_place=False) -> list:
    """The values of nodes that differ only in which item ("_index") of one call they take:
    the library is called once (qr's Q and R, eigh's values and vectors). `in_place`: the
    kernel's update writes into its first input (Kernel.in_place)."""
    return library_call(nodes, library, in_place).run(inputs)


@dataclass(frozen=True)
class LibraryCall:
    """One call of nodes' library function, worked out once (a device keeps it per kernel: a
    cached schedule calls it again): the function, its keywords, and per node the item it
    takes (None: the whole result) and its dtype and shape."""

    function: Callable
    kwargs: Mapping[str, Any]
    items: tuple[tuple[Any, Any, tuple], ...]  # (_index or None, dtype, shape) per node
    library: Library
    widens: tuple = _dtypes.HALF  # dtypes computed in float32 (see library_call)

    def run(self, inputs: list) -> list:
        xp, contiguous = self.library.namespace, self.library.contiguous
        # NOTE: half floats compute in float32 and round once, as elementwise ops do
        inputs = [_widened(xp, x) if x.dtype in self.widens else x for x in inputs]
        result = self.function(*inputs, **self.kwargs)
        values = []
        for index, dtype, shape in self.items:
            value = contiguous(result if index is None else result[index], dtype)
            assert tuple(value.shape) == shape, (value.shape, shape)
            values.append(value)
        return values


def call_step(kernel, read):
    """An opaque kernel of one result as one function of a run's values on the host (numpy's
    library): its loads read by `read(load, values)`, widened only where a half float asks,
    the call, the result made C-contiguous. A small script's materialization runs a few of
    these: what LibraryCall.run looks up each time is looked up here once. None for a call
    of several results (qr, eigh) or an in-place update."""
    call = kernel_call(kernel)
    if len(call.items) != 1 or call.items[0][0] is not None or kernel.in_place:
        return None
    ((_, dtype, shape),) = call.items
    loads, function, kwargs = kernel.loads, call.function, call.kwargs
    widened = [
        _dtypes.float32 if load.node.dtype in call.widens else load.node.dtype for load in loads
    ]
    if all(wide == load.node.dtype for wide, load in zip(widened, loads, strict=True)):
        widened = None

    if widened is None:
        return _direct_step(loads, read, function, kwargs, dtype, shape)

    def step(values: dict) -> list:
        inputs = [read(load, values) for load in loads]
        inputs = [x.astype(wide, copy=False) for x, wide in zip(inputs, widened)]
        value = _numpy_contiguous(function(*inputs, **kwargs), dtype)
        assert value.shape == shape, (value.shape, shape)
        return [value]

    return step


def _direct_step(loads, read, function, kwargs: dict, dtype, shape: tuple):
    """call_step's step where no input is widened, generated (as fused.whole_step is): a load
    of a value as it is (no movement, no fill) is the run's value of its node, read without
    `read`'s calls (a small script's materialization runs dozens of such calls), its views
    as ndarray calls (views.method_moves)."""
    env = {"read": read, "function": function, "kwargs": kwargs, "contiguous": _numpy_contiguous}
    env["dtype"], env["shape"], lines = dtype, shape, ["def step(values):"]
    for i, load in enumerate(loads):
        env[f"L{i}"] = load
        moves = moves_of(load)
        if moves is None:
            lines.append(f"    l{i} = read(L{i}, values)")
        else:  # NOTE: a buffer's stand-in or a kernel's output, bound for this run (X.T @ e)
            lines += bound_lines(f"l{i}", load, moves, env, f"read(L{i}, values)")
    inputs = "".join(f"l{i}, " for i in range(len(loads)))
    lines.append(f"    value = contiguous(function({inputs}**kwargs), dtype)")
    lines += ["    assert value.shape == shape, (value.shape, shape)", "    return [value]"]
    exec(compile("\n".join(lines), "<lazyinfini library step>", "exec"), env)
    return env["step"]


def kernel_call(kernel, library: Library = NUMPY) -> LibraryCall:
    """The LibraryCall of an opaque kernel on `library`, worked out once per kernel and kept in
    its record (a cached schedule runs it again)."""
    call = _CALLS.get(kernel)
    if call is None or call.library is not library:
        call = _CALLS[kernel] = library_call(kernel.nodes, library, kernel.in_place)
    return call


_CALLS = Memo()


def library_call(nodes, library: Library = NUMPY, in_place=False) -> LibraryCall:
    """The LibraryCall computing `nodes` (see call_library_outputs)."""
    kwargs = dict(nodes[0].arg or ())
    kwargs.pop("_index", None)
    if in_place:
        kwargs["in_place"] = True
    name = kwargs.pop("_function", nodes[0].op.label)
    xp, op = library.namespace, nodes[0].op
    if op in library.custom:
        function = functools.partial(library.custom[op], xp)
    else:
        space = _NAMESPACES.get(op)
        function = getattr(xp if space is None else getattr(xp, space), name)
    items = tuple((dict(n.arg or ()).get("_index"), n.dtype, n.shape) for n in nodes)
    widens = _OWN_DTYPE.get(name, _WIDEN_HALF)[library is not NUMPY]
    if name in ("sum", "prod") and nodes[0].dtype not in widens and kwargs.get("dtype") == _F32:
        kwargs["dtype"] = nodes[0].dtype  # NOTE: a float16 sum in numpy's float16 loop
    return LibraryCall(function, kwargs, items, library, widens)


# Calls that numpy makes in a half float's own dtype, where float32 and one rounding differ: the
# dtypes each widens on numpy's library, and on another device's (which has no bfloat16):
# - sort: an unstable sort leaves ties (-0.0 and 0.0, equal values' indices) in the order its
#   algorithm does, a float32 sort's differ (bfloat16 still sorts in float32: ml_dtypes' sort
#   leaves NaN where it was);
# - cross: a1 * b2 - a2 * b1 with each product rounded to the dtype;
# - max, min: numpy's float16 maximum keeps the first of two equal values (-0.0 and 0.0, in
#   that order, give -0.0), its float32 one the second (ml_dtypes' bfloat16 too); exact anyway.
# - sum, prod: numpy's float16 loop adds a row it reduces in float32 (pairwise), but along an
#   axis its iterator does not make the inner loop (axis 0 of a C-ordered array) it adds row to
#   row, each sum rounded to float16; numpy's own reduce gives its bits in every layout (the
#   orders pass gives the value numpy's memory order). ml_dtypes' bfloat16 reduce rounds at
#   every step, even along a row: bfloat16 keeps float32's and one rounding (docs/numpy.md).
#   A trace is such a sum, of the diagonal's view (its inner loop runs across the diagonals).
_BFLOAT16, _WIDEN_HALF = (_dtypes.bfloat16,), (_dtypes.HALF, _dtypes.HALF)
_OWN_DTYPE = {"sort": (_BFLOAT16, _dtypes.HALF), "argsort": (_BFLOAT16, _dtypes.HALF)}
_OWN_DTYPE["partition"] = _OWN_DTYPE["sort"]  # NOTE: its introselect leaves ties as sort does
_OWN_DTYPE["cross"] = ((), _BFLOAT16)
_OWN_DTYPE["max"] = _OWN_DTYPE["min"] = ((), _dtypes.HALF)
_OWN_DTYPE["nanmax"] = _OWN_DTYPE["nanmin"] = ((), _dtypes.HALF)
_OWN_DTYPE["sum"] = _OWN_DTYPE["prod"] = _OWN_DTYPE["trace"] = (_BFLOAT16, _dtypes.HALF)
_OWN_DTYPE["var"] = _OWN_DTYPE["std"] = (_BFLOAT16, _dtypes.HALF)
# - data movement (setitem, gather, take, take_along_axis, concat, stack, repeat): nothing is
#   computed, so nothing is widened (a 2 GiB float16 update held 8 GiB more: its input and its
#   result in float32; the fuzz at large sizes peaked at 3x numpy's memory).
for _name in ("setitem", "gather", "take", "take_along_axis", "concat", "stack", "repeat"):
    _OWN_DTYPE[_name] = ((), _BFLOAT16)
_F32 = _dtypes.float32


def _widened(xp, x):
    dtype = _dtypes.compute_dtype(x.dtype)
    if type(x) is np.ndarray:  # NOTE: the method, not the namespace's function (~90 ns less)
        return x.astype(dtype, copy=False)
    return xp.astype(x, dtype, copy=False)
