"""Creation steps: arrays made by lazyinfini itself (arange, linspace, full, the *_like
functions, eye, tril and triu)."""

from __future__ import annotations

from tests.fuzz.dtypes import BOOL, DTYPES, FLOATS, dtype_text
from tests.fuzz.numbers import fits_int
from tests.fuzz.program import Builder, Reject


def step_create(b: Builder) -> None:
    """Arrays made by lazyinfini (pending sources), sized to combine with the pool's."""
    x = b.pick()
    n = x.shape[-1] if x.shape else b.integer(0, 5)
    how = b.choice(("arange", "linspace", "full", "like", "eye", "tri"))
    dtype = b.choice(DTYPES)
    if how == "arange":
        start, step = b.integer(-3, 3), b.choice((1, 2, -1))
        text = f"li.arange({start}, {start + n * step}, {step})"
        if dtype != BOOL and (dtype in FLOATS or fits_int([start, start + n * step], dtype)):
            text = text[:-1] + f", dtype={dtype_text(dtype)})"
    elif how == "linspace":
        dtype = b.choice(FLOATS)
        ends = f"{b.scalar(dtype)}, {b.scalar(dtype)}, {n}"
        text = f"li.linspace({ends}, dtype={dtype_text(dtype)}, endpoint={b.flag()})"
    elif how == "full":
        text = f"li.full({x.shape}, {b.scalar(dtype)!r}, dtype={dtype_text(dtype)})"
    elif how == "like":
        kind = b.choice(("zeros_like", "ones_like", "full_like", "empty_like"))
        if kind == "empty_like":  # its values are undefined: only its shape and dtype
            text = f"li.zeros_like(li.empty_like({x.name}))"
        elif kind == "full_like":
            text = f"li.full_like({x.name}, {b.scalar(x.dtype)!r})"
        else:
            text = f"li.{kind}({x.name})"
    elif how == "eye":
        m = b.integer(0, 5)
        text = f"li.eye({n}, {m}, k={b.integer(-2, 2)}, dtype={dtype_text(dtype)})"
    else:
        if x.value.ndim < 2:
            raise Reject("tril needs a matrix")
        text = f"li.{b.choice(('tril', 'triu'))}({x.name}, k={b.integer(-2, 2)})"
        b.emit(text, x.err)
        return
    b.emit(text, 0.0)
