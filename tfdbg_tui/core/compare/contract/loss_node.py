"""Stage 2, the loss: which forward tensor is it, and where does the loss function start.

The loss is the deepest forward scalar that depends on every trained variable — in a graph —
among those the backward pass differentiates, where any is (`loss_node`): a scalar the
program only fetches to watch the training (the positives' mean probability, an accuracy),
computed after the loss from the same model, depends on every variable too, and may be
deeper. No backward op reads it or its operands, as the gradient of the loss's last op reads
the loss's operands (a mean's, a product's, a quotient's) — or, for a sum or a mean whose
gradient reads nothing where the shapes are known, the operands of a term it adds up.
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

Two more kinds of consumer of the output are no start of the loss. What the loss is not
computed from (a probability or a class fetched to monitor the training, on a line above the
loss: `prob = tf.sigmoid(logits)` beside a hinge loss on the logits) is no part of it. And a
probability activation of the output on a line of its own, reading nothing from outside the
model (`prob = tf.sigmoid(logits)`, `probs = tf.nn.softmax(logits)`), is what the model
predicts, not the loss, also when the loss reads both it and the logits (a focal loss: the
cross-entropy from the logits, `p_t` from the probability; a confidence penalty: the
cross-entropy from the logits, the entropy of the softmax): the loss starts on the lines
below, where it meets the targets. Where the loss reads only that probability, it is the
model's output already (`model_output`), the last layer output this walk starts from.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tfdbg_tui.core.compare.contract.dataflow import BWD, FORWARD, FWD, LOSS, READS, Flow
from tfdbg_tui.core.compare.contract.tensors import FLOATS, SHAPE_ONLY, Sig, Tensor

# ops that lay a tensor out without computing on its values
_LAYOUT = frozenset({"Reshape", "Squeeze", "ExpandDims", "Identity", "Cast", "Transpose"})

# activations that turn a model's logits into probabilities (see the module docstring)
PROBABILITIES = frozenset({"Sigmoid", "Softmax"})


def loss_node(flow: Flow, deps: list[frozenset[str]], depth: np.ndarray, traced: np.ndarray,
              sig: Callable[[Tensor], Sig], every: frozenset[str],
              consumers: list[list[int]]) -> tuple[int, int] | None:
    """(depth, node) of the loss: the deepest forward scalar depending on every variable —
    of those the backward pass differentiates, where any is (see the module docstring)."""
    found: list[tuple[bool, int, int]] = []
    seen: dict[int, bool] = {}
    for k in range(len(flow)):
        if flow.phase[k] not in FORWARD or not traced[k, 0] or flow.op_type[k] in READS:
            continue
        s = sig((k, 0))
        if s[1] == 0 and s[0] in FLOATS and deps[k] == every and every:
            found.append((_differentiated(flow, k, consumers, seen), int(depth[k]), k))
    if not found:
        return None
    _, d, k = max(found)
    return d, k


# ops whose gradient may read none of their operands (where the shapes are known): a sum, a
# mean, a stack, a cast or a reshape of a differentiated term is differentiated through it —
# Keras' fit totals its losses as `sum(stack([data, penalty]))`
_PASSING = frozenset({"AddV2", "Add", "AddN", "Sub", "Neg", "Identity", "Sum", "Mean", "Pack",
                      "Cast", "Reshape", "Squeeze", "ExpandDims"})


def _differentiated(flow: Flow, k: int, consumers: list[list[int]], seen: dict[int, bool]
                    ) -> bool:
    """Whether a backward op reads forward node `k` or one of its operands — or `k` adds up
    (`_PASSING`) an operand that is differentiated (`seen`: the answers so far)."""
    todo, walked = [k], {k}
    while todo:
        m = todo.pop()
        if seen.get(m):
            seen[k] = True
            return True
        ins = [j for j, _ in flow.inputs[m] if j >= 0]
        if any(flow.phase[c] == BWD for j in [m, *ins] for c in consumers[j]):
            seen[k] = seen[m] = True
            return True
        if flow.op_type[m] in _PASSING:
            fresh = [j for j in ins if j not in walked and flow.phase[j] in FORWARD]
            walked.update(fresh)
            todo += fresh
    seen[k] = False
    return False


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
               deps: list[frozenset[str]] | None = None, loss: int = -1,
               to_loss: np.ndarray | None = None) -> int | None:
    """The first op of the loss function: the first forward consumer of the last layer's
    output `last` (the loss function's own ops first) that the loss is computed from
    (`to_loss[c]`, where any consumer is), past the user's forward reshapes of that output,
    where the loss (node `loss`) is computed on another line the prediction's ops on its own
    line, and a probability activation on a line of its own (see the module docstring)."""
    frontier, seen = [last], {last}
    line = flow.line[last] if max(last, loss) < len(flow.line) else -1
    loss_line = flow.line[loss] if 0 <= loss < len(flow.line) else -1
    if loss < 0 or loss_line == line:  # one statement: what it computes is the loss's
        line = -1
    for _ in range(16):
        uses = sorted({c for j in frontier for c in consumers[j]
                       if flow.phase[c] in FORWARD and flow.op_type[c] not in SHAPE_ONLY},
                      key=lambda c: (flow.phase[c] != LOSS, c))
        if to_loss is not None and any(to_loss[c] for c in uses):
            uses = [c for c in uses if to_loss[c]]  # not what is only fetched beside it
        if not uses:
            return None
        ahead = [c for c in uses if flow.phase[c] == FWD and c not in seen
                 and (flow.op_type[c] in _LAYOUT or _predicts(flow, c, line, deps)
                      or _probability(flow, c, loss_line, deps))]
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


def _probability(flow: Flow, c: int, loss_line: int, deps: list[frozenset[str]] | None
                 ) -> bool:
    """Whether node `c`, a consumer of the prediction, is a probability activation of it on
    a line of its own (not the loss's: `loss = f(y, tf.sigmoid(z))` starts the loss), reading
    no data from outside the model — the model's prediction, not the loss's start."""
    if flow.op_type[c] not in PROBABILITIES or c >= len(flow.line) or loss_line < 0:
        return False
    line = flow.line[c]
    return line != loss_line and _predicts(flow, c, line, deps)
