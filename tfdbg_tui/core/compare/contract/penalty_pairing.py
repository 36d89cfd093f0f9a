"""Stage 3, the loss's penalties: regularization terms of the two runs paired for each step,
then the total loss.

When both runs split their loss alike the terms pair in order (`tf.nn.l2_loss` is half the
sum of squares, `regularizers.l2` the whole: the term's line is shown). When one run adds a
penalty the other lacks, its total is compared with the other's loss, and the lines shown are
that penalty's and, on the other side, where that run would add it: the read of the first
variable it regularizes when a library's layer reads it (the layer that lacks its
regularizer), else — the user's own variables, a TF1 program's — its loss's computation (a
penalty term is added to the loss there).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfdbg_tui.core.compare.contract.dataflow import Flow
from tfdbg_tui.core.compare.contract.model import RunModel
from tfdbg_tui.core.compare.contract.quantities import Q_REG
from tfdbg_tui.core.compare.contract.roles import Roles

if TYPE_CHECKING:
    from tfdbg_tui.core.compare.contract.pairing import StepPairs


def pair_penalties(out: StepPairs, k: int, ma: RunModel, ra: Roles, mb: RunModel,
                    rb: Roles, vp: list[tuple[str, str]]) -> None:
    """The regularization terms, in order, then the total loss; a run with penalties
    against one without: its total against the other's loss (the missing penalty)."""
    if not ra.penalties and not rb.penalties:
        return
    fa, fb = ma.steps[k][0], mb.steps[k][0]
    if len(ra.penalties) == len(rb.penalties):  # term by term when both split alike
        for i, (ta, tb) in enumerate(zip(ra.penalties, rb.penalties, strict=True)):
            got = out.add(ma.row(k, ta), mb.row(k, tb), k, Q_REG,
                          f"regularization penalty{f' {i + 1}' if i else ''}")
            for flow, t, where in ((fa, ta, out.where_a), (fb, tb, out.where_b)):
                made = written(flow, t[0])
                if got >= 0 and made != t[0]:
                    where[got] = (flow, made)
    elif ra.penalties and rb.penalties and k == 0:
        out.notes.append(f"A adds {len(ra.penalties)} penalty term(s) to its loss, B "
                         f"{len(rb.penalties)}: the totals tell whether they agree")
    total_a = ra.total if ra.total is not None else ra.loss
    total_b = rb.total if rb.total is not None else rb.loss
    label = "total loss (data loss + penalties)"
    if not ra.penalties or not rb.penalties:
        label = f"total loss ({'A' if not ra.penalties else 'B'} adds no penalty)"
    got = out.add(ma.row(k, total_a), mb.row(k, total_b), k, Q_REG, label)
    if got >= 0 and bool(ra.penalties) != bool(rb.penalties):
        # the line to show on the side with a penalty is the penalty's, not the sum's; on
        # the other, the read of the first variable it regularizes (its layer's line)
        if ra.penalties:
            out.where_a[got] = (fa, written(fa, ra.penalties[0][0]))
            h = penalized(fa, ra.penalties[0][0], ra.variables)
            hb = dict(vp).get(h or "")
            if hb is not None and hb in rb.read:
                out.where_b[got] = (fb, _lacking(fb, rb, rb.read[hb][0],
                                                 ra.penalties[0] in ra.activity))
        else:
            out.where_b[got] = (fb, written(fb, rb.penalties[0][0]))
            h = penalized(fb, rb.penalties[0][0], rb.variables)
            ha = {b: a for a, b in vp}.get(h or "")
            if ha is not None and ha in ra.read:
                out.where_a[got] = (fa, _lacking(fa, ra, ra.read[ha][0],
                                                 rb.penalties[0] in rb.activity))


def _lacking(flow: Flow, roles: Roles, read: int, activity: bool) -> int:
    """The node whose line shows where a run without the other's penalty would add it: the
    read of the weight when a library's layer reads it (its constructor takes the
    regularizer), else the loss (see the module docstring). A penalty of activations is
    added beside the data loss: the loss's line where the user's code computes it (a custom
    step that never adds `model.losses`), the layer's where a library does (`fit`)."""
    if roles.loss is None:
        return read
    loss = roles.loss[0]
    if activity and flow.line[loss] not in flow.library_lines:
        return loss
    if flow.line[read] in flow.library_lines:
        return read
    return loss


# what is done to a penalty term after the statement that made it: Keras' `fit` sums
# `model.losses` (`sum(stack([...]))`, of one scalar here), casts it; and what made a term
# (a scaled or reduced value: not an elementwise op whose sum is the term)
_PASSING = frozenset({"Sum", "AddN", "Pack", "Identity", "Cast"})
_NO_DATA = frozenset({"Const", "Range", "Shape", "Rank"})
_TERM = frozenset({"Mul", "AddV2", "Add", "AddN", "DivNoNan", "RealDiv", "Mean", "Sum",
                   "L2Loss"})


def written(flow: Flow, node: int) -> int:
    """The node a penalty term's line is shown at: the term itself, or — when it only
    passes on one term another statement made (`fit`'s sum of the one tensor a model's
    `add_loss` gave, whose own line is `model.fit`'s) — that term, where it was computed."""
    for _ in range(8):
        ins = [j for j, _ in flow.inputs[node] if j >= 0 and flow.op_type[j] not in _NO_DATA]
        if (flow.op_type[node] not in _PASSING or len(ins) != 1
                or flow.op_type[ins[0]] not in _TERM or flow.line[ins[0]] == flow.line[node]):
            return node
        node = ins[0]
    return node


def penalized(flow: Flow, node: int, variables: list[str]) -> str | None:
    """The first trained variable (in forward order) a penalty term is computed from."""
    todo: list[int] = [node]
    seen: set[int] = set()
    found: set[str] = set()
    while todo and len(seen) < 256:
        j = todo.pop()
        if j < 0 or j in seen:
            continue
        seen.add(j)
        h = flow.handle[j]
        if flow.op_type[j] == "ReadVariableOp" and h:
            found.add(h)
            continue
        todo.extend(i for i, _ in flow.inputs[j])
    return next((h for h in variables if h in found), None)
