"""The layering docs/architecture.md describes, checked from the source (a small import-graph
reader over `ast`, no third-party tool): no import cycle below the API, devices see only the
scheduler's frozen records, options know the device registry and no backend, and every op and
kernel kind has a row in every registered device's tables."""

from __future__ import annotations

import ast
import pathlib
import re

import networkx as nx
import pytest

import lazyinfini as li
from lazyinfini._device import DEVICES
from lazyinfini._graph import Op
from lazyinfini._runtime.ufuncs import UFUNCS
from lazyinfini._schedule import Kind

PACKAGE = pathlib.Path(li.__file__).parent
# Names a device may import from the scheduler: frozen records, nothing that plans.
RECORDS = {
    "Kind",
    "Kernel",
    "Schedule",
    "Target",
    "RearrangePlan",
    "Load",
    "Program",
    "Step",
    "Reduction",
}


def modules() -> dict[str, pathlib.Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports(name: str, path: pathlib.Path):
    """(module imported, names taken from it) for every relative import of `name`."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
            target = ".".join([*[p for p in base if p], *([node.module] if node.module else [])])
            yield target, [alias.name for alias in node.names]


def import_graph() -> nx.DiGraph:
    known = modules()
    graph = nx.DiGraph()
    for name, path in known.items():
        for target, names in imports(name, path):
            for item in names:
                full = f"{target}.{item}".strip(".")
                graph.add_edge(name, full if full in known else target)
    return graph


UPPER = ("_api", "_array", "inspect", "_see", "linalg", "fft", "_numpy", "_methods")


def test_nothing_below_the_array_imports_the_array_the_api_or_the_reader():
    """The run side (the graph, the scheduler, realize, the runtime, the renderers, options,
    devices) never imports the Array, the API, inspect or the package itself: no exemption."""
    graph = import_graph()
    for name in graph:
        if not name or name.startswith(UPPER) or name in ("__init__",):
            continue
        for target in graph.successors(name):
            assert target and not target.startswith(UPPER), (name, target)


def test_the_only_import_circle_is_the_array_and_the_api():
    """Operators call namespace functions, which build Arrays (as in array-api-strict and
    tinygrad): that is the one circle; below it, none."""
    graph = import_graph()
    for cycle in nx.simple_cycles(graph):
        outside = [n for n in cycle if not n.startswith(UPPER)]
        assert outside == [], cycle


def test_devices_import_only_the_schedulers_records():
    known = modules()
    for name, path in known.items():
        if not name.startswith("_runtime"):
            continue
        for target, names in imports(name, path):
            if target.startswith("_schedule"):
                assert set(names) <= RECORDS, (name, target, names)


def test_options_import_the_device_registry_and_no_backend():
    targets = {t for t, _ in imports("_options", PACKAGE / "_options.py")}
    assert not any(t.startswith("_runtime") for t in targets), targets


@pytest.mark.parametrize("name", sorted(DEVICES))
def test_every_kernel_kind_has_a_handler_on_every_device(name):
    assert set(DEVICES[name].handlers) == set(Kind)


def test_every_elementwise_op_has_an_implementation():
    # NOTE: every host device runs elementwise ops through this one table; a cast is a copy.
    missing = [op for op in Op if op.is_elementwise and op not in UFUNCS and op is not Op.ASTYPE]
    assert missing == []


def test_every_op_is_recorded_by_some_api_function():
    """An op no module records is dead weight in every device's tables (COPY: x.copy() of a
    pending value, and the scheduler's rearranges)."""
    recorders = [
        p.read_text()
        for p in PACKAGE.rglob("*.py")
        if p.name != "ops.py" and "_runtime" not in p.parts and "_schedule" not in p.parts
    ]
    unrecorded = [
        op for op in Op if not any(re.search(rf"\bOp\.{op.name}\b", text) for text in recorders)
    ]
    assert unrecorded == []
