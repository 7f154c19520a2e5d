"""An array in a notebook (Jupyter, VS Code): what it is, and what computing it would run.

Never computes, as repr never does: a pending array shows its pending nodes, the kernels its
schedule has (planning runs nothing) and a small picture of them; a computed one its values,
as numpy prints them. Styles are inline attributes: notebooks strip <style> and scripts.
"""

from __future__ import annotations

from html import escape

from .._graph import Op, walk
from .._runtime.text import byte_size
from ..inspect import schedule
from .collapse import collapse
from .scene import scene_of
from .svg import draw

PLAN_LIMIT = 5000  # pending nodes past which a preview does not plan (~1 s of scheduling)
KERNELS_LISTED = 8
SCALE = 0.8  # the picture a little smaller than the page's

_TABLE = 'style="border-collapse:collapse;font-family:monospace;font-size:12px;margin:2px 0"'
_CELL = 'style="padding:1px 10px 1px 0;text-align:left;vertical-align:top"'


def array_html(array) -> str:
    """The HTML a notebook shows for `array` (Array._repr_html_)."""
    node = array._node
    rows = [
        ("shape", str(array.shape)),
        ("dtype", array.dtype.name),
        ("device", str(array.device)),
        ("bytes", byte_size(node.nbytes)),
    ]
    if node.op is Op.BUFFER:
        rows.append(("state", "computed"))
        return _frame(rows, f'<pre style="margin:4px 0">{escape(repr(array))}</pre>')
    return _pending(array, node, rows)


def _pending(array, node, rows) -> str:
    order, _ = walk([node])
    pending = sum(1 for n in order if n.op is not Op.BUFFER)
    rows.append(("state", f"pending: {pending} node{'s' * (pending != 1)}, nothing computed"))
    if pending > PLAN_LIMIT:
        note = (
            f"too many pending nodes to plan for a preview (over {PLAN_LIMIT}); "
            "li.explain(x, format='html') shows them all"
        )
        return _frame(rows, f"<div>{escape(note)}</div>")
    sched = schedule(array)  # NOTE: plans; runs nothing
    rows.append(("kernels", _kernel_list(sched.kernels)))
    scene = collapse(scene_of(sched))
    caption = ""
    if scene.hidden:
        grey = sum(1 for box in scene.boxes if box.kind == "hidden")
        total = sum(box.count for box in scene.boxes)
        caption = (
            f'<div style="font-size:12px">{grey} dashed grey box{"es" * (grey != 1)} stand '
            f"for {scene.hidden} of the schedule's {total} nodes; "
            "li.explain(x, format='html') draws every one</div>"
        )
    picture = draw(scene, scale=SCALE).replace("<svg ", f"<svg {_FIT}", 1)
    return _frame(rows, picture + caption)


_FIT = 'style="max-width:100%;height:auto" '  # NOTE: a wide picture shrinks to the cell


def _kernel_list(kernels) -> str:
    names = [f"{k.kind.value} {k.name}" for k in kernels[:KERNELS_LISTED]]
    more = len(kernels) - len(names)
    listed = "; ".join(names) + (f"; and {more} more" if more > 0 else "")
    return f"{len(kernels)}: {listed}" if kernels else "0"


def _frame(rows, body: str) -> str:
    cells = "".join(
        f"<tr><th {_CELL}>{escape(key)}</th><td {_CELL}>{escape(value)}</td></tr>"
        for key, value in rows
    )
    return (
        '<div class="lazyinfini-array"><div style="font-family:monospace;font-weight:bold">'
        f"lazyinfini.Array</div><table {_TABLE}>{cells}</table>{body}</div>"
    )
