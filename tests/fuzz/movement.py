"""Movement steps: views and copies that move values without computing (permute, reshape,
broadcast, slices, flip, squeeze, moveaxis, roll, concat, stack, repeat, tile, unstack); each
keeps its operand's error bound."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.fuzz.dtypes import promote
from tests.fuzz.errors import structural
from tests.fuzz.program import Builder, Reject, Value


def step_permute(b: Builder) -> None:
    x = b.pick(lambda v: v.value.ndim >= 2)
    axes = tuple(b.draw(st.permutations(range(x.value.ndim))))
    text = (
        f"{x.name}.mT" if x.value.ndim == 2 and b.flag() else f"li.permute_dims({x.name}, {axes})"
    )
    b.emit(text, x.err)


def step_reshape(b: Builder) -> None:
    x = b.pick()
    shape = x.shape
    how = b.choice(("flat", "merge", "split", "ones", "refactor"))
    if how == "flat":
        target = (-1,) if x.value.size else (0,)
    elif how == "merge" and len(shape) >= 2:
        i = b.integer(0, len(shape) - 2)
        target = shape[:i] + (shape[i] * shape[i + 1],) + shape[i + 2 :]
    elif how == "split" and shape:
        i = b.integer(0, len(shape) - 1)
        n = shape[i]
        factors = [f for f in range(1, n + 1) if n % f == 0] or [1]
        f = b.choice(factors)
        target = shape[:i] + (f, n // f if f else 0) + shape[i + 1 :]
    elif how == "ones":
        i = b.integer(0, len(shape))
        target = shape[:i] + (1,) + shape[i:]
    else:
        size = x.value.size
        target = tuple(_factor(b, size)) if size else (0, 2)
    b.emit(f"li.reshape({x.name}, {target})", x.err)


def _factor(b: Builder, size: int) -> list[int]:
    dims = []
    while size > 1 and len(dims) < 4:
        f = b.choice([d for d in range(2, min(size, 64) + 1) if size % d == 0] or [size])
        dims.append(f)
        size //= f
    if size > 1:
        dims.append(size)
    return dims or [1]


def step_broadcast(b: Builder) -> None:
    x = b.pick(lambda v: v.value.ndim <= 4 and v.value.size <= 20000)
    target = tuple(b.choice((2, 3)) if n == 1 and b.flag() else n for n in x.shape)
    if b.flag() or target == x.shape:
        target = (b.choice((2, 3)), *target)
    b.emit(f"li.broadcast_to({x.name}, {target})", x.err)


def step_slice(b: Builder) -> None:
    x = b.pick(lambda v: v.value.ndim >= 1)
    items = []
    for n in x.shape:
        kind = b.choice(("all", "range", "range", "reverse", "int"))
        if kind == "all":
            items.append(":")
        elif kind == "reverse":
            items.append(f"::{b.choice((-1, -2, -3))}")
        elif kind == "int" and n:
            items.append(str(b.integer(-n, n - 1)))
        else:
            start = b.integer(-n - 1, n + 1)
            stop = b.integer(-n - 1, n + 1)
            step = b.choice((1, 2, -1, -2, 3))
            items.append(f"{start}:{stop}:{step}")
    if b.flag():
        items.insert(b.integer(0, len(items)), "None")
    if len(items) > 1 and b.flag():  # an ellipsis for the trailing full slices
        while items and items[-1] == ":":
            items.pop()
        items.append("...")
    b.emit(f"{x.name}[{', '.join(items) or '...'}]", x.err)


def step_flip(b: Builder) -> None:
    x = b.pick(lambda v: v.value.ndim >= 1)
    if b.flag():
        b.emit(f"li.flip({x.name})", x.err)
    else:
        axis = b.integer(-x.value.ndim, x.value.ndim - 1)
        b.emit(f"li.flip({x.name}, axis={axis})", x.err)


def step_expand_squeeze(b: Builder) -> None:
    x = b.pick()
    ones = tuple(i for i, n in enumerate(x.shape) if n == 1)
    if ones and b.flag():
        axes = tuple(a for a in ones if b.flag()) or ones[:1]
        b.emit(f"li.squeeze({x.name}, axis={axes})", x.err)
    else:
        axis = b.integer(-x.value.ndim - 1, x.value.ndim)
        b.emit(f"li.expand_dims({x.name}, axis={axis})", x.err)


def step_moveaxis_roll(b: Builder) -> None:
    x = b.pick(lambda v: v.value.ndim >= 1)
    n = x.value.ndim
    if b.flag():
        b.emit(f"li.moveaxis({x.name}, {b.integer(-n, n - 1)}, {b.integer(-n, n - 1)})", x.err)
    else:
        shift = b.integer(-5, 5)
        axis = b.choice((None, *range(n)))
        b.emit(f"li.roll({x.name}, {shift}, axis={axis})", x.err)


def step_concat(b: Builder) -> None:
    x = b.pick(lambda v: v.value.ndim >= 1)
    axis = b.integer(0, x.value.ndim - 1)
    other = b.choice((f"li.flip({x.name})", f"{x.name}", None))
    if other is None:
        w = b.pick(lambda v: v.value.ndim == x.value.ndim and _joinable(v, x, axis))
        other = w.name
        err = structural((x, w))
    else:
        err = x.err
    if b.flag():
        b.emit(f"li.concat([{x.name}, {other}], axis={axis})", err)
    elif other.startswith("li.flip") or other == x.name:
        b.emit(f"li.stack([{x.name}, {other}], axis={axis})", err)
    else:
        raise Reject("stack needs one shape")


def _joinable(v: Value, x: Value, axis: int) -> bool:
    same = all(a == c for i, (a, c) in enumerate(zip(v.shape, x.shape)) if i != axis)
    return same and promote(v.dtype, x.dtype) is not None


def step_repeat_tile(b: Builder) -> None:
    x = b.pick(lambda v: 1 <= v.value.ndim and v.value.size <= 20000)
    if b.flag():
        b.emit(
            f"li.repeat({x.name}, {b.integer(0, 3)}, axis={b.integer(0, x.value.ndim - 1)})", x.err
        )
    else:
        reps = tuple(b.integer(1, 2) for _ in x.shape)
        b.emit(f"li.tile({x.name}, {reps})", x.err)


def step_unstack(b: Builder) -> None:
    x = b.pick(lambda v: v.value.ndim >= 1 and all(v.shape))
    axis = b.integer(-x.value.ndim, x.value.ndim - 1)
    if x.shape[axis] > 64:  # NOTE: an array per index: a large program's 1M-long axis is 1M
        raise Reject("unstack of a long axis")
    b.emit(f"li.unstack({x.name}, axis={axis})[{b.integer(0, x.shape[axis] - 1)}]", x.err)
