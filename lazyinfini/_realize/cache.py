"""Schedules reused across materializations of the same program shape, per device target.

A loop that records and materializes the same computation on new buffers (a training step, a
benchmark, a fit loop) would build, simplify, fuse and lower the same graph every time: most of
the fixed cost of a small materialization. The signature of the pending graph keys a template:
ops, shapes, dtypes, parameters, the user's lines, how the nodes connect, each buffer's strides,
which nodes are requested or held (and, checked on a hit, a buffer's alignment where a rearrange
plan depends on it). A template is a copy of the graph whose buffers are stand-ins holding no
data (BufferLayout), and the schedule of that copy for the device's Target. Every
materialization runs a template's schedule with its own buffers bound to the stand-ins; the
first of a kind schedules it, the next ones only bind. Fills (scalar operands) are bound the
same way: the key holds where equal fills are, not their values (see _scan).
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._graph import (
    LINKED,
    Buffer,
    Dag,
    Group,
    Node,
    Op,
    arg_key,
    held_by,
    late_write,
    resolve,
    siblings_of,
)
from .._schedule import KEEP_WRITTEN_BYTES, Kind, Schedule, schedule
from .native import Native, start

MAX_NODES = 50_000  # template nodes kept in all (a template holds no data)


class Job(NamedTuple):
    """A template's schedule bound to one materialization's nodes and buffers (a tuple: one is
    made every run)."""

    schedule: Schedule
    inputs: dict[Node, np.ndarray]  # stand-in -> the buffer (or fill value) it stands for now
    requested: tuple[Node, ...]  # the real nodes of schedule.requested, in order
    kept: tuple[Node, ...]  # the real nodes of schedule.kept, in order
    order: list[Node]  # the pending graph (the real nodes, buffers included)
    reused: bool  # the schedule came from the cache
    devices: frozenset[str]  # the devices holding the buffers it reads
    key: tuple | None  # its template's key in the cache (None: not cached)
    # (options' device, the device the schedule is for) where it was cached under the key of
    # another device's target: the data's device computes it (see redirect)
    redirect: tuple[str, str] | None = None


@dataclass(frozen=True)
class _Template:
    schedule: Schedule
    buffers: tuple[tuple[int, Node], ...]  # (position, stand-in) of each buffer
    fills: tuple[tuple[int, Node, object], ...]  # (position, stand-in, its value's key)
    requested: tuple[int, ...]  # positions of schedule.requested
    kept: tuple[int, ...]  # positions of schedule.kept
    aligned: tuple[tuple[int, int], ...]  # (position, misalignment) of buffers a plan assumed
    size: int
    devices: frozenset[str]  # NOTE: part of the key (a buffer's signature names its device)
    redirect: tuple[str, str] | None = None  # see Job.redirect


def _job(template: _Template, order: list, fills: dict, reused: bool, key) -> Job:
    """The template's schedule bound to this run's nodes and buffers."""
    asked, kept = template.requested, template.kept
    # NOTE: the tuple made directly (a NamedTuple's __new__ is a Python call, ~0.5 us), and the
    # common case, one requested node and none kept, without map()s
    return _NEW_TUPLE(
        Job,
        (
            template.schedule,
            _bindings(template, order, fills),
            (order[asked[0]],) if len(asked) == 1 else tuple(map(order.__getitem__, asked)),
            tuple(map(order.__getitem__, kept)) if kept else (),
            order,
            reused,
            template.devices,
            key,
            template.redirect,
        ),
    )


_NEW_TUPLE = tuple.__new__


class ScheduleCache:
    def __init__(self):
        self._templates: dict = {}
        self._nodes = 0
        self._tick = 0  # the last use's stamp (recency, for eviction)
        self._lock = threading.Lock()

    def prepare(self, target, fuse: bool, pending: list, keeps: bool) -> Job:
        """The job computing `pending` (plus the recomputed frontier, see below); `keeps`: the
        device keeps what live arrays hold (held nodes are outputs too)."""
        token, lookup = _token(target), Native.lookup
        # NOTE: in C once it is built: this function's common case, a cached template's Job,
        # else the scan's result, from which the rest of this function goes on
        found = lookup(pending, keeps, self, token, fuse) if lookup is not None else None
        if type(found) is Job:
            return found
        scan = Native.scan or _scan  # NOTE: the same function in C, once it is built
        order, srcs, parts, fills, keep, evaluated, calls = found or scan(pending, keeps)
        extra = _live_siblings(order, pending) if calls and keeps else ()
        if extra:  # NOTE: asked for too: their call runs once (see _live_siblings)
            pending = [*pending, *extra]
            order, srcs, parts, fills, keep, evaluated, calls = scan(pending, keeps)
        again = _recomputed_frontier(order, srcs, keep, pending) if evaluated else ()
        outputs = _positions(order, pending) + again
        try:
            template = self._get(key := (*parts, token, fuse, outputs, keep, keeps))
        except TypeError:  # a parameter that cannot be a key: schedule it, keep nothing
            key, fills, template = None, {}, None
        reused = template is not None and (
            not template.aligned  # NOTE: most schedules have no rearrange plan (~0.4 us)
            or all(order[i].layout.misalignment == m for i, m in template.aligned)
        )
        if not reused:
            template = _template(target, fuse, order, srcs, outputs, keep, fills, keeps)
            if key is not None:
                self._store(key, template)  # NOTE: replaces one made for another alignment
        return _job(template, order, fills, reused, key)

    def redirect(self, key, asked: str, job: Job, device: str) -> None:
        """Keep the template of `job` (planned for `device`, which holds the data) under `key`
        too, the key of a program asked of the device `asked` that cannot read its data: the
        next run of it finds the schedule for its computing device in one lookup (one scan),
        not two."""
        template = self._get(job.key) if key is not None and job.key is not None else None
        if template is not None:
            self._store(key, dataclasses.replace(template, redirect=(asked, device)))

    def _get(self, key) -> _Template | None:
        # NOTE: no lock (realize's lock already makes one materialization at a time); recency
        # is a stamp, not a move in an OrderedDict, which would hash the key a second time
        template = self._templates.get(key)
        if template is not None:
            self._tick += 1
            template.__dict__["used"] = self._tick
        return template

    def clear(self) -> None:
        with self._lock:
            self._templates.clear()
            self._nodes = 0

    def __len__(self) -> int:
        return len(self._templates)

    def _store(self, key, template: _Template) -> None:
        with self._lock:
            old = self._templates.pop(key, None)
            self._nodes -= old.size if old is not None else 0
            self._templates[key] = template
            self._nodes += template.size
            self._tick += 1
            template.__dict__["used"] = self._tick
            if self._nodes > MAX_NODES:
                self._evict()

    def _evict(self) -> None:
        """Drop the least recently used templates down to 3/4 of MAX_NODES (one sort serves
        many stores), keeping the newest."""
        by_use = sorted(self._templates.items(), key=lambda item: item[1].__dict__["used"])
        for key, template in by_use[:-1]:
            if self._nodes <= MAX_NODES * 3 // 4:
                break
            del self._templates[key]
            self._nodes -= template.size


def _token(target) -> int:
    """A small int standing for `target` in keys: equal Targets share one (a device registered
    again with other tiles or chunks schedules anew), and a key hashes an int, not the
    dataclass's fields (its __hash__ is Python code)."""
    token = target.__dict__.get("token")
    if token is None:
        token = target.__dict__["token"] = _TOKENS.setdefault(target, len(_TOKENS))
    return token


_TOKENS: dict = {}


def _positions(order, pending) -> tuple[int, ...]:
    """The positions of the `pending` nodes in `order` (one pending node is the last: ~0.5 us
    less than a map of every node)."""
    if len(pending) == 1 and (pending[0].realized or pending[0]) is order[-1]:
        return (len(order) - 1,)
    position = {id(n): i for i, n in enumerate(order)}
    return tuple(position[id(n.realized or n)] for n in pending)


def _recomputed_frontier(order, srcs, keep: tuple, pending) -> tuple[int, ...]:
    """Nodes an earlier materialization evaluated that this one must evaluate again, where they
    feed new work (or an array holds them): they are written out this time and kept, so a loop
    that reads values back (a fit loop) recomputes any history at most once, not every time."""
    done = [n.evaluated for n in order]
    if not any(done):
        return ()
    feeds_new = [False] * len(order)
    for i, inputs in enumerate(srcs):
        if not done[i]:
            for j in inputs:
                feeds_new[j] = True
    asked = {id(resolve(n)) for n in pending}
    return tuple(
        i
        for i, n in enumerate(order)
        if done[i] and id(n) not in asked and (i in keep or feeds_new[i])
    )


def _scan(pending: list, keeps: bool):
    """One pass over the pending graph (a post-order walk like walk()'s, inline: this is every
    materialization's walk; _native.py has the same function in C): the nodes, each one's
    input positions and part of the cache key, each fill's value key by position, the
    positions live arrays hold (where the device
    `keeps` them, see _graph.held_by), whether an earlier run evaluated any node, and
    whether a linked library call is among them.

    A fill enters the key as its place among equal fills (the first position holding its
    value), not its value: a program differing only in its scalars reuses the schedule, while
    one whose equal fills simplify() merged never meets one where they differ."""
    order, srcs, parts, position = [], [], [], {}
    firsts, fills, held, evaluated, calls = {}, {}, [], False, False
    stack = [n.realized or n for n in reversed(pending)]
    while stack:
        node = stack.pop()
        if node in position:
            continue
        inputs, waiting = [], None
        for src in node.srcs:
            src = src.realized or src
            j = position.get(src)
            if j is None:
                waiting = [node] if waiting is None else waiting
                waiting.append(src)
            else:
                inputs.append(j)
        if waiting is not None:  # NOTE: placed once its inputs are (their last first)
            stack += waiting
            continue
        i = position[node] = len(order)
        order.append(node)
        srcs.append(inputs := tuple(inputs))
        op = node.op
        if op is _BUFFER:
            parts.append(getattr(node, "part", None) or _buffer_part(node))
            continue
        evaluated = evaluated or node.evaluated
        if keeps and held_by(node) is not None:
            held.append(i)
        calls = calls or op in LINKED
        if op is _FULL:
            parts.append(_fill_part(node, i, firsts, fills))
        else:
            arg = None if node.arg is None else arg_key(node)
            parts.append((op, node.shape, node.dtype, arg, inputs, node.source))
    return order, srcs, parts, fills, tuple(held), evaluated, calls


def _buffer_part(node: Node) -> tuple:
    """A buffer's part of the key, kept on the node: loops read the same inputs every time."""
    # NOTE: not the alignment, which only rearrange plans read (checked on a hit, see
    # _Template.aligned): small buffers from malloc start anywhere on 16 bytes.
    arg = node.arg
    part = (_BUFFER, node.shape, node.dtype, arg.strides, arg.device, node.source)
    late_write(node, "part", part)
    return part


def _fill_part(node: Node, i: int, firsts: dict, fills: dict) -> tuple:
    value = fills[i] = arg_key(node)
    try:
        first = firsts.setdefault((node.shape, node.dtype, value), i)
    except TypeError:  # NOTE: a value that is no key merges with no other fill
        first = i
    return (_FULL, node.shape, node.dtype, first, node.source)


def _small_results(nodes) -> set[Node]:
    """The small library results among `nodes` (a mean, a std, a matrix product of at most
    KEEP_WRITTEN_BYTES), kept like values arrays hold: their kernel writes them anyway, and
    pending work elsewhere may read them again (a script returning `mean.reshape(-1)` and
    `np.squeeze(std)` beside the normalized images computed std three times). Worked out once
    per template: the key holds every op and shape."""
    return {n for n in nodes if n.op.group in _RESULTS and n.nbytes <= KEEP_WRITTEN_BYTES}


_RESULTS = (Group.REDUCE, Group.OPAQUE)


def _live_siblings(order, pending: list) -> list[Node]:
    """The items of the pending library calls that nobody asked for yet and are still alive
    (svd's Vh, when S is asked for; U, where the program only reads it): computed and kept by
    this call now, not by a second call later. Alive is enough: an item no array holds may
    still feed other pending work (pca's returned `vt[:k]` of an in-place `vt *= signs`, and
    its `u` read again by it), which would otherwise run the whole call again."""
    placed = {id(resolve(n)) for n in pending}
    extra = []
    for node in order:
        if node.op not in LINKED:
            continue
        for item in (node, *siblings_of(node)):
            if id(item) in placed or item.realized is not None:
                continue
            placed.add(id(item))
            extra.append(item)
    return extra


_BUFFER, _FULL = Op.BUFFER, Op.FULL


def _bindings(template: _Template, order, fills: dict) -> dict:
    """Each stand-in's value in this run: a buffer's data; a fill's value where it differs from
    the one the template was made with (the runtime reads a fill's own value otherwise)."""
    inputs = {stand_in: order[i].arg.data for i, stand_in in template.buffers}
    for i, stand_in, value in template.fills:
        if fills[i] != value:
            inputs[stand_in] = _bound_fill(order[i], stand_in)
    return inputs


def _bound_fill(fill: Node, stand_in: Node) -> np.ndarray:
    """The value of `fill` bound to its template's `stand_in`, a fill of another value."""
    return np.asarray(fill.arg, dtype=stand_in.dtype)


def _template(target, fuse: bool, order, srcs, outputs, keep, fills, keeps) -> _Template:
    clones: list[Node] = []
    for node, inputs in zip(order, srcs):
        if node.op is Op.BUFFER:
            stand_in = Buffer(node.arg.device, None, node.layout)
            clone = Node(Op.BUFFER, (), node.shape, node.dtype, stand_in, node.source)
        else:
            sources = tuple(clones[j] for j in inputs)
            clone = Node(node.op, sources, node.shape, node.dtype, node.arg, node.source)
        clones.append(clone)
    graph = Dag([clones[i] for i in outputs])
    kept = {clones[i] for i in keep} | (_small_results(clones) if keeps else set())
    planned = schedule(graph, target, fuse=fuse, keep=kept)
    where = {id(c): i for i, c in enumerate(clones)}
    rearranged = {
        where[id(load.base)]: load.base.layout.misalignment
        for kernel in planned.kernels
        if kernel.kind is Kind.REARRANGE
        for load in kernel.loads
        if load.base.op is Op.BUFFER
    }
    return _Template(
        planned,
        tuple((i, c) for i, c in enumerate(clones) if c.op is Op.BUFFER),
        tuple((i, clones[i], value) for i, value in fills.items()),
        tuple(where[id(n)] for n in planned.requested),
        tuple(where[id(n)] for n in planned.held),
        tuple(rearranged.items()),
        len(clones),
        frozenset(c.arg.device for c in clones if c.op is Op.BUFFER),
    )


CACHE = ScheduleCache()
# NOTE: what native.py's scan compares with and calls
start((_BUFFER, _FULL, LINKED, _buffer_part, arg_key, Job, _bound_fill, np.dtype, Node))
