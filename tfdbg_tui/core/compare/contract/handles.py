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
            ids = list(logdir.read_execution(int(i)).input_tensor_ids)
        except ReaderError:
            continue
        names = ph.get(gid, [])
        if len(ids) > len(names):
            ids = _captured_values_dropped(logdir, int(i), ids, len(ids) - len(names))
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


MAX_BACK = 4096  # executions read back from a call to find what made its inputs


def _captured_values_dropped(logdir: DebugLogdir, call: int, ids: list[int], extra: int
                             ) -> list[int]:
    """A call's inputs less the `extra` ones its graph has no placeholder for: a constant the
    function captured by value (a `tf.constant` a `fit` loss function closes over) is given
    to the call but baked into its graph. Such a value was made by no recorded execution,
    while a variable's handle was (its `VarHandleOp`) and an argument usually was: the
    inputs no execution before the call produced go first, the last ones first (captures
    follow the arguments); matching the rest from the ends then holds."""
    made: set[int] = set()
    want = set(ids)
    for j in range(call - 1, max(-1, call - 1 - MAX_BACK), -1):
        try:
            made.update(t for t in logdir.read_execution(j).output_tensor_ids if t in want)
        except ReaderError:
            break
        if made >= want:
            return ids
    drop = [p for p in range(len(ids) - 1, -1, -1) if ids[p] not in made][:extra]
    return [t for p, t in enumerate(ids) if p not in drop]


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
