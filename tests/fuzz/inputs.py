"""Inputs: numpy arrays of every dtype in many layouts (C, F, transposed, sliced with gaps and
negative steps, broadcast, unaligned), each handed to lazyinfini by li.asarray."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from tests.fuzz.dtypes import BOOL, DTYPES, SIGNED, UNSIGNED, dtype_text
from tests.fuzz.program import Builder, Value

# Big inputs take the paths small ones never do (tiled rearrange copies, thread pools).
# Past TRANSPOSED_COPY_MIN (65536 elements: transposed loads are copied by a tiled rearrange
# first), past the fused pass's chunk (131072: several chunks) and, once, past its threads' size.
_BIG_SHAPES = (
    (256, 300),
    (64, 1030),
    (40, 41, 42),
    (2, 300, 130),
    (70000,),
    (3, 5, 4500),
    (300, 501),
    (2, 6, 130, 99),
    (1500, 1401),
)
# Sides of small and of medium inputs (a few thousand elements: more chances for a rounding).
_SIDES = {"small": (3, 4, 2, 5, 1, 6, 7), "medium": (8, 12, 16, 5, 24, 3, 1, 9, 31)}


def _slice_text(n: int, step: int, offset: int) -> str:
    if step > 0:
        return f"{offset}:{offset + n * step}:{step}"
    start = offset + n * -step - 1
    stop = offset - 1 if offset else None
    return f"{start}:{'' if stop is None else stop}:{step}"


def draw_inputs(b: Builder) -> None:
    """One to three inputs: the first of a drawn shape and dtype, the others of the same, a
    broadcastable or another shape, and the same or another dtype."""
    count = b.integer(1, 3)
    b.empty = not b.big and b.integer(0, 11) == 11
    b.scale = b.choice(("small", "medium"))
    shape = b.choice(_BIG_SHAPES) if b.big else _draw_shape(b)
    dtype = b.choice(DTYPES)
    for i in range(count):
        if i:
            shape = _related_shape(b, shape)
            dtype = dtype if b.flag() else b.choice(DTYPES)
        _add_input(b, shape, dtype)


def _draw_shape(b: Builder) -> tuple[int, ...]:
    ndim = b.choice((1, 2, 2, 3, 3, 4, 0, 5))
    shape = [b.choice(_SIDES[b.scale]) for _ in range(ndim)]
    while math.prod(shape) > 20000:
        shape[shape.index(max(shape))] //= 2
    if shape and b.empty:
        shape[b.integer(0, ndim - 1)] = 0
    return tuple(shape)


def _related_shape(b: Builder, shape):
    how = b.choice(("same", "broadcast", "other"))
    if how == "same":
        return shape
    if how == "broadcast":
        drop = b.integer(0, len(shape))
        return tuple(1 if b.flag() else n for n in shape[drop:])
    return _draw_shape(b) if not b.big else shape


def _add_input(b: Builder, shape, dtype) -> None:
    i = len(b.inputs)
    expression = _input_expression(b, shape, dtype)
    x = eval(expression, b.namespace)
    b.namespace[f"x{i}"] = x
    b.inputs.append(np.array(x, copy=True))
    b.numpy_inputs.append(Value(f"x{i}", np.asarray(x), 0.0))
    b.lines.append(f"x{i} = {expression}")
    b.emit(f"li.asarray(x{i})", 0.0)


def _input_expression(b: Builder, shape, dtype) -> str:
    layout = b.choice(("C", "F", "view", "view", "broadcast", "unaligned") if shape else ("C",))
    if layout == "C":
        return _values_expression(b, shape, dtype)
    if layout == "unaligned" and dtype.itemsize > 1:  # random bits, one byte off alignment
        size = math.prod(shape) * dtype.itemsize + 1
        raw = f"rng({b.seed()}).integers(0, 256, {size}, dtype=np.uint8).tobytes()[1:]"
        return f"np.frombuffer({raw}, dtype={dtype_text(dtype)}).reshape({shape})"
    if layout == "F":
        return f"np.asfortranarray({_values_expression(b, shape, dtype)})"
    return _view_expression(b, shape, dtype, layout)


def _view_expression(b: Builder, shape, dtype, layout: str) -> str:
    """A view of a larger buffer: sliced with gaps, offsets and negative steps, its axes
    permuted, and (layout "broadcast") some sides broadcast from 1."""
    broadcast = [layout == "broadcast" and b.flag() for _ in shape]
    source = tuple(1 if one else n for one, n in zip(broadcast, shape))
    axes = b.draw(st.permutations(range(len(shape))))
    base = [0] * len(shape)
    for i, a in enumerate(axes):
        base[a] = source[i]
    steps = [b.choice((1, 1, 2, 3, -1, -2)) for _ in base]
    offsets = [b.integer(0, 1) for _ in base]
    buffer = tuple(o + n * abs(s) for n, s, o in zip(base, steps, offsets))
    key = ", ".join(_slice_text(n, s, o) for n, s, o in zip(base, steps, offsets))
    text = f"{_values_expression(b, buffer, dtype)}[{key}]"
    if list(axes) != sorted(axes):
        text += f".transpose({tuple(axes)})"
    if any(broadcast):
        text = f"np.broadcast_to({text}, {shape})"
    return text


def _values_expression(b: Builder, shape, dtype) -> str:
    r = f"rng({b.seed()})"
    dt = dtype_text(dtype)
    if dtype == BOOL:
        return f"({r}.random({shape}) < 0.5)"
    kind = b.choice(("small", "normal", "small", "normal", "special", "bytes"))
    if kind == "bytes":
        size = math.prod(shape) * dtype.itemsize
        return f"{r}.integers(0, 256, {size}, dtype=np.uint8).view({dt}).reshape({shape})"
    if dtype in SIGNED + UNSIGNED:
        info = np.iinfo(dtype)
        low, high = (info.min, info.max) if kind != "small" else (max(info.min, -6), 6)
        return f"{r}.integers({low}, {high}, {shape}, dtype={dt}, endpoint=True)"
    if kind == "small":  # multiples of 1/2: sums are exact in any order
        return f"({r}.integers(-12, 13, {shape}) / 2).astype({dt})"
    normal = f"{r}.standard_normal({shape}) * 4"
    if kind == "normal":
        return f"({normal}).astype({dt})"
    special = "np.array([np.nan, np.inf, -np.inf, 0.0, -0.0])"
    where = f"rng({b.seed()}).random({shape}) < 0.25"
    chosen = f"rng({b.seed()}).choice({special}, {shape})"
    return f"np.where({where}, {chosen}, {normal}).astype({dt})"
