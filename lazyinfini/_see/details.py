"""What the explain page says about each kernel, in HTML: how it runs (the device's path), the
nodes it computes, the loads it reads with their layouts, a rearrange's plan and its drawing,
the bytes it moves, and, measured, its time. Node names link to their boxes (`data-node`).
"""

from __future__ import annotations

from html import escape

from .._runtime.text import COPY_METHODS, byte_size
from .plan_drawing import draw_plan
from .scene import dtype_name, kernel_title, node_text

# How a kernel runs where its device has nothing to add (device.describe gives "").
_BY_KIND = {
    "opaque": "one library call",
    "view": "no copy: a view of its input",
    "source": "a fill or a range",
    "reduce": "an elementwise prologue and its sum, in parts",
}


def path_of(kernel, device) -> str:
    return device.describe(kernel) or _BY_KIND.get(kernel.kind.value, kernel.kind.value)


def kernel_details(k: int, kernel, device, box_of: dict, measured=None) -> str:
    """The article about kernel `k`; `box_of` maps a node to its box index in the drawing."""
    out = kernel.outputs[0]
    shape = "x".join(map(str, out.shape)) or "scalar"
    facts = [("path", path_of(kernel, device))]
    if kernel.space:
        facts.append(("space", "x".join(map(str, kernel.space))))
    if kernel.method and device.target.copy_methods:  # NOTE: a rearrange's
        facts.append(("method", COPY_METHODS.get(kernel.method, kernel.method)))
    facts.append(
        ("bytes", f"read {byte_size(kernel.bytes_read)}, written {byte_size(kernel.bytes_written)}")
    )
    if measured is not None and k < len(measured.seconds):
        facts.append(("time", timing_text(measured, k)))
    parts = [
        f'<article class="kinfo" id="kernel-{k}"><h3>{escape(kernel_title(k, kernel))} '
        f"&rarr; {shape} {out.dtype.name}</h3>",
        _facts(facts),
        "<h4>nodes</h4><ul>",
        *(f"<li>{node_link(n, box_of)}</li>" for n in kernel.nodes),
        "</ul>",
    ]
    if kernel.loads:
        parts += ["<h4>loads</h4>", _loads(kernel.loads, box_of)]
    if kernel.plan is not None and not kernel.method:  # NOTE: a REDUCE kernel's parts
        parts += ["<h4>reduction</h4>", f"<code>{escape(repr(kernel.plan))}</code>"]
    elif kernel.plan is not None:
        parts += [
            "<h4>rearrange plan</h4>",
            f"<code>{escape(repr(kernel.plan))}</code>",
            f'<div class="plan">{draw_plan(kernel.plan)}</div>',
        ]
    parts.append("</article>")
    return "".join(parts)


def timing_text(measured, k: int) -> str:
    """Kernel k's time, its rate and share of the copy bandwidth; and, where its first run
    waited for the compiler, how long (the rate is of the rest: the kernel running)."""
    rate = measured.rate(k)
    seconds, running = measured.seconds[k], measured.running(k)
    waited = seconds - running
    compiling = f" (compiling {waited * 1e3:.3f} ms of it)" if waited > 0 else ""
    return (
        f"{seconds * 1e3:.3f} ms{compiling}, {rate / 1e9:.2f} GB/s "
        f"({100 * rate / measured.bandwidth:.0f}% of copy bandwidth)"
    )


def node_link(node, box_of: dict) -> str:
    """A node's name and place in the user's code, linking to its box."""
    text = escape(node_text(node))
    where = f" at {escape(node.source)}" if node.source else ""
    box = box_of.get(node)
    if box is None:
        return text + where
    return f'<a class="ref" data-node="{box}">{text}</a>{where}'


def _facts(rows) -> str:
    cells = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows)
    return f'<table class="facts">{cells}</table>'


def _loads(loads, box_of: dict) -> str:
    rows = ["<tr><th>reads</th><th>as</th><th>strides (bytes)</th><th>layout</th></tr>"]
    for load in loads:
        base = getattr(load, "base", load)
        node = getattr(load, "node", load)
        via = "".join(f"{m.op.label} &gt; " for m in getattr(load, "chain", ()))
        shape = "x".join(map(str, node.shape)) or "scalar"
        strides = getattr(load, "strides", None)
        rows.append(
            f"<tr><td>{via}{node_link(base, box_of)}</td>"
            f"<td>{shape} {dtype_name(node.dtype)}</td>"
            f"<td>{escape(str(strides)) if strides is not None else 'its own'}</td>"
            f"<td>{_layout(load)}</td></tr>"
        )
    return f'<table class="loads">{"".join(rows)}</table>'


def _layout(load) -> str:
    if not hasattr(load, "strides"):
        return "the whole value"
    how = "contiguous" if load.contiguous else ("broadcast" if load.broadcast else "strided")
    if load.across_rows:
        how += ", read across rows"
    return how
