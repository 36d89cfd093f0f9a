"""NaN that came through a comparison: an op made NaN from finite inputs, but those inputs
were made from a comparison (Equal, Less…) of tensors that already held NaN.

A comparison's output is boolean, so no health mode records it, and every comparison with
NaN is false: NaN goes in, clean zeros come out. The gradient of `tf.reduce_max` is
`indicators = cast(equal(max, x)); indicators / sum(indicators)`: once the scores hold NaN
no element equals the max, the sum is 0 and the division 0/0 is NaN — from two finite
inputs. Taken at its word, the walk would stop there and call that division a new origin
(a second incident, a step after the first, in a hand-written attention's max-subtraction).
So when the walk reaches an op whose inputs are all finite, the graph ops just above it
(at most MAX_UP, through any op) are searched for a comparison one of whose recorded inputs
holds NaN in the same call; the walk goes on from that input and says why.
"""

from __future__ import annotations

from reader.diagnosis.index import Ref
from reader.diagnosis.unrecorded import Inferred
from reader.diagnosis.walk import Walker
from reader.index.schema import GRAPH

COMPARISONS = frozenset({"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
                         "ApproximateEqual"})
MAX_UP = 8  # graph ops looked at above the op


def compared_nan(walker: Walker, cur: Ref) -> Inferred | None:
    """The NaN input of a comparison feeding `cur` (a graph trace whose inputs are all
    finite), as the tensor the walk goes on from; None when there is none."""
    if cur.kind != GRAPH:
        return None
    op = walker.op_of(cur)
    g = walker.L.graph(op.graph_id) if op is not None else None
    if op is None or g is None:
        return None
    wall = float(walker.L.traces.col("wall_time")[cur.index])
    todo, seen = [n for n, _ in op.inputs], set[str]()
    while todo and len(seen) < MAX_UP:
        name = todo.pop(0)
        up = g.ops.get(name)
        if name in seen or up is None:
            continue
        seen.add(name)
        if up.op_type not in COMPARISONS:
            todo.extend(n for n, _ in up.inputs)
            continue
        for n, s in up.inputs:
            row = walker.idx.latest_trace(g.graph_id, n, s, cur.index, wall)
            if row is None:
                continue
            ref = Ref(GRAPH, row, s)
            if walker.idx.health(ref).nan:
                return Inferred(ref, (up.op_name,), (
                    f"its inputs are finite, but made from {up.op_name} ({up.op_type}), "
                    f"which compared {walker.name(ref)}, holding NaN: a comparison with NaN "
                    "is false, so the NaN came in through it"))
    return None
