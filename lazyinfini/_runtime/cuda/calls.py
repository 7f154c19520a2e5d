"""What the cuda device computes through its backend's Array API namespace (`xp`) rather than
with kernels of its own: views, sources, library calls, and the elementwise kernels that have no
CUDA form (complex dtypes, ...), node by node as the reference device computes them.

Everything here takes arrays of the device and returns arrays of the device: nothing is copied
to the host (a fill's value, a Python scalar, is copied to the device).
"""

from __future__ import annotations

from ... import _dtypes
from ..._graph import Node, Op
from ..._graph.views import apply_movement
from .. import indexing
from ..library import Library
from ..ufuncs import own_dtype

# -- views ---------------------------------------------------------------------------------------


def load_view(load, values: dict, value_of, xp):
    """A kernel's load: its base's value seen through the load's movement chain (numpy's view
    rules, in the namespace: _graph/views.py)."""
    view = value_of(values, load.base)
    for step in load.chain:
        view = apply_movement(step, view, xp)
    return view


# -- sources -------------------------------------------------------------------------------------


def source_value(node: Node, xp):
    """An arange, eye or linspace node's value, made on the device by the reference device's
    formulas (reference.py): the same values wherever the namespace rounds as numpy does."""
    if node.op is Op.ARANGE:
        start, step = node.arg
        integral = node.dtype in _dtypes.INTEGER
        wide = _dtypes.DEFAULT_INT if integral else _dtypes.DEFAULT_FLOAT
        values = xp.add(xp.multiply(xp.arange(node.shape[0], dtype=wide), step), start)
        return xp.astype(values, node.dtype)
    if node.op is Op.EYE:
        return xp.eye(*node.shape, k=node.arg[0], dtype=node.dtype)
    assert node.op is Op.LINSPACE, node
    start, stop, endpoint = node.arg
    complex_ = node.dtype in _dtypes.COMPLEX
    wide = _dtypes.DEFAULT_COMPLEX if complex_ else _dtypes.DEFAULT_FLOAT
    values = xp.linspace(start, stop, node.shape[0], endpoint=endpoint, dtype=wide)
    # Integer outputs round down (numpy 2's rule), as the reference device's.
    if node.dtype in _dtypes.INTEGER:
        values = xp.floor(values)
    return xp.astype(values, node.dtype)


# -- library calls -------------------------------------------------------------------------------


def library_of(xp, contiguous) -> Library:
    """The device's Library (library.py): calls in `xp`, the ops that are no plain call there
    written with its functions, results made C-contiguous by `contiguous`."""
    calls = _Calls(xp)
    custom = {
        Op.GATHER: indexing.gather,  # NOTE: x[key]: indexing is the namespace's own
        Op.SETITEM: calls.setitem,
        Op.CONCAT: calls.concat,
        Op.STACK: calls.stack,
        Op.SORT: calls.sort,
        Op.SEARCHSORTED: calls.searchsorted,
        Op.DIFF: calls.diff,
    }
    return Library(xp, custom, contiguous)


class _Calls:
    """The host devices' custom calls (indexing.py, joining.py, sorting.py, differences.py),
    which use numpy's functions, written with the namespace's."""

    def __init__(self, xp):
        self.xp = xp

    def setitem(self, x, value, *indices, key: tuple):
        out = self.xp.asarray(x, copy=True)
        try:
            # NOTE: the key's layout is indexing.py's (one reader of it: its _key)
            out[indexing._key(key, indices)] = value
        except IndexError as exc:
            raise IndexError(f"__setitem__: {exc}") from None
        return out

    def concat(self, *arrays, axis: int):
        return self.xp.concat(arrays, axis=axis)

    def stack(self, *arrays, axis: int):
        return self.xp.stack(arrays, axis=axis)

    def sort(self, x, *, axis: int, descending: bool, stable: bool):
        xp = self.xp
        if not descending:
            return xp.sort(x, axis=axis, stable=stable)
        # Note (spec): a descending sort is stable too: sorting the reversed input stably and
        # reversing the result keeps equal elements in their order (sorting.py).
        flipped = xp.sort(xp.flip(x, axis=axis), axis=axis, stable=stable)
        return xp.flip(flipped, axis=axis)

    def searchsorted(self, x1, x2, *sorter, side: str):
        return self.xp.searchsorted(x1, x2, side=side, sorter=sorter[0] if sorter else None)

    def diff(self, x, *edge_values, axis: int, n: int, edges: tuple):
        named = dict(zip(edges, edge_values, strict=True))
        parts = [p for p in (named.get("prepend"), x, named.get("append")) if p is not None]
        joined = self.xp.concat(parts, axis=axis) if named else x
        return self.xp.diff(joined, axis=axis, n=n)


# -- elementwise kernels without a CUDA form -----------------------------------------------------


def evaluate_kernel(kernel, loads: list, library: Library) -> list:
    """An elementwise kernel's outputs from its loads' values, node by node through the
    namespace, each node's result rounded to its dtype: the reference device's arithmetic."""
    xp = library.namespace
    registers = dict(enumerate(loads))
    for step in kernel.program.steps:
        registers[step.dst] = evaluate(step.node, [registers[r] for r in step.srcs], xp)
    outputs = zip(kernel.program.outputs, kernel.outputs)
    return [library.contiguous(registers[r], node.dtype) for r, node in outputs]


def evaluate(node: Node, inputs: list, xp):
    """One elementwise node's value (ufuncs.py's numpy table, in the namespace)."""
    if node.op is Op.ASTYPE:
        return xp.astype(inputs[0], node.dtype)
    if not own_dtype(node):
        inputs = [xp.astype(x, _dtypes.compute_dtype(x.dtype), copy=False) for x in inputs]
    special = _SPECIAL.get(node.op)
    result = special(node, inputs, xp) if special else getattr(xp, node.op.label)(*inputs)
    return xp.astype(result, node.dtype, copy=False)


def _clip(node: Node, inputs: list, xp):
    x, *bounds = inputs
    has_min, has_max = node.arg
    # NOTE: one bound is maximum or minimum, as the reference's clip (ufuncs.py)
    if not has_max:
        return xp.maximum(x, bounds[0])
    if not has_min:
        return xp.minimum(x, bounds[0])
    return xp.clip(x, *bounds)


def _floor_divide(node: Node, inputs: list, xp):
    x1, x2 = inputs
    out = xp.floor_divide(x1, x2)
    if not xp.isdtype(out.dtype, "real floating"):
        return out
    # Note (spec): an infinite over a finite (or the reverse) is x1 / x2 (ufuncs.py).
    inf1, inf2 = xp.isinf(x1), xp.isinf(x2)
    finite2 = xp.logical_and(xp.isfinite(x2), xp.not_equal(x2, 0))
    mixed = xp.logical_or(xp.logical_and(inf1, finite2), xp.logical_and(xp.isfinite(x1), inf2))
    return xp.where(mixed, xp.divide(x1, x2), out)


def _expm1(node: Node, inputs: list, xp):
    (x,) = inputs
    out = xp.expm1(x)
    if not xp.isdtype(out.dtype, "complex floating"):
        return out
    # Note (spec): exp(z) - 1 where a part is infinite or NaN; +0 + 0j at zero (ufuncs.py).
    out = xp.where(xp.isfinite(x), out, xp.subtract(xp.exp(x), 1))
    zero = xp.logical_and(xp.equal(x, 0), xp.logical_not(xp.signbit(xp.imag(x))))
    return xp.where(zero, xp.zeros_like(out), out)


def _tanh(node: Node, inputs: list, xp):
    (x,) = inputs
    out = xp.tanh(x)
    if not xp.isdtype(out.dtype, "complex floating"):
        return out
    # Note (spec): tanh(+inf + yj) for finite y > 0 is 1 + 0j (ufuncs.py).
    re, im = xp.real(x), xp.imag(x)
    positive_inf = xp.logical_and(xp.isinf(re), xp.greater(re, 0))
    fix = xp.logical_and(positive_inf, xp.logical_and(xp.isfinite(im), xp.greater(im, 0)))
    return xp.where(fix, xp.ones_like(out), out)


_SPECIAL = {
    Op.CLIP: _clip,
    Op.FLOOR_DIVIDE: _floor_divide,
    Op.EXPM1: _expm1,
    Op.TANH: _tanh,
}
