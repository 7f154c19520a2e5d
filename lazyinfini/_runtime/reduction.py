"""A REDUCE kernel run as its two parts (its Reduction): the prologue by the device's elementwise
handler, then the sum by its opaque handler, the prologue's value held in between.

Any device can run a REDUCE kernel this way (its handlers for the parts' kinds), with the bits
of the unfused schedule: the cpu does where its C path does not run, and a device whose
Target never plans one (cuda) keeps it as its row of the table.
"""

from __future__ import annotations

from .._schedule.kernels import Kind


def in_parts(handlers: dict):
    """The REDUCE handler running a kernel's parts through `handlers` (a device's table)."""

    def reduce(kernel, values, memory) -> list:
        prologue, total = kernel.plan.prologue, kernel.plan.total
        (summed,) = prologue.outputs
        (values[summed],) = handlers[Kind.ELEMENTWISE](prologue, values, memory)
        try:
            return handlers[Kind.OPAQUE](total, values, memory)
        finally:
            del values[summed]  # NOTE: dropped as the unfused schedule drops it

    return reduce


def parts_step(kernel, prologue_step, total_step):
    """A REDUCE kernel's step (a device runner's, run.direct_runner) from its parts' steps:
    the prologue's, then the total's, the prologue's value dropped after, as in_parts runs
    them, without the handlers' lookups between (~5 us of a small kernel's ~15)."""
    (summed,) = kernel.plan.prologue.outputs

    def step(values: dict) -> list:
        (values[summed],) = prologue_step(values)
        try:
            return total_step(values)
        finally:
            del values[summed]

    return step
