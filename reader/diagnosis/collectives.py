"""A collective op's hidden inputs: what the other replicas contributed to an all-reduce.

Under tf.distribute (MirroredStrategy and the like) every replica's gradients go through a
collective — CollectiveReduceV2, one op per device, all in the step's graph — and each
member's output is computed from every member's input. The graph records only the member's
own input as an edge, so a member whose own input was finite, and whose output is NaN/∞
because another replica's gradient was, looked like an origin: "whether its inputs already
held NaN/∞ is not known", a second, made-up incident beside the replica's real one.

Its peers are the other members of the same collective: ops of the same type in the same
graph whose names differ only by the numbered suffix TensorFlow gives repeated names
(`sgd_1/CollectiveReduceV2`, `sgd_1/CollectiveReduceV2_1`), on another device, whose output
has as many elements (a reduction's members all have the result's shape). Each peer's own
data input, as traced in the same call, is an input of this op too (`peer_links`).
"""

from __future__ import annotations

import re

from reader.diagnosis.index import Ref
from reader.diagnosis.walk import Link, Walker
from reader.index.schema import GRAPH

# collectives whose every member's output is computed from every member's input
REDUCING = frozenset({"CollectiveReduce", "CollectiveReduceV2", "CollectiveReduceV3",
                      "CollectiveGather", "CollectiveGatherV2", "CollectiveAllToAllV2",
                      "CollectiveAllToAllV3", "NcclAllReduce"})
MAX_PEERS = 64
_SUFFIX = re.compile(r"_\d+$")


def _stem(op_name: str) -> str:
    return _SUFFIX.sub("", op_name)


def peer_links(walker: Walker, ref: Ref) -> list[Link]:
    """The data inputs of the collective's other members (see the module docstring); empty
    for any other op."""
    L, idx = walker.L, walker.idx
    if ref.kind != GRAPH:
        return []
    op = L.op_of_trace(ref.index)
    g = L.graph(op.graph_id) if op is not None else None
    if op is None or g is None or op.op_type not in REDUCING:
        return []
    device = L.strings[int(L.traces.col("device")[ref.index])]
    size = idx.health(ref).size
    stem = _stem(op.op_name)
    out: list[Link] = []
    for peer in g.ops.values():
        if len(out) >= MAX_PEERS:
            break
        if peer is op or peer.op_type != op.op_type or _stem(peer.op_name) != stem \
                or not peer.inputs:
            continue
        row = walker.same_call_trace(g.graph_id, peer.op_name, 0, ref.index)
        if row is None or L.strings[int(L.traces.col("device")[row])] == device:
            continue
        peer_ref = Ref(GRAPH, row, 0)
        if size is not None and idx.health(peer_ref).size != size:
            continue
        on = _device(L.strings[int(L.traces.col("device")[row])])
        hop = f"{peer.op_name} on {on} (a member of the same collective)"
        for lk in walker.inputs(peer_ref)[:1]:  # its data input (the rest are keys, sizes)
            out.append(Link(f"{lk.name} (the input of {peer.op_name} on {on})", lk.ref,
                            (hop, *lk.via), lk.note))
    return out


def _device(name: str) -> str:
    """"/job:localhost/replica:0/task:0/device:CPU:1" → "CPU:1"."""
    return name.rsplit("device:", 1)[-1] if name else "another device"
