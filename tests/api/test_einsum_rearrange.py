"""li.rearrange (einops' patterns) and li.einsum (numpy's subscripts): values, dtypes and shapes
against numpy (and einops where installed), the recorded graph, the schedule, the errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini._api.einsum import Subscripts, label_sizes, parse_subscripts
from lazyinfini._api.rearrange_pattern import PatternSteps, parse_pattern, plan_pattern
from lazyinfini._schedule.kernels import Kind
from tests.oracle import assert_matches_reference

DTYPES = [np.int8, np.int32, np.int64, np.uint8, np.float32, np.float64, np.complex128]


def _values(shape, dtype, seed=0) -> np.ndarray:
    """Small integer values: every product and sum below is exact in every dtype."""
    rng = np.random.default_rng(seed)
    values = rng.integers(-3, 4, size=shape)
    if np.dtype(dtype).kind == "u":
        values = np.abs(values)
    if np.dtype(dtype).kind == "c":
        return (values + 1j * rng.integers(-3, 4, size=shape)).astype(dtype)
    return values.astype(dtype)


def _assert_same(actual, expected: np.ndarray) -> None:
    actual = np.asarray(actual)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    np.testing.assert_array_equal(actual, expected)


def _ops(y) -> list[str]:
    return sorted(attrs["op"] for _, attrs in li.graph(y).nodes(data=True))


def _recorded_lazily(fn):
    """fn() recorded without computing anything."""
    before = li.inspect.counters.materializations
    y = fn()
    assert li.inspect.counters.materializations == before
    return y


# -- rearrange: hand-written cases ---------------------------------------------------------------

x4 = np.arange(2 * 6 * 4 * 6).reshape(2, 6, 4, 6)
REARRANGE_CASES = [
    ("b c h w -> b h w c", {}, x4.transpose(0, 2, 3, 1)),
    ("b c h w -> (b c) h w", {}, x4.reshape(12, 4, 6)),
    (
        "b c (h p1) (w p2) -> b (h w) (p1 p2 c)",
        {"p1": 2, "p2": 3},
        x4.reshape(2, 6, 2, 2, 2, 3).transpose(0, 2, 4, 3, 5, 1).reshape(2, 4, 36),
    ),
    ("b (c1 c2) h w -> c2 b c1 h w", {"c1": 3}, x4.reshape(2, 3, 2, 4, 6).transpose(2, 0, 1, 3, 4)),
    ("b c h w -> b c () h w 1", {}, x4[:, :, None, :, :, None]),
    ("... w -> w ...", {}, np.moveaxis(x4, 3, 0)),
    ("b ... -> b (...)", {}, x4.reshape(2, -1)),
    ("b ... w -> (w b) ...", {}, x4.transpose(3, 0, 1, 2).reshape(12, 6, 4)),
    ("... -> ...", {}, x4),
    ("b c h w -> (b c h w)", {"b": 2, "w": 6}, x4.reshape(-1)),
]


@pytest.mark.parametrize("pattern, lengths, expected", REARRANGE_CASES, ids=lambda v: str(v)[:40])
def test_rearrange_matches_numpy(pattern, lengths, expected):
    _assert_same(li.rearrange(li.asarray(x4), pattern, **lengths), expected)


def test_rearrange_squeezes_and_inserts_unit_axes():
    x = np.arange(12).reshape(3, 1, 4)
    _assert_same(li.rearrange(li.asarray(x), "a 1 b -> b a"), x[:, 0, :].T)
    _assert_same(li.rearrange(li.asarray(x), "a () b -> 1 a b ()"), x.reshape(1, 3, 4, 1))
    assert li.rearrange(li.asarray(np.ones(())), "-> 1 ()").shape == (1, 1)


def test_rearrange_keeps_the_dtype_of_every_kind():
    for dtype in [np.bool_, *DTYPES, np.float16]:
        x = _values((2, 3, 4), dtype)
        _assert_same(
            li.rearrange(li.asarray(x), "a b c -> c (a b)"), x.transpose(2, 0, 1).reshape(4, 6)
        )


def test_rearrange_agrees_on_every_device_fused_or_not():
    x = _values((4, 6), np.float32)
    got = assert_matches_reference(lambda a: li.rearrange(a, "h (w p) -> (p h) w", p=2) + 1, x)
    np.testing.assert_array_equal(got, x.reshape(4, 3, 2).transpose(2, 0, 1).reshape(8, 3) + 1)


# -- rearrange: generated patterns ----------------------------------------------------------------


@st.composite
def _groupings(draw, names: list[str]) -> list[list[str]]:
    """`names` cut into consecutive groups."""
    groups: list[list[str]] = []
    for name in names:
        if groups and draw(st.booleans()):
            groups[-1].append(name)
        else:
            groups.append([name])
    return groups


def _text(groups: list[list[str]], hidden: list[str], merged: bool = False) -> str:
    """A side's text; the group `hidden` (by identity) is `...`, or `(...)` when merged."""
    parts = []
    for group in groups:
        if group is hidden:
            parts.append("(...)" if merged else "...")
        elif len(group) == 1:
            parts.append(group[0])
        else:
            parts.append("(" + " ".join(group) + ")")
    return " ".join(parts)


def _expanded(groups: list[list[str]], hidden: list[str]) -> list[list[str]]:
    """The groups with the ellipsis's axes each a group of its own."""
    return [g for group in groups for g in ([[a] for a in hidden] if group is hidden else [group])]


@st.composite
def rearrange_cases(draw):
    """(pattern, keyword lengths, left groups, right groups, every axis's length), the groups
    with the ellipsis's axes (e0, e1) written out; ["1"] and [] are unit axes."""
    count = draw(st.integers(1, 5))
    names = draw(st.permutations(["b", "c", "h", "w", "p1", "p2", "ch"]))[:count]
    hidden = [f"e{i}" for i in range(draw(st.integers(0, 2)))]
    lengths = {a: draw(st.integers(1, 3)) for a in names + hidden}
    left = draw(_groupings(names))
    right = draw(_groupings(draw(st.permutations(names))))
    if hidden or draw(st.booleans()):
        left.insert(draw(st.integers(0, len(left))), hidden)
        right.insert(draw(st.integers(0, len(right))), hidden)
    for side in (left, right):
        for _ in range(draw(st.integers(0, 1))):
            side.insert(draw(st.integers(0, len(side))), draw(st.sampled_from([["1"], []])))
    given_lengths = {}
    for group in left:
        named = [a for a in group if a in names]
        inferred = draw(st.sampled_from(named)) if named and draw(st.booleans()) else None
        if len(named) > 1 or inferred is None:
            given_lengths.update({a: lengths[a] for a in named if a != inferred})
    merged = draw(st.booleans())
    pattern = f"{_text(left, hidden)} -> {_text(right, hidden, merged)}"
    right = right if merged else _expanded(right, hidden)
    return pattern, given_lengths, _expanded(left, hidden), right, {**lengths, "1": 1}


def _reference_rearrange(x: np.ndarray, left, right, lengths) -> np.ndarray:
    """numpy: split into single axes, transpose into the right's order, merge the groups."""
    order = [a for group in left for a in group if a != "1"]
    wanted = [a for group in right for a in group if a != "1"]
    y = x.reshape([lengths[a] for a in order]).transpose([order.index(a) for a in wanted])
    return y.reshape([math.prod(lengths[a] for a in group) for group in right])


@given(case=rearrange_cases(), dtype=st.sampled_from([np.bool_, np.int8, np.float32, np.float64]))
def test_rearrange_matches_a_numpy_reference_on_generated_patterns(case, dtype):
    pattern, given_lengths, left, right, lengths = case
    shape = tuple(math.prod(lengths[a] for a in group) for group in left)
    x = np.arange(math.prod(shape)).reshape(shape).astype(dtype)
    y = _recorded_lazily(lambda: li.rearrange(li.asarray(x), pattern, **given_lengths))
    _assert_same(y, _reference_rearrange(x, left, right, lengths))


@given(case=rearrange_cases())
def test_rearrange_matches_einops_on_generated_patterns(case):
    einops = pytest.importorskip("einops")
    pattern, given_lengths, left, _, lengths = case
    shape = tuple(math.prod(lengths[a] for a in group) for group in left)
    x = np.arange(math.prod(shape), dtype=np.int32).reshape(shape)
    expected = einops.rearrange(x, pattern, **given_lengths)
    _assert_same(li.rearrange(li.asarray(x), pattern, **given_lengths), expected)


# -- rearrange: the plan ------------------------------------------------------------------------


def test_plan_pattern_is_one_reshape_permute_reshape():
    pattern = parse_pattern("b c (h p1) (w p2) -> b (h w) (p1 p2 c)")
    steps = plan_pattern(pattern, (8, 3, 64, 64), {"p1": 2, "p2": 4})
    assert steps == PatternSteps(
        split=(8, 3, 32, 2, 16, 4), axes=(0, 2, 4, 3, 5, 1), shape=(8, 512, 24)
    )
    assert parse_pattern("a (b 1) ... -> (...) 1 b a").right == (("...",), (), ("b",), ("a",))


@pytest.mark.parametrize(
    "pattern, ops",
    [
        ("b c h w -> b h w c", ["buffer", "permute_dims"]),
        ("b c h w -> (b c) h w", ["buffer", "reshape"]),
        ("b c h w -> b c h w", ["buffer"]),
        ("b c (h p) w -> (b h) p w c", ["buffer", "permute_dims", "reshape", "reshape"]),
    ],
)
def test_rearrange_records_only_the_steps_it_needs(pattern, ops):
    x = li.asarray(np.ones((2, 3, 4, 5), np.float32))
    lengths = {"p": 2} if "p" in pattern else {}
    assert _ops(_recorded_lazily(lambda: li.rearrange(x, pattern, **lengths))) == ops


def test_a_transposing_rearrange_is_one_rearrange_kernel():
    x = li.asarray(np.ones((8, 3, 64, 64), np.float32))
    y = li.rearrange(x, "b c h w -> b h w c")
    kernels = li.inspect.schedule(y).kernels
    assert [k.kind for k in kernels] == [Kind.REARRANGE], li.explain(y)


def test_a_composite_rearrange_copies_once():
    x = li.asarray(np.ones((8, 3, 64, 64), np.float32))
    y = li.rearrange(x, "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=2, p2=2)
    kinds = [k.kind for k in li.inspect.schedule(y).kernels]
    # One copy into the permuted order; merging its axes is a view of that copy.
    assert kinds.count(Kind.REARRANGE) == 1, li.explain(y)
    assert set(kinds) <= {Kind.REARRANGE, Kind.VIEW}, li.explain(y)


def test_a_merging_rearrange_of_a_contiguous_array_copies_nothing():
    x = li.asarray(np.ones((8, 3, 64, 64), np.float32))
    y = li.rearrange(x, "b c h w -> (b c) (h w)")
    assert [k.kind for k in li.inspect.schedule(y).kernels] == [Kind.VIEW], li.explain(y)


# -- rearrange: errors ----------------------------------------------------------------------------

X34 = np.arange(12).reshape(3, 4)
REARRANGE_ERRORS = [
    # (pattern, keyword lengths, exception, text the message holds)
    ("h w -> w q", {}, ValueError, "both sides: axis h only on the left; axis q only on the right"),
    ("h w -> w", {}, ValueError, "both sides: axis h only on the left"),
    ("h w -> h w ...", {}, ValueError, "both sides: axis ... only on the right"),
    ("h h -> h", {}, ValueError, "axis h appears twice"),
    ("h w -> (w w) h", {}, ValueError, "axis w appears twice"),
    ("h w -> w h", {"q": 2}, ValueError, "axis q is given a length but is not in the pattern"),
    ("h (w p) -> h w p", {"p": 3}, ValueError, "length 4 of axis (w p) is not divisible by p=3"),
    ("h w -> w h", {"h": 5}, ValueError, "axis h has length 3, not h=5"),
    ("h (w p) -> h w p", {}, ValueError, "axes w, p of (w p) need lengths"),
    ("h w c -> c w h", {}, ValueError, "names 3 axes, x has 2"),
    ("h -> h", {}, ValueError, "names 1 axes, x has 2"),
    ("h w c ... -> c w h ...", {}, ValueError, "names 3 or more axes, x has 2"),
    ("h w", {}, ValueError, "needs exactly one '->'"),
    ("h -> w -> h", {}, ValueError, "needs exactly one '->'"),
    ("(h w -> h w", {}, ValueError, "unbalanced parentheses"),
    ("((h) w) -> h w", {}, ValueError, "parentheses cannot nest"),
    ("(...) w -> ... w", {}, ValueError, "the ellipsis cannot be inside parentheses on the left"),
    ("h 2 -> h", {}, ValueError, "axis 2: only 1 may be an unnamed axis"),
    ("h w$ -> h w", {}, ValueError, "unexpected '$'"),
    ("h w -> w h", {"h": -3}, ValueError, "length of axis h must be at least 0"),
    ("h w -> w h", {"h": 3.0}, TypeError, "length of axis h must be an int"),
]


@pytest.mark.parametrize("pattern, lengths, exc, text", REARRANGE_ERRORS, ids=lambda v: str(v))
def test_rearrange_errors_name_the_function_the_pattern_and_the_axis(pattern, lengths, exc, text):
    x = li.asarray(X34)
    before = li.inspect.counters.materializations
    with pytest.raises(exc) as info:
        li.rearrange(x, pattern, **lengths)
    message = str(info.value)
    assert message.startswith("rearrange: ") and text in message, message
    assert "length of axis" in text or f"pattern {pattern!r}" in message, message
    assert li.inspect.counters.materializations == before


def test_rearrange_rejects_a_pattern_that_is_not_a_str_and_an_x_that_is_not_an_array():
    with pytest.raises(TypeError, match="^rearrange: pattern must be a str, got bytes"):
        li.rearrange(li.asarray(X34), b"h w -> w h")
    with pytest.raises(TypeError, match="^rearrange: x must be a lazyinfini array, got list"):
        li.rearrange([[1, 2]], "h w -> w h")


# -- einsum: named cases ------------------------------------------------------------------------

EINSUM_CASES = [
    # (id, subscripts, operand shapes)
    ("matmul", "ij,jk->ik", [(2, 3), (3, 4)]),
    ("matmul implicit", "ij,jk", [(2, 3), (3, 4)]),
    ("batch matmul", "bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]),
    ("matvec", "ij,j->i", [(2, 3), (3,)]),
    ("dot", "i,i->", [(4,), (4,)]),
    ("dot implicit", "i,i", [(4,), (4,)]),
    ("trace", "ii->", [(3, 3)]),
    ("trace implicit", "ii", [(3, 3)]),
    ("diagonal", "ii->i", [(3, 3)]),
    ("batch diagonal", "bii->bi", [(2, 3, 3)]),
    ("diagonal of three axes", "iii->i", [(3, 3, 3)]),
    ("partial trace", "iij->j", [(3, 3, 2)]),
    ("diagonal moved", "iji->ji", [(3, 2, 3)]),
    ("outer", "i,j->ij", [(3,), (4,)]),
    ("outer of matrices", "ij,kl->ijkl", [(2, 3), (1, 2)]),
    ("transpose", "ij->ji", [(2, 3)]),
    ("transpose implicit", "ji", [(2, 3)]),
    ("axes sorted by code", "Ba", [(2, 3)]),
    ("identity", "ij->ij", [(2, 3)]),
    ("sum all", "ij->", [(2, 3)]),
    ("sum one axis", "ij->j", [(2, 3)]),
    ("hadamard", "ij,ij->ij", [(2, 3), (2, 3)]),
    ("hadamard transposed", "ij,ji->ij", [(2, 3), (3, 2)]),
    ("frobenius", "ij,ij->", [(2, 3), (2, 3)]),
    ("bilinear", "i,ij,j->", [(2,), (2, 3), (3,)]),
    ("bilinear batched", "bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("chain of three", "ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("three to one axis", "i,i,i->i", [(3,), (3,), (3,)]),
    ("four operands", "ab,bc,cd,da->", [(2, 3), (3, 2), (2, 4), (4, 2)]),
    ("tensor contraction", "abc,cd,de->abe", [(2, 3, 4), (4, 3), (3, 2)]),
    ("two contracted axes", "ijk,jkl->il", [(2, 3, 4), (3, 4, 2)]),
    ("ellipsis matmul", "...ij,...jk->...ik", [(4, 2, 3), (3, 2)]),
    ("ellipsis broadcast", "...i,...i", [(2, 3), (4, 1, 3)]),
    ("ellipsis to front", "i...->...i", [(2, 3, 4)]),
    ("ellipsis trace", "...ii->...", [(2, 3, 3)]),
    ("ellipsis in the middle", "a...b,b->...a", [(2, 3, 4), (4,)]),
    ("ellipsis of no axes", "...ij,...j->...i", [(2, 3), (3,)]),
    ("label broadcast", "ij,jk", [(2, 1), (3, 4)]),
    ("label broadcast summed", "i,i", [(1,), (5,)]),
    ("empty axis", "ijk,ikl->jl", [(2, 0, 3), (2, 3, 4)]),
    ("empty contraction", "ij,jk->ik", [(2, 0), (0, 3)]),
    ("scalar", "", [()]),
    ("scalar times vector", ",i->i", [(), (3,)]),
    ("spaces", "i j , j k -> k i", [(2, 3), (3, 4)]),
]


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint8, np.float32, np.complex128])
@pytest.mark.parametrize(
    "subscripts, shapes", [c[1:] for c in EINSUM_CASES], ids=[c[0] for c in EINSUM_CASES]
)
def test_einsum_matches_numpy(subscripts, shapes, dtype):
    operands = [_values(shape, dtype, seed) for seed, shape in enumerate(shapes)]
    y = _recorded_lazily(lambda: li.einsum(subscripts, *map(li.asarray, operands)))
    _assert_same(y, np.einsum(subscripts, *operands))


def test_einsum_of_bools_is_or_of_ands_as_in_numpy():
    a, b = _values((3, 4), np.int8) > 0, _values((4, 2), np.int8, 1) > 0
    cases = [("ij,jk->ik", a, b), ("ij,jk->", a, b), ("ij->ji", a), ("ij,ij->i", a, a)]
    cases += [("ii->i", a[:, :3]), ("ij,jk,k->i", a, b, b[0])]
    for subscripts, *operands in cases:
        y = li.einsum(subscripts, *map(li.asarray, operands))
        _assert_same(y, np.einsum(subscripts, *operands))


@pytest.mark.parametrize(
    "first, second",
    [
        (np.int8, np.uint8),
        (np.int16, np.int64),
        (np.uint8, np.uint32),
        (np.float32, np.float64),
        (np.float32, np.complex64),
        (np.float64, np.complex64),
    ],
)
def test_einsum_promotes_as_numpy(first, second):
    a, b = _values((2, 3), first), _values((3, 2), second, 1)
    _assert_same(li.einsum("ij,jk->ik", li.asarray(a), li.asarray(b)), np.einsum("ij,jk->ik", a, b))


def test_einsum_takes_numpy_arrays_as_constants():
    a, b = _values((2, 3), np.float64), _values((3,), np.float64, 1)
    _assert_same(li.einsum("ij,j", li.asarray(a), b), np.einsum("ij,j", a, b))


def test_einsum_agrees_on_every_device_fused_or_not():
    a, b, c = (_values(s, np.float64, i) for i, s in enumerate([(3, 3), (3, 4), (4,)]))
    got = assert_matches_reference(lambda x, y, z: li.einsum("ii,ij,j->i", x, y, z), a, b, c)
    np.testing.assert_array_equal(got, np.einsum("ii,ij,j->i", a, b, c))


# -- einsum: generated subscripts ----------------------------------------------------------------


@st.composite
def einsum_cases(draw):
    """(subscripts, operand shapes): labels from a pool (repeats make diagonals), some axes of
    length 1 (broadcast), an optional `...`, an explicit output or none."""
    sizes = {label: draw(st.integers(1, 3)) for label in "abcdE"}
    hidden = draw(st.lists(st.integers(1, 3), max_size=2))
    terms, shapes = [], []
    for _ in range(draw(st.integers(1, 4))):
        labels = draw(st.lists(st.sampled_from(sorted(sizes)), max_size=3))
        shape = [sizes[a] if labels.count(a) > 1 or draw(st.booleans()) else 1 for a in labels]
        own = hidden[draw(st.integers(0, len(hidden))) :] if draw(st.booleans()) else None
        if own is not None:
            at = draw(st.integers(0, len(labels)))
            labels.insert(at, "...")
            shape[at:at] = [n if draw(st.booleans()) else 1 for n in own]
        terms.append("".join(labels))
        shapes.append(tuple(shape))
    used = sorted({a for t in terms for a in t.replace("...", "")})
    if draw(st.booleans()):
        return ",".join(terms), shapes
    output = "".join(draw(st.permutations(used))[: draw(st.integers(0, len(used)))])
    if any("..." in t for t in terms):
        at = draw(st.integers(0, len(output)))
        output = output[:at] + "..." + output[at:]
    return f"{','.join(terms)}->{output}", shapes


@given(case=einsum_cases(), dtype=st.sampled_from([np.int32, np.float64]))
def test_einsum_matches_numpy_on_generated_subscripts(case, dtype):
    subscripts, shapes = case
    operands = [_values(shape, dtype, seed) for seed, shape in enumerate(shapes)]
    y = _recorded_lazily(lambda: li.einsum(subscripts, *map(li.asarray, operands)))
    _assert_same(y, np.einsum(subscripts, *operands))


# -- einsum: the plan -----------------------------------------------------------------------------


def test_parse_subscripts_names_the_ellipsis_axes_right_aligned():
    parsed = parse_subscripts("...ij, j...", [4, 2])
    assert parsed == Subscripts(
        inputs=(("...0", "...1", "i", "j"), ("j", "...1")), output=("...0", "...1", "i")
    )
    assert label_sizes(parsed, [(1, 5, 2, 3), (3, 1)]) == {"...0": 1, "...1": 5, "i": 2, "j": 3}
    assert parse_subscripts("ba,cb", [2, 2]).output == ("a", "c")
    assert parse_subscripts("bB,cb", [2, 2]).output == ("B", "c")


# -- einsum: the recorded graph -------------------------------------------------------------------


def test_einsum_contracts_with_matmul_and_multiplies_where_nothing_is_summed():
    a, b = li.asarray(np.ones((2, 3))), li.asarray(np.ones((3, 4)))
    assert "matmul" in _ops(li.einsum("ij,jk->ik", a, b))
    hadamard = _ops(li.einsum("ij,ij->ij", a, a))
    assert "multiply" in hadamard and "matmul" not in hadamard
    assert _ops(li.einsum("ij->ji", a)) == ["buffer", "permute_dims"]
    assert _ops(li.einsum("ii->i", li.asarray(np.ones((3, 3))))) == ["buffer", "linalg"]


def test_einsum_contracts_the_cheapest_pair_first():
    # Left to right would make a 2x30x30x2 outer product of the first two operands; no node may
    # hold more elements than the largest operand.
    a, b, c = np.ones((2, 30)), np.ones((30, 2)), np.ones((30, 30))
    y = li.einsum("ij,kl,jk->il", li.asarray(a), li.asarray(b), li.asarray(c))
    sizes = [math.prod(attrs["shape"]) for _, attrs in li.graph(y).nodes(data=True)]
    assert max(sizes) == 900, li.graph(y).nodes(data="shape")
    _assert_same(y, np.einsum("ij,kl,jk->il", a, b, c))


# -- einsum: errors -------------------------------------------------------------------------------

EINSUM_ERRORS = [
    # (subscripts, operand shapes, exception, text the message holds)
    ("ij,jk->ik", [(2, 3)], ValueError, "names 2 operands, got 1"),
    ("ijk", [(2, 3)], ValueError, "operand 0 has 2 axes, its subscripts name 3"),
    ("i", [(2, 3)], ValueError, "operand 0 has 2 axes, its subscripts name 1"),
    ("ijk...", [(2, 3)], ValueError, "operand 0 has 2 axes, its subscripts name 3 or fewer"),
    ("ij,jk", [(2, 3), (4, 5)], ValueError, "label j has lengths 3 and 4, which do not broadcast"),
    ("ii", [(2, 3)], ValueError, "operand 0 has lengths 2 and 3 for label i"),
    ("ij->k", [(2, 3)], ValueError, "output label k is in no operand"),
    ("ij->ii", [(2, 3)], ValueError, "output label i appears more than once"),
    ("i1", [(2, 3)], ValueError, "operand 0 has '1'; labels are letters"),
    ("i.j", [(2, 3)], ValueError, "operand 0 has '.'"),
    ("i...j...", [(2, 3)], ValueError, "operand 0 has more than one '...'"),
    ("ij->j+", [(2, 3)], ValueError, "the output has '+'"),
    ("...i->i", [(2, 3)], ValueError, "the operands' '...' axes need a '...' in the output"),
    ("i->j->i", [(2,)], ValueError, "has more than one '->'"),
]


@pytest.mark.parametrize("subscripts, shapes, exc, text", EINSUM_ERRORS, ids=lambda v: str(v))
def test_einsum_errors_name_the_function_and_the_label(subscripts, shapes, exc, text):
    operands = [li.asarray(np.ones(shape)) for shape in shapes]
    before = li.inspect.counters.materializations
    with pytest.raises(exc) as info:
        li.einsum(subscripts, *operands)
    message = str(info.value)
    assert message.startswith("einsum: ") and text in message, message
    assert li.inspect.counters.materializations == before
    with pytest.raises(ValueError):  # numpy rejects each of these too
        np.einsum(subscripts, *(np.ones(shape) for shape in shapes))


def test_einsum_rejects_bad_arguments_naming_itself():
    a = li.asarray(np.ones(3, np.int64))
    with pytest.raises(TypeError, match="^einsum: subscripts must be a str, got 3"):
        li.einsum(3, a)
    with pytest.raises(TypeError, match="^einsum: operand 1 must be a lazyinfini array, got list"):
        li.einsum("i,i", a, [1, 2, 3])
    with pytest.raises(ValueError, match="^einsum: needs at least one operand"):
        li.einsum("i")
    b = li.asarray(np.ones(3, np.uint64))
    with pytest.raises(TypeError, match="^einsum: operands of dtypes int64, uint64 have no common"):
        li.einsum("i,i", a, b)
