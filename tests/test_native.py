"""The compiled scan (lazyinfini/_realize/native.py) gives what the Python scan gives, object
for object.

Every materialization of the suite runs the compiled scan once it is built (conftest.py waits
for it); here each call also runs the Python scan on the same graph and the two results must be
the same: the same nodes in the same order, the same input positions, key parts, fill keys,
held positions and flags. The programs are the fuzz's, plus the cases the scan treats apart:
held and realized intermediates, evaluated history, linked library calls, fills that are equal,
-0.0, NaN of either sign, and unhashable parameters.
"""

from __future__ import annotations

import contextlib
import math
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini._graph import Op
from lazyinfini._realize import cache as _cache
from lazyinfini._realize import native as _native
from tests.fuzz import check_program, draw_program

pytestmark = pytest.mark.skipif(
    not _native.wait(), reason=f"no compiled scan here: {_native.Native.error}"
)


def _slots(node) -> dict:
    """The fields set in `node` (a Node's slots), by name."""
    names = [name for name in type(node).__slots__ if name != "__weakref__"]
    return {name: getattr(node, name) for name in names if hasattr(node, name)}


def _unset(node, name: str) -> None:
    """`node`'s fact `name` (a field worked out once) forgotten, to be worked out again."""
    if hasattr(node, name):
        object.__delattr__(node, name)


def _same(a, b) -> bool:
    """Equal, element for element; identical objects (nodes, arrays) count as equal."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


@contextlib.contextmanager
def _compared(calls: list):
    """The compiled scan, checked against the Python scan at every call, counted in `calls`."""
    compiled = _native.Native.scan

    def both(pending, keeps):
        ours = compiled(pending, keeps)
        assert _same(ours, _cache._scan(pending, keeps)), pending
        calls[0] += 1
        return ours

    lookup = _native.Native.lookup

    def hit_both(pending, keeps, cache, token, fuse):
        ours = lookup(pending, keeps, cache, token, fuse)
        if type(ours) is _cache.Job:  # NOTE: a hit: the Job Python's prepare makes
            python = _python_prepare(cache, token, fuse, pending, keeps)
            assert python.reused and _same(_fields(ours), _fields(python)), pending
            calls[1] += 1
        else:
            assert _same(ours, _cache._scan(pending, keeps)), pending
        calls[0] += 1
        return ours

    from lazyinfini import _realize

    np.asarray(li.asarray(np.ones(1)) + 1.0)  # NOTE: realize loaded (realize_one installed)
    quick = _realize.realize_one  # NOTE: it looks up in C: every lookup here is prepare's
    _native.Native.scan, _native.Native.lookup = both, hit_both
    _realize.realize_one = lambda array: NotImplemented
    try:
        yield
    finally:
        _native.Native.scan, _native.Native.lookup = compiled, lookup
        _realize.realize_one = quick


def _python_prepare(cache, token, fuse, pending, keeps):
    """cache.prepare(...) in Python alone: neither the C lookup nor the C scan."""
    target = next(t for t, k in _cache._TOKENS.items() if k == token)
    saved = _native.Native.lookup, _native.Native.scan
    _native.Native.lookup = _native.Native.scan = None
    try:
        return cache.prepare(target, fuse, pending, keeps)
    finally:
        _native.Native.lookup, _native.Native.scan = saved


def _fields(job) -> tuple:
    """A Job's fields, its bound fills (0-d arrays, NaN among them) as their bits."""
    inputs = {
        k: (v.dtype, v.tobytes()) if isinstance(v, np.ndarray) and v.ndim == 0 else v
        for k, v in job.inputs.items()
    }
    return (*job[:1], inputs, *job[2:])


@pytest.fixture
def compared():
    calls = [0, 0]
    with _compared(calls):
        yield
    assert calls[0] > 0


_CALLS = [0, 0]  # the random programs' scans and hits (some compute nothing: views)


@settings(max_examples=40)
@given(st.data())
def test_the_compiled_scan_agrees_on_random_programs(data):
    with _compared(_CALLS):  # NOTE: the second cpu run finds the first's template
        check_program(draw_program(data), runs=[("cpu", True), ("cpu", True), ("reference", False)])


def test_the_random_programs_ran_the_comparison():
    assert _CALLS[0] > 40 and _CALLS[1] > 10  # NOTE: check_program runs each program twice


def test_held_realized_and_evaluated_nodes(compared):
    x_np = np.linspace(-3, 3, 24).reshape(4, 6)
    x = li.asarray(x_np)
    t = x * 2.0  # held by t
    u = li.sum(t - 1.0, axis=0)
    np.asarray(u)  # t was evaluated, not kept
    v = t + u  # reads t again: the recomputed frontier
    w = li.clip(v, 0.0, 1.0)
    t.compute()
    np.testing.assert_array_equal(np.asarray(w), np.clip(x_np * 2 + (x_np * 2 - 1).sum(0), 0, 1))


def test_a_fit_loop_hits_with_its_recomputed_frontier():
    # NOTE: each step's graph holds history an earlier step evaluated (the weights before the
    # last update): the C hit works out that frontier as prepare does, where it used to leave
    # every such step to the Python path
    rng = np.random.default_rng(3)
    features, targets = rng.standard_normal((20, 4)), rng.standard_normal(20)
    calls, hits = [0, 0], []
    x, y = li.asarray(features), li.asarray(targets)
    w, b = li.zeros(4, dtype=li.float64), 0.0
    w_np, b_np = np.zeros(4), 0.0
    with _compared(calls):
        for _ in range(8):
            before = calls[1]
            error, error_np = x @ w + b - y, features @ w_np + b_np - targets
            grad, grad_np = x.T @ error / 20, features.T @ error_np / 20
            w -= 0.1 * grad
            b -= 0.1 * error.mean()
            w_np -= 0.1 * grad_np
            b_np -= 0.1 * error_np.mean()
            assert bool(np.abs(grad).max() < 1e-9) == bool(np.abs(grad_np).max() < 1e-9)
            hits.append(calls[1] > before)
    np.testing.assert_allclose(np.asarray(w), w_np, rtol=1e-12)
    assert all(hits[4:]), hits  # NOTE: the first steps make their schedules


def test_fills_equal_signed_zero_and_nan(compared):
    x_np = np.linspace(-1, 1, 8, dtype=np.float32)
    x = li.asarray(x_np)
    for low, high in [(0.0, 0.0), (-0.0, 0.0), (math.nan, 1.0), (-math.nan, 1.0), (0.5, 0.5)]:
        y = li.clip(x * low - high, low, high)
        np.testing.assert_array_equal(
            np.asarray(y), np.clip(x_np * np.float32(low) - np.float32(high), low, high)
        )


def test_linked_calls_and_several_outputs(compared):
    a_np = np.arange(12.0).reshape(4, 3) + np.eye(4, 3)
    u, s, vh = li.linalg.svd(li.asarray(a_np), full_matrices=False)
    np.asarray(s)  # U and Vh are held: one svd computes all three
    np.testing.assert_allclose(np.asarray(u * s) @ np.asarray(vh), a_np, atol=1e-12)
    b = li.asarray(a_np)
    c, d = li.compute(b + 1, b * b)
    np.testing.assert_array_equal(np.asarray(c), a_np + 1)
    np.testing.assert_array_equal(np.asarray(d), a_np * a_np)


def test_a_loop_over_linked_calls_hits_in_c():
    # NOTE: a library call's live items are asked for too (cache._live_siblings): the C hit
    # works that out and rescans as prepare does, where it used to leave the run to Python
    calls = [0, 0]
    a_np = np.arange(12.0).reshape(4, 3) + np.eye(4, 3)
    with _compared(calls):
        for _ in range(3):
            u, s, vh = li.linalg.svd(li.asarray(a_np), full_matrices=False)
            np.testing.assert_allclose(np.asarray(u * s) @ np.asarray(vh), a_np, atol=1e-12)
            x = li.asarray(a_np)
            t = li.linalg.trace(x.T @ x)
            np.testing.assert_allclose(np.asarray(t + x[0, 0]), np.trace(a_np.T @ a_np) + 1)
    assert calls[1] >= 4  # NOTE: the second and third runs of both programs


def test_views_and_indexing_parameters(compared):
    x_np = np.arange(60.0).reshape(3, 4, 5)
    x = li.asarray(x_np)
    y = li.permute_dims(x, (2, 0, 1))[1:, ::2] * 3.0
    z = x[li.asarray(np.array([2, 0])), 1:3]
    np.testing.assert_array_equal(np.asarray(y), np.transpose(x_np, (2, 0, 1))[1:, ::2] * 3)
    np.testing.assert_array_equal(np.asarray(z), x_np[[2, 0], 1:3])


def test_the_compiled_hit_makes_the_job_python_makes():
    """Hits: a scalar that changes (bound), one that does not, a held intermediate, several
    outputs, a -0.0 bound where the template had 0.0; and what it leaves to Python: a new
    program, history evaluated before, a plan assuming an alignment."""
    calls = [0, 0]
    x_np = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    x = li.asarray(x_np)
    with _compared(calls):
        for t in (0.5, 0.5, 1.5, 0.0, -0.0, 2.0):
            y = li.clip(x * t - 1.0, -0.0, 1.0)
            expected = np.clip(x_np * np.float32(t) - 1, -0.0, 1)
            np.testing.assert_array_equal(np.asarray(y), expected)
            held = x + t
            c, d = li.compute(held * 2.0, li.permute_dims(x, (1, 0)) - t)
            np.testing.assert_array_equal(np.asarray(c), (x_np + np.float32(t)) * 2)
            np.testing.assert_array_equal(np.asarray(d), x_np.T - np.float32(t))
            np.testing.assert_array_equal(np.asarray(held + 1.0), x_np + np.float32(t) + 1)
    assert calls[1] >= 10, calls  # NOTE: each program's runs after its first are hits


def test_the_compiled_mark_marks_what_mark_evaluated_marks():
    from lazyinfini._graph import mark_evaluated

    x = li.asarray(np.arange(6.0))
    graphs = [li.clip(x * 2.0 - x, 0.0, 3.0)._node for _ in range(2)]
    orders = [_cache._scan([g], False)[0] for g in graphs]
    _native.Native.mark(orders[0])
    mark_evaluated(orders[1])
    flags = [[(n.op, n.evaluated) for n in order] for order in orders]
    assert flags[0] == flags[1]
    assert [e for _, e in flags[0]] == [op is not li._graph.Op.BUFFER for op, _ in flags[0]]


# -- recording's quick_node and caller_source in C -------------------------------------------
def _twins() -> dict:
    """name -> (the Python function, its C twin) rebound in lazyinfini's modules."""
    np.asarray(li.asarray(np.ones(1)) + 1.0)  # NOTE: realize loaded: its twins registered
    return {python.__name__: (python, compiled) for python, compiled in _native.Native.replaced}


def test_the_c_twins_are_what_lazyinfini_calls():
    from lazyinfini import _graph
    from lazyinfini._api import elementwise, manipulation, quick, statistics, views

    twins = _twins()
    assert set(twins) == {"quick_node", "_made", "caller_source", "buffer_node", "_swap", "link"}
    link = twins.pop("link")[1]
    assert views.link is link and manipulation.link is link and li._api.indexing.link is link
    swap = twins.pop("_swap")[1]
    assert li._realize._swap is swap and li._realize.direct._SWAP is swap
    assert _graph.node._made is twins.pop("_made")[1]
    for name, (_, compiled) in twins.items():
        assert getattr(_graph, name) is compiled
        assert getattr(_graph.node, name) is compiled
    assert quick.quick_node is twins["quick_node"][1]
    assert elementwise.caller_source is twins["caller_source"][1]
    assert statistics.quick_node is twins["quick_node"][1]
    assert li._realize.buffer_node is twins["buffer_node"][1]


def _inside_package(source: str) -> dict:
    """Functions compiled from `source` as if one of lazyinfini's own files (frames skipped)."""
    from lazyinfini._graph import node

    names: dict = {}
    path = os.path.join(node._PACKAGE_DIR, "_recording_test_helpers.py")
    exec(compile(source, path, "exec"), names)
    return names


def test_the_c_caller_source_finds_the_line_python_finds():
    python, compiled = _twins()["caller_source"]

    def through(depth):
        return python(depth), compiled(depth)

    line = python(1), compiled(1), f"test_native.py:{_line()}"
    assert line[0] == line[1] and line[0].endswith(line[2])
    for depth in (1, 2, 3):
        ours, theirs = through(depth)
        assert ours == theirs
    ours = _inside_package("def call(f, d):\n    return f(d)\n")["call"]
    for _ in range(3):  # NOTE: the second time from the table of lines each has filled
        assert ours(python, 1) == ours(compiled, 1)
        assert "test_native.py:" in ours(compiled, 1)


def _line() -> int:
    """The caller's line number."""
    import sys

    return sys._getframe(1).f_lineno


@pytest.mark.parametrize("own", [False, True])
def test_the_c_quick_node_makes_the_node_python_makes(monkeypatch, own):
    from lazyinfini._graph import Op, node

    python, compiled = _twins()["quick_node"]
    for name in list(node._OWN):  # NOTE: an earlier test may have registered such a device
        monkeypatch.delitem(node._OWN, name)
    if own:  # NOTE: a device with a memory of its own is registered: inputs' memories meet
        monkeypatch.setitem(node._OWN, "gpu-like", "its-memory")
    x = li.asarray(np.ones((2, 3)))._node
    for args in [
        (Op.SUBTRACT, (x, x), x.shape, x.dtype, None, "a.py:1"),
        (Op.FULL, (), (2, 3), x.dtype, 2.5, "a.py:2"),
        (Op.CLIP, (x,), x.shape, x.dtype, (True, False), ""),
    ]:
        made = [f(*args) for f in (python, compiled)]
        assert all(type(n) is node.Node for n in made)
        assert _slots(made[0]) == _slots(made[1])
        assert hasattr(made[1], "memory") == own
    with pytest.raises(TypeError):
        compiled(Op.SUBTRACT, (x, x))


def test_the_c_made_makes_the_node_python_makes():
    """Node() and _revived (a copy, a pickle) make their nodes through _made: C's sets what
    Python's sets (its six fields, realized and holder None, evaluated False, no facts)."""
    from lazyinfini._graph import Op, node

    python, compiled = _twins()["_made"]
    x = li.asarray(np.ones((2, 3)))._node
    for args in [
        (Op.SUBTRACT, (x, x), x.shape, x.dtype, None, "a.py:1"),
        (Op.FULL, (), (2, 3), x.dtype, 2.5, ""),
    ]:
        made = [f(*args) for f in (python, compiled)]
        assert all(type(n) is node.Node for n in made)
        assert _slots(made[0]) == _slots(made[1])
        assert not hasattr(made[1], "memory") and made[1].holder is None
    assert type(li.asarray(np.ones(2)) + 1) is li.Array  # NOTE: made through the C twin
    with pytest.raises(TypeError):
        compiled(Op.SUBTRACT, (x, x))


def test_the_c_quick_node_finds_the_memory_python_finds(monkeypatch):
    """Its inline case (each input's memory known, one among them) and what it leaves to
    memory_of: an input of unknown memory, a realized input, two memories meeting."""
    from lazyinfini._graph import Op, node

    python, compiled = _twins()["quick_node"]
    for name in list(node._OWN):
        monkeypatch.delitem(node._OWN, name)
    unknown = python(Op.NEGATIVE, (node.buffer_node(np.ones(3)),), (3,), np.dtype("f8"), None, "")
    monkeypatch.setitem(node._OWN, "gpu-like", "its-memory")
    gpu, host = (node.buffer_node(np.ones(3), "", d) for d in ("gpu-like", "cpu"))
    fill = python(Op.FULL, (), (3,), np.dtype("f8"), 1.0, "")
    realized = python(Op.NEGATIVE, (host,), (3,), np.dtype("f8"), None, "")
    object.__setattr__(realized, "realized", gpu)  # NOTE: its memory is its buffer's, not its own
    cases = {
        (gpu, gpu): "its-memory",
        (fill, gpu): "its-memory",
        (fill, fill): None,
        (host, fill): "host",
        (realized, gpu): "its-memory",
        (unknown, host): "host",
    }
    for srcs, memory in cases.items():
        made = [f(Op.ADD, srcs, (3,), np.dtype("f8"), None, "") for f in (python, compiled)]
        assert [n.memory for n in made] == [memory, memory]
    for f in (python, compiled):
        with pytest.raises(ValueError, match="meet"):
            f(Op.ADD, (host, gpu), (3,), np.dtype("f8"), None, "a.py:9")
        with pytest.raises(ValueError, match="meet"):
            f(Op.ADD, (gpu, realized, host), (3,), np.dtype("f8"), None, "a.py:9")


class _DeviceArray:
    """An array of another device: its shape a list, as some libraries' are."""

    def __init__(self, shape, dtype):
        self.shape, self.dtype = list(shape), np.dtype(dtype)


@pytest.mark.parametrize("own", [False, True])
def test_the_c_buffer_node_makes_the_node_python_makes(monkeypatch, own):
    from lazyinfini._graph import node

    python, compiled = _twins()["buffer_node"]
    for name in list(node._OWN):
        monkeypatch.delitem(node._OWN, name)
    if own:
        monkeypatch.setitem(node._OWN, "gpu-like", "its-memory")
    value = np.arange(6.0).reshape(2, 3)[:, ::2]
    calls = [
        ((value,), {}),
        ((value, "a.py:3"), {}),
        ((value, "a.py:4", "gpu-like"), {}),
        ((_DeviceArray((4, 1), np.float32),), {"source": "", "device": "gpu-like"}),
    ]
    for args, kwargs in calls:
        made = [f(*args, **kwargs) for f in (python, compiled)]
        fields = [_slots(n) for n in made]
        buffers = [f.pop("arg") for f in fields]
        assert fields[0] == fields[1] and type(fields[1]["shape"]) is tuple
        assert all(type(n) is node.Node and type(b) is node.Buffer for n, b in zip(made, buffers))
        assert vars(buffers[0]) == vars(buffers[1])
        assert buffers[1].data is args[0]
        assert ("memory" in fields[1]) == own
    assert compiled(value).arg.layout == python(value).arg.layout
    with pytest.raises(TypeError):
        compiled()


class _Unstrided:
    """Data with no strides (as a dask array has none): a buffer part the Python function makes."""

    shape = (2,)


@pytest.mark.parametrize(
    "make",
    [
        lambda: li.asarray(np.ones((3, 4), np.float32)),
        lambda: li.asarray(np.ones((4, 3)).T),
        lambda: li.asarray(np.arange(10.0)[::-3]),
        lambda: li.asarray(np.ones((3, 4)))[1:],  # NOTE: a view: the buffer under it
    ],
)
def test_the_c_buffer_part_is_the_key_part_python_makes(make):
    buffers = [n for n in li.graph(make()).nodes if n.op is Op.BUFFER]
    for node in buffers:
        _unset(node, "part")
        parts = _native.Native.scan([node], True)[2]  # NOTE: kept on the node as Python keeps it
        assert parts == [_cache._buffer_part(node)] and node.part == parts[0]


def test_a_buffer_part_of_data_without_strides_raises_pythons_error():
    node = li.asarray(np.ones(2))._node
    _unset(node, "part")
    node.arg.data = _Unstrided()
    with pytest.raises(AttributeError, match="strides"):
        _native.Native.scan([node], True)


# -- realize's swap in C ----------------------------------------------------------------------
def _swapped(swap, make, value, device: str):
    """(the array, its node before, the buffer node it holds now) after `swap` of its value."""
    array = make()
    node = array._n
    swap(node, value, device)
    return array, node, array._n


@pytest.mark.parametrize(
    "make",
    [
        lambda: li.asarray(np.ones(4)) * 2.0,  # held by an array sharing no memory
        lambda: li.asarray(np.zeros((3, 4)))[1:] + 0.0,
    ],
)
def test_the_c_swap_does_what_python_does(make):
    python, compiled = _twins()["_swap"]
    value = np.arange(4.0) if make().shape == (4,) else np.ones((2, 4))
    made = [_swapped(swap, make, value, "cpu") for swap in (python, compiled)]
    for array, node, buffer in made:
        assert node.realized is buffer and node.srcs == () and buffer.op is Op.BUFFER
        assert buffer.source == node.source and buffer.arg.device == "cpu"
        assert buffer.holder() is array and array._node is buffer
        data = buffer.arg.data
        assert data.base is value and not data.flags.writeable and value.flags.writeable
    fields = [dict(_slots(b), arg=None, holder=None) for _, _, b in made]
    assert fields[0].keys() == fields[1].keys()
    assert all(_same(fields[0][k], fields[1][k]) for k in fields[0] if k != "arg")


def test_the_c_swap_of_an_array_with_views_and_of_data_not_numpys():
    python, compiled = _twins()["_swap"]
    for swap in (python, compiled):
        base = li.asarray(np.zeros(6))
        base = base * 1.0  # pending
        view = base[2:]  # base now shares memory with a view: _hold's storage is told
        assert base._view is not None
        node = base._n
        swap(node, np.arange(6.0), "cpu")
        assert base._n is node.realized and node.realized.holder() is base
        np.testing.assert_array_equal(np.asarray(view), np.arange(2.0, 6.0))
        unheld = (li.asarray(np.ones(2)) + 1.0)._n  # its array is gone
        other = _DeviceArray((2,), np.float32)
        swap(unheld, other, "gpu-like")
        assert unheld.realized.arg.data is other and unheld.realized.arg.device == "gpu-like"
    with pytest.raises(TypeError):
        compiled(node, np.ones(1))


# -- realize's common case in C ---------------------------------------------------------------
def _outcome(program, x_np, quick: bool, monkeypatch) -> tuple:
    """(bits of each output, counters' changes, the nodes' fields after) of `program` run on a
    fresh array, every output materialized through realize_one (quick) or realize."""
    from lazyinfini import _realize
    from lazyinfini._counters import counters

    if not quick:
        monkeypatch.setattr(_realize, "realize_one", lambda array: NotImplemented)
    names = ["materializations", "schedules_reused", "kernels", "nodes", "direct_runs"]
    before = [getattr(counters, n) for n in names]
    outputs = program(li.asarray(x_np))
    nodes = [o._n for o in outputs]
    bits = [np.asarray(o).tobytes() for o in outputs]
    after = [getattr(counters, n) - b for n, b in zip(names, before, strict=True)]
    fields = [(n.op, n.evaluated, n.realized.op, n.realized.source) for n in nodes]
    monkeypatch.undo()
    return bits, after, fields


def test_realize_one_does_what_realize_does(monkeypatch):
    """The C path and the Python function materialize alike: the values, the counters (one
    materialization each, reused schedules, kernels, direct runs) and the swapped nodes, on
    a cached schedule with a held intermediate (kept) and an evaluated history."""
    from lazyinfini import _realize

    np.asarray(li.asarray(np.ones(2)) + 1.0)  # NOTE: a first materialization loads realize
    assert type(_realize.realize_one).__name__ == "builtin_function_or_method"

    def program(x):
        y = x * 2.0 + 1.0
        z = li.sum(y * y, axis=0)
        return y, z, li.exp(z) - y[0]

    x_np = np.arange(12.0).reshape(4, 3) / 7
    for _ in range(2):  # NOTE: the schedules cached first
        _outcome(program, x_np, True, monkeypatch)
    quick = _outcome(program, x_np, True, monkeypatch)
    python = _outcome(program, x_np, False, monkeypatch)
    assert quick == python
    assert quick[1][0] == 3 and quick[1][1] == 3  # NOTE: three materializations, all reused


def test_realize_one_declines_what_realize_decides(monkeypatch):
    """NotImplemented, nothing done, where Python decides: a computed array (None: nothing
    pending), a view a direct run takes, the debug line, a schedule not cached yet."""
    from lazyinfini import _realize
    from lazyinfini._counters import counters

    x = li.asarray(np.arange(6.0))
    assert _realize.realize_one(x) is None
    assert _realize.realize_one(x[1:]) is NotImplemented  # NOTE: direct.py's

    def made():
        return x * 3.0 - 1.25  # NOTE: a program no other test runs (its key: this line)

    fresh, before = made(), counters.materializations
    assert _realize.realize_one(fresh) is NotImplemented and fresh._n.op is Op.SUBTRACT
    assert counters.materializations == before  # NOTE: its template is made in Python
    np.testing.assert_array_equal(np.asarray(fresh), np.arange(6.0) * 3.0 - 1.25)
    with li.options(debug=1), contextlib.redirect_stderr(None):
        np.asarray(made())  # NOTE: the run record of this options record, made in Python
        assert _realize.realize_one(made()) is NotImplemented
    again = made()
    assert _realize.realize_one(again) is not None and again._n.op is Op.BUFFER
    assert counters.materializations == before + 3
