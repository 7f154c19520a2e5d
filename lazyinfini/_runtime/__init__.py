"""RUNNING it: the devices and the one run loop.

A device (lazyinfini/_device.py) is a Target, an allocator and a `Kind -> handler` table; the
run loop (run.py) runs any device's schedule. Each backend registers its device here: a new
backend is one module (or folder) and one registration line.
"""

from __future__ import annotations

import functools

from .._device import register_alias, register_device, register_loader
from .cpu import CPU, NUMPY
from .cuda import GPUS
from .cuda import load_device as load_cuda
from .dask import load_device as load_dask
from .reference import REFERENCE
from .run import Settings, allocator, run_schedule

register_device(REFERENCE)
register_device(CPU)
register_device(NUMPY)
register_loader("dask", load_dask)  # NOTE: imports dask only when first asked for
for _gpu in range(GPUS):  # NOTE: "cuda:0", "cuda:1", ...: each GPU by its index
    # NOTE: imports CuPy only when first asked for
    register_loader(f"cuda:{_gpu}", functools.partial(load_cuda, f"cuda:{_gpu}"))
register_alias("cuda", "cuda:0")  # NOTE: the default GPU, as in torch and CuPy

__all__ = ["CPU", "NUMPY", "REFERENCE", "Settings", "allocator", "run_schedule"]
