"""Frozen records the scheduler hands to executors: kernels and the schedule."""

from __future__ import annotations

import enum
import functools
import math
from dataclasses import dataclass, field

from .._graph import Node, Op


class Kind(enum.Enum):
    SOURCE = "source"  # a fill or a range
    ELEMENTWISE = "elementwise"  # one pass over the output, any number of fused nodes
    VIEW = "view"  # movement ops that need no copy: a strided view of the input
    REARRANGE = "rearrange"  # a layout copy into a new buffer, following a RearrangePlan
    OPAQUE = "opaque"  # one library call
    REDUCE = "reduce"  # a sum or mean over the last axes fed by a fused elementwise group

    # NOTE: identity hashing (members are singletons): Enum's __hash__ is Python code, and the
    # run loop looks up a handler by kind for every kernel it runs.
    __hash__ = object.__hash__


@dataclass(frozen=True, eq=False)
class Kernel:
    """Nodes evaluated together. `nodes` are in evaluation order; `outputs` leave the kernel;
    `loads` are the values it reads from buffers or from earlier kernels."""

    kind: Kind
    nodes: tuple[Node, ...]
    outputs: tuple[Node, ...]
    loads: tuple  # Load records: each a view of a materialized base
    plan: object = None  # RearrangePlan for REARRANGE kernels, Reduction for REDUCE ones
    space: tuple[int, ...] = ()  # the coalesced iteration space of an ELEMENTWISE kernel
    method: str = ""  # how a REARRANGE kernel copies: "direct" or "tiled" (copy_method)
    program: object = None  # an ELEMENTWISE kernel's register program (linearize.Program)
    in_place: bool = False  # an OPAQUE update writing into its first load's buffer (in_place.py)
    streams: bool = False  # outputs written with non-temporal stores (Target.stream_min_bytes)

    @functools.cached_property
    def reads(self) -> tuple[Node, ...]:
        """The materialized values this kernel reads."""
        return tuple(load.base for load in self.loads)

    @property
    def intermediates(self) -> tuple[Node, ...]:
        return tuple(n for n in self.nodes if n not in self.outputs)

    @functools.cached_property
    def bytes_written(self) -> int:
        return 0 if self.kind is Kind.VIEW else sum(n.nbytes for n in self.outputs)

    @functools.cached_property
    def bytes_read(self) -> int:
        """Each distinct element read once: a broadcast (stride-0) dim is not counted."""
        if self.kind is Kind.VIEW:
            return 0
        total = 0
        for load in self.loads:
            dims = [d for d, s in zip(load.shape, load.strides) if s]
            total += math.prod(dims) * load.node.dtype.itemsize
        return total

    @property
    def name(self) -> str:
        return "_".join(dict.fromkeys(op_name(n) for n in self.nodes))

    def __repr__(self) -> str:
        out = self.outputs[0]
        shape = "x".join(map(str, out.shape)) or "scalar"
        return (
            f"Kernel({self.kind.value} {self.name} -> {shape} {out.dtype.name}, "
            f"{len(self.nodes)} nodes, {len(self.loads)} loads)"
        )


@dataclass(frozen=True, eq=False)
class Reduction:
    """A REDUCE kernel's two parts: `prologue`, the ELEMENTWISE kernel computing the summed
    value over the space (the sum's kept dims..., row length), and `total`, the OPAQUE kernel
    summing (or averaging) its rows (numpy's call). A compiling device runs them as one pass,
    summing each row in numpy's pairwise order; any device may run them one after the other."""

    prologue: Kernel
    total: Kernel

    @property
    def rows(self) -> int:
        return math.prod(self.prologue.space[:-1])

    def __repr__(self) -> str:
        length = self.prologue.space[-1]
        return f"Reduction({self.prologue.name} -> {self.total.name}, {self.rows} rows of {length})"


def op_name(node: Node) -> str:
    """The op's name; for linalg/fft nodes, the function's ("linalg.qr")."""
    if isinstance(node.arg, tuple):
        for item in node.arg:
            if isinstance(item, tuple) and len(item) == 2 and item[0] == "_function":
                return f"{node.op.label}.{item[1]}"
    return node.op.label


@dataclass(frozen=True)
class FusionDecision:
    """Why `producer` was or was not fused into `consumer`'s kernel."""

    producer: Node
    consumer: Node
    fused: bool
    reason: str

    def __repr__(self) -> str:
        verdict = "fused" if self.fused else "split"
        return f"{verdict}: {self.producer!r} -> {self.consumer!r} ({self.reason})"


@dataclass(frozen=True)
class Schedule:
    """Kernels in order; frees[i] are values no longer needed after kernels[i]."""

    kernels: tuple[Kernel, ...]
    requested: tuple[Node, ...]  # what realize() asked for
    outputs: tuple[Node, ...]  # the node holding each requested value (after simplification)
    frees: tuple[tuple[Node, ...], ...]
    decisions: tuple[FusionDecision, ...] = field(default=())
    rewrites: tuple[str, ...] = field(default=())
    kept: tuple[Node, ...] = field(default=())  # kernel outputs also returned: arrays hold them
    held: tuple[Node, ...] = field(default=())  # the node each of `kept` was in the graph given

    @property
    def buffers(self) -> tuple[Node, ...]:
        """The realized buffers the schedule reads."""
        seen = dict.fromkeys(n for k in self.kernels for n in k.reads if n.op is Op.BUFFER)
        return tuple(seen)
