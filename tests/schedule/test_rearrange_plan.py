"""plan_rearrange, checked without running anything: units, coverage, blocks, constraints."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini._schedule.rearrange import (
    DEFAULT_BLOCK_BYTES,
    MAX_BLOCK_DIMS,
    MAX_CONSTRAINTS,
    UNIT_SIZES,
    Constraint,
    plan_rearrange,
)
from lazyinfini._schedule.target import Target

# -- oracles ----------------------------------------------------------------------------------


def _grid_offsets(lens, *stride_sets):
    """Byte offsets of every index of a box of ``lens``, one array per stride set."""
    idx = np.indices(lens, dtype=np.int64).reshape(len(lens), -1) if lens else np.zeros((0, 1))
    return [np.asarray(strides, np.int64) @ idx.astype(np.int64) for strides in stride_sets]


def plan_byte_map(plan):
    """(dst byte, src byte) for every byte the plan copies, sorted by dst byte."""
    g_src, g_dst = _grid_offsets(plan.grid_len, plan.src_grid_strides, plan.dst_grid_strides)
    b_src, b_dst = _grid_offsets(plan.block_len, plan.src_block_strides, plan.dst_block_strides)
    keep = np.ones((g_src.size, b_src.size), bool)
    for c in plan.constraints:
        g = np.indices(plan.grid_len).reshape(len(plan.grid_len), -1)[c.grid_idx]
        b = np.indices(plan.block_len).reshape(len(plan.block_len), -1)[c.block_idx]
        keep &= g[:, None] * c.grid_div_block + b[None, :] < c.total_len
    src = (g_src[:, None] + b_src[None, :])[keep]
    dst = (g_dst[:, None] + b_dst[None, :])[keep]
    byte = np.arange(plan.unit)
    return _sorted_by_dst((dst[:, None] + byte).ravel(), (src[:, None] + byte).ravel())


def layout_byte_map(shape, src_strides, dst_strides, itemsize):
    """(dst byte, src byte) for every byte of the array, straight from shape and strides."""
    src, dst = _grid_offsets(shape, src_strides, dst_strides)
    if 0 in shape:
        src = dst = np.zeros(0, np.int64)
    byte = np.arange(itemsize)
    src, dst = src * itemsize, dst * itemsize
    return _sorted_by_dst((dst[:, None] + byte).ravel(), (src[:, None] + byte).ravel())


def _sorted_by_dst(dst, src):
    order = np.argsort(dst, kind="stable")
    return dst[order], src[order]


def assert_valid(plan, shape, src_strides, dst_strides, itemsize, offsets=(0, 0), budget=None):
    """Every invariant of a plan, against the layout it was made for."""
    assert plan.unit in UNIT_SIZES
    strides = [*plan.src_block_strides, *plan.dst_block_strides]
    strides += [*plan.src_grid_strides, *plan.dst_grid_strides, *offsets]
    assert all(s % plan.unit == 0 for s in strides), plan
    assert len(plan.block_len) <= MAX_BLOCK_DIMS and len(plan.constraints) <= MAX_CONSTRAINTS
    assert plan.nbytes == math.prod(shape) * itemsize
    budget = DEFAULT_BLOCK_BYTES if budget is None else budget
    assert plan.block_units * plan.unit <= max(budget, plan.unit), plan
    for c in plan.constraints:
        assert c.total_len % c.grid_div_block != 0, c  # only splits that do not divide
        assert plan.block_len[c.block_idx] == c.grid_div_block
        assert plan.grid_len[c.grid_idx] == -(-c.total_len // c.grid_div_block)
    got = plan_byte_map(plan)
    want = layout_byte_map(shape, src_strides, dst_strides, itemsize)
    # Same dst bytes (so each exactly once), each fed from the same src byte.
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


# -- layouts ----------------------------------------------------------------------------------


def contiguous(shape):
    return tuple(int(s) for s in np.cumprod((1, *shape[:0:-1]))[::-1]) if shape else ()


@st.composite
def layouts(draw, max_dims=6, max_len=5, src_specials=True):
    """(shape, src_strides, dst_strides, itemsize): permuted, gapped, flipped, broadcast."""
    ndim = draw(st.integers(0, max_dims))
    shape = tuple(draw(st.lists(st.integers(0, max_len), min_size=ndim, max_size=ndim)))
    itemsize = draw(st.sampled_from([1, 2, 4, 8, 16]))
    return shape, draw(_strides(shape, src_specials)), draw(_strides(shape, False)), itemsize


@st.composite
def _strides(draw, shape, specials):
    """Nested strides (no overlap) in a random dim order with gaps; src may flip or repeat."""
    ndim = len(shape)
    order = draw(st.permutations(range(ndim)))
    strides, step = [0] * ndim, draw(st.integers(1, 3))
    for axis in reversed(order):
        strides[axis] = step
        step *= max(shape[axis], 1) * draw(st.sampled_from([1, 1, 2, 3]))
    for axis in range(ndim):
        kind = draw(st.sampled_from(["keep"] * 3 + (["flip", "zero"] if specials else ["flip"])))
        strides[axis] *= {"keep": 1, "flip": -1, "zero": 0}[kind]
    return tuple(strides)


# -- tests ------------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    layouts(),
    st.sampled_from([0, 8, 16, 24]),
    st.sampled_from([64, 1024, DEFAULT_BLOCK_BYTES]),
    st.booleans(),
)
def test_random_layouts_give_valid_plans(layout, offset, budget, line_tiles):
    shape, src, dst, itemsize = layout
    plan = plan_rearrange(
        shape, src, dst, itemsize, offset, 0, block_bytes=budget, line_tiles=line_tiles
    )
    assert_valid(plan, shape, src, dst, itemsize, (offset, 0), budget)
    if plan.tile is not None:
        assert_line_tile(plan)


def assert_line_tile(plan):
    """A line tile crosses the two contiguous dims, a cache line of units a side."""
    tile = plan.tile
    assert tile.side * plan.unit == 64, plan
    assert plan.dst_block_strides[tile.src_rows] == plan.unit, plan
    assert plan.src_block_strides[tile.dst_rows] == plan.unit, plan
    assert min(plan.block_len[tile.src_rows], plan.block_len[tile.dst_rows]) >= tile.side, plan


CASES = [  # InfiniCore's test matrix (element strides), plus transposes
    ((100, 100), (1, 100), (100, 1)),
    ((2001, 2001), (1, 2001), (2001, 1)),
    ((4, 6, 64), (64, 256, 1), (384, 64, 1)),
    ((2, 2, 2, 4), (16, 8, 4, 1), (16, 8, 1, 2)),
    ((3, 4, 7, 53, 9), contiguous((3, 4, 7, 53, 9)), (1, 3, 12, 84, 4452)),
    ((15, 10752), (0, 1), (10752, 1)),
    ((2, 2, 2, 2, 2, 2), (64, 32, 16, 8, 4, 2), (32, 16, 8, 4, 2, 1)),
    ((8, 4, 20, 64), (256, 1, 2048, 4), contiguous((8, 4, 20, 64))),  # (20,8,64,4).transpose
]


@pytest.mark.parametrize("shape, src, dst", CASES[:1] + CASES[2:])
@pytest.mark.parametrize("itemsize", [1, 2, 4, 8, 16])
def test_infinicore_matrix_plans_are_valid(shape, src, dst, itemsize):
    plan = plan_rearrange(shape, src, dst, itemsize)
    assert_valid(plan, shape, src, dst, itemsize)


def test_transpose_gets_a_balanced_tile():
    plan = plan_rearrange((2001, 2001), (1, 2001), (2001, 1), 4)
    assert plan.unit == 4 and len(plan.block_len) == 2
    assert sorted(plan.src_block_strides) == [4, 2001 * 4]  # one src row, one dst row
    assert max(plan.block_len) <= 4 * min(plan.block_len)


def test_power_of_two_rows_cap_the_tile_at_the_l1_ways():
    plan = plan_rearrange((8192, 8192), (1, 8192), (8192, 1), 4)
    assert plan.constraints == () and plan.block_len[-1] == 8  # 8 source rows per tile
    assert plan.dst_block_strides[-1] == 4


def transpose(n, itemsize, **tiles):
    return plan_rearrange((n, n), (1, n), (n, 1), itemsize, set_ways=16, min_inner=1, **tiles)


@pytest.mark.parametrize("itemsize", [1, 2, 4, 8, 16])
@pytest.mark.parametrize("n", [100, 127, 500, 1013])
def test_line_tiled_transposes_are_valid(n, itemsize):
    plan = transpose(n, itemsize, line_tiles=True)
    assert_line_tile(plan)
    assert_valid(plan, (n, n), (1, n), (n, 1), itemsize)


@pytest.mark.parametrize("itemsize", [1, 2, 4, 8, 16])
@pytest.mark.parametrize("n", [1024, 2048, 3072, 4096, 8192])
def test_power_of_two_rows_keep_a_line_tiled_block_square(n, itemsize):
    # Rows 4 KiB apart alias in the L1 sets. Without line tiles the side reached first is capped
    # at set_ways of them and the other side takes the rest of the budget: 512 destination rows
    # 8 KiB apart x 16 source rows for 2048^2 float32 (5.5 ms; 0.9 ms square, in line tiles).
    # Line tiles read and write whole lines, so the block stays square, in whole tiles.
    plan = transpose(n, itemsize, line_tiles=True)
    assert_line_tile(plan)
    rows, cols = (plan.block_len[k] for k in (plan.tile.src_rows, plan.tile.dst_rows))
    assert max(rows, cols) <= 2 * min(rows, cols) and plan.constraints == ()
    assert rows % plan.tile.side == 0 and cols % plan.tile.side == 0
    capped = transpose(n, itemsize)  # what a device without line tiles gets
    if n * itemsize % 4096 == 0:
        assert capped.tile is None and min(capped.block_len) <= 16 < max(capped.block_len)


@pytest.mark.parametrize("n", [1000, 2000, 4000])
def test_line_tiled_blocks_are_whole_tiles_where_the_dim_allows(n):
    # A tile passing a block's end steps back and copies some units twice: 50 float32 rows took
    # 4 tiles of 16 (measured 4.2 against 3.3 ms in blocks of 48), so splits are multiples of 16.
    plan = transpose(n, 4, line_tiles=True)
    assert all(length % 16 == 0 for length in plan.block_len), plan


def test_only_a_compiling_device_plans_line_tiles(monkeypatch):
    from lazyinfini._runtime import cpu

    assert cpu.TARGET.tile_lines and not cpu.NUMPY_TARGET.tile_lines
    monkeypatch.setattr(cpu, "compiler", lambda: None)  # a machine without a C compiler
    monkeypatch.setattr(cpu, "_C_OFF", [])  # NOTE: explain() turns C off: for this test only
    monkeypatch.setattr(cpu, "_PATHS", type(cpu._PATHS)())
    expected = Target("cpu", compile_min=cpu.TARGET.compile_min, numpy_orders=True)
    assert cpu._cpu_target() == expected
    x = li.asarray(np.zeros((2048, 2048), np.float32))
    assert "LineTile(16x16" in li.explain(li.permute_dims(x, (1, 0)))
    with li.options(device="numpy"):
        assert "LineTile" not in li.explain(li.permute_dims(x, (1, 0)))


def test_short_dst_run_moves_the_inner_loop_to_the_long_dim():
    plan = plan_rearrange((8, 3, 1024, 1024), (3 << 20, 1 << 20, 1024, 1), (3 << 20, 1, 3072, 3), 1)
    assert plan.block_len[-1] >= 1024 and plan.src_block_strides[-1] == 1


def test_contiguous_copy_is_one_big_unit_run():
    plan = plan_rearrange((4, 5, 6), contiguous((4, 5, 6)), contiguous((4, 5, 6)), 4)
    assert plan.unit == 32 and plan.block_len == (15,) and plan.grid_len == ()


def test_unit_checks_every_stride_not_only_the_outermost():
    # Outer src stride 256 B and the 32-byte run both allow 32, an inner stride of 48 B does not
    # (InfiniCore's distributeUnit checks only the outermost stride).
    plan = plan_rearrange((2, 3, 8), (64, 12, 1), (24, 8, 1), 4)
    assert plan.unit == 16
    assert_valid(plan, (2, 3, 8), (64, 12, 1), (24, 8, 1), 4)


def test_offsets_limit_the_unit():
    assert plan_rearrange((64,), (1,), (1,), 4).unit == 32
    assert plan_rearrange((64,), (1,), (1,), 4, src_offset=4).unit == 4
    assert plan_rearrange((64,), (1,), (1,), 4, dst_offset=8).unit == 8


def test_broadcast_source_reads_with_zero_stride():
    plan = plan_rearrange((15, 10752), (0, 1), (10752, 1), 4)
    assert plan.unit == 32 and 0 in plan.src_grid_strides
    assert_valid(plan, (15, 10752), (0, 1), (10752, 1), 4)


def test_split_that_does_not_divide_records_a_constraint():
    plan = plan_rearrange((1009, 1013), (1, 1009), (1013, 1), 4)  # two primes
    assert 1 <= len(plan.constraints) <= 2
    assert all(isinstance(c, Constraint) for c in plan.constraints)
    assert_valid(plan, (1009, 1013), (1, 1009), (1013, 1), 4)


def test_empty_and_zero_d():
    empty = plan_rearrange((3, 0, 2), (1, 1, 1), (0, 2, 1), 8)
    assert empty.nbytes == 0 and empty.n_blocks == 0
    scalar = plan_rearrange((), (), (), 16, src_offset=8)
    assert scalar.unit == 8 and scalar.block_len == (2,) and scalar.grid_len == ()
    assert_valid(scalar, (), (), (), 16, (8, 0))


def test_destination_with_repeated_elements_is_refused():
    with pytest.raises(ValueError, match="destination"):
        plan_rearrange((4, 4), (4, 1), (0, 1), 4)


def test_repr_is_one_line_and_shows_the_plan():
    text = repr(plan_rearrange((1009, 1013), (1, 1009), (1013, 1), 4))
    assert "\n" not in text and "unit=4B" in text and "Constraint(" in text


def test_eight_unmergeable_dims_keep_the_block_within_five_dims():
    shape = (2,) * 8
    src, dst = contiguous(shape)[::-1], contiguous(shape)  # reversed dim order: nothing merges
    plan = plan_rearrange(shape, src, dst, 4, block_bytes=1 << 20)
    assert len(plan.block_len) == MAX_BLOCK_DIMS and len(plan.grid_len) == 3
    assert_valid(plan, shape, src, dst, 4, budget=1 << 20)
