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

import functools
from dataclasses import dataclass

import numpy as np

from ..._graph import Op, fill_value
from ..._graph.views import stand_in
from ..._render import cuda
from ..._schedule.kernels import Kind
from ..compiling import Call, Compiling
from ..failures import note_kernel
from ..memo import Memo
from .calls import HOST_FILL, evaluate_kernel, load_view
from .packed import Packed

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
    arguments, which loads it passes as copies, and the (function, Launch) of its fallback
    (None: none), taken where a run's addresses do not fit the launch (Launch.fits)."""

    function: object
    launch: cuda.Launch
    packed: Packed
    # (operand, how, base node, byte offset, the strides a bound buffer must have, load) for
    # each load: how a run finds its address (_BASE, _COPY) or value (_FILL)
    reads: tuple[tuple, ...]
    fallback: tuple | None = None


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
        self._runners = Memo()  # NOTE: a schedule's launch list (False: it has none)

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

    def runner(self, schedule):
        """A run of `schedule` that only binds and launches (its launch list, made once per
        schedule), or None where a kernel needs more than binding: a copy, a fill on the
        device, a kernel run node by node, an empty output (the run loop runs those)."""
        run = self._runners.get(schedule)
        if run is None:
            self.prepare(schedule)
            run = self._runners[schedule] = self._launch_list(schedule) or False
        return run or None

    def _launch_list(self, schedule):
        steps = []
        for kernel, dead in zip(schedule.kernels, schedule.frees):
            if kernel.kind not in _LAUNCHED or not kernel.outputs[0].size or unsupported(kernel):
                return None
            ready = self._prepared.get(kernel) or self._prepare(kernel)
            if any(read[1] not in (_FILL, _BASE) for read in ready.reads):
                return None
            steps.append((kernel, _Step.of(kernel, ready), dead))
        wanted = (*schedule.outputs, *schedule.kept)
        made = {node for kernel in schedule.kernels for node in kernel.outputs}
        if not steps or not made.issuperset(wanted):
            return None
        return functools.partial(self._run_list, tuple(steps), wanted)

    def _run_list(self, steps: tuple, wanted: tuple, values: dict) -> dict:
        """Each step's outputs from the memory pool, its operands bound, its launch; the values
        `wanted` (the schedule's outputs, then its kept nodes)."""
        backend = self.backend
        empty, address, launch = backend.empty, backend.address, backend.launch
        with backend.context():
            for kernel, step, dead in steps:
                outs = [empty(shape, dtype) for shape, dtype in step.outputs]
                try:
                    launch(*step.bind(values, outs, address, self.value_of), step.ready.packed)
                except Exception as error:
                    note_kernel(error, kernel)
                    raise
                values.update(zip(kernel.outputs, outs))
                for node in dead:
                    values.pop(node, None)  # NOTE: its memory goes back to the pool
        return {node: values[node] for node in wanted}

    def _launch(self, kernel, values, outs: list) -> None:
        """Bind this run's operands into the kernel's prepared launch and launch it."""
        self._bound_launch(self._prepared.get(kernel) or self._prepare(kernel), values, outs)

    def _bound_launch(self, ready: _Prepared, values, outs: list) -> None:
        address = self.backend.address
        addresses = [address(out) for out in outs]
        fills, held = {}, []
        for k, how, node, offset, strides, load in ready.reads:
            if how is _FILL:  # NOTE: a fill's value, passed by value
                kept = values.get((node, HOST_FILL))
                fills[k] = kept if kept is not None else fill_value(values, node)
                addresses.append(0)
                continue
            base = values.get(node) if how is _BASE else None
            if base is None:
                addresses.append(self._address(load, values, how is _COPY, held))
                continue
            # NOTE: a buffer laid out otherwise than the schedule recorded would be read wrong
            # (the cache keys schedules by buffers' strides; fresh buffers are C-contiguous)
            if strides is not None and base.strides != strides and base.size > 1:
                raise RuntimeError(f"lazyinfini: internal error: {load} read as {base.strides}")
            addresses.append(address(base) + offset)
        ready.packed.bind(addresses, fills)
        function, launch = ready.function, ready.launch
        if ready.fallback is not None and not launch.fits(addresses):
            function, launch = ready.fallback  # NOTE: a view off its vectors' boundary
        self.backend.launch(function, launch, ready.packed)

    def _prepare(self, kernel) -> _Prepared:
        calls = self.compiling.calls(kernel)
        functions = self.compiling.functions(kernel)
        launch, copies, _ = calls[0].layout
        by_value = {p.operand for p in launch.params if p.by_value}
        reads = tuple(
            (k, _how(k in by_value, copy, load), load.base, load.offset, _strides(load), load)
            for k, (load, copy) in enumerate(zip(kernel.loads, copies), len(kernel.outputs))
        )
        # NOTE: a fallback takes the same parameters: one packed block serves both launches
        fallback = (functions[1], calls[1].layout[0]) if len(calls) > 1 else None
        ready = _Prepared(functions[0], launch, Packed(launch), reads, fallback)
        self._prepared[kernel] = ready
        return ready

    def _address(self, load, values, copy: bool, held: list) -> int:
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


@dataclass(frozen=True, eq=False)
class _Step:
    """A launch list's kernel: its packed argument slots by role, so a run writes each slot
    directly: outputs' addresses, buffers' (base + offset), fills' bits (the template's own
    bits kept: a loop's unchanged constant is not converted again)."""

    outputs: tuple  # (shape, dtype) of each output
    out_slots: tuple
    buffers: tuple  # (slot, base node, byte offset, the strides a bound buffer must have)
    fills: tuple  # (slot, fill node, unsigned dtype of its bits, its own value's bits)
    aligned: tuple  # slots whose addresses the launch assumes aligned (Launch.fits)
    ready: _Prepared

    @staticmethod
    def of(kernel, ready: _Prepared) -> _Step:
        slots = ready.packed.slots
        fills = tuple(
            (slots[k], node, bits, int(fill_value({}, node).view(bits)))
            for k, how, node, *_ in ready.reads
            if how is _FILL
            for bits in [ready.packed.bits[k]]
        )
        buffers = tuple(
            (slots[k], node, offset, strides)
            for k, how, node, offset, strides, _ in ready.reads
            if how is _BASE
        )
        outputs = tuple((node.shape, node.dtype) for node in kernel.outputs)
        aligned = tuple(slots[k] for k in ready.launch.aligned) if ready.fallback else ()
        out_slots = tuple(slots[k] for k in range(len(outputs)))
        return _Step(outputs, out_slots, buffers, fills, aligned, ready)

    def bind(self, values: dict, outs: list, address, value_of) -> tuple:
        """Write this run's addresses and fills into the packed slots; the (function, Launch)
        to launch: the fallback's where a bound address is off the launch's alignment."""
        for slot, out in zip(self.out_slots, outs):
            slot.value = address(out)
        for slot, node, offset, strides in self.buffers:
            base = values.get(node)
            if base is None:
                base = value_of(values, node)
            # NOTE: a buffer laid out otherwise than the schedule recorded would be read wrong
            # (the cache keys schedules by buffers' strides; fresh buffers are C-contiguous)
            if strides is not None and base.strides != strides and base.size > 1:
                raise RuntimeError(f"lazyinfini: internal error: {node} read as {base.strides}")
            slot.value = address(base) + offset
        for slot, node, bits, own in self.fills:
            bound = values.get(node)  # NOTE: bound where it differs from its own value
            slot.value = own if bound is None else _bits(values, node, bits)
        ready = self.ready
        if self.aligned:
            align = ready.launch.align
            for slot in self.aligned:
                if slot.value % align:
                    return ready.fallback
        return ready.function, ready.launch


def _bits(values, node, bits) -> int:
    """A fill's value bound for this run, as the unsigned integer of its bits."""
    return int(fill_value(values, node).view(bits))


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
