"""Seeing it: graph(), explain() (with analyze), to_dot(), debug levels, counters."""

import re
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
def test_explain_names_the_copy_method_the_executor_will_use(shape, axes, monkeypatch):
    """Decided once at plan time, stored in the kernel record, printed, and run as written."""
    from lazyinfini._runtime import cpu
    from tests.runtime.copying import choose_method

    x_np = np.zeros(shape, np.float32)
    y = li.permute_dims(li.asarray(x_np), axes)
    (kernel,) = li.inspect.schedule(y).kernels
    dst = np.empty(y.shape, np.float32)
    target = li._device.DEVICES["cpu"].target
    assert kernel.method == choose_method(kernel.plan, np.transpose(x_np, axes), dst, target)
    assert f"    method {kernel.method} (" in li.explain(y)
    ran = []
    real = cpu.run_rearrange
    monkeypatch.setattr(cpu, "run_rearrange", lambda *args: ran.append(args[3]) or real(*args))
    with li.options(device="numpy"):  # NOTE: the cpu device runs large tiled copies in C
        np.asarray(li.permute_dims(li.asarray(x_np), axes))
    assert ran == [kernel.method]


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
    assert dot.count("subgraph cluster_") == len(li.inspect.schedule(y, z).kernels) == 3
    assert 'label="kernel 0: ' in dot and "rearrange copy" in dot
    assert "->" in dot


def test_visualize_without_graphviz_says_what_to_install(program, monkeypatch):
    # NOTE: an .svg file is drawn without graphviz (tests/test_see_page.py)
    import shutil

    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="graphviz"):
        li.visualize(program[2], filename="g.png")
    with pytest.raises(RuntimeError, match="^visualize: .*install graphviz.*an .svg file"):
        li.visualize(program[2], "g.pdf")


def _clusters(dot: str) -> list[str]:
    """The body of each `subgraph cluster_k { ... }` of DOT text."""
    return [part.split("\n  }")[0] for part in dot.split("subgraph cluster_")[1:]]


def test_to_dot_draws_every_kernel_with_its_nodes():
    # A transposed operand copied by a rearrange kernel first (the numpy device's schedule),
    # whose COPY node the scheduler adds; its cluster was once empty.
    a = li.asarray(np.ones((1024, 1024), np.float32))
    b = li.asarray(np.ones((1024, 1024), np.float32))
    with li.options(device="numpy"):
        y = li.clip(li.permute_dims(a, (1, 0)) - b, 0, 1)
        dot = li.to_dot(y)
        clusters = _clusters(dot)
        assert len(clusters) == len(li.inspect.schedule(y).kernels) == 2
    assert all("[label=" in body for body in clusters), clusters
    assert 'label="copy\\n1024x1024 float32' in clusters[0]
    (copy,) = re.findall(r'(n\d+) \[label="copy', clusters[0])
    (subtract,) = re.findall(r'(n\d+) \[label="subtract', clusters[1])
    (permute,) = re.findall(r'(n\d+) \[label="permute_dims', dot)
    assert f"{permute} -> {copy};" in dot and f"{copy} -> {subtract};" in dot
    assert f"{permute} -> {subtract};" not in dot  # the fused pass reads the copy


def test_to_dot_draws_a_view_of_a_copy_reading_the_copy():
    x = li.asarray(np.ones((6, 4)))
    dot = li.to_dot(li.reshape(li.permute_dims(x, (1, 0)), (-1,)) * 2)
    ids = {op: re.findall(rf'(n\d+) \[label="{op}', dot)[0] for op in ("permute", "copy")}
    ids |= {op: re.findall(rf'(n\d+) \[label="{op}', dot)[0] for op in ("reshape", "multiply")}
    edges = set(re.findall(r"(n\d+) -> (n\d+);", dot))
    assert (ids["permute"], ids["copy"]) in edges and (ids["copy"], ids["reshape"]) in edges
    assert (ids["reshape"], ids["multiply"]) in edges
    assert (ids["permute"], ids["reshape"]) not in edges


def test_to_dot_shows_constants_and_the_lines_that_made_inputs():
    LINE = sys._getframe().f_lineno + 1
    x = li.asarray(np.ones((2, 3), np.float32))
    dot = li.to_dot(li.clip(x * 2.5, -1, 1))
    assert f'"input\\n2x3 float32\\nmade at test_inspect.py:{LINE}"' in dot
    for value in ("2.5", "-1", "1"):
        assert f'label="constant {value}\\n2x3 float32"' in dot


def test_to_dot_escapes_quotes_in_labels():
    x = li.asarray(np.ones(2, np.complex64))
    dot = li.to_dot(x + 1j)
    assert 'label="constant 1j\\n2 complex64"' in dot
    assert all(line.count('"') % 2 == 0 for line in dot.splitlines())


def test_to_dot_on_the_reference_executor_draws_one_cluster_per_node(program):
    _, _, y = program
    with li.options(executor="reference"):
        clusters = _clusters(li.to_dot(y))
        assert len(clusters) == len(li.inspect.schedule(y).kernels)
    assert all("[label=" in body for body in clusters)


def test_visualize_takes_the_file_name_last(program, monkeypatch, tmp_path):
    import shutil
    import subprocess

    calls = []

    def run(command, **kwargs):
        calls.append((command, kwargs["input"]))
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/dot")
    monkeypatch.setattr(subprocess, "run", run)
    _, _, y = program
    target = str(tmp_path / "g.png")
    assert li.visualize(y, target) == target
    assert li.visualize(y, y + 1, filename=tmp_path / "h.svg") == str(tmp_path / "h.svg")
    assert calls[0][0] == ["/usr/bin/dot", "-Tpng", "-o", target]
    assert calls[0][1] == li.to_dot(y)
    assert calls[1][0][1] == "-Tsvg"


def test_visualize_reports_a_failing_dot(program, monkeypatch):
    import shutil
    import subprocess

    failed = subprocess.CompletedProcess([], 1, "", 'Format: "xyz" not recognized')
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/dot")
    monkeypatch.setattr(subprocess, "run", lambda command, **kwargs: failed)
    with pytest.raises(RuntimeError, match="^visualize: dot -Txyz failed: Format"):
        li.visualize(program[2], "g.xyz")


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
    with pytest.raises(ValueError, match="unknown device"):
        with li.options(executor="gpu"):
            pass
