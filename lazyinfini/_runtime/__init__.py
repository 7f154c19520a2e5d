"""RUNNING it: the devices and the one run loop.

A device (lazyinfini/_device.py) is a Target, an allocator and a `Kind -> handler` table; the
run loop (run.py) runs any device's schedule. Each backend registers its device here: a new
backend is one module (or folder) and one registration line.
"""

from __future__ import annotations

from .._device import register_device
from .cpu import CPU, NUMPY
from .reference import REFERENCE
from .run import Settings, run_schedule

register_device(REFERENCE)
register_device(CPU)
register_device(NUMPY)

__all__ = ["CPU", "NUMPY", "REFERENCE", "Settings", "run_schedule"]
