"""The cuda device: a Device record (`_device.py`) over a `Backend` (backend.py).

- elementwise and rearrange kernels: CUDA C rendered from the kernel records, compiled once per
  translation unit, launched as their Launch says (kernels.py); an elementwise kernel without
  a CUDA form (complex dtypes, ...) is computed node by node in the backend's Array API
  namespace (calls.py), and explain() says so;
- views, sources and library calls (reductions, sort, linalg, fft, indexing with arrays): the
  namespace's functions on the device's arrays (calls.py, library.py);
- fills: an elementwise kernel's fill (a Python scalar, a clip bound) is a kernel parameter,
  passed by value at launch; a fill another kernel reads is copied to the device (bit for
  bit, -0.0 too) and broadcast.

`make_device(backend, name)` builds it on any backend: `load_device()` (`__init__.py`) on
CuPy's, the tests on an emulated one (tests/cuda/emulator.py).
"""

from __future__ import annotations

import operator

import numpy as np

from ..._device import Device
from ..._graph import Node, Op, fill_value
from ..._schedule.kernels import Kind
from ..._schedule.target import Target
from ..library import kernel_call
from ..reduction import in_parts
from ..run import direct_runner
from .backend import Backend
from .calls import HOST_FILL, library_of, load_view, source_value
from .kernels import Kernels

TARGET = Target(
    "cuda",
    # NOTE: a transposed load is never copied first: the elementwise kernel reads it through
    # a shared 32x33 tile itself (cuda.py's tiled walk), where a rearrange first would write
    # and read the operand once more.
    transposed_copy_min=None,
    # The L1 set-aliasing cap on a tile's rows is the CPU's (4 KiB-strided rows evict each
    # other there): a GPU block copies its tile through shared memory in 32x32 tiles, which
    # want 32 rows or more. No cap: the tile is square by the block budget.
    tile_set_ways=1 << 30,
    # A block dim copied by the inner loop may be short: the destination-contiguous dim stays
    # the fastest (one thread per unit, a warp's writes coalesced), however short.
    tile_min_inner=1,
    # Every elementwise kernel is rendered (no numpy path to prefer for small ones).
    compile_min=0,
    # The CUDA kernel renders the plan whatever the record's method (cuda.py chooses a direct
    # or shared-tile copy from the plan): explain() prints no method line.
    copy_methods=False,
    # NOTE: left at their defaults, and why: `block_bytes` (32 KiB: a grid cell, one CUDA
    # block, of eight 32x32 float32 tiles; not measured on a GPU yet); `direct_copy_bytes` and
    # `local_walk_rows` only name the record's method, which this device does not follow;
    # `chunk` is the cpu's host chunking, which no kernel here has; `tile_lines` (False):
    # line tiles are the C kernel's register transposes, which CUDA does in shared memory;
    # `writes_in_place` (True): an update writes into a device buffer the schedule made and
    # reads for the last time, as on the cpu (tests/cuda/test_updates.py).
)


def make_device(backend: Backend, name: str) -> Device:
    """The cuda device called `name`, its arrays and kernels on `backend`."""
    value_of = _value_of(backend)
    library = library_of(backend.namespace, backend.contiguous)
    kernels = Kernels(backend, value_of, library)

    def view(kernel, values, memory) -> list:
        return [load_view(kernel.loads[0], values, value_of, backend.namespace)]

    def source(kernel, values, memory) -> list:
        (node,) = kernel.nodes
        if node.op is Op.FULL:
            return [value_of(values, node)]
        return [source_value(node, backend.namespace)]

    def opaque(kernel, values, memory) -> list:
        inputs = [load_view(ld, values, value_of, backend.namespace) for ld in kernel.loads]
        return kernel_call(kernel, library).run(inputs)

    handlers = {
        Kind.ELEMENTWISE: kernels.elementwise,
        Kind.REARRANGE: kernels.rearrange,
        Kind.VIEW: view,
        Kind.SOURCE: source,
        Kind.OPAQUE: opaque,
    }
    # NOTE: TARGET plans no REDUCE kernel (reduce_prologues is off); its parts would run here
    handlers[Kind.REDUCE] = in_parts(handlers)
    return Device(
        name,
        TARGET,
        handlers,
        # NOTE: no pool of ours (pool_bytes is the host pool's): CuPy's memory pool keeps
        # freed blocks for reuse itself.
        lambda shape, dtype, settings: backend.empty(shape, dtype),
        value_of,
        to_host=backend.to_host,
        from_host=lambda array: _uploaded(backend, array),
        context=backend.context,
        prepare=kernels.prepare,
        # NOTE: a cached program is a list of launches (run.direct_runner), made once
        runner=direct_runner(kernels.step_of, operator.call, backend.context, kernels.prepare),
        describe=lambda kernel: _describe(kernel, kernels, backend),
        memory=backend.memory,
        reads=(),  # NOTE: host arrays are moved here explicitly, never read in place
        holds_arrays=True,
        dlpack=backend.dlpack,
        adopt=backend.adopt,
        namespace=lambda: backend.namespace,
    )


def _value_of(backend: Backend):
    """The device's value_of: a computed value, a buffer's array, or a fill on the device."""

    def value_of(values: dict, node: Node):
        value = values.get(node)
        if node.op is Op.FULL:
            if value is not None and not isinstance(value, np.ndarray):
                return value  # NOTE: the fill computed on the device, at its shape
            # NOTE: the value bound for this run (_cache.py), copied once per run (kept in
            # `values`, a fresh dict every run): the kernels read one element (strides 0).
            # Its host value is kept beside it: a kernel passing it by value reads that.
            host = values[(node, HOST_FILL)] = fill_value(values, node)
            value = values[node] = _filled(backend, host, node.shape)
            return value
        if value is not None:
            return value
        if node.op is Op.BUFFER:
            return node.arg.data  # NOTE: a schedule run without bindings (li.inspect's)
        raise KeyError(node)

    return value_of


def _filled(backend: Backend, fill: np.ndarray, shape: tuple[int, ...]):
    # NOTE: a fresh copy of the fill (never the template's own value): the result may be
    # exported, as the cpu's filled() says
    return backend.namespace.broadcast_to(_uploaded(backend, fill), shape)


def _uploaded(backend: Backend, array: np.ndarray):
    """A host array copied to the device bit for bit: a 0-d one as one element reshaped, where
    CuPy's asarray of a 0-d array fills it in (a fill of a value equal to 0 is a memset:
    -0.0 would come out +0.0)."""
    if np.ndim(array):
        return backend.from_host(array)
    return backend.namespace.reshape(backend.from_host(np.reshape(array, (1,))), ())


def _describe(kernel, kernels: Kernels, backend: Backend) -> str:
    if kernel.kind in (Kind.ELEMENTWISE, Kind.REARRANGE):
        return kernels.describe(kernel)
    if kernel.kind is Kind.VIEW:
        return "a view of the device's array"
    return f"the array namespace on {backend.label}"
