"""The explain page: one self-contained HTML file (inline CSS and script, nothing fetched).

It shows the drawing (kernels as frames around their nodes), a pane with whatever is selected
(a kernel's details, a node's line of code, a fusion decision's reason), the measured run when
there is one, a table of the kernels and one of the fusion decisions, and the rewrites; the
script links them (assets.py). A drawing of more than INLINE_BOXES boxes is not in the page's
markup: its pieces wait in a JSON script, band by band, and the script attaches the bands in
view as the pane scrolls, so a page of 10,000 nodes opens as fast as one of 100.
"""

from __future__ import annotations

import json
from html import escape

from .assets import SCRIPT, STYLE
from .details import kernel_details, node_link, path_of, timing_text
from .scene import op_name, scene_of, source_code
from .svg import LAYER_OPEN, LAYERS, draw, drawing

INLINE_BOXES = 1500  # a drawing past this many boxes is attached band by band
BAND = 1500  # px of drawing a band holds
CHUNK = 100  # table rows the browser lays out together (content-visibility)


def page(sched, device, fuse: bool, measured=None) -> str:
    """The page of Schedule `sched` as `device` runs it; `measured`: its measured run."""
    scene = scene_of(sched)
    box_of = {box.node: i for i, box in enumerate(scene.boxes) if box.node is not None}
    details = [
        kernel_details(k, kernel, device, box_of, measured)
        for k, kernel in enumerate(sched.kernels)
    ]
    body = [
        _header(sched, device, fuse, scene),
        '<div id="main"><div id="graph">',
        *_graph(scene, box_of),
        '</div><aside id="detail"><p class="hint">Click a kernel, a node, or a red dashed '
        "edge (a split: why it did not fuse).</p></aside></div>",
        _analysis(measured, scene.titles),
        _kernel_table(sched, device, measured),
        _decision_table(sched, box_of),
        _rewrites(sched),
        _json("li-kernels", details),
        f"<script>{SCRIPT}</script>",
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>lazyinfini: {len(sched.kernels)} kernels</title><style>{STYLE}</style>"
        "</head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _header(sched, device, fuse: bool, scene) -> str:
    splits = sum(1 for d in sched.decisions if not d.fused)
    kernels, outputs = len(sched.kernels), len(sched.outputs)
    summary = (
        f"{kernels} kernel{'s' * (kernels != 1)} for {outputs} output{'s' * (outputs != 1)} "
        f"on {device.name} (fuse={fuse}); {len(scene.boxes)} nodes drawn; "
        f"{len(sched.decisions)} fusion decisions, {splits} split"
    )
    title = "<h1>What this program became</h1>"
    return f'<header>{title}<p class="summary">{escape(summary)}</p></header>'


def _graph(scene, box_of: dict) -> list[str]:
    """The drawing's markup, whole or band by band, and the data the script reads about each
    box and each fusion decision."""
    drawn = drawing(scene, element_id="li-dag")
    nodes = [_node_record(box, *drawn.boxes[i]) for i, box in enumerate(scene.boxes)]
    decisions = [
        [d.fused, box_of.get(d.producer, -1), box_of.get(d.consumer, -1), d.reason]
        for d in scene.decisions
    ]
    data = {"nodes": nodes, "decisions": decisions, "band": BAND}
    if len(scene.boxes) <= INLINE_BOXES:
        return [draw(scene, element_id="li-dag"), _json("li-data", data)]
    always, bands = _bands(drawn)
    parts = [drawn.head]
    for name in LAYERS:
        parts.append(LAYER_OPEN[name] + "".join(always[name]) + "</g>")
    parts.append("</svg>")
    return ["".join(parts), _json("li-data", data), _json("li-bands", bands)]


def _node_record(box, x: float, y: float) -> list:
    node = box.node
    if node is None:
        return [box.lines[0], "", "", "", "", "", box.kernel, round(x), round(y)]
    params = "" if node.arg is None or node.op.label == "buffer" else repr(node.arg)[:300]
    shape = "x".join(map(str, node.shape)) or "scalar"
    return [
        op_name(node),
        shape,
        node.dtype.name,
        params,
        node.source,
        source_code(node.source),
        box.kernel,
        round(x),
        round(y),
    ]


def _bands(drawn) -> tuple[dict, list]:
    """Items taller than a band (drawn at once) per layer, and for each band the markup of
    each layer's items whose top lies in it."""
    always: dict[str, list[str]] = {name: [] for name in LAYERS}
    bands: dict[int, list[list[str]]] = {}
    for n, name in enumerate(LAYERS):
        for top, bottom, markup in drawn.layers[name]:
            if bottom - top > BAND:
                always[name].append(markup)
                continue
            band = bands.setdefault(int(min(top, bottom) // BAND), [[] for _ in LAYERS])
            band[n].append(markup)
    count = max(bands, default=-1) + 1
    empty = [[] for _ in LAYERS]
    return always, [["".join(part) for part in bands.get(b, empty)] for b in range(count)]


def _json(element_id: str, value) -> str:
    # NOTE: "</" would end the script element; "\/" is the same string to JSON.
    text = json.dumps(value, separators=(",", ":")).replace("</", "<\\/")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def _analysis(measured, titles) -> str:
    if measured is None:
        return ""
    from .timeline import analysis

    return f'<section id="analysis"><h2>The measured run</h2>{analysis(measured, titles)}</section>'


def _kernel_table(sched, device, measured) -> str:
    head = ["kernel", "kind", "name", "output", "path", "read", "written"]
    if measured is not None:
        head.append("time, rate (share of copy bandwidth)")
    rows = []
    for k, kernel in enumerate(sched.kernels):
        out = kernel.outputs[0]
        cells = [
            str(k),
            kernel.kind.value,
            kernel.name,
            f"{'x'.join(map(str, out.shape)) or 'scalar'} {out.dtype.name}",
            path_of(kernel, device),
            _size(kernel.bytes_read),
            _size(kernel.bytes_written),
        ]
        if measured is not None and k < len(measured.seconds):
            cells.append(timing_text(measured, k))
        body = "".join(f"<td>{escape(c)}</td>" for c in cells)
        rows.append(f'<tr class="krow" data-kernel="{k}">{body}</tr>')
    return _table("kernels", "Kernels", head, rows)


def _decision_table(sched, box_of: dict) -> str:
    rows = []
    for i, d in enumerate(sched.decisions):
        verdict = "fused" if d.fused else "split"
        rows.append(
            f'<tr class="drow" data-decision="{i}"><td class="verdict {verdict}">{verdict}</td>'
            f"<td>{node_link(d.producer, box_of)}</td><td>{node_link(d.consumer, box_of)}</td>"
            f"<td>{escape(d.reason)}</td></tr>"
        )
    return _table("decisions", "Fusion decisions", ["", "producer", "consumer", "why"], rows)


def _table(ident: str, title: str, head: list[str], rows: list[str]) -> str:
    chunks = [
        '<tbody class="chunk">' + "".join(rows[i : i + CHUNK]) + "</tbody>"
        for i in range(0, len(rows), CHUNK)
    ]
    cells = "".join(f"<th>{escape(h)}</th>" for h in head)
    return (
        f'<section id="{ident}"><h2>{escape(title)}</h2><table class="list">'
        f"<thead><tr>{cells}</tr></thead>{''.join(chunks)}</table></section>"
    )


def _rewrites(sched) -> str:
    if not sched.rewrites:
        return ""
    items = "".join(f"<li>{escape(r)}</li>" for r in sched.rewrites)
    return f'<section id="rewrites"><h2>Rewrites</h2><ul>{items}</ul></section>'


def _size(nbytes: int) -> str:
    from ..inspect import _size as size

    return size(nbytes)
