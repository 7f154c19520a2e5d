"""Where each box of a drawing goes: a layered layout of a DAG, inputs at the top.

No graphviz: boxes go into layers (every edge runs from a layer to a later one), are ordered
within their layer by the barycenter of their neighbours (sweeps down and up, which undo most
edge crossings), then placed left to right near the middle of their neighbours. A group (the
nodes of one kernel) is laid out on its own first and then placed as one box, inside a frame
with room for its title, so a kernel's nodes stay together and frames never overlap.
"""

from __future__ import annotations

from dataclasses import dataclass

GAP_X = 18  # between neighbours in a layer
GAP_Y = 30  # between layers: room for the edges' curves
PAD = 8  # between a frame and the boxes inside it
TITLE = 18  # a frame's title line
SWEEPS = 4  # barycenter sweeps (down and up); more rarely undo another crossing


@dataclass(frozen=True)
class Layout:
    """Top-left corners of the boxes, the frames of the groups (x, y, width, height: one per
    group index, None for a group with no box) and the size of the whole drawing."""

    x: tuple[float, ...]
    y: tuple[float, ...]
    frames: tuple[tuple[float, float, float, float] | None, ...]
    width: float
    height: float


def lay_out(sizes, edges, group_of, frame_widths=()) -> Layout:
    """The layout of boxes of `sizes` ((width, height) each) joined by `edges` (a, b): a above b.
    `group_of[i]` is box i's group, an index into `frame_widths` (the least width of each
    group's frame, for its title), or -1 for none."""
    groups = len(frame_widths)
    units, unit_of = _units(len(sizes), group_of, groups)
    inside: list[list[tuple[int, int]]] = [[] for _ in units]
    unit_edges = set()
    for a, b in edges:
        if unit_of[a] == unit_of[b]:
            inside[unit_of[a]].append((a, b))
        else:
            unit_edges.add((unit_of[a], unit_of[b]))
    inner = [_inner(m, sizes, inside[u], group_of[m[0]], frame_widths) for u, m in enumerate(units)]
    try:
        ux, uy, width, height = layered([(w, h) for _, _, w, h in inner], sorted(unit_edges))
    except ValueError:  # NOTE: contracting a group made a cycle: draw the boxes flat instead
        return _flat(sizes, edges, group_of, groups)
    x, y = [0.0] * len(sizes), [0.0] * len(sizes)
    frames: list = [None] * groups
    for u, (members, (xs, ys, w, h)) in enumerate(zip(units, inner)):
        for i, v in enumerate(members):
            x[v], y[v] = ux[u] + xs[i], uy[u] + ys[i]
        if group_of[members[0]] >= 0:
            frames[group_of[members[0]]] = (ux[u], uy[u], w, h)
    return Layout(tuple(x), tuple(y), tuple(frames), width, height)


def _units(n: int, group_of, groups: int) -> tuple[list[list[int]], list[int]]:
    """The boxes of each group as one unit, and every other box as a unit of its own."""
    units: list[list[int]] = [[] for _ in range(groups)]
    for v in range(n):
        if group_of[v] < 0:
            units.append([v])
        else:
            units[group_of[v]].append(v)
    units = [members for members in units if members]
    unit_of = [0] * n
    for u, members in enumerate(units):
        for v in members:
            unit_of[v] = u
    return units, unit_of


def _inner(members, sizes, edges, group: int, frame_widths):
    """The boxes of one unit laid out on their own: (x, y) of each inside the unit, and the
    unit's width and height (a group's take in its frame's padding and title)."""
    if group < 0:  # NOTE: one box, as most units of a big program are
        (v,) = members
        return [0.0], [0.0], sizes[v][0], sizes[v][1]
    index = {v: i for i, v in enumerate(members)}
    inside = [(index[a], index[b]) for a, b in edges]
    xs, ys, width, height = layered([sizes[v] for v in members], inside)
    framed = max(width + 2 * PAD, frame_widths[group])
    xs = [x + (framed - width) / 2 for x in xs]  # NOTE: centred under a longer title
    ys = [y + TITLE for y in ys]
    return xs, ys, framed, height + TITLE + PAD


def _flat(sizes, edges, group_of, groups: int) -> Layout:
    """Every box laid out alone; each group's frame is the bounding box of its boxes."""
    x, y, width, height = layered(sizes, edges)
    frames: list = [None] * groups
    for v, group in enumerate(group_of):
        if group < 0:
            continue
        left, top = x[v] - PAD, y[v] - TITLE
        right, bottom = x[v] + sizes[v][0] + PAD, y[v] + sizes[v][1] + PAD
        if frames[group] is not None:
            fx, fy, fw, fh = frames[group]
            left, top = min(left, fx), min(top, fy)
            right, bottom = max(right, fx + fw), max(bottom, fy + fh)
        frames[group] = (left, top, right - left, bottom - top)
    return Layout(tuple(x), tuple(y), tuple(frames), width, height)


def layered(sizes, edges) -> tuple[list[float], list[float], float, float]:
    """Top-left corners (x, y) of boxes of `sizes` with every edge (a, b) pointing down, and
    the drawing's width and height. ValueError if the edges make a cycle."""
    n = len(sizes)
    if n == 1 and not edges:  # NOTE: most units are one box: a big program has thousands
        return [0.0], [0.0], sizes[0][0], sizes[0][1]
    above: list[list[int]] = [[] for _ in range(n)]
    below: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        above[b].append(a)
        below[a].append(b)
    rows = _order(_layers(below), above, below)
    y, height = _row_tops(rows, sizes)
    x, width = _columns(rows, sizes, above, below)
    return x, y, width, height


def _layers(below: list[list[int]]) -> list[int]:
    """Each box's layer: one past its deepest input, then pulled down to just above its first
    consumer (an input read late sits next to its reader, not at the top)."""
    n = len(below)
    waiting = [0] * n
    for targets in below:
        for b in targets:
            waiting[b] += 1
    order = [v for v in range(n) if not waiting[v]]
    layer = [0] * n
    for v in order:  # NOTE: grows while walked (Kahn's algorithm)
        for b in below[v]:
            layer[b] = max(layer[b], layer[v] + 1)
            waiting[b] -= 1
            if not waiting[b]:
                order.append(b)
    if len(order) < n:
        raise ValueError("layout: the edges make a cycle")
    for v in reversed(order):
        if below[v]:
            layer[v] = min(layer[b] for b in below[v]) - 1
    return layer


def _order(layer: list[int], above, below) -> list[list[int]]:
    """The boxes of each layer, left to right: by barycenter of their neighbours."""
    rows: list[list[int]] = [[] for _ in range(max(layer, default=-1) + 1)]
    for v, row in enumerate(layer):
        rows[row].append(v)
    rank = [0.0] * len(layer)
    for row in rows:
        _rank(row, rank)
    for _ in range(SWEEPS):
        for row in rows[1:]:
            _sort(row, above, rank)
        for row in reversed(rows[:-1]):
            _sort(row, below, rank)
    return rows


def _sort(row: list[int], neighbours, rank: list[float]) -> None:
    if len(row) < 2:
        return  # NOTE: a chain's rows: nothing to order

    def barycenter(v: int) -> float:
        near = neighbours[v]
        return sum(rank[u] for u in near) / len(near) if near else rank[v]

    row.sort(key=barycenter)  # NOTE: stable: boxes with no neighbours there keep their place
    _rank(row, rank)


def _rank(row: list[int], rank: list[float]) -> None:
    """Each box's place as a fraction of its row: rows of different lengths compare."""
    for i, v in enumerate(row):
        rank[v] = (i + 0.5) / len(row)


def _row_tops(rows, sizes) -> tuple[list[float], float]:
    y = [0.0] * len(sizes)
    top = 0.0
    for row in rows:
        tallest = max(sizes[v][1] for v in row)
        for v in row:
            y[v] = top
        top += tallest + GAP_Y
    return y, max(top - GAP_Y, 0.0)


def _columns(rows, sizes, above, below) -> tuple[list[float], float]:
    """Left edges: each row packed in its order, then moved towards the middle of its
    neighbours above, below, and above again."""
    x = [0.0] * len(sizes)
    for row in rows:
        _fit(row, [0.0] * len(row), sizes, x)
    for neighbours, walk in ((above, rows), (below, rows[::-1]), (above, rows)):
        for row in walk:
            wanted = [_middle(v, neighbours[v], sizes, x) for v in row]
            _fit(row, wanted, sizes, x)
    left = min(x, default=0.0)
    for v in range(len(x)):
        x[v] -= left
    width = max((x[v] + sizes[v][0] for v in range(len(x))), default=0.0)
    return x, width


def _middle(v: int, near: list[int], sizes, x: list[float]) -> float:
    """Where box v's left edge goes to be centred under (or over) its neighbours."""
    if not near:
        return x[v]
    centre = sum(x[u] + sizes[u][0] / 2 for u in near) / len(near)
    return centre - sizes[v][0] / 2


def _fit(row: list[int], wanted: list[float], sizes, x: list[float]) -> None:
    """Left edges as near `wanted` as the row's order and gaps allow: the mean of packing from
    the left and from the right (both keep every gap, so their mean does too)."""
    if len(row) == 1:
        x[row[0]] = wanted[0]
        return
    from_left, edge = [], float("-inf")
    for v, want in zip(row, wanted):
        edge = max(want, edge)
        from_left.append(edge)
        edge += sizes[v][0] + GAP_X
    from_right, edge = [0.0] * len(row), float("inf")
    for i in range(len(row) - 1, -1, -1):
        v = row[i]
        edge = min(wanted[i], edge - sizes[v][0])
        from_right[i] = edge
        edge -= GAP_X
    for i, v in enumerate(row):
        x[v] = (from_left[i] + from_right[i]) / 2
