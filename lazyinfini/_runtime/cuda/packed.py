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
    """The arguments of one Launch (cuda.Launch): constants written now, a slot per operand
    (a pointer, or a by-value fill's bits) written by `bind`."""

    __slots__ = ("params", "pointers", "fills", "slots", "bits", "_all")

    def __init__(self, launch: cuda.Launch):
        slots, pointers, fills = [], [], []
        for param in launch.params:
            if param.pointer:
                slot = ctypes.c_void_p()
                pointers.append((param.operand, slot))
            elif param.by_value:
                dtype = np.dtype(cuda.MEMORY_TYPES[param.ctype])
                slot = _BITS[dtype.itemsize]()
                fills.append((param.operand, slot, np.dtype(f"u{dtype.itemsize}")))
            else:
                slot = _VALUES[param.ctype](param.value)
            slots.append(slot)
        # NOTE: kept alive: `params` points into them. Operand k's slot, and a by-value
        # operand's unsigned dtype of its bits, for a launch list (kernels.py) writing them
        self.slots = {operand: slot for operand, slot in pointers}
        self.slots |= {operand: slot for operand, slot, _ in fills}
        self.bits = {operand: bits for operand, _, bits in fills}
        self._all = slots
        self.params = (ctypes.c_void_p * max(1, len(slots)))(*(ctypes.addressof(s) for s in slots))
        self.pointers, self.fills = tuple(pointers), tuple(fills)

    def bind(self, addresses: list[int], values: dict) -> None:
        """Write operand k's address (`addresses[k]`, outputs then loads), or for a by-value
        operand its host value `values[k]` (a 0-d array of its dtype), into its slot."""
        for k, slot in self.pointers:
            slot.value = addresses[k]
        for k, slot, bits in self.fills:
            slot.value = int(values[k].view(bits))  # NOTE: a 0-d host array of its dtype

    @property
    def address(self) -> int:
        """The kernelParams array's address, for cuLaunchKernel."""
        return ctypes.addressof(self.params)
