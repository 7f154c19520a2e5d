"""Seeing what a program became: the graph, the kernels, why things fused, what they cost.

Public: li.graph, li.explain, li.report, li.to_dot, li.visualize, li.inspect.schedule,
li.inspect.counters, li.inspect.memory_pool, li.inspect.release_memory. The pictures (the
explain page, a notebook's view of an array, visualize's SVG without graphviz) are drawn by
_see/, imported at first use.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ._array import Array
from ._counters import counters
from ._device import computing_device, get_device
from ._graph import Dag, Op, build_graph
from ._graph.dot import to_dot as _dot_text
from ._options import current

# NOTE: networkx (~70 ms), the scheduler and the runtime (~45 ms) are imported at first use:
# `import lazyinfini` records arrays without them.
if TYPE_CHECKING:
    import networkx as nx

    from ._runtime.pool import PoolStats
    from ._schedule import Schedule

__all__ = [
    "counters",
    "explain",
    "format_schedule",
    "graph",
    "memory_pool",
    "schedule",
    "release_memory",
    "report",
    "to_dot",
    "visualize",
]


def _nodes(func: str, arrays) -> list:
    for a in arrays:
        if not isinstance(a, Array):
            raise TypeError(f"{func}: expected lazyinfini arrays, got {type(a).__name__}")
    return [a._node for a in arrays]


def graph(*arrays: Array) -> nx.DiGraph:
    """The pending DAG of `arrays` as a networkx.DiGraph (edges input -> consumer)."""
    return build_graph(_nodes("graph", arrays))


def memory_pool() -> PoolStats:
    """The CPU executor's output memory pool: buffers watched, bytes in use and idle, reuses."""
    from ._runtime.pool import POOL

    return POOL.stats()


def release_memory() -> int:
    """Free the pool's idle buffers now (it keeps up to `li.options(pool_bytes=...)` of them for
    reuse); returns the bytes freed."""
    from ._runtime.pool import POOL

    return POOL.release()


def schedule(*arrays: Array) -> Schedule:
    """The schedule computing `arrays` now would run on the current device (runs nothing)."""
    dag = Dag(_nodes("schedule", arrays))
    return _planned(dag, _computing(dag))


def _planned(dag: Dag, device) -> Schedule:
    from ._schedule import schedule as _schedule_for

    return _schedule_for(dag, device.target, fuse=current().fuse)


def _computing(dag: Dag):
    """The device computing `dag` now: the options', or the one its arrays live on (a GPU's)."""
    buffers = [n for n in dag.graph["order"] if n.op is Op.BUFFER]
    sources = {n.arg.device: n.source for n in buffers}
    return computing_device(get_device(current().device), set(sources), sources)


def explain(*arrays: Array, analyze: bool = False, format: str = "text") -> str:
    """The schedule as text: kernels in order with the nodes each absorbed (and the user's lines),
    their loads, rearrange plans and bytes; then the rewrites and fusion decisions.

    analyze=True also runs it (the arrays are computed) and adds time and GB/s per kernel,
    against the machine's measured copy bandwidth. format="html": the same as a page of its
    own (see li.report), the graph drawn with each kernel as a group.
    """
    nodes = _nodes("explain", arrays)
    if not isinstance(analyze, bool):
        raise TypeError(f"explain: analyze must be True or False, got {analyze!r}")
    if format not in ("text", "html"):
        raise ValueError(f"explain: format must be 'text' or 'html', got {format!r}")
    dag = Dag(nodes)
    device = _computing(dag)  # NOTE: once: the walk and the schedule share it
    if format == "html":
        return _page(arrays, dag, device, analyze)
    if not analyze:
        return format_schedule(_planned(dag, device), device=device)
    from ._realize import realize

    timings: list[float] = []
    sched = realize(*arrays, timings=timings)
    if sched is None:
        return "nothing pending: every array is already computed"
    return format_schedule(sched, timings, device)


def _page(arrays, dag: Dag, device, analyze: bool) -> str:
    """The explain page of `arrays` (see li.report); analyze: of their measured run."""
    from ._see.measure import measure
    from ._see.page import page

    fuse = current().fuse
    pending = any(n.op is not Op.BUFFER for n in dag.graph["outputs"])
    measured = measure(arrays) if analyze and pending else None
    sched = measured.schedule if measured is not None else _planned(dag, device)
    return page(sched, device, fuse, measured)


def report(*arrays, path: str | os.PathLike | None = None, analyze: bool = False) -> str:
    """Write the explain page of `arrays` (li.explain(..., format="html")) to one HTML file
    that needs nothing else (no network, no graphviz); returns the file's name. The name may
    come last among the arguments: ``li.report(y, "y.html")``; report.html by default."""
    *arrays, path = _with_filename("report", arrays, path, "report.html", "path")
    _nodes("report", arrays)
    text = explain(*arrays, analyze=analyze, format="html")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


def _with_filename(func: str, arrays: tuple, filename, default: str, keyword: str) -> list:
    """`arrays` and the file name, given last among them or as `keyword` (checked)."""
    if arrays and isinstance(arrays[-1], (str, os.PathLike)):
        if filename is not None:
            raise TypeError(f"{func}: a file name both as the last argument and {keyword}=")
        *arrays, filename = arrays
    filename = default if filename is None else filename
    if not isinstance(filename, (str, os.PathLike)) or not isinstance(os.fspath(filename), str):
        raise TypeError(f"{func}: {keyword} must be a str or a path, got {filename!r}")
    if not arrays:
        raise TypeError(f"{func}: no arrays to draw")
    return [*arrays, os.fspath(filename)]


def format_schedule(sched: Schedule, timings: list[float] | None = None, device=None) -> str:
    """`sched` as text (see explain), as `device` runs it (the options' by default)."""
    from ._runtime.text import schedule_text  # NOTE: the runtime, at first use

    device = device or get_device(current().device)
    return schedule_text(sched, device, current().fuse, timings)


def to_dot(*arrays: Array) -> str:
    """DOT source of what would run: the simplified graph, one labelled cluster per kernel."""
    _nodes("to_dot", arrays)
    sched = schedule(*arrays)
    return _dot_text(build_graph(list(sched.outputs)), sched.kernels)


def visualize(*arrays, filename: str | os.PathLike | None = None) -> str:
    """Render what would run with graphviz's `dot` program into a file (its suffix picks the
    format; graph.svg by default); returns the file's name. The file name may come last among
    the arguments: ``li.visualize(y, "g.svg")`` or ``li.visualize(y, z, filename="g.png")``.
    Without graphviz, an .svg file gets lazyinfini's own drawing (the explain page's)."""
    *arrays, filename = _with_filename("visualize", arrays, filename, "graph.svg", "filename")
    text = to_dot(*arrays)  # NOTE: bad arrays fail here, before looking for graphviz
    _render(text, filename, arrays)
    return filename


def _render(text: str, filename: str, arrays) -> None:
    import shutil
    import subprocess

    suffix = os.path.splitext(filename)[1].lstrip(".").lower() or "svg"
    dot = shutil.which("dot")
    if dot is None and suffix == "svg":
        from ._see.scene import scene_of
        from ._see.svg import draw

        with open(filename, "w", encoding="utf-8") as handle:
            handle.write(draw(scene_of(schedule(*arrays))))
        return
    if dot is None:
        raise RuntimeError(
            "visualize: graphviz's `dot` program is not on PATH; install graphviz (apt-get "
            "install graphviz, brew install graphviz, conda install graphviz), name an .svg "
            "file (lazyinfini draws those itself), or use li.to_dot() for the DOT text"
        )
    done = subprocess.run(
        [dot, f"-T{suffix}", "-o", filename], input=text, text=True, capture_output=True
    )
    if done.returncode:
        raise RuntimeError(f"visualize: dot -T{suffix} failed: {done.stderr.strip()}")
