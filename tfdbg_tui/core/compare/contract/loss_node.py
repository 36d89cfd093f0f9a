"""Stage 2, the loss: which forward tensor is it, and where does the loss function start.

The loss is the deepest forward scalar that depends on every trained variable — in a graph.
An eager step's dataflow is rebuilt from tensor ids, and TensorFlow never records an eager
Identity (`OP_CALLBACK_SKIP_OPS`): a `tf.custom_gradient` passes its result through one
(Keras' swish does, as does any activation the user gives a gradient of their own), so the
layer after it reads a tensor no recorded op made, and no forward scalar depends on the
variables before it. The loss is then what the gradient tape differentiates: the backward
pass begins with the gradient of the loss's op, which reads that op's operands (or its
value), so the loss is the forward scalar whose tensor or operands the *earliest* backward
op reads (`tape_target`).

The loss function starts (`loss_entry`, the line shown for a loss) at the first op reading
the model's last layer output — past what the user wrote as part of the prediction: a
reshape of that output (`prediction = tf.reshape(logits, [-1])`, `tf.squeeze(..., axis=1)` on
the line above the loss's call), which only lays it out, and an op on the last layer's own
line that reads nothing from outside the model (`probs = tf.nn.softmax(h @ W + b)`,
`rate = tf.exp(...)`, an activation Keras' Dense applies in the model's call): the line
computing the prediction is the prediction's, not the loss's. The loss starts where the
prediction meets data from outside the model (the targets), or leaves that line — also when
the op is not one the layers are made of (a softmax is no layer output, yet no loss either).
Where the loss is computed on the prediction's line itself (`loss_fn(t, model(x) / T)`, every
op of a `fit`), the statement is the loss's: its first op on the output starts it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tfdbg_tui.core.compare.contract.dataflow import BWD, FORWARD, FWD, LOSS, READS, Flow
from tfdbg_tui.core.compare.contract.tensors import FLOATS, SHAPE_ONLY, Sig, Tensor

# ops that lay a tensor out without computing on its values
_LAYOUT = frozenset({"Reshape", "Squeeze", "ExpandDims", "Identity", "Cast", "Transpose"})


def tape_target(flow: Flow, deps: list[frozenset[str]], depth: np.ndarray,
                traced: np.ndarray, sig: Callable[[Tensor], Sig],
                consumers: list[list[int]]) -> tuple[int, int] | None:
    """(depth, node) of the forward float scalar the backward pass starts from — whose own
    tensor or operands the earliest backward op reads (the deepest such scalar on a tie);
    None when no backward op reads one. For a step whose forward dataflow is cut (see the
    module docstring), where no scalar depends on every variable."""
    best: tuple[int, int, int] | None = None  # (first backward reader, -depth, -node)
    for k in range(len(flow)):
        if flow.phase[k] not in FORWARD or not traced[k, 0] or flow.op_type[k] in READS \
                or not deps[k]:
            continue
        s = sig((k, 0))
        if s[1] != 0 or s[0] not in FLOATS:
            continue
        read = [k] + [j for j, _ in flow.inputs[k] if j >= 0]
        first = min((c for j in read for c in consumers[j] if flow.phase[c] == BWD),
                    default=None)
        if first is None:
            continue
        key = (first, -int(depth[k]), -k)
        if best is None or key < best:
            best = key
    return (-best[1], -best[2]) if best is not None else None


def loss_entry(flow: Flow, last: int, consumers: list[list[int]],
               deps: list[frozenset[str]] | None = None, loss: int = -1) -> int | None:
    """The first op of the loss function: the first forward consumer of the last layer's
    output `last` (the loss function's own ops first), past the user's forward reshapes of
    that output and, where the loss (node `loss`) is computed on another line, the
    prediction's ops on its own line (see the module docstring)."""
    frontier, seen = [last], {last}
    line = flow.line[last] if max(last, loss) < len(flow.line) else -1
    if loss < 0 or flow.line[loss] == line:  # one statement: what it computes is the loss's
        line = -1
    for _ in range(16):
        uses = sorted({c for j in frontier for c in consumers[j]
                       if flow.phase[c] in FORWARD and flow.op_type[c] not in SHAPE_ONLY},
                      key=lambda c: (flow.phase[c] != LOSS, c))
        if not uses:
            return None
        ahead = [c for c in uses if flow.phase[c] == FWD and c not in seen
                 and (flow.op_type[c] in _LAYOUT or _predicts(flow, c, line, deps))]
        if len(ahead) != len(uses):  # an op computing on the values: the loss's
            return next(c for c in uses if c not in ahead)
        frontier = ahead
        seen.update(ahead)
    return None


def _predicts(flow: Flow, c: int, line: int, deps: list[frozenset[str]] | None) -> bool:
    """Whether node `c`, a consumer of the prediction, is still the prediction's: on the last
    layer's own user line and reading no data from outside the model — an operand from
    outside the step (an eager tensor made before it), or one computed from no variable
    (a placeholder, a function's argument, what is made of them); a constant is no data."""
    if deps is None or line < 0 or c >= len(flow.line) or flow.line[c] != line:
        return False
    for j, _ in flow.inputs[c]:
        if j < 0:
            return False
        if not deps[j] and flow.op_type[j] != "Const":
            return False
    return True
