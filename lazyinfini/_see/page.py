"""The explain page: one self-contained HTML file (inline CSS and script, nothing fetched).

It shows the drawing (kernels as frames around their nodes), a pane with whatever is selected
(a kernel's details, a node's line of code, a fusion decision's reason), the measured run when
there is one, a table of the kernels and one of the fusion decisions, and the rewrites; the
script links them (assets.py). A drawing of more than INLINE_BOXES boxes is not in the page's
markup: its pieces wait in a JSON script, band by band, and the script attaches the bands in
view as the pane scrolls; long tables wait likewise, so a page of 10,000 nodes opens about as
fast as one of 100.
"""

from __future__ import annotations

import json
from collections import Counter
from html import escape

from .._runtime.text import byte_size
from .assets import SCRIPT, STYLE
from .details import kernel_details, node_link, path_of, timing_text
from .scene import dtype_name, op_name, scene_of, source_code
from .svg import LAYER_OPEN, LAYERS, draw, drawing

INLINE_BOXES = 1500  # a drawing past this many boxes is attached band by band
BAND = 1500  # px of drawing a band holds
INLINE_ROWS = 100  # a table's rows in the markup; the rest are added as the page scrolls
CHUNK = 200  # rows added at a time


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
    if not kernels:
        summary = "nothing pending: every array is already computed"
    title = "<h1>What this program became</h1>"
    return f'<header>{title}<p class="summary">{escape(summary)}</p></header>'


def _graph(scene, box_of: dict) -> list[str]:
    """The drawing's markup, whole or band by band, and the data the script reads about each
    box and each fusion decision."""
    drawn = drawing(scene, element_id="li-dag")
    sources: dict[str, int] = {}  # NOTE: a loop's thousand nodes share a few lines of code
    nodes = [_node_record(box, *drawn.boxes[i], sources) for i, box in enumerate(scene.boxes)]
    decisions = [
        [d.fused, box_of.get(d.producer, -1), box_of.get(d.consumer, -1), d.reason]
        for d in scene.decisions
    ]
    lines = [[source, source_code(source)] for source in sources]
    data = {"nodes": nodes, "sources": lines, "decisions": decisions}
    if len(scene.boxes) <= INLINE_BOXES:
        return [draw(scene, element_id="li-dag"), _json("li-data", data)]
    always, bands = _bands(drawn)
    parts = [drawn.head]
    for name in LAYERS:
        parts.append(LAYER_OPEN[name] + "".join(always[name]) + "</g>")
    parts.append("</svg>")
    band = f' data-band="{BAND}"'
    return ["".join(parts), _json("li-data", data), _json("li-bands", bands, band)]


def _node_record(box, x: float, y: float, sources: dict) -> list:
    """[op, shape, dtype, params, the index of its line in `sources`, kernel, x, y]."""
    node = box.node
    if node is None:
        return [box.lines[0], "", "", "", -1, box.kernel, round(x), round(y)]
    params = "" if node.arg is None or node.op.label == "buffer" else repr(node.arg)[:300]
    shape = "x".join(map(str, node.shape)) or "scalar"
    line = sources.setdefault(node.source, len(sources)) if node.source else -1
    dtype = dtype_name(node.dtype)
    return [op_name(node), shape, dtype, params, line, box.kernel, round(x), round(y)]


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


def _json(element_id: str, value, attributes: str = "") -> str:
    # NOTE: "</" would end the script element; "\/" is the same string to JSON.
    text = json.dumps(value, separators=(",", ":")).replace("</", "<\\/")
    return f'<script type="application/json" id="{element_id}"{attributes}>{text}</script>'


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
            byte_size(kernel.bytes_read),
            byte_size(kernel.bytes_written),
        ]
        if measured is not None and k < len(measured.seconds):
            cells.append(timing_text(measured, k))
        body = "".join(f"<td>{escape(c)}</td>" for c in cells)
        rows.append(f'<tr class="krow" data-kernel="{k}">{body}</tr>')
    return _table("kernels", "Kernels", head, rows)


def _decision_table(sched, box_of: dict) -> str:
    """The first INLINE_ROWS decisions; the script draws the others from its data."""
    rows = []
    for i, d in enumerate(sched.decisions[:INLINE_ROWS]):
        verdict = "fused" if d.fused else "split"
        rows.append(
            f'<tr class="drow" data-decision="{i}"><td class="verdict {verdict}">{verdict}</td>'
            f"<td>{node_link(d.producer, box_of)}</td><td>{node_link(d.consumer, box_of)}</td>"
            f"<td>{escape(d.reason)}</td></tr>"
        )
    head = ["", "producer", "consumer", "why"]
    return _table("decisions", "Fusion decisions", head, rows, len(sched.decisions) > INLINE_ROWS)


def _table(ident: str, title: str, head: list[str], rows: list[str], more: bool = False) -> str:
    """A table holding its first INLINE_ROWS `rows`; the script adds the rest as the page
    scrolls to them (or a selection needs one), CHUNK at a time, from a JSON script of their
    markup or, with `more` (rows not given), from its data: 10,000 rows of markup cost a
    browser seconds to open."""
    cells = "".join(f"<th>{escape(h)}</th>" for h in head)
    later = ["".join(rows[i : i + CHUNK]) for i in range(INLINE_ROWS, len(rows), CHUNK)]
    tail, script = "", ""
    if later or more:
        tail = (
            f'<tbody class="more" data-table="{ident}" data-first="{INLINE_ROWS}" '
            f'data-chunk="{CHUNK}"></tbody>'
        )
    if later:
        script = _json(f"li-rows-{ident}", later)
    return (
        f'<section id="{ident}"><h2>{escape(title)}</h2><table class="list">'
        f"<thead><tr>{cells}</tr></thead><tbody>{''.join(rows[:INLINE_ROWS])}</tbody>{tail}"
        f"</table>{script}</section>"
    )


def _rewrites(sched) -> str:
    if not sched.rewrites:
        return ""
    # NOTE: a loop repeats its rewrites ("merged a repeated full at x.py:3" thousands of times)
    counted = Counter(sched.rewrites)
    items = "".join(
        f"<li>{escape(r)}{f' (x{n})' if n > 1 else ''}</li>" for r, n in counted.items()
    )
    return f'<section id="rewrites"><h2>Rewrites</h2><ul>{items}</ul></section>'
