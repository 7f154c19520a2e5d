"""The one run loop: a Schedule's kernels on a device, each by its handler for the kernel's kind.

Every device shares it: values live in a dict keyed by the node holding them; a value is dropped
after its last reader (its memory goes back to the device's allocator); counters, timings and
the LAZYINFINI_DEBUG kernel lines are kept here once. Settings come from realize(): nothing
here reads global options.
"""

from __future__ import annotations

import functools
import operator
import sys
import time
from typing import NamedTuple

from .._counters import counters
from .._device import as_computed
from .failures import note_kernel
from .memo import Memo


class Settings(NamedTuple):
    """What realize() read from the options for one run (a tuple: made on every run)."""

    pool_bytes: int = 1 << 30  # idle output memory a device may keep for reuse
    debug: int = 0  # >= 2: a line per kernel


def run_schedule(schedule, device, inputs: dict, settings: Settings, timings=None, memory=None):
    """Run `schedule` on `device`; `inputs` (a fresh dict, which the run fills) binds buffer
    stand-ins to the device's arrays. Returns the value of every output and kept node.
    `timings` receives seconds per kernel; `memory` is allocator(device, settings), where the
    caller kept it."""
    values = inputs  # NOTE: not copied: each materialization binds a new one (~0.3 us)
    timed = timings is not None or settings.debug >= 2
    run = device.runner(schedule) if device.runner is not None and not timed else None
    if run is not None:  # NOTE: a launch list (a GPU's), small numpy kernels (the cpu's)
        results = run(values)
        _account(schedule)
        counters.direct_runs += 1
        device.finish(settings)
        return results
    memory = memory or allocator(device, settings)
    handlers = device.handlers
    device.prepare(schedule)
    with device.context():
        for kernel, dead in zip(schedule.kernels, schedule.frees):
            started = _clock() if timed else 0.0
            try:
                results = handlers[kernel.kind](kernel, values, memory)
            except Exception as error:
                note_kernel(error, kernel)
                raise
            values.update(zip(kernel.outputs, results))
            if timed:
                _report(kernel, _clock() - started, settings, timings)
            for node in dead:
                values.pop(node, None)  # NOTE: its memory is free to reuse once nothing views it
    _account(schedule)
    device.finish(settings)
    value_of, results = device.value_of, {}
    for node in schedule.outputs:
        results[node] = value_of(values, node)
    for node in schedule.kept:
        results[node] = value_of(values, node)
    if device.gather is as_computed:  # NOTE: an eager device's: no call (every run)
        return results
    return device.gather(results)  # NOTE: a lazy device (dask) computes them all here, at once


def direct_runner(step_of, run_step, context, prepare=None):
    """A Device.runner: a schedule whose every kernel has a step (`step_of(kernel)`; None
    where a kernel needs the run loop) runs as the list of its steps, made once per schedule
    (after `prepare(schedule)`): `run_step(step, values)` gives a kernel's outputs, all inside
    `context()`, without the loop's handler lookups (the cuda device's launch list, the cpu's
    small numpy kernels)."""
    runs = Memo()

    def runner(schedule):
        run = runs.get(schedule)
        if run is None:
            if prepare is not None:
                prepare(schedule)
            run = runs[schedule] = _listed(schedule, step_of, run_step, context) or False
        return run or None

    return runner


def _listed(schedule, step_of, run_step, context):
    steps = []
    for kernel, dead in zip(schedule.kernels, schedule.frees):
        step = step_of(kernel)
        if step is None:
            return None
        steps.append((kernel, step, dead))
    wanted = (*schedule.outputs, *schedule.kept)
    made = {node for kernel in schedule.kernels for node in kernel.outputs}
    if not steps or not made.issuperset(wanted):
        return None
    if len(steps) == 1:  # NOTE: most cached programs are one fused kernel
        kernel, step, _ = steps[0]
        whole = wanted == kernel.outputs
        return functools.partial(
            _run_one, kernel, step, None if whole else wanted, run_step, context
        )
    return _unrolled(tuple(steps), wanted, run_step, context)


def _run_one(kernel, step, wanted, run_step, context, values: dict) -> dict:
    """A run of one step, whose outputs are what the run returns (`wanted`: the ones it
    returns, None: all of them): no values to update, none to drop."""
    with context():
        try:
            outs = run_step(step, values)
        except Exception as error:
            note_kernel(error, kernel)
            raise
    made = dict(zip(kernel.outputs, outs))
    return made if wanted is None else {node: made[node] for node in wanted}


def _unrolled(steps: tuple, wanted: tuple, run_step, context):
    """A run of `steps` as one generated function of the run's `values` (made once per
    schedule): each step's call, its outputs bound and its dead values dropped, line after
    line, where a loop's zip, update and inner loop cost ~0.5 us a kernel (a small script's
    materialization runs dozens). A failing step's error names its kernel, as the run loop's."""
    direct = run_step is operator.call  # NOTE: the cpu's and the cuda device's: step(values)
    env = {"context": context, "note_kernel": note_kernel, "run_step": run_step}
    env["KERNELS"] = tuple(kernel for kernel, _, _ in steps)
    lines = ["def run(values):", "    k = 0", "    with context():", "        try:"]
    for i, (kernel, step, dead) in enumerate(steps):
        env[f"S{i}"] = step
        lines += [f"            k = {i}", f"            o = {_call(i, direct)}"]
        for j, node in enumerate(kernel.outputs):
            env[f"O{i}_{j}"] = node
            lines.append(f"            values[O{i}_{j}] = o[{j}]")
        for j, node in enumerate(dead):
            env[f"D{i}_{j}"] = node
            lines.append(f"            values.pop(D{i}_{j}, None)")
    lines += ["        except Exception as error:", "            note_kernel(error, KERNELS[k])"]
    lines.append("            raise")
    env.update((f"W{i}", node) for i, node in enumerate(wanted))
    results = ", ".join(f"W{i}: values[W{i}]" for i in range(len(wanted)))
    lines.append(f"    return {{{results}}}")
    exec(compile("\n".join(lines), "<lazyinfini schedule run>", "exec"), env)
    return env["run"]


def _call(i: int, direct: bool) -> str:
    return f"S{i}(values)" if direct else f"run_step(S{i}, values)"


def allocator(device, settings: Settings):
    """What the handlers allocate outputs with: the device's `empty` within `settings`."""
    return functools.partial(device.empty, settings=settings)


_clock = time.perf_counter


def _account(schedule) -> None:
    totals = schedule.__dict__.get("totals")  # NOTE: summed once: cached schedules run again
    if totals is None:
        kernels = schedule.kernels
        totals = schedule.__dict__["totals"] = (
            len(kernels),
            sum(len(k.nodes) for k in kernels),
            sum(k.bytes_written for k in kernels),
            sum(k.bytes_read for k in kernels),
        )
    counters.kernels += totals[0]
    counters.nodes += totals[1]
    counters.bytes_written += totals[2]
    counters.bytes_read += totals[3]


def _report(kernel, seconds: float, settings: Settings, timings) -> None:
    if timings is not None:
        timings.append(seconds)
    if settings.debug >= 2:
        print(f"lazyinfini: {kernel!r} {seconds * 1e3:.3f} ms", file=sys.stderr)
