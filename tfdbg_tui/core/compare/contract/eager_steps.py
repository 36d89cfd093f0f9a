"""Stage 1, the eager form: training steps of an eager run (`train_step` called without
`tf.function`, the guide's form).

Executions have no names and no graph, but each records the ids of the tensors it consumed
and produced, so the dataflow of a step is rebuilt from the records (read once each, about
half a millisecond a record: a run of more than `MAX_EXECUTIONS` has its steps found among
its first `MAX_EXECUTIONS`, the rest compared op by op, and the notes say which steps).
A step ends with the k-th update of every trained variable; the initial value of a variable
is what was assigned to it before its first read (its line is the one that creates the layer
or the variable).
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from reader import EAGER, DebugLogdir, ReaderError
from tfdbg_tui.core.compare.contract.dataflow import (
    BWD,
    MAX_EXECUTIONS,
    MAX_SLOTS,
    MAX_STEPS,
    READS,
    UPDATES,
    Flow,
    Frames,
    training_update,
)
from tfdbg_tui.core.compare.contract.eager_identity import custom_gradient_stack, identity_links
from tfdbg_tui.core.compare.contract.slot_reads import slot_updates
from tfdbg_tui.core.compare.contract.variable_kinds import state_handles, trained_handles


def eager_training(logdir: DebugLogdir, frames: Frames, notes: list[str],
                   keep: list[Flow] | None = None
                   ) -> tuple[list[Flow], set[str], np.ndarray | None]:
    """Eager steps: one flow per step, from the execution records (inputs by tensor id);
    `keep` is given the executions as one flow when they were read (state written between
    steps is looked for there: `state_outside`)."""
    e = logdir.executions
    n = len(e)
    if not n:
        return [], set(), None
    names = np.array([logdir.strings[int(s)] for s in np.unique(e.op_type)], dtype=object)
    uniq = np.unique(e.op_type)
    is_update = np.isin(e.op_type, uniq[np.isin(names, list(UPDATES))])
    if not is_update.any():
        return [], set(), None
    # the records are read one by one (about half a millisecond each): a longer run has its
    # steps found among its first MAX_EXECUTIONS executions, and says so (`_read_only`)
    limit = min(n, MAX_EXECUTIONS)
    records = [logdir.read_execution(i) for i in range(limit)]
    whole = Flow(EAGER)
    producer: dict[int, tuple[int, int]] = {}
    phases = [frames.phase(r.stack_frame_ids) for r in records]
    # a forward input no recorded op made: an unrecorded Identity's (a custom gradient's)
    copies = identity_links(records, phases, lambda i: _in_custom_gradient(
        logdir, records[i].stack_frame_ids))
    for i, r in enumerate(records):
        ins = [producer.get(tid, copies.get(tid, (-1, 0))) for tid in r.input_tensor_ids]
        handle = (f"id:{r.input_tensor_ids[0]}" if (r.op_type in READS or r.op_type in UPDATES)
                  and r.input_tensor_ids else None)
        whole.add(r.op_type, "", ins, handle, phases[i], frames.line(r.stack_frame_ids))
        for s, tid in enumerate(r.output_tensor_ids):
            producer[tid] = (i, s)
    first = np.asarray(e.first_output, np.int64)
    dtype = np.asarray(logdir.outputs.dtype)
    dtype_of = {i: int(dtype[first[i]]) if e.n_outputs[i] > 0 else -1 for i in range(limit)}
    if keep is not None:
        keep.append(whole)
    # a weight's update reading its slot through a read TensorFlow did not record
    whole.slot_updates = slot_updates(whole, dtype_of)
    trained = trained_handles(whole, dtype_of)
    if not trained:
        if limit < n:
            notes.append(_read_only(n, limit, 0))
        return [], set(), None
    state = state_handles(whole, dtype_of, trained)
    per: dict[str, list[int]] = {h: [] for h in trained}
    for k in range(len(whole)):
        h = whole.handle[k]
        if h in per and training_update(whole, k, dtype_of):
            per[h].append(k)
    ends = _step_ends(whole, per)
    if limit < n:
        notes.append(_read_only(n, limit, len(ends[:MAX_STEPS])))
    truncated = len(ends) > MAX_STEPS or limit < n
    ends = ends[:MAX_STEPS]
    step_of = np.full(n, -1, np.int64)
    flows = []
    start = _first_step_start(whole, trained)
    for s, end in enumerate(ends):
        step_of[start:end + 1] = s
        flow = Flow(EAGER, steps=[s], index=list(range(start, end + 1)), truncated=truncated,
                    state=state)
        index = {k: j for j, k in enumerate(range(start, end + 1))}
        flow.slot_updates = {index[k] for k in whole.slot_updates if k in index}
        width = max([records[k].num_outputs for k in range(start, end + 1)] + [1])
        width = min(width, MAX_SLOTS)
        rows = np.full((1, end + 1 - start, width), -1, np.int64)
        for k in range(start, end + 1):
            ins = [(index.get(j, -1), sl) if j >= 0 else (-1, sl) for j, sl in whole.inputs[k]]
            flow.add(whole.op_type[k], "", ins, whole.handle[k], whole.phase[k], whole.line[k])
            m = min(int(e.n_outputs[k]), width)
            rows[0, index[k], :m] = first[k] + np.arange(m)
        flow.rows = rows
        if s == 0:  # initial values: what was assigned to a trained variable before its read
            read: set[str | None] = set()
            for k in range(end + 1):
                h = whole.handle[k]
                if whole.op_type[k] in READS:
                    read.add(h)
                elif (whole.op_type[k] == "AssignVariableOp" and h in trained and h not in read
                      and len(whole.inputs[k]) > 1):
                    flow.assigned[h] = (EAGER, k)  # the last one before the read wins
                    j, sl = whole.inputs[k][1]
                    if j >= 0 and sl < int(e.n_outputs[j]):
                        flow.init[h] = (EAGER, int(first[j]) + sl)
                    else:  # a value from outside (set_weights' numpy array): not recorded
                        flow.init.pop(h, None)
        flows.append(flow)
        start = end + 1
    return flows, trained, step_of


def _in_custom_gradient(logdir: DebugLogdir, ids: tuple[str, ...]) -> bool:
    try:
        return custom_gradient_stack([f.file for f in logdir.stack(ids)])
    except (ReaderError, KeyError, ValueError):
        return False


def _read_only(n: int, limit: int, steps: int) -> str:
    """What a run longer than MAX_EXECUTIONS had compared as training steps."""
    if not steps:
        return (f"{n:,} eager executions: no whole training step in the first {limit:,} (the "
                "most read to find steps); compared op by op")
    return (f"{n:,} eager executions: training steps found in the first {limit:,} only (the "
            f"most read to find steps) — {'step 0' if steps == 1 else f'steps 0-{steps - 1}'} "
            "compared as steps, the executions after them op by op")


def _first_step_start(whole: Flow, trained: set[str]) -> int:
    """Where step 0 begins: after the last assignment to a trained variable before the first
    backward pass. A model called once to build it (`net(x[:1])`) and then restored
    (`set_weights`, `assign`) read its initializer's draw in that call: that forward pass is
    no step's, and step 0 reads what the restore wrote."""
    phase = np.asarray(whole.phase)
    bwd = np.flatnonzero(phase == BWD)
    limit = int(bwd[0]) if len(bwd) else len(whole)
    start = 0
    for k in range(limit):
        if whole.op_type[k] in _ASSIGNS and whole.handle[k] in trained:
            start = k + 1
    return start


_ASSIGNS = frozenset({"AssignVariableOp", "Assign"})


def _step_ends(whole: Flow, per: dict[str, list[int]]) -> list[int]:
    """The last execution of each step. A step is a forward pass, one backward pass and the
    optimizer's updates: the training updates fall in groups, one per step, separated by
    backward-pass executions — so a variable updated twice in a step (decoupled weight
    decay, then the gradient's update) does not make two steps of one. Without a recorded
    backward pass (gradients made by hand), step k ends with the k-th update of every
    trained variable."""
    updates = sorted({k for v in per.values() for k in v})
    backward = np.flatnonzero(np.asarray(whole.phase) == BWD)
    if not len(backward) or not updates:
        n = min(len(v) for v in per.values())
        return [max(v[s] for v in per.values()) for s in range(n)]
    ends: list[int] = []
    for a, b in pairwise(updates):
        # a backward execution between two updates: a new step's gradients
        if np.searchsorted(backward, b) > np.searchsorted(backward, a):
            ends.append(a)
    ends.append(updates[-1])
    # a group must update every trained variable, else it is no whole step (an update
    # outside the loop, say): steps are the groups that do
    out, start = [], 0
    for end in ends:
        seen = {h for h, v in per.items() if any(start <= k <= end for k in v)}
        if len(seen) == len(per):
            out.append(end)
        start = end + 1
    return out
