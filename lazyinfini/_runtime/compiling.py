"""One compiling device: a kernel record -> its rendered calls -> one translation unit per new
schedule -> a loaded function per call -> a prepared launch that a run binds and launches.

The cpu's C path and the cuda device share this skeleton; each is a dialect (what renders a
kernel record's calls), a compiler (the sources of a unit -> a loaded module) and a launcher (a
call's function with a run's buffers and scalars bound into the argument layout its Call fixed
at render time), as tinygrad's `Compiled(renderer, compiler, runtime)`:

- `calls(kernel)` renders once per kernel record (kept in the record: a cached schedule's
  kernels are met again), never twice for one cold schedule;
- `prepare(kernels)`, before a new schedule runs, compiles every source not compiled yet in ONE
  unit (one compiler run per new schedule, not one per kernel: ~60 ms each for C);
- `functions(kernel)` loads the functions of a kernel's calls once (compiling alone a source no
  unit had: a kernel run outside a prepared schedule).

What a call's arguments are, and how a launch binds them, is the device's own (its `Call`'s
`layout`): the cpu's is shapes, strides and pointer offsets in ctypes arrays made once, the
cuda device's a packed parameter block (cuda's kernelParams) whose pointer and scalar slots a
run rewrites.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .memo import Memo


@dataclass(frozen=True, eq=False)
class Call:
    """One function call of a kernel's launch: its `source` (named `name` in it, a unit of
    several sources compiles as one) and what its launcher needs besides the function (the
    argument layout, fixed when rendered)."""

    source: str
    name: str
    layout: Any = None


class Compiling:
    """A compiling device's kernels: `render` (kernel -> its Calls), `compile` (Calls of
    distinct sources -> one module holding them), `find` ((module, call) -> the loaded
    function). Failures of
    `compile` propagate from `functions`; `prepare` tolerates the `tolerated` ones (each
    kernel then compiles alone, and fails alone, at its first run)."""

    def __init__(
        self,
        render: Callable[[Any], tuple[Call, ...]],
        compile: Callable[[list[Call]], Any],
        find: Callable[[Any, Call], Any],
        tolerated: tuple[type[BaseException], ...] = (),
    ):
        self._render, self._compile, self._find = render, compile, find
        self.tolerated = tolerated
        self.modules: dict[str, Any] = {}  # source -> the module holding its function
        self._calls, self._functions = Memo(), Memo()
        self._lock = threading.Lock()  # NOTE: kernels may run from several threads (dask's)

    def calls(self, kernel) -> tuple[Call, ...]:
        """`kernel`'s calls, rendered at the first ask."""
        found = self._calls.get(kernel)
        if found is None:
            found = self._render(kernel)
            self._calls[kernel] = found
        return found

    def functions(self, kernel) -> tuple:
        """The loaded function of each of `kernel`'s calls."""
        found = self._functions.get(kernel)
        if found is None:
            calls = self.calls(kernel)
            missing = [c for c in calls if c.source not in self.modules]
            if missing:
                self._compiled(missing)
            found = tuple(self._find(self.modules[c.source], c) for c in calls)
            self._functions[kernel] = found
        return found

    def prepare(self, kernels: Iterable) -> None:
        """Compile every source the calls of `kernels` need that no unit had yet, as one."""
        sources: dict[str, Call] = {}
        for kernel in kernels:
            try:
                calls = self.calls(kernel)
            except self.tolerated:
                continue  # NOTE: it fails (and falls back) alone at its run
            for call in calls:
                if call.source not in self.modules:
                    sources.setdefault(call.source, call)
        if not sources:
            return
        try:
            self._compiled(list(sources.values()))
        except self.tolerated:
            return  # NOTE: each kernel compiles (and fails) alone at its first run

    def _compiled(self, calls: list[Call]) -> None:
        with self._lock:
            calls = list({c.source: c for c in calls if c.source not in self.modules}.values())
            if calls:
                module = self._compile(calls)
                for call in calls:
                    self.modules[call.source] = module

    def forget(self, kernel) -> None:
        """Render and load `kernel` again at its next run (its path changed)."""
        self._calls[kernel] = None
        self._functions[kernel] = None
