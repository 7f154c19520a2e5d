"""li.graph: the pending DAG as a networkx.DiGraph, with op, shape, dtype, params and the user's
file:line on every node; it stops at realized buffers and never computes."""

from __future__ import annotations

import os
import sys

import networkx as nx
import numpy as np

import lazyinfini as li

HERE = os.path.basename(__file__)


def _line() -> int:
    """The caller's line number."""
    return sys._getframe(1).f_lineno


_SCALAR_OPS = ("full", "broadcast_to")


def _by_op(graph, op):
    return [n for n, d in graph.nodes(data=True) if d["op"] == op]


def test_graph_of_clip_of_subtract():
    a_np = np.ones((3, 4), np.float32)
    line_a = _line() + 1
    a = li.asarray(a_np)
    line_b = _line() + 1
    b = li.asarray(np.ones((4, 3), np.float32))
    line_y = _line() + 1
    y = li.clip(a - li.permute_dims(b, (1, 0)), 0, 1)
    g = li.graph(y)
    assert isinstance(g, nx.DiGraph)
    assert nx.is_directed_acyclic_graph(g)
    # Scalar bounds are recorded as fills of the result's shape (zero-stride loads): explicit,
    # but not counted.
    ops = sorted(d["op"] for _, d in g.nodes(data=True) if d["op"] not in _SCALAR_OPS)
    assert ops == sorted(["buffer", "buffer", "permute_dims", "subtract", "clip"])
    assert all(g.nodes[n]["shape"] == (3, 4) for n in _by_op(g, "full"))
    assert not _by_op(g, "broadcast_to")
    (clip,) = _by_op(g, "clip")
    (sub,) = _by_op(g, "subtract")
    (perm,) = _by_op(g, "permute_dims")
    buffers = _by_op(g, "buffer")
    # Edges run input -> consumer; the output is a sink, buffers are sources.
    assert g.has_edge(sub, clip) and not g.has_edge(clip, sub)
    assert g.has_edge(perm, sub)
    assert g.out_degree(clip) == 0
    assert all(g.in_degree(b) == 0 for b in buffers)
    assert g.graph["outputs"] == [clip]
    # Attributes: op, shape, dtype, params, source.
    attrs = g.nodes[clip]
    assert attrs["shape"] == (3, 4) and np.dtype(attrs["dtype"]) == np.float32
    assert attrs["params"] == (True, True)
    assert g.nodes[perm]["params"] == (1, 0) and g.nodes[perm]["shape"] == (3, 4)
    for node in (clip, sub, perm):
        assert g.nodes[node]["source"] == f"{HERE}:{line_y}"
    sources = sorted(g.nodes[b]["source"] for b in buffers)
    assert sources == sorted([f"{HERE}:{line_a}", f"{HERE}:{line_b}"])
    # The buffer nodes hold the user's data, not a copy.
    (a_node,) = [b for b in buffers if b.shape == (3, 4)]
    assert np.shares_memory(a_node.arg.data, a_np)


def test_source_names_the_line_of_each_operation():
    x = li.asarray(np.arange(6.0).reshape(2, 3))
    line_t = _line() + 1
    t = x.T
    line_s = _line() + 1
    s = t[1:, ::-1]
    line_d = _line() + 1
    d = s - 1.5
    line_r = _line() + 1
    r = li.reshape(d, (4,))
    g = li.graph(r)
    expect = {"permute_dims": line_t, "slice": line_s, "subtract": line_d, "reshape": line_r}
    for op, line in expect.items():
        for node in _by_op(g, op):
            assert g.nodes[node]["source"] == f"{HERE}:{line}", op


def test_source_lines_stay_right_when_recorded_again_from_the_same_instructions():
    """caller_source keeps each instruction's line (_graph.node._line_of): a loop recording
    from the same lines, and code objects made again (a new function from the same text at
    other lines), still name their own lines."""
    x = li.asarray(np.ones(3))
    made = {}
    for first in (10, 200):
        text = "\n" * (first - 1) + "def f(x):\n    y = x - 1.0\n\n    return y * 2.0\n"
        exec(compile(text, "made_again.py", "exec"), made)
        for _ in range(3):
            g = li.graph(made["f"](x))
            lines = {g.nodes[n]["op"]: g.nodes[n]["source"] for n in g.nodes}
            assert lines["subtract"] == f"made_again.py:{first + 1}"
            assert lines["multiply"] == f"made_again.py:{first + 3}"


def test_graph_records_without_computing():
    x = li.asarray(np.ones((100, 100), np.float32))
    before = li.inspect.counters.snapshot()
    y = x
    for _ in range(50):
        y = li.clip(y - x, -1, 1)
    g = li.graph(y)
    assert len(_by_op(g, "subtract")) == 50 and len(_by_op(g, "clip")) == 50
    assert li.inspect.counters.snapshot() == before


def test_shared_input_gives_one_node_and_an_edge_with_two_slots():
    x = li.asarray(np.ones(3))
    y = x - x
    g = li.graph(y)
    (sub,) = _by_op(g, "subtract")
    (buf,) = _by_op(g, "buffer")
    assert g.number_of_edges() == 1
    assert g.edges[buf, sub]["slots"] == [0, 1]


def test_diamond_is_shared_not_duplicated():
    x = li.asarray(np.ones(3))
    d = x - 1
    y = d - li.permute_dims(d, (0,))  # both operands reach d
    g = li.graph(y)
    assert len(_by_op(g, "subtract")) == 2
    (inner,) = [n for n in _by_op(g, "subtract") if g.out_degree(n) > 0]
    assert g.out_degree(inner) == 2


def test_graph_stops_at_realized_buffers():
    x = li.asarray(np.arange(4.0))
    y = x - 1
    z = y - 2  # recorded while y was pending
    np.asarray(y)
    g = li.graph(z)
    ops = sorted(d["op"] for _, d in g.nodes(data=True) if d["op"] not in _SCALAR_OPS)
    assert ops == ["buffer", "subtract"]
    (buf,) = _by_op(g, "buffer")
    np.testing.assert_array_equal(buf.arg.data, [-1.0, 0.0, 1.0, 2.0])  # y's value, not x
    np.testing.assert_array_equal(np.asarray(z), [-3.0, -2.0, -1.0, 0.0])


def test_materialized_array_graph_is_one_buffer():
    x = li.asarray(np.arange(4.0))
    y = li.clip(x - 1, 0, 2)
    assert li.graph(y).number_of_nodes() > 1
    y.compute()
    g = li.graph(y)
    assert g.number_of_nodes() == 1 and g.number_of_edges() == 0
    ((node, attrs),) = g.nodes(data=True)
    assert attrs["op"] == "buffer" and attrs["shape"] == (4,) and attrs["params"] is None


def test_graph_of_several_outputs():
    x = li.asarray(np.ones(3))
    y1 = x - 1
    y2 = y1 - 2
    g = li.graph(y1, y2)
    assert len(g.graph["outputs"]) == 2
    assert set(_by_op(g, "subtract")) == set(g.graph["outputs"])


def test_graph_nodes_are_frozen_and_hash_by_identity():
    x = li.asarray(np.ones(3))
    y1, y2 = x - 1, x - 1
    g = li.graph(y1, y2)
    assert len(_by_op(g, "subtract")) == 2  # equal recipes are still two nodes
    node = _by_op(g, "subtract")[0]
    try:
        node.shape = (4,)
    except AttributeError:
        pass
    else:
        raise AssertionError("Node must be frozen")


def test_to_dot_names_ops_and_lines():
    x = li.asarray(np.ones((2, 2)))
    line = _line() + 1
    y = x - 1
    dot = li.to_dot(y)
    assert dot.startswith("digraph")
    assert "subtract" in dot and f"{HERE}:{line}" in dot


def test_the_quick_recording_paths_name_the_users_line_too():
    """Ops over arrays of one dtype and shape, over floats and a Python number, unary ops,
    where, and clip between Python numbers record without operands()' checks
    (_api/elementwise.py): they still name the line, through operators and namespace functions
    alike, in li.graph and in explain()."""
    a = li.asarray(np.arange(4.0))
    b = li.asarray(np.ones(4))
    lines = {}
    lines["subtract"] = _line() + 1
    d = a - b
    lines["multiply"] = _line() + 1
    m = li.multiply(d, 2.0)
    lines["negative"] = _line() + 1
    n = -m
    lines["clip"] = _line() + 1
    c = li.clip(n, 0.0, 1.0)
    lines["add"] = _line() + 1
    y = 1.5 + c
    lines["divide"] = _line() + 1
    y = y / li.asarray(np.ones((3, 1)))  # broadcast both ways: (4,) against (3, 1)
    lines["where"] = _line() + 1
    y = li.where(y > 0.5, y, 2)
    g = li.graph(y)
    assert [n.shape for n in g if n.op.label == "broadcast_to"] == [(3, 4), (3, 4)]
    for op, line in lines.items():
        (node,) = _by_op(g, op)
        assert g.nodes[node]["source"] == f"{HERE}:{line}", op
    fills = [n for n in g if n.op.label == "full"]
    filled = ("multiply", "clip", "add", "where")
    assert {n.source for n in fills} == {f"{HERE}:{lines[o]}" for o in filled}
    explained = li.explain(y)
    assert all(f"{HERE}:{line}" in explained for line in lines.values()), explained


def test_the_schedulers_dag_is_the_networkx_graph_without_networkx():
    """The scheduler reads a Dag (no networkx to import at a first materialization): the same
    nodes, order, outputs, and each node's inputs and consumers in networkx's order."""
    from lazyinfini._graph import Dag, build_graph

    x = li.asarray(np.arange(6.0).reshape(2, 3))
    s = x - x  # one input feeding two slots
    t = li.clip(s.T + 1.0, 0.0, x.T)
    done = (x * 3).compute()  # a realized buffer the walk stops at
    u = li.concat([t, t * done.T], axis=0)
    for outputs in ([u], [u, s], [t, li.sum(u)]):
        nodes = [o._node for o in outputs]
        dag, g = Dag(nodes), build_graph(nodes)
        assert dag.graph["order"] == g.graph["order"] and dag.graph["outputs"] == g.graph["outputs"]
        assert list(dag) == list(g.nodes) and len(dag) == g.number_of_nodes()
        for node in g:
            assert node in dag
            assert list(dag.predecessors(node)) == list(g.predecessors(node))
            assert list(dag.successors(node)) == list(g.successors(node))


def test_a_copied_or_pickled_node_keeps_its_fields_and_stays_frozen():
    import copy
    import pickle

    import pytest

    from lazyinfini._graph import Op

    x = li.asarray(np.arange(3.0))
    node = (x - 1)._node
    for made in (copy.copy(node), pickle.loads(pickle.dumps(node))):
        assert type(made) is type(node) and made is not node
        assert (made.op, made.shape, made.dtype, made.arg, made.source) == (
            node.op, node.shape, node.dtype, node.arg, node.source,
        )  # fmt: skip
        assert [s.op for s in made.srcs] == [Op.BUFFER, Op.FULL]
        assert made.realized is None and made.holder is None and made.evaluated is False
        with pytest.raises(AttributeError):
            made.shape = (4,)
