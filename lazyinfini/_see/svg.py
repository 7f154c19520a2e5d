"""A scene drawn as SVG text: kernels as coloured frames, nodes as boxes, edges as curves.

Colours are SVG attributes, not CSS, so the picture looks the same in a notebook that strips
styles, in a file of its own and on the explain page; classes and data- attributes are what the
page's script reads (`g.kernel[data-kernel]`, `g.node[data-node]`, `path.edge[data-decision]`).
Hover text is SVG's <title>: it needs no script.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape

from .layout import lay_out

FONT = 11  # px, monospace: a line's width is known from its length
CHAR = 6.7  # px per character at FONT
LEADING = 14  # px per line of a box
MARGIN = 10

_BOX_STYLE = {
    "input": 'fill="#e9e9e9" stroke="#888"',
    "constant": 'fill="#fff" stroke="#888" stroke-dasharray="3 2"',
    "view": 'fill="#fff" stroke="#777" stroke-dasharray="1 2"',
    "hidden": 'fill="#f4f4f4" stroke="#aaa" stroke-dasharray="5 3"',
}


def colour(k: int, light: int) -> str:
    """Kernel k's colour: hues a golden angle apart, so neighbours in the order differ."""
    return f"hsl({k * 137.508 % 360:.0f},60%,{light}%)"


def box_size(box) -> tuple[float, float]:
    width = max(len(line) for line in box.lines) * CHAR + 12
    return max(width, 60.0), len(box.lines) * LEADING + 8


def frame_width(title: str) -> float:
    return len(title) * CHAR + 16


LAYERS = ("frames", "edges", "splits", "boxes")  # drawn in this order, bottom to top


@dataclass(frozen=True)
class Drawing:
    """A scene's SVG in pieces: the opening tag and, for each of LAYERS, its items as
    (top, bottom, markup), so that a page can attach a huge drawing a band at a time."""

    head: str
    layers: dict
    boxes: tuple[tuple[float, float], ...]  # each box's (x, y): where the page scrolls to


def draw(scene, *, scale: float = 1.0, element_id: str = "") -> str:
    """The SVG of `scene` (`scale` < 1 draws it smaller, for a notebook)."""
    drawn = drawing(scene, scale=scale, element_id=element_id)
    parts = [drawn.head]
    for name in LAYERS:
        parts.append(LAYER_OPEN[name])
        parts += [markup for _, _, markup in drawn.layers[name]]
        parts.append("</g>")
    parts.append("</svg>")
    return "\n".join(parts)


def drawing(scene, *, scale: float = 1.0, element_id: str = "") -> Drawing:
    sizes = [box_size(box) for box in scene.boxes]
    group_of = [box.kernel for box in scene.boxes]
    widths = [frame_width(title) for title in scene.titles]
    layout = lay_out(sizes, scene.links, group_of, widths)
    width, height = layout.width + 2 * MARGIN, layout.height + 2 * MARGIN
    ident = f' id="{element_id}"' if element_id else ""
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="dag"{ident} '
        f'width="{width * scale:.0f}" height="{height * scale:.0f}" '
        f'viewBox="{-MARGIN} {-MARGIN} {width:.0f} {height:.0f}" '
        f'font-family="monospace" font-size="{FONT}">{_DEFS}'
    )
    edges, splits = _edges(scene, layout, sizes)
    layers = {
        "frames": _frames(scene, layout),
        "edges": edges,
        "splits": splits,
        "boxes": _boxes(scene, layout, sizes),
    }
    return Drawing(head, layers, tuple(zip(layout.x, layout.y)))


_DEFS = (
    '<defs><marker id="li-arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" '
    'markerHeight="7" markerUnits="userSpaceOnUse" orient="auto">'
    '<path d="M0,0 L8,4 L0,8 z" fill="#555"/></marker></defs>'
)


def _frames(scene, layout) -> list[tuple]:
    parts = []
    for k, frame in enumerate(layout.frames):
        if frame is None:
            continue
        x, y, w, h = frame
        title = escape(scene.titles[k])
        markup = (
            f'<g class="kernel" id="k{k}" data-kernel="{k}"><title>{title}</title>'
            f'<rect x="{x:.0f}" y="{y:.0f}" width="{w:.0f}" height="{h:.0f}" rx="6" '
            f'fill="{colour(k, 94)}" stroke="{colour(k, 45)}"/>'
            f'<text x="{x + 6:.0f}" y="{y + 13:.0f}" fill="{colour(k, 25)}">{title}</text></g>'
        )
        parts.append((y, y + h, markup))
    return parts


def _ends(scene, layout, sizes) -> dict:
    """Where each link leaves its source's bottom and enters its target's top: spread along
    the side, in the order of the other ends, so edges into one box do not meet at a point."""
    outs: dict[int, list] = {}
    ins: dict[int, list] = {}
    for a, b in scene.links:
        outs.setdefault(a, []).append((layout.x[b], b))
        ins.setdefault(b, []).append((layout.x[a], a))
    ends = {}
    for side, table in ((0, outs), (1, ins)):
        for v, others in table.items():
            others.sort()
            for j, (_, u) in enumerate(others):
                link = (v, u) if side == 0 else (u, v)
                ends[link, side] = layout.x[v] + sizes[v][0] * (j + 1) / (len(others) + 1)
    return ends


def _edges(scene, layout, sizes) -> tuple[list, list]:
    """The edges as two layers, plain and fused ones, and split ones: the paths of a layer
    inherit its group's attributes (a big program has tens of thousands). A fused or split
    edge says why on hover. An edge longer than LONG is drawn as two stubs, one under its
    source and one over its target, each naming (and, on the page, leading to) the other end:
    a constant that a loop reads at every step would otherwise cross the whole drawing a
    thousand times (and cost a browser seconds to paint)."""
    ends = _ends(scene, layout, sizes)
    plain, split = [], []
    for a, b in scene.links:
        x1, y1 = ends[(a, b), 0], layout.y[a] + sizes[a][1]
        x2, y2 = ends[(a, b), 1], layout.y[b]
        decision = scene.decision_of.get((a, b))
        verdict = scene.decisions[decision] if decision is not None else None
        if y2 - y1 > LONG:
            pieces = [
                (y1, y1 + STUB, _stub(scene, b, f"M{x1:.0f},{y1:.0f}v{STUB}", "to")),
                (y2 - STUB, y2, _stub(scene, a, f"M{x2:.0f},{y2 - STUB:.0f}v{STUB}", "from")),
            ]
        else:
            pieces = [(y1, y2, f'<path d="{_curve(x1, y1, x2, y2)}"/>')]
        for top, bottom, markup in pieces:
            if verdict is None:
                plain.append((top, bottom, markup))
            else:
                wrapped = _decided(decision, verdict, markup)
                (plain if verdict.fused else split).append((top, bottom, wrapped))
    return plain, split


def _curve(x1: float, y1: float, x2: float, y2: float) -> str:
    """A curve leaving (x1, y1) and reaching (x2, y2) downwards."""
    mid = (y1 + y2) / 2
    return f"M{x1:.0f},{y1:.0f}C{x1:.0f},{mid:.0f} {x2:.0f},{mid:.0f} {x2:.0f},{y2:.0f}"


LONG = 1200  # px: a longer edge is drawn as two stubs
STUB = 30  # px: a stub's length


def _stub(scene, other: int, path: str, way: str) -> str:
    box = scene.boxes[other]
    where = f" at {box.node.source}" if box.node is not None and box.node.source else ""
    title = escape(f"{way} {box.lines[0]} {box.lines[1] if len(box.lines) > 1 else ''}{where}")
    return (
        f'<path class="stub" data-node="{other}" d="{path}" stroke-dasharray="2 2">'
        f"<title>{title}</title></path>"
    )


def _decided(decision: int, verdict, markup: str) -> str:
    """An edge a fusion decision is about, saying why on hover. NOTE: a split edge is there to
    be clicked: a wide transparent twin of its path takes the clicks."""
    kind = "fused" if verdict.fused else "split"
    paths = re.findall(r'd="([^"]+)"', markup)
    hit = "".join(f'<path d="{d}" {_HIT}/>' for d in paths) if not verdict.fused else ""
    return (
        f'<g class="edge {kind}" data-decision="{decision}"><title>{escape(verdict.reason)}'
        f"</title>{markup}{hit}</g>"
    )


_LINE = 'fill="none" stroke="#555" stroke-width="1.2" marker-end="url(#li-arrow)"'
_SPLIT = (
    'fill="none" stroke="#c0392b" stroke-width="2.2" stroke-dasharray="5 3" '
    'marker-end="url(#li-arrow)"'
)
_HIT = 'stroke="transparent" stroke-width="10" stroke-dasharray="none" marker-end="none"'
LAYER_OPEN = {
    "frames": '<g class="frames">',
    "edges": f'<g class="edges" {_LINE}>',
    "splits": f'<g class="splits" {_SPLIT}>',
    "boxes": '<g class="boxes">',
}


def _boxes(scene, layout, sizes) -> list[tuple]:
    parts = []
    for i, box in enumerate(scene.boxes):
        (w, h), x, y = sizes[i], layout.x[i], layout.y[i]
        style = _BOX_STYLE.get(box.kind) or (
            f'fill="#fff" stroke="{colour(box.kernel, 40)}"' if box.kernel >= 0 else 'fill="#fff"'
        )
        head, *rest = box.lines
        lines = f'<tspan x="6" y="15" font-weight="bold" fill="#000">{escape(head)}</tspan>'
        lines += "".join(
            f'<tspan x="6" y="{15 + j * LEADING}">{escape(line)}</tspan>'
            for j, line in enumerate(rest, 1)
        )
        markup = (
            f'<g class="node {box.kind}" id="n{i}" data-node="{i}" data-kernel="{box.kernel}" '
            f'transform="translate({x:.0f},{y:.0f})"><title>{escape(box.hover)}</title>'
            f'<rect width="{w:.0f}" height="{h:.0f}" {style}/><text fill="#444">{lines}</text></g>'
        )
        parts.append((y, y + h, markup))
    return parts
