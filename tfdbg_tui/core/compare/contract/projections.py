"""A projection after the optimizer's update: the step writing a variable again with a
function of its own new value (a max-norm constraint — TF1's
`w.assign(clip_by_norm(w, 1, axes=[0]))` run after `minimize`, Keras'
`variable.assign(constraint(variable))` after its update — a clip to a range, a
renormalization). The update compared is the variable after both writes; when only one run
projects, the optimizer is not what differs, and the line to show is the projection's (in
the run that has it) and the applying line (in the run that lacks it), not an optimizer's
constructor.

Told from dataflow: a plain assignment (a set, not an add or a subtraction: a decoupled
weight decay subtracts) made after the step's training update of the same variable, whose
value is computed from a read of that variable and not from the backward pass.
"""

from __future__ import annotations

from tfdbg_tui.core.compare.contract.dataflow import BWD, READS, Flow

_SETS = frozenset({"AssignVariableOp", "Assign"})
_REACH = 64  # ops walked back from the value written: a projection is short


def projection(flow: Flow, h: str, update: int | None) -> int | None:
    """The last write of variable `h` after its training update `update` that projects it
    (see the module docstring), or None."""
    if update is None:
        return None
    found = None
    for k in range(update + 1, len(flow)):
        if flow.handle[k] == h and flow.op_type[k] in _SETS and len(flow.inputs[k]) > 1 \
                and _of_itself(flow, k, h):
            found = k
    return found


def _of_itself(flow: Flow, k: int, h: str) -> bool:
    """Whether the value node k writes comes from a read of `h`, never from the backward
    pass (within a few ops)."""
    todo = [flow.inputs[k][1][0]]
    seen: set[int] = set()
    own = False
    while todo and len(seen) < _REACH:
        j = todo.pop()
        if j < 0 or j in seen:
            continue
        seen.add(j)
        if flow.phase[j] == BWD:
            return False
        if flow.op_type[j] in READS:
            own |= flow.handle[j] == h
            continue
        todo.extend(i for i, _ in flow.inputs[j])
    return own and len(seen) < _REACH
