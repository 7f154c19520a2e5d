"""What runs on the workers: each block of a fused kernel runs the cpu's compiled C function
over the block's own shape and strides (`compiled.run_arrays`), the numpy path where no
compiler runs (one warning per process), and the block function travels small and is kept
once per process."""

import pickle
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

dask = pytest.importorskip("dask")
import dask.array as da  # noqa: E402

import lazyinfini as li  # noqa: E402
from lazyinfini._render.compile import NoCompiler  # noqa: E402
from lazyinfini._runtime import compiled  # noqa: E402
from lazyinfini._runtime.c_compiling import C_KERNELS  # noqa: E402
from lazyinfini._runtime.dask import blocks  # noqa: E402
from lazyinfini._runtime.dask.blocks import FusedBlock, merged_dims  # noqa: E402
from lazyinfini._runtime.memo import Memo  # noqa: E402

pytestmark = pytest.mark.usefixtures("synchronous")


def elementwise_kernel(y):
    (kernel,) = [k for k in li.inspect.schedule(y).kernels if k.kind.value == "elementwise"]
    return kernel


@pytest.fixture
def counted(monkeypatch):
    """A record of every block run in C (blocks.run_calls spied on)."""
    runs = []
    real = blocks.run_calls

    def spy(calls, bases):
        runs.append(len(calls))
        return real(calls, bases)

    monkeypatch.setattr(blocks, "run_calls", spy)
    return runs


def test_every_block_of_a_large_kernel_runs_compiled_c(counted):
    x_np = np.linspace(-3, 3, 1 << 17, dtype=np.float32).reshape(256, 512)
    a = da.from_array(x_np, chunks=(100, 200))  # 3x3 uneven blocks
    with li.options(device="dask"):
        x = li.from_dask(a)
        y = li.clip(li.exp(x) - 2 * x.T.T, 0, 1) + 1  # exp borrows numpy's own loop
        note = li.explain(y)
        got = np.asarray(y)
    assert "one layer of 9 chunks (3x3)" in note
    assert "as compiled C on the task's thread alone" in note
    assert len(counted) == 9
    with li.options(device="cpu"):
        expected = np.asarray(li.clip(li.exp(li.asarray(x_np)) - 2 * li.asarray(x_np), 0, 1) + 1)
    assert got.tobytes() == expected.tobytes()


def test_a_small_kernel_runs_numpy_chunks_as_the_cpu_would(counted):
    with li.options(device="dask"):
        y = li.asarray(np.arange(10.0)) * 2
        assert "per task as numpy chunks (under 65536 elements" in li.explain(y)
        np.testing.assert_array_equal(np.asarray(y), np.arange(10.0) * 2)
    assert counted == []


def test_transposed_flipped_and_broadcast_blocks_in_c(compiled_dask, counted):
    """Each block's own strides: a transposed operand's blocks are views read across rows, a
    flipped one walks backwards, a row is broadcast; edge blocks are shorter."""
    rng = np.random.default_rng(0)
    m = rng.standard_normal((7, 9)).astype(np.float16)
    t = rng.standard_normal((9, 7)).astype(np.float16)
    row = rng.standard_normal(9).astype(np.float16)
    with li.options(device="reference"):
        e = np.asarray(li.maximum(li.asarray(m) * li.asarray(t).T, li.asarray(row))[::-1] - 1)
    with li.options(device=compiled_dask):
        a, b = li.from_dask(da.from_array(m, chunks=(4, 5))), li.from_dask(da.from_array(t, (5, 4)))
        r = li.from_dask(da.from_array(row, chunks=3))
        got = np.asarray(li.maximum(a * b.T, r)[::-1] - 1)
    assert got.tobytes() == e.tobytes() and len(counted) > 4


def test_without_a_compiler_blocks_run_numpy_with_one_warning(compiled_dask, monkeypatch):
    def no_compiler(source):
        raise NoCompiler("no C compiler found (injected)")

    monkeypatch.setattr(compiled, "load", no_compiler)
    monkeypatch.setattr(compiled, "_BY_KEY", Memo())  # nothing loaded before
    monkeypatch.setattr(C_KERNELS, "modules", {})
    monkeypatch.setattr(blocks, "_C_OFF", [])
    x_np = np.arange(24.0).reshape(4, 6)
    with li.options(device=compiled_dask), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = li.asarray(x_np) * 3.25 - 7
        assert np.asarray(y).tobytes() == (x_np * 3.25 - 7).tobytes()
        assert np.asarray(li.asarray(x_np) * 3.5 - 7).tobytes() == (x_np * 3.5 - 7).tobytes()
    said = [w for w in caught if "compiled kernels unavailable on this dask worker" in str(w)]
    assert len(said) == 1 and len(blocks._C_OFF) == 1


def test_the_block_function_pickles_small_and_once_per_process():
    a = da.ones((512, 256), chunks=(128, 128))  # 128K elements: compiled
    with li.options(device="dask"):
        x = li.from_dask(a)
        y = x
        for _ in range(6):
            y = li.sin(y * x + 0.25) - x  # 24 ops
        graph = li.to_dask(y)
    block = graph.__dask_graph__().layers[graph.name].task.func
    assert isinstance(block, FusedBlock) and block.compiled
    graph.compute()  # its functions are loaded now, in this process
    assert any(key.startswith("_memo") for key in vars(block.kernel))
    data = pickle.dumps(block)
    assert len(data) < 4096 and b"_memo" not in data  # no loaded function, no allocator
    first, second = pickle.loads(data), pickle.loads(pickle.dumps(block))
    assert first is second and first.token == block.token and first.memory is None


def test_a_process_unpickles_a_layer_s_recipe_once(monkeypatch):
    """Every task of a layer carries the recipe as bytes; only the first task met in a process
    unpickles them, a later one finds the live block by its token. Its blocks give numpy's
    bits."""
    rng = np.random.default_rng(5)
    a_np, b_np = rng.standard_normal((2, 300, 400), dtype=np.float32)
    a, b = (da.from_array(x, chunks=(150, 200)) for x in (a_np, b_np))
    with li.options(device="dask"):
        graph = li.to_dask(li.clip(li.from_dask(a) - li.from_dask(b), 0, 1))
    block = graph.__dask_graph__().layers[graph.name].task.func
    tasks = [pickle.dumps(block) for _ in range(4)]  # as the scheduler sends a layer's tasks
    assert len(set(tasks)) == 1 and len(tasks[0]) < 2048
    blocks._LIVE.pop(block.token, None)  # this process has not met the layer yet
    unpickled = []
    real = pickle.loads

    def counted(payload: bytes):
        unpickled.append(len(payload))
        return real(payload)

    payloads = SimpleNamespace(loads=counted, dumps=pickle.dumps)
    monkeypatch.setattr(blocks, "pickle", payloads, raising=False)
    revived = [real(task) for task in tasks]
    assert len(unpickled) == 1 and all(r is revived[0] for r in revived)
    assert revived[0] is not block and revived[0].token == block.token
    out = revived[0](a_np[:150, 200:], b_np[:150, 200:])
    assert out.tobytes() == np.clip(a_np[:150, 200:] - b_np[:150, 200:], 0, 1).tobytes()


def test_merged_dims_views_what_every_operand_walks_as_one():
    c = np.zeros((4, 5, 6))
    row = np.broadcast_to(np.ones(6), (4, 5, 6))
    assert [v.shape for v in merged_dims([c, c[..., ::1]])] == [(120,), (120,)]
    assert [v.shape for v in merged_dims([c, row])] == [(20, 6), (20, 6)]
    t = np.zeros((6, 5, 4)).T
    assert [v.shape for v in merged_dims([c, t])] == [(4, 5, 6), (4, 5, 6)]
    one = np.zeros((1, 3, 1))
    assert [v.shape for v in merged_dims([one])] == [(3,)]
    views = merged_dims([c, row])
    views[0][...] = 2.0
    assert np.shares_memory(views[0], c) and (c == 2.0).all()


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4), (64, 300), (300, 400)])
def test_run_arrays_matches_the_reference_on_any_layout(shape):
    """compiled.run_arrays over arrays laid out otherwise than the kernel was recorded (a
    transposed copy, reversed views, broadcast fills; 300x400 reads the transposed one in
    tiles) gives the reference's bits."""
    rng = np.random.default_rng(1)
    a_np = rng.standard_normal(shape).astype(np.float32)
    b_np = rng.standard_normal(shape).astype(np.float32)

    def program(a, b):
        return li.clip(li.exp(a) - b, -0.5, 2.0)

    with li.options(device="reference"):
        expected = np.asarray(program(li.asarray(a_np), li.asarray(b_np)))
    a, b = li.asarray(a_np), li.asarray(b_np)
    kernel = elementwise_kernel(program(a, b))
    assert [ld.base.op.label for ld in kernel.loads].count("full") == 2
    transposed = np.ascontiguousarray(b_np.T).T  # b's values, laid out transposed
    reversed_a = np.ascontiguousarray(a_np[::-1])[::-1]
    for a_view, b_view in ((a_np, b_np), (a_np, transposed), (reversed_a, transposed)):
        loads = []
        for ld in kernel.loads:
            if ld.base.op.label == "full":
                loads.append(np.broadcast_to(np.asarray(ld.base.arg, np.float32), shape))
            else:
                loads.append(a_view if np.shares_memory(ld.base.arg.data, a._value()) else b_view)
        out = np.full(shape, np.nan, np.float32)
        compiled.run_arrays(kernel, [out], loads)
        assert out.tobytes() == expected.tobytes()


def test_partitions_medians_and_nan_extremes_match_numpys():
    # NOTE: numpy's partition (and the median and quantiles read from it) needs its axis in
    # one block: the call runs per block of the other axes, with numpy's bits
    x_np = np.random.default_rng(3).standard_normal((300, 200))
    x_np[::7, 5] = np.nan
    a = da.from_array(x_np, chunks=(100, 70))
    with li.options(device="dask"):
        x = li.from_dask(a)
        got = [np.partition(x, [3, 100], axis=0), np.median(x, axis=0)]
        got += [np.quantile(x, [0.2, 0.7], axis=1), np.percentile(x, 90, axis=0)]
        got += [np.nanmax(x, axis=0), np.nanmin(x, axis=1)]
        got = [np.asarray(g) for g in got]
    want = [np.partition(x_np, [3, 100], axis=0), np.median(x_np, axis=0)]
    want += [np.quantile(x_np, [0.2, 0.7], axis=1), np.percentile(x_np, 90, axis=0)]
    want += [np.nanmax(x_np, axis=0), np.nanmin(x_np, axis=1)]
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.tobytes() == w.tobytes()
