"""The cuda device's own kernels on the compiling skeleton (compiling.py): elementwise and
rearrange kernel records rendered as CUDA C (`_render/cuda.py`), compiled by NVRTC once per
new schedule (one translation unit), launched from a prepared launch.

A kernel's prepared launch (`_Prepared`, made once per kernel record: a cached schedule runs it
again) holds its loaded function, its Launch (grid, block) and its packed arguments
(packed.py). A run only allocates the outputs, writes each operand's address (a load's: its
base's plus the load's byte offset) and each fill's value into the packed arguments, and
launches: no view is made, no scalar uploaded, nothing waited for.

A launch reads nothing of an array but its address: the strides each operand is assumed to
have are baked into the launch (cuda.layout), from the strides the scheduler planned. So a
load is passed where its chain puts its element [0, ..., 0] in its base, or as a C-contiguous
copy where the layout assumes one (numpy's reshape to the kernel's space would copy).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._graph import Op, fill_value
from ..._graph.views import stand_in
from ..._render import cuda
from ..._schedule.kernels import Kind
from ..compiling import Call, Compiling
from ..memo import Memo
from .calls import evaluate_kernel, load_view
from .packed import Packed
from .steps import fill_bits, launch_step, misread

_WHY = Memo()  # kernel record -> why it has no CUDA form ("" when it has)


def unsupported(kernel) -> str:
    """Why an elementwise kernel has no CUDA form ("" when it has), worked out once."""
    why = _WHY.get(kernel)
    if why is None:
        elementwise = kernel.kind is Kind.ELEMENTWISE
        why = _WHY[kernel] = (cuda.unsupported(kernel) or "") if elementwise else ""
    return why


def _render(kernel) -> tuple[Call, ...]:
    """A Call per launch of the kernel's source, its launch first, then a fallback's; each
    laid out as (its Launch, which loads are copies, the cuda.Rendered holding both)."""
    rendered, copies = cuda.render(kernel), _copies(kernel)
    return tuple(Call(rendered.source, ln.name, (ln, copies, rendered)) for ln in rendered.launches)


def _copies(kernel) -> tuple[bool, ...]:
    """For each load: whether numpy's view rules cannot reshape it to the kernel's space (the
    layout then assumes a C-contiguous copy, cuda_elementwise._strides_in)."""
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


@dataclass(frozen=True, eq=False)
class _Prepared:
    """What a run of a kernel needs besides its buffers: its function, Launch and packed
    arguments, the (function, Launch) of its fallback (None: none), taken where a run's
    addresses are off the launch's alignment (Launch.fits), and the packed slots by role, so a
    run writes each one directly: outputs' addresses, buffers' (base + offset), fills' bits
    (their own bits kept: a loop's unchanged constant is not converted again), and the others'
    (a load passed as a copy, a fill copied to the device)."""

    function: object
    launch: cuda.Launch
    packed: Packed
    fallback: tuple | None
    outputs: tuple  # (shape, dtype) of each output
    out_slots: tuple
    buffers: tuple  # (slot, base node, byte offset, the strides a bound buffer must have)
    fills: tuple  # (slot, fill node, unsigned dtype of its bits, its own value's bits)
    others: tuple  # (slot, load, whether it is passed as a C-contiguous copy)
    aligned: tuple  # slots whose addresses the launch assumes aligned, where it has a fallback

    def bind(self, values: dict, outs: list, kernels: Kernels, held: list) -> tuple:
        """Write this run's addresses and fills into the packed slots (copies made kept in
        `held` until launched); the (function, Launch) to launch."""
        address = kernels.backend.address
        for slot, out in zip(self.out_slots, outs):
            slot.value = address(out)
        for slot, node, offset, strides in self.buffers:
            base = values.get(node)
            if base is None:
                base = kernels.value_of(values, node)
            # NOTE: a buffer laid out otherwise than the schedule recorded would be read wrong
            # (the cache keys schedules by buffers' strides; fresh buffers are C-contiguous)
            if strides is not None and base.strides != strides and base.size > 1:
                misread(node, base)
            slot.value = address(base) + offset
        for slot, node, bits, own in self.fills:
            bound = values.get(node)  # NOTE: bound where it differs from its own value
            slot.value = own if bound is None else fill_bits(values, node, bits)
        for slot, load, copy in self.others:
            slot.value = kernels.address_of(load, values, copy, held)
        for slot in self.aligned:
            if slot.value % self.launch.align:
                return self.fallback  # NOTE: a view off its vectors' boundary
        return self.function, self.launch


class Kernels:
    """The elementwise and rearrange handlers of a device on `backend`, its `prepare` hook and
    what explain() prints of them."""

    def __init__(self, backend, value_of, library):
        self.backend = backend
        self.value_of = value_of
        self.library = library
        self.compiling = Compiling(_render, self._compile, backend.function)
        self._prepared = Memo()  # NOTE: a schedule's mark, and each kernel's _Prepared
        self._schedules = Memo()
        self._steps = Memo()  # NOTE: each _Prepared's generated step

    def elementwise(self, kernel, values, memory) -> list:
        if unsupported(kernel):  # NOTE: complex, ...: the reference's arithmetic, in the namespace
            xp = self.backend.namespace
            loads = [load_view(ld, values, self.value_of, xp) for ld in kernel.loads]
            return evaluate_kernel(kernel, loads, self.library)
        outs = [memory(node.shape, node.dtype) for node in kernel.outputs]
        if kernel.outputs[0].size:
            self._launch(kernel, values, outs)
        return outs

    def rearrange(self, kernel, values, memory) -> list:
        copy = kernel.outputs[0]
        out = memory(copy.shape, copy.dtype)
        if copy.size:  # NOTE: an empty copy launches nothing (a grid of 0 blocks)
            self._launch(kernel, values, [out])
        return [out]

    def _compile(self, calls: list) -> object:
        # NOTE: one call a source reaches here; its Rendered names every function in it
        return self.backend.compile([c.layout[2] for c in calls])

    def step_of(self, kernel):
        """A kernel's step in its schedule's launch list (run.direct_runner): its prepared
        launch as one function of the run's values (steps.launch_step), where a run only binds
        and launches it; None where it needs more (a copy, a fill on the device, a kernel run
        node by node, an empty output: the run loop's)."""
        if kernel.kind not in _LAUNCHED or not kernel.outputs[0].size or unsupported(kernel):
            return None
        ready = self._prepared.get(kernel) or self._prepare(kernel)
        return None if ready.others else self._steps.get(ready) or self._step(ready)

    def _step(self, ready: _Prepared):
        step = self._steps[ready] = launch_step(ready, self)
        return step

    def _launch(self, kernel, values, outs: list) -> None:
        """Bind this run's operands into the kernel's prepared launch and launch it."""
        ready = self._prepared.get(kernel) or self._prepare(kernel)
        held = []  # NOTE: copies made for this launch: alive until it is launched
        self.backend.launch(*ready.bind(values, outs, self, held), ready.packed)

    def _prepare(self, kernel) -> _Prepared:
        calls = self.compiling.calls(kernel)
        functions = self.compiling.functions(kernel)
        launch, copies, _ = calls[0].layout
        by_value = {p.operand for p in launch.params if p.by_value}
        packed = Packed(launch)
        slots, fills, buffers, others = packed.slots, [], [], []
        for k, (load, copy) in enumerate(zip(kernel.loads, copies), len(kernel.outputs)):
            how = _how(k in by_value, copy, load)
            if how is _FILL:  # NOTE: a fill's value, passed by value
                own = int(fill_value({}, load.base).view(packed.bits[k]))
                fills.append((slots[k], load.base, packed.bits[k], own))
            elif how is _BASE:
                buffers.append((slots[k], load.base, load.offset, _strides(load)))
            else:
                others.append((slots[k], load, how is _COPY))
        # NOTE: a fallback takes the same parameters: one packed block serves both launches
        fallback = (functions[1], calls[1].layout[0]) if len(calls) > 1 else None
        outputs = tuple((node.shape, node.dtype) for node in kernel.outputs)
        ready = _Prepared(
            functions[0],
            launch,
            packed,
            fallback,
            outputs,
            tuple(slots[k] for k in range(len(outputs))),
            tuple(buffers),
            tuple(fills),
            tuple(others),
            tuple(slots[k] for k in launch.aligned) if fallback else (),
        )
        self._prepared[kernel] = ready
        return ready

    def address_of(self, load, values, copy: bool, held: list) -> int:
        """A load's element [0, ..., 0] as the launch assumes it laid out: in its base (a
        buffer's own data, a fill copied to the device), or in a C-contiguous copy (kept in
        `held` until launched)."""
        if copy:
            view = load_view(load, values, self.value_of, self.backend.namespace)
            held.append(self.backend.contiguous(view, load.node.dtype))
            return self.backend.address(held[-1])
        return self.backend.address(self.value_of(values, load.base)) + load.offset

    def prepare(self, schedule) -> None:
        """Compile every kernel of a new schedule not compiled yet, in one translation unit."""
        if not self._schedules.first(schedule):
            return
        kernels = [
            k
            for k in schedule.kernels
            if k.kind in (Kind.ELEMENTWISE, Kind.REARRANGE)
            and k.outputs[0].size
            and not unsupported(k)
        ]
        self.compiling.prepare(kernels)

    def describe(self, kernel) -> str:
        """How the device runs an elementwise or rearrange kernel: its CUDA kernel and launch,
        or why it runs node by node in the namespace."""
        why = unsupported(kernel)
        if why:
            return f"node by node in the array namespace ({why})"
        launches = [call.layout[0] for call in self.compiling.calls(kernel)]
        return f"rendered CUDA {cuda.described(*launches)}"


_FILL, _BASE, _COPY, _DEVICE_FILL = "fill", "base", "copy", "device fill"
_LAUNCHED = (Kind.ELEMENTWISE, Kind.REARRANGE)


def _how(by_value: bool, copy: bool, load) -> str:
    """How a launch reads a load: a fill by value, through a copy, a fill copied to the device
    (a rearrange of a fill), or its base's data."""
    if by_value:
        return _FILL
    if copy:
        return _COPY
    return _DEVICE_FILL if load.base.op is Op.FULL else _BASE


def _strides(load) -> tuple | None:
    """The strides a bound buffer must have for the launch (None: not a buffer)."""
    return load.base.layout.strides if load.base.op is Op.BUFFER else None
