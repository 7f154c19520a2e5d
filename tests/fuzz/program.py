"""Programs and the Builder that draws them: values with their error bounds, operands, and the
recording of each step as it is evaluated on the reference device."""

from __future__ import annotations

import ast
import dataclasses
import re
import warnings

import numpy as np
from hypothesis import strategies as st

import lazyinfini as li
from tests.fuzz.dtypes import BOOL, SIGNED, UNSIGNED, broadcasts, promotes_into
from tests.fuzz.numbers import eps, magnitude


@dataclasses.dataclass(eq=False)
class Value:
    """A name of the program, its value on the reference device, and the largest difference
    another device may show (0: bit for bit)."""

    name: str
    value: np.ndarray
    err: float

    @property
    def shape(self):
        return self.value.shape

    @property
    def dtype(self):
        return self.value.dtype

    @property
    def exact(self) -> bool:
        return self.err == 0


class Reject(Exception):
    """The drawn step is not taken (invalid here, or its result would not be comparable)."""


@dataclasses.dataclass(frozen=True)
class Program:
    source: str
    inputs: tuple[np.ndarray, ...]  # the numpy inputs x0, x1, ... as first made
    outputs: tuple[Value, ...]

    def run(self, device: str, fuse: bool = True) -> list[np.ndarray]:
        """The outputs of the program run from fresh inputs on `device`."""
        namespace = _namespace()
        with li.options(device=device, fuse=fuse), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # numpy's, on empty means and such
            exec(compile(self.source, "<fuzz program>", "exec"), namespace)
        for i, x in enumerate(self.inputs):  # functional updates never write to the caller's
            assert np.asarray(namespace[f"x{i}"]).tobytes() == x.tobytes(), f"x{i} was changed"
        return namespace["outputs"]


def _namespace() -> dict:
    return {"li": li, "np": np, "rng": np.random.default_rng}


@dataclasses.dataclass(frozen=True)
class Literal:
    """A numpy scalar operand: its source text and value."""

    text: str
    value: np.generic


def name_of(operand) -> str:
    if isinstance(operand, Value):
        return operand.name
    if isinstance(operand, Literal):
        return operand.text
    return f"({operand!r})" if operand < 0 else repr(operand)  # -2 ** x is -(2 ** x)


def value_of(operand) -> np.ndarray:
    return np.asarray(operand.value if isinstance(operand, (Value, Literal)) else operand)


def dtype_of(operand):
    """The operand as li.result_type takes it: a dtype, or a (weak) Python scalar."""
    return operand.value.dtype if isinstance(operand, (Value, Literal)) else operand


def err_of(operand) -> float:
    return operand.err if isinstance(operand, Value) else 0.0


class Builder:
    """Draws one program: inputs, then steps, each evaluated on the reference device."""

    def __init__(self, data, big: bool = False):
        self.data = data
        self.big = big
        self.pool: list[Value] = []
        self.lines: list[str] = []
        self.inputs: list[np.ndarray] = []
        self.namespace = _namespace()
        self.seeds = 0
        self.names = 0
        self.used: set[str] = set()  # names a later step reads
        self.numpy_inputs: list[Value] = []  # x0, x1, ...: numpy operands of binary ops
        self.empty = False  # whether this program's shapes may have a 0 side
        self.scale = "small"  # the sides its shapes draw from (SIDES), drawn with the inputs

    # choices (hypothesis draws, so failures shrink)
    def draw(self, strategy):
        return self.data.draw(strategy)

    def choice(self, options):
        return self.draw(st.sampled_from(options))

    def flag(self) -> bool:
        return self.draw(st.booleans())

    def integer(self, low: int, high: int) -> int:
        return self.draw(st.integers(low, high))

    def pick(self, ok=lambda v: True) -> Value:
        """A pool value satisfying `ok`, the most recent ones first (chains of steps)."""
        candidates = [v for v in self.pool if ok(v)]
        if not candidates:
            raise Reject("no operand")
        back = min(self.integer(0, len(candidates) - 1), self.integer(0, len(candidates) - 1))
        return candidates[-1 - back]

    def writable(self, v: Value) -> bool:
        """Whether `v` takes writes: a broadcast view is read-only, as numpy's."""
        view = getattr(self.namespace.get(v.name), "_view", None)
        return view is None or not view.readonly

    def seed(self) -> int:
        self.seeds += 1
        return self.seeds

    # recording
    def _new_name(self) -> str:
        self.names += 1
        return f"v{self.names - 1}"

    def rebind(self, name: str, err: float) -> None:
        """`name` holds a new value (setitem): the old one leaves the pool. Values sharing its
        memory (its base and views, as numpy's) hold new values too: re-read in place."""
        written = self.namespace[name]
        self.pool = [v for v in self.pool if v.name != name]
        for i, v in enumerate(self.pool):
            if _shares_memory(self.namespace.get(v.name), written):
                self.pool[i] = Value(v.name, self.evaluate(v.name), max(v.err, err))
                self.used.discard(v.name)
        self.pool.append(Value(name, self.evaluate(name), err))
        self.used.discard(name)

    def evaluate(self, expression: str) -> np.ndarray:
        with li.options(device="reference"):
            return np.array(eval(expression, self.namespace), copy=True)

    def emit(self, expression: str, err) -> Value:
        """Evaluate `expression` as a new value; `err(out)` is its error bound (Reject: drop)."""
        with li.options(device="reference"):
            array = eval(expression, self.namespace)
            out = np.array(array, copy=True)  # NOTE: a copy, never a view of a buffer it shares
        bound = float(err(out)) if callable(err) else float(err)
        name = self._new_name()
        self.namespace[name] = array
        value = Value(name, out, bound)
        self.pool.append(value)
        self.lines.append(f"{name} = {expression}")
        self.used.update(_names(expression))
        return value

    def emit_statement(self, statement: str) -> None:
        with li.options(device="reference"):
            exec(statement, self.namespace)
        self.lines.append(statement)
        if not statement.startswith("li.compute") and not statement.endswith(".compute()"):
            self.used.update(_names(statement))

    # the program
    def build(self, choices, steps: int, outputs: int) -> Program:
        """After the inputs (tests/fuzz/inputs.py), `steps` steps drawn from `choices` (a
        theme's step functions, repeated by weight), then the outputs."""
        for _ in range(steps):
            for _attempt in range(4):
                step = self.choice(choices)
                try:
                    with np.errstate(all="ignore"), warnings.catch_warnings():
                        warnings.simplefilter("ignore", RuntimeWarning)  # empty means, overflows
                        step(self)
                    break
                except Reject:
                    continue
                except Exception as error:  # a library error while drawing: show the program
                    error.add_note("while drawing a step after:\n" + "\n".join(self.lines))
                    raise
        return self._finish(outputs)

    def _finish(self, extra: int) -> Program:
        """The outputs: every computed value no step reads, and `extra` more of any."""
        computed = self.pool[len(self.inputs) :] or self.pool[-1:]
        chosen = [v for v in computed if v.name not in self.used] or computed[-1:]
        for _ in range(extra):
            try:
                chosen.append(self.pick(lambda v: v not in chosen))
            except Reject:
                break
        if self.flag():
            chosen.reverse()
        names = ", ".join(v.name for v in chosen)
        # Out through __array__ or DLPack (not bfloat16: numpy has no DLPack code for it).
        reads = ", ".join(
            f"np.from_dlpack({v.name})"
            if v.dtype != li.bfloat16 and self.integer(0, 3) == 0
            else f"np.asarray({v.name})"
            for v in chosen
        )
        end = [f"outputs = [{reads}]"]
        if len(chosen) > 1 and self.flag():
            end.insert(0, f"li.compute({names})")
        if self.integer(0, 4) == 0:  # the plan prints for every program (nothing runs)
            end.insert(0, f"li.explain({names})")
        source = "\n".join(["# lazyinfini fuzz program", *self.lines, *end]) + "\n"
        return Program(source, tuple(self.inputs), tuple(chosen))

    # operands
    def scalar(self, dtype):
        """A Python scalar that combines with an array of `dtype`."""
        if dtype == BOOL:
            return self.flag()
        if dtype in UNSIGNED:
            return self.integer(0, 5)
        if dtype in SIGNED:
            return self.integer(-5, 5)
        return self.choice((0.5, -1.5, 2, 0.1, 1000.0, 0.3, 3.0, -2, 1e-3, 0.0, 7.25, 1.1))

    def partner(self, a: Value, dtypes) -> Value | object:
        """A second operand for `a`: a pool value that broadcasts and promotes, a numpy input
        (numpy calls lazyinfini back through __array_ufunc__), or a Python or numpy scalar."""

        def fits(v):
            return (
                v.dtype in dtypes
                and broadcasts(v.shape, a.shape)
                and promotes_into(a.dtype, v.dtype, dtypes)
            )

        how = self.integer(0, 9)
        if how < 6:
            try:
                return self.pick(fits)
            except Reject:
                pass
        if how == 6:
            numpy_inputs = [v for v in self.numpy_inputs if fits(v)]
            if numpy_inputs:
                return self.choice(numpy_inputs)
        if how == 7 and a.dtype != li.bfloat16:
            scalar = self.scalar(a.dtype)
            return Literal(f"np.{a.dtype.name}({scalar!r})", a.dtype.type(scalar))
        return self.scalar(a.dtype)


def _shares_memory(a, b) -> bool:
    """Whether two arrays share memory: a base and its views (lazyinfini/_api/views.py)."""
    views = [getattr(x, "_view", None) for x in (a, b)]
    return None not in views and views[0].storage is views[1].storage


def _names(text: str) -> set[str]:
    return set(re.findall(r"\bv\d+\b", text))


def program_from_source(source: str, exact: bool = True) -> Program:
    """A written program (a reproducer) with the reference's outputs: bit for bit when `exact`,
    else within 16 ulps of each output's magnitude."""
    namespace, inputs = _namespace(), []
    with li.options(device="reference"):
        for statement in ast.parse(source).body:
            exec(compile(ast.Module([statement], []), "<fuzz program>", "exec"), namespace)
            if f"x{len(inputs)}" in namespace:  # captured as made, before any step runs
                inputs.append(np.array(namespace[f"x{len(inputs)}"], copy=True))
    outputs = []
    for i, out in enumerate(namespace["outputs"]):
        out = np.asarray(out)
        err = 0.0 if exact else 16 * eps(out.dtype) * max(1.0, magnitude(out))
        outputs.append(Value(f"outputs[{i}]", out, err))
    return Program(source, tuple(inputs), tuple(outputs))
