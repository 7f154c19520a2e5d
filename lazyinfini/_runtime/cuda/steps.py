"""A prepared launch as one generated Python function: a cached program's launch list calls it.

What `_Prepared.bind` does in loops over its slots (allocate the outputs, write each operand's
address and each fill's bits into the packed arguments, pick the fallback where an address is
off the launch's alignment, launch) is written out here as straight-line code, once per kernel
record: a small program's run is mostly this bookkeeping, as the cpu device's steps are
(fused.whole_step). The run loop keeps `_Prepared.bind` (a kernel launched by its handler).
"""

from __future__ import annotations

from ..._graph import fill_value
from .calls import HOST_FILL


def launch_step(ready, kernels):
    """`ready` (a kernels._Prepared without copies) as `step(values)`, returning its outputs."""
    backend = kernels.backend
    env = {
        "empty": backend.empty,
        "address": backend.address,
        "launch": backend.launch,
        "value_of": kernels.value_of,
        "bits_of": fill_bits,
        "misread": misread,
        "F": ready.function,
        "L": ready.launch,
        "P": ready.packed,
        "FALLBACK": ready.fallback,
    }
    lines = ["def step(values):"]
    lines += _outputs(ready, env)
    lines += _buffers(ready, env)
    lines += _fills(ready, env)
    lines += _launch(ready, env)
    outs = ", ".join(f"o{j}" for j in range(len(ready.outputs)))
    lines.append(f"    return [{outs}]")
    exec(compile("\n".join(lines), "<lazyinfini launch step>", "exec"), env)
    return env["step"]


def _outputs(ready, env: dict) -> list[str]:
    lines = []
    for j, ((shape, dtype), slot) in enumerate(zip(ready.outputs, ready.out_slots)):
        env[f"S{j}"], env[f"D{j}"], env[f"O{j}"] = shape, dtype, slot
        lines += [f"    o{j} = empty(S{j}, D{j})", f"    O{j}.value = address(o{j})"]
    return lines


def _buffers(ready, env: dict) -> list[str]:
    lines = []
    for i, (slot, node, offset, strides) in enumerate(ready.buffers):
        env[f"B{i}"], env[f"N{i}"], env[f"T{i}"] = slot, node, strides
        lines += [f"    b{i} = values.get(N{i})", f"    if b{i} is None:"]
        lines.append(f"        b{i} = value_of(values, N{i})")
        if strides is not None:  # NOTE: as bind checks: a buffer read by other strides is wrong
            lines.append(f"    if b{i}.strides != T{i} and b{i}.size > 1:")
            lines.append(f"        misread(N{i}, b{i})")
        plus = f" + {offset}" if offset else ""
        lines.append(f"    B{i}.value = address(b{i}){plus}")
    return lines


def _fills(ready, env: dict) -> list[str]:
    lines = []
    for i, (slot, node, bits, own) in enumerate(ready.fills):
        env[f"V{i}"], env[f"M{i}"], env[f"U{i}"], env[f"W{i}"] = slot, node, bits, own
        bound = f"bits_of(values, M{i}, U{i})"  # NOTE: bound where it differs from its own
        lines.append(f"    V{i}.value = W{i} if values.get(M{i}) is None else {bound}")
    return lines


def _launch(ready, env: dict) -> list[str]:
    if ready.fallback is None or not ready.aligned:
        return ["    launch(F, L, P)"]
    env["ALIGN"] = ready.launch.align
    env.update({f"A{k}": slot for k, slot in enumerate(ready.aligned)})
    off = " or ".join(f"A{k}.value % ALIGN" for k in range(len(ready.aligned)))
    return [
        f"    if {off}:",
        "        launch(*FALLBACK, P)",
        "    else:",
        "        launch(F, L, P)",
    ]


def fill_bits(values, node, bits) -> int:
    """A fill's value bound for this run, as the unsigned integer of its bits: its host value,
    kept beside it where another kernel of the run reads it copied to the device."""
    kept = values.get((node, HOST_FILL))
    return int((kept if kept is not None else fill_value(values, node)).view(bits))


def misread(node, base) -> None:
    """A bound buffer laid out otherwise than the launch assumes: it would be read wrong."""
    raise RuntimeError(f"lazyinfini: internal error: {node} read as {base.strides}")
