"""Stage 2, a helper: the order in which an eager tape completes the variables' gradients.

An eager step's gradients reach the optimizer without a recorded link, so each variable's
is found among the backward pass's terminal tensors of its shape (`unlinked_grads.
tape_gradients`). Where two variables share a shape and neither gradient is anchored to its
read (`tape_anchors`), which is which follows from the order the tape made them — and that
is not the variables' forward order: a PReLU's slopes are negated before the layer's input
exists, yet the tape reaches them before the bias the input was made with. The tape's own
rule, replayed on the recorded forward ops, gives the order.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from tfdbg_tui.core.compare.contract.dataflow import FORWARD, READS, Flow
from tfdbg_tui.core.compare.contract.tensors import SHAPE_ONLY

if TYPE_CHECKING:
    from tfdbg_tui.core.compare.contract.roles import Roles


def tape_order(flow: Flow, roles: Roles, consumers: list[list[int]], loss: int | None
                ) -> dict[str, float]:
    """Per trained variable, when an eager tape's backward pass completes its gradient
    (a rank: smaller is sooner). The tape (TensorFlow's `GradientTape::ComputeGradient`)
    runs an op's backward function once every use of its outputs by the ops it recorded has
    had its own run, taking ready ops first in, first out, starting from the loss; it
    records the forward ops between the watched variables' reads and the loss. A read used
    once gets its gradient when its user's backward function runs; a read used more often
    when the read itself is reached (the contributions summed). Empty when the loss is not
    known."""
    if loss is None or not 0 <= loss < len(flow):
        return {}
    n = len(flow)
    trained = set(roles.variables)
    watched = [False] * n
    for k in range(n):
        if flow.phase[k] not in FORWARD or flow.op_type[k] in SHAPE_ONLY:
            continue
        watched[k] = ((flow.op_type[k] in READS and flow.handle[k] in trained)
                      or any(j >= 0 and watched[j] for j, _ in flow.inputs[k]))
    on_tape: set[int] = set()
    todo = [loss]
    while todo:
        k = todo.pop()
        if k < 0 or k in on_tape or not watched[k]:
            continue
        on_tape.add(k)
        if not (flow.op_type[k] in READS and flow.handle[k] in trained):
            todo.extend(j for j, _ in flow.inputs[k])
    pending = {k: sum(1 for c in consumers[k] if c in on_tape
                      for j, _ in flow.inputs[c] if j == k) for k in on_tape}
    # ready ops go in at the front and are taken from the back (`op_stack.insert(begin)`,
    # `op_stack.back()`): first in, first out
    queue = deque(k for k in sorted(on_tape) if pending[k] == 0)
    ran: dict[int, int] = {}
    while queue:
        k = queue.pop()
        ran[k] = len(ran)
        if flow.op_type[k] in READS:
            continue
        for j, _ in flow.inputs[k]:
            if j in pending:
                pending[j] -= 1
                if pending[j] == 0:
                    queue.appendleft(j)
    out: dict[str, float] = {}
    for k in on_tape:
        h = flow.handle[k]
        if flow.op_type[k] not in READS or h not in trained or k not in ran:
            continue
        users = [c for c in consumers[k] if c in on_tape]
        at = (ran[users[0]] + [j for j, _ in flow.inputs[users[0]]].index(k) / 8
              if len(users) == 1 else float(ran[k]))
        out[h or ""] = max(out.get(h or "", -1.0), at)
    return out
