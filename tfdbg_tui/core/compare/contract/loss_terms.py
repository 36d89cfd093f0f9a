"""Stage 2, the loss's terms: the loss split into its data term and the penalties added
beside it, so that a penalty that differs while the data loss agrees is `regularization`,
not `loss` (issue 29).

Walking down the sums from the loss, each operand is the data loss or a penalty:
- a **weight penalty** does not depend on the layers' outputs at all (`0.01 *
  tf.nn.l2_loss(w)`, `tf.add_n(model.losses)` of kernel regularizers);
- an **activity penalty** is computed from the layers' outputs but not from the step's
  targets (`0.02 * reduce_sum(abs(h))`, Keras' `activity_regularizer`, a layer's or a
  model's `add_loss` of its activations, a penalty on the outputs themselves) — told from
  the data loss only where the targets are known (`model_output.step_data`) and exactly one
  operand reads them: that operand is the data loss.
Where the targets cannot be told apart, an operand computed from the layers' outputs is kept
in the data loss, as before.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from tfdbg_tui.core.compare.contract.dataflow import FORWARD, Flow
from tfdbg_tui.core.compare.contract.tensors import Tensor

if TYPE_CHECKING:
    from tfdbg_tui.core.compare.contract.model_output import StepData
    from tfdbg_tui.core.compare.contract.roles import Roles

_ADDITIVE = frozenset({"AddV2", "Add", "AddN"})


def _addends(flow: Flow, node: int) -> list[Tensor] | None:
    """The operands a node adds up: an add, or a sum over a stack of scalars (Keras' `fit`
    totals its losses as `sum(stack(losses))`); None for any other op."""
    t = flow.op_type[node]
    if t in _ADDITIVE:
        return [x for x in flow.inputs[node] if x[0] >= 0]
    if t == "Sum" and flow.inputs[node]:
        src = flow.inputs[node][0][0]
        if src >= 0 and flow.op_type[src] == "Pack":
            return [x for x in flow.inputs[src] if x[0] >= 0]
    return None


def split_loss(flow: Flow, roles: Roles, deps: list[frozenset[str]], traced: np.ndarray,
               data: StepData) -> None:
    """Set `roles.total` (the loss as the step minimizes it), `roles.loss` (its data term)
    and `roles.penalties` (the other terms, in order) when the loss is such a sum."""
    if roles.loss is None or not roles.layers:
        return
    n = len(flow)
    on_layers = np.zeros(n, bool)
    for _, (k, _) in roles.layers:
        on_layers[k] = True
    for k in range(n):
        if not on_layers[k] and flow.phase[k] in FORWARD:
            on_layers[k] = any(j >= 0 and on_layers[j] for j, _ in flow.inputs[k])
    targets = frozenset(data.targets)

    def reads_targets(t: Tensor) -> bool:
        return bool(targets) and t[0] < len(data.src) and bool(data.src[t[0]] & targets)

    node = roles.loss[0]
    penalties: list[Tensor] = []
    activity: set[Tensor] = set()
    for _ in range(16):
        while flow.op_type[node] == "Identity" and flow.inputs[node]:
            node = flow.inputs[node][0][0]
        ins = _addends(flow, node)
        if ins is None:
            break
        on_data = [t for t in ins if on_layers[t[0]]]
        off = [t for t in ins if not on_layers[t[0]] and deps[t[0]]]
        if len(on_data) > 1:  # activity penalties beside the one term that reads the targets
            fed = [t for t in on_data if reads_targets(t)]
            roles.undecided = roles.undecided or len(fed) != 1
            if len(fed) == 1:
                activity.update(t for t in on_data if t != fed[0])
                off += [t for t in on_data if t != fed[0]]
                on_data = fed
        if len(on_data) != 1 or not off:
            break
        off.sort(key=lambda t: ins.index(t))
        penalties += [t for t in off if traced[t[0], min(t[1], traced.shape[1] - 1)]]
        node = on_data[0][0]
    if penalties and traced[node, 0]:
        roles.total, roles.loss = roles.loss, (node, 0)
        roles.penalties = penalties
        roles.activity = activity & set(penalties)


def comparable(ra: Roles, rb: Roles) -> tuple[Roles, Roles]:
    """The two runs' roles as their losses can be compared: where one run split activity
    penalties off its loss and the other could not tell its loss's terms apart (its targets
    unknown: an eager step's numpy labels), the split is undone — the data term of one
    against the whole sum of the other is a difference of the penalty, not of the loss (a
    distillation term beside the data loss made equivalent runs diverge at step 1)."""
    def whole(r: Roles) -> Roles:
        return replace(r, loss=r.total, total=None, penalties=[], activity=set())

    if ra.activity and ra.total is not None and rb.undecided and not rb.penalties:
        return whole(ra), rb
    if rb.activity and rb.total is not None and ra.undecided and not ra.penalties:
        return ra, whole(rb)
    return ra, rb
