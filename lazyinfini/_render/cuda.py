"""Kernel records -> CUDA C: `render`, and the dialect and launch records (cuda_dialect.py).

The dialect (`CUDA`) is a row of C's table (c.py): the op expressions, casts, clip and rounding
are C's; CUDA changes the memory type of half floats (16 bits, converted by PTX instructions:
bare NVRTC has no include path, so no cuda_fp16.h), gives CUDA's own math functions to the ops
C borrows from numpy, and casts floats to integers by saturation. Half floats compute in float32
and round where the register program says (`Step.rounds`), as in C: fused == unfused.

The kernels, each a pure function of a kernel record (docs/cuda.md, "The kernels"):

- elementwise (cuda_elementwise.py): `vector` (16-byte loads and stores, several elements a
  thread, a grid covering the data once), its `grid-stride` fallback for operands a launch
  finds misaligned (and the kernel of gathered loads), and `tiled` for a load read across the
  output's rows (a transposed operand, through a padded shared tile);
- rearrange (cuda_rearrange.py), from a RearrangePlan's dims: `interleave`/`deinterleave`
  (a short channel dim of byte or half-word units moved as 32-bit words), `shared tile` (a
  transpose through a padded 32x32 tile) and `direct` (a thread per unit, in destination order).

Sizes and strides are literals in the source (a kernel record is one shape), so NVRTC turns
the index arithmetic's division by constants into multiplies and shifts. `render(kernel)` gives
the source (without the prelude: `unit(...)` joins sources into one translation unit) and its
`Launch`es: grid, block, shared memory and parameters, the one description a CUDA device and
the tests launch from; a second launch (`Rendered.fallback`, same parameters) runs where the
first's vector accesses would be misaligned (`Launch.fits`, decided per run from the
addresses). Nothing here needs a GPU or NVRTC.
"""

from __future__ import annotations

from .._schedule.kernels import Kind
from .cuda_dialect import (  # noqa: F401 (the names the devices and tests read here)
    CUDA,
    MEMORY_TYPES,
    Launch,
    Param,
    Rendered,
    arguments,
    described,
    unit,
    unsupported,
)
from .cuda_elementwise import Walk, render_elementwise
from .cuda_rearrange import render_copy


def render(kernel) -> Rendered:
    """The CUDA kernel of an elementwise or rearrange kernel record, and its launch."""
    if kernel.kind is Kind.REARRANGE:
        return render_rearrange(kernel.plan)
    assert kernel.kind is Kind.ELEMENTWISE, kernel
    why = unsupported(kernel)
    if why is not None:
        raise KeyError(why)
    return render_elementwise(kernel)


def render_rearrange(plan) -> Rendered:
    """The CUDA kernel of a RearrangePlan (cuda_rearrange.py)."""
    return render_copy(plan)


def launch(kernel) -> Launch:
    """The launch configuration of `kernel`'s CUDA kernel (a pure function of the record)."""
    return render(kernel).launch


def layout(kernel) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """The space an elementwise kernel walks (at least 1-d) and the byte strides it assumes for
    each operand there (outputs C-contiguous, then loads): a device passes each load as its
    view reshaped to the space, or a C-contiguous copy where numpy's reshape would copy."""
    walk = Walk.of(kernel)
    return walk.space, walk.strides
