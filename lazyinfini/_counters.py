"""Counters that make work visible: materializations, kernels, bytes. Public via li.inspect."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass
class Counters:
    materializations: int = 0  # realize() calls that ran at least one kernel
    # values the API read while recording (bool()/int()/..., masks, nonzero, unique_*, array
    # repeats, ...: see _array.implicit_value), one per pending input it computed
    implicit_materializations: int = 0
    schedules_reused: int = 0  # materializations whose schedule came from the cache
    kernels: int = 0  # kernels run by any executor
    nodes: int = 0  # nodes evaluated inside those kernels
    bytes_read: int = 0
    bytes_written: int = 0
    c_fallbacks: int = 0  # elementwise kernels that fell back to numpy when C was unavailable
    # runs of a schedule by its device's runner, without the run loop (Device.runner): a
    # GPU's launch list, the cpu's small numpy kernels
    direct_runs: int = 0
    split_sums: int = 0  # single long rows a REDUCE kernel summed in pieces on the threads
    c_matvecs: int = 0  # matrix-vector products computed in C (compiled_matvec.py)
    c_chains: int = 0  # A^T f(A v) computed in one pass over A (compiled_chain.py)
    # numpy functions called on Arrays (NEP 18) with no lazy twin for that call: their Array
    # arguments were computed and numpy ran (see _numpy_functions.fallback)
    numpy_fallbacks: int = 0

    def reset(self) -> None:
        for field in dataclasses.fields(self):
            setattr(self, field.name, 0)

    def snapshot(self) -> dict[str, int]:
        return dataclasses.asdict(self)


counters = Counters()
