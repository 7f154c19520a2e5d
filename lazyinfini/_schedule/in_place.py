"""Which functional updates write into their input: `x[key] = v` is a SETITEM node, a new value
(nodes are immutable), and its library call copies x before writing the key. Where x is a
buffer this schedule made (a fused pass's output, a rearrange's copy, an earlier update's) and
this update reads it for the last time, nothing else can see that buffer: the update takes it
as its output and writes the key into it, one pass over the key instead of a copy of x.
numpy code writing through views (`row *= 2`, `x.T[0] += 1`) is a chain of such updates, each
copying the whole array without this (200000x64 float64: ~20 ms a write).
"""

from __future__ import annotations

import dataclasses

from .._dtypes import compute_dtype
from .._graph import Op
from .kernels import Kind, Schedule


def write_in_place(sched: Schedule) -> Schedule:
    """`sched` with each update that may write into its x marked `in_place`."""
    made = {node: kernel for kernel in sched.kernels for node in kernel.outputs}
    kernels = tuple(
        dataclasses.replace(kernel, in_place=True)
        if _takes_its_input(kernel, dead, made)
        else kernel
        for kernel, dead in zip(sched.kernels, sched.frees)
    )
    return dataclasses.replace(sched, kernels=kernels)


def _takes_its_input(kernel, dead: tuple, made: dict) -> bool:
    if kernel.kind is not Kind.OPAQUE or kernel.nodes[0].op is not Op.SETITEM:
        return False
    x = kernel.loads[0]
    producer = made.get(x.base)
    return (
        not x.chain  # NOTE: the buffer as it is, C-contiguous: its producer made it
        and x.base in dead  # no later kernel, output, kept value or view reads it
        and producer is not None
        and _fresh(producer)
        # NOTE: half floats are updated in a widened copy anyway (library._widened)
        and compute_dtype(x.base.dtype) == x.base.dtype
        # NOTE: an index array read from x itself would change under the write (a value may:
        # numpy's assignment copies a source that overlaps its destination first)
        and all(load.base is not x.base for load in kernel.loads[2:])
    )


def _fresh(producer) -> bool:
    """Whether the kernel's outputs are buffers of their own (not views of its inputs, not
    a fill broadcast, not a library result that may alias an input)."""
    if producer.kind is Kind.REARRANGE:
        return True
    if producer.kind is Kind.ELEMENTWISE:
        # NOTE: a device without a kernel for complex values evaluates them op by op in its
        # namespace (cuda/calls.py), where real(z) may be a view of z's buffer
        nodes = (*producer.outputs, *(load.node for load in producer.loads))
        return not any(node.dtype.kind == "c" for node in nodes)
    return producer.kind is Kind.OPAQUE and producer.nodes[0].op is Op.SETITEM
