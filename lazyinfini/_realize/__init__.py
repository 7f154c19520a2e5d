"""realize(*arrays): the schedule (cached by graph signature) -> run it -> swap in the buffers."""

from __future__ import annotations

import dataclasses
import sys
import threading
import time

import numpy as np

from .._counters import counters
from .._device import (
    as_computed,
    computing_device,
    get_device,
    holder_of,
    readable,
    registry_version,
)
from .._graph import Op, buffer_node, caller_source, held_by, mark_evaluated, mark_realized
from .._graph.memories import own
from .._options import current
from .direct import viewed
from .native_operators import when_loaded

# NOTE: one materialization at a time. Between walking the pending graph and swapping in the
# buffers, another thread realizing a shared node would change the graph under the walk (a node
# it planned would become a buffer). Kernels still use every core: the executor's own threads.
_REALIZING = threading.RLock()


def realize(*arrays, timings: list | None = None, implicit: str = ""):
    """Compute every pending array in `arrays` with one schedule; returns that schedule (None if
    nothing was pending, or a view of a computed buffer was taken directly: direct.py).
    `timings` receives seconds per kernel. `implicit` names the conversion that asked for it
    (`float()`), for the debug line. On failure nothing changes."""
    with _REALIZING:
        return _realize(arrays, timings, implicit)


def _realize(arrays, timings: list | None, implicit: str):
    pending = _pending(arrays)
    if not pending:
        return None
    if _RUNTIME is None:
        _load()
    options = current()
    started = time.perf_counter() if options.debug else 0.0
    known = options.__dict__.get("_setting")
    if known is None or known[4] != registry_version():
        known = _setting(options)
    device, holder, settings, memory, _ = known
    if len(pending) == 1 and pending[0].op in _VIEWS and holder == "cpu" and timings is None:
        if not options.debug and viewed(arrays[0], device):  # NOTE: direct.py
            device.finish(settings)  # NOTE: a run's end for the device (the pool's clock)
            return None
    job = _CACHE.prepare(device.target, options.fuse, pending, device.keeps)
    names = job.devices  # NOTE: the common case first: every buffer the device's own
    if job.redirect is not None and job.redirect[0] == device.name:
        device, holder, settings, memory = _run_record_of(job.redirect[1], options)
    elif not (len(names) == 1 and device.name in names) and not readable(device, names):
        asked = device.name
        device, holder, settings, memory = _elsewhere(device, job, options)
        first, job = job, _CACHE.prepare(device.target, options.fuse, pending, device.keeps)
        _CACHE.redirect(first.key, asked, job, device.name)
    values = _RUNTIME.run_schedule(job.schedule, device, job.inputs, settings, timings, memory)
    _swap_all(arrays, job, values, holder)
    if device.keeps:
        (_NATIVE.mark or mark_evaluated)(job.order)  # NOTE: the same in C, once it is built
    counters.materializations += 1
    counters.schedules_reused += job.reused
    if options.debug:
        _debug_line(job, device, options, settings, time.perf_counter() - started, implicit)
    return job.schedule


def _setting(options) -> tuple:
    """The device `options` name, the name of the device holding what it computes, the run's
    Settings and allocator, and the registry's version: kept on the Options record (a loop
    materializes under the same one; _realize reads it there), made again after any device
    was registered."""
    device = get_device(options.device)
    # NOTE: the version after get_device, which may register a loader's device
    known = options.__dict__["_setting"] = (*_run_record(device, options), registry_version())
    return known


def _run_record(device, options) -> tuple:
    """(device, the name of the device holding what it computes, Settings, allocator)."""
    settings = _RUNTIME.Settings(options.pool_bytes, options.debug)
    holder = holder_of(device)
    if holder.memory != "host":  # NOTE: its results are buffers of a memory of its own
        own(holder.name, holder.memory, holder.reads)
    return device, holder.name, settings, _RUNTIME.allocator(device, settings)


def _run_record_of(name: str, options) -> tuple:
    """The run record (see _run_record) of the device called `name`, kept on the Options
    record until the registry changes."""
    known = options.__dict__.setdefault("_elsewhere", {})
    found = known.get(name)
    if found is None or found[1] != registry_version():
        found = known[name] = (_run_record(get_device(name), options), registry_version())
    return found[0]


def _elsewhere(device, job, options) -> tuple:
    """(device, holder, settings, allocator) of the device computing a program whose arrays
    `device` cannot read: their own device, or ValueError (see computing_device)."""
    sources = {n.arg.device: n.source for n in job.order if n.op is _BUFFER}
    return _run_record(computing_device(device, job.devices, sources), options)


def ungathered(device, pending: list) -> dict:
    """Each of the `pending` nodes -> its value as `device` makes it, without its gather (the
    dask device's: the dask graph computing it; nothing runs) and swapped into nothing.
    ValueError where their data lives on another device (it stays where it lives)."""
    if _RUNTIME is None:
        _load()
    lazy = dataclasses.replace(device, gather=as_computed)
    # NOTE: realize's lock: the walk must not see another thread swap buffers in under it.
    with _REALIZING:
        job = _CACHE.prepare(device.target, current().fuse, pending, keeps=False)
        if computing_device(device, job.devices, {}) is not device:
            raise ValueError(f"arrays on {sorted(job.devices)} stay where they live")
        values = _RUNTIME.run_schedule(job.schedule, lazy, job.inputs, _RUNTIME.Settings())
    return {node: values[out] for node, out in zip(job.requested, job.schedule.outputs)}


def _pending(arrays) -> list:
    """The distinct pending nodes of `arrays` (one array: no set to make, ~1 us)."""
    if len(arrays) == 1:
        node = arrays[0]._node
        return [] if node.op is _BUFFER else [node]
    return list(dict.fromkeys(a._node for a in arrays if a._node.op is not _BUFFER))


_BUFFER = Op.BUFFER
_VIEWS = (Op.SLICE, Op.RESHAPE)  # NOTE: the ops a view taken directly ends in (direct.py)
_CACHE = _RUNTIME = _NATIVE = None  # NOTE: loaded at the first materialization (see _load)


def _load() -> None:
    """The scheduler, the cache, the runtime and its compiler (~45 ms of imports): recording
    arrays needs none of them, so `import lazyinfini` does not load them."""
    global _CACHE, _RUNTIME, _NATIVE
    from .. import _runtime
    from . import direct
    from .cache import CACHE
    from .native import Native, twin

    _CACHE, _RUNTIME, _NATIVE = CACHE, _runtime, Native
    twin(_swap, "swap")
    direct.bind(_swap, lambda nodes: (Native.mark or mark_evaluated)(nodes))
    when_loaded(_install_realize_one)


def realize_one(array):
    """realize(array)'s common case in C once the extension is loaded (native_realize.py):
    the schedule, None (nothing pending), or NotImplemented (realize() decides)."""
    return NotImplemented


def _install_realize_one(module) -> None:
    global realize_one
    from .._counters import counters as the_counters
    from .._options import _current
    from .._runtime.run import _account

    run = _RUNTIME.run_schedule
    module.setup_realize(
        _current, registry_version, _VIEWS, _REALIZING, _CACHE, run, _account, the_counters
    )
    realize_one = module.realize_one


def _swap_all(arrays, job, values, device: str) -> None:
    """Every computed value an array asked for or holds becomes that array's buffer, held by
    `device`."""
    sched = job.schedule
    for node, out in zip(job.requested, sched.outputs):
        _swap(node, values[out], device)
    for array in arrays:
        _ = array._node  # NOTE: resolves every array that shared a swapped node
    for node, kept in zip(job.kept, sched.kept):  # computed anyway and held: not recomputed later
        _swap(node, values[kept], device)


def _swap(node, value, device: str) -> None:
    """Realized `node` is replaced by a read-only BUFFER node from now on (and so is it in the
    array holding it)."""
    # NOTE: a realized buffer may be a view of a user's array or of another buffer; exported
    # views must not let anyone write into it. A GPU's arrays (CuPy's) have no read-only flag:
    # a view of one would guard nothing (~1 us a run)
    if type(value) is np.ndarray or isinstance(value, np.ndarray):
        value = value.view()
        value.setflags(write=False)  # NOTE: not value.flags.writeable: no flags object (~0.2 us)
    buffer = buffer_node(value, node.source, device)
    mark_realized(node, buffer)
    holder = held_by(node)
    if holder is not None:
        holder._hold(buffer)


def _debug_line(job, device, options, settings, seconds: float, implicit: str) -> None:
    """One line per materialization: what, where the user asked (and whether implicitly), how."""
    sched = job.schedule
    shapes = ", ".join(f"{n.shape} {n.dtype.name}" for n in sched.outputs)
    how = "a reused schedule" if job.reused else "a new schedule"
    count = len(sched.kernels)
    why = f" (implicit: {implicit})" if implicit else ""
    print(
        f"lazyinfini: realized {shapes} at {caller_source() or '?'}{why}: "
        f"{count} kernel{'' if count == 1 else 's'} on {device} ({how}) "
        f"in {seconds * 1e3:.3f} ms",
        file=sys.stderr,
    )
    if settings.debug >= 3:
        from .._runtime.text import schedule_text

        print(schedule_text(sched, device, options.fuse), file=sys.stderr)
