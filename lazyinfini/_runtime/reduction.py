"""A REDUCE kernel run as its two parts (its Reduction): the prologue by the device's elementwise
handler, then the sum by its opaque handler, the prologue's value held in between.

Any device can run a REDUCE kernel this way (its handlers for the parts' kinds), with the bits
of the unfused schedule: the cpu does where its C path does not run, and a device whose
Target never plans one (cuda) keeps it as its row of the table.
"""

from __future__ import annotations

import functools

from .._schedule.kernels import Kind


def in_parts(handlers: dict):
    """The REDUCE handler running a kernel's parts through `handlers` (a device's table)."""

    def reduce(kernel, values, memory) -> list:
        prologue, total = kernel.plan.prologue, kernel.plan.total
        return _in_order(
            kernel,
            lambda run: handlers[Kind.ELEMENTWISE](prologue, run, memory),
            lambda run: handlers[Kind.OPAQUE](total, run, memory),
            values,
        )

    return reduce


def parts_step(kernel, prologue_step, total_step):
    """A REDUCE kernel's step (a device runner's, run.direct_runner) from its parts' steps,
    run as in_parts runs the handlers, without their lookups between (~5 us of a small
    kernel's ~15)."""
    return functools.partial(_in_order, kernel, prologue_step, total_step)


def _in_order(kernel, prologue, total, values: dict) -> list:
    """`prologue(values)`'s value bound to the prologue's output, then `total(values)`'s
    outputs; the prologue's value dropped after, as the unfused schedule drops it."""
    (summed,) = kernel.plan.prologue.outputs
    (values[summed],) = prologue(values)
    try:
        return total(values)
    finally:
        del values[summed]
