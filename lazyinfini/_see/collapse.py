"""A scene cut to a size a notebook shows at a glance: long chains folded, far nodes dropped.

A chain (each box read only by the next, in the same kernel) longer than a few boxes keeps its
first and last box; the boxes between become one box saying how many nodes it stands for and
which ops. If the scene is still too big, the boxes nearest the outputs are kept and one box
at the top stands for all the others. Nothing is lost silently: `Scene.hidden` counts the
nodes drawn only as part of such a box.
"""

from __future__ import annotations

from collections import Counter, deque

from .scene import LINE, Box, Scene

MAX_BOXES = 40  # what a notebook cell shows at a glance
KEEP = 1  # boxes kept at each end of a folded chain


def collapse(scene: Scene, limit: int = MAX_BOXES) -> Scene:
    """`scene` with long chains folded and, past `limit` boxes, only the nearest outputs."""
    scene = fold_chains(scene)
    if len(scene.boxes) > limit:
        scene = nearest_outputs(scene, limit)
    return scene


def fold_chains(scene: Scene) -> Scene:
    """Runs of boxes each read only by the next, in one kernel (or in none), longer than
    2 * KEEP + 1: the boxes between the ends become one box. Inputs from outside the kernel
    (a constant every multiply reads) do not break a run."""
    outs, ins = _neighbours(scene)
    kernel = [box.kernel for box in scene.boxes]
    inside = [[a for a in ins[b] if kernel[a] == kernel[b]] for b in range(len(ins))]

    def next_of(a: int) -> int | None:
        if len(outs[a]) == 1:
            b = outs[a][0]
            if kernel[a] == kernel[b] and inside[b] == [a]:
                return b
        return None

    followers = {next_of(a) for a in range(len(outs))}
    folded: list[list[int]] = []
    for v in range(len(outs)):
        if v in followers:
            continue  # NOTE: inside a run that starts above it
        run = [v]
        while (b := next_of(run[-1])) is not None:
            run.append(b)
        if len(run) > 2 * KEEP + 1:
            folded.append(run[KEEP:-KEEP])
    return _merged(scene, folded)


def nearest_outputs(scene: Scene, limit: int) -> Scene:
    """The `limit` - 1 boxes nearest the outputs (walking up from them), and one box for the
    rest, above the kept boxes that read them."""
    outs, ins = _neighbours(scene)
    order = deque(v for v in range(len(scene.boxes)) if not outs[v])
    kept = dict.fromkeys(order)
    while order and len(kept) < limit - 1:
        for u in ins[order.popleft()]:
            if u not in kept and len(kept) < limit - 1:
                kept[u] = None
                order.append(u)
    dropped = [v for v in range(len(scene.boxes)) if v not in kept]
    return _merged(scene, [dropped] if dropped else [], above=True)


def _neighbours(scene: Scene) -> tuple[list[list[int]], list[list[int]]]:
    outs: list[list[int]] = [[] for _ in scene.boxes]
    ins: list[list[int]] = [[] for _ in scene.boxes]
    for a, b in scene.links:
        outs[a].append(b)
        ins[b].append(a)
    return outs, ins


def _merged(scene: Scene, groups: list[list[int]], above: bool = False) -> Scene:
    """`scene` with each of `groups` drawn as one hidden box (at the group's first place)."""
    if not groups:
        return scene
    stands_for = {v: g for g, members in enumerate(groups) for v in members}
    index: dict[int, int] = {}
    boxes: list[Box] = []
    for v, box in enumerate(scene.boxes):
        g = stands_for.get(v)
        if g is None:
            index[v] = len(boxes)
            boxes.append(box)
        elif v == groups[g][0]:
            index[v] = len(boxes)
            boxes.append(_hidden([scene.boxes[u] for u in groups[g]], above))
        else:
            index[v] = index[groups[g][0]]
    links, decision_of = [], {}
    for a, b in scene.links:
        link = (index[a], index[b])
        if link[0] == link[1] or (above and b in stands_for and a not in stands_for):
            continue  # NOTE: inside a hidden box, or from the kept boxes into the rest
        if link not in decision_of and (a, b) in scene.decision_of:
            decision_of[link] = scene.decision_of[(a, b)]
        links.append(link)
    hidden = sum(box.count for box in boxes if box.kind == "hidden")
    links = list(dict.fromkeys(links))
    return Scene(tuple(boxes), tuple(links), scene.titles, scene.decisions, decision_of, hidden)


def _hidden(boxes: list[Box], above: bool) -> Box:
    """One box for `boxes`: how many nodes, and their ops, most frequent first."""
    count = sum(box.count for box in boxes)
    ops = Counter(box.lines[0] for box in boxes if box.kind != "hidden")
    names = ", ".join(op for op, _ in ops.most_common())
    head = f"{count} more nodes" if above else f"… {count} nodes …"
    kernels = {box.kernel for box in boxes}
    kernel = kernels.pop() if len(kernels) == 1 else -1
    lines = (head, names if len(names) <= LINE else names[: LINE - 1] + "…")
    hover = f"{count} nodes not drawn one by one: " + ", ".join(
        f"{op} x{n}" for op, n in ops.most_common()
    )
    return Box(lines, hover, kernel, "hidden", None, count)
