"""The explain page (li.explain(format="html"), li.report) and visualize's SVG without graphviz:
well formed, self-contained, and holding every node and kernel of the program once."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._device import get_device
from lazyinfini._runtime.text import byte_size
from lazyinfini._see import page as page_module
from lazyinfini._see.measure import Measured, _watching_compilers

from .markup import first_line_ops, json_script, node_titles, parse, text_of, with_class
from .programs import LINES, many_kernels, transpose_clip_sum_rearrange


def _expected_ops(arrays, sched) -> Counter:
    """'op shape dtype' of every node of li.graph(arrays) and of each node a kernel adds (a
    rearrange's copy): what the drawing must show, once each."""
    graph = li.graph(*arrays)
    nodes = list(graph) + [n for k in sched.kernels for n in k.nodes if n not in graph]
    return Counter(_op_text(n) for n in dict.fromkeys(nodes))


def _op_text(node) -> str:
    shape = "x".join(map(str, node.shape)) or "scalar"
    return f"{node.op.label} {shape} {node.dtype.name}"


def test_page_is_well_formed_and_draws_every_node_and_kernel_once():
    arrays = transpose_clip_sum_rearrange()
    sched = li.inspect.schedule(*arrays)
    assert not sched.rewrites  # NOTE: then li.graph's nodes are the drawing's
    reader = parse(li.explain(*arrays, format="html"))
    assert Counter(first_line_ops(node_titles(reader))) == _expected_ops(arrays, sched)
    ids = [e["attrs"]["id"] for e in reader.elements if "id" in e["attrs"]]
    assert len(ids) == len(set(ids))  # each node and each kernel drawn once
    frames = with_class(reader, "kernel", "g")
    assert [f["attrs"]["data-kernel"] for f in frames] == [str(k) for k in range(3)]
    assert len(with_class(reader, "krow", "tr")) == len(sched.kernels) == 3
    for frame, kernel in zip(frames, sched.kernels):
        assert text_of(frame).startswith(f"kernel {frames.index(frame)}: {kernel.kind.value}")


def test_page_shows_paths_loads_plans_and_bytes_per_kernel():
    arrays = transpose_clip_sum_rearrange()
    sched = li.inspect.schedule(*arrays)
    device = get_device("cpu")
    reader = parse(li.explain(*arrays, format="html"))
    details = json_script(reader, "li-kernels")
    assert len(details) == len(sched.kernels)
    for text, kernel in zip(details, sched.kernels):
        parse(text)
        path = device.describe(kernel) or "one library call"
        assert f"<th>path</th><td>{path}</td>" in text
        assert f"read {byte_size(kernel.bytes_read)}" in text
        for load in kernel.loads:
            assert str(load.strides) in text  # each load with its layout
    elementwise, reduction, rearrange = details
    assert "strided, read across rows" in elementwise and "broadcast" in elementwise
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="plan"' in rearrange
    assert f"block {'x'.join(map(str, sched.kernels[2].plan.block_len))} units" in rearrange
    assert 'class="plan"' not in elementwise


def test_every_fusion_decision_is_listed_and_a_split_edge_says_why():
    arrays = transpose_clip_sum_rearrange()
    sched = li.inspect.schedule(*arrays)
    reader = parse(li.explain(*arrays, format="html"))
    rows = with_class(reader, "drow", "tr")
    assert len(rows) == len(sched.decisions) > 0
    data = json_script(reader, "li-data")
    for i, decision in enumerate(sched.decisions):
        assert data["decisions"][i][0] == decision.fused
        assert data["decisions"][i][3] == decision.reason
        assert decision.reason in text_of(rows[i])
    splits = with_class(reader, "split", "g")
    assert len(splits) == sum(not d.fused for d in sched.decisions) == 1
    (split,) = splits
    reason = sched.decisions[int(split["attrs"]["data-decision"])].reason
    assert reason == "consumer is a reduce op (sum)"


def test_a_node_knows_its_line_of_code():
    arrays = transpose_clip_sum_rearrange()
    reader = parse(li.explain(*arrays, format="html"))
    data = json_script(reader, "li-data")
    (clip,) = [n for n in data["nodes"] if n[0] == "clip"]
    source, code = data["sources"][clip[4]]
    assert source.endswith(f"programs.py:{LINES['clip']}")  # NOTE: see/ where names collide
    assert code == "y = li.clip(li.permute_dims(a, (1, 0)) - b, 0, 1)"


def test_page_needs_nothing_from_outside():
    text = li.explain(*transpose_clip_sum_rearrange(), format="html")
    # NOTE: the SVG namespace is a name, never fetched
    assert set(re.findall(r"https?://[\w./-]+", text)) == {"http://www.w3.org/2000/svg"}
    assert not re.search(r"<link|<img|\ssrc=|@import|url\((?!#)", text)
    assert text.count("<script>") == 1 and "<style>" in text


def test_explain_checks_its_format():
    y = li.ones(3) + 1
    with pytest.raises(ValueError, match="^explain: format must be 'text' or 'html'"):
        li.explain(y, format="svg")
    assert li.explain(y, format="text") == li.explain(y)


def test_report_writes_one_file(tmp_path, monkeypatch):
    arrays = transpose_clip_sum_rearrange()
    path = tmp_path / "x.html"
    assert li.report(*arrays, path) == str(path)
    assert path.read_text(encoding="utf-8") == li.explain(*arrays, format="html")
    assert li.report(arrays[0], path=tmp_path / "y.html") == str(tmp_path / "y.html")
    monkeypatch.chdir(tmp_path)
    assert li.report(arrays[1]) == "report.html" and (tmp_path / "report.html").exists()
    with pytest.raises(TypeError, match="^report: a file name both as the last argument and path="):
        li.report(arrays[0], "a.html", path="b.html")
    with pytest.raises(TypeError, match="^report: no arrays to draw"):
        li.report("a.html")
    with pytest.raises(TypeError, match="^report: path must be a str or a path"):
        li.report(arrays[0], path=3)
    with pytest.raises(TypeError, match="^report: expected lazyinfini arrays, got ndarray"):
        li.report(np.ones(2), "a.html")


def test_analyzed_page_measures_the_run(tmp_path):
    arrays = transpose_clip_sum_rearrange()
    reader = parse(li.explain(*arrays, analyze=True, format="html"))
    assert all(a._node.op.label == "buffer" for a in arrays)  # it ran
    bars = with_class(reader, "tbar", "rect")
    assert [b["attrs"]["data-kernel"] for b in bars] == ["0", "1", "2"]
    totals = text_of(with_class(reader, "totals", "table")[0])
    for row in ("the run", "kernels", "host", "between kernels", "compiling new kernels"):
        assert row in totals
    rows = with_class(reader, "krow", "tr")
    assert all("% of copy bandwidth)" in text_of(row) for row in rows)
    again = parse(li.explain(*arrays, analyze=True, format="html"))  # nothing pending now
    assert not with_class(again, "tbar") and not with_class(again, "krow")
    summary = text_of(with_class(again, "summary")[0])
    assert summary == "nothing pending: every array is already computed"


def test_measured_timeline_is_consistent():
    from lazyinfini._see.measure import measure

    measured = measure(transpose_clip_sum_rearrange())
    starts, seconds = measured.starts, measured.seconds
    assert len(starts) == len(seconds) == len(measured.schedule.kernels) == 3
    for k in range(3):
        assert 0 <= starts[k] and starts[k] + seconds[k] <= measured.wall + 1e-9
        if k:
            assert starts[k - 1] + seconds[k - 1] <= starts[k] + 1e-9  # one after the other
    assert measured.kernel_time + measured.host_time == pytest.approx(measured.wall)
    assert measured.before + measured.after <= measured.host_time + 1e-9


def test_compiling_is_attributed_to_the_kernels_that_waited_for_it():
    kernels = transpose_clip_sum_rearrange()
    sched = li.inspect.schedule(*kernels)
    m = Measured(sched, (0.010, 0.020, 0.030), (0.008, 0.005, 0.005), ((0.001, 0.004),
                 (0.021, 0.024)), 0.040, 10e9, False)  # fmt: skip
    assert m.compile_time == pytest.approx(0.006)
    assert m.compiling(0.0, m.before) == pytest.approx(0.003)  # ahead of the first kernel
    assert m.running(1) == pytest.approx(0.002) and m.running(0) == pytest.approx(0.008)
    kernel = sched.kernels[1]
    assert m.rate(1) == pytest.approx((kernel.bytes_read + kernel.bytes_written) / 0.002)


def test_compiler_runs_are_seen(tmp_path, monkeypatch):
    from lazyinfini._render import compile as c

    if c.compiler() is None:
        pytest.skip("no C compiler")
    monkeypatch.setenv("LAZYINFINI_CACHE_DIR", str(tmp_path))
    real = c._build
    spans: list = []
    with _watching_compilers(spans):
        c.load(f"int li_seen_{tmp_path.name.replace('-', '_')}(void) {{ return 7; }}\n")
    assert len(spans) == 1 and spans[0][0] < spans[0][1]
    assert c._build is real  # put back


def test_visualize_without_graphviz_draws_the_svg_itself(tmp_path, monkeypatch):
    import shutil

    monkeypatch.setattr(shutil, "which", lambda name: None)
    arrays = transpose_clip_sum_rearrange()
    target = tmp_path / "g.svg"
    assert li.visualize(*arrays, target) == str(target)
    reader = parse(target.read_text())
    assert reader.elements[0]["tag"] == "svg"
    assert len(with_class(reader, "kernel", "g")) == 3
    sched = li.inspect.schedule(*arrays)
    assert Counter(first_line_ops(node_titles(reader))) == _expected_ops(arrays, sched)


def test_a_big_page_attaches_its_drawing_band_by_band(monkeypatch):
    monkeypatch.setattr(page_module, "INLINE_BOXES", 50)
    monkeypatch.setattr(page_module, "BAND", 400)
    x = many_kernels(12)
    sched = li.inspect.schedule(x)
    reader = parse(li.explain(x, format="html"))
    bands = json_script(reader, "li-bands")
    inline = [e["attrs"]["id"] for e in with_class(reader, "node", "g")]
    node_id = re.compile(r'<g class="node [a-z]+" id="(n\d+)"')
    banded = [i for band in bands for i in node_id.findall(band[3])]
    count = len(json_script(reader, "li-data")["nodes"])
    assert count > 50 and len(bands) > 3
    assert sorted(inline + banded, key=lambda i: int(i[1:])) == [f"n{i}" for i in range(count)]
    frames = re.findall(r'<g class="kernel" id="(k\d+)"', "".join(b[0] for b in bands))
    frames += [e["attrs"]["id"] for e in with_class(reader, "kernel", "g")]
    assert sorted(frames, key=lambda i: int(i[1:])) == [f"k{k}" for k in range(len(sched.kernels))]
    for band in bands:
        parse("<svg>" + "".join(band) + "</svg>")


def test_long_tables_hold_their_first_rows_and_the_rest_wait(monkeypatch):
    monkeypatch.setattr(page_module, "INLINE_ROWS", 10)
    monkeypatch.setattr(page_module, "CHUNK", 7)
    x = many_kernels(6)
    sched = li.inspect.schedule(x)
    reader = parse(li.explain(x, format="html"))
    shown = [int(r["attrs"]["data-kernel"]) for r in with_class(reader, "krow", "tr")]
    chunks = json_script(reader, "li-rows-kernels")
    waiting = [int(k) for chunk in chunks for k in re.findall(r'data-kernel="(\d+)"', chunk)]
    assert shown == list(range(10)) and all(chunk.count("<tr") <= 7 for chunk in chunks)
    assert shown + waiting == list(range(len(sched.kernels)))
    # decisions past the first 10: drawn by the script from the data it holds anyway
    assert len(with_class(reader, "drow", "tr")) == 10 < len(sched.decisions)
    assert len(json_script(reader, "li-data")["decisions"]) == len(sched.decisions)
    (more,) = [
        e for e in with_class(reader, "more", "tbody") if e["attrs"]["data-table"] == "decisions"
    ]
    assert more["attrs"]["data-first"] == "10" and "li-rows-decisions" not in reader.scripts


def test_both_compilers_are_watched_and_put_back():
    import importlib

    from lazyinfini._see.measure import COMPILERS

    modules = [importlib.import_module(name) for name, _ in COMPILERS]  # NOTE: nvrtc: no GPU
    real = [getattr(m, f) for m, (_, f) in zip(modules, COMPILERS)]
    with _watching_compilers([]):
        assert all(getattr(m, f) is not r for m, (_, f), r in zip(modules, COMPILERS, real))
    assert [getattr(m, f) for m, (_, f) in zip(modules, COMPILERS)] == real
