"""A measured run on the explain page: where the time went, and the kernels on a time line.

The totals say how the run's time splits into kernel time and host time (before the first
kernel, between kernels, after the last), how long the compiler ran for new kernels (ahead of
them, or in a kernel's first run), and the copy bandwidth every GB/s figure is a share of. The
time line draws the run, each kernel as a bar at the time it ran (in its kernel's colour;
click one to select it), and the compiler's runs under them.
"""

from __future__ import annotations

from html import escape

from .svg import colour

WIDTH = 900  # px of the time axis
LANE = 22  # px a lane
TICKS = 5


def analysis(measured, titles) -> str:
    """The totals table and the time line of `measured` (titles: each kernel's)."""
    return _totals(measured) + _timeline(measured, titles)


def _totals(m) -> str:
    def share(part: float) -> str:
        return f" ({100 * part / m.wall:.0f}% of the run)" if m.wall > 0 else ""

    source = "found in the cache" if m.reused else "planned for this run"
    rows = [
        ("the run", _ms(m.wall)),
        ("kernels", _ms(m.kernel_time) + share(m.kernel_time)),
        ("host", _ms(m.host_time) + share(m.host_time)),
        ("  before the first kernel", f"{_ms(m.before)} (the schedule, {source})"),
        ("  between kernels", _ms(max(m.host_time - m.before - m.after, 0.0))),
        ("  after the last kernel", f"{_ms(m.after)} (results handed to the arrays)"),
        ("compiling new kernels", _compiling(m)),
        ("copy bandwidth", f"{m.bandwidth / 1e9:.1f} GB/s (100% in the kernels' figures)"),
    ]
    cells = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows)
    return f'<table class="facts totals">{cells}</table>'


def _compiling(m) -> str:
    if not m.compiles:
        return "none: every kernel was compiled before (or runs without compiling)"
    runs, ahead = len(m.compiles), m.compiling(0.0, m.before)
    where = f"{_ms(ahead)} before the first kernel, {_ms(m.compile_time - ahead)} in first runs"
    return f"{_ms(m.compile_time)} in {runs} compiler run{'s' * (runs != 1)} ({where})"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


def _timeline(m, titles) -> str:
    scale = WIDTH / m.wall if m.wall > 0 else 0.0
    top = 16
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="{WIDTH + 120}" '
        f'height="{top + 3 * LANE + 24}" font-family="monospace" font-size="10">',
        _bar(0, m.wall * scale, top, "#eaeded", "the run", m.wall),
    ]
    for name, lane in (("run", 0), ("kernels", 1), ("compiler", 2)):
        parts.append(f'<text x="{WIDTH + 6}" y="{top + lane * LANE + 14}">{name}</text>')
    for k, (start, seconds) in enumerate(zip(m.starts, m.seconds)):
        hover = escape(f"{titles[k]}: {_ms(seconds)}")
        parts.append(
            f'<rect class="tbar" data-kernel="{k}" x="{start * scale:.1f}" y="{top + LANE}" '
            f'width="{max(seconds * scale, 1.0):.1f}" height="{LANE - 4}" '
            f'fill="{colour(k, 60)}"><title>{hover}</title></rect>'
        )
    for start, end in m.compiles:
        x, width = start * scale, (end - start) * scale
        parts.append(_bar(x, width, top + 2 * LANE, "#7f8c8d", "compiling", end - start))
    parts += _axis(m.wall, scale, top + 3 * LANE)
    parts.append("</svg>")
    return "".join(parts)


def _bar(x: float, width: float, y: int, fill: str, name: str, seconds: float) -> str:
    return (
        f'<rect x="{x:.1f}" y="{y}" width="{max(width, 0.5):.1f}" height="{LANE - 4}" '
        f'fill="{fill}"><title>{escape(name)}: {_ms(seconds)}</title></rect>'
    )


def _axis(total: float, scale: float, y: int) -> list[str]:
    parts = [f'<line x1="0" y1="{y}" x2="{WIDTH}" y2="{y}" stroke="#555"/>']
    for i in range(TICKS + 1):
        at = total * i / TICKS
        x = at * scale
        anchor = "end" if i == TICKS else ("start" if i == 0 else "middle")
        parts.append(
            f'<line x1="{x:.1f}" y1="{y}" x2="{x:.1f}" y2="{y + 4}" stroke="#555"/>'
            f'<text x="{x:.1f}" y="{y + 15}" text-anchor="{anchor}">{at * 1e3:.2f} ms</text>'
        )
    return parts
