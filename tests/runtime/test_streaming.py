"""Streaming stores: an elementwise kernel moving the Target's stream_min_bytes or more writes
its outputs with non-temporal stores (the plan says so, explain() prints it), and its bits are
the reference device's whatever the shape, strides, dtypes and threads."""

from __future__ import annotations

import platform
import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini._device import DEVICES
from lazyinfini._render import c, elementwise
from lazyinfini._render.compile import compiler
from lazyinfini._runtime.c_compiling import C_KERNELS
from lazyinfini._runtime.machine import last_level_cache
from lazyinfini._schedule import Kind
from tests.conftest import cpu_variant
from tests.runtime.test_compiled import (
    FLOAT_OPS,
    INT_OPS,
    OPS,
    drawn_program,
    layout,
    same,
    values,
)

LEAST = 4096  # bytes: the streaming device's threshold, so small arrays straddle it

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")


@pytest.fixture(scope="module")
def streaming():
    """The cpu device compiling every elementwise kernel, streaming where a kernel moves LEAST
    bytes or more."""
    yield from cpu_variant("cpu-streaming", compile_min=0, stream_min_bytes=LEAST)


def elementwise_kernels(y) -> list:
    return [k for k in li.inspect.schedule(y).kernels if k.kind is Kind.ELEMENTWISE]


def test_the_cpu_streams_kernels_moving_more_than_its_last_level_cache():
    assert DEVICES["cpu"].target.stream_min_bytes == last_level_cache() > 0
    n = last_level_cache() // 8 + 16  # float32 elements read and written: just past the cache
    a = li.asarray(np.ones(n, np.float32))
    (big,) = elementwise_kernels(li.clip(a - 0.5, 0, 1))
    (small,) = elementwise_kernels(li.clip(a[:-32] - 0.5, 0, 1))
    assert big.bytes_read + big.bytes_written >= last_level_cache()
    assert big.streams and not small.streams
    text = li.explain(li.clip(a - 0.5, 0, 1))
    assert "path compiled C, streaming stores (moving " in text
    assert "streaming stores" not in li.explain(li.clip(a[:-32] - 0.5, 0, 1))
    with li.options(device="numpy"):  # NOTE: a device that never streams plans no streaming
        assert not elementwise_kernels(li.clip(a - 0.5, 0, 1))[0].streams


def test_a_streaming_kernel_writes_its_blocks_with_non_temporal_stores_and_fences(streaming):
    x = li.asarray(np.arange(LEAST, dtype=np.float32))
    with li.options(device=streaming):
        (kernel,) = elementwise_kernels(li.clip(x - 1, 0, 9))
        (plain,) = elementwise_kernels(li.clip(x[:100] - 1, 0, 9))
    assert kernel.streams and not plain.streams
    source = C_KERNELS.calls(kernel)[0].source
    assert "li_stream(q[0]" in source and "li_stream_fence();" in source
    assert "li_stream" not in C_KERNELS.calls(plain)[0].source


@settings(max_examples=60, deadline=None)
@given(
    dtype=st.sampled_from(
        [np.float32, np.float64, np.float16, ml_dtypes.bfloat16, np.int8, np.int64, np.uint16]
    ),
    steps=st.lists(
        st.sampled_from(sorted(OPS) + sorted(FLOAT_OPS) + sorted(INT_OPS)), min_size=1, max_size=3
    ),
    how=st.sampled_from(["contiguous", "transposed", "reversed"]),
    rows=st.integers(1, 70),
    cols=st.integers(1, 300),
    broadcast=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_streamed_kernels_match_the_reference(
    streaming, dtype, steps, how, rows, cols, broadcast, seed
):
    """Sizes straddle LEAST; odd row lengths put every row's start off a cache line (the
    unaligned head and tail of each block)."""
    rng = np.random.default_rng(seed)
    x = layout(values(dtype, rng, (rows, cols)), how)
    y = values(dtype, rng, (cols,) if broadcast else (rows, cols))
    program = drawn_program(steps, dtype, how)
    with li.options(device="reference"):
        want = np.asarray(program(li.asarray(x), li.asarray(y)))
    with li.options(device=streaming):
        lazy = program(li.asarray(x), li.asarray(y))
        kernels = elementwise_kernels(lazy)
        got = np.asarray(lazy)
    assert all(k.streams == (k.bytes_read + k.bytes_written >= LEAST) for k in kernels)
    same(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16, np.bool_])
def test_large_threaded_streamed_kernels_and_several_outputs_match_numpy(streaming, dtype):
    """Threads split the walk at any element (a part starts off a cache line); two outputs of
    one kernel stream each; a bool output is one byte an element."""
    rng = np.random.default_rng(7)
    n = (1 << 19) + 37  # NOTE: past C_PARALLEL_MIN: the C pool's parts
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)

    def program():
        if dtype == np.bool_:
            x, y = li.asarray(a), li.asarray(b)
            return x < y, x >= y
        x, y = li.asarray(a.astype(dtype)), li.asarray(b.astype(dtype))
        return li.clip(x - y, -0.5, 0.5), x + y

    with li.options(device="reference"):
        want = li.compute(*program())
    with li.options(device=streaming):
        outputs = program()
        (kernel,) = [k for k in li.inspect.schedule(*outputs).kernels if k.kind is Kind.ELEMENTWISE]
        got = li.compute(*outputs)
    assert kernel.streams and len(kernel.outputs) == 2
    for value, expected in zip(got, want):
        same(np.asarray(value), np.asarray(expected))


def test_a_streamed_kernel_reading_a_transposed_load_in_tiles_matches_numpy(streaming):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((300, 260)).astype(np.float32)
    b = rng.standard_normal((260, 300)).astype(np.float32)
    with li.options(device=streaming):
        lazy = li.clip(li.permute_dims(li.asarray(a), (1, 0)) - li.asarray(b), -0.5, 0.5)
        (kernel,) = elementwise_kernels(lazy)
        assert "in tiles" in li.explain(lazy) and "streaming stores" in li.explain(lazy)
        got = np.asarray(lazy)
    assert kernel.streams and any("LI_ROWS" in call.source for call in C_KERNELS.calls(kernel))
    same(got, np.clip(a.T - b, np.float32(-0.5), np.float32(0.5)))


# Every (destination offset, length) of a byte copy through li_stream: the bytes land, nothing
# else changes, whatever the alignment of the head and the tail.
_HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    char *src = malloc(4096), *dst = malloc(4096);
    long bad = 0;
    for (int i = 0; i < 4096; i++) src[i] = (char)(i * 7 + 1);
    for (int off = 0; off < 70; off++) {
        for (int len = 0; len < 300; len += 7) {
            memset(dst, 0, 4096);
            li_stream(dst + off, src + 3, len);
            li_stream_fence();
            for (int i = 0; i < 4096; i++)
                bad += dst[i] != (i >= off && i < off + len ? src[3 + i - off] : 0);
        }
    }
    printf("%ld\n", bad);
    return 0;
}
"""


@pytest.mark.skipif(
    shutil.which("gcc") is None or platform.machine() not in ("x86_64", "AMD64"),
    reason="gcc on x86 (the flags choose the x86 branches)",
)
@pytest.mark.parametrize(
    "flags",
    [["-march=native"], ["-mno-avx"], ["-U__AVX__", "-U__SSE2__", "-U__F16C__"]],
)
def test_streaming_stores_are_right_on_every_branch(streaming, flags, tmp_path):
    """The prelude's stores take AVX, SSE2 or (any other target: gcc on ARM, here with the x86
    macros undefined) plain stores and a full fence: a streaming kernel compiles on each
    branch, and li_stream copies bytes exactly from every alignment."""
    x = li.asarray(np.arange(LEAST, dtype=np.float32))
    with li.options(device=streaming):
        (kernel,) = elementwise_kernels(li.clip(x - 1, 0, 9))
    kinds = (c.CONTIGUOUS, c.CONTIGUOUS, c.BROADCAST, c.BROADCAST, c.BROADCAST)
    source = tmp_path / "k.c"
    source.write_text(c.PRELUDE + elementwise.render(kernel, "li_k", kinds) + _HARNESS)
    strict = "-Werror=implicit-function-declaration"
    built = subprocess.run(
        ["gcc", "-O2", "-o", tmp_path / "k", strict, *flags, source, "-lm"],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([tmp_path / "k"], capture_output=True, text=True)
    assert ran.returncode == 0 and ran.stdout.split() == ["0"]
    if shutil.which("objdump"):  # NOTE: the x86 branches store with movntdq, the other plainly
        code = subprocess.run(["objdump", "-d", tmp_path / "k"], capture_output=True, text=True)
        assert ("movnt" in code.stdout) == ("-U__SSE2__" not in flags)


def test_the_bandwidth_bar_is_streams_copy_and_add_with_streaming_stores():
    """GB/s figures are shares of STREAM's best kernel; its add writes a + b bit for bit, also
    from and to addresses off a cache line (the parts' unaligned heads and tails)."""
    from lazyinfini._runtime import machine

    rng = np.random.default_rng(5)
    a, b = (rng.standard_normal(100_003).astype(np.float32)[1:] for _ in range(2))
    c = np.zeros_like(a)
    measured = machine._stream_kernels(a, b, c)
    assert set(measured) == {"copy", "add"}
    assert measured["add"][0] == 3 * c.nbytes and measured["copy"][0] == 2 * c.nbytes
    assert np.array_equal(c, a + b)
    rates = machine.stream_bandwidth()
    assert set(rates) == {"copy", "add"} and min(rates.values()) > 0
    assert machine.copy_bandwidth() == max(rates.values())


def test_the_last_level_cache_comes_from_sysconf_else_sysfs_else_a_constant(monkeypatch, tmp_path):
    from lazyinfini._runtime import machine

    def no_sysconf(name):
        raise ValueError(name)

    size = tmp_path / "size"
    size.write_text("16384K\n")
    monkeypatch.setattr(machine.os, "sysconf", no_sysconf)
    monkeypatch.setattr(machine, "_SYSFS_LLC", str(size))
    machine.last_level_cache.cache_clear()
    try:
        assert machine.last_level_cache() == 16 << 20
        machine.last_level_cache.cache_clear()
        monkeypatch.setattr(machine, "_SYSFS_LLC", str(tmp_path / "absent"))
        assert machine.last_level_cache() == machine.FALLBACK_LLC
    finally:
        machine.last_level_cache.cache_clear()


def test_the_last_level_cache_counted_is_at_most_a_share_per_cpu(monkeypatch):
    from lazyinfini._runtime import machine

    # NOTE: a 2-vCPU VM told its host's 300 MiB L3 (this project's CI machine)
    monkeypatch.setattr(machine.os, "sysconf", lambda name: 300 << 20)
    monkeypatch.setattr(machine, "_cpus", lambda: 2)
    machine.last_level_cache.cache_clear()
    try:
        assert machine.last_level_cache() == 2 * machine.PER_CPU_MAX == 64 << 20
        monkeypatch.setattr(machine.os, "sysconf", lambda name: 8 << 20)  # a laptop's
        machine.last_level_cache.cache_clear()
        assert machine.last_level_cache() == 8 << 20
    finally:
        machine.last_level_cache.cache_clear()
