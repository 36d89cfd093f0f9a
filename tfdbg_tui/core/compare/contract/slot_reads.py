"""Stage 1, the eager form: a weight's update that reads the gradient only through a slot
variable whose read TensorFlow did not record.

An optimizer written by hand keeps its state in the user's own variables: TF1's momentum
(`accum.assign(0.9 * accum + g); w.assign_sub(lr * accum)`), Keras' (`v.assign(mu * v - lr *
g); w.assign_add(v)`). The weight's update is a training update because the slot it reads
was just made from the gradients — `dataflow._from_gradient` follows such a read to what was
assigned to the slot. Eagerly the read is often missing: TensorFlow's C fast path reads a
variable passed to an op with a tensor operand (`lr * accum`, `tf.sqrt(v)`) without calling
an op callback, so the record shows `Mul(lr, <no recorded producer>)`; and Keras 3's
`assign_sub` is a read, a subtraction and an `AssignVariableOp`, a plain assignment that must
show its gradient. The same step in `tf.function` records every read, so only the eager form
lost the weights' training updates ("no training step").

What stands in for the missing read (each must hold, else nothing changes):
- the assignment is in the user's code (a forward phase), not already a training update, and
  its value is made by recorded ops from at least one operand no recorded op made;
- it comes after a step's backward pass and before the next step's forward pass begins (no
  op in between is one a later backward pass reads, directly or through forward ops): the
  optimizer's window, where batch normalization's statistics (assigned during the forward
  pass) never fall;
- in that window, before it, another variable was assigned from the gradients, and that
  variable's recorded reads never reach a backward pass: a slot, not a weight;
- the weight itself has no training update in that window (an update a clip follows keeps
  its own).
"""

from __future__ import annotations

from tfdbg_tui.core.compare.contract.dataflow import (
    BWD,
    FORWARD,
    READS,
    UPDATES,
    Flow,
    reach,
    training_update,
    value_input,
)

_WALK = 48  # nodes walked back from an assignment's value


def slot_updates(flow: Flow, dtype_of: dict[int, int]) -> set[int]:
    """The nodes of an eager flow (all of a run's executions) taken as training updates that
    read their slot unrecorded (see the module docstring)."""
    n = len(flow)
    if not any(p == BWD for p in flow.phase):
        return set()
    later_forward = _read_by_backward(flow)
    out: set[int] = set()
    in_window = False  # after a backward pass, before the next forward pass
    slots = False  # a slot assigned from the gradients in this window
    trained_here: set[str] = set()  # variables with a training update in this window
    for k in range(n):
        if flow.phase[k] == BWD:
            in_window, slots, trained_here = True, False, set()
            continue
        if k in later_forward:
            in_window = False
            continue
        if not in_window or flow.op_type[k] not in UPDATES:
            continue
        h = flow.handle[k]
        if not h:
            continue
        if training_update(flow, k, dtype_of):
            trained_here.add(h)
            slots |= not reach(flow, h).backward
            continue
        if (slots and h not in trained_here and flow.phase[k] in FORWARD
                and _unrecorded_operand(flow, k)):
            out.add(k)
            trained_here.add(h)
    return out


def _read_by_backward(flow: Flow) -> set[int]:
    """Forward nodes a backward pass reads, directly or through other forward nodes: where
    each step's forward pass is (its variables' reads, its activations)."""
    seen: set[int] = set()
    todo = [j for k in range(len(flow)) if flow.phase[k] == BWD
            for j, _ in flow.inputs[k] if j >= 0 and flow.phase[j] != BWD]
    while todo:
        j = todo.pop()
        if j in seen:
            continue
        seen.add(j)
        todo.extend(i for i, _ in flow.inputs[j] if i >= 0 and flow.phase[i] != BWD)
    return seen


def _unrecorded_operand(flow: Flow, k: int) -> bool:
    """Whether update k's value is made by recorded ops (not assigned as it came, like a
    restored numpy array) from at least one operand no recorded op made."""
    v = value_input(flow.op_type[k])
    if len(flow.inputs[k]) <= v:
        return False
    first = flow.inputs[k][v][0]
    if first < 0:
        return False
    todo, seen = [first], set[int]()
    while todo and len(seen) < _WALK:
        j = todo.pop()
        if j in seen or flow.op_type[j] in READS:
            continue
        seen.add(j)
        for i, _ in flow.inputs[j]:
            if i < 0:
                return True
            todo.append(i)
    return False
