"""The dask graphs the dask device builds, read without running them: one blockwise layer of n
tasks per fused kernel, small pickles, no task before a value is asked for and then one
dask.compute; the explain() lines; chunking; data in and out; the device's registration."""

import pickle
import subprocess
import sys

import numpy as np
import pytest

dask = pytest.importorskip("dask")
import dask.array as da  # noqa: E402
from dask.callbacks import Callback  # noqa: E402

import lazyinfini as li  # noqa: E402

pytestmark = pytest.mark.usefixtures("synchronous")


def inputs(shape=(8, 12), chunks=(4, 3)):
    """Two dask arrays without data in their graphs (8 chunks, 2x4, by default)."""
    return da.ones(shape, chunks=chunks), da.full(shape, 0.5, chunks=chunks)


def new_layers(result, *sources) -> dict:
    """The layers of `result`'s graph that are not its sources'."""
    layers = dict(result.__dask_graph__().layers)
    for source in sources:
        for name in source.__dask_graph__().layers:
            layers.pop(name, None)
    return layers


class Tasks(Callback):
    """Counts dask computations and tasks run (local schedulers)."""

    def __init__(self):
        super().__init__()
        self.computes = self.tasks = 0

    def _start(self, dsk):
        self.computes += 1

    def _pretask(self, key, dsk, state):
        self.tasks += 1


def test_clip_of_a_difference_is_one_blockwise_layer_of_n_tasks():
    a, b = inputs()
    with li.options(device="dask"):
        y = li.to_dask(li.clip(li.from_dask(a) - li.from_dask(b), 0, 1))
    layers = new_layers(y, a, b)
    assert list(layers) == [y.name] and y.name.startswith("subtract_clip-")
    assert len(layers[y.name]) == y.npartitions == 8
    np.testing.assert_array_equal(y.compute(), np.full((8, 12), 0.5))


def test_a_fused_chain_of_k_ops_is_still_n_tasks():
    a, b = inputs()
    with li.options(device="dask"):
        x, v = li.from_dask(a), li.from_dask(b)
        for _ in range(6):
            x = li.sin(x * v + 0.25) - v  # 4 ops a round: 24 fused
        y = li.to_dask(x)
    (layer,) = new_layers(y, a, b).values()
    assert len(layer) == y.npartitions == 8
    expected = np.ones((8, 12))
    for _ in range(6):
        expected = np.sin(expected * 0.5 + 0.25) - 0.5
    np.testing.assert_allclose(y.compute(), expected, rtol=1e-15)


def test_numpy_inputs_are_chunked_by_the_configured_chunks():
    data = np.arange(96.0).reshape(8, 12)
    with li.options(device="dask"):
        with dask.config.set({"lazyinfini.chunks": (4, 6)}):
            y = li.to_dask(li.asarray(data) * 2)
        assert y.chunks == ((4, 4), (6, 6))
        with dask.config.set({"lazyinfini.chunks": "auto"}):  # dask's array.chunk-size
            assert li.to_dask(li.asarray(data) * 2).npartitions == 1
    np.testing.assert_array_equal(y.compute(), data * 2)


def test_a_transposed_operand_is_relabelled_not_copied():
    a = da.ones((8, 12), chunks=(4, 3))
    b = da.ones((12, 8), chunks=(3, 4))
    with li.options(device="dask"):
        y = li.to_dask(li.from_dask(a).T + li.from_dask(b))
    assert list(new_layers(y, a, b)) == [y.name] and y.npartitions == 8


def test_a_broadcast_operand_is_read_block_by_block_not_materialized():
    a = da.ones((8, 12), chunks=(4, 3))
    row = da.arange(12.0, chunks=3)
    with li.options(device="dask"):
        y = li.to_dask(li.from_dask(a) - li.from_dask(row))
    assert list(new_layers(y, a, row)) == [y.name] and y.npartitions == 8
    np.testing.assert_array_equal(y.compute(), 1 - np.arange(12.0)[None, :].repeat(8, 0))


def test_a_computed_scalar_is_one_block_read_by_every_task():
    x_np = np.linspace(-2, 2, 1000, dtype=np.float16)

    def program():
        x = li.asarray(x_np)
        return (x - li.mean(x)) * li.asarray(np.float16(3)) + 1

    with li.options(device="reference"):
        expected = np.asarray(program())
    with li.options(device="dask"):
        y = program()
        assert li.to_dask(y).npartitions == 500  # chunks of 2
        assert np.asarray(y).tobytes() == expected.tobytes()


def test_the_graph_pickles_small_and_holds_no_node_history():
    """The layer ships the fused program, never a Node (whose inputs would pickle the whole
    recorded history, a 1 MiB buffer included) nor the data."""
    import cloudpickle

    data = np.ones((512, 256))  # 1 MiB, read by the first kernel
    with li.options(device="dask"), dask.config.set({"lazyinfini.chunks": (128, 256)}):
        x = (li.asarray(data) * 3).compute()  # a computed buffer with history behind it
        b = li.from_dask(da.full((512, 256), 0.5, chunks=(128, 256)))
        y = li.to_dask(li.clip(x - b, 0, 1))
    layer = y.__dask_graph__().layers[y.name]
    assert len(layer) == 4
    assert len(pickle.dumps(layer.task.func)) < 2048  # the program: about a KB
    assert len(cloudpickle.dumps(layer)) < 4096  # function and block indices: no data
    np.testing.assert_array_equal(y.compute(), 1.0)


def test_nothing_runs_until_a_value_is_asked_and_then_one_compute(monkeypatch):
    a, b = inputs()
    computes = []
    real = dask.compute
    monkeypatch.setattr(dask, "compute", lambda *xs, **kw: computes.append(xs) or real(*xs, **kw))
    with Tasks() as counted, li.options(device="dask"):
        x, y = li.from_dask(a), li.asarray(b)  # asarray routes a dask array, lazily
        diff = li.clip(x - y, 0, 1)
        total, means = li.sum(diff), li.mean(diff, axis=0)
        repr(diff), li.explain(total, means), li.graph(total), li.to_dask(total)
        assert diff.device.name == x.device.name == y.device.name == "dask"
        assert (counted.computes, counted.tasks, computes) == (0, 0, [])
        li.compute(diff, total, means)
        assert counted.computes == len(computes) == 1 and counted.tasks > 0
        np.asarray(li.max(diff * 2))
        assert counted.computes == len(computes) == 2
    assert float(total) == 48.0 and np.asarray(means).tolist() == [0.5] * 12


def test_an_intermediate_an_array_holds_stays_a_graph_not_a_client_copy():
    a, b = inputs()
    with li.options(device="dask"):
        y = li.clip(li.from_dask(a) - li.from_dask(b), 0, 1)  # held by `y`
        assert float(li.sum(y)) == 48.0
        assert y._node.op is not li._graph.Op.BUFFER  # not gathered to the client
        assert li.to_dask(li.mean(y, axis=0)).npartitions == 4  # still a's chunks


def test_sibling_kernels_share_one_blockwise_layer():
    a, _ = inputs()
    with li.options(device="dask"):
        x = li.from_dask(a)
        y1, y2 = x * 2, x + 3  # one pass reads x for both (merged siblings)
        plan = li.inspect.schedule(y1, y2)
        assert [k.kind.value for k in plan.kernels] == ["elementwise"]
        li.compute(y1, y2)
    np.testing.assert_array_equal(np.asarray(y1), 2)
    np.testing.assert_array_equal(np.asarray(y2), 4)


def test_explain_prints_each_choice_with_chunk_counts():
    a = da.ones((8, 12), chunks=(4, 3))
    with li.options(device="dask"):
        x = li.from_dask(a)
        y = li.sum(li.sort(x * 2, axis=1), axis=0)
        q = li.linalg.qr(x)
        text = li.explain(y, q.Q, q.R)
    assert "dask blockwise: one layer of 8 chunks (2x4)" in text
    assert "sort needs axis 1 whole: rechunked to one chunk there (8 chunks (2x4) -> 2" in text
    assert "dask blocked sum: 2 chunks (2x1) -> 1 chunk (1)" in text
    assert "one task (no blocked form): 8 chunks (2x4) gathered into one" in text


def test_schedules_are_reused_for_new_dask_inputs():
    before = li.inspect.counters.schedules_reused
    with li.options(device="dask"):
        for i in range(3):
            a = da.full((6, 6), float(i), chunks=3 + i % 2)  # new chunks each time
            assert float(li.sum(li.from_dask(a) * 2)) == 72.0 * i
    assert li.inspect.counters.schedules_reused - before == 2


def test_dask_arrays_convert_and_return():
    a = da.arange(12, chunks=5).reshape(3, 4)
    x = li.from_dask(a)
    assert x.device == li.asarray(a).device and x.device.name == "dask"
    assert "holding dask.array<" in repr(x)
    np.testing.assert_array_equal(np.asarray(x), np.arange(12).reshape(3, 4))
    with li.options(executor="dask"):  # the older name of the option
        y = li.to_dask(li.asarray(a, dtype=li.float32) / 2)
        assert isinstance(y, da.Array) and y.dtype == np.float32
        assert li.to_dask(x) is a
        z = x * 2
        z.compute()
        assert z.device.name == "dask" and isinstance(z._node.arg.data, np.ndarray)
    np.testing.assert_array_equal(y.compute(), np.arange(12).reshape(3, 4) / 2)


def test_zarr_arrays_are_read_chunk_by_chunk(tmp_path):
    pytest.importorskip("zarr")
    da.arange(20.0, chunks=5).to_zarr(str(tmp_path / "x.zarr"))
    x = li.from_zarr(str(tmp_path / "x.zarr"))
    assert x.device.name == "dask" and li.to_dask(x).npartitions == 4
    with li.options(device="dask"):
        assert float(li.sum(x)) == 190.0


def test_computation_follows_dask_arrays_to_the_dask_device():
    # Note: as dask's own operations take numpy arrays, a program of dask and host arrays runs
    # on the dask device whatever the options' device (the cpu here): one blockwise layer.
    x = li.from_dask(da.arange(4.0, chunks=2))
    h = li.asarray(np.array([1.0, 2.0, 3.0, 4.0]))
    assert li.explain(x * 3).startswith("1 kernel(s) for 1 output(s) [device=dask")
    y = li.clip(x * 3 - h, 0, 5)
    assert y.device.name == "dask" and "dask blockwise" in li.explain(y)
    np.testing.assert_array_equal(np.asarray(y), np.clip(np.arange(4.0) * 3 - h, 0, 5))
    assert y.device.name == "dask"  # its value stays the dask device's: the next program too
    np.testing.assert_array_equal(np.asarray(y + h), np.clip(np.arange(4.0) * 3 - h, 0, 5) + h)
    placed = li.asarray(np.ones(4), device="dask")  # device= puts host data there, as to_device
    assert placed.device.name == li.zeros(4, device="dask").device.name == "dask"
    assert (placed + 1).device.name == "dask"


def test_dask_arrays_refuse_bad_input():
    with pytest.raises(TypeError, match="^from_dask: expected a dask array"):
        li.from_dask(np.ones(3))
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        li.from_dask(da.ones(4, chunks=2)[da.ones(4, chunks=2) > 0])


def test_errors_in_a_task_name_the_recorded_line():
    with li.options(device="dask"):
        x = li.from_dask(da.arange(6, chunks=2))
        y = li.take(x, li.asarray([7]) + 0)  # pending, out of bounds: raised when computed
        with pytest.raises(IndexError) as caught:
            y.compute()
    assert any("raised while computing take" in note for note in caught.value.__notes__)


def test_import_never_imports_dask_and_the_device_names_the_extra():
    script = (
        "import sys\n"
        "import lazyinfini as li\n"
        "assert 'dask' not in sys.modules\n"
        "sys.modules['dask'] = None\n"
        "try:\n"
        "    li.options(device='dask').__enter__()\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert 'pip install "lazyinfini[dask]"' in done.stdout


def test_a_fill_another_kernel_made_is_a_numpy_constant_of_the_block():
    # A fill computed by another kernel of the run is a dask array in the run's values; as a
    # 0-d one it became the block function's constant as it was, and keying the block by its
    # fills' bytes raised AttributeError (the dask fuzz on a clean clone found it)
    from lazyinfini._graph import Op
    from lazyinfini._runtime.dask import device
    from lazyinfini._runtime.dask.blocks import fills_key
    from lazyinfini._schedule import Kind

    with li.options(device="dask"):
        y = li.asarray(np.arange(4.0), device="dask") + li.full((), 2.5)
        plan = li.inspect.schedule(y)
    kernel = next(k for k in plan.kernels if k.kind is Kind.ELEMENTWISE)
    fill = next(load.base for load in kernel.loads if load.base.op is Op.FULL)
    _, _, constants = device._block_inputs(kernel, {fill: da.from_array(np.asarray(7.5))})
    assert [(i, type(c), float(c)) for i, c in constants] == [(1, np.ndarray, 7.5)]
    assert fills_key(constants) == ((1, "float64", np.float64(7.5).tobytes()),)
