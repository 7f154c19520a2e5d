"""HOW it will run: the graph of pending nodes -> an ordered schedule of kernels.

`schedule` is the list of passes, for a device's Target: numpy's memory orders (where the
device sums as numpy does, elementwise values a sum or a view sees are computed in the order
numpy's memory would have, orders.py) -> simplify (fold permute/reshape chains,
drop identities, merge repeats) -> fuse (elementwise groups, with a reason for every decision;
a group feeding a sum over its last axes joins the sum where the target asks; independent
sibling groups that share an input merge into one multi-output pass) -> lower
(kernels with strided loads, rearrange plans and their copy methods, coalesced iteration spaces,
register programs) -> lifetimes -> in place (functional updates that may write into their
input, in_place.py). A target that does not fuse (the reference device) gets
`schedule_nodes`: one kernel per node.
"""

from __future__ import annotations

from .._graph import Dag, Node, Op, inputs_of
from .fuse import fuse as fuse_groups
from .in_place import write_in_place
from .kernels import FusionDecision, Kernel, Kind, Reduction, Schedule
from .layout import whole_load
from .lower import Lowering
from .orders import numpy_orders
from .simplify import simplify
from .target import Target

_KIND_OF_GROUP = {"source": Kind.SOURCE, "elementwise": Kind.ELEMENTWISE, "movement": Kind.VIEW}


def schedule(graph: Dag, target: Target, *, fuse: bool = True, keep=frozenset()):
    """The kernels computing graph.graph["outputs"] on a device with `target`; values of `keep`
    nodes that some kernel writes anyway are returned too (live arrays hold them)."""
    requested = list(graph.graph["outputs"])
    graph, ordered, reordered = (
        numpy_orders(graph, keep) if target.numpy_orders else (graph, {}, [])
    )
    # NOTE: a kept node under the name the passes gave it (a rewrite of its inputs, a merge)
    keep = {n: ordered.get(n, n) for n in keep}
    if not target.fuse:
        return schedule_nodes(graph, keep, requested)
    graph, outputs, rewrites, new_of = simplify(graph, copies=target.numpy_orders)
    rewrites = reordered + rewrites
    reductions, transposed = target.reduce_prologues, target.transposed_copy_min
    groups, decisions = fuse_groups(graph, outputs, fuse, reductions, transposed)
    keep = {n: new_of.get(m, m) for n, m in keep.items()}
    lowering = Lowering(graph, groups, outputs, target, _written_too(keep.values()))
    held = lowering.run(outputs)
    rewrites = rewrites + lowering.notes
    planned = with_lifetimes(lowering.kernels, requested, held, decisions, rewrites, keep)
    return write_in_place(planned) if target.writes_in_place else planned


# Live arrays holding a fused intermediate of at most this many bytes get it written by its
# kernel as one more output: a loop that reads it again (a gradient step's `weights -= lr *
# grad`, after an `if` on `abs(grad).max()` computed it) would otherwise recompute it and its
# history (a matmul) once more. A larger one stays fused (its write costs bandwidth, and most
# such arrays are never read again); a second read recomputes it once, then keeps it.
KEEP_WRITTEN_BYTES = 1 << 16


def _written_too(kept) -> frozenset:
    """The kept elementwise nodes a fused kernel writes out although nothing else reads them."""
    return frozenset(n for n in kept if n.op.is_elementwise and n.nbytes <= KEEP_WRITTEN_BYTES)


def schedule_nodes(graph: Dag, keep=None, requested=None) -> Schedule:
    """One kernel per pending node, in topological order: what the reference executor runs.
    `keep`: each kept node and the node computing it; `requested`: the nodes asked for, where
    graph.graph["outputs"] compute them under other names (numpy's orders)."""
    kernels = []
    for node in graph.graph["order"]:
        if node.op is Op.BUFFER:
            continue
        kind = _KIND_OF_GROUP.get(node.op.group.value, Kind.OPAQUE)
        loads = tuple(whole_load(src) for src in dict.fromkeys(inputs_of(node)))
        kernels.append(Kernel(kind, (node,), (node,), loads))
    outputs = list(graph.graph["outputs"])
    return with_lifetimes(kernels, requested or outputs, outputs, keep=keep or {})


def with_lifetimes(kernels, requested, outputs, decisions=(), rewrites=(), keep=None) -> Schedule:
    """Attach to each kernel the values whose last reader it is (outputs are never freed).
    `keep` maps each node live arrays hold to the node computing it here (a requested one is
    an output already: it is not kept twice)."""
    written = {n for k in kernels if k.kind is not Kind.VIEW for n in k.outputs}
    asked = set(requested)
    held = tuple(n for n, new in (keep or {}).items() if new in written and n not in asked)
    kept = tuple(keep[n] for n in held)
    last_use: dict[Node, int] = {}
    for i, kernel in enumerate(kernels):
        for node in kernel.reads:
            last_use[node] = i
    frees: list[list[Node]] = [[] for _ in kernels]
    # NOTE: a requested view keeps the buffer it views alive (its memory must not be reused).
    never = set(outputs) | set(kept) | {r for k in kernels if k.kind is Kind.VIEW for r in k.reads}
    for node, i in last_use.items():
        if node not in never and node.op not in (Op.BUFFER, Op.FULL):
            frees[i].append(node)
    return Schedule(
        tuple(kernels),
        tuple(requested),
        tuple(outputs),
        tuple(tuple(f) for f in frees),
        tuple(decisions),
        tuple(rewrites),
        kept,
        held,
    )


__all__ = [
    "KEEP_WRITTEN_BYTES",
    "FusionDecision",
    "Kernel",
    "Kind",
    "Reduction",
    "Schedule",
    "Target",
    "schedule",
    "schedule_nodes",
]
