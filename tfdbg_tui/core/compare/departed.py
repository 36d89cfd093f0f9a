"""The lines of a gradient that differs while the forward pass agrees (`lines.place`).

Why: a gradient's own line is the gradient call (`tape.gradient`, `minimize`), which every
backward op carries. When the variables, layer outputs, loss and penalties of the step all
agree and a gradient does not, the difference is made in the backward computation, and the
line to show is where that departs from plain differentiation (`contract.departure`: a
custom gradient's body, or a `stop_gradient` cutting the variable's dependence). A cut in
both runs explains neither (each keeps its call's line); a side with nothing of the user's
own in its backward pass keeps its call's line too.
"""

from __future__ import annotations

import numpy as np

from reader.index.frames import Frame
from tfdbg_tui.core.compare.contract import Q_LAYER, Q_LOSS, Q_REG, Q_UPDATE, Q_VARIABLE
from tfdbg_tui.core.compare.contract.dataflow import node_frames
from tfdbg_tui.core.compare.contract.departure import CUT, departure
from tfdbg_tui.core.compare.pairs import DIFFERENT
from tfdbg_tui.core.compare.result import Comparison
from tfdbg_tui.core.compare.verdict import step_offset

_FORWARD = (Q_VARIABLE, Q_LAYER, Q_LOSS, Q_REG)


def forward_agrees(c: Comparison, p: int) -> bool:
    """Whether everything of pair `p`'s step before the gradients was compared, some of it,
    and agrees: the variables as read (the previous step's updates), the layer outputs, the
    loss and its penalties (a pair whose difference decides nothing aside: `formulation`)."""
    sp = c.training.sp
    if sp is None:
        return False
    pairs, first = c.pairs, step_offset(c)
    step = int(pairs.step[p])
    ids = np.arange(len(pairs)) >= first
    at = ids & (pairs.step == step) & np.isin(pairs.quantity, _FORWARD)
    at |= ids & (pairs.step == step - 1) & (pairs.quantity == Q_UPDATE)
    at &= ~np.isin(np.arange(len(pairs)), c.formulation)  # differences deciding nothing
    forced = [first + i for i in (*sp.lacking, *sp.one_sided, *sp.alone)]
    return bool(at.any()) and not bool((pairs.status[at] == DIFFERENT).any()) \
        and p not in forced


def departed(c: Comparison, p: int) -> tuple[list[Frame] | None, list[Frame] | None]:
    """Each side's stack holding the line where gradient pair `p`'s backward computation
    departs (None: keep the gradient's own line); both None unless `p` differs while the
    forward pass of its step agrees."""
    if int(c.pairs.status[p]) != DIFFERENT or not forward_agrees(c, p):
        return None, None
    step = int(c.pairs.step[p])
    found = []
    for side, logdir, model in (("a", c.a, c.training.a), ("b", c.b, c.training.b)):
        kind = int(c.pairs.kind[p])
        if side == "b" and len(c.pairs.kind_b) > p and int(c.pairs.kind_b[p]) >= 0:
            kind = int(c.pairs.kind_b[p])
        row = int(c.pairs.a_row[p] if side == "a" else c.pairs.b_row[p])
        found.append(departure(logdir, model, step, kind, row))
    got_a, got_b = found
    if got_a is not None and got_b is not None and got_a[0] == got_b[0] == CUT:
        return None, None
    frames_a = node_frames(c.a, got_a[1], got_a[2]) or None if got_a is not None else None
    frames_b = node_frames(c.b, got_b[1], got_b[2]) or None if got_b is not None else None
    return frames_a, frames_b


__all__ = ["departed", "forward_agrees"]
