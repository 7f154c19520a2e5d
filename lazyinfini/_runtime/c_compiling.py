"""The cpu's compiling device: one Compiling (compiling.py) for every C kernel it runs, so a new
schedule's elementwise kernels and rearrange plans compile in one translation unit, one run of
the system compiler (_render/compile.py: its disk cache, its CompileError).

Each kind of record registers how it renders (compiled.py: elementwise kernel records;
compiled_rearrange.py: rearrange plans) and the ctypes signature of its functions, by the type
of its calls' layouts.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

from .._render import c
from .._render.compile import CompileError, load, typed
from .compiling import Call, Compiling

RENDERERS: dict[type, Callable] = {}  # record type -> its Calls
ARGTYPES: dict[type, list] = {}  # a Call's layout type -> its function's argtypes


def _render(record) -> tuple[Call, ...]:
    return RENDERERS[type(record)](record)


def _compile(calls: list[Call]) -> ctypes.CDLL:
    return load(c.PRELUDE + "".join(call.source for call in calls))


def _find(library: ctypes.CDLL, call: Call):
    return typed(library, call.name, ARGTYPES[type(call.layout)])


C_KERNELS = Compiling(_render, _compile, _find, tolerated=(CompileError,))
