"""The cuda device's own kernels: elementwise and rearrange kernel records rendered as CUDA C
(`_render/cuda.py`), compiled once per translation unit and launched as their Launch says.

A new schedule's kernels are compiled together, in one unit, before it runs (`prepare`: one
NVRTC run per new schedule, not one per kernel); a module is kept per source, so a kernel met
again (a cached schedule, another schedule holding it) is not compiled again.

A launch reads nothing of an array but its address: the strides each operand is assumed to
have are baked into the launch (cuda.layout), from the strides the scheduler planned. So a load
is passed as the view its chain gives (the address of its element [0, ..., 0]), checked to have
those strides, or as a C-contiguous copy where the layout assumes one (numpy's reshape to the
kernel's space would copy: its C order is the space's C order).
"""

from __future__ import annotations

import numpy as np

from ..._graph import Op
from ..._graph.views import stand_in
from ..._render import cuda
from ..._schedule.kernels import Kind
from ..memo import Memo
from .calls import evaluate_kernel, host_fill, load_view

_RENDERED = Memo()  # kernel record -> (Rendered or None, why not, loads copied first)


def rendered(kernel) -> tuple:
    """(its Rendered, None, copies) or (None, why it has no CUDA form, ()): worked out once
    per kernel record. `copies`: whether each load is passed as a C-contiguous copy."""
    known = _RENDERED.get(kernel)
    if known is None:
        why = cuda.unsupported(kernel) if kernel.kind is Kind.ELEMENTWISE else None
        if why is not None:
            known = (None, why, ())
        else:
            known = (cuda.render(kernel), None, _copies(kernel))
        _RENDERED[kernel] = known
    return known


def _copies(kernel) -> tuple[bool, ...]:
    """For each load: whether numpy's view rules cannot reshape it to the kernel's space (the
    layout then assumes a C-contiguous copy, cuda._strides_in)."""
    if kernel.kind is Kind.REARRANGE:
        return (False,)  # NOTE: the plan reads the source by its own strides
    space = kernel.space or (1,)
    copies = []
    for load in kernel.loads:
        view = stand_in(load.shape, load.strides, load.node.dtype)
        try:
            np.reshape(view, space, copy=False)
            copies.append(False)
        except ValueError:
            copies.append(True)
    return tuple(copies)


class Kernels:
    """The elementwise and rearrange handlers of a device on `backend`, its `prepare` hook and
    what explain() prints of them; the modules compiled so far (source -> module)."""

    def __init__(self, backend, value_of, library):
        self.backend = backend
        self.value_of = value_of
        self.library = library
        self.modules: dict[str, object] = {}
        self._prepared = Memo()  # NOTE: marked in each schedule record (as the cpu's prepare)

    def elementwise(self, kernel, values, memory) -> list:
        work, _, copies = rendered(kernel)
        if work is None:  # NOTE: complex, ...: the reference's arithmetic, in the namespace
            xp = self.backend.namespace
            loads = [load_view(ld, values, self.value_of, xp) for ld in kernel.loads]
            return evaluate_kernel(kernel, loads, self.library)
        outs = [memory(node.shape, node.dtype) for node in kernel.outputs]
        if kernel.outputs[0].size:
            loads = [
                host_fill(values, ld.base)
                if ld.base.op is Op.FULL
                else self._operand(ld, values, c)
                for ld, c in zip(kernel.loads, copies)
            ]  # NOTE: a fill's host value: the launch passes it by value (cuda.Param.by_value)
            self.backend.launch(self.module(work), work.launch, [*outs, *loads])
        return outs

    def rearrange(self, kernel, values, memory) -> list:
        (load,) = kernel.loads
        copy = kernel.outputs[0]
        out = memory(copy.shape, copy.dtype)
        if copy.size:  # NOTE: an empty copy launches nothing (a grid of 0 blocks)
            work = rendered(kernel)[0]
            source = self._operand(load, values, copy=False)
            self.backend.launch(self.module(work), work.launch, [out, source])
        return [out]

    def _operand(self, load, values, copy: bool):
        """A load as its launch reads it (see the module's docstring)."""
        view = load_view(load, values, self.value_of, self.backend.namespace)
        if copy:
            return self.backend.contiguous(view, load.node.dtype)
        found = [s for s, n in zip(view.strides, load.shape) if n > 1]
        want = [s for s, n in zip(load.strides, load.shape) if n > 1]
        # NOTE: a size-1 dim's stride is never multiplied by an index but 0: not compared
        assert found == want, f"{load!r}: the device's view has strides {view.strides}"
        return view

    def module(self, work):
        """The module holding a rendered kernel: compiled now if no unit had it yet."""
        found = self.modules.get(work.source)
        if found is None:
            found = self._compile([work])
        return found

    def _compile(self, works: list):
        module = self.backend.compile(works)
        for work in works:
            self.modules[work.source] = module
        return module

    def prepare(self, schedule) -> None:
        """Compile every kernel of a new schedule not compiled yet, in one translation unit."""
        if not self._prepared.first(schedule):
            return
        works = {}
        for kernel in schedule.kernels:
            if kernel.kind in (Kind.ELEMENTWISE, Kind.REARRANGE) and kernel.outputs[0].size:
                work = rendered(kernel)[0]
                if work is not None and work.source not in self.modules:
                    works[work.source] = work
        if works:
            self._compile(list(works.values()))

    def describe(self, kernel) -> str:
        """How the device runs an elementwise or rearrange kernel: its CUDA kernel and launch,
        or why it runs node by node in the namespace."""
        work, why, _ = rendered(kernel)
        if work is None:
            return f"node by node in the array namespace ({why})"
        launch = work.launch
        shared = f", {launch.shared_bytes} B shared" if launch.shared_bytes else ""
        return (
            f"rendered CUDA {launch.name}: {launch.method}, grid {launch.grid}, "
            f"block {launch.block}{shared}"
        )
