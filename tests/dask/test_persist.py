"""`y.persist()` and `li.persist(*arrays)`: computed by dask, kept where dask keeps them (a
cluster's workers; memory for the local schedulers), and read from there by the next program
(the workers' case: tests/dask/test_cluster.py)."""

import numpy as np
import pytest

dask = pytest.importorskip("dask")
import dask.array as da  # noqa: E402

import lazyinfini as li  # noqa: E402
from lazyinfini._graph import Op  # noqa: E402
from lazyinfini._runtime.dask.blocks import FusedBlock  # noqa: E402

pytestmark = pytest.mark.usefixtures("synchronous")


@pytest.fixture
def blocks_run(monkeypatch):
    """The ops of every fused block run (FusedBlock spied on)."""
    ran = []
    real = FusedBlock.__call__

    def spy(self, *blocks):
        ran.append(tuple(step.node.op.label for step in self.program.steps))
        return real(self, *blocks)

    monkeypatch.setattr(FusedBlock, "__call__", spy)
    return ran


def test_a_persisted_array_reads_its_blocks_and_runs_nothing_again(blocks_run):
    a_np = np.linspace(-2, 2, 48).reshape(6, 8)
    a = da.from_array(a_np, chunks=(3, 4))
    with li.options(device="dask"):
        y = li.clip(li.from_dask(a) - 0.5, 0, 1)
        assert y.persist() is y
        assert blocks_run == [("subtract", "clip")] * 4
        kept = li.to_dask(y)
        assert y._node.op is Op.BUFFER and y._node.arg.data is kept
        assert y.device.name == "dask" and li.to_dask(y) is kept
        assert kept.npartitions == 4  # a's chunks, kept
        total = float(li.sum(y * 2))
        value = np.asarray(y)
        assert blocks_run[4:] == [("multiply",)] * 4  # y's blocks are read, not computed
    expected = np.clip(a_np - 0.5, 0, 1)
    assert value.tobytes() == expected.tobytes() and total == (expected * 2).sum()


def test_persist_several_arrays_at_once_sharing_their_inputs():
    a = da.arange(10.0, chunks=4)
    with li.options(device="dask"):
        x = li.from_dask(a)
        y, z = x * 2, x + 1
        same = y  # another array holding y's node
        assert li.persist(y, z) == (y, z)
        assert isinstance(li.to_dask(y), da.Array) and isinstance(li.to_dask(z), da.Array)
        assert same._node is y._node  # both read the one persisted value
        np.testing.assert_array_equal(np.asarray(y + z), np.arange(10.0) * 3 + 1)


def test_persist_puts_host_values_on_the_dask_device():
    host = li.asarray(np.arange(6.0)) * 3
    host.compute()  # a cpu buffer
    assert host.device.name == "cpu"
    host.persist()
    assert host.device.name == "dask" and isinstance(li.to_dask(host), da.Array)
    np.testing.assert_array_equal(np.asarray(host), np.arange(6.0) * 3)
    np.testing.assert_array_equal(np.asarray(host + 1), np.arange(6.0) * 3 + 1)


def test_persist_refuses_what_is_not_an_array():
    with pytest.raises(TypeError, match="^persist: expected lazyinfini arrays, got ndarray"):
        li.persist(np.ones(3))
