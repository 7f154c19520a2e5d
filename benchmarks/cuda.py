"""lazyinfini's cuda device against torch.compile and CuPy on one NVIDIA GPU, in one run (#14).

    python benchmarks/cuda.py            # the workloads of issue 14 (an H100: a few minutes)
    python benchmarks/cuda.py --smoke    # tiny sizes on the emulated device (no GPU needed):
                                         # checks this script runs, measures nothing useful
    python benchmarks/cuda.py --host     # lazyinfini's own host path per cached program, on a
                                         # backend whose kernels do nothing (no GPU needed)

Each figure is the median wall time of one synchronized call, measured side by side in this
process: lazyinfini's includes recording, the cached schedule and the launch (its result stays
on the GPU), as a user's loop pays. Beside it, two GPU figures, so host cost and kernel time
read apart: "loop", the time per call of calls made back to back (CUDA events around 10: the
host runs ahead where its work is shorter than the kernels', so a kernel-bound row reads its
kernels' time and a host-bound row its host time), and "kernels", the kernels' own time per
call (CUPTI, through torch.profiler, where torch is installed). GB/s counts bytes read +
written once; the percentage is of the GPU's copy bandwidth, measured here the same way (a
device-to-device copy).
Every peer's result is checked against lazyinfini's once before timing; a peer that is not
installed is left out of its row (and said so).
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time

import ml_dtypes
import numpy as np

import lazyinfini as li

# NOTE: run as a script, this folder is sys.path[0], and this file would then be the `cuda`
# module that CuPy imports (cuda-bindings): CuPy fails to import and no GPU is found.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

WORKLOADS = (  # (name, what, shape, dtype): the anchors of issue 14
    ("clip(a - b) 64M f32", "clip_sub", (1 << 26,), np.float32),
    ("clip(a - b) 256M f32", "clip_sub", (1 << 28,), np.float32),
    ("clip(a - b) 64M f16", "clip_sub", (1 << 26,), np.float16),
    ("clip(a - b) 64M bf16", "clip_sub", (1 << 26,), ml_dtypes.bfloat16),
    ("(32,64,56,56)-(1,64,1,1) clip f32", "channel_clip", (32, 64, 56, 56), np.float32),
    ("clip(aT - b) 8192^2 f32", "clip_transposed_sub", (8192, 8192), np.float32),
    ("transpose 8192^2 f32", "transpose", (8192, 8192), np.float32),
    ("NCHW -> NHWC (8,3,1024,1024) u8", "nhwc", (8, 3, 1024, 1024), np.uint8),
)
SMOKE = {(1 << 26,): (4096,), (1 << 28,): (8192,), (8192, 8192): (48, 40)}
SMOKE[(32, 64, 56, 56)] = (2, 64, 3, 5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, the emulated device")
    parser.add_argument("--host", action="store_true", help="the host path, a null backend")
    args = parser.parse_args()
    if args.host:
        host_path()
        return
    bench = Bench.emulated() if args.smoke else Bench.on_gpu()
    if bench is None:
        print("no NVIDIA GPU with CuPy here: nothing to measure (--smoke checks the script)")
        return
    print(f"{bench.label}; copy bandwidth {bench.bandwidth / 1e9:.0f} GB/s")
    try:
        for name, what, shape, dtype in WORKLOADS:
            if args.smoke:
                shape = SMOKE.get(shape, (2, 3, 16, 24))
            bench.row(name, what, shape, np.dtype(dtype))
        bench.small_program()
    finally:
        bench.close()


class Bench:
    """The device, how to wait for it, and the peers found (torch.compile, CuPy's kernels)."""

    def __init__(self, device: str, sync, to_device, peers: dict, label: str, repeat: int):
        self.device, self.sync, self.to_device = device, sync, to_device
        self.peers, self.label, self.repeat = peers, label, repeat
        self.event = None  # () -> a CUDA event (CuPy's), to time the GPU apart from the host

    @classmethod
    def on_gpu(cls):
        try:
            device = li.__array_namespace_info__().devices()
            gpu = next(d for d in device if d.name == "cuda:0")
        except StopIteration:
            return None
        import cupy

        peers = {"cupy": cupy}
        try:
            import torch

            peers["torch"] = torch
        except ImportError:
            pass
        label = f"{cupy.cuda.runtime.getDeviceProperties(0)['name']}"
        bench = cls(gpu.name, cupy.cuda.Device(0).synchronize, cupy.asarray, peers, label, 20)
        bench.event = cupy.cuda.Event
        return bench

    @classmethod
    def emulated(cls):
        sys.path.insert(0, ".")  # NOTE: the emulator is test code (tests/cuda/emulator.py)
        from tests.cuda.emulator import EmulatedBackend, registered

        backend = EmulatedBackend()
        held = registered(backend)  # NOTE: registered for the whole run (see close)
        device = held.__enter__()
        bench = cls(device.name, lambda: None, backend.from_host, {}, "emulated (smoke)", 2)
        bench.held = held
        return bench

    held = None  # the emulated device's registration, undone by close()

    def close(self) -> None:
        if self.held is not None:
            self.held.__exit__(None, None, None)

    @functools.cached_property
    def bandwidth(self) -> float:
        """The GPU's device-to-device copy (CuPy's, by CUDA events; bytes read + written), the
        machine's bar; on the emulated device lazyinfini's own copy, a stand-in."""
        n = 1 << 26 if self.repeat > 2 else 1 << 10
        if self.event is None:
            x = li.asarray(np.ones(n, np.float32), device=self.device)
            return 2 * x.size * 4 / self._median(lambda: li.asarray(x, copy=True).compute())
        import cupy

        x = cupy.ones(1 << 28, cupy.float32)
        y = cupy.empty_like(x)
        return 2 * x.nbytes / self._gpu_median(lambda: cupy.copyto(y, x))

    def _median(self, fn) -> float:
        fn()
        self.sync()
        times = []
        for _ in range(self.repeat):
            started = time.perf_counter()
            fn()
            self.sync()
            times.append(time.perf_counter() - started)
        return statistics.median(times)

    def _gpu_median(self, fn, calls: int = 10) -> float | None:
        """The GPU's time per call of `fn` called back to back (CUDA events recorded before the
        first call and after the last on the stream), a median of rounds; None where no GPU
        is timed (the emulated device)."""
        if self.event is None:
            return None
        import cupy

        times = []
        for _ in range(max(self.repeat // 4, 1)):
            self.sync()
            start, end = self.event(), self.event()
            start.record()
            for _ in range(calls):
                fn()
            end.record()
            end.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, end) / 1e3 / calls)
        return statistics.median(times)

    def _kernel_time(self, fn, calls: int = 5) -> float | None:
        """The GPU kernels' (and copies') own time per call of `fn`: CUPTI's records through
        torch.profiler, every kernel of the process (CuPy's and ours too). None without torch
        or a GPU, or where the profiler fails (said once)."""
        torch = self.peers.get("torch")
        if torch is None or self.event is None or self.profiler_failed:
            return None
        try:
            from torch.autograd import DeviceType
            from torch.profiler import ProfilerActivity, profile

            self.sync()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(calls):
                    fn()
                self.sync()
            on_gpu = [e for e in prof.events() if e.device_type == DeviceType.CUDA]
            return sum(e.time_range.elapsed_us() for e in on_gpu) / 1e6 / calls
        except Exception as exc:  # NOTE: a profiler of another torch: the column left out
            print(f"  kernel times (torch.profiler) unavailable: {exc!r}")
            self.profiler_failed = True
            return None

    profiler_failed = False

    def row(self, name: str, what: str, shape: tuple, dtype: np.dtype) -> None:
        rng = np.random.default_rng(0)
        a = rng.standard_normal(shape, dtype=np.float32).astype(dtype)
        b = rng.standard_normal(B_SHAPE.get(what, lambda s: s)(shape))
        b = b.astype(np.float32).astype(dtype)
        la, lb = li.asarray(a, device=self.device), li.asarray(b, device=self.device)
        ours = LAZY[what](la, lb)
        expected = np.asarray(ours()).astype(np.float64)  # NOTE: bfloat16 compared widened
        fns = {"lazyinfini": lambda: ours().compute()}
        for peer, make in PEERS.get(what, {}).items():
            module = self.peers.get(peer.split()[0].split(".")[0])
            if module is None or (peer == "cupy" and dtype == ml_dtypes.bfloat16):
                continue  # NOTE: not installed; CuPy has no bfloat16
            try:
                fn = make(module, a, b)
                agrees = np.array_equal(_host(fn()).astype(np.float64), expected, equal_nan=True)
            except Exception as exc:  # NOTE: a peer's failure leaves its cell out, not the run
                print(f"  {peer} failed on {name}: {exc!r}: left out")
                continue
            if agrees:
                fns[peer] = fn
            else:
                print(f"  {peer} disagrees with lazyinfini on {name}: left out")
        times = {peer: self._median(fn) for peer, fn in fns.items()}
        gpu = {peer: (self._gpu_median(fn), self._kernel_time(fn)) for peer, fn in fns.items()}
        nbytes = expected.size * dtype.itemsize  # NOTE: expected is widened
        nbytes += sum(x.nbytes for x in (a, b) if what.startswith("clip"))
        nbytes += 0 if what.startswith("clip") else a.nbytes
        self._print(name, nbytes, times, gpu)

    def _print(self, name: str, nbytes: int, times: dict, gpu: dict) -> None:
        ours, ours_gpu = times.pop("lazyinfini"), _gpu_text(*gpu.pop("lazyinfini"))
        rate = nbytes / ours

        def figure(k, wall):
            return f"{k} {wall * 1e3:.3f} ms{_gpu_text(*gpu[k], ', ', '')} (x{ours / wall:.2f})"

        peers = "  ".join(figure(k, v) for k, v in times.items())
        print(
            f"{name:<34} lazyinfini {ours * 1e3:8.3f} ms{ours_gpu} {rate / 1e9:7.1f} GB/s "
            f"({100 * rate / self.bandwidth:3.0f}%)  {peers or 'no peer installed'}",
            flush=True,
        )

    def small_program(self) -> None:
        """Host time of a cached small program (1K clip(a - b), the result kept on the GPU)."""
        la = li.asarray(np.ones(1024, np.float32), device=self.device)
        lb = li.asarray(np.zeros(1024, np.float32), device=self.device)
        seconds = self._median(lambda: li.clip(la - lb, 0.0, 1.0).compute())
        print(f"cached 1K clip(a - b), host time {seconds * 1e6:.1f} us (target <= 30 us)")


def _gpu_text(loop, kernels, opening: str = " (", closing: str = ")") -> str:
    """A row's GPU figures in ms: per call back to back, and the kernels' own ("" if none)."""
    parts = [f"loop {loop * 1e3:.3f}"] if loop is not None else []
    parts += [f"kernels {kernels * 1e3:.3f}"] if kernels is not None else []
    return f"{opening}{', '.join(parts)}{closing}" if parts else ""


def host_path(repeat: int = 2000) -> None:
    """lazyinfini's host time per cached materialization of the 1K clip(a - b) program on a
    null backend (tests/cuda/emulator.py: kernels that do nothing), beside the cpu device's
    whole cached run of it (kernel included), in one run: medians of 7 loops of `repeat`."""
    sys.path.insert(0, ".")  # NOTE: the emulator is test code
    from tests.cuda.emulator import NullBackend, registered

    a, b = np.ones(1024, np.float32), np.zeros(1024, np.float32)
    rows = {}
    with registered(NullBackend(), "cuda-null") as device:
        la, lb = li.asarray(a, device=device), li.asarray(b, device=device)
        rows["null backend (host path)"] = _loop(
            lambda: li.clip(la - lb, 0.0, 1.0).compute(), repeat
        )
    ha, hb = li.asarray(a), li.asarray(b)
    rows["cpu device (whole run)"] = _loop(lambda: li.clip(ha - hb, 0.0, 1.0).compute(), repeat)
    rows["recording clip(a - b) alone"] = _loop(lambda: li.clip(ha - hb, 0.0, 1.0), repeat)
    for name, seconds in rows.items():
        print(f"cached 1K clip(a - b), {name:<28} {seconds * 1e6:6.1f} us")


def _loop(fn, repeat: int) -> float:
    for _ in range(repeat // 4):
        fn()
    times = []
    for _ in range(7):
        started = time.perf_counter()
        for _ in range(repeat):
            fn()
        times.append((time.perf_counter() - started) / repeat)
    return statistics.median(times)


def _host(value) -> np.ndarray:
    if hasattr(value, "get"):  # NOTE: CuPy
        return value.get()
    if hasattr(value, "cpu"):  # NOTE: torch (bfloat16 has no numpy form there: widened)
        return value.float().cpu().numpy() if value.dtype == _torch_bf16() else value.cpu().numpy()
    return np.asarray(value)


def _torch_bf16():
    import torch

    return torch.bfloat16


LAZY = {
    "clip_sub": lambda a, b: lambda: li.clip(a - b, -0.5, 0.5),
    "clip_transposed_sub": lambda a, b: lambda: li.clip(li.permute_dims(a, (1, 0)) - b, -0.5, 0.5),
    "transpose": lambda a, b: lambda: li.permute_dims(a, (1, 0)),
    "nhwc": lambda a, b: lambda: li.permute_dims(a, (0, 2, 3, 1)),
    "channel_clip": lambda a, b: lambda: li.clip(a - b, -0.5, 0.5),
}
B_SHAPE = {  # b's shape from a's, where it differs
    "clip_transposed_sub": lambda shape: shape[::-1],
    "channel_clip": lambda shape: (1, shape[1], 1, 1),
}


def _on_torch(torch, x):
    """A host array as a torch tensor on the GPU (bfloat16 through float32: numpy has none)."""
    if x.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(x.astype(np.float32)).cuda().to(torch.bfloat16)
    return torch.from_numpy(x).cuda()


def _torch(fn, compiled: bool):
    def make(torch, a, b):
        run = torch.compile(fn) if compiled else fn
        ta, tb = _on_torch(torch, a), _on_torch(torch, b)
        return lambda: run(ta, tb)

    return make


def _torch_pair(fn) -> dict:
    return {"torch.compile": _torch(fn, True), "torch eager": _torch(fn, False)}


def _cupy_clip(cupy, a, b):
    kernel = cupy.ElementwiseKernel(
        "T a, T b", "T y", "T d = a - b; y = d != d ? d : min(max(d, (T)-0.5), (T)0.5)", "clip_sub"
    )
    ca, cb = cupy.asarray(a), cupy.asarray(b)
    return lambda: kernel(ca, cb)


def _clip(a, b):
    return (a - b).clamp(-0.5, 0.5)


PEERS = {  # what -> {peer: make(module, a, b) -> a call}; its module: the name's first word
    "clip_sub": {**_torch_pair(_clip), "cupy": _cupy_clip},
    "channel_clip": {**_torch_pair(_clip), "cupy": _cupy_clip},
    "clip_transposed_sub": _torch_pair(lambda a, b: (a.T - b).clamp(-0.5, 0.5)),
    "transpose": _torch_pair(lambda a, b: a.T.contiguous()),
    "nhwc": _torch_pair(lambda a, b: a.permute(0, 2, 3, 1).contiguous()),
}


if __name__ == "__main__":
    main()
