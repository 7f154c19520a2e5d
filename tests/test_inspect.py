"""Seeing it: graph(), explain() (with analyze), to_dot(), debug levels, counters."""

import sys

import networkx as nx
import numpy as np
import pytest

import lazyinfini as li


@pytest.fixture
def program():
    rng = np.random.default_rng(0)
    a = li.asarray(rng.standard_normal((64, 32)).astype(np.float32))
    b = li.asarray(rng.standard_normal((32, 64)).astype(np.float32))
    return a, b, li.clip(li.permute_dims(a, (1, 0)) - b, 0, 1)


def test_explain_lists_kernels_nodes_loads_bytes_and_decisions(program):
    _, _, y = program
    text = li.explain(y)
    assert text.startswith("1 kernel(s) for 1 output(s)")
    assert "kernel 0: elementwise subtract_clip -> (32, 64) float32" in text
    assert "node subtract at test_inspect.py:" in text and "node clip" in text
    assert "permute_dims>buffer (32, 64) float32 strides=(4, 128) strided" in text
    assert "broadcast" in text
    assert (
        f"bytes read {2 * 32 * 64 * 4 / 1024:.1f} KiB, written {32 * 64 * 4 / 1024:.1f} KiB" in text
    )
    assert "fusion decisions:" in text and "every consumer is in this elementwise kernel" in text
    assert y.explain() == text


def test_explain_shows_the_rearrange_plan():
    x = li.asarray(np.zeros((256, 128), np.float32))
    text = li.explain(li.permute_dims(x, (1, 0)))
    assert "rearrange copy" in text
    assert "plan RearrangePlan(unit=4B, block=" in text and "grid=" in text


@pytest.mark.parametrize(
    ("shape", "axes"),
    [
        ((256, 128), (1, 0)),
        ((2048, 2048), (1, 0)),
        ((8, 3, 64, 64), (0, 2, 3, 1)),
        ((64, 4), (1, 0)),
    ],
)
def test_explain_names_the_copy_method_the_executor_will_use(shape, axes):
    from lazyinfini._runtime.rearrange import choose_method

    x_np = np.zeros(shape, np.float32)
    y = li.permute_dims(li.asarray(x_np), axes)
    (kernel,) = li.inspect.plan(y).kernels
    dst = np.empty(y.shape, np.float32)
    method = choose_method(kernel.plan, np.transpose(x_np, axes), dst)
    assert f"    method {method} (" in li.explain(y)


def test_explain_analyze_runs_and_reports_bandwidth(program):
    _, _, y = program
    text = li.explain(y, analyze=True)
    assert "time " in text and "GB/s" in text and "% of copy bandwidth" in text
    assert y._node.op.label == "buffer"  # it ran and kept the result
    assert "nothing pending" in li.explain(y, analyze=True)


def test_graph_is_a_digraph_of_pending_nodes(program):
    a, b, y = program
    g = li.graph(y)
    assert isinstance(g, nx.DiGraph) and nx.is_directed_acyclic_graph(g)
    ops = sorted(attrs["op"] for _, attrs in g.nodes(data=True))
    assert ops.count("buffer") == 2 and "subtract" in ops and "clip" in ops
    sink = [n for n in g if g.out_degree(n) == 0]
    assert sink == [y._node]
    assert g.nodes[y._node]["shape"] == (32, 64) and g.nodes[y._node]["params"] == (True, True)
    np.asarray(y)
    assert list(li.graph(y).nodes) == [y._node] and y._node.op.label == "buffer"


def test_to_dot_has_one_labelled_cluster_per_kernel(program):
    a, b, y = program
    z = li.reshape(li.permute_dims(a, (1, 0)), (-1,)) - 1  # a copy kernel, then elementwise
    dot = li.to_dot(y, z)
    assert dot.startswith("digraph lazyinfini {") and dot.rstrip().endswith("}")
    assert dot.count("subgraph cluster_") == len(li.inspect.plan(y, z).kernels) == 3
    assert 'label="kernel 0: ' in dot and "rearrange copy" in dot
    assert "->" in dot


def test_visualize_without_graphviz_says_what_to_install(program, monkeypatch):
    import shutil

    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="graphviz"):
        li.visualize(program[2], filename="g.svg")


@pytest.mark.parametrize("level", [1, 2, 3])
def test_debug_levels_print_to_stderr(program, capsys, level):
    _, _, y = program
    with li.options(debug=level):
        np.asarray(y)
        LINE = sys._getframe().f_lineno - 1
    err = capsys.readouterr().err
    line = f"lazyinfini: realized (32, 64) float32 at test_inspect.py:{LINE}: 1 kernel on cpu"
    assert line in err
    assert ("ms" in err.splitlines()[0]) and (("Kernel(" in err) == (level >= 2))
    assert ("fusion decisions:" in err) == (level >= 3)


def test_counters_count_kernels_and_bytes(program):
    _, _, y = program
    before = li.inspect.counters.snapshot()
    np.asarray(y)
    after = li.inspect.counters.snapshot()
    assert after["kernels"] == before["kernels"] + 1
    assert after["materializations"] == before["materializations"] + 1
    assert after["bytes_written"] - before["bytes_written"] == 32 * 64 * 4
    assert after["bytes_read"] - before["bytes_read"] == 2 * 32 * 64 * 4 + 2 * 4


def test_options_validate_names_and_executors():
    with pytest.raises(TypeError, match="unknown option"):
        with li.options(fusion=False):
            pass
    with pytest.raises(ValueError, match="unknown executor"):
        with li.options(executor="gpu"):
            pass
