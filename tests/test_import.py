"""`import lazyinfini` stays cheap: the heavy modules load at first use."""

from __future__ import annotations

import subprocess
import sys


def test_import_does_not_load_networkx_or_array_api_compat():
    code = (
        "import sys, lazyinfini as li\n"
        "print(sorted(m for m in ('networkx', 'array_api_compat.numpy') if m in sys.modules))\n"
        "x = li.asarray([3.0, 1.0, 2.0])\n"
        "print(float(li.sum(li.sort(x) * 2)), 'networkx' in sys.modules)\n"
        "print(li.graph(x * 2).number_of_nodes(), 'networkx' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # NOTE: the scheduler reads its own Dag: networkx loads for li.graph (and to_dot) only
    assert done.stdout.splitlines() == ["[]", "12.0 False", "3 True"]
