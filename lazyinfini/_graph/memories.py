"""Which memory a node's data lives in, checked as nodes are recorded once some array lives in a
memory of its own (a GPU's): arrays of two memories meeting in one op raise a ValueError at the
line recording it (the standard asks for an error, never a silent copy). Until such an array
exists nothing is checked: a program of host arrays pays one dict test per node.
"""

from __future__ import annotations

from .ops import Op

# Device name -> its memory, for the devices holding arrays in a memory of their own (filled by
# `own`, as _api/placement.py places the first array on one). NOTE: mutated, never rebound:
# node.py tests it at every node it makes.
OWN: dict[str, str] = {}
# Memory -> the other memories its device reads (the dask device's reads host arrays): arrays
# of those meet there.
READS: dict[str, tuple[str, ...]] = {}
HOST = "host"


def own(name: str, memory: str, reads: tuple[str, ...] = ()) -> None:
    """From now on recording checks the memories of the arrays of device `name` (in `memory`,
    reading the memories `reads` too)."""
    READS[memory] = reads
    OWN[name] = memory


def memory_of(node) -> str | None:
    """The memory of the data `node` reads: "host", a device's own memory, or None (a fill, a
    range: data of no memory yet). Worked out once per node (kept in it), from its inputs';
    ValueError where two memories meet."""
    if node.op is not Op.BUFFER:  # NOTE: the common case inline: known inputs, one memory
        found = None
        for src in node.srcs:
            memory = getattr(src.realized or src, "memory", _UNKNOWN)
            if memory is _UNKNOWN or (found and memory and memory != found):
                break
            found = found or memory
        else:
            _set(node, "memory", found)
            return found
    stack = [node]
    while stack:
        top = stack[-1]
        if hasattr(top, "memory"):
            stack.pop()
            continue
        if top.op is Op.BUFFER:
            _set(top, "memory", OWN.get(top.arg.device, HOST))
            stack.pop()
            continue
        waiting = [s for s in _inputs(top) if not hasattr(s, "memory")]
        if waiting:
            stack += waiting
            continue
        stack.pop()
        _set(top, "memory", _joined(top))
    return node.memory


_UNKNOWN = object()
_set = object.__setattr__  # NOTE: node.late_write (node.py imports this module, not back)


def _inputs(node) -> list:
    return [src.realized or src for src in node.srcs]


def _joined(node) -> str | None:
    found = None
    for src in _inputs(node):
        memory = src.memory
        if memory is None or memory == found:
            continue
        if found is None or memory in READS.get(found, ()):
            found = found or memory
        elif found in READS.get(memory, ()):
            found = memory  # NOTE: a dask array and a host array meet on the dask device
        else:
            where = f" at {node.source}" if node.source else ""
            raise ValueError(
                f"{node.op.label}: arrays in {found} memory and in {memory} memory meet{where}; "
                "move them to one device with x.to_device(...) first"
            )
    return found
