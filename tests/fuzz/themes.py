"""The step registry: how often each step is drawn, by the program's theme; and drawing a
whole program."""

from __future__ import annotations

from tests.fuzz.creation import step_create
from tests.fuzz.elementwise import (
    step_astype,
    step_binary,
    step_clip,
    step_compare_where,
    step_inplace,
    step_unary,
    step_where,
)
from tests.fuzz.indexing import step_gather, step_mask, step_setitem, step_take_along
from tests.fuzz.inputs import draw_inputs
from tests.fuzz.memory import step_compute, step_copy, step_escape, step_forget, step_item
from tests.fuzz.movement import (
    step_broadcast,
    step_concat,
    step_expand_squeeze,
    step_flip,
    step_moveaxis_roll,
    step_permute,
    step_repeat_tile,
    step_reshape,
    step_slice,
    step_unstack,
)
from tests.fuzz.program import Builder, Program
from tests.fuzz.reductions import (
    step_contract,
    step_cumulative,
    step_diff,
    step_extreme,
    step_matmul,
    step_row_sum,
    step_statistics,
    step_sum,
)
from tests.fuzz.sorting import step_search, step_sort

# How often each step is drawn, by the program's theme: each theme goes deep into one area
# (elementwise chains for fusion, reductions of shared subexpressions for kernel grouping,
# views for layouts, gathers and setitem for indexing); "mixed" draws from all.
_THEMES = {
    "elementwise": {
        step_binary: 10,
        step_unary: 5,
        step_clip: 2,
        step_where: 2,
        step_compare_where: 2,
        step_astype: 2,
        step_inplace: 2,
        step_create: 1,
        step_item: 1,
        step_copy: 1,
        step_escape: 1,
        step_slice: 1,
        step_permute: 1,
        step_broadcast: 1,
        step_sum: 1,
        step_setitem: 1,
        step_compute: 1,
    },
    "reduce": {
        step_sum: 5,
        step_extreme: 3,
        step_binary: 6,
        step_unary: 3,
        step_cumulative: 2,
        step_statistics: 1,
        step_broadcast: 1,
        step_expand_squeeze: 2,
        step_permute: 1,
        step_reshape: 1,
        step_matmul: 1,
        step_contract: 1,
        step_diff: 1,
        step_search: 1,
        step_create: 1,
        step_compute: 1,
    },
    "layout": {
        step_slice: 3,
        step_permute: 3,
        step_reshape: 3,
        step_broadcast: 2,
        step_flip: 2,
        step_expand_squeeze: 2,
        step_moveaxis_roll: 2,
        step_concat: 1,
        step_repeat_tile: 1,
        step_sum: 2,
        step_cumulative: 2,
        step_sort: 2,
        step_gather: 2,
        step_binary: 3,
        step_unary: 1,
        step_extreme: 1,
        step_unstack: 1,
        step_create: 1,
        step_compute: 1,
    },
    "index": {
        step_gather: 4,
        step_mask: 3,
        step_setitem: 4,
        step_take_along: 2,
        step_sort: 2,
        step_binary: 3,
        step_slice: 2,
        step_permute: 1,
        step_reshape: 1,
        step_sum: 1,
        step_search: 1,
        step_inplace: 1,
        step_forget: 1,
        step_compute: 1,
    },
}
# Reductions of shared subexpressions combined again (normalizations, softmax): the kernel
# graphs where fusion and sibling merging decide most.
_THEMES["dataflow"] = {
    step_binary: 8,
    step_unary: 4,
    step_sum: 4,
    step_row_sum: 2,
    step_extreme: 2,
    step_compute: 1,
    step_forget: 1,
}
# Big inputs: views of library results and transposed loads met by elementwise kernels.
_THEMES["big"] = {
    step_binary: 5,
    step_unary: 2,
    step_permute: 3,
    step_reshape: 3,
    step_slice: 2,
    step_gather: 3,
    step_sum: 2,
    step_row_sum: 2,
    step_cumulative: 1,
    step_sort: 1,
    step_broadcast: 1,
    step_flip: 1,
    step_compute: 1,
}
_THEMES["mixed"] = {step: 1 for theme in _THEMES.values() for step in theme}
_THEMES["mixed"].update({step_binary: 6, step_unary: 3, step_sum: 2})
_STEPS = {
    theme: tuple(step for step, weight in weights.items() for _ in range(weight))
    for theme, weights in _THEMES.items()
}


def draw_program(data, big: bool = False) -> Program:
    """A random program: its theme, its inputs, up to 16 steps (8 with big inputs), its outputs."""
    b = Builder(data, big)
    if big:
        theme = b.choice(("big", "big", "layout", "index"))
    else:
        theme = b.choice(("mixed", "elementwise", "reduce", "layout", "index", "dataflow"))
    steps = b.integer(1, 8 if big else 16)
    outputs = b.integer(0, 2)
    draw_inputs(b)
    return b.build(_STEPS[theme], steps, outputs)
