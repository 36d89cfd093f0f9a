"""Stage 1, graph forms: a training graph (a TF1 Session graph, a `tf.function` step, Keras
`fit`'s train function) as a `Flow`, and the rows of each of its steps (see `graph_steps`).
"""

from __future__ import annotations

import numpy as np

from reader import GRAPH, DebugLogdir
from reader.index.graphs import parse_tensor_name
from tfdbg_tui.core.compare.contract.dataflow import (
    BWD,
    FWD,
    MAX_SLOTS,
    MAX_STEPS,
    READS,
    UPDATES,
    Flow,
    Frames,
    state_handles,
    trained_handles,
)
from tfdbg_tui.core.compare.contract.loops import passed_handles
from tfdbg_tui.core.compare.graphs import OpTable

_VAR_SOURCES = frozenset({"VarHandleOp", "VariableV2", "Variable", "Placeholder", "_Arg"})


_CELLS = 1 << 21  # (step, node, slot) cells of a graph's row table


# ---------------------------------------------------------------------- graphs
def _graph_flow(logdir: DebugLogdir, ops: OpTable, gid: str, frames: Frames) -> Flow:
    graph = logdir.graphs.graphs[gid]
    ids = ops.by_graph.get(gid, [])
    local = {ops.keys[i][1]: k for k, i in enumerate(ids)}
    flow = Flow(GRAPH, gid=gid)
    for i in ids:
        name = ops.keys[i][1]
        op = graph.ops.get(name)
        ins: list[tuple[int, int]] = []
        if op is not None:
            for tname in op.input_names:
                parsed = parse_tensor_name(tname)
                if parsed is not None:
                    ins.append((local.get(parsed[0], -1), parsed[1]))
        phase = frames.phase(op.stack_frame_ids) if op is not None else FWD
        line = frames.line(op.stack_frame_ids) if op is not None else -1
        flow.add(ops.types[i], name, ins, None, phase, line)
    for k, t in enumerate(flow.op_type):  # the variable a resource op reads or writes
        if (t in READS or t in UPDATES) and flow.inputs[k]:
            src = flow.inputs[k][0][0]
            hops = 0
            while (src >= 0 and flow.op_type[src] == "Identity" and flow.inputs[src]
                   and hops < 8):
                src, hops = flow.inputs[src][0][0], hops + 1
            if src >= 0 and flow.op_type[src] in _VAR_SOURCES:
                flow.handle[k] = f"{gid}/{flow.name[src]}"
    passed_handles(flow, _VAR_SOURCES)
    return flow


def graph_training(logdir: DebugLogdir, ops: OpTable, frames: Frames
                    ) -> list[tuple[Flow, set[str]]]:
    """The graphs holding training updates, as flows, with their trained variables."""
    found = []
    update_types = set(UPDATES)
    for gid in logdir.graphs.graphs:
        ids = ops.by_graph.get(gid, [])
        if not any(ops.types[i] in update_types for i in ids):
            continue
        flow = _graph_flow(logdir, ops, gid, frames)
        dtype_of = {k: ops.shape[i][0] for k, i in enumerate(ids)}
        trained = trained_handles(flow, dtype_of)
        if trained:
            flow.state = state_handles(flow, dtype_of, trained)
            found.append((flow, trained))
    return found


def _ancestors(flow: Flow, seeds: list[int], through_variables: bool = True) -> np.ndarray:
    """Nodes the seeds depend on, through data edges and (`through_variables`) through
    variables: a read depends on the earlier assignments to its variable (an optimizer's
    slot, a gradient accumulator: written, then read)."""
    writes: dict[str, list[int]] = {}
    for k, t in enumerate(flow.op_type):
        h = flow.handle[k]
        if t in UPDATES and h and through_variables:
            writes.setdefault(h, []).append(k)
    mask = np.zeros(len(flow), bool)
    todo = list(seeds)
    while todo:
        k = todo.pop()
        if k < 0 or mask[k]:
            continue
        mask[k] = True
        todo.extend(j for j, _ in flow.inputs[k])
        h = flow.handle[k]
        if flow.op_type[k] in READS and h:
            todo.extend(w for w in writes.get(h, []) if w < k)
    return mask


def _fold_gradient_runs(rows: np.ndarray, node: np.ndarray, counts: np.ndarray,
                        gradient_runs: np.ndarray, step_ops: np.ndarray, starts: np.ndarray,
                        ends: np.ndarray) -> np.ndarray:
    """Each step's start moved back to the first gradient run since the previous step's
    update: the micro-batches' forward and backward passes (the ops run as often as the
    backward ones) belong to the step whose update follows them."""
    values, freq = np.unique(counts[gradient_runs], return_counts=True)
    per_run = step_ops & (counts == int(values[np.argmax(freq)]))
    run_rows = rows[per_run[node]]
    out = starts.copy()
    after = np.asarray(np.searchsorted(run_rows, np.r_[-1, ends[:-1]], "right"))
    upto = np.asarray(np.searchsorted(run_rows, ends, "right"))
    for k in range(len(ends)):
        if upto[k] > after[k]:
            out[k] = min(int(out[k]), int(run_rows[after[k]]))
    return out


def graph_steps(logdir: DebugLogdir, ops: OpTable, gid: str, flow: Flow,
                trained: set[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ends, rows[step, node, slot], first row of each node's slot 0) of a training graph.

    Vectorised over the graph's trace rows. The backward ops (traced only when a step
    trains) give the step count and each step's span [start, end]. A tensor computed in the
    span is that step's. One computed outside it — also by other `Session.run`s: the
    initializer, a fetch of the loss and learning rate to log them — is taken from the run
    that trains: an op that ran exactly once per step has its k-th row in step k; else, for
    an op the updates depend on (the forward pass, the learning rate), its last row before
    the span; for any other (a loss fetched beside the train op), the row nearest to it."""
    ids = np.asarray(ops.by_graph.get(gid, []), np.int64)
    lut = np.full(len(ops.keys), -1, np.int64)
    lut[ids] = np.arange(len(ids))
    t = logdir.traces
    rows = np.flatnonzero(lut[ops.row_op] >= 0) if len(t) else np.zeros(0, np.int64)
    node = lut[ops.row_op[rows]]
    slot = np.asarray(t.slot)[rows].astype(np.int64) if len(rows) else np.zeros(0, np.int64)
    updates = [k for k, typ in enumerate(flow.op_type) if typ in UPDATES
               and flow.handle[k] in trained]
    step_ops = _ancestors(flow, updates)
    applied = _ancestors(flow, updates, through_variables=False)  # what the update run runs
    counts = np.bincount(node, minlength=len(flow)) if len(node) else np.zeros(len(flow), int)
    eligible = step_ops & (counts > 0)
    first = np.full(len(flow), -1, np.int64)
    if len(rows):
        first[node[::-1]] = rows[::-1]
    if not eligible.any():
        return np.zeros(0, np.int64), np.zeros((0, len(flow), 1), np.int64), first
    backward = np.asarray(flow.phase) == BWD
    gradient_runs = eligible & backward
    applied &= counts > 0
    # a step is an update of the trained variables. Where the gradients reach the updates
    # only through a variable (accumulated over micro-batches, applied by a run of its own),
    # the runs that update are the steps, and the gradient runs before each are folded into
    # it; else only a training run computes gradients: the backward ops count the steps
    accumulated = bool(applied.any() and gradient_runs.any()
                       and not (applied & backward).any())
    if accumulated:
        eligible = applied
    elif gradient_runs.any():
        eligible = gradient_runs
    # the count most of them share (an op run once, before the steps — an initial value
    # reached through a control or resource edge — must not set the step count)
    values, freq = np.unique(counts[eligible], return_counts=True)
    n = int(values[np.argmax(freq)])
    n_all = n  # the step count over the rows looked at
    exact = eligible & (counts == n)
    # steps modelled: at most MAX_STEPS, and fewer for a big graph (the step × op × slot
    # tables are bounded by _CELLS, whatever the file claims)
    slots = min(MAX_SLOTS, int(slot.max(initial=0)) + 1)
    cap = max(1, min(MAX_STEPS, _CELLS // max(1, len(flow) * slots)))
    flow.truncated = n > cap
    if n > cap + 1:  # a long run: only the rows of the first steps are looked at
        e0 = int(np.flatnonzero(exact)[0])
        limit = int(rows[node == e0][cap + 1])
        cut = rows < limit
        rows, node, slot = rows[cut], node[cut], slot[cut]
        n = n_all = cap + 1
        exact = exact & (np.bincount(node, minlength=len(flow)) == n)
    sel = exact[node]
    from tfdbg_tui.core.compare.keys import occurrence

    occ = occurrence(node[sel])
    keep_occ = occ < n
    big = np.iinfo(np.int64).max
    starts = np.full(n, big, np.int64)
    ends = np.full(n, -1, np.int64)
    np.minimum.at(starts, occ[keep_occ], rows[sel][keep_occ])
    np.maximum.at(ends, occ[keep_occ], rows[sel][keep_occ])
    n = min(n, cap)
    starts = np.minimum.accumulate(starts[::-1])[::-1][:n]
    ends = np.maximum.accumulate(ends)[:n]
    if accumulated:
        starts = _fold_gradient_runs(rows, node, counts, gradient_runs, step_ops, starts, ends)
    ok = (slot >= 0) & (slot < MAX_SLOTS)
    rows, node, slot = rows[ok], node[ok], slot[ok]
    k = np.searchsorted(starts, rows, side="right") - 1  # the last step started
    inside = (k >= 0) & (rows <= ends[k.clip(0)])
    after = (k >= 0) & ~inside
    before = ~inside & (k + 1 < n)
    width = int(slot.max(initial=0)) + 1
    tables = []
    # a step's tensor is its first row in the span; of an accumulated step's micro-batches,
    # the last one's (its gradient is the one added last, like Keras' `fit` applies with
    # the update; and an eager step's loss is its last micro-batch's)
    first_or_last = np.maximum if accumulated else np.minimum
    for mask, step, pick in ((inside, k, first_or_last), (before, k + 1, np.maximum),
                             (after, k, np.minimum)):
        table = np.full((n, len(flow), width), -1 if pick is np.maximum else big, np.int64)
        pick.at(table, (step[mask], node[mask], slot[mask]), rows[mask])
        table[(table == big) | (table < 0)] = -1
        tables.append(table)
    inside_t, before_t, after_t = tables
    # an op run exactly once per step (counted over the whole run): its k-th row is step k's
    key = node * width + slot
    once = np.bincount(key, minlength=len(flow) * width).reshape(len(flow), width) == n_all
    sel_once = once[node, slot]
    occ_once = occurrence(key[sel_once])
    fit_in = occ_once < n
    once_t = np.full((n, len(flow), width), -1, np.int64)
    once_t[occ_once[fit_in], node[sel_once][fit_in], slot[sel_once][fit_in]] = \
        rows[sel_once][fit_in]
    # what the updates depend on: the last row before the span; anything else: the row
    # nearest to the span (a loss fetched beside the train op is computed just before the
    # gradients in a function, just after them in a TF1 graph)
    far = np.iinfo(np.int64).max // 4
    gap_before = np.where(before_t >= 0, starts[:, None, None] - before_t, far)
    gap_after = np.where(after_t >= 0, after_t - ends[:, None, None], far)
    nearest = np.where(gap_before <= gap_after, before_t, after_t)
    prefer_before = step_ops[None, :, None]
    outside = np.where(prefer_before, np.where(before_t >= 0, before_t, after_t), nearest)
    out = np.where(once_t >= 0, once_t, np.where(inside_t >= 0, inside_t, outside))
    return ends, out, first
