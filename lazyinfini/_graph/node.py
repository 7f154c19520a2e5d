"""The IR node: a frozen, identity-hashed record of one recorded operation."""

from __future__ import annotations

import functools
import math
import os
import struct
import sys
import weakref
from dataclasses import FrozenInstanceError, dataclass
from typing import Any, NamedTuple

import numpy as np

from .memories import HOST, memory_of
from .memories import OWN as _OWN
from .ops import Op

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class BufferLayout:
    """What scheduling reads of a buffer: its strides and how far past a 64-byte boundary it
    starts. A cached schedule's stand-in for the ndarray: it must keep no user data alive."""

    strides: tuple[int, ...]
    misalignment: int


@dataclass(eq=False)  # NOTE: not frozen (a frozen init costs ~1 us, twice a run); never changed
class Buffer:
    """A BUFFER node's payload: the device holding it, its data there (a numpy array on the
    host), and its layout. A cached schedule's stand-in has no data: it must keep none alive."""

    device: str
    data: Any
    known_layout: BufferLayout | None = None  # a stand-in's; data's is read when first asked

    @functools.cached_property
    def layout(self) -> BufferLayout:
        # NOTE: lazily: a cached schedule's hit reads only strides, and most buffers a run makes
        # are never scheduled again (reading the address costs a microsecond).
        if self.known_layout is not None:
            return self.known_layout
        return BufferLayout(tuple(self.data.strides), _address(self.data) % 64)

    @property
    def strides(self) -> tuple[int, ...]:
        """The layout's strides, without reading the address (the cache key's share)."""
        known = self.known_layout
        return known.strides if known is not None else tuple(self.data.strides)

    def __repr__(self) -> str:
        return f"Buffer({self.device}, strides={self.layout.strides})"


class Node:
    """One operation: `op` applied to `srcs`, giving an array of `shape` and `dtype`.

    `arg` holds the op's parameters (axes, a fill value, the realized ndarray of a BUFFER);
    `source` is the user's file:line that recorded it. Equality is identity; a node is frozen
    (the links below are written through late_write, never by attribute assignment).
    """

    # NOTE: slots, not a dict: every field at a fixed place, which the C scan and operators
    # read without a dict lookup (a cached lookup of a 38-node step made ~250 of them), and a
    # node is made without one (recording makes one per op).
    __slots__ = (
        *("op", "srcs", "shape", "dtype", "arg", "source"),
        # links a materialization writes late (the one kind of late write)
        "realized",  # the BUFFER node replacing this one once computed
        "holder",  # a weak reference to the last Array made to hold this node
        "evaluated",  # some materialization computed it (it may have to again: _cache.py)
        # facts worked out once, where first asked for (unset until then)
        *("memory", "arg_key", "part", "own_fill", "slice_key", "siblings"),
        # the last compiled scan placing it, and where in that scan's order (native_scan.py)
        *("scan", "position"),
        "__weakref__",
    )

    def __new__(cls, op, srcs, shape, dtype, arg=None, source=""):
        node = _made(op, srcs, shape, dtype, arg, source)
        # NOTE: below the API only invariants are asserted; users see errors from _api.
        assert op.arity < 0 or len(srcs) == op.arity, (op, len(srcs))
        assert all(type(d) is int and d >= 0 for d in shape), shape
        if _OWN:  # NOTE: some array lives in a memory of its own: no silent mixing (memories.py)
            memory_of(node)
        return node

    def __setattr__(self, name: str, value) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}: a Node is frozen")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}: a Node is frozen")

    def __reduce__(self):
        # NOTE: a copy or a pickle (a dask graph's) is made as a new node is: through _made
        fields = (self.op, self.srcs, self.shape, self.dtype, self.arg, self.source)
        return (_revived, (*fields, {name: getattr(self, name) for name in _LATE}))

    @property
    def layout(self) -> BufferLayout:
        """A BUFFER's strides and alignment: all that scheduling reads of its data."""
        return self.arg.layout

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def __repr__(self) -> str:
        shape = "x".join(map(str, self.shape)) or "scalar"
        return f"{self.op.label}#{id(self) % 100000:05d}({shape} {self.dtype.name})"


class _Draft(Node):
    """A Node while it is made: the one writable kind (its class becomes Node when done)."""

    __slots__ = ()
    __setattr__ = object.__setattr__


_LATE = ("realized", "evaluated")  # NOTE: what a copy keeps (a weak reference cannot)
# A node's late write (a link, a fact worked out once): Node.__setattr__ refuses every other
late_write = object.__setattr__


def _made(op, srcs, shape, dtype, arg, source) -> Node:
    """A Node of these fields, its links unset (realized and holder None, evaluated False)."""
    node = _new(_Draft)
    node.op, node.srcs, node.shape, node.dtype, node.arg, node.source = (
        op, srcs, shape, dtype, arg, source,
    )  # fmt: skip
    node.realized = node.holder = None
    node.evaluated = False
    node.__class__ = Node
    return node


def _revived(op, srcs, shape, dtype, arg, source, known: dict) -> Node:
    node = _made(op, srcs, shape, dtype, arg, source)
    for name, value in known.items():
        late_write(node, name, value)
    return node


def quick_node(op: Op, srcs: tuple, shape: tuple, dtype: np.dtype, arg, source: str) -> Node:
    """A Node made without __new__'s asserts, for a recording path that checked its operands
    already (elementwise ops over arrays of one dtype and shape: _api/elementwise.py)."""
    node = _made(op, srcs, shape, dtype, arg, source)
    if _OWN:  # NOTE: as in Node.__new__
        if srcs:
            memory_of(node)
        else:  # NOTE: a fill, a range: data of no memory yet (memory_of's answer)
            late_write(node, "memory", None)
    return node


_new = object.__new__


def buffer_node(value, source: str = "", device: str = "cpu") -> Node:
    """A BUFFER node holding `value`, an array of `device` (numpy's on the host)."""
    # NOTE: an ndarray's shape is a tuple already (another device's may be a list)
    shape = value.shape if type(value.shape) is tuple else tuple(value.shape)
    node = _made(_BUFFER, (), shape, value.dtype, Buffer(device, value), source)
    if _OWN:  # NOTE: memory_of's answer for a buffer, without its walk
        late_write(node, "memory", _OWN.get(device, HOST))
    return node


def _address(value) -> int:
    # NOTE: the array interface every numpy-like array has (CuPy's CUDA one too).
    interface = getattr(value, "__array_interface__", None) or value.__cuda_array_interface__
    return interface["data"][0]


# A realized node is replaced by a BUFFER node. Pending consumers still point at the old node;
# the graph builder follows its `realized` link. The old node lets its inputs go (mark_realized),
# so the finished history behind it is freed at once, and the old node when its last consumer goes.


def link_siblings(nodes) -> None:
    """Nodes taking the items of one library call (svd's U, S and Vh): a materialization that
    computes one computes the others still alive (held by an array or read by pending work), in
    the same call (_cache.py), not in a second call later. Weakly: an item nothing references
    is not kept alive for this."""
    refs = tuple(weakref.ref(node) for node in nodes)
    for node in nodes:
        assert node.op in LINKED, node  # NOTE: the cache looks for siblings on these ops only
        late_write(node, "siblings", refs)


LINKED = frozenset({Op.LINALG})  # the ops whose nodes link_siblings may link


def siblings_of(node: Node) -> tuple:
    """The other live nodes of `node`'s library call (see link_siblings)."""
    refs = getattr(node, "siblings", ())
    return tuple(s for s in (ref() for ref in refs) if s is not None and s is not node)


def mark_realized(node: Node, buffer: Node) -> None:
    """`node` is computed: `buffer` holds its value from now on. Its inputs are let go: a
    pending consumer reads the buffer, and a computed node kept by one (a fit loop's weights,
    read by the next step's) must not keep every step before it alive."""
    if node is not buffer:
        late_write(node, "realized", buffer)
        late_write(node, "srcs", ())


def mark_evaluated(nodes) -> None:
    """Every node but the buffers among `nodes` has been computed (see _cache.py)."""
    for node in nodes:
        if node.op is not _BUFFER:
            late_write(node, "evaluated", True)


_BUFFER = Op.BUFFER


def resolve(node: Node) -> Node:
    """The node to use for `node`: its BUFFER if it has been realized."""
    return node.realized or node


def inputs_of(node: Node) -> tuple[Node, ...]:
    return tuple(resolve(s) for s in node.srcs)


def frozen(arg):
    """A key for a parameter that tells apart what == does not: -0.0 from 0.0, 1 from 1.0, a
    NaN from -NaN (their bits: repr() shows both as nan)."""
    kind = type(arg)
    if kind is int or kind is str or arg is None or kind is bool:
        return arg  # NOTE: first: an indexing key is a nest of tuples of ints and names
    if kind is tuple:
        return tuple([frozen(a) for a in arg])
    if kind is float:  # NOTE: before the isinstance checks: every Python scalar operand
        return (float, _DOUBLE.pack(arg))
    if isinstance(arg, np.generic):
        return (kind, arg.tobytes())
    if isinstance(arg, float):
        return (kind, _DOUBLE.pack(arg))
    if isinstance(arg, complex):
        return (kind, _DOUBLE.pack(arg.real), _DOUBLE.pack(arg.imag))
    return arg  # NOTE: an unhashable parameter makes a key holding it unhashable


_DOUBLE = struct.Struct("<d")


def filled(values: dict, node: Node) -> np.ndarray:
    """A FULL node's value at its shape: a broadcast of a fresh copy of fill_value, never of the
    value a cached template keeps (the result may be exported, and a consumer told nothing of
    read-only memory may write through it)."""
    return np.broadcast_to(np.array(fill_value(values, node)), node.shape)


def held_by(node: Node):
    """The live array holding `node`, if any: the last one made to hold it (Node.holder, a
    weak reference its `_hold` sets) while it still does (its `_n`). realize() keeps the value
    of a node it computes anyway when an array still holds it, so loops that read values back
    do not recompute history. NOTE: asked of the node, not the Array class: the run side never
    imports the Array (the C scan, realize/native.py, asks the same)."""
    ref = node.holder
    array = ref() if ref is not None else None
    return array if array is not None and array._n is node else None


def arg_key(node: Node):
    """frozen(node.arg), worked out once per node: a pending node is scanned by every
    materialization until it is computed, and an indexing key is a nest of tuples."""
    try:
        return node.arg_key
    except AttributeError:  # NOTE: unset: the first time
        known = frozen(node.arg)
        late_write(node, "arg_key", known)
        return known


class FillPart(NamedTuple):
    """The arg of a FULL node simplify made of a part of another fill (the real or imaginary
    part, `op`, of a complex `fill`): its value is that part of the other's, whichever value
    the run binds to that one (a parameter of a cached schedule, _cache.py)."""

    op: Op  # REAL or IMAG
    fill: Node


def fill_value(values: dict, node: Node) -> np.ndarray:
    """A FULL node's value, 0-d: the one bound for this run, else its own. A cached schedule's
    fills are parameters (_cache.py): a loop over `x * t` with a new `t` binds it, as it binds
    a new buffer, and runs the same kernels."""
    bound = values.get(node)
    if bound is None or bound.size == 0:
        part = node.arg
        if type(part) is FillPart:
            whole = fill_value(values, part.fill)
            return np.asarray(whole.real if part.op is Op.REAL else whole.imag)
        try:
            return node.own_fill  # NOTE: made once: a cached template's run reads it
        except AttributeError:
            own = np.asarray(node.arg, dtype=node.dtype)
            own.flags.writeable = False
            late_write(node, "own_fill", own)
            return own
    # NOTE: a device that computed the fill holds it at its shape: every element is the value.
    return bound if bound.ndim == 0 else np.asarray(bound.reshape(-1)[0])


def caller_source(depth: int = 1) -> str:
    """file:line of the first frame outside this package: the user's line that recorded a node.
    `depth`: how many frames up to start (a caller that knows its own callers are ours)."""
    frame = _getframe(depth)
    while frame is not None:
        code = frame.f_code
        name = _NAMES.get(code.co_filename)
        if name is None:
            name = name_of(code.co_filename)
        if name:
            return _line_of(code, frame, name)
        frame = frame.f_back
    return ""


def name_of(filename: str) -> str:
    """A code file's name in sources, "" for this package's files (kept in _NAMES)."""
    inside = filename.startswith(_PACKAGE_DIR)
    name = _NAMES[filename] = "" if inside else _short_name(filename)
    return name


def _line_of(code, frame, name: str) -> str:
    """The "name:line" of `frame`, running `code`, kept per instruction: Python finds a frame's
    line by decoding its code's line table from the start (a loop at the end of a long script
    decoded ~40 lines' worth on every recorded op: a third of recording one)."""
    key = (id(code), frame.f_lasti)
    known = _LINES.get(key)
    if known is not None and known[0] is code:  # NOTE: the code is kept: its id is not reused
        return known[1]
    if len(_LINES) >= _MAX_LINES:
        _LINES.clear()
    source = f"{name}:{frame.f_lineno}"
    _LINES[key] = (code, source)
    return source


def _short_name(filename: str) -> str:
    """A code file's name in sources: its base name, or with as many parent folders as make
    it name no other file met so far ("see/programs.py" after "cuda/programs.py")."""
    parts = os.path.normpath(filename).split(os.sep)
    taken = set(_NAMES.values())
    for depth in range(1, len(parts) + 1):
        name = "/".join(parts[-depth:])
        if name not in taken:
            return name
    return filename


def source_files(name: str) -> list[str]:
    """The full paths of the code files a source's `name` ("script.py") may stand for."""
    return [path for path, short in _NAMES.items() if short == name]


_getframe = sys._getframe
_NAMES: dict[str, str] = {}  # a code file's name in a source, "" for this package's files
_LINES: dict[tuple[int, int], tuple] = {}  # (id(code), instruction) -> (code, "name:line")
_MAX_LINES = 1 << 14
