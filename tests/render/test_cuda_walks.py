"""The CUDA walks chosen per run or per copy, on the CPU under the shim (tests/render/shim.py),
bit for bit against the reference device or numpy's copy: the vector walk and its grid-stride
fallback over every float dtype, operands on and off 16-byte boundaries, sizes below one vector
and with tails; the interleave and deinterleave walks (NCHW <-> NHWC, 1 to 4 channels, H*W even
and odd) and their direct fallback; transposes through the shared tile whose sides are no
multiple of 32. Their NVRTC compiles are in test_cuda_compile.py."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._render import cuda
from lazyinfini._render.cuda_rearrange import Dim, byte_perm, copy_dims
from tests.cuda.programs import assert_same_bits
from tests.render import shim
from tests.render.kernels import (
    TRANSPOSES,
    VECTOR_SHAPES,
    WEAVES,
    permute_plan,
    vector_programs,
)
from tests.render.programs import elementwise_kernel, operands, reference, values

pytestmark = pytest.mark.skipif(shim.COMPILER is None, reason="no C++ compiler (g++)")

FLOATS = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64]


def placed(array: np.ndarray, misaligned: bool) -> np.ndarray:
    """A C-contiguous copy of `array` starting on a 16-byte boundary, or one element past it
    (a view's address: no 16-byte vector may touch it)."""
    raw = np.zeros(array.nbytes + 64, np.uint8)
    skip = -raw.ctypes.data % 16 + (array.itemsize if misaligned else 0)
    out = raw[skip : skip + array.nbytes].view(array.dtype).reshape(array.shape)
    out[...] = array
    return out


def run_placed(library, rendered, kernel, inputs, misaligned: bool):
    """`kernel`'s first output computed from `inputs` (its loads' values) with its contiguous
    operands placed on or off 16-byte boundaries, and the launch a run takes there."""
    outs, loads = operands(kernel)
    arrays = [placed(a, misaligned) if a.flags.c_contiguous else a for a in outs + loads]
    taken = shim.run_chosen(library, rendered, arrays)
    return arrays[0].reshape(kernel.outputs[0].shape), taken


@pytest.mark.parametrize("dtype", [*FLOATS, np.uint8], ids=lambda d: np.dtype(d).name)
def test_vector_walks_match_the_reference_on_and_off_16_byte_boundaries(dtype):
    rng = np.random.default_rng(21)
    cases = []
    for x_shape, y_shape in VECTOR_SHAPES:
        x, y = values(np.dtype(dtype), rng, x_shape), values(np.dtype(dtype), rng, y_shape)
        for _, program in vector_programs(dtype):
            kernel = elementwise_kernel(program(li.asarray(x), li.asarray(y)))
            cases.append((kernel, program, (x, y)))
    found = [cuda.render(kernel) for kernel, _, _ in cases]
    assert {tuple(ln.method for ln in r.launches) for r in found} == {("vector", "grid-stride")}
    library = shim.build(found)
    for (kernel, program, inputs), rendered in zip(cases, found):
        want = reference(program, inputs)
        for misaligned, method in ((False, "vector"), (True, "grid-stride")):
            got, taken = run_placed(library, rendered, kernel, inputs, misaligned)
            assert taken.method == method
            assert_same_bits(got, want)


def test_a_vector_moves_16_bytes_of_its_widest_operand():
    """One 16-byte vector of the widest operand a thread, narrower vectors of the others: a
    float16 -> float32 cast takes 4 elements (8 bytes of halves), a uint8 sum 16, a float64
    comparison 2 (2 bytes of bools)."""

    def walk(program, dtype) -> tuple:
        x = li.asarray(np.zeros((4096,), dtype))
        rendered = cuda.render(elementwise_kernel(program(x)))
        return rendered.launch.method, rendered.launch.grid[0], rendered.source

    method, blocks, source = walk(lambda x: li.astype(x, li.float32), np.float16)
    assert (method, blocks) == ("vector", 4096 // (128 * 4))
    assert "((const uint64_t *)p1)[li_t]" in source and "((li_unit16 *)p0)[li_t]" in source
    assert walk(lambda x: x + 1, np.uint8)[:2] == ("vector", 4096 // (128 * 16))
    method, blocks, source = walk(lambda x: x > 1, np.float64)
    assert (method, blocks) == ("vector", 4096 // (128 * 2)) and "((uint16_t *)p0)[li_t]" in source
    # a load gathered along the last dim (every other element) is no vector walk's
    x = li.asarray(np.zeros((10, 20), np.float32))
    assert cuda.launch(elementwise_kernel(x[:, ::2] + 1)).method == "grid-stride"


def test_a_channels_bias_is_read_once_a_thread():
    """clip(a - b) with b (1, C, 1, 1): a thread's elements share their row, so its index is
    split once and b's value read once, before the thread's loop (the tail and the fallback
    still split per element)."""
    a = li.asarray(np.zeros((2, 8, 6, 8), np.float32))
    b = li.asarray(np.zeros((1, 8, 1, 1), np.float32))
    source = cuda.render(elementwise_kernel(li.clip(a - b, -0.5, 0.5))).source
    vector = source[: source.index("} else {")]
    head, loop = vector.split("#pragma unroll\n", 1)
    assert "li_rem = li_first;" in head and "(p2 + ((int)i1 * 4))" in head
    assert "li_rem" not in loop and "p2" not in loop
    assert "const unsigned int i2 = i_row + li_e;" in loop
    # rows of 6 elements hold no whole number of a thread's 4: split per element
    odd = li.asarray(np.zeros((2, 8, 6), np.float32)) - li.asarray(np.zeros((1, 8, 1), np.float32))
    head, loop = cuda.render(elementwise_kernel(odd)).source.split("#pragma unroll\n", 1)
    assert "li_rem = li_i;" in loop.split("} else {")[0]


# -- rearranges --------------------------------------------------------------------------------


def _copied(library, rendered, plan, source: np.ndarray, misaligned: bool):
    """The destination bytes of running `rendered` (a copy of `source`'s layout into C order)
    with the source on or off a 4-byte boundary, and the launch a run takes there."""
    src = placed(source, misaligned)
    src = np.ndarray(source.shape, source.dtype, src, 0, source.strides)  # its own layout
    dst = placed(np.zeros(plan.nbytes, np.uint8), False)
    taken = shim.run_chosen(library, rendered, [dst.ctypes.data, src.ctypes.data])
    return dst, taken


@pytest.fixture(scope="module")
def copies():
    """(shape, axes, dtype, plan, Rendered) of every WEAVES and TRANSPOSES copy, and one
    library running them."""
    found = []
    for shape, axes, dtype in WEAVES + TRANSPOSES:
        plan = permute_plan(shape, axes, dtype)
        found.append((shape, axes, np.dtype(dtype), plan, cuda.render_rearrange(plan)))
    return found, shim.build([item[-1] for item in found])


def _bytes(shape, dtype) -> np.ndarray:
    """Random bytes as an array (NaN payloads and all)."""
    data = np.random.default_rng(sum(shape)).bytes(int(np.prod(shape)) * dtype.itemsize)
    return np.frombuffer(data, dtype).reshape(shape)


def test_nchw_and_nhwc_copies_interleave_bytes_and_half_words(copies):
    """1 to 4 channels of uint8 and float16 each way: the interleave walks where every word
    lies on a 4-byte boundary (H*W a multiple of the pixels a word holds, the source there),
    else the direct walk; numpy's bytes either way."""
    found, library = copies
    methods = set()
    for shape, axes, dtype, plan, rendered in found[: len(WEAVES)]:
        x = _bytes(shape, dtype)
        want = np.ascontiguousarray(np.transpose(x, axes)).view(np.uint8).reshape(-1)
        pixels = shape[2] * shape[3] if axes == (0, 2, 3, 1) else shape[1] * shape[2]
        channels = shape[1] if axes == (0, 2, 3, 1) else shape[3]
        woven = 2 <= channels and pixels % (4 // dtype.itemsize) == 0
        weave = "interleave" if axes == (0, 2, 3, 1) else "deinterleave"
        assert rendered.launch.method == (weave if woven else "direct"), (shape, dtype)
        for misaligned in (False, True):
            dst, taken = _copied(library, rendered, plan, x, misaligned)
            assert taken.method == (weave if woven and not misaligned else "direct")
            np.testing.assert_array_equal(dst, want)
            methods.add(taken.method)
    assert methods == {"interleave", "deinterleave", "direct"}


def test_transposes_of_any_side_go_through_the_shared_tile(copies):
    """Sides of 33, 47, 65, 17, 100 and 64 units, units of 1 to 32 bytes (a complex128 pair),
    a batch dim: numpy's bytes."""
    found, library = copies
    for shape, axes, dtype, plan, rendered in found[len(WEAVES) :]:
        assert rendered.launch.method == "shared tile", (shape, dtype)
        x = _bytes(shape, dtype)
        dst, _ = _copied(library, rendered, plan, x, False)
        want = np.ascontiguousarray(np.transpose(x, axes)).view(np.uint8).reshape(-1)
        np.testing.assert_array_equal(dst, want)


def test_copy_dims_join_what_the_plan_split():
    """The (8, 3, 1024, 1024) uint8 NCHW -> NHWC plan splits the pixels into grid and block;
    the CUDA kernel walks the copy's own three dims."""
    plan = permute_plan((8, 3, 1024, 1024), (0, 2, 3, 1), np.uint8)
    assert len(plan.grid_len) + len(plan.block_len) > 3
    million = 1024 * 1024
    assert copy_dims(plan) == [
        Dim(8, 3 * million, 3 * million),
        Dim(million, 1, 3),
        Dim(3, million, 1),
    ]
    launch = cuda.render_rearrange(plan).launch
    # a thread per 4 pixels: 3 words in, 3 out
    assert (launch.method, launch.grid, launch.block) == ("interleave", (8192, 1, 1), (256, 1, 1))
    assert (launch.aligned, launch.align) == ((0, 1), 4)


def _byte_perm(x: int, y: int, selector: int) -> int:
    both = y << 32 | x
    return sum((both >> 8 * (selector >> 4 * n & 7) & 0xFF) << 8 * n for n in range(4))


@pytest.mark.parametrize("seed", range(20))
def test_byte_perm_chains_gather_the_bytes_asked_for(seed):
    rng = np.random.default_rng(seed)
    words = {f"li_w{j}": int(w) for j, w in enumerate(rng.integers(0, 2**32, 4))}
    picks = [(f"li_w{rng.integers(4)}", int(rng.integers(4))) for _ in range(4)]
    text = byte_perm(picks).replace("u)", ")")  # NOTE: then Python's expression too
    got = eval(text, {"__byte_perm": _byte_perm, **words})
    want = sum((words[w] >> 8 * b & 0xFF) << 8 * n for n, (w, b) in enumerate(picks))
    assert got == want, (picks, text)
    assert text.count("__byte_perm") <= len({w for w, _ in picks})
