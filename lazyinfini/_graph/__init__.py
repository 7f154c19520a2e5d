"""WHAT was asked: the op table, the frozen nodes, and the networkx view of them."""

from .build import build_graph
from .dag import Dag
from .node import (
    LINKED,
    Buffer,
    BufferLayout,
    FillPart,
    Node,
    arg_key,
    buffer_node,
    caller_source,
    fill_value,
    filled,
    frozen,
    held_by,
    inputs_of,
    late_write,
    link_siblings,
    mark_evaluated,
    mark_realized,
    quick_node,
    resolve,
    siblings_of,
)
from .ops import Group, Op
from .walk import walk

__all__ = [
    "LINKED",
    "arg_key",
    "Buffer",
    "BufferLayout",
    "Dag",
    "FillPart",
    "Group",
    "Node",
    "Op",
    "buffer_node",
    "build_graph",
    "caller_source",
    "fill_value",
    "filled",
    "frozen",
    "held_by",
    "late_write",
    "inputs_of",
    "link_siblings",
    "mark_evaluated",
    "mark_realized",
    "quick_node",
    "resolve",
    "siblings_of",
    "walk",
]
