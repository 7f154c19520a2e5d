"""The kernel records the CUDA tests render: every elementwise op x dtype, loads of every layout
(strided, broadcast, reversed, sliced), fused chains, transposed operands (the tiled kernel),
the vector walk over sizes with and without a tail, and rearranges of several permutations
(direct, through the shared tile, with constraints; NCHW <-> NHWC with 1 to 4 channels, which
interleave; transposes whose sides are no multiple of 32)."""

from __future__ import annotations

import functools

import numpy as np

import lazyinfini as li
from lazyinfini._graph.views import c_strides
from lazyinfini._render import cuda
from lazyinfini._schedule import Kind
from lazyinfini._schedule.rearrange import plan_rearrange
from tests.render.programs import elementwise_kernel, kernels_of, op_programs, values

RNG = np.random.default_rng(7)
# (shape, permutation, dtype): requested permutes the cpu schedules as rearrange kernels
PERMUTES = [
    ((64, 96), (1, 0), np.float32),
    ((8, 3, 32, 40), (0, 2, 3, 1), np.uint8),
    ((5, 33, 17), (2, 0, 1), np.float64),
    ((40, 24), (1, 0), np.float16),
    ((6, 7, 8), (1, 0, 2), np.int32),
    ((3, 129, 65), (0, 2, 1), np.complex128),
]
# (shape, source element strides, destination element strides, itemsize, block bytes): plans
# split into blocks and grids with constraints (two primes), broadcasts, negative strides
PLANS = [
    ((53, 37), (1, 53), (37, 1), 4, 1024),
    ((61, 67), (67, 1), (1, 61), 2, 2048),
    ((15, 300), (0, 1), (300, 1), 4, 1024),
    ((30, 29), (-29, 1), (1, 30), 8, 4096),
    ((4, 6, 64), (64, 256, 1), (384, 64, 1), 4, 2048),
    ((2, 3, 5, 7), (105, 35, 7, 1), (1, 2, 6, 30), 1, 64),
]


# (shape, permutation, dtype): NCHW -> NHWC and back with 1 to 4 channels, H*W even (the
# interleave walks) and odd (the direct walk), bytes and half words
WEAVES = [
    (shape, axes, dtype)
    for channels in (1, 2, 3, 4)
    for h, w in ((4, 6), (5, 7))
    for shape, axes in (((2, channels, h, w), (0, 2, 3, 1)), ((2, h, w, channels), (0, 3, 1, 2)))
    for dtype in (np.uint8, np.float16)
]
# transposes whose sides are no multiple of 32 (and one that is), units of 1 to 32 bytes
TRANSPOSES = [
    (shape, axes, dtype)
    for shape, axes in (
        ((33, 47), (1, 0)),
        ((100, 65), (1, 0)),
        ((2, 50, 70), (0, 2, 1)),
        ((64, 64), (1, 0)),
        ((40, 17, 2), (1, 0, 2)),
    )
    for dtype in (np.uint8, np.float16, np.float32, np.float64, np.complex128)
]
# (program, shapes): vector walks over sizes below one vector, with a tail, of whole blocks,
# and a broadcast row and column joining the vectors element by element
VECTOR_SHAPES = [((1,), (1,)), ((3,), (3,)), ((9,), (9,)), ((16,), (16,)), ((2055,), (2055,))]
VECTOR_SHAPES += [((5, 7), (7,)), ((3, 130), (3, 1))]
# rows of whole threads' elements: a channel's bias, a column, a bias row (_per_row)
VECTOR_SHAPES += [((2, 3, 4, 16), (1, 3, 1, 1)), ((6, 64), (6, 1)), ((4, 32), (32,))]


def permute_plan(shape, axes, dtype):
    """The plan copying a C-contiguous array of `shape` permuted by `axes` into C order."""
    itemsize = np.dtype(dtype).itemsize
    src = [c_strides(shape, itemsize)[a] // itemsize for a in axes]
    out = [shape[a] for a in axes]
    return plan_rearrange(out, src, [s // itemsize for s in c_strides(out, itemsize)], itemsize)


def vector_programs(dtype) -> list:
    """(name, program of x and y) the vector walk runs: same-shape operands, mixed widths
    (a comparison to bool, a cast), fills by value."""
    low, high = (3, 200) if np.dtype(dtype).kind in "iu" else (-1.5, 2.25)
    return [
        ("clip_sub", lambda x, y: li.clip(x - y, low, high)),
        ("where_greater", lambda x, y: li.where(x > y, x - y, x)),
        ("to_float32", lambda x, y: li.astype(x - y, li.float32) * 2),
        ("greater", lambda x, y: x > y),
    ]


def chains(dtype) -> list:
    """Fused programs over loads of several layouts."""
    x = li.asarray(values(np.dtype(dtype), RNG, (7, 9)))
    y = li.asarray(values(np.dtype(dtype), RNG, (9,)))
    t = li.asarray(values(np.dtype(dtype), RNG, (9, 7)))
    fortran = li.asarray(np.asfortranarray(values(np.dtype(dtype), RNG, (7, 9))))
    column = li.asarray(values(np.dtype(dtype), RNG, (7, 1)))
    found = [li.clip(x - y, 0, 5), li.maximum(x[::-1, 1::2], column) * x[:, :8:2]]
    found += [li.where(x > column, y, x), li.clip(li.permute_dims(t, (1, 0)) - x, y, 9)]
    found += [li.maximum(fortran, x) + fortran]
    return found


@functools.cache
def elementwise() -> list:
    """(name, kernel) of every elementwise program: ops x dtypes over a broadcast operand,
    fused chains over layouts, transposed loads, a 0-d kernel, a space of 2**31 elements."""
    found = []
    for name, dtype, program, _ in op_programs():
        x = li.asarray(np.zeros((6, 5), dtype))
        kernel = elementwise_kernel(program(x, li.asarray(np.zeros((5,), dtype))))
        if kernel is not None and cuda.unsupported(kernel) is None:
            found.append((f"{name}-{dtype.name}", kernel))
    for dtype in (np.float16, li.bfloat16, np.float32, np.float64, np.int16, np.uint64):
        found += [(f"chain-{np.dtype(dtype).name}", k) for k in kernels_of(*chains(dtype))]
    scalar = li.asarray(np.float32(2.5)) * 3
    huge = li.broadcast_to(li.asarray(np.ones((1,), np.float32)), (2**31 + 7,)) + 1
    rows = li.broadcast_to(li.asarray(np.ones((3, 1), np.float16)), (3, 2**30)) * 2
    found += [("zero-d", k) for k in kernels_of(scalar)]
    found += [("huge", k) for k in kernels_of(huge, rows)]
    for dtype in (np.float16, li.bfloat16, np.float32, np.float64, np.uint8, np.bool_):
        for x_shape, y_shape in VECTOR_SHAPES:
            x, y = (li.asarray(np.zeros(s, dtype)) for s in (x_shape, y_shape))
            for name, program in vector_programs(dtype):
                if dtype == np.bool_ and name != "greater":
                    continue  # NOTE: no subtraction or negation of bools
                kernel = elementwise_kernel(program(x, y))
                found.append((f"vector-{name}-{np.dtype(dtype).name}{x_shape}", kernel))
    return found


@functools.cache
def rearranges() -> list:
    """(name, kernel or plan) of every rearrange: requested permutes and planned copies."""
    found = []
    for shape, axes, dtype in PERMUTES:
        data = RNG.bytes(int(np.prod(shape)) * np.dtype(dtype).itemsize)  # NaN payloads too
        x = li.asarray(np.frombuffer(data, dtype).reshape(shape))
        (kernel,) = li.inspect.schedule(li.permute_dims(x, axes)).kernels
        assert kernel.kind is Kind.REARRANGE
        found.append((f"permute{shape}{axes}", kernel))
    for shape, src, dst, itemsize, block in PLANS:
        plan = plan_rearrange(shape, src, dst, itemsize, block_bytes=block)
        found.append((f"plan{shape}{src}{dst}", plan))
    for shape, axes, dtype in WEAVES + TRANSPOSES:
        found.append((f"copy{shape}{axes}{np.dtype(dtype).name}", permute_plan(shape, axes, dtype)))
    return found


def rendered(item) -> cuda.Rendered:
    """The CUDA kernel of a kernel record or a RearrangePlan."""
    return cuda.render(item) if hasattr(item, "kind") else cuda.render_rearrange(item)
