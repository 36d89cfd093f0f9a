"""Stage 1, a helper: which eager variable a tf.function's resource placeholder is, to find
its last assignment before the first step.

A Keras model trained through `fit` or a `tf.function` reads its variables through the
function graph's resource placeholders, while the variables were created — and their initial
values assigned, at the line that builds the layer — by eager ops before the first call. The
call's execution lists the tensors it was given, in the order of the graph's placeholders
(arguments first, captured variables last); a function called from another function captures
its variables through the outer function's placeholders, in the same order. So, matching
placeholder lists from their ends, a placeholder is traced back to the eager handle, and the
eager `AssignVariableOp` on that handle before the first step gives the initial value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from reader import EAGER, DebugLogdir, ReaderError

if TYPE_CHECKING:
    from tfdbg_tui.core.compare.contract.dataflow import Flow

MAX_CALLS = 4096  # distinct functions whose first call is read
MAX_ASSIGNS = 100_000  # eager assignments read to find initial values


def _placeholders(logdir: DebugLogdir) -> dict[str, list[str]]:
    return {gid: [name for name, op in g.ops.items() if op.op_type in ("Placeholder", "_Arg")]
            for gid, g in logdir.graphs.graphs.items()}


def aliases(logdir: DebugLogdir) -> dict[str, int]:
    """Graph handle key (`graph id/placeholder`) → eager tensor id of the variable handle."""
    e = logdir.executions
    out: dict[str, int] = {}
    if not len(e):
        return out
    ph = _placeholders(logdir)
    gids = np.asarray(e.graph_id)
    called, first = np.unique(gids, return_index=True)
    for sid, i in list(zip(called.tolist(), first.tolist(), strict=True))[:MAX_CALLS]:
        if sid < 0:
            continue
        gid = logdir.strings[int(sid)]
        try:
            ids = logdir.read_execution(int(i)).input_tensor_ids
        except ReaderError:
            continue
        names = ph.get(gid, [])
        k = min(len(names), len(ids))
        for name, tid in zip(names[len(names) - k:], ids[len(ids) - k:], strict=True):
            out[f"{gid}/{name}"] = int(tid)
    changed = True
    while changed:  # nested functions: through the outer function's placeholders
        changed = False
        for gid, g in logdir.graphs.graphs.items():
            outer = ph.get(g.outer_id, [])
            inner = ph.get(gid, [])
            k = min(len(inner), len(outer))
            for n_in, n_out in zip(inner[len(inner) - k:], outer[len(outer) - k:], strict=True):
                key, src = f"{gid}/{n_in}", f"{g.outer_id}/{n_out}"
                if key not in out and src in out:
                    out[key] = out[src]
                    changed = True
    return out


def eager_init(logdir: DebugLogdir, flows: list[Flow], trained: set[str]) -> None:
    """Set `flow.init` of graph flows from eager assignments before the first step."""
    alias = aliases(logdir)
    want = {alias[h]: h for h in trained if h in alias}
    if not want:
        return
    e = logdir.executions
    types = np.asarray(e.op_type)
    names = {i: logdir.strings[int(i)] for i in np.unique(types).tolist()}
    assign = [i for i, n in names.items() if n == "AssignVariableOp"]
    rows = np.flatnonzero(np.isin(types, assign))[:MAX_ASSIGNS]
    start = min(float(np.min(logdir.traces.wall_time[f.rows[0][f.rows[0] >= 0]]))
                if (f.rows[0] >= 0).any() else np.inf for f in flows)
    wall = np.asarray(e.wall_time)
    found: dict[str, tuple[int, int]] = {}
    for i in rows[wall[rows] <= start].tolist():
        try:
            r = logdir.read_execution(int(i))
        except ReaderError:
            continue
        if len(r.input_tensor_ids) < 2 or r.input_tensor_ids[0] not in want:
            continue
        h = want[r.input_tensor_ids[0]]
        # the last assignment before the first step is what the step reads: `build`'s
        # initializer draw is replaced by `set_weights`, a restore or an `assign`
        found[h] = (int(i), int(r.input_tensor_ids[1]))
    if not found:
        return
    for h, (i, _) in found.items():
        for f in flows:
            f.assigned.setdefault(h, (EAGER, i))
    # the execution that produced each assigned value: search backwards from the assignment
    for h, (i, tid) in found.items():
        for j in range(i - 1, max(-1, i - 64), -1):
            try:
                rec = logdir.read_execution(j)
            except ReaderError:
                break
            if tid in rec.output_tensor_ids:
                slot = rec.output_tensor_ids.index(tid)
                row = logdir.output_row(j, slot)
                if row is not None:
                    for f in flows:
                        if h in trained:
                            f.init.setdefault(h, (EAGER, row))
                break
