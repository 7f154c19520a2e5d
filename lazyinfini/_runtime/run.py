"""The one run loop: a Schedule's kernels on a device, each by its handler for the kernel's kind.

Every device shares it: values live in a dict keyed by the node holding them; a value is dropped
after its last reader (its memory goes back to the device's allocator); counters, timings and
the LAZYINFINI_DEBUG kernel lines are kept here once. Settings come from realize(): nothing
here reads global options.
"""

from __future__ import annotations

import functools
import sys
import time
from typing import NamedTuple

from .._counters import counters
from .failures import note_kernel


class Settings(NamedTuple):
    """What realize() read from the options for one run (a tuple: made on every run)."""

    pool_bytes: int = 1 << 30  # idle output memory a device may keep for reuse
    debug: int = 0  # >= 2: a line per kernel


def run_schedule(schedule, device, inputs: dict, settings: Settings, timings=None) -> dict:
    """Run `schedule` on `device`; `inputs` binds buffer stand-ins to the device's arrays.
    Returns the value of every output and kept node. `timings` receives seconds per kernel."""
    values = dict(inputs)
    memory = functools.partial(device.empty, settings=settings)
    device.prepare(schedule)
    with device.context():
        for kernel, dead in zip(schedule.kernels, schedule.frees):
            started = time.perf_counter()
            try:
                results = device.handlers[kernel.kind](kernel, values, memory)
            except Exception as error:
                note_kernel(error, kernel)
                raise
            values.update(zip(kernel.outputs, results))
            _account(kernel, time.perf_counter() - started, settings, timings)
            for node in dead:
                values.pop(node, None)  # NOTE: its memory is free to reuse once nothing views it
    device.finish(settings)
    results = {node: device.value_of(values, node) for node in schedule.outputs + schedule.kept}
    return device.gather(results)  # NOTE: a lazy device (dask) computes them all here, at once


def _account(kernel, seconds: float, settings: Settings, timings) -> None:
    counters.kernels += 1
    counters.nodes += len(kernel.nodes)
    counters.bytes_written += kernel.bytes_written
    counters.bytes_read += kernel.bytes_read
    if timings is not None:
        timings.append(seconds)
    if settings.debug >= 2:
        print(f"lazyinfini: {kernel!r} {seconds * 1e3:.3f} ms", file=sys.stderr)
