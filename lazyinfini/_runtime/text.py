"""A schedule as text, as a device runs it: what li.explain prints and LAZYINFINI_DEBUG=3 shows
while running (the runtime's, so realize() imports nothing above it; `inspect` re-exports it).
"""

from __future__ import annotations

from .._graph import Op


def schedule_text(sched, device, fuse: bool, timings: list[float] | None = None) -> str:
    """`sched` as text, as `device` runs it (li.explain's, LAZYINFINI_DEBUG=3's): kernels in
    order with the nodes each absorbed (and the user's lines), loads, rearrange plans, paths,
    bytes, with `timings` (seconds per kernel) time and GB/s; then rewrites and fusion
    decisions."""
    head = (
        f"{len(sched.kernels)} kernel(s) for {len(sched.outputs)} output(s) "
        f"[device={device.name}, fuse={fuse}]"
    )
    lines = [head]
    bandwidth = _bandwidth() if timings else None
    together = device.together(sched)
    for i, kernel in enumerate(sched.kernels):
        lines += _kernel_lines(i, kernel, device)
        if kernel in together:
            lines.append(f"    together {together[kernel]}")
        if timings and i < len(timings):
            lines.append("    " + _timing(kernel, timings[i], bandwidth))
    if timings:
        total = sum(timings)
        lines.append(f"total {total * 1e3:.3f} ms; copy bandwidth {bandwidth / 1e9:.1f} GB/s")
    if sched.rewrites:
        lines.append("rewrites:")
        lines += [f"  {r}" for r in sched.rewrites]
    if sched.decisions:
        lines.append("fusion decisions:")
        lines += [f"  {d!r}" for d in sched.decisions]
    return "\n".join(lines)


def _kernel_lines(i: int, kernel, device) -> list[str]:
    out = kernel.outputs[0]
    space = f" as {'x'.join(map(str, kernel.space)) or 'scalar'}" if kernel.space else ""
    lines = [
        f"kernel {i}: {kernel.kind.value} {kernel.name} -> {out.shape} {out.dtype.name}{space}"
    ]
    for node in kernel.nodes:
        params = "" if node.arg is None or node.op is Op.BUFFER else f" {_short(node.arg)}"
        lines.append(f"    node {node.op.label}{params} at {node.source or '?'}")
    for load in kernel.loads:
        lines.append(f"    {load!r}")
    if kernel.plan is not None:
        lines.append(f"    plan {kernel.plan!r}")
        if device.target.copy_methods and kernel.method:  # NOTE: a rearrange's
            lines.append(f"    method {COPY_METHODS[kernel.method]}")
    if kernel.in_place:
        lines.append(f"    in place: writes into {kernel.loads[0].base!r}, its last read")
    path = device.describe(kernel)
    if path:
        lines.append(f"    path {path}")
    lines.append(
        f"    bytes read {byte_size(kernel.bytes_read)}, written {byte_size(kernel.bytes_written)}"
    )
    return lines


COPY_METHODS = {
    "direct": "direct (numpy's own copy: small, or its walk keeps the source reads in cache)",
    "tiled": "tiled (one copy per block of the plan, the grid shared by the threads)",
}


def _timing(kernel, seconds: float, bandwidth: float) -> str:
    moved = kernel.bytes_read + kernel.bytes_written
    rate = moved / seconds if seconds > 0 else 0.0
    return (
        f"time {seconds * 1e3:.3f} ms, {rate / 1e9:.2f} GB/s "
        f"({100 * rate / bandwidth:.0f}% of copy bandwidth)"
    )


def _bandwidth() -> float:
    from .machine import copy_bandwidth

    return copy_bandwidth()


def _short(arg) -> str:
    text = repr(arg)
    return text if len(text) <= 60 else text[:57] + "..."


def byte_size(nbytes: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if nbytes < 1024 or unit == "GiB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return ""
