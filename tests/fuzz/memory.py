"""Steps about materialization and memory: li.compute mid-program, copies that own their
memory, arrays handed to numpy, del, and Python scalars read out of pending arrays."""

from __future__ import annotations

import lazyinfini as li
from tests.fuzz.dtypes import DTYPES, FLOATS, REAL, UNSIGNED, dtype_text
from tests.fuzz.errors import LIPSCHITZ, propagate
from tests.fuzz.numbers import fits_int
from tests.fuzz.program import Builder, Reject


def step_compute(b: Builder) -> None:
    """Materialize some values mid-program (later steps read them as buffers), sometimes
    with fusion switched (the numbers must not change)."""
    chosen = {b.pick().name for _ in range(b.integer(1, 3))}
    if len(chosen) == 1 and b.flag():
        statement = f"{chosen.pop()}.compute()"
    else:
        statement = f"li.compute({', '.join(sorted(chosen))})"
    switch = b.choice((None, None, "fuse=False", "fuse=True", "device='reference'", "pool_bytes=0"))
    b.emit_statement(f"with li.options({switch}): {statement}" if switch else statement)


def step_copy(b: Builder) -> None:
    """Copies own their memory: an array made with copy=True keeps its values when the numpy
    array it came from is written to afterwards."""
    x = b.choice(b.numpy_inputs)
    name = f"y{b.seed()}"
    view = b.choice(("", "[::-1]", ".T", "[..., ::2]") if x.value.ndim else ("",))
    b.emit_statement(f"{name} = np.array({x.name}){view}")
    how = b.choice(("copy", "copy of an array", "astype", "dtype"))
    if how == "copy":
        text = f"li.asarray({name}, copy=True)"
    elif how == "copy of an array":
        text = f"li.asarray(li.asarray({name}), copy=True)"
    elif how == "astype":
        text = f"li.astype(li.asarray({name}), {dtype_text(x.dtype)})"
    else:
        dtype = b.choice(DTYPES)
        if dtype == x.dtype or not li.can_cast(x.dtype, dtype):
            # Note (spec): asarray of the same dtype may share the numpy array's memory.
            raise Reject("asarray converts only where promotion would")
        text = f"li.asarray({name}, dtype={dtype_text(dtype)})"
    b.emit(text, 0.0)
    b.emit_statement(f"{name}[...] = 0")


def step_escape(b: Builder) -> None:
    """A value handed to numpy (by __array__ or DLPack) cannot be written through: the numpy
    array is read-only, or writing to it leaves the lazyinfini array as it was."""
    x = b.pick()
    read = "asarray" if x.dtype == li.bfloat16 or b.flag() else "from_dlpack"
    name = f"e{b.seed()}"
    b.emit_statement(f"{name} = np.{read}({x.name})")
    b.emit_statement(f"if {name}.flags.writeable: {name}[...] = 0")
    after = b.evaluate(x.name)
    assert after.tobytes() == x.value.tobytes(), f"writing to np.{read}({x.name}) changed it"


def step_forget(b: Builder) -> None:
    """`del` a value: what was recorded from it must not care (weakly held bookkeeping)."""
    x = b.pick(lambda v: v.name in b.used)
    b.emit_statement(f"del {x.name}")
    b.pool = [v for v in b.pool if v.name != x.name]


def step_item(b: Builder) -> None:
    """A Python scalar out of a pending array (an implicit materialization) used as an operand."""
    x = b.pick(lambda v: v.dtype in REAL and v.value.size and v.exact)
    y = b.pick(lambda v: (v.dtype in FLOATS) == (x.dtype in FLOATS) and v.dtype in REAL)
    convert = "float" if x.dtype in FLOATS else "int"
    scalar = f"{convert}(li.{b.choice(('max', 'min'))}({x.name}))"
    if y.dtype in UNSIGNED or (convert == "int" and not fits_int(x.value, y.dtype)):
        raise Reject("the scalar does not fit y's dtype")
    b.emit(f"li.subtract({y.name}, {scalar})", propagate((y,), LIPSCHITZ["max"]))
