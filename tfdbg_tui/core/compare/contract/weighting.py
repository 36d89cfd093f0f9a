"""Whether a run's loss weights each example: per-example weights (`sample_weight` of a Keras
loss call, `weights=` of a TF1 loss) multiply the per-example losses inside the loss
function, by a fed tensor — one computed from no variable of the model.

When two runs' losses differ, this tells a weighting one run forgot (written at the loss's
*call*) from a loss object's own arguments (`from_logits`, label smoothing, reduction:
written where it is *constructed*), so the line shown is the one to change.
"""

from __future__ import annotations

from reader import GRAPH
from tfdbg_tui.core.compare.contract.dataflow import LOSS, READS, Flow
from tfdbg_tui.core.compare.contract.model import RunModel
from tfdbg_tui.core.compare.contract.tensors import FLOATS

MAX_NODES = 512  # nodes of the loss function looked at


def weights_examples(model: RunModel, step: int) -> bool | None:
    """Whether step `step`'s loss multiplies its per-example losses by fed weights; None
    when unknown (no loss found, or an eager step, whose dataflow has no recorded fed
    tensors)."""
    if step >= model.n_steps:
        return None
    flow, _, roles = model.steps[step]
    if roles.loss is None or flow.kind != GRAPH:
        return None
    sigs = model.cache.get(("sig", id(flow)))
    if sigs is None:
        return None
    todo, seen = [roles.loss[0]], set[int]()
    while todo and len(seen) < MAX_NODES:
        k = todo.pop()
        if k < 0 or k in seen or flow.phase[k] != LOSS:
            continue
        seen.add(k)
        ins = flow.inputs[k]
        if flow.op_type[k] == "Mul" and len(ins) == 2:
            fed = [_fed(flow, j) for j, _ in ins]
            rank = [int(sigs[j, sl][1]) if j >= 0 and sl < sigs.shape[1] else -1
                    for j, sl in ins]
            dtype = [int(sigs[j, sl][0]) if j >= 0 and sl < sigs.shape[1] else -1
                     for j, sl in ins]
            if fed[0] != fed[1]:
                m, w = (1, 0) if fed[0] else (0, 1)
                # per-example losses (a vector from the model) times fed weights (a vector,
                # or an argument whose shape was not recorded) — not a fed constant scalar
                if rank[m] == 1 and dtype[m] in FLOATS and rank[w] in (1, -1):
                    return True
        todo.extend(j for j, _ in ins)
    return False


def _fed(flow: Flow, k: int) -> bool:
    """Whether node k is computed from no variable (fed data: a placeholder, an argument,
    or arithmetic on them)."""
    todo, seen = [k], set[int]()
    while todo and len(seen) < MAX_NODES:
        j = todo.pop()
        if j < 0 or j in seen:
            continue
        seen.add(j)
        if flow.op_type[j] in READS:
            return False
        todo.extend(i for i, _ in flow.inputs[j])
    return len(seen) < MAX_NODES
