"""A launch's arguments packed as cuLaunchKernel takes them (`kernelParams`: an array of
pointers, one to each argument's bytes), made once per kernel; a run rewrites only the slots
that change (the operands' addresses, the fills' values) and launches.

This is what CuPy's `RawKernel` call rebuilds on every launch (a CArray or CScalar per
argument, PyMem_Malloc'd), and what tinygrad's CUDA runtime and torch's Inductor static launcher
keep between launches instead (../shared/notes/cuda-host.md): the host path of a cached program
is a list of such launches. The CUDA host stand-in of the tests (tests/render/shim.py) takes
the same array, so the packing the GPU runs is the packing the emulator checks.
"""

from __future__ import annotations

import ctypes

import numpy as np

from ..._render import cuda

# Unsigned slots of each size: a by-value argument is written as its bits (a half float's 16,
# -0.0's sign, a NaN's payload), and the kernel reads them as its parameter's type.
_BITS = {1: ctypes.c_uint8, 2: ctypes.c_uint16, 4: ctypes.c_uint32, 8: ctypes.c_uint64}
_VALUES = {
    "unsigned int": ctypes.c_uint32,
    "int": ctypes.c_int32,
    "unsigned long long": ctypes.c_uint64,
    "long long": ctypes.c_int64,
}


class Packed:
    """The arguments of one Launch (cuda.Launch): constants written now, and a slot per
    operand (a pointer, or a by-value fill's bits) that a run writes (kernels._Prepared.bind):
    `slots` by operand, `bits` the unsigned dtype a by-value operand is written as."""

    __slots__ = ("params", "pointers", "slots", "bits", "_all", "address")

    def __init__(self, launch: cuda.Launch):
        every, self.slots, self.bits = [], {}, {}
        for param in launch.params:
            if param.pointer:
                slot = self.slots[param.operand] = ctypes.c_void_p()
            elif param.by_value:
                size = np.dtype(cuda.MEMORY_TYPES[param.ctype]).itemsize
                slot = self.slots[param.operand] = _BITS[size]()
                self.bits[param.operand] = np.dtype(f"u{size}")
            else:
                slot = _VALUES[param.ctype](param.value)
            every.append(slot)
        self._all = every  # NOTE: kept alive: `params` points into them
        self.params = (ctypes.c_void_p * max(1, len(every)))(*(ctypes.addressof(s) for s in every))
        # NOTE: (operand, slot) of the pointers: the shim checks their alignment at a launch
        self.pointers = tuple((k, slot) for k, slot in self.slots.items() if k not in self.bits)
        self.address = ctypes.addressof(self.params)  # NOTE: cuLaunchKernel's kernelParams
