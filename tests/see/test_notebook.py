"""Array._repr_html_: what a notebook shows. Never computes; bounded for huge graphs; a
computed array shows its values as numpy prints them."""

from __future__ import annotations

import numpy as np

import lazyinfini as li
from lazyinfini._graph import build_graph
from lazyinfini._see import notebook
from lazyinfini._see.collapse import MAX_BOXES

from .markup import node_titles, parse, text_of, with_class
from .programs import LINES, chain, transpose_clip_sum_rearrange


def _rows(reader) -> dict[str, str]:
    cells = [e for e in reader.elements if e["tag"] in ("th", "td")]
    return {text_of(k): text_of(v) for k, v in zip(cells[::2], cells[1::2])}


def test_a_pending_array_shows_what_it_would_run_and_computes_nothing():
    y, _, _ = transpose_clip_sum_rearrange()
    s = li.sum(y, axis=0)
    before = li.inspect.counters.snapshot()
    reader = parse(s._repr_html_())
    assert li.inspect.counters.snapshot() == before and s._node.op.label == "sum"
    rows = _rows(reader)
    assert rows["shape"] == "(128,)" and rows["dtype"] == "float32" and rows["device"] == "cpu"
    assert rows["bytes"] == "512 B"
    # permute_dims, subtract, the two bounds' fills, clip, sum
    assert rows["state"] == "pending: 6 nodes, nothing computed"
    assert sum(attrs["op"] != "buffer" for _, attrs in li.graph(s).nodes(data=True)) == 6
    kernels = li.inspect.schedule(s).kernels
    assert rows["kernels"] == "2: elementwise subtract_clip; opaque sum" and len(kernels) == 2
    assert len(with_class(reader, "kernel", "g")) == 2
    clip = [t for t in node_titles(reader) if t.startswith("clip")]
    assert clip and f"programs.py:{LINES['clip']}" in clip[0]  # the line, on hover


def test_a_computed_array_shows_its_values():
    x = li.asarray(np.arange(6.0).reshape(2, 3)) * 2
    x.compute()
    reader = parse(x._repr_html_())
    assert _rows(reader)["state"] == "computed"
    (pre,) = [e for e in reader.elements if e["tag"] == "pre"]
    numpy = repr(np.arange(6.0).reshape(2, 3) * 2)  # as numpy prints it
    assert text_of(pre) == repr(x) == "A" + numpy[1:-1] + ", dtype=float64)"
    assert not [e for e in reader.elements if e["tag"] == "svg"]


def test_a_huge_graph_is_drawn_in_bounded_size():
    y = chain(600)  # 1,800 elementwise nodes in one kernel
    reader = parse(y._repr_html_())
    drawn = with_class(reader, "node", "g")
    assert len(drawn) <= MAX_BOXES
    hidden = [t for t in node_titles(reader) if " nodes not drawn one by one" in t]
    assert hidden
    caption = [e for e in reader.elements if "stand for" in text_of(e) and e["tag"] == "div"][-1]
    total = sum(int(t.split()[0]) for t in hidden)
    assert f"stand for {total} of the schedule's " in text_of(caption)
    # NOTE: simplify() merged the loop's equal fills: the schedule's graph is the one drawn
    planned = build_graph(list(li.inspect.schedule(y).outputs))
    assert total + len(drawn) - len(hidden) == len(planned) < len(li.graph(y))


def test_past_the_plan_limit_a_preview_says_so(monkeypatch):
    monkeypatch.setattr(notebook, "PLAN_LIMIT", 10)
    reader = parse(chain(10)._repr_html_())
    assert "too many pending nodes to plan for a preview" in text_of(reader.elements[0])
    assert not [e for e in reader.elements if e["tag"] == "svg"]
