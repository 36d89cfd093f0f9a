"""Stage 1, graph forms: a training graph (a TF1 Session graph, a `tf.function` step, Keras
`fit`'s train function) as a `Flow`, and the rows of each of its steps (see `graph_steps`).
"""

from __future__ import annotations

import numpy as np

from reader import DebugLogdir
from tfdbg_tui.core.compare.contract.dataflow import (
    BWD,
    MAX_SLOTS,
    MAX_STEPS,
    READS,
    UPDATES,
    Flow,
    Frames,
)
from tfdbg_tui.core.compare.contract.graph_flow import dtypes, graph_flow, join_functions
from tfdbg_tui.core.compare.contract.variable_kinds import state_handles, trained_handles
from tfdbg_tui.core.compare.graphs import OpTable
from tfdbg_tui.core.compare.keys import occurrence

_CELLS = 1 << 21  # (step, node, slot) cells of a graph's row table


# ---------------------------------------------------------------------- graphs
def graph_training(logdir: DebugLogdir, ops: OpTable, frames: Frames
                    ) -> list[tuple[Flow, set[str]]]:
    """The graphs holding training updates (themselves or in a conditional's branch), as
    flows, with their trained variables; functions that train only together, joined."""
    found, alone = [], []
    update_types = set(UPDATES)
    graphs = logdir.graphs.graphs
    for gid, graph in graphs.items():
        if not any(ops.types[i] in update_types for g in [gid, *graph.inner_ids]
                   for i in ops.by_graph.get(g, [])):
            continue
        flow = graph_flow(logdir, ops, gid, frames)
        trained = trained_handles(flow, dtypes(ops, flow))
        if trained:
            found.append((flow, trained))
        elif any(t in update_types for t in flow.op_type):
            alone.append(flow)
    joined = join_functions(logdir, ops, alone, frames)
    if joined is not None:
        found.append(joined)
    for flow, trained in found:
        flow.state = state_handles(flow, dtypes(ops, flow), trained)
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


def _mode(values: np.ndarray) -> int:
    """The most common value (the smallest of the most common)."""
    uniq, freq = np.unique(values, return_counts=True)
    return int(uniq[np.argmax(freq)])


def _fold_gradient_runs(rows: np.ndarray, node: np.ndarray, slot: np.ndarray,
                        per_run: np.ndarray, starts: np.ndarray, ends: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Steps' spans widened to the gradient runs they hold: the micro-batches' forward and
    backward passes (`per_run`: the ops run as often as the backward ones; run j is their
    j-th rows) since the previous step's update belong to the step whose update follows
    them, and a step ends no earlier than the run its update is in (a function's ops run in
    parallel: its update's reads may be traced before its loss)."""
    sel = per_run[node] & (slot == 0)
    occ = occurrence(node[sel])
    n_runs = int(occ.max(initial=-1)) + 1
    if not n_runs:
        return starts, ends
    big = np.iinfo(np.int64).max
    run_start = np.full(n_runs, big, np.int64)
    run_end = np.full(n_runs, -1, np.int64)
    np.minimum.at(run_start, occ, rows[sel])
    np.maximum.at(run_end, occ, rows[sel])
    starts, ends = starts.copy(), ends.copy()
    prev = -1  # the last run of the previous step
    for k in range(len(ends)):
        j = int(np.searchsorted(run_start, ends[k], "right")) - 1  # the run the update is in
        if j > prev:
            starts[k] = min(int(starts[k]), int(run_start[prev + 1]))
            ends[k] = max(int(ends[k]), int(run_end[j]))
            prev = j
    return starts, ends


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
    ids = np.asarray(flow.op_ids, np.int64)
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
    # a step is an update of the trained variables. Where the updates run less often than
    # the gradients (accumulated over micro-batches, applied by a run of their own, or in a
    # conditional's branch every n-th call), the runs that update are the steps, and the
    # gradient runs before each are folded into it; else only a training run computes
    # gradients: the backward ops count the steps
    accumulated = bool(applied.any() and gradient_runs.any()
                       and _mode(counts[applied]) < _mode(counts[gradient_runs]))
    if accumulated:
        eligible = applied
    elif gradient_runs.any():
        eligible = gradient_runs
    # the count most of them share (an op run once, before the steps — an initial value
    # reached through a control or resource edge — must not set the step count)
    n = _mode(counts[eligible])
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
        per_run = step_ops & (counts == _mode(counts[gradient_runs]))
        starts, ends = _fold_gradient_runs(rows, node, slot, per_run, starts, ends)
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
