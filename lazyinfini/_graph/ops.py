"""The one op table: every operation a node can record, with its group and arity.

The API records these, the scheduler groups them by `group`, and each executor keeps one
implementation table keyed by `Op` (see `_runtime/ufuncs.py` and `_runtime/reference.py`).
"""

from __future__ import annotations

import enum


class Group(enum.Enum):
    SOURCE = "source"  # no inputs: a realized buffer, a fill, a range
    ELEMENTWISE = "elementwise"  # output[i] depends on inputs[i] only: fusable
    MOVEMENT = "movement"  # a view: permute, reshape, broadcast, slice (a copy only when asked)
    REDUCE = "reduce"
    OPAQUE = "opaque"  # one library call: sort, matmul, linalg, fft


S, E, M, R, O = Group.SOURCE, Group.ELEMENTWISE, Group.MOVEMENT, Group.REDUCE, Group.OPAQUE
VARIADIC = -1


class Op(enum.Enum):
    """name, group, arity (VARIADIC when the node's `arg` says how many inputs it has)."""

    def __init__(self, label: str, group: Group, arity: int):
        self.label = label
        self.group = group
        self.arity = arity

    def __repr__(self) -> str:
        return self.label.upper()

    # sources
    BUFFER = ("buffer", S, 0)
    FULL = ("full", S, 0)
    ARANGE = ("arange", S, 0)
    # elementwise, the seed ops first
    SUBTRACT = ("subtract", E, 2)
    CLIP = ("clip", E, VARIADIC)  # x, then min and/or max as arg=(has_min, has_max) says
    ASTYPE = ("astype", E, 1)
    ADD = ("add", E, 2)
    MULTIPLY = ("multiply", E, 2)
    DIVIDE = ("divide", E, 2)
    NEGATIVE = ("negative", E, 1)
    ABS = ("abs", E, 1)
    MAXIMUM = ("maximum", E, 2)
    MINIMUM = ("minimum", E, 2)
    EQUAL = ("equal", E, 2)
    NOT_EQUAL = ("not_equal", E, 2)
    LESS = ("less", E, 2)
    LESS_EQUAL = ("less_equal", E, 2)
    GREATER = ("greater", E, 2)
    GREATER_EQUAL = ("greater_equal", E, 2)
    WHERE = ("where", E, 3)
    # movement
    PERMUTE = ("permute_dims", M, 1)  # arg: the axes
    RESHAPE = ("reshape", M, 1)  # arg: none (the node's shape is the target)
    BROADCAST = ("broadcast_to", M, 1)  # arg: none (the node's shape is the target)
    SLICE = ("slice", M, 1)  # arg: ((start, step), ...) per input axis; the node's shape says lengths
    COPY = ("copy", M, 1)  # a fresh contiguous buffer (the rearrange kernel)

    @property
    def is_elementwise(self) -> bool:
        return self.group is Group.ELEMENTWISE

    @property
    def is_movement(self) -> bool:
        return self.group is Group.MOVEMENT
