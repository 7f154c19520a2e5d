"""The layered layout (lazyinfini/_see/layout.py): every box placed once, none overlapping,
every edge pointing down, kernels' frames around their boxes only; and folding (collapse.py)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lazyinfini._see import layout as L
from lazyinfini._see.collapse import collapse, fold_chains, nearest_outputs
from lazyinfini._see.scene import Box, Scene


@st.composite
def dags(draw, most: int = 40):
    """(sizes, edges, group_of, groups): a random DAG (edges from lower to higher index) and
    groups made of nodes whose contraction keeps it acyclic (consecutive index runs that
    no edge leaves and re-enters)."""
    n = draw(st.integers(1, most))
    sizes = [(draw(st.integers(40, 160)), draw(st.sampled_from([36, 50]))) for _ in range(n)]
    pairs = [(a, b) for b in range(n) for a in range(max(0, b - 6), b)]
    edges = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=3 * n)) if pairs else []
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=n // 2))) if n > 1 else []
    runs = [list(range(a, b)) for a, b in zip([0, *cuts], [*cuts, n])]
    group_of, groups = [-1] * n, 0
    for run in runs:
        if len(run) > 1 and draw(st.booleans()):
            for v in run:
                group_of[v] = groups
            groups += 1
    return sizes, edges, group_of, groups


def _overlap(a, b) -> bool:
    (ax, ay, aw, ah), (bx, by, bw, bh) = a, b
    return ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah


def _boxes(layout, sizes):
    return [(layout.x[v], layout.y[v], *sizes[v]) for v in range(len(sizes))]


def check(layout, sizes, edges, group_of) -> None:
    boxes = _boxes(layout, sizes)
    assert len(layout.x) == len(layout.y) == len(sizes)  # every box placed, once
    assert all(math.isfinite(c) for c in layout.x + layout.y)
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            assert not _overlap(boxes[i], boxes[j]), (i, j, boxes[i], boxes[j])
    for a, b in edges:
        assert layout.y[a] + sizes[a][1] < layout.y[b], (a, b)  # the edge points down
    for x, y, w, h in boxes:
        assert 0 <= x and x + w <= layout.width + 1e-6 and 0 <= y and y + h <= layout.height + 1e-6
    for g, frame in enumerate(layout.frames):
        members = [v for v in range(len(sizes)) if group_of[v] == g]
        assert (frame is None) == (not members)
        for v in range(len(sizes)):
            inside = _contains(frame, boxes[v]) if frame else False
            assert inside == (v in members), (g, v)  # its boxes inside, no other box


def _contains(frame, box) -> bool:
    fx, fy, fw, fh = frame
    x, y, w, h = box
    return fx <= x and x + w <= fx + fw and fy <= y and y + h <= fy + fh


@given(dags())
def test_layout_places_every_box_once_without_overlap_and_edges_point_down(case):
    sizes, edges, group_of, groups = case
    widths = [150.0] * groups
    layout = L.lay_out(sizes, edges, group_of, widths)
    check(layout, sizes, edges, group_of)
    frames = [f for f in layout.frames if f is not None]
    for i in range(len(frames)):
        for j in range(i + 1, len(frames)):
            assert not _overlap(frames[i], frames[j])
    assert all(f[2] >= 150.0 for f in frames)  # room for the title


def test_a_group_whose_contraction_makes_a_cycle_is_laid_out_flat():
    # 0 -> 1 -> 2 with 0 and 2 in one kernel: as one unit it would read its own output.
    sizes, edges, group_of = [(80, 40)] * 3, [(0, 1), (1, 2)], [0, -1, 0]
    layout = L.lay_out(sizes, edges, group_of, [100.0])
    boxes = _boxes(layout, sizes)
    assert layout.y[0] < layout.y[1] < layout.y[2]
    assert not any(_overlap(boxes[i], boxes[j]) for i in range(3) for j in range(i + 1, 3))
    assert _contains(layout.frames[0], boxes[0]) and _contains(layout.frames[0], boxes[2])


def test_layered_refuses_a_cycle():
    with pytest.raises(ValueError, match="cycle"):
        L.layered([(10, 10)] * 2, [(0, 1), (1, 0)])


def _crossings(layout, sizes, edges) -> int:
    def centre(v):
        return layout.x[v] + sizes[v][0] / 2

    count = 0
    for i, (a, b) in enumerate(edges):
        for c, d in edges[i + 1 :]:
            if layout.y[a] == layout.y[c] and layout.y[b] == layout.y[d]:
                count += (centre(a) - centre(c)) * (centre(b) - centre(d)) < 0
    return count


def test_barycenters_undo_crossings():
    # Two layers of three: the first order crosses every edge; the sweeps untangle them.
    sizes = [(50, 30)] * 6
    edges = [(0, 5), (1, 4), (2, 3)]
    layout = L.lay_out(sizes, edges, [-1] * 6)
    assert _crossings(layout, sizes, edges) == 0


def test_inputs_sit_just_above_their_first_reader():
    # 0 -> 1 -> 2 -> 3 and an input 4 read only by 3: pulled down next to 3, not at the top.
    sizes = [(50, 30)] * 5
    layout = L.lay_out(sizes, [(0, 1), (1, 2), (2, 3), (4, 3)], [-1] * 5)
    assert layout.y[4] == layout.y[2] > layout.y[0]


def _box(kernel: int = -1, op: str = "exp") -> Box:
    return Box((op, "4 float32"), op, kernel, "op", None)


def test_fold_chains_keeps_the_ends_and_counts_the_rest():
    # input -> 10 ops of kernel 0 in a chain, each also reading one constant
    boxes = [Box(("input",), "", -1, "input", None), _box(-1, "constant")]
    boxes += [_box(0, "exp" if i % 2 else "add") for i in range(10)]
    links = [(0, 2)] + [(i, i + 1) for i in range(2, 11)] + [(1, i) for i in range(2, 12)]
    scene = Scene(tuple(boxes), tuple(links), ("kernel 0",))
    folded = fold_chains(scene)
    hidden = [b for b in folded.boxes if b.kind == "hidden"]
    assert len(folded.boxes) == 5 and len(hidden) == 1
    assert hidden[0].count == folded.hidden == 8 and hidden[0].kernel == 0
    assert "add x4" in hidden[0].hover and "exp x4" in hidden[0].hover
    layout = L.lay_out([(90, 40)] * 5, folded.links, [b.kernel for b in folded.boxes], [100.0])
    check(layout, [(90, 40)] * 5, folded.links, [b.kernel for b in folded.boxes])


def test_nearest_outputs_keeps_the_limit_and_one_box_for_the_rest():
    n = 30
    boxes = tuple(_box() for _ in range(n))
    links = tuple((i, i + 1) for i in range(n - 1)) + tuple((i, n - 1) for i in range(0, n - 2, 3))
    cut = nearest_outputs(Scene(boxes, links, ()), 10)
    assert len(cut.boxes) == 10
    (rest,) = [b for b in cut.boxes if b.kind == "hidden"]
    assert rest.count == cut.hidden == n - 9
    sinks = [v for v in range(10) if not any(a == v for a, _ in cut.links)]
    assert [cut.boxes[v] for v in sinks] == [boxes[-1]]  # the output stays


def test_collapse_bounds_a_scene_of_any_size():
    n = 500
    boxes = tuple(_box(k % 7) for k in range(n))
    links = tuple((i, j) for i in range(n) for j in (i + 1, i + 7) if j < n)
    cut = collapse(Scene(boxes, links, tuple(f"kernel {k}" for k in range(7))), limit=40)
    assert len(cut.boxes) <= 40
    assert sum(b.count for b in cut.boxes) == n  # every node drawn or counted
