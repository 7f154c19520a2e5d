"""Host time as instructions: callgrind's count per iteration of the small numpy scripts and of a
cached 1K clip(a - b), lazyinfini against numpy (issues #21 and #23).

    python benchmarks/instructions.py                 # every small script, both, and the clip
    python benchmarks/instructions.py kmeans,pca      # some scripts only
    python benchmarks/instructions.py --clip          # the cached clip(a - b) alone

Wall time on a shared 2-core VM moves by 1.5x within minutes; an instruction count moves by
less than 0.1 % from run to run, so a change of a few percent in the host path shows. Each
figure is the difference between a run of 1 and a run of 4 iterations after the same warm-up
(imports, compiles and first schedules cancel out), divided by 3. Needs valgrind; runs with
PYTHONHASHSEED=0 (dict layouts) and OPENBLAS_NUM_THREADS=1 (spinning BLAS threads moved
counts by up to 20 %). About a minute and a half a figure.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# The measured program: warm up, then `n` iterations of the chosen work (argv: n, what, names).
PROGRAM = r"""
import os, platform, sys, warnings
sys.path.insert(0, {root!r}); sys.path.insert(0, {here!r})
import numpy as np
import lazyinfini as li
from lazyinfini._realize.native import wait
from lazyinfini._render import compile as built
warnings.simplefilter("ignore")
if platform.machine() == "x86_64":  # NOTE: valgrind runs no AVX-512: -march=native dies (SIGILL)
    built.FLAGS = tuple("-march=x86-64-v3" if f == "-march=native" else f for f in built.FLAGS)
n, what, names = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
work = []
if what == "clip":
    a, b = li.asarray(np.ones(1024, np.float32)), li.asarray(np.zeros(1024, np.float32))
    work.append(lambda: li.clip(a - b, 0.0, 1.0).compute())
elif what == "numpy-clip":
    a, b = np.ones(1024, np.float32), np.zeros(1024, np.float32)
    work.append(lambda: np.clip(a - b, 0.0, 1.0))
else:
    import scripts
    for name, script, args in scripts.cases("small"):
        if names and name not in names:
            continue
        if what == "numpy":
            work.append(lambda s=script, a=args: s(*a))
        else:
            lazy = [scripts._lazy(x) for x in args]
            work.append(lambda s=script, a=lazy: scripts._materialized(s(*a)))
for _ in range(3):
    for fn in work:
        fn()
wait()  # NOTE: the cache's C scan, built in the background, is loaded before counting
for _ in range(n):
    for fn in work:
        fn()
"""


def count(what: str, names: list[str], iterations: int) -> int:
    """Instructions callgrind counts for a whole run of `iterations` iterations."""
    with tempfile.TemporaryDirectory() as folder:
        program = os.path.join(folder, "program.py")
        with open(program, "w") as handle:
            handle.write(PROGRAM.format(root=os.path.dirname(HERE), here=HERE))
        out = os.path.join(folder, "callgrind.out")
        env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1")
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable]
        command += [program, str(iterations), what, *names]
        subprocess.run(command, env=env, check=True, capture_output=True)
        with open(out) as handle:
            summary = re.search(r"^summary: (\d+)", handle.read(), re.MULTILINE)
        return int(summary.group(1))


def per_iteration(what: str, names: list[str]) -> float:
    return (count(what, names, 4) - count(what, names, 1)) / 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("scripts", nargs="?", default="", help="comma-separated script names")
    parser.add_argument("--clip", action="store_true", help="only the cached 1K clip(a - b)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed: no instruction counts")
    names = [n for n in args.scripts.split(",") if n]
    rows = [("cached 1K clip(a - b)", "clip", "numpy-clip")]
    if not args.clip:
        label = ", ".join(names) if names else "every small script"
        rows.insert(0, (f"{label}, one iteration", "lazy", "numpy"))
    for label, ours, theirs in rows:
        mine, numpys = per_iteration(ours, names), per_iteration(theirs, names)
        print(f"{label}: lazyinfini {mine / 1e3:,.0f}k instructions, numpy {numpys / 1e3:,.0f}k"
              f" ({mine / numpys:.1f}x)", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
