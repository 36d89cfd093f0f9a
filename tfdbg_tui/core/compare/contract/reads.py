"""What a variable's read feeds in the forward pass: where a weight is first used (its
place in forward order) and, for an embedding, the rows a step gathers. Why apart: the role
analysis (`roles.analyse`) asks these of every read; they follow consumers, not roles.
"""

from __future__ import annotations

from collections.abc import Callable

from tfdbg_tui.core.compare.contract.dataflow import FORWARD, Flow
from tfdbg_tui.core.compare.contract.tensors import SHAPE_ONLY, Sig, Tensor


def value_uses(flow: Flow, k: int, consumers: list[list[int]]) -> list[int]:
    """The forward ops using node k's value, through casts: mixed precision casts each
    weight to float16 right after its read (depth 1 for every weight), so the cast says
    nothing of where in the forward pass the weight is used; its consumer does."""
    out: list[int] = []
    todo, seen = [k], {k}
    while todo and len(seen) < 64:
        j = todo.pop()
        for c in consumers[j]:
            if flow.phase[c] not in FORWARD or flow.op_type[c] in SHAPE_ONLY or c in seen:
                continue
            seen.add(c)
            if flow.op_type[c] in CASTS and consumers[c]:
                todo.append(c)
            else:
                out.append(c)
    return out


CASTS = frozenset({"Cast", "Identity"})
GATHER = frozenset({"GatherV2", "Gather"})


def rows_read(flow: Flow, k: int, consumers: list[list[int]], sig: Callable[[Tensor], Sig]
               ) -> tuple[Tensor, Sig] | None:
    """An embedding's read is the rows the step gathers — all of the variable it reads (a
    TF1 `ResourceGather` reads nothing else; Keras reads the table and gathers from it) — and
    its signature is its gradient's: the IndexedSlices' values, one row per id, of the
    table's rank. None when the read is not only gathered from."""
    g = k
    if flow.op_type[k] != "ResourceGather":
        uses = [c for c in consumers[k] if flow.phase[c] in FORWARD]
        if len(uses) != 1 or flow.op_type[uses[0]] not in GATHER \
                or flow.inputs[uses[0]][:1] != [(k, 0)]:
            return None
        g = uses[0]
    if len(flow.inputs[g]) < 2 or flow.inputs[g][1][0] < 0:
        return None
    out, ids = sig((g, 0)), sig(flow.inputs[g][1])
    if min(out[1], ids[1]) < 0 or out[1] < ids[1]:
        return None
    return (g, 0), (out[0], out[1] - ids[1] + 1, out[2])


def whole_reads(flow: Flow, gathered: dict[str, Tensor], consumers: list[list[int]],
                sig: Callable[[Tensor], Sig], traced: Callable[[int], bool]) -> dict[str, Sig]:
    """Per embedding (a variable whose first read is the rows it gathers, `gathered`) that the
    forward pass also reads whole — a tied output projection, `matmul(h, E, transpose_b=True)`
    — the signature of the whole table. Its gradient is then the sum of both uses (the
    gather's IndexedSlices made dense plus the matmul's dense part, an `AddN`), shaped like
    the table and not like the rows: what the update consumes is looked for by that shape."""
    out: dict[str, Sig] = {}
    for k, h in enumerate(flow.handle):
        if (h is None or h not in gathered or h in out or flow.op_type[k] != "ReadVariableOp"
                or flow.phase[k] not in FORWARD or not traced(k)):
            continue
        if rows_read(flow, k, consumers, sig) is not None or not value_uses(flow, k, consumers):
            continue  # only gathered from, or only measured
        s = sig((k, 0))
        if s[1] >= 0 and s != sig(gathered[h]):
            out[h] = s
    return out
