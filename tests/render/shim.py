"""Rendered CUDA kernels compiled by the host g++ and run on the CPU, launched as a GPU would.

A small header stands in for the CUDA runtime: `__global__`/`__device__` vanish, `__shared__`
is `static` (the blocks of a launch run one after another, so a function's statics are one
block's shared memory), `threadIdx`/`blockIdx` are thread_local, `blockDim`/`gridDim` globals.
A kernel without a barrier runs its threads one after another; one with `__syncthreads()` runs
the threads of a block as std::threads meeting at a barrier (which gives up after 10 s and
marks the launch failed instead of hanging). `__byte_perm` (PRMT) has a C++ twin; the PTX
float16 conversions are replaced by C++ `_Float16` casts (round to nearest even, one rounding
from double: the same results); every other line is the rendered kernel's. CUDA's math library
is not here: the functions C borrows from numpy run glibc's, so those ops are checked within
ulps, not bit for bit. A launch whose vector accesses would be misaligned (Launch.fits) is
refused: x86 forgives them, a GPU faults.
"""

from __future__ import annotations

import atexit
import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile

import numpy as np

from lazyinfini._render import cuda
from lazyinfini._runtime.cuda.packed import Packed

COMPILER = shutil.which(os.environ.get("CXX", "g++"))

HEADER = r"""
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>
#define LI_HOST 1
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __restrict__ __restrict
struct li_dim3 { unsigned int x, y, z; };
static thread_local li_dim3 threadIdx, blockIdx;
static li_dim3 blockDim, gridDim;
static int li_failed_flag = 0;
extern "C" int li_failed(void) { return li_failed_flag; }
struct li_barrier_t {
    std::mutex m; std::condition_variable cv; unsigned count = 0, total = 0, generation = 0;
    void wait() {
        std::unique_lock<std::mutex> lock(m);
        unsigned gen = generation;
        if (++count == total) { count = 0; ++generation; cv.notify_all(); return; }
        if (!cv.wait_for(lock, std::chrono::seconds(10), [&] { return gen != generation; }))
            li_failed_flag = 1;
    }
};
static li_barrier_t li_barrier;
static inline void __syncthreads() { li_barrier.wait(); }
static inline float __uint_as_float(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t __float_as_uint(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
/* PRMT: byte n of the result is byte (s >> 4n) & 7 of the 8 bytes y:x (x the low word) */
static inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
    uint64_t both = ((uint64_t)y << 32) | x; unsigned int r = 0;
    for (int n = 0; n < 4; ++n)
        r |= (unsigned int)((both >> (8 * ((s >> (4 * n)) & 7))) & 0xff) << (8 * n);
    return r;
}
static inline float li_f16_load(uint16_t h) { _Float16 x; memcpy(&x, &h, 2); return (float)x; }
static inline uint16_t li_f16_store(float f) {
    _Float16 x = (_Float16)f; uint16_t h; memcpy(&h, &x, 2); return h;
}
static inline uint16_t li_f16_store_double(double d) {
    _Float16 x = (_Float16)d; uint16_t h; memcpy(&h, &x, 2); return h;
}
typedef void (*li_kernel)(void **);
static void li_launch(li_kernel kernel, void **args, unsigned grid, unsigned bx, unsigned by,
                      int barrier) {
    gridDim = {grid, 1, 1};
    blockDim = {bx, by, 1};
    li_failed_flag = 0;
    if (!barrier) {
        for (unsigned b = 0; b < grid; ++b)
            for (unsigned y = 0; y < by; ++y)
                for (unsigned x = 0; x < bx; ++x) {
                    blockIdx = {b, 0, 0};
                    threadIdx = {x, y, 0};
                    kernel(args);
                }
        return;
    }
    li_barrier.total = bx * by;
    std::vector<std::thread> threads;
    for (unsigned y = 0; y < by; ++y)
        for (unsigned x = 0; x < bx; ++x)
            threads.emplace_back([=] {
                threadIdx = {x, y, 0};
                for (unsigned b = 0; b < grid; ++b) {
                    blockIdx = {b, 0, 0};
                    kernel(args);
                    li_barrier.wait(); /* the block ends: the next one reuses its shared memory */
                }
            });
    for (auto &t : threads) t.join();
}
"""
FLAGS = ("-std=c++20", "-O0", "-shared", "-fPIC", "-pthread", "-ffp-contract=off", "-w")
_FOLDER = tempfile.mkdtemp(prefix="lazyinfini-shim-")


atexit.register(shutil.rmtree, _FOLDER, ignore_errors=True)


def build(rendered: list) -> ctypes.CDLL:
    """One shared library running every kernel of `rendered` (cuda.Rendered records)."""
    kernels = {r.launch.name: r for r in rendered}
    text = HEADER + cuda.unit(*(r.source for r in kernels.values()))
    text += "".join(_wrapper(ln) for r in kernels.values() for ln in r.launches)
    key = hashlib.sha256(text.encode()).hexdigest()[:20]
    target = os.path.join(_FOLDER, f"{key}.so")
    if not os.path.exists(target):
        source = os.path.join(_FOLDER, f"{key}.cpp")
        with open(source, "w") as handle:
            handle.write(text)
        done = subprocess.run(
            [COMPILER, *FLAGS, source, "-o", target], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr[-4000:]
    return ctypes.CDLL(target)


def _wrapper(launch) -> str:
    """`run_<name>(args, grid, bx, by, barrier)`: the kernel called with cuLaunchKernel's
    argument convention (an array of pointers to each argument)."""
    args = ", ".join(
        f"*({p.ctype}*)args[{i}]" if p.pointer else f"*(const {p.ctype} *)args[{i}]"
        for i, p in enumerate(launch.params)
    )
    name = launch.name
    return (
        f"static void call_{name}(void **args) {{ {name}({args}); }}\n"
        f'extern "C" void run_{name}(void **args, unsigned grid, unsigned bx, unsigned by, '
        f"int barrier) {{ li_launch(call_{name}, args, grid, bx, by, barrier); }}\n"
    )


def run(library: ctypes.CDLL, launch, operands: list) -> None:
    """Launch one kernel as the launch record says, with `operands` (outputs then loads: the
    addresses of their element [0, ..., 0], or numpy arrays; a by-value operand's host value)
    packed as a device packs them (the runtime's packed.Packed)."""
    packed = Packed(launch)
    values = {p.operand for p in launch.params if p.by_value}
    # NOTE: a by-value operand's element [0, ..., 0] as a 0-d array, as a device passes a fill
    filled = {k: np.asarray(operands[k]).reshape(-1)[:1].reshape(()) for k in values}
    bound = addresses(operands, values)
    for k, slot in packed.slots.items():  # NOTE: as kernels._Prepared.bind writes them
        slot.value = int(filled[k].view(packed.bits[k])) if k in packed.bits else bound[k]
    launch_packed(library, launch, packed)


def addresses(operands: list, values=()) -> list:
    """The address of each operand (a numpy array's data, or an address already), 0 for the
    by-value operands `values`."""
    return [
        (o.ctypes.data if isinstance(o, np.ndarray) else o) if k not in values else 0
        for k, o in enumerate(operands)
    ]


def run_chosen(library: ctypes.CDLL, rendered, operands: list):
    """Launch the launch of `rendered` a device takes for `operands`' addresses (its fallback
    where they do not fit the first: Rendered.chosen); the launch taken."""
    values = {p.operand for p in rendered.launch.params if p.by_value}
    launch = rendered.chosen(addresses(operands, values))
    run(library, launch, operands)
    return launch


def launch_packed(library: ctypes.CDLL, launch, packed) -> None:
    """Run a launch with its packed arguments (cuLaunchKernel's kernelParams: an array of
    pointers to each argument), as a GPU would."""
    (grid, _, _), (bx, by, _) = launch.grid, launch.block
    bound = {k: slot.value or 0 for k, slot in packed.pointers}
    # NOTE: x86 forgives a misaligned vector access; a GPU faults (misaligned address)
    assert launch.fits(bound), f"{launch}: an operand off its {launch.align}-byte boundary"
    function = getattr(library, f"run_{launch.name}")
    function.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_int]
    function(packed.address, grid, bx, by, int(launch.barrier))
    assert not library.li_failed(), f"{launch}: a barrier timed out (divergent __syncthreads)"
