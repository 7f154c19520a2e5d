"""lazyinfini in one page: record a graph, look at it, then compute it.

Run: python examples/quickstart.py
"""

import numpy as np

import lazyinfini as li

rng = np.random.default_rng(0)
a = li.asarray(rng.standard_normal((4, 3), dtype=np.float32))
b = li.asarray(rng.standard_normal((3, 4), dtype=np.float32))

# Nothing runs here: each call checks its arguments and records a node.
y = li.clip(li.permute_dims(a, (1, 0)) - b, 0, 1)
print("recorded:", y)

# The pending program is a networkx.DiGraph of nodes (op, shape, dtype, the line that made it).
g = li.graph(y)
print(f"\ngraph: {g.number_of_nodes()} nodes, {g.number_of_edges()} edges")
for _node, attrs in g.nodes(data=True):
    print(
        f"  {attrs['op']:<13} {str(attrs['shape']):<8} {str(attrs['dtype']):<8} {attrs['source']}"
    )

# What computing it would run: kernels, the nodes each absorbs, why.
print("\n" + li.explain(y))

# Materialize: np.asarray (or y.compute(), float(y), DLPack) runs the schedule once.
result = np.asarray(y)
print("\nresult:\n", result)
expected = np.clip(np.asarray(a).T - np.asarray(b), 0, 1)
assert np.array_equal(result, expected)
print("\nmatches numpy; after computing:", y)
