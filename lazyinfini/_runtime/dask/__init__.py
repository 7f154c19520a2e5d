"""The dask device: a schedule's kernels translated into one dask.array graph, computed at once.

Registered by name only (`_runtime/__init__.py`): `import lazyinfini` never imports dask, and
`li.options(device="dask")` loads it here the first time. Modules:

- `device.py`: the Device record, the chunking policy, movement and elementwise kernels (one
  blockwise layer per fused kernel) and explain's lines.
- `calls.py`: reductions, matmul and cumulative sums by dask's blocked algorithms; other
  library calls per chunk along the axes they need whole, or as one task.
- `blocks.py`: what runs on the workers: a fused kernel per block (its compiled C function,
  or the register program in numpy) and library calls, as small picklable callables (they
  hold no node graph and no data).
- `gather.py`: one computation of every requested value, each value's blocks joined into one
  array on the client (gathered straight from the workers on a distributed cluster).
"""

from __future__ import annotations

EXTRA = 'pip install "lazyinfini[dask]"'


def load_device():
    """The dask Device; an ImportError naming the extra when dask is not installed."""
    try:
        import dask.array  # noqa: F401
    except ImportError as error:
        raise ImportError(
            f"the dask device needs dask.array, which is not installed: {EXTRA}"
        ) from error
    from .device import DASK

    return DASK
