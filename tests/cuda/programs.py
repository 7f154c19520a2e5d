"""The programs the cuda device's tests run, on the emulated device and on a real GPU (the
`cuda` fixture, conftest.py), each against the reference device: values made on the device with its
`from_host` (not through the API's placement), computed there, read back with `to_host`."""

from __future__ import annotations

import ml_dtypes
import numpy as np

import lazyinfini as li
from lazyinfini._array import Array
from lazyinfini._graph import buffer_node
from lazyinfini._graph.memories import own
from lazyinfini._render import cuda
from lazyinfini._schedule import Kind

HALF_AND_FLOATS = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64]
RNG = np.random.default_rng(14)


class Laid:
    """An input laid out in memory as a view of a C-contiguous `base` (transposed, strided,
    reversed): made so on the device too, as the same view of a copy of the base (a device's
    `from_host` copies a host view into C order, which would lose the layout)."""

    def __init__(self, base: np.ndarray, view):
        self.base, self.view = base, view  # view: basic indexing and .T, on numpy's or CuPy's

    def host(self) -> np.ndarray:
        return self.view(self.base)


def put(device, value) -> Array:
    """An array on `device` (a Device of the cuda kind) holding a copy of `value` (a host
    array, or a Laid input in its layout)."""
    if isinstance(value, Laid):
        data = value.view(device.from_host(value.base))
    else:
        data = device.from_host(np.asarray(value))
    own(device.name, device.memory, device.reads)  # NOTE: as the API places arrays there
    return Array(buffer_node(data, "tests/cuda", device=device.name))


def host(value) -> np.ndarray:
    return value.host() if isinstance(value, Laid) else value


def on_device(fn, inputs, device, fuse: bool = True) -> np.ndarray:
    """fn over device copies of `inputs`, computed on `device`, as a host array."""
    with li.options(device=device.name, fuse=fuse):
        return np.asarray(fn(*[put(device, x) for x in inputs]))


def on_reference(fn, inputs) -> np.ndarray:
    with li.options(device="reference"):
        return np.asarray(fn(*[li.asarray(host(x)) for x in inputs]))


def assert_same_bits(actual: np.ndarray, expected: np.ndarray) -> None:
    """Equal dtype, shape and bytes (a NaN's payload and a zero's sign included)."""
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    items = actual.dtype.itemsize
    got = np.ascontiguousarray(actual).reshape(-1).view(np.uint8).reshape(actual.size, items)
    want = np.ascontiguousarray(expected).reshape(-1).view(np.uint8).reshape(actual.size, items)
    bad = np.flatnonzero((got != want).any(axis=1))
    assert not bad.size, (
        f"{len(bad)} elements differ, first at flat index {bad[0]}: "
        f"{actual.reshape(-1)[bad[0]]!r} vs {expected.reshape(-1)[bad[0]]!r}"
    )


def values(dtype, shape, low: float = -4.0, high: float = 4.0) -> np.ndarray:
    """Quarter-integer values in [low, high] (exact in every float dtype), some zeros."""
    return (RNG.integers(int(low * 4), int(high * 4) + 1, size=shape) / 4).astype(dtype)


def layouts(x: np.ndarray) -> dict[str, Laid]:
    """`x` (2-d) laid out in memory several ways, the same values."""
    return {
        "contiguous": Laid(x, lambda b: b),
        "transposed": Laid(np.ascontiguousarray(x.T), lambda b: b.T),
        "strided": Laid(np.repeat(x, 2, axis=1), lambda b: b[:, ::2]),
        "reversed": Laid(np.ascontiguousarray(x[::-1, ::-1]), lambda b: b[::-1, ::-1]),
    }


def laid_out(data: np.ndarray):
    """An input drawn by tests/runtime/test_cpu_differential.py's programs(): a strided one is
    every other row of a bigger buffer (its base), and stays so on the device."""
    if data.flags.c_contiguous or data.base is None:
        return data
    laid = Laid(data.base, lambda b: b[::2])
    assert laid.host().strides == data.strides and np.array_equal(laid.host(), data)
    return laid


def clip_sub(a, b):
    """The seed program: clip(a - b) between two scalars."""
    return li.clip(a - b, -1.5, 2.25)


def _setitem(x, i, v):
    x[i] = v  # NOTE: a functional update of x, recorded (a setitem node)
    return x


# (name, fn, inputs): reductions and other library calls, computed by the namespace
LIBRARY = [
    ("sum", lambda x: li.sum(x, axis=0), [values(np.float32, (6, 5))]),
    ("mean_f16", lambda x: li.mean(x, axis=1), [values(np.float16, (6, 5))]),
    ("max", lambda x: li.max(x), [values(np.float64, (7, 3))]),
    ("argmax", lambda x: li.argmax(x, axis=1), [values(np.float32, (4, 9))]),
    ("cumulative_sum", lambda x: li.cumulative_sum(x, axis=0), [values(np.int32, (5, 4), -9, 9)]),
    ("sort_desc", lambda x: li.sort(x, axis=0, descending=True), [values(np.float32, (8, 3))]),
    ("matmul", lambda x, y: x @ y, [values(np.float64, (4, 6)), values(np.float64, (6, 3))]),
    ("take", lambda x, i: li.take(x, i, axis=0), [values(np.float32, (4, 3)), np.array([2, 0, 2])]),
    ("concat", lambda x, y: li.concat([x, y], axis=1), [values(np.int64, (2, 3), -5, 5)] * 2),
    ("stack", lambda x, y: li.stack([x, y.T]), [values(np.float32, (3, 3))] * 2),
    (
        "diff",
        lambda x, y: li.diff(x, axis=0, prepend=y),
        [values(np.float32, (4, 2)), values(np.float32, (1, 2))],
    ),
    ("searchsorted", li.searchsorted, [np.arange(8.0), values(np.float64, (5,), 0, 7)]),
    (
        "setitem",
        _setitem,
        [values(np.float32, (5, 3)), np.array([4, 1]), values(np.float32, (2, 3))],
    ),
    ("qr", lambda x: li.linalg.qr(x)[1], [values(np.float64, (5, 4)) + 3 * np.eye(5, 4)]),
    # np.correlate's sum (a short signal's CORRELATE call): elementwise products and sums
    ("correlate", np.correlate, [values(np.float32, (20,)), values(np.float32, (5,))]),
    (
        "convolve_full",
        lambda x, k: np.convolve(x, k, mode="full"),
        [values(np.int16, (9,), -50, 50), values(np.int16, (4,), -50, 50)],
    ),
]
# The library calls whose result depends on the order of a sum (CuPy's reductions, cuBLAS): a
# GPU's are within the oracle's tolerance of the reference's
REORDERED = {"sum", "mean_f16", "matmul", "qr"}


def computed_together(fn, cases, device, fuse: bool = True) -> list[np.ndarray]:
    """fn over each case's inputs (put on `device`), computed by one schedule: one compile."""
    with li.options(device=device.name, fuse=fuse):
        outs = [fn(*[put(device, x) for x in inputs]) for inputs in cases]
        li.compute(*outs)
        return [np.asarray(out) for out in outs]


def layout_cases(dtype) -> list[tuple]:
    """(a, b) pairs of clip_sub: `a` in each layout, `b` a row, a column, a transposed matrix,
    a 0-d value."""
    a = values(dtype, (9, 40))
    bs = [values(dtype, (40,)), values(dtype, (9, 1)), values(dtype, ())]
    bs.append(layouts(values(dtype, (9, 40)))["transposed"])
    return [(x, b) for x in layouts(a).values() for b in bs]


REARRANGES = [  # (shape, dtype, requested view): copied by rearrange kernels
    ((64, 96), np.float32, lambda x: li.permute_dims(x, (1, 0))),
    ((8, 3, 32, 40), np.uint8, lambda x: li.permute_dims(x, (0, 2, 3, 1))),  # NCHW -> NHWC
    ((5, 33, 17), np.float64, lambda x: li.permute_dims(x, (2, 0, 1))),
    ((61, 67), np.float16, lambda x: li.permute_dims(x, (1, 0))),
    ((67, 131), np.float64, lambda x: li.permute_dims(x, (1, 0))),  # a grid with constraints
    ((6, 7, 8), np.int32, lambda x: li.permute_dims(x, (1, 0, 2))),  # 32-byte units
    ((3, 29, 65), np.complex128, lambda x: li.permute_dims(x, (0, 2, 1))),
    ((8, 40), np.float32, lambda x: x[::2, 1::3]),  # no contiguous source dim: direct
]


def random_bytes(shape, dtype) -> np.ndarray:
    """Random bytes as `dtype` (NaN payloads included: a copy moves bits, not values)."""
    raw = np.random.default_rng(2).integers(0, 256, (*shape, np.dtype(dtype).itemsize))
    return raw.astype(np.uint8).view(dtype).reshape(shape)


def expected_path(kernel, label: str) -> str:
    """What explain() should print of `kernel` on a cuda device whose backend is `label`."""
    if kernel.kind is Kind.OPAQUE:
        return f"the array namespace on {label}"
    if kernel.kind is Kind.ELEMENTWISE and cuda.unsupported(kernel):
        return f"node by node in the array namespace ({cuda.unsupported(kernel)})"
    return f"rendered CUDA {cuda.described(*cuda.render(kernel).launches)}"
